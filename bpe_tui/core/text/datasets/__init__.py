"""Datasets as they are shipped: records that each hold one document's text.

``records`` (which field holds the text, what makes a record bad, what reading met), ``jsonl``
(JSON lines, compressed or not), ``parquet`` (a text column read by row group, via pyarrow) and
``iterables`` (any iterable of strings: a ``datasets`` column, a generator). Plain and
compressed text files are :mod:`..blocks`'; which reader a file gets is :mod:`..parts`'.

A record is a document boundary: no pre-token spans two records, and inside one the text is
read exactly as a text file holding that text would be (special tokens first, line by line).
So a JSONL file whose records are the lines of a text file, each with its newline, gives the
text file's word counts, in the same order, and the same merges.
"""

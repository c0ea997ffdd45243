"""Merge tables: the trained tokenizer as a value, and the files people publish it in.

``table`` is MergeTable (merges, vocabulary, encode and decode); ``formats/`` reads and writes
each file format (native JSON, GPT-2, tokenizer.json, tiktoken ranks, sentencepiece, minbpe,
subword-nmt) and saves tables (``formats.save``).
"""

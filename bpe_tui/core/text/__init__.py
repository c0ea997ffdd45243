"""Text before BPE sees it: normalizing, cutting into pre-tokens, and counting a corpus.

``normalize`` (what a tokenizer does to the text first), ``pretokenize`` (text -> pre-tokens,
special tokens cut out first), ``corpus`` (files -> word counts, streamed, in worker processes),
``distributed`` (the same counting on a Dask cluster).
"""

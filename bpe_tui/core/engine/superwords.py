"""Superword BPE (SuperBPE): a pre-tokenization curriculum that lets merges span spaces.

Liu et al., "SuperBPE: Space Travel for Language Models" (COLM 2025, arXiv 2503.13423).
Ordinary BPE never merges across a pre-token boundary, so no token holds a space inside it.
SuperBPE trains in two stages:

1. merges 1..K are ordinary BPE under the usual pre-tokenizer (GPT-2's regex, say);
2. then the corpus is cut again, far more coarsely, by the stage-2 rule
   (:data:`~bpe_tui.core.text.pretokenize.SUPERWORD_SPLIT`): only numbers, runs of two or
   more punctuation marks and trailing spaces are cut out; everything between them, spaces
   included, is one *chunk*. The K merges are applied to each chunk by rank (as encoding
   does), and training goes on over the chunks, where a pair may now be ``(Ġby, Ġthe)``.

The trained tokenizer pre-tokenizes by the stage-2 rule alone: the stage-1 merges apply
inside chunks exactly as they did inside words, because encoding by rank reproduces the
merges in their order.

What it costs. The trainer still works on distinct units with counts, but chunks repeat far
less than words (a chunk is often a whole line), so there are many more of them, and they
are longer: the corpus's chunks are counted when the trainer is built (a second pass over
the text: the words alone cannot say which words stood side by side), kept until the
transition, and then the words' segmentations at step K are kept for undo
(benchmarks/superwords.py measures time and memory against plain BPE).

This module holds what the trainer, the table and the views share: which config counts the
chunks, which pre-tokenizer a cut table has, and what a superword is. The transition itself
is the trainer's (``Trainer._cross_to_chunks``, ``segment_chunks``), and so is the plain
table a superword table is measured against (``plain_counterpart``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import regex

from ..text.pretokenize import SUPERWORD_PRETOKENIZER
from .config import TrainerConfig

__all__ = ["SUPERWORD_PRETOKENIZER", "SUPERWORD_RULE_NAME", "chunk_config", "is_superword", "is_superword_rule", "stage_pretokenizer"]

#: Whitespace that a word's letters or digits follow (after some other character), or that
#: follows them: the mark of a token that spans a word boundary.
_ACROSS = regex.compile(r"\S\s+[\p{L}\p{N}\p{M}]|[\p{L}\p{N}\p{M}]\S*\s")


def chunk_config(config: TrainerConfig) -> TrainerConfig:
    """The config that counts a corpus's stage-2 chunks: ``config`` with SuperBPE's split as
    its pre-tokenizer (lowercase and special tokens as they are)."""
    return replace(config, pretokenizer=SUPERWORD_PRETOKENIZER, superwords_after=None, vocab_size=None, merges=None)


def stage_pretokenizer(pretokenizer: str, config: Mapping, merges: int) -> str:
    """The pre-tokenizer of a superword table cut after ``merges`` merges: the stage-1 rule
    its config records before the transition, SuperBPE's from it on (the trainer's own table
    at step ``merges``); any other table's own ``pretokenizer``."""
    k = config.get("superwords_after")
    stage1 = config.get("pretokenizer")
    if is_superword_rule(pretokenizer) and isinstance(k, int) and isinstance(stage1, str) and merges < k:
        return stage1
    return pretokenizer


#: What SuperBPE's stage-2 pre-tokenizer is called where a name is shown.
SUPERWORD_RULE_NAME = "superbpe (superwords)"


def is_superword_rule(pretokenizer: str) -> bool:
    """Whether a table's pre-tokenizer is SuperBPE's stage-2 rule."""
    return pretokenizer == SUPERWORD_PRETOKENIZER


def is_superword(surface: bytes | str | None) -> bool:
    """Whether a token spans a word boundary: whitespace between a character and a word
    (``by·the``, ``·in·the``, ``,·and``) or after a word's letters or digits (``the·``,
    ``Citizen:\\n``), which no ordinary pre-tokenizer lets a merge make. A leading space
    (``·the``) is not one, nor punctuation around a line break (``.\\n`` and ``;\\n//``,
    tokens of GPT-4's and GPT-4o's regexes); bytes that are only part of a character are read
    with replacement."""
    if surface is None:
        return False
    text = surface.decode("utf-8", "replace") if isinstance(surface, bytes) else surface
    return _ACROSS.search(text) is not None

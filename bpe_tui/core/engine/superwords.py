"""What SuperBPE's trainer, tables and views share: the stage-2 rules and limits, and what a
superword is.

SuperBPE (Liu et al. 2025; the algorithm, its two stages and its options are taught in
:mod:`~bpe_tui.core.engine.variants.superbpe`, which holds the transition) trains merges
1..K under the usual pre-tokenizer, then cuts the corpus again by a coarser stage-2 rule into
*chunks* where a merge may span spaces. This module holds the small rules more than the
trainer needs: which config counts the chunks (:func:`chunk_config`), which pre-tokenizer a
table cut after some merges has (:func:`stage_pretokenizer`), what stage 2 refuses to make
(:func:`stage2_limit`), and whether a token is a superword (:func:`is_superword`). The plain
table a superword table is measured against is the trainer's
(:func:`~bpe_tui.core.engine.trainer.plain_counterpart`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

import regex

from ..text.superword_rules import SUPERWORD_PRETOKENIZER, SUPERWORD_RULES
from .config import STAGE2_DEFAULTS, TrainerConfig

__all__ = [
    "SUPERWORD_PRETOKENIZER", "SUPERWORD_RULE_NAME", "chunk_config", "is_superword", "is_superword_rule", "stage2_limit", "superword_rule_name",
    "stage2_pretokenizer", "stage_pretokenizer", "word_count",
]

#: Whitespace that a word's letters or digits follow (after some other character), or that
#: follows them: the mark of a token that spans a word boundary.
_ACROSS = regex.compile(r"\S\s+[\p{L}\p{N}\p{M}]|[\p{L}\p{N}\p{M}]\S*\s")


def stage2_pretokenizer(config: TrainerConfig) -> str:
    """The pre-tokenizer of ``config``'s stage 2: its ``superword_rule`` as a pipeline."""
    return SUPERWORD_RULES[config.superword_rule]


def chunk_config(config: TrainerConfig) -> TrainerConfig:
    """The config that counts a corpus's stage-2 chunks: ``config`` with its stage-2 rule as
    its pre-tokenizer (lowercase and special tokens as they are)."""
    return replace(
        config, pretokenizer=stage2_pretokenizer(config), superwords_after=None, vocab_size=None, merges=None, **STAGE2_DEFAULTS
    )


def word_count(token: bytes) -> int:
    """How many words a token spans: its runs of bytes between spaces (``b" by the"``: 2;
    ``b"  "``: 0), as the authors' trainer counts them (the pieces between ``Ġ``, empty ones
    left out)."""
    return sum(1 for piece in token.split(b" ") if piece)


def stage2_limit(config: TrainerConfig) -> Callable[[bytes], str | None] | None:
    """What SuperBPE's stage 2 refuses to make under ``config``, as a function of the token a
    merge would make: the reason it is refused (``it would hold ': '``), or None where it may
    be made; None when ``config`` refuses nothing (neither ``superword_max_words`` nor
    ``superword_skip_colon_space``). The authors' trainer checks the colon first."""
    most, colon = config.superword_max_words, config.superword_skip_colon_space
    if most is None and not colon:
        return None

    def refused(token: bytes) -> str | None:
        if colon and b": " in token:
            return "would hold ': ' (superword_skip_colon_space)"
        if most is not None and (n := word_count(token)) > most:
            return f"would span {n} words, more than superword_max_words {most}"
        return None

    return refused


def stage_pretokenizer(pretokenizer: str, config: Mapping, merges: int) -> str:
    """The pre-tokenizer of a superword table cut after ``merges`` merges: the stage-1 rule
    its config records before the transition, its stage-2 rule from it on (the trainer's own
    table at step ``merges``); any other table's own ``pretokenizer``. The transition stands
    after merge ``superwords_after`` less the merges dropped there (``superwords_dropped``)."""
    k = config.get("superwords_after")
    dropped = config.get("superwords_dropped", 0)
    stage1 = config.get("pretokenizer")
    if is_superword_rule(pretokenizer) and isinstance(k, int) and isinstance(dropped, int) and isinstance(stage1, str) and merges < k - dropped:
        return stage1
    return pretokenizer


#: What SuperBPE's stage-2 pre-tokenizer is called where a name is shown.
SUPERWORD_RULE_NAME = "superbpe (superwords)"


def superword_rule_name(pretokenizer: str) -> str:
    """How a stage-2 rule is named where a pre-tokenizer's name is shown: ``superbpe
    (superwords)`` for the default rule, ``superbpe (superwords, digits rule)`` for another."""
    rule = next((name for name, pre in SUPERWORD_RULES.items() if pre == pretokenizer), "regex")
    return SUPERWORD_RULE_NAME if rule == "regex" else f"superbpe (superwords, {rule} rule)"


def is_superword_rule(pretokenizer: str) -> bool:
    """Whether a table's pre-tokenizer is one of SuperBPE's stage-2 rules."""
    return pretokenizer in SUPERWORD_RULES.values()


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

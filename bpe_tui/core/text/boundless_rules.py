"""BoundlessBPE's rule for which whole pre-tokens may join into one token.

Schmidt, Reddy, Tanner and Pinter, "Boundless Byte Pair Encoding: Breaking the
Pre-tokenization Barrier" (COLM 2025). A *supermerge* joins two adjacent pre-tokens that are
each one whole token; both must match :data:`MERGE_PATTERN`, tried on the token's text (a token
whose bytes are not UTF-8 never joins). The authors' trainer fixes the rule
(``IMPROVED_MERGE_PATTERN`` in their ``regexconstants.py``); their model files do not record
it, and their inference does not need it: it applies the supermerges a model lists. In words: only letters (each with the combining marks after it), spaces,
underscores and straight or curly apostrophes, with a letter somewhere after the first
character: ``·the``, ``don't``, ``_init``, ``'s`` and ``ab`` may join; ``a``, ``a·``, ``a1``
and ``·`` may not (a one-letter word joins only with its space in front: ``·a``). How the
encoder applies supermerges: :mod:`bpe_tui.core.tables.boundless`; what the reference does:
docs/variants/boundless.md.
"""

from __future__ import annotations

import json
import re
from typing import Any

import regex

#: The text of a token a supermerge may take (matched with ``regex``'s ``match``, so from its
#: start; ``$`` ends it).
MERGE_PATTERN = r"^(?=.+\p{L})(?:\p{L}\p{M}*|[ _'\u2019])+$"

_MERGEABLE = regex.compile(MERGE_PATTERN)

#: The authors' own pre-tokenizer ("ultimate2", the second version of their paper; their
#: other models use GPT-4o's regex, our ``o200k``), exactly as the models trained with it
#: record it on their second line: contractions (straight or curly apostrophe), ``_snake``
#: words, an upper-case run before a capitalised word (``XML`` of ``XMLHttp``), words with an
#: optional space and capital, upper-case runs, other letters, digits in threes from the right,
#: punctuation and symbols (with an optional space), line breaks with the spaces before them,
#: other whitespace, separators and controls, stray marks, and anything left.
ULTIMATE_PATTERN = (
    r" ?(?:\p{L}\p{M}*)+['’](?:\p{L}\p{M}*)+|_(?:\p{Ll}\p{M}*)+"
    r"| ?(?:\p{Lu}\p{M}*)+(?=(?:\p{Lu}\p{M}*)(?:\p{Ll}\p{M}*))"
    r"| ?(?:\p{Lu}\p{M}*)?(?:\p{Ll}\p{M}*)+| ?(?:\p{Lu}\p{M}*)+"
    r"| ?(?:[\p{Lt}\p{Lm}\p{Lo}]\p{M}*)+"
    r"|(?:\p{N}\p{M}*){1,3}(?=(?:(?:\p{N}\p{M}*){3})*(?:(?:\P{N}\p{M}*)|$))"
    r"| ?(?:[\p{P}\p{S}]\p{M}*)+|[^\S\r\n]*[\n\r]+|[^\S\r\n]+|(?:[\p{Z}\p{C}]\p{M}*)+"
    r"|\p{M}+|.+"
)


def may_join(token: bytes, pattern: str = MERGE_PATTERN) -> bool:
    """Whether a whole pre-token with these bytes may take part in a supermerge (under the
    merge pattern ``pattern``, the reference's by default)."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    compiled = _MERGEABLE if pattern == MERGE_PATTERN else regex.compile(pattern)
    return compiled.match(text) is not None


# ---------------------------------------------------------------------- the second cut: runs


#: The name of BoundlessBPE's second cut of a corpus, as a pre-tokenizer: this prefix, then a
#: JSON object ``{"pre": <the pre-tokenizer>, "join": <the merge pattern>}``.
RUNS_PREFIX = "boundless-runs:"
#: What stands between two pre-tokens in a run's text (no pre-token a supermerge may take holds it).
UNIT_SEPARATOR = "\x1f"
#: What a run's text starts with when the run is all of the text it was cut from (a document).
WHOLE_TEXT_MARK = "\x1e"


#: Two or more pieces in a row that may join, in RunsPattern's marks.
_RUN_OF_TWO = re.compile("11+")


#: What a run's piece starts with when :class:`RunsPattern` gives the pre-tokens too (a lone
#: surrogate: no text that reaches a pre-tokenizer holds one, so no pre-token starts with it).
RUN_MARK = "\udb7f"


def runs_pretokenizer(pretokenizer: str, merge_pattern: str = MERGE_PATTERN, words: bool = False) -> str:
    """The pre-tokenizer name that cuts text into BoundlessBPE's runs under ``pretokenizer``
    (``words``: the pre-tokens too, each run then marked by :data:`RUN_MARK` in front)."""
    spec: dict[str, Any] = {"pre": pretokenizer, "join": merge_pattern}
    if words:
        spec["words"] = True
    return RUNS_PREFIX + json.dumps(spec, ensure_ascii=False, sort_keys=True)


def split_counts(counted: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """``(pre-token counts, run counts)`` of what a runs pre-tokenizer with ``words`` counted
    (the pre-tokens in order of first appearance, the runs without their mark)."""
    words: dict[str, int] = {}
    runs: dict[str, int] = {}
    for piece, count in counted.items():
        if piece[:1] == RUN_MARK:
            runs[piece[1:]] = count
        else:
            words[piece] = count
    return words, runs


def runs_parts(name: str) -> tuple[str, str, bool]:
    """``(pre-tokenizer, merge pattern, with the pre-tokens)`` of a runs name (:func:`runs_pretokenizer`)."""
    try:
        spec = json.loads(name[len(RUNS_PREFIX):])
        return str(spec["pre"]), str(spec["join"]), bool(spec.get("words", False))
    except (ValueError, KeyError, TypeError):
        from ..errors import BPEError

        raise BPEError(f"{name[:60]!r}: expected {RUNS_PREFIX}{{\"pre\": ..., \"join\": ...}}") from None


class RunsPattern:
    """BoundlessBPE's second cut of a text, answering ``findall`` as a pre-tokenizer does: each
    *run* of two or more adjacent pre-tokens (under ``base``) that the merge pattern takes, as
    one piece, its pre-tokens joined by :data:`UNIT_SEPARATOR`, and :data:`WHOLE_TEXT_MARK` in
    front where the run is the whole text. Only there can a supermerge ever join two pre-tokens
    (a pre-token the pattern refuses never becomes one that may join), so a trainer keeps only
    these, each distinct run once with its count, instead of every document whole."""

    def __init__(self, base: Any, merge_pattern: str, words: bool = False):
        self.base = base
        self.pattern = merge_pattern
        #: give the pre-tokens too, and each run with RUN_MARK in front (one pass for both)
        self.words = words
        self._joins = regex.compile(merge_pattern).match
        self._seen: dict[str, str] = {}

    def findall(self, text: str, pos: int = 0, endpos: int | None = None) -> list[str]:
        pieces = self.base.findall(text) if pos == 0 and endpos is None else self.base.findall(text[pos:endpos])
        seen = self._seen
        # Speed: each piece as one character, "1" where it may join, found by C-level maps
        # (a Python step per piece cost as much as pre-tokenizing the text again).
        try:
            marks = "".join(map(seen.__getitem__, pieces))
        except KeyError:
            if len(seen) > 1 << 20:  # (bounded: a corpus of millions of distinct pre-tokens)
                seen.clear()
            joins = self._joins
            seen.update((piece, "1" if joins(piece) is not None else "0") for piece in set(pieces).difference(seen))
            marks = "".join(map(seen.__getitem__, pieces))
        out: list[str] = pieces if self.words else []  # (findall's own new list: extended in place)
        first = RUN_MARK if self.words else ""
        size = len(marks)
        join = UNIT_SEPARATOR.join
        for m in _RUN_OF_TWO.finditer(marks):
            start, end = m.span()
            mark = WHOLE_TEXT_MARK if end - start == size else ""
            out.append(first + mark + join(pieces[start:end]))
        return out

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        from ..errors import BPEError

        raise BPEError("BoundlessBPE's runs are a second cut for training, not a pre-tokenizer to encode with")


def run_units(run: str) -> tuple[list[str], bool]:
    """The pre-tokens of a run's text (:class:`RunsPattern`), and whether it was a whole text."""
    whole = run.startswith(WHOLE_TEXT_MARK)
    return (run[1:] if whole else run).split(UNIT_SEPARATOR), whole


__all__ = [
    "MERGE_PATTERN", "RUNS_PREFIX", "RUN_MARK", "RunsPattern", "ULTIMATE_PATTERN", "UNIT_SEPARATOR", "WHOLE_TEXT_MARK", "may_join",
    "run_units", "runs_parts", "runs_pretokenizer", "split_counts",
]

"""Special tokens: cut out of the text before anything else sees it, longest match first.

A special token (``<|endoftext|>``) is never pre-tokenized, never counted in a pair, never merged:
it encodes to its own id. :class:`SpecialMatcher` finds them in a text, the longest where one is a
prefix of another, with Hugging Face's added-token flags (``lstrip``, ``rstrip``, ``single_word``);
:func:`special_token_list` is how every config and table spells its list.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import BPEError

#: GPT-2's pre-tokenizer (2019), as used by GPT-2, RoBERTa, CS336 and Hugging Face's ByteLevel.


def special_token_list(special_tokens: Iterable[str] | str | None) -> list[str]:
    """Special tokens as a list of distinct non-empty strings (a lone str is one token)."""
    if special_tokens is None:
        return []
    if isinstance(special_tokens, str):
        special_tokens = [special_tokens]  # not one special token per character
    out = list(dict.fromkeys(special_tokens))
    for token in out:
        if not isinstance(token, str):
            raise BPEError(f"special token {token!r} is not a string")
        if not token:
            raise BPEError("a special token cannot be empty")
    return out


class SpecialMatch:
    """What :class:`SpecialMatcher` finds: ``start()``, ``end()`` and ``group()`` of a special
    (the span may take in whitespace around the token: see ``lstrip``/``rstrip``)."""

    __slots__ = ("_start", "_end", "_text")

    def __init__(self, start: int, text: str, end: int | None = None):
        self._start = start
        self._text = text
        self._end = start + len(text) if end is None else end

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self) -> str:
        return self._text


#: Hugging Face's added-token flags that change where a token matches.
TOKEN_FLAGS = ("lstrip", "rstrip", "single_word")


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


class SpecialMatcher:
    """Finds special tokens in text: leftmost first, the longest where several start there.

    Each token is looked for with ``str.find`` (linear in the text however long the token:
    CPython uses the two-way algorithm for long needles), and its next occurrence is
    remembered until the scan passes it. A regex alternation of escaped literals gives the
    same matches but crawls on a long token (100 KB of literal tried at every position).

    ``flags`` gives some tokens Hugging Face's added-token flags: ``single_word`` matches only
    where no word character touches the token, ``lstrip``/``rstrip`` take the whitespace on
    that side into the match (so no pre-token keeps it).
    """

    def __init__(self, tokens: list[str], flags: dict[str, dict[str, Any]] | None = None):
        self.tokens = sorted(tokens, key=len, reverse=True)  # longest first: ties go to it
        self.flags = {t: f for t, f in (flags or {}).items() if t in tokens and any(f.get(k) for k in TOKEN_FLAGS)}

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[SpecialMatch]:
        end = len(text) if endpos is None else endpos
        tokens = self.tokens
        flags = self.flags
        nxt = [text.find(t, pos, end) for t in tokens]
        floor = pos  # lstrip never reaches back past the previous match
        while True:
            best = -1
            best_k = -1
            for k, at in enumerate(nxt):
                if at >= 0 and (best < 0 or at < best):  # strict: the longer token keeps a tie
                    best, best_k = at, k
            if best < 0:
                return
            token = tokens[best_k]
            stop = best + len(token)
            flag = flags.get(token)
            if flag and flag.get("single_word") and (
                (best > 0 and _is_word_char(text[best - 1])) or (stop < len(text) and _is_word_char(text[stop]))
            ):
                nxt[best_k] = text.find(token, best + 1, end)  # inside a word: not this one
                continue
            start = best
            if flag and flag.get("lstrip"):
                while start > floor and text[start - 1].isspace():
                    start -= 1
            if flag and flag.get("rstrip"):
                while stop < end and text[stop].isspace():
                    stop += 1
            yield SpecialMatch(start, token, stop)
            pos = floor = stop
            for k, at in enumerate(nxt):
                if 0 <= at < pos:
                    nxt[k] = text.find(tokens[k], pos, end)

    def split(self, text: str) -> list[str]:
        """The text between special tokens (like ``re.split`` without groups)."""
        out = []
        pos = 0
        for m in self.finditer(text):
            out.append(text[pos : m.start()])
            pos = m.end()
        out.append(text[pos:])
        return out

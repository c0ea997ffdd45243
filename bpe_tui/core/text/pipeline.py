"""Pre-tokenization as Hugging Face composes it: a pipeline of steps (``Sequence`` of
``Split``, ``Digits``, ``Metaspace``, ``ByteLevel``, ...), each cutting the pieces the one
before it made (:class:`SplitPipeline`). It answers ``findall`` and ``finditer`` like a
compiled regex, so the code that pre-tokenizes cannot tell the two apart (see
:mod:`~bpe_tui.core.text.pretokenize`); each step's regex runs guarded
(:class:`~bpe_tui.core.text.splitting.GuardedPattern`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import regex

from ..errors import BPEError
from .presets import DIGIT_GROUP_SPLITS
from .splitting import GuardedPattern, Span

#: How a split step treats the pieces its pattern matches (Hugging Face's
#: ``SplitDelimiterBehavior``; the gaps between matches are always kept):
#:
#: * ``Removed``             matches are dropped
#: * ``Isolated``            each match is a piece of its own
#: * ``MergedWithPrevious``  a match joins the piece before it
#: * ``MergedWithNext``      a match joins the piece after it
#: * ``Contiguous``          adjacent matches become one piece
BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


class _Span(Span):
    """A piece found by a :class:`SplitPipeline`: ``text[start:end]`` with ``prefix`` in front
    (what a prefix step put there, which is not in the text; ``start`` and ``end`` stay the
    text's)."""

    __slots__ = ("prefix",)

    def __init__(self, text: str, start: int, end: int, prefix: str = ""):
        super().__init__(text, start, end)
        self.prefix = prefix

    def group(self) -> str:
        return self.prefix + super().group()


#: A piece between steps: ``(start, end, prefix)``, the text's ``[start:end]`` with ``prefix``
#: in front of it.
_Piece = tuple[int, int, str]


class SplitPipeline:
    """Pre-tokenization as a sequence of steps, as Hugging Face composes its pre-tokenizers
    (``Sequence`` of ``Split``, ``Digits``, ``Metaspace``, ``ByteLevel``, ...).

    A split step is ``{"pattern": REGEX, "behavior": one of BEHAVIORS, "invert": bool}`` and
    cuts every piece the previous steps made: the pattern's matches and the gaps between them
    become parts (``invert`` swaps which is which), the behavior decides what happens to the
    matches, and empty parts are dropped. A prefix step, ``{"prefix": " "}``, puts its text in
    front of every piece that does not start with it: Hugging Face's ``ByteLevel`` with
    ``add_prefix_space`` after a split (``Whitespace`` then ``ByteLevel``, as parity-aware
    BPE's reference pre-tokenizes, gives ``a,b`` the pieces ``·a``, ``·,``, ``·b``). Later
    steps cut the piece with its prefix, as Hugging Face does. The pipeline answers ``findall``
    and ``finditer`` like a compiled regex; a match's ``prefix`` is the text put in front.

    The first step cuts the whole text; each later step cuts each piece on its own, as Hugging
    Face does (a piece is a string of its own there: a lookbehind sees nothing before it), so
    a piece's cuts depend on its text alone and are remembered by it: a corpus's repeated
    words are cut once (CLIP's two steps over tinyshakespeare: 258k pieces, 11.5k texts).
    """

    #: How many piece texts a later step remembers before it starts afresh.
    MEMO = 1 << 16

    def __init__(self, steps: list[dict[str, Any]]):
        #: ``(pattern, behavior, invert)`` for a split step, ``(None, prefix, False)`` for a prefix step
        self.steps: list[tuple[GuardedPattern | None, str, bool]] = []
        #: The steps that cut long digit runs into blocks first (see :func:`_split_in_digit_blocks`).
        self._by_digit_blocks: set[int] = set()
        for n, step in enumerate(steps):
            where = f"pre-tokenizer step {n + 1}"
            if isinstance(step, dict) and "prefix" in step and "pattern" not in step:
                prefix = step["prefix"]
                if not isinstance(prefix, str) or not prefix:
                    raise BPEError(f"{where}: a prefix step's 'prefix' must be a non-empty string, not {prefix!r}")
                self.steps.append((None, prefix, False))
                continue
            if not isinstance(step, dict) or not isinstance(step.get("pattern"), str):
                raise BPEError(f"{where}: expected an object with a 'pattern' string (or a 'prefix')")
            behavior = step.get("behavior", "Isolated")
            if behavior not in BEHAVIORS:
                raise BPEError(f"{where}: behavior {behavior!r} is not one of {', '.join(BEHAVIORS)}")
            try:
                compiled = regex.compile(step["pattern"])
            except regex.error as exc:
                raise BPEError(f"{where}: regex {step['pattern']!r} does not compile: {exc}") from None
            self.steps.append((GuardedPattern(compiled), behavior, bool(step.get("invert"))))
            if step["pattern"] in DIGIT_GROUP_SPLITS and behavior == "Isolated" and not step.get("invert"):
                self._by_digit_blocks.add(len(self.steps) - 1)
        self._cuts: list[dict[str, list[tuple[int, int]]]] = [{} for _ in self.steps]

    @property
    def adds_text(self) -> bool:
        """Whether a prefix step puts text in front of pieces (so a piece is not a slice of
        the text: a stream is then cut piece by piece, see core/tables/streaming.py)."""
        return any(compiled is None for compiled, _, _ in self.steps)

    @classmethod
    def from_json(cls, text: str) -> "SplitPipeline":
        import json

        try:
            steps = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BPEError(f"pipeline pre-tokenizer: bad JSON ({exc.msg})") from None
        if not isinstance(steps, list):
            raise BPEError("pipeline pre-tokenizer: expected a JSON list of steps")
        return cls(steps)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[_Span]:
        pieces: list[_Piece] = [(pos, len(text) if endpos is None else endpos, "")]
        for n, (compiled, behavior, invert) in enumerate(self.steps):
            if compiled is None:  # a prefix step (behavior holds its text)
                pieces = [(s, e, p if (p + text[s:e]).startswith(behavior) else behavior + p) for s, e, p in pieces]
                continue
            split = _split_in_digit_blocks if n in self._by_digit_blocks else _split
            if n == 0:
                pieces = [(a, b, "") for start, end, _ in pieces for a, b in split(text, start, end, compiled, behavior, invert)]
                continue
            memo = self._cuts[n]
            later: list[_Piece] = []
            for start, end, prefix in pieces:
                piece = prefix + text[start:end]
                cuts = memo.get(piece)
                if cuts is None:
                    if len(memo) >= self.MEMO:
                        memo.clear()
                    cuts = memo[piece] = split(piece, 0, len(piece), compiled, behavior, invert)
                if not prefix:
                    later += [(start + a, start + b, "") for a, b in cuts]
                    continue
                h = len(prefix)  # a cut that begins inside the prefix keeps that part of it
                later += [(start + max(a - h, 0), start + max(b - h, 0), prefix[a:b] if a < h else "") for a, b in cuts]
            pieces = later
        return (_Span(text, start, end, prefix) for start, end, prefix in pieces)

    def findall(self, text: str) -> list[str]:
        return [m.group() for m in self.finditer(text)]


#: Digits of a run split at a time by :func:`_split_in_digit_blocks` (a multiple of three).
DIGIT_BLOCK = 3 * 64
_DIGIT_RUN = regex.compile(r"\d+")


def _split_in_digit_blocks(text: str, start: int, end: int, compiled: GuardedPattern, behavior: str, invert: bool) -> list[tuple[int, int]]:
    """:func:`_split` for a pattern of DIGIT_GROUP_SPLITS (an ``Isolated`` step), in linear
    time on long digit runs. The digit groups' lookahead reads to the end of the run from each
    position, so a run of n digits took n²/2 steps: 20,000 digits gave up after 5 s. Such a
    pattern matches an empty string wherever a multiple of three digits follows to the run's
    end, and nothing else of it touches a digit: cut there every DIGIT_BLOCK digits, each
    block splits alone into the same pieces."""
    cuts: list[int] = []
    for run in _DIGIT_RUN.finditer(text, start, end):
        cuts += range(run.end() - DIGIT_BLOCK, run.start(), -DIGIT_BLOCK)[::-1]
    if not cuts:
        return _split(text, start, end, compiled, behavior, invert)
    bounds = [start, *cuts, end]
    return [part for a, b in zip(bounds, bounds[1:]) for part in _split(text, a, b, compiled, behavior, invert)]


def _split(text: str, start: int, end: int, compiled: GuardedPattern, behavior: str, invert: bool) -> list[tuple[int, int]]:
    """One split step over ``text[start:end]``: the parts, as Hugging Face's
    ``NormalizedString::split`` makes them."""
    parts: list[list[Any]] = []  # [start, end, is_match]
    prev = start
    for m in compiled.finditer(text, start, end):  # a GuardedPattern: gives up after REGEX_TIMEOUT
        if m.start() > prev:
            parts.append([prev, m.start(), invert])
        parts.append([m.start(), m.end(), not invert])
        prev = m.end()
    if prev < end:
        parts.append([prev, end, invert])
    if behavior == "Removed":
        out = [p for p in parts if not p[2]]
    elif behavior == "Isolated":
        out = parts
    elif behavior == "Contiguous":
        out = []
        last = None
        for p in parts:
            if out and p[2] == last:
                out[-1][1] = p[1]
            else:
                out.append(list(p))
            last = p[2]
    elif behavior == "MergedWithPrevious":
        out = []
        previous_match = False
        for p in parts:
            if p[2] and not previous_match and out:
                out[-1][1] = p[1]
            else:
                out.append(list(p))
            previous_match = p[2]
    else:  # MergedWithNext
        out = []
        previous_match = False
        for p in reversed(parts):
            if p[2] and not previous_match and out:
                out[-1][0] = p[0]
            else:
                out.append(list(p))
            previous_match = p[2]
        out.reverse()
    return [(a, b) for a, b, _ in out if b > a]

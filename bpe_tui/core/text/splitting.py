"""Running a pre-tokenizer's regex: fast for the regexes bpe-tui knows, guarded for the others.

Splitting text into pre-tokens is the floor under encoding: every character goes through the
regex, and on ordinary text the split alone takes as long as tiktoken's whole encode. Three
tricks keep it low, with the same pieces to the character (the tests compare them with the
``regex`` package's on every character up to U+FFFF and on random Unicode text):

* **The compiled core splits the known regexes it has written out** (GPT-2's, cl100k's,
  o200k's, Llama 3's, Qwen's: the ``Splitter`` of ``core/engine/_merge_core.c``), 2.5-3x
  faster than ``re``, for any text; what each character is comes from a table the ``regex``
  package fills (:mod:`~bpe_tui.core.text.char_classes`). Where the core is not built or
  ``BPE_TUI_PURE`` is set, the next trick splits instead, with the same pieces.
* **Known regexes run on Python's own ``re``** (:class:`KnownPattern`). ``re`` is 2-3x faster
  than ``regex`` on these patterns but has no Unicode classes (``\\p{L}``), and its ``\\s``
  is not ``regex``'s. So each class is written out as the characters ``regex`` itself says it
  holds, computed once over U+0000-U+FFFF (:func:`narrow_class`), and the pattern is
  otherwise kept as it is (alternatives, quantifiers, lookahead, ``(?i:...)`` around
  literals: both engines read them alike). Characters above U+FFFF are left out of the
  written-out classes on purpose: ``re`` checks a class's characters beyond U+FFFF one range
  at a time (hundreds for ``\\p{L}``), which made it slower than ``regex``; a text that holds
  one (an emoji) is split by ``regex`` instead. CPython stores such a text four bytes to the
  character, so telling the two apart costs nothing (:func:`is_narrow`).
* **The guard costs one clock reading per thousand pieces** (:class:`GuardedPattern`). A regex
  bpe-tui does not know (a file's own) may backtrack catastrophically, so it runs under
  ``regex``'s ``timeout``. But ``regex`` reads the process's CPU clock (a system call) at the
  start of every match, which made a guarded split 3-4x slower than a plain one: one match per
  pre-token. Run instead as ``(?:(?>(PATTERN))){1,1024}``, one match holds up to 1,024
  pre-tokens (each the match PATTERN itself makes at that place: the atomic group keeps it
  from giving characters back to the next) and ``captures(1)`` lists them; the clock is read
  once per match, and every 256 steps inside one, so a runaway pattern is still stopped.
  Where the wrapping could change what is found (a pattern that may match nothing, capture
  groups, ``\\G``, reverse matching), the plain guarded call runs instead.
"""

from __future__ import annotations

import functools
import re
import sys
from array import array
from collections.abc import Iterator
from typing import Any, Protocol

import regex

from ..engine import merge_core
from ..errors import BPEError
from .char_classes import CLASSES, READY, SPLIT_PATTERNS, fill_plane
from .presets import KNOWN_PATTERNS

#: Seconds a custom pre-tokenizer regex may spend on one piece of text before it is given up
#: (a pattern with catastrophic backtracking, such as ``(a|aa)+$``, would otherwise spin for
#: ever). The known patterns are linear and run without a limit.
REGEX_TIMEOUT = 5.0

#: Pre-tokens one match of a guarded pattern's batched form holds at most (see the module docstring).
GUARD_BATCH = 1024


class RegexTimeout(BPEError):
    """A custom pre-tokenizer regex gave up (see :data:`REGEX_TIMEOUT`)."""


class Match(Protocol):
    """A piece a pre-tokenizer pattern found: a regex match, or one of ours shaped like it."""

    def start(self) -> int: ...

    def end(self) -> int: ...

    def group(self) -> str: ...


class Pattern(Protocol):
    """What the pre-tokenizer's ``pattern`` answers: a compiled regex, a :class:`KnownPattern`,
    a :class:`GuardedPattern` or a :class:`~bpe_tui.core.text.pipeline.SplitPipeline`."""

    def findall(self, string: str) -> list[str]: ...

    def finditer(self, string: str, pos: int = 0, endpos: int | None = None) -> Iterator[Match]: ...


class Span:
    """A piece found in a text, shaped like a regex match."""

    __slots__ = ("_text", "_start", "_end")

    def __init__(self, text: str, start: int, end: int):
        self._text, self._start, self._end = text, start, end

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self) -> str:
        return self._text[self._start : self._end]


# ---------------------------------------------------------------------- known regexes on re


def _narrow_by_size() -> bool:
    """Whether ``sys.getsizeof`` tells a text holding a character beyond U+FFFF (checked here:
    CPython's compact strings; elsewhere the slower search in :func:`is_narrow` is used)."""
    try:
        probes = ["", "a", "é", "Ā" * 3, "\U0001f600", "a\U0001f600", "é" * 50 + "\U00010000", "\uffff" * 7]
        return all((sys.getsizeof(p) < _WIDE_BASE + 4 * (len(p) + 1)) == (not any(c > "\uffff" for c in p)) for p in probes)
    except TypeError:  # no getsizeof
        return False


_WIDE_BASE = sys.getsizeof("\U00010000") - 8  # a 4-byte string's size less its one character and NUL
_BY_SIZE = _narrow_by_size()
_WIDE_CHAR = re.compile("[\U00010000-\U0010ffff]")


def is_narrow(text: str) -> bool:
    """Whether ``text`` holds no character beyond U+FFFF. CPython stores a text holding one
    with four bytes per character (PEP 393), so its size answers at once; the answer can be
    wrong only towards "wide" (a slower split, never another one)."""
    if text.isascii():
        return True
    if _BY_SIZE:
        return sys.getsizeof(text) < _WIDE_BASE + 4 * (len(text) + 1)
    return _WIDE_CHAR.search(text) is None


@functools.lru_cache(maxsize=1)
def _bmp() -> str:
    """Every character from U+0000 to U+FFFF, in order (surrogates too, one by one)."""
    return array("I", range(0x10000)).tobytes().decode("utf-32-le", "surrogatepass")


@functools.lru_cache(maxsize=None)
def narrow_class(cls: str) -> str | None:
    """A class in ``regex``'s syntax (``\\p{L}``, ``[^\\s\\p{L}\\p{N}]``) written out for ``re``:
    the characters up to U+FFFF that ``regex`` says it holds, as ranges; None if it holds none."""
    runs = [(m.start(), m.end() - 1) for m in regex.finditer(f"(?:{cls})+", _bmp())]
    if not runs:
        return None
    return "[" + "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in runs) + "]"


#: Escapes that stand for one literal character alike in ``re`` and ``regex``.
_LITERAL_ESCAPES = set("rntfv\\|.()[]{}*+?^$-/'\" #&~,:;!<=>%@`_")
#: Escapes that stand for a class of characters: written out by narrow_class.
_CLASS_ESCAPES = set("pPsSdDwW")


def narrow_translation(pattern: str) -> str | None:
    """``pattern`` for ``re``, each class written out over U+0000-U+FFFF (see the module
    docstring), or None where the pattern holds something this does not translate (a class
    inside a case-insensitive group, word boundaries, ``regex``-only syntax): then ``regex``
    runs it. Only the known patterns are translated, each checked by the tests."""
    out: list[str] = []
    groups: list[bool] = []  # for each open group: whether it is case-insensitive
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                return None
            e = pattern[i + 1]
            if e in _CLASS_ESCAPES:
                if e in "pP":  # \p{L} or \pL
                    end = pattern.find("}", i) + 1 if pattern[i + 2 : i + 3] == "{" else i + 3
                    if end <= i:
                        return None
                else:
                    end = i + 2
                cls = pattern[i:end]
            elif e in _LITERAL_ESCAPES:
                out.append(pattern[i : i + 2])
                i += 2
                continue
            else:
                return None
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                if pattern[j] == "[":
                    return None  # a nested set: regex's version 1 syntax
                j += 2 if pattern[j] == "\\" else 1
            if j >= n:
                return None
            end = j + 1
            cls = pattern[i:end]
        else:
            if c == "(":
                if pattern.startswith("(?", i) and not pattern.startswith(("(?:", "(?=", "(?!", "(?>", "(?i:"), i):
                    if i == 0 and regex.fullmatch(r"\(\?[ms]+\)", pattern[: pattern.index(")") + 1]):
                        out.append(pattern[: pattern.index(")") + 1])  # (?s) at the start: the same in both
                        i = pattern.index(")") + 1
                        continue
                    return None
                groups.append(pattern.startswith("(?i:", i))
            elif c == ")":
                if not groups:
                    return None
                groups.pop()
            out.append(c)
            i += 1
            continue
        if any(groups):
            # Under IGNORECASE each engine adds its own case variants to a class: a set of
            # ASCII letters (cl100k's ``'(?i:[sdmt]|...)``) is kept as it is, like the letters
            # around it (the tests check both engines agree on every character there); any
            # other class is left to regex.
            if not regex.fullmatch(r"\[[A-Za-z]+\]", cls):
                return None
            out.append(cls)
            i = end
            continue
        written = narrow_class(cls)
        if written is None:
            return None
        out.append(written)
        i = end
    return "".join(out)


class KnownPattern:
    """A known pre-tokenizer regex (see :mod:`~bpe_tui.core.text.presets`). Split by the
    compiled core where it has this regex written out (``split``: GPT-2's, cl100k's, o200k's,
    Llama 3's, Qwen's; see :mod:`~bpe_tui.core.text.char_classes`); else by ``re`` on its narrow
    translation for a text without characters beyond U+FFFF, and by ``regex`` otherwise. The
    translation is compiled when first needed."""

    def __init__(self, pattern: str, split: Any = None):
        self.pattern = pattern
        self.compiled = regex.compile(pattern)
        self._narrow: Any = None  # re.Pattern, False when there is none, None before it is made
        self._split = split  # the compiled core's Splitter, or None

    def narrow(self) -> Any:
        """The ``re`` pattern, or False where the pattern has no translation."""
        if self._narrow is None:
            text = narrow_translation(self.pattern)
            try:
                self._narrow = re.compile(text) if text is not None else False
            except re.error:  # (possessive quantifiers need Python 3.11)
                self._narrow = False
        return self._narrow

    def _engine(self, string: str, endpos: int | None) -> tuple[Any, int | None]:
        """The compiled form that splits ``string`` (re's where it is narrow), and the end
        position in its terms (re takes no None)."""
        narrow: Any = self.narrow() if is_narrow(string) else False
        if narrow:
            return narrow, len(string) if endpos is None else endpos
        return self.compiled, endpos

    def _compiled_split(self, method: Any, string: str, pos: int, endpos: int | None) -> Any:
        """``method`` (the Splitter's findall or spans) on ``string[pos:endpos]``, the planes
        of the character table it asks for filled first. (No known regex looks behind, so the
        slice splits as regex's pos and endpos do.)"""
        text = string if pos == 0 and endpos is None else string[pos:endpos]
        found = method(text)
        while isinstance(found, int):
            fill_plane(found)
            found = method(text)
        return found

    def findall(self, string: str, pos: int = 0, endpos: int | None = None) -> list[str]:
        if self._split is not None:
            pieces: list[str] = self._compiled_split(self._split.findall, string, pos, endpos)
            return pieces
        engine, end = self._engine(string, endpos)
        found: list[str] = engine.findall(string, pos, end)
        return found

    def finditer(self, string: str, pos: int = 0, endpos: int | None = None) -> Iterator[Match]:
        if self._split is not None:
            spans = self._compiled_split(self._split.spans, string, pos, endpos)
            return iter([Span(string, pos + a, pos + b) for a, b in spans])
        engine, end = self._engine(string, endpos)
        found: Iterator[Match] = engine.finditer(string, pos, end)
        return found


@functools.lru_cache(maxsize=64)
def _known_pattern(pattern: str, core: Any) -> KnownPattern:
    number = SPLIT_PATTERNS.get(pattern) if core is not None else None
    return KnownPattern(pattern, core.Splitter(number, CLASSES, READY) if number is not None else None)


def known_pattern(pattern: str) -> KnownPattern:
    """The one KnownPattern of a known regex's text (shared: it holds no state but its forms),
    split by the compiled core where it is there and not turned off (``BPE_TUI_PURE``: read
    here, when a table's pre-tokenizer is made)."""
    return _known_pattern(pattern, merge_core.compiled())


def splits_compiled(pattern: str) -> bool:
    """Whether the compiled core splits ``pattern`` (a known regex it has written out, the
    core built and not turned off): then no other shortcut is faster."""
    return is_known(pattern) and known_pattern(pattern)._split is not None


def is_known(pattern: str) -> bool:
    """Whether ``pattern`` is one of the regexes bpe-tui knows (by its text)."""
    return pattern in KNOWN_PATTERNS


# ---------------------------------------------------------------------- unknown regexes, guarded


class GuardedPattern:
    """A custom regex whose ``findall`` and ``finditer`` give up after REGEX_TIMEOUT seconds
    with a one-line :class:`RegexTimeout` naming the pattern (callers add the line), in its
    batched form where that finds the same pieces (see the module docstring)."""

    def __init__(self, compiled: Any):  # a regex.Pattern
        self.compiled = compiled
        self.pattern = compiled.pattern
        self._batched: Any = None
        if compiled.groups == 0 and not compiled.flags & regex.REVERSE and "\\G" not in self.pattern:
            lead = regex.match(r"\(\?[a-zA-Z]+\)", self.pattern)  # global flags stay in front
            head = lead.group() if lead else ""
            try:
                self._batched = regex.compile(f"{head}(?:(?>({self.pattern[len(head):]}))){{1,{GUARD_BATCH}}}")
            except regex.error:
                self._batched = None

    def _timed_out(self) -> RegexTimeout:
        shown = self.pattern if len(self.pattern) <= 60 else self.pattern[:55] + "..."
        return RegexTimeout(
            f"pre-tokenizer regex {shown!r} gave up after {REGEX_TIMEOUT:g} s (catastrophic backtracking?)"
        )

    def _spans(self, string: str, pos: int, endpos: int | None) -> list[tuple[int, int]] | None:
        """The pieces' spans by the batched form, or None where it cannot tell (an empty match)."""
        spans: list[tuple[int, int]] = []
        for m in self._batched.finditer(string, pos, endpos, timeout=REGEX_TIMEOUT):
            found = m.spans(1)
            if m.start() == m.end() or any(a == b for a, b in found):
                return None
            spans += found
        return spans

    def findall(self, string: str, pos: int = 0, endpos: int | None = None) -> list[str]:
        try:
            if self._batched is not None:
                pieces: list[str] = []
                for m in self._batched.finditer(string, pos, endpos, timeout=REGEX_TIMEOUT):
                    found = m.captures(1)
                    if m.start() == m.end() or not all(found):
                        break  # an empty match: the plain call below decides
                    pieces += found
                else:
                    return pieces
            plain: list[str] = self.compiled.findall(string, pos, endpos, timeout=REGEX_TIMEOUT)
            return plain
        except TimeoutError:
            raise self._timed_out() from None

    def finditer(self, string: str, pos: int = 0, endpos: int | None = None) -> Iterator[Match]:
        try:
            spans = self._spans(string, pos, endpos) if self._batched is not None else None
            if spans is not None:
                return iter([Span(string, a, b) for a, b in spans])
            return iter(list(self.compiled.finditer(string, pos, endpos, timeout=REGEX_TIMEOUT)))
        except TimeoutError:
            raise self._timed_out() from None

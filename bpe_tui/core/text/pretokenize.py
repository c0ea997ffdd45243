"""Pre-tokenization: cutting text into the words (pre-tokens) that BPE works inside.

BPE never merges across a pre-token boundary. Which boundaries exist is decided here, by a
regular expression (GPT-2's, GPT-4's cl100k, o200k, or your own) or by plain whitespace
splitting (the classic tutorials). Special tokens such as ``<|endoftext|>`` are cut out of the
text *before* the regex runs: they are never split, never counted in pairs and never merged.
When one special token is a prefix of another, the longest one wins.

Patterns use the ``regex`` package, which understands Unicode classes such as ``\\p{L}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

import regex

from ..errors import BPEError
from ..types import PREFIX_SCHEMES, PrefixScheme
from .presets import (  # noqa: F401  (re-exported)
    CLIP_PATTERN,
    DIGIT_GROUPS,
    GPT2_PATTERN,
    GPT4_PATTERN,
    LOOKS_PAST,
    O200K_PATTERN,
    SUPERBPE_STAGE1_SPLIT,
    WHITESPACE_PATTERN,
)
from .specials import SpecialMatcher, special_token_list
from .splitting import (  # noqa: F401  (REGEX_TIMEOUT, Match, RegexTimeout: re-exported)
    REGEX_TIMEOUT, GuardedPattern, Match, Pattern, RegexTimeout, is_known, known_pattern, splits_compiled,
)
from .pipeline import SplitPipeline
from .boundless_rules import RUNS_PREFIX, ULTIMATE_PATTERN, RunsPattern, runs_parts

NAMED_PATTERNS = {
    "whitespace": WHITESPACE_PATTERN,
    "gpt2": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "o200k": O200K_PATTERN,
    "ultimate2": ULTIMATE_PATTERN,  # BoundlessBPE's authors' own (their COLM paper's), see boundless_rules.py
}

#: GPT-2's pattern made safe to run over many lines at once. Per line, a whitespace run that
#: ends a line is one pre-token together with its ``\n`` (``\s+(?!\S)`` runs to the end of
#: the line's string); over a block, ``\s+`` would run on into the next line. Whitespace
#: without ``\n`` followed by ``\n`` becomes one pre-token with it; other whitespace runs hold
#: no ``\n`` and are matched exactly as before; no other alternative can match ``\n`` or looks
#: beyond its match. So findall over lines joined = the concatenation of findall per line.
GPT2_LINE_PATTERN = GPT2_PATTERN.replace(r"|\s+(?!\S)|\s+", r"|[^\S\n]*\n|[^\S\n]+(?!\S)|[^\S\n]+")
assert GPT2_LINE_PATTERN != GPT2_PATTERN

#: Pre-tokenizers with a pattern that gives, over a block of whole lines, exactly the
#: pre-tokens the original gives line by line (``\S+`` never touches a line break).
LINE_SAFE_PATTERNS = {"gpt2": GPT2_LINE_PATTERN, "whitespace": WHITESPACE_PATTERN}

#: The same line-safe patterns for all-ASCII text, with ASCII classes, for Python's ``re``
#: (2-3x faster than ``regex`` with Unicode classes): on ASCII, regex's ``\p{L}``, ``\p{N}``
#: and ``\s`` are exactly ``[A-Za-z]``, ``[0-9]`` and ``[\t\n\v\f\r ]`` (checked at import).
_ASCII_SPACE = r"\t\n\x0b\x0c\r "
_ASCII_BLANK = r"\t\x0b\x0c\r "  # ASCII whitespace but the line break
#: Letters and digits are tried first (15% faster): no other alternative can match where they
#: can (a letter, a digit, or a space before one), so the order between them is free; the
#: contractions still come before the punctuation run that could also match an apostrophe.
_ASCII_GPT2_HEAD = rf""" ?[A-Za-z]+| ?[0-9]+|'(?:s|t|re|ve|m|ll|d)| ?[^{_ASCII_SPACE}A-Za-z0-9]+"""
ASCII_LINE_PATTERNS = {
    "gpt2": _ASCII_GPT2_HEAD + rf"""|[{_ASCII_BLANK}]*\n|[{_ASCII_BLANK}]+(?![^{_ASCII_SPACE}])|[{_ASCII_BLANK}]+""",
    "whitespace": rf"[^{_ASCII_SPACE}]+",
}


#: The pre-tokenizers themselves (not line-safe: for encoding whole texts) for ASCII text.
ASCII_PATTERNS = {
    "gpt2": _ASCII_GPT2_HEAD + rf"""|[{_ASCII_SPACE}]+(?![^{_ASCII_SPACE}])|[{_ASCII_SPACE}]+""",
    "whitespace": rf"[^{_ASCII_SPACE}]+",
}


def ascii_findall(pretokenizer: str, line_safe: bool = False) -> Callable[[str], list[str]] | None:
    """``findall`` of an ``re`` pattern that gives, on ASCII text, exactly the pre-tokens of
    the named pre-tokenizer (or of its line-safe form); None where there is none, or where
    the compiled core splits the pre-tokenizer's regex (2.4x faster than this on ASCII)."""
    if not line_safe and splits_compiled(NAMED_PATTERNS.get(pretokenizer, "")):
        return None
    pattern = (ASCII_LINE_PATTERNS if line_safe else ASCII_PATTERNS).get(pretokenizer)
    return re.compile(pattern).findall if pattern is not None and _ASCII_OK else None


def _ascii_classes_agree() -> bool:
    ascii_chars = [chr(i) for i in range(128)]
    expect = {
        r"\p{L}": {c for c in ascii_chars if c.isalpha()},
        r"\p{N}": {c for c in ascii_chars if c.isdigit()},
        r"\s": set("\t\n\x0b\x0c\r "),
    }
    return all({c for c in ascii_chars if regex.match(cls, c)} == chars for cls, chars in expect.items())


_ASCII_OK = _ascii_classes_agree()


#: Short texts a custom pattern is tried on: a match of nothing in any of them is refused.
_SAMPLES = ("a", "A1", " x", "a b", "a, b.\n", "\t1 2", "é ü")


def resolve_pattern(name_or_regex: str) -> tuple[str, str]:
    """Return ``(name, pattern)`` for a named pre-tokenizer or a custom regex.

    A custom regex may be given bare or as ``regex:PATTERN``; its name is ``regex:PATTERN``.
    A pipeline of split steps (see :class:`SplitPipeline`) is ``pipeline:JSON``.
    """
    if name_or_regex in NAMED_PATTERNS:
        return name_or_regex, NAMED_PATTERNS[name_or_regex]
    if not isinstance(name_or_regex, str):
        raise BPEError(f"pre-tokenizer must be a name or a regex, not {name_or_regex!r}")
    name_or_regex = NAMED_PIPELINES.get(name_or_regex, name_or_regex)
    if name_or_regex.startswith(RUNS_PREFIX):  # BoundlessBPE's second cut (boundless_rules.py)
        base, join, _ = runs_parts(name_or_regex)
        resolve_pattern(base)
        try:
            regex.compile(join)
        except regex.error as exc:
            raise BPEError(f"merge pattern {join!r} does not compile: {exc}") from None
        return name_or_regex, name_or_regex[len(RUNS_PREFIX) :]
    if name_or_regex.startswith(PIPELINE):
        SplitPipeline.from_json(name_or_regex[len(PIPELINE) :])  # checks it
        return name_or_regex, name_or_regex[len(PIPELINE) :]
    if not name_or_regex.startswith("regex:") and regex.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name_or_regex):
        # Looks like a name, not a pattern: a typo (gpt3) must not train on a literal regex.
        raise BPEError(
            f"unknown pre-tokenizer {name_or_regex!r}; choose {', '.join([*NAMED_PATTERNS, *NAMED_PIPELINES])}, or regex:PATTERN for your own"
        )
    pattern = name_or_regex[6:] if name_or_regex.startswith("regex:") else name_or_regex
    try:
        compiled = regex.compile(pattern)
    except regex.error as exc:
        raise BPEError(f"pre-tokenizer regex {pattern!r} does not compile: {exc}") from None
    if compiled.fullmatch("") or any(m.start() == m.end() for sample in _SAMPLES for m in compiled.finditer(sample)):
        raise BPEError(f"pre-tokenizer regex {pattern!r} matches the empty string (pre-tokens must not be empty)")
    return "regex:" + pattern, pattern


#: The name prefix of a pipeline pre-tokenizer: ``pipeline:`` + a JSON list of steps.
PIPELINE = "pipeline:"

#: CLIP's pre-tokenizer as transformers' CLIPTokenizer runs it: a Split keeping the matches of
#: :data:`CLIP_PATTERN`, then ByteLevel's GPT-2 regex inside each match. That second step
#: changes nothing but the special tokens' own alternatives when they match text that is not
#: cut out as a special token (``<|EndOfText|>``, lowercased): ``<|``, ``endoftext``, ``|>``.
#: Spelled as the tokenizer.json reader spells that Sequence.
CLIP_PRETOKENIZER = PIPELINE + json.dumps(
    [{"pattern": CLIP_PATTERN, "behavior": "Removed", "invert": True}, {"pattern": GPT2_PATTERN, "behavior": "Removed", "invert": True}],
    ensure_ascii=False,
)
#: Hugging Face's ``Digits(individual_digits=False)`` as the tokenizer.json reader spells it.
DIGIT_RUNS_STEP = {"pattern": r"\p{N}+", "behavior": "Isolated"}
#: The SuperBPE authors' stage-1 pre-tokenizer (their OLMo2 tokenizers): digit runs in threes,
#: then GPT-2's regex without its contractions (SUPERBPE_STAGE1_SPLIT, in presets.py);
#: ``superbpe-stage1``, the superbpe preset's.
SUPERBPE_STAGE1_PRETOKENIZER = PIPELINE + json.dumps(
    [DIGIT_RUNS_STEP, {"pattern": SUPERBPE_STAGE1_SPLIT, "behavior": "Isolated", "invert": False}], ensure_ascii=False
)

#: Hugging Face's ``Whitespace`` pre-tokenizer as a regex: runs of word characters and runs of
#: other characters but whitespace (``Hi, you!`` -> ``Hi``, ``,``, ``you``, ``!``), spaces
#: dropped. Checked against tokenizers on every code point: they differ only on characters
#: Unicode 14 has not assigned, which the ``regex`` package knows from a later Unicode.
HF_WHITESPACE = r"\w+|[^\w\s]+"

#: The pre-tokenizer of parity-aware BPE's reference code (Foroutan et al. 2025): Hugging
#: Face's ``Whitespace``, then ``ByteLevel(add_prefix_space=True, use_regex=False)``, which
#: puts a space in front of every piece (``Hi, you`` -> ``·Hi``, ``·,``, ``·you``). Named
#: ``parity``; the ``parity`` preset trains with it. Spelled as the tokenizer.json reader
#: spells that Sequence, so the authors' tokenizer.json reads back as ``parity``.
PARITY_PRETOKENIZER = PIPELINE + json.dumps(
    [{"pattern": HF_WHITESPACE, "behavior": "Removed", "invert": True}, {"prefix": " "}], ensure_ascii=False
)

#: Pipelines with a short name (``--pretokenizer clip``): the name stands for the pipeline.
NAMED_PIPELINES = {"clip": CLIP_PRETOKENIZER, "superbpe-stage1": SUPERBPE_STAGE1_PRETOKENIZER, "parity": PARITY_PRETOKENIZER}


def short_name(pretokenizer: str) -> str:
    """A pre-tokenizer as a person reads it: ``clip`` for CLIP's pipeline, else as it is."""
    return next((name for name, steps in NAMED_PIPELINES.items() if steps == pretokenizer), pretokenizer)

def pattern_text(pretokenizer: str) -> str:
    """The regex behind one of our pre-tokenizer names (a pipeline has none: BPEError)."""
    if pretokenizer.startswith(PIPELINE):
        raise BPEError("the pre-tokenizer is a pipeline of split steps, which this format cannot hold as one regex")
    return resolve_pattern(pretokenizer)[1]



class WholeTextNormalizer(Protocol):
    """A normalizer that takes the whole text before special tokens are looked for
    (sentencepiece's: see :class:`~bpe_tui.core.text.normalize.SentencePieceNormalizer`), at once
    or as a stream of chunks."""

    def __call__(self, text: str) -> str: ...

    def stream(self, chunks: Iterable[str]) -> Iterator[str]: ...


def valid_text(text: str) -> str:
    """``text`` with lone surrogates (which no UTF-8 can hold) replaced by U+FFFD, as tiktoken
    does; text that came from bytes with ``surrogateescape`` holds them."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def compile_pattern(name: str, pattern_text: str) -> Pattern:
    """The compiled pre-tokenizer: a :class:`KnownPattern` for a regex bpe-tui knows by its
    text (named or not: Llama 3's from a rank file is known), a guarded one for yours, a
    :class:`SplitPipeline` (its regexes guarded too) for a pipeline. See splitting.py."""
    if name.startswith(PIPELINE):
        return SplitPipeline.from_json(pattern_text)
    if name.startswith(RUNS_PREFIX):
        base, join, words = runs_parts(name)
        return RunsPattern(compile_pattern(*resolve_pattern(base)), join, words)
    if is_known(pattern_text):
        return known_pattern(pattern_text)
    return GuardedPattern(regex.compile(pattern_text))


class PreTokenizer:
    """Splits text into pre-tokens, with special tokens cut out first.

    >>> p = PreTokenizer("gpt2", special_tokens=["<|endoftext|>"])
    >>> list(p.split("Hi there<|endoftext|>!"))
    [(False, 'Hi'), (False, ' there'), (True, '<|endoftext|>'), (False, '!')]

    ``special_matcher`` is how special tokens are split out: a :class:`SpecialMatcher` (its
    ``finditer`` and ``split``), or None when there are none. Encoders and counters that cut
    specials themselves, on their fast paths, use it; :meth:`split` does it all.

    ``prefix_space`` (one of :data:`~bpe_tui.core.types.PREFIX_SCHEMES`) adds a space in front of segments, as
    sentencepiece-style tokenizers do; tables read from those formats set it.

    Text can be normalized first (see :mod:`~bpe_tui.core.text.normalize`), at one of two moments,
    as the libraries do: ``normalizer`` rewrites each segment between special tokens (Hugging
    Face: added tokens are matched in the raw text), ``text_normalizer`` the whole text before
    special tokens are looked for (sentencepiece: its normalizer keeps user-defined pieces
    whole). ``lowercase`` lowercases segments, before ``normalizer``.
    """

    def __init__(
        self,
        pretokenizer: str = "gpt2",
        special_tokens: Iterable[str] = (),
        lowercase: bool = False,
        prefix_space: PrefixScheme | None = None,
        normalizer: Callable[[str], str] | None = None,
        text_normalizer: WholeTextNormalizer | None = None,
        special_flags: dict[str, dict[str, Any]] | None = None,
        normalized_tokens: Iterable[str] = (),
    ):
        self.name, self.pattern_text = resolve_pattern(pretokenizer)
        self.pattern = compile_pattern(self.name, self.pattern_text)
        #: Characters that must follow a pre-token before a stream takes it as final (LOOKS_PAST).
        self.looks_past = LOOKS_PAST.get(self.pattern_text, 1)
        self.lowercase = lowercase
        self.normalizer = normalizer
        self.text_normalizer = text_normalizer
        if prefix_space is not None and prefix_space not in PREFIX_SCHEMES:
            raise BPEError(f"unknown prefix-space scheme {prefix_space!r}; choose one of {', '.join(PREFIX_SCHEMES)}")
        self.prefix_space = prefix_space
        self.special_tokens = special_token_list(special_tokens)
        self._special_prefixes: set[str] | None = None  # see special_prefix_len
        # Hugging Face's added tokens with ``normalized: true`` are looked for in each segment
        # after it is normalized (their own text normalized too); the others in the raw text.
        later = [t for t in normalized_tokens if t in self.special_tokens] if normalizer is not None or lowercase else []
        raw = [t for t in self.special_tokens if t not in later]
        self.special_matcher = SpecialMatcher(raw, special_flags) if raw else None
        self._normalized_of = {self.normalize(t): t for t in later}
        flags = special_flags or {}
        self._normalized_re = (
            SpecialMatcher(list(self._normalized_of), {n: flags.get(t, {}) for n, t in self._normalized_of.items()})
            if later else None
        )

    def normalize(self, segment: str) -> str:
        """One segment (text between special tokens) as the pre-tokenizer sees it: lowercased
        and normalized as configured."""
        if self.lowercase:
            segment = segment.lower()
        return self.normalizer(segment) if self.normalizer is not None else segment

    def prefixed(self, segment: str, at_text_start: bool) -> str:
        """``segment`` (text between special tokens) with the prefix space, if the scheme
        puts one there; ``at_text_start`` says whether the segment begins the text."""
        scheme = self.prefix_space
        if scheme is None or not segment:
            return segment
        if scheme == "prepend" or (segment[0] != " " and (scheme == "always" or at_text_start)):
            return " " + segment
        return segment

    def words(self, text: str) -> list[str]:
        """The pre-tokens of ``text`` that BPE trains on (special tokens removed)."""
        if self.text_normalizer is not None:
            text = self.text_normalizer(text)
        if self.special_matcher is None and self._normalized_re is None:
            return self.pattern.findall(self.prefixed(self.normalize(text), True))
        return [piece for is_special, piece in self.split(text, text_normalized=True) if not is_special]

    def split(self, text: str, text_normalized: bool = False) -> Iterator[tuple[bool, str]]:
        """Yield ``(is_special, piece)`` in order: special tokens whole, other text as pre-tokens.

        Lowercasing (if configured) applies to ordinary text, never to special tokens.
        ``text_normalized``: the whole-text normalizer has already run over ``text``.
        """
        if self.text_normalizer is not None and not text_normalized:
            text = self.text_normalizer(text)
        if self.special_matcher is None:
            yield from self._segment_pieces(text, True)
            return
        pos = 0
        for m in self.special_matcher.finditer(text):
            if m.start() > pos:
                yield from self._segment_pieces(text[pos : m.start()], pos == 0)
            yield True, m.group()
            pos = m.end()
        if pos < len(text):
            yield from self._segment_pieces(text[pos:], pos == 0)

    def _segment_pieces(self, segment: str, at_text_start: bool) -> list[tuple[bool, str]]:
        """The pieces of one segment (text between special tokens found in the raw text):
        normalized as configured, the tokens matched in normalized text cut out, and the
        rest pre-tokenized, each part with the prefix space if the scheme puts one there."""
        text = self.normalize(segment)
        if self._normalized_re is None:
            return [(False, w) for w in self.pattern.findall(self.prefixed(text, at_text_start))]
        out: list[tuple[bool, str]] = []
        pos = 0
        for m in self._normalized_re.finditer(text):
            if m.start() > pos:
                out += [(False, w) for w in self.pattern.findall(self.prefixed(text[pos : m.start()], at_text_start and pos == 0))]
            out.append((True, self._normalized_of[m.group()]))
            pos = m.end()
        if pos < len(text):
            out += [(False, w) for w in self.pattern.findall(self.prefixed(text[pos:], at_text_start and pos == 0))]
        return out

    def normalized_specials(self, text: str) -> list[str]:
        """Normalized ``text`` cut at the special tokens looked for in normalized text:
        ``[text, token, text, token, ..., text]`` (tokens by their own name)."""
        out: list[str] = []
        pos = 0
        if self._normalized_re is not None:
            for m in self._normalized_re.finditer(text):
                out += [text[pos : m.start()], self._normalized_of[m.group()]]
                pos = m.end()
        out.append(text[pos:])
        return out

    def normalized_special_matches(self, text: str) -> list[tuple[Match, str]]:
        """Each special token looked for in normalized ``text``, in order: its match there
        (the span may take in whitespace: ``lstrip``/``rstrip``) and the token's own name."""
        if self._normalized_re is None:
            return []
        return [(m, self._normalized_of[m.group()]) for m in self._normalized_re.finditer(text)]

    @property
    def matches_normalized_tokens(self) -> bool:
        """Whether some special tokens are looked for in normalized text (see __init__)."""
        return self._normalized_re is not None

    def spans(self, text: str, special_text: str | None = None) -> Iterator[tuple[bool, int, int, str]]:
        """Yield ``(is_special, start, end, prefix)`` for each piece of ``text``, in order.

        The same pieces as :meth:`split`, as offsets into ``text`` (lowercasing and the prefix
        space are not applied, so the offsets refer to the text as given); ``prefix`` is what
        a pipeline's prefix step puts in front of the piece (parity's space), "" otherwise.
        ``special_text``, of the same length, is where special tokens are looked for instead
        (the text before lowercasing).
        """
        pos = 0
        if self.special_matcher is not None:
            for m in self.special_matcher.finditer(text if special_text is None else special_text):
                for w in self.pattern.finditer(text, pos, m.start()):
                    yield False, w.start(), w.end(), getattr(w, "prefix", "")
                yield True, m.start(), m.end(), ""
                pos = m.end()
        for w in self.pattern.finditer(text, pos):
            yield False, w.start(), w.end(), getattr(w, "prefix", "")

    def special_prefix_len(self, text: str) -> int:
        """Length of the longest suffix of ``text`` that is a proper prefix of a special token.

        Streaming encoders keep that many characters back, so a special token cut in two by
        a chunk boundary is still recognised whole. (The proper prefixes are kept in a set,
        made when first asked: a chunk's tail is checked in as many lookups as the longest
        token is long, however many special tokens there are: Llama 3 has 256.)
        """
        if self._special_prefixes is None:
            self._special_prefixes = {t[:k] for t in self.special_tokens for k in range(1, len(t))}
        prefixes = self._special_prefixes
        longest = max(map(len, self.special_tokens), default=0)
        for k in range(min(longest - 1, len(text)), 0, -1):
            if text[-k:] in prefixes:
                return k
        return 0

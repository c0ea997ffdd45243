"""Pre-tokenization: cutting text into the words (pre-tokens) that BPE works inside.

BPE never merges across a pre-token boundary. Which boundaries exist is decided here, by a
regular expression (GPT-2's, GPT-4's cl100k, o200k, or your own) or by plain whitespace
splitting (the classic tutorials). Special tokens such as ``<|endoftext|>`` are cut out of the
text *before* the regex runs: they are never split, never counted in pairs and never merged.
When one special token is a prefix of another, the longest one wins.

Patterns use the ``regex`` package, which understands Unicode classes such as ``\\p{L}``.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex

from .errors import BPEError

#: GPT-2's pre-tokenizer (2019), as used by GPT-2, RoBERTa, CS336 and Hugging Face's ByteLevel.
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

#: GPT-4's cl100k_base pre-tokenizer: case-insensitive contractions, digits in runs of 1-3.
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)

#: GPT-4o's o200k_base pre-tokenizer: splits CamelCase, keeps contractions on the word.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

#: Whitespace splitting (Python's ``str.split()``): words without their spaces.
WHITESPACE_PATTERN = r"""\S+"""

NAMED_PATTERNS = {
    "whitespace": WHITESPACE_PATTERN,
    "gpt2": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "o200k": O200K_PATTERN,
}


def resolve_pattern(name_or_regex: str) -> tuple[str, str]:
    """Return ``(name, pattern)`` for a named pre-tokenizer or a custom regex.

    A custom regex may be given bare or as ``regex:PATTERN``; its name is ``regex:PATTERN``.
    """
    if name_or_regex in NAMED_PATTERNS:
        return name_or_regex, NAMED_PATTERNS[name_or_regex]
    pattern = name_or_regex[6:] if name_or_regex.startswith("regex:") else name_or_regex
    try:
        compiled = regex.compile(pattern)
    except regex.error as exc:
        raise BPEError(f"pre-tokenizer regex {pattern!r} does not compile: {exc}") from None
    if compiled.fullmatch(""):
        raise BPEError(f"pre-tokenizer regex {pattern!r} matches the empty string")
    return "regex:" + pattern, pattern


class PreTokenizer:
    """Splits text into pre-tokens, with special tokens cut out first.

    >>> p = PreTokenizer("gpt2", special_tokens=["<|endoftext|>"])
    >>> list(p.split("Hi there<|endoftext|>!"))
    [(False, 'Hi'), (False, ' there'), (True, '<|endoftext|>'), (False, '!')]
    """

    def __init__(self, pretokenizer: str = "gpt2", special_tokens=(), lowercase: bool = False):
        self.name, self.pattern_text = resolve_pattern(pretokenizer)
        self.pattern = regex.compile(self.pattern_text)
        self.lowercase = lowercase
        self.special_tokens = list(dict.fromkeys(special_tokens or ()))
        if self.special_tokens:
            # Longest first, so that when one special is a prefix of another the longer wins.
            ordered = sorted(self.special_tokens, key=len, reverse=True)
            self._special_re = regex.compile("|".join(regex.escape(s) for s in ordered))
        else:
            self._special_re = None

    def words(self, text: str) -> list[str]:
        """The pre-tokens of ``text`` that BPE trains on (special tokens removed)."""
        if self.lowercase:
            text = text.lower()
        if self._special_re is None:
            return self.pattern.findall(text)
        out: list[str] = []
        for segment in self._special_re.split(text):
            if segment:
                out.extend(self.pattern.findall(segment))
        return out

    def split(self, text: str) -> Iterator[tuple[bool, str]]:
        """Yield ``(is_special, piece)`` in order: special tokens whole, other text as pre-tokens.

        Lowercasing (if configured) applies to ordinary text, never to special tokens.
        """
        if self._special_re is None:
            for word in self.pattern.findall(text.lower() if self.lowercase else text):
                yield False, word
            return
        pos = 0
        for m in self._special_re.finditer(text):
            if m.start() > pos:
                segment = text[pos : m.start()]
                for word in self.pattern.findall(segment.lower() if self.lowercase else segment):
                    yield False, word
            yield True, m.group()
            pos = m.end()
        if pos < len(text):
            segment = text[pos:]
            for word in self.pattern.findall(segment.lower() if self.lowercase else segment):
                yield False, word

    def spans(self, text: str) -> Iterator[tuple[bool, int, int]]:
        """Yield ``(is_special, start, end)`` for each piece of ``text``, in order.

        The same pieces as :meth:`split`, as offsets into ``text`` (lowercasing is not
        applied, so the offsets refer to the text as given).
        """
        pos = 0
        if self._special_re is not None:
            for m in self._special_re.finditer(text):
                for w in self.pattern.finditer(text, pos, m.start()):
                    yield False, w.start(), w.end()
                yield True, m.start(), m.end()
                pos = m.end()
        for w in self.pattern.finditer(text, pos):
            yield False, w.start(), w.end()

    def special_prefix_len(self, text: str) -> int:
        """Length of the longest suffix of ``text`` that is a proper prefix of a special token.

        Streaming encoders keep that many characters back, so a special token cut in two by
        a chunk boundary is still recognised whole.
        """
        best = 0
        for special in self.special_tokens:
            for k in range(min(len(special) - 1, len(text)), best, -1):
                if text.endswith(special[:k]):
                    best = k
                    break
        return best

"""Normalizers: what a tokenizer does to the text before it pre-tokenizes it.

A merge table only says how to *merge*. Real tokenizers first rewrite the text, and a table
applied to un-normalized text gives other ids than its own library does. The rewrites come in
two families, both implemented here exactly as their libraries do them:

* **Hugging Face** ``tokenizer.json`` has a ``normalizer``: NFC/NFD/NFKC/NFKD, Lowercase,
  Replace (a string or a regex), Prepend, Strip, StripAccents, Nmt, Precompiled, and a
  Sequence of them. :func:`from_hf` turns that JSON into a :class:`Normalizer`.
* **sentencepiece** ``.model`` files carry a *precompiled charsmap* (the rules of
  ``nmt_nfkc`` and friends compiled into a double-array trie plus a string pool), and flags
  for whitespace. :class:`SentencePieceNormalizer` follows ``normalizer.cc``: at each position
  the longest rule that matches the bytes there is applied (or one character is copied),
  leading, trailing and repeated spaces are squeezed when ``remove_extra_whitespaces`` is on,
  and a dummy space goes in front when ``add_dummy_prefix`` is on.

The charsmap format (``precompiled_charsmap`` in sentencepiece_model.proto, and base64 in HF's
``Precompiled`` normalizer) is::

    uint32 little-endian   size of the trie in bytes (a multiple of 4)
    uint32[size / 4]       the trie: a darts-clone double array
    bytes                  the pool: replacement strings, each ended by a NUL byte

A trie unit packs a label (the byte that leads to it), an offset (to its children) and a
"has leaf" bit; a leaf's unit holds a value, the replacement's offset in the pool. Walking the
input's bytes down the trie visits every rule that is a prefix of the input; the longest one
wins. Nothing here needs sentencepiece or protobuf at run time.
"""

from __future__ import annotations

import base64
import binascii
import struct
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal

import regex

from ..errors import BPEError

#: How sentencepiece writes a space inside pieces (and in normalized text).
SPACE_MARK = "\u2581"


class Normalizer:
    """A text -> text rewrite. Call it on a text; ``name`` says what it does, for notes."""

    name = "identity"

    def __call__(self, text: str) -> str:
        return text

    def __repr__(self) -> str:
        return f"<normalizer {self.name}>"


#: Unicode's four normal forms, by name.
NORMAL_FORMS: dict[str, Literal["NFC", "NFD", "NFKC", "NFKD"]] = {"NFC": "NFC", "NFD": "NFD", "NFKC": "NFKC", "NFKD": "NFKD"}


class Unicode(Normalizer):
    """A Unicode normal form: NFC, NFD, NFKC or NFKD (``unicodedata.normalize``)."""

    def __init__(self, form: str):
        if form not in NORMAL_FORMS:
            raise BPEError(f"unknown Unicode normal form {form!r}")
        self.form = NORMAL_FORMS[form]
        self.name = form

    def __call__(self, text: str) -> str:
        return unicodedata.normalize(self.form, text)


class Lowercase(Normalizer):
    """Hugging Face's Lowercase: each character lowercased on its own.

    Python's ``str.lower`` agrees except for one context rule: it writes a capital sigma at
    the end of a word as final ``ς``, where a character-by-character map always gives ``σ``.
    """

    name = "Lowercase"

    def __call__(self, text: str) -> str:
        return text.replace("Σ", "σ").lower()


class Replace(Normalizer):
    """Replace every occurrence of a string, or of a regex, with ``content``."""

    def __init__(self, pattern: str, content: str, is_regex: bool = False):
        self.content = content
        self._regex = regex.compile(pattern) if is_regex else None
        self.pattern = pattern
        self.name = f"Replace({pattern!r} -> {content!r})"

    def __call__(self, text: str) -> str:
        if self._regex is not None:
            return str(self._regex.sub(lambda _m: self.content, text))
        return text.replace(self.pattern, self.content)


class Prepend(Normalizer):
    """Put ``prefix`` in front of a non-empty text (Hugging Face's Prepend)."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.name = f"Prepend({prefix!r})"

    def __call__(self, text: str) -> str:
        return self.prefix + text if text else text


class Strip(Normalizer):
    """Strip whitespace on the left and/or the right (Hugging Face's Strip)."""

    def __init__(self, left: bool = True, right: bool = True):
        self.left, self.right = left, right
        self.name = "Strip(" + ",".join(s for s, on in (("left", left), ("right", right)) if on) + ")"

    def __call__(self, text: str) -> str:
        if self.left:
            text = text.lstrip()
        if self.right:
            text = text.rstrip()
        return text


class StripAccents(Normalizer):
    """Remove combining marks (Hugging Face's StripAccents; meant to follow NFD or NFKD).

    A mark is any character of general category M (Mn, Mc, Me), as in tokenizers; not
    ``unicodedata.combining``, which is the combining *class* and is 0 for many marks
    (Devanagari's vowel signs).
    """

    name = "StripAccents"

    def __call__(self, text: str) -> str:
        if text.isascii():
            return text
        category = unicodedata.category
        return "".join(c for c in text if category(c)[0] != "M")


class Nmt(Normalizer):
    """Hugging Face's Nmt normalizer: sentencepiece's nmt rules outside the charsmap.

    Control characters (U+0001-0008, 000B, 000E-001F, 007F, 008F, 009F) are removed, and
    other whitespace-like characters (tab, CR, LF, form feed, U+1680, U+200B-200F,
    U+2028-2029, U+2581, U+FEFF, U+FFFD) become a plain space.
    """

    name = "Nmt"
    _REMOVE = {c: None for c in [*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F]}
    _SPACE = {c: " " for c in [0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD]}
    _TABLE = {**_REMOVE, **_SPACE}

    def __call__(self, text: str) -> str:
        return text.translate(self._TABLE)


class SequenceOf(Normalizer):
    """Several normalizers, applied in order."""

    def __init__(self, parts: Sequence[Normalizer]):
        self.parts = list(parts)
        self.name = " + ".join(p.name for p in self.parts) or "identity"

    def __call__(self, text: str) -> str:
        for part in self.parts:
            text = part(text)
        return text


# ---------------------------------------------------------------------- the precompiled charsmap


class Charsmap:
    """sentencepiece's precompiled charsmap: rewrite rules in a double-array trie (see the
    module docstring for the layout)."""

    def __init__(self, blob: bytes):
        if len(blob) < 4:
            raise BPEError("precompiled charsmap: shorter than its 4-byte header")
        (trie_size,) = struct.unpack_from("<I", blob, 0)
        if trie_size % 4 or 4 + trie_size > len(blob):
            raise BPEError(f"precompiled charsmap: trie size {trie_size} does not fit the {len(blob)}-byte blob")
        self.units = struct.unpack_from(f"<{trie_size // 4}I", blob, 4)
        self.pool = blob[4 + trie_size :]
        self.blob = bytes(blob)
        self._replacements: dict[int, bytes] = {}

    def longest_match(self, data: bytes, pos: int = 0) -> tuple[int, bytes] | None:
        """``(length, replacement)`` of the longest rule matching ``data`` at ``pos``, or None.

        A darts-clone common-prefix walk: from the root, each input byte moves to the child
        whose label is that byte; a unit with the leaf bit set ends a rule here.
        """
        units = self.units
        n_units = len(units)
        found = None
        node = _offset(units[0])
        for i in range(pos, len(data)):
            byte = data[i]
            node ^= byte
            if node >= n_units:
                break
            unit = units[node]
            if unit & 0x800000FF != byte:  # the label of the unit (bit 31 set means "no label")
                break
            node ^= _offset(unit)
            if (unit >> 8) & 1:
                found = (i + 1 - pos, units[node] & 0x7FFFFFFF) if node < n_units else found
        if found is None:
            return None
        length, value = found
        return length, self._replacement(value)

    def first_match(self, data: bytes) -> str | None:
        """The replacement of the shortest rule matching the start of ``data``, or None."""
        units = self.units
        node = _offset(units[0])
        for byte in data:
            node ^= byte
            if node >= len(units) or units[node] & 0x800000FF != byte:
                return None
            unit = units[node]
            node ^= _offset(unit)
            if (unit >> 8) & 1 and node < len(units):
                return self._replacement(units[node] & 0x7FFFFFFF).decode("utf-8", "replace")
        return None

    def _replacement(self, value: int) -> bytes:
        cached = self._replacements.get(value)
        if cached is None:
            end = self.pool.find(b"\0", value)
            cached = self._replacements[value] = self.pool[value : end if end >= 0 else len(self.pool)]
        return cached


def _offset(unit: int) -> int:
    """A darts-clone unit's offset to its children (bit 9 scales it by 256)."""
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


def _utf8_width(data: bytes, pos: int) -> int:
    """The length of the valid UTF-8 character at ``pos``, or 0 if it is malformed."""
    for width in (1, 2, 3, 4):
        try:
            data[pos : pos + width].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return width if pos + width <= len(data) else 0
    return 0


class Precompiled(Normalizer):
    """Hugging Face's ``Precompiled`` normalizer (the spm_precompiled crate), which applies a
    charsmap its own way: per grapheme cluster, not per longest rule.

    A cluster of fewer than 6 bytes is replaced whole by the *first* (shortest) rule that
    matches its start; otherwise each of its characters is replaced by its first matching
    rule, or kept. Where a rule is shorter than the cluster this differs from sentencepiece:
    ``"\\r\\n"`` is one cluster, and nmt_nfkc's rule for ``"\\r"`` turns it into one space
    where sentencepiece gives two.
    """

    name = "Precompiled"
    _GRAPHEME = regex.compile(r"\X")

    def __init__(self, charsmap: Charsmap):
        self.charsmap = charsmap

    def __call__(self, text: str) -> str:
        first = self.charsmap.first_match
        out = []
        for cluster in self._GRAPHEME.findall(text):
            data = cluster.encode("utf-8")
            if len(data) < 6:
                hit = first(data)
                if hit is not None:
                    out.append(hit)
                    continue
            for ch in cluster:
                hit = first(ch.encode("utf-8"))
                out.append(ch if hit is None else hit)
        return "".join(out)


class SentencePieceNormalizer(Normalizer):
    """sentencepiece's ``Normalizer::Normalize`` (normalizer.cc), spaces left as ``" "``.

    * user-defined pieces are copied unchanged where they start (longest first);
    * otherwise the longest charsmap rule applies, or one character is copied;
    * ``remove_extra_whitespaces``: spaces at the start and the end go, runs become one;
    * ``add_dummy_prefix``: one space in front of the text (after the squeezing), or at the
      end with ``treat_whitespace_as_suffix``.

    Pass ``dummy_prefix=False`` to :meth:`__call__` to leave the dummy space to the caller (a
    pre-tokenizer's prefix scheme); ``escape=True`` writes spaces as ``▁`` as sentencepiece's
    own ``normalize`` returns them.
    """

    def __init__(
        self,
        charsmap: Charsmap | None = None,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        treat_whitespace_as_suffix: bool = False,
        user_defined: Iterable[str] = (),
        name: str = "sentencepiece",
    ):
        self.charsmap = charsmap
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.treat_whitespace_as_suffix = treat_whitespace_as_suffix
        self.user_defined = sorted({u.encode("utf-8") for u in user_defined if u}, key=len, reverse=True)
        self.name = name

    def _steps(self, data: bytes) -> Iterator[tuple[str, int]]:
        """``(normalized piece, bytes consumed)`` over the text, as NormalizePrefix gives them."""
        pos = 0
        n = len(data)
        charsmap = self.charsmap
        while pos < n:
            symbol = next((u for u in self.user_defined if data.startswith(u, pos)), None)
            if symbol is not None:
                yield symbol.decode("utf-8"), len(symbol)
                pos += len(symbol)
                continue
            hit = charsmap.longest_match(data, pos) if charsmap is not None else None
            if hit is not None:
                yield hit[1].decode("utf-8", "replace"), hit[0]
                pos += hit[0]
                continue
            width = _utf8_width(data, pos)
            if width:
                yield data[pos : pos + width].decode("utf-8"), width
                pos += width
            else:
                yield "\ufffd", 1
                pos += 1

    def __call__(self, text: str, dummy_prefix: bool = True, escape: bool = False) -> str:
        normalized = "".join(self.stream([text]))
        if not dummy_prefix and self.add_dummy_prefix and normalized:
            normalized = normalized[:-1] if self.treat_whitespace_as_suffix else normalized[1:]
        return normalized.replace(" ", SPACE_MARK) if escape else normalized

    def stream(self, chunks: Iterable[str]) -> Iterator[str]:
        """Normalize a text given in chunks (say, a file's lines) as if it were one string.

        Spaces that may turn out to be trailing are held back until more text shows they are
        not; the dummy prefix goes in once, before the first text. (A charsmap rule is looked
        for within a chunk: rules span a few characters, chunks are lines.)
        """
        squeeze = self.remove_extra_whitespaces
        suffix = self.treat_whitespace_as_suffix
        started = False
        held = ""  # spaces not yet known to be followed by text (squeezing only)
        is_prev_space = squeeze
        for chunk in chunks:
            for piece, _ in self._steps(chunk.encode("utf-8")):
                if not started:
                    if squeeze and piece == " ":
                        continue  # leading spaces go
                    started = True
                    # The dummy space goes in for any text left here, even text whose pieces
                    # all normalize to nothing ("\x7f"); squeezing may take it off again.
                    if self.add_dummy_prefix and not suffix:
                        if squeeze:
                            held = " "
                        else:
                            yield " "
                if is_prev_space:
                    piece = piece.lstrip(" ")
                if piece:
                    is_prev_space = piece.endswith(" ")
                    if squeeze:
                        body = piece.rstrip(" ")
                        if body:
                            yield held + body
                            held = ""
                        held += piece[len(body) :]
                    else:
                        yield piece
                if not squeeze:
                    is_prev_space = False
        if started and self.add_dummy_prefix and suffix:
            yield " "


# ---------------------------------------------------------------------- from tokenizer.json


def from_spec(spec: Any, where: str = "normalizer") -> Normalizer:
    """The normalizer a table's ``config["normalizer"]`` describes: a tokenizer.json
    normalizer object (see :func:`from_hf`), or bpe-tui's own ``{"type": "SentencePiece",
    ...}`` for sentencepiece models (see :func:`sentencepiece_spec`)."""
    if isinstance(spec, dict) and spec.get("type") == "SentencePiece":
        raw = spec.get("precompiled_charsmap")
        try:
            charsmap = Charsmap(base64.b64decode(raw, validate=True)) if raw else None
        except (binascii.Error, ValueError, TypeError):
            raise BPEError(f"{where}.precompiled_charsmap: not valid base64") from None
        user_defined = spec.get("user_defined") or []
        if not isinstance(user_defined, list) or not all(isinstance(u, str) for u in user_defined):
            raise BPEError(f"{where}.user_defined: expected a list of strings")
        return SentencePieceNormalizer(
            charsmap,
            add_dummy_prefix=bool(spec.get("add_dummy_prefix", True)),
            remove_extra_whitespaces=bool(spec.get("remove_extra_whitespaces", True)),
            treat_whitespace_as_suffix=bool(spec.get("treat_whitespace_as_suffix", False)),
            user_defined=user_defined,
            name=str(spec.get("name") or "sentencepiece"),
        )
    return from_hf(spec, where)


def sentencepiece_spec(
    charsmap: bytes | None,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    treat_whitespace_as_suffix: bool,
    user_defined: Iterable[str],
    name: str,
) -> dict[str, Any]:
    """The JSON-ready spec of a :class:`SentencePieceNormalizer` (kept in a table's config)."""
    return {
        "type": "SentencePiece",
        "name": name,
        "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii") if charsmap else None,
        "add_dummy_prefix": add_dummy_prefix,
        "remove_extra_whitespaces": remove_extra_whitespaces,
        "treat_whitespace_as_suffix": treat_whitespace_as_suffix,
        "user_defined": list(user_defined),
    }


def from_hf(spec: Any, where: str = "normalizer") -> Normalizer:
    """The normalizer a tokenizer.json ``normalizer`` object describes (None: identity).

    Raises BPEError naming ``where`` (the JSON path) for a type bpe-tui does not apply, so a
    loader can refuse it or report it by name rather than silently encode differently.
    """
    if spec is None:
        return Normalizer()
    if not isinstance(spec, dict):
        raise BPEError(f"{where}: expected an object, not {type(spec).__name__}")
    kind = spec.get("type")
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return Unicode(kind)
    if kind == "Lowercase":
        return Lowercase()
    if kind == "StripAccents":
        return StripAccents()
    if kind == "Nmt":
        return Nmt()
    if kind == "Strip":
        return Strip(bool(spec.get("strip_left", True)), bool(spec.get("strip_right", True)))
    if kind == "Prepend":
        prefix = spec.get("prepend")
        if not isinstance(prefix, str):
            raise BPEError(f"{where}.prepend: expected a string, not {prefix!r}")
        return Prepend(prefix)
    if kind == "Replace":
        pattern = spec.get("pattern")
        content = spec.get("content")
        if not isinstance(pattern, dict) or not isinstance(content, str):
            raise BPEError(f"{where}: Replace needs a pattern object and a content string")
        if isinstance(pattern.get("String"), str):
            return Replace(pattern["String"], content)
        if isinstance(pattern.get("Regex"), str):
            try:
                return Replace(pattern["Regex"], content, is_regex=True)
            except regex.error as exc:
                raise BPEError(f"{where}.pattern.Regex: does not compile: {exc}") from None
        raise BPEError(f"{where}.pattern: expected {{\"String\": ...}} or {{\"Regex\": ...}}")
    if kind == "Precompiled":
        raw = spec.get("precompiled_charsmap")
        if raw is None or raw == "":
            return Normalizer()  # tokenizers writes an empty charsmap for identity models
        if not isinstance(raw, str):
            raise BPEError(f"{where}.precompiled_charsmap: expected a base64 string")
        try:
            blob = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise BPEError(f"{where}.precompiled_charsmap: not valid base64") from None
        return Precompiled(Charsmap(blob))
    if kind == "Sequence":
        parts = spec.get("normalizers")
        if not isinstance(parts, list):
            raise BPEError(f"{where}.normalizers: expected a list")
        return SequenceOf([from_hf(p, f"{where}.normalizers[{i}]") for i, p in enumerate(parts)])
    raise BPEError(f"{where}: normalizer type {kind!r} is not supported by bpe-tui")

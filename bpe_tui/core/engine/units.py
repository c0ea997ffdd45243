"""Units and surfaces: what a token *is*, and how to show it to a person.

A token's *surface* is the text it stands for. In ``bytes`` mode (GPT-2 and every modern
LLM tokenizer) surfaces are ``bytes`` and the base alphabet is the 256 byte values; in
``chars`` mode (Sennrich et al. 2016, the classic tutorials) surfaces are ``str`` and the
base alphabet is the set of characters seen in the corpus, plus the end-of-word marker.

GPT-2 wrote its byte tokens into vocab.json through a reversible byte -> printable character
map (``bytes_to_unicode``), which is why a leading space shows up as ``Ġ`` in those files.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from ..wording import one_line

Surface = "bytes | str"


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (space -> 'Ġ', newline -> 'Ċ').

    Printable Latin-1 bytes map to themselves; the other 68 bytes are shifted to code points
    256 and up, in byte order. The map is a bijection, so token strings in vocab.json and
    merges.txt can be turned back into bytes exactly.
    """
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    mapping = {b: chr(b) for b in printable}
    shift = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + shift)
            shift += 1
    return mapping


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    """The inverse of :func:`bytes_to_unicode`."""
    return {c: b for b, c in bytes_to_unicode().items()}


def bytes_to_gpt2_str(data: bytes) -> str:
    """Write bytes the way GPT-2's vocab.json does (b' the' -> 'Ġthe')."""
    table = bytes_to_unicode()
    return "".join(table[b] for b in data)


def gpt2_str_to_bytes(text: str) -> bytes:
    """Read a GPT-2 vocab.json / merges.txt token back into bytes; KeyError on a foreign char."""
    table = unicode_to_bytes()
    return bytes(table[c] for c in text)


def text_of(surface: bytes | str) -> str:
    """A surface's text as it is, not made visible: bytes decoded as UTF-8, each piece
    of a character that is not valid alone as U+FFFD (what search and special tokens match)."""
    return surface.decode("utf-8", "replace") if isinstance(surface, bytes) else surface


_VISIBLE = {" ": "·", "\n": "⏎", "\t": "→", "\r": "␍"}


def visible(surface: bytes | str, end_of_word: str | None = None) -> str:
    """A one-line, human-readable rendering of a token surface.

    Whitespace is made visible (space ``·``, newline ``⏎``, tab ``→``), control characters
    are escaped as messages escape them (``\\x1b``, see
    :func:`~bpe_tui.core.wording.one_line`), and bytes that are not valid UTF-8 on their own
    (a piece of a multi-byte character) are shown as ``<0xNN>``. The result is plain text:
    render it with ``rich.text.Text``, never as markup.
    """
    if isinstance(surface, bytes):
        try:
            text = surface.decode("utf-8")
        except UnicodeDecodeError:
            parts = []
            for chunk in utf8_runs(surface):
                if isinstance(chunk, str):
                    parts.append(visible(chunk))
                else:
                    parts.append("".join(f"<0x{b:02X}>" for b in chunk))
            return "".join(parts)
    else:
        text = surface
        if end_of_word and text.endswith(end_of_word) and text != end_of_word:
            return visible(text[: -len(end_of_word)]) + end_of_word
        if end_of_word and text == end_of_word:
            return text
    out = []
    for ch in text:
        if ch in _VISIBLE:
            out.append(_VISIBLE[ch])
        elif ord(ch) < 32 or 127 <= ord(ch) < 160:  # C0, DEL and C1 (U+009B is a CSI to some terminals)
            out.append(one_line(ch))
        else:
            out.append(ch)
    return "".join(out)


def utf8_runs(data: bytes) -> Iterator[str | bytes]:
    """Split bytes into decodable str runs and undecodable byte runs, in order."""
    i = 0
    n = len(data)
    start = 0
    while i < n:
        for width in (1, 2, 3, 4):
            piece = data[i : i + width]
            try:
                piece.decode("utf-8")
            except UnicodeDecodeError:
                continue
            i += width
            break
        else:
            if start < i:
                yield data[start:i].decode("utf-8")
            yield data[i : i + 1]
            i += 1
            start = i
    if start < n:
        yield data[start:n].decode("utf-8")

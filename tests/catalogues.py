"""Training text in twelve languages from the translation catalogues a machine already has.

Parity-aware BPE trains on one corpus per language. The repository ships a multi-parallel
development set (corpora/parallel, 12 languages, 30 lines each) but no training text, and
none may be copied in. Every Debian-like system has plenty: the gettext catalogues under
/usr/share/locale, where each program's messages stand in English (the ``msgid``) beside
their translation (the ``msgstr``). This module reads them and writes one plain-text file per
language, the same bytes every time on the same machine:

* the languages are corpora/parallel's; Chinese is the ``zh_CN`` catalogues;
* a language's lines are the translations of its catalogues, English's the original messages
  of every domain (read from the first of the other languages, in the order below, that has
  the domain), catalogues by domain name, messages in file order, each plural form and each
  line of a message a line of its own, whitespace runs made one space, empty lines dropped;
* a language stops at ``max_bytes`` of UTF-8 (whole lines only).

:func:`build` returns the files, :func:`sha256` their digests: tests that hold results made
from these files compare the digests first and skip (with the reason) when this machine's
catalogues are not the ones the results were made from, or when it has none.
"""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

LOCALE_ROOT = Path("/usr/share/locale")

#: corpora/parallel's languages, in its README's order; the catalogue folder of each.
LANGUAGES = ("en", "de", "fr", "es", "tr", "ru", "el", "ar", "hi", "zh", "ja", "ko")
LOCALE_OF = {"zh": "zh_CN"}


def read_mo(path: Path) -> list[tuple[str, str]]:
    """``(msgid, msgstr)`` of every message in a compiled gettext catalogue, in file order
    (the header, msgid "", left out). Plural forms stay joined by NUL, a context by EOT,
    as the file has them; text is decoded with the charset the header names."""
    data = path.read_bytes()
    if len(data) < 20:
        return []
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">" if magic == 0xDE120495 else None
    if order is None:
        return []
    count, originals, translations = struct.unpack(order + "3I", data[8:20])
    raw: list[tuple[bytes, bytes]] = []
    for n in range(count):
        olen, ooff = struct.unpack(order + "2I", data[originals + 8 * n : originals + 8 * n + 8])
        tlen, toff = struct.unpack(order + "2I", data[translations + 8 * n : translations + 8 * n + 8])
        raw.append((data[ooff : ooff + olen], data[toff : toff + tlen]))
    charset = "utf-8"
    for msgid, msgstr in raw:
        if msgid == b"":
            for line in msgstr.decode("ascii", "replace").splitlines():
                if line.lower().startswith("content-type:") and "charset=" in line:
                    charset = line.split("charset=", 1)[1].strip() or "utf-8"
    try:
        "".encode(charset)
    except LookupError:
        charset = "utf-8"
    return [(i.decode(charset, "replace"), s.decode(charset, "replace")) for i, s in raw if i]


def _lines(message: str) -> list[str]:
    """A message as training lines: its plural forms and lines, whitespace runs one space
    (a context before EOT is not text of the language and is dropped)."""
    message = message.split("\x04", 1)[-1]
    out = []
    for form in message.split("\x00"):
        for line in form.split("\n"):
            line = " ".join(line.split())
            if line:
                out.append(line)
    return out


def catalogues(language: str, root: Path = LOCALE_ROOT) -> list[Path]:
    """A language's compiled catalogues, by domain name."""
    folder = root / LOCALE_OF.get(language, language) / "LC_MESSAGES"
    return sorted(folder.glob("*.mo")) if folder.is_dir() else []


def language_lines(language: str, root: Path = LOCALE_ROOT) -> list[str]:
    """Every training line of ``language`` (see the module's docstring), before the cap."""
    out: list[str] = []
    if language != "en":
        for path in catalogues(language, root):
            for _, msgstr in read_mo(path):
                out += _lines(msgstr)
        return out
    seen: set[str] = set()
    for other in LANGUAGES[1:]:
        for path in catalogues(other, root):
            if path.name in seen:
                continue
            seen.add(path.name)
            for msgid, _ in read_mo(path):
                out += _lines(msgid)
    return out


def build(folder: Path, max_bytes: int = 200_000, root: Path = LOCALE_ROOT) -> dict[str, Path]:
    """Write ``folder/LANG.txt`` for each language that has catalogues; return them by
    language (an empty dict when the machine has no catalogues)."""
    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    for language in LANGUAGES:
        kept, size = [], 0
        for line in language_lines(language, root):
            size += len(line.encode("utf-8")) + 1
            if size > max_bytes:
                break
            kept.append(line)
        if kept:
            path = folder / f"{language}.txt"
            path.write_text("\n".join(kept) + "\n", encoding="utf-8")
            out[language] = path
    return out


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


if __name__ == "__main__":  # python tests/catalogues.py FOLDER [MAX_BYTES]: write them, print digests
    import sys

    built = build(Path(sys.argv[1]), *(int(a) for a in sys.argv[2:3]))
    for lang, path in built.items():
        print(f"{sha256(path)}  {lang}.txt  {path.stat().st_size} bytes")

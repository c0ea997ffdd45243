"""subword-nmt and fastBPE codes files.

::

    #version: 0.2
    e r</w>
    l o
    lo w
    low er</w>

One merge per line, ``left right`` separated by one space, in rank order; fastBPE adds a third
column with the pair's count (``e r</w> 1234``), which we read and can write (``counts=True``).
Words are split on whitespace (subword-nmt's input is tokenized text).

Where the end-of-word marker sits:

* version 0.2 (the header line) and fastBPE (no header, counts, symbols ending in ``</w>``):
  ``</w>`` is attached to the last character of every word (``l o w</w>``);
* version 0.1 (no header): ``</w>`` is a symbol of its own (``l o w </w>``), exactly like
  bpe-tui's chars-mode tables.

bpe-tui keeps the marker as its own symbol, so reading 0.2 codes puts one merge
``(c, </w>)`` per character in front of the file's merges (their counts are 0: the file does
not record them); encoding then starts from ``c</w>`` just as subword-nmt does and the token
ids are unchanged by the mapping. Writing 0.2 codes from a bpe-tui table drops the
``(x, </w>)`` merges and adds ``(y, z</w>)`` after ``(y, z)`` where ``z`` can still be bare at
the end of a word; ``_eow.py`` explains why this keeps every segmentation (up to where the
marker is glued). ``version="0.1"`` writes the table as it is.

Characters the codes never mention are unknown to the table (subword-nmt passes them through
as their own symbols; bpe-tui shows them as unknown).
"""

from __future__ import annotations

from typing import Any, Final, cast

from ...atomic import atomic_write_text
from ...errors import BPEError
from ..table import MergeTable
from . import _eow
from ._shared import build_table, fail, read_head, short

NAME: Final = "subword-nmt"
EOW = "</w>"


def sniff(path: str) -> bool:
    head = read_head(path, 4096)
    if head.startswith(b"#version:"):
        return True
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        text = head[:-4].decode("utf-8", "ignore")
    lines = text.split("\n")[:-1] if "\n" in text else []
    lines = [line for line in lines if line.strip()][:20]
    if not lines:
        return False
    for n, line in enumerate(lines):
        parts = line.rstrip("\r").split(" ")
        if len(parts) == 3 and parts[2].isdigit():
            parts = parts[:2]
        if len(parts) != 2 or not parts[0] or not parts[1]:
            return False
        # The first merge of any codes file joins two base symbols (a character, the last
        # one maybe with </w>), so a text of word pairs ("New York") is not taken for codes.
        if n == 0 and not all(len(p) == 1 or (len(p) == 1 + len(EOW) and p.endswith(EOW)) for p in parts):
            return False
    return any(EOW in line for line in lines) or len(lines) >= 2


def read(path: str) -> MergeTable:
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    version = None
    start = 0
    if lines and lines[0].startswith("#version:"):
        version = lines[0].split(":", 1)[1].strip()
        if version not in ("0.1", "0.2"):
            raise fail(path, "line 1", f"unknown codes version {version!r} (this reads 0.1 and 0.2)")
        start = 1
    elif lines and lines[0].startswith("#"):
        raise fail(path, "line 1", f"expected '#version: 0.2' or a merge, found {lines[0][:40]!r}")
    raw = []
    counts: list[int] = []
    has_counts = None
    for n, line in enumerate(lines[start:], start=start + 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        parts = line.strip(" ").split(" ")
        where = f"line {n}"
        if len(parts) == 3:
            if not parts[2].isdigit():
                raise fail(path, where, f"the third column {parts[2]!r} is not a count")
            count = int(parts[2])
        elif len(parts) == 2:
            count = None
        else:
            raise fail(path, where, f"expected 'left right' (or 'left right count'), found {len(parts)} fields in {short(line)}")
        if not parts[0] or not parts[1]:
            raise fail(path, where, f"empty token in {short(line)}")
        if has_counts is None:
            has_counts = count is not None
        elif has_counts != (count is not None):
            raise fail(path, where, "some lines have a count column and some do not")
        raw.append((parts[0], parts[1], where))
        if count is not None:
            counts.append(count)
    if not raw:
        raise fail(path, None, "no merges (an empty or truncated codes file)")
    if version is None:
        # No header: a bare </w> symbol means 0.1 (subword-nmt's old default); otherwise the
        # marker is attached (fastBPE, which writes no header).
        bare = any(t == EOW for left, right, _ in raw for t in (left, right))
        version = "0.1" if bare else "0.2"
    notes: list[str] = []
    config: dict[str, Any] = {"codes_version": version, "notes": notes}
    if version == "0.1":
        chars = sorted({c for left, right, _ in raw for t in (left, right) for c in _chars(t)})
        vocab = {i: s for i, s in enumerate(chars + [EOW])}
        return build_table(
            path, "chars", vocab, raw, None, source_format=NAME, pretokenizer="whitespace", end_of_word=EOW,
            counts=counts or None, config=config, add_missing_results=True,
        )
    alphabet, merges = _eow.detach(raw, EOW)
    vocab = {i: s for i, s in enumerate(alphabet)}
    prefix = len(merges) - len(raw)
    if counts:
        counts = [0] * prefix + counts
    notes.append(f"{prefix} merges (c, </w>) were added in front: 0.2 codes attach </w> to the last character")
    config["implied_merges"] = prefix
    return build_table(
        path, "chars", vocab, merges, None, source_format=NAME, pretokenizer="whitespace", end_of_word=EOW,
        counts=counts or None, config=config, add_missing_results=True,
    )


def _chars(token: str) -> list[str]:
    """The characters of a 0.1 symbol (the marker counts as one symbol)."""
    if token == EOW:
        return []
    if token.endswith(EOW):
        token = token[: -len(EOW)]
    return list(token)


def losses(table: MergeTable) -> list[str]:
    out = []
    if table.units != "chars":
        out.append("subword-nmt codes hold chars-mode tables only; this table is bytes")
        return out
    if table.end_of_word not in (EOW, None):
        out.append(f"the end-of-word marker {table.end_of_word!r} is written as {EOW!r}")
    if table.end_of_word:
        out.append("written as version 0.2: </w> is attached to the last character; (x, </w>) merges are implied, not written")
    if table.pretokenizer != "whitespace":
        out.append(f"subword-nmt splits on whitespace; the table's pre-tokenizer ({table.pretokenizer}) is not stored")
    if table.special_tokens:
        out.append("special tokens are not stored in a codes file")
    if table.lowercase:
        out.append("lowercasing is not stored in a codes file")
    return out


def write(table: MergeTable, path: str, counts: bool = False, version: str = "0.2", overwrite: bool = True) -> None:
    """Write codes: version 0.2 (default) or 0.1; ``counts=True`` adds fastBPE's count column."""
    if table.units != "chars":
        raise BPEError(f"{path}: subword-nmt codes hold chars-mode tables only; this table is bytes")
    if version not in ("0.1", "0.2"):
        raise BPEError(f"{path}: unknown codes version {version!r}; choose 0.1 or 0.2")
    eow = table.end_of_word
    if version == "0.2" and eow:
        merges = _eow.attach(table)
        if eow != EOW:
            merges = [(a.replace(eow, EOW), b.replace(eow, EOW), c) for a, b, c in merges]
    else:
        table_counts: list[int | None] = list(table.counts) if table.counts else [None] * table.num_merges
        chars_merges = cast("list[tuple[str, str]]", table.merges)  # a chars table (checked above)
        merges = [(a, b, c) for (a, b), c in zip(chars_merges, table_counts)]
    for a, b, _ in merges:
        for token in (a, b):
            if any(ch.isspace() for ch in token):
                raise BPEError(f"{path}: token {token!r} contains whitespace; a codes file cannot hold it")
    lines = [f"#version: {version}"]
    if counts and table.counts:
        lines += [f"{a} {b} {c if c is not None else 0}" for a, b, c in merges]
    else:
        lines += [f"{a} {b}" for a, b, _ in merges]
    atomic_write_text(path, "\n".join(lines) + "\n", overwrite)

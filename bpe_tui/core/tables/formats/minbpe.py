"""minbpe's ``.model`` file (Karpathy's minbpe: ``Tokenizer.save`` / ``Tokenizer.load``).

::

    minbpe v1
    <split pattern, or an empty line for BasicTokenizer>
    <number of special tokens>
    <special> <id>            (one line per special token)
    <id1> <id2>               (one line per merge, in order)

Merge ``n`` (0-based) makes token ``256 + n`` from the two ids; ids 0-255 are the bytes.
An empty pattern (``BasicTokenizer``) means no pre-tokenization: the whole text is one
sequence; we read it as the regex ``(?s).+``. minbpe's GPT-2 and GPT-4 patterns are read as
our ``gpt2`` and ``gpt4`` pre-tokenizers.

Writing renumbers when it must: minbpe fixes merged ids at ``256 + n``, so a table whose
special tokens sit in between (bpe-tui puts them right after the 256 bytes) gets its specials
moved after the merges; :func:`losses` names the new ids. The readable ``.vocab`` file minbpe
writes next to ``.model`` is for people only and is not needed.
"""

from __future__ import annotations

from typing import Final

from ...atomic import atomic_write_text
from ...errors import BPEError
from ...text.presets import WHOLE_TEXT
from ..table import MergeTable
from ._shared import fail, pattern_name, pattern_text, read_head, short

NAME: Final = "minbpe"
MAGIC = "minbpe v1"


def sniff(path: str) -> bool:
    return read_head(path, 16).startswith(MAGIC.encode())


def read(path: str) -> MergeTable:
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    if not lines or lines[0].strip() != MAGIC:
        raise fail(path, "line 1", f"expected {MAGIC!r}, found {lines[0][:40]!r}" if lines else "empty file")
    if len(lines) < 3:
        raise fail(path, f"line {len(lines) + 1}", "truncated: the pattern line and the special-token count are required")
    pattern = lines[1]
    try:
        n_special = int(lines[2])
        if n_special < 0:
            raise ValueError
    except ValueError:
        raise fail(path, "line 3", f"expected the number of special tokens, found {short(lines[2])}") from None
    if len(lines) < 3 + n_special:
        raise fail(path, f"line {len(lines) + 1}", f"truncated: {n_special} special tokens announced, {len(lines) - 3} found")
    specials: dict[str, int] = {}
    for k in range(n_special):
        lineno = 4 + k
        parts = lines[3 + k].rsplit(" ", 1)
        if len(parts) != 2 or not parts[0] or not parts[1].isdigit():
            raise fail(path, f"line {lineno}", f"expected '<special> <id>', found {short(lines[3 + k])}")
        specials[parts[0]] = int(parts[1])
    vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
    merges: list[tuple[int, int, int]] = []
    for k, line in enumerate(lines[3 + n_special :]):
        lineno = 4 + n_special + k
        parts = line.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise fail(path, f"line {lineno}", f"expected two token ids, found {short(line)}")
        a, b = int(parts[0]), int(parts[1])
        new = 256 + len(merges)
        for i in (a, b):
            if i not in vocab:
                raise fail(path, f"line {lineno}", f"token id {i} does not exist (merge {len(merges) + 1} can use ids 0-{new - 1})")
        vocab[new] = vocab[a] + vocab[b]
        merges.append((a, b, new))
    for s, i in specials.items():
        if i in vocab:
            raise fail(path, "special tokens", f"{s!r} has id {i}, which a byte or a merge already uses")
        vocab[i] = s.encode("utf-8")
    pretokenizer = pattern_name(pattern) if pattern else "regex:" + WHOLE_TEXT
    return MergeTable("bytes", vocab, merges, specials, pretokenizer=pretokenizer, source_format=NAME, source=path)


def _renumber(table: MergeTable) -> tuple[list[tuple[int, int]], dict[str, int], dict[int, int]]:
    """minbpe's ids: merges as (id1, id2) in minbpe numbering, specials, old id -> new id."""
    if table.units != "bytes":
        raise BPEError("minbpe holds byte-level tables only; this table is chars")
    vocab = table.vocab
    new_id: dict[int, int] = {}
    for i, surface in vocab.items():
        if len(surface) == 1 and not table.is_special(i) and table.rank_of(i) is None:
            new_id[i] = surface[0]  # type: ignore[assignment]  # bytes mode: an int
    merges = []
    for rank, (a, b, new) in enumerate(table.merge_ids):
        if new in new_id:
            raise BPEError(f"merge {rank + 1} makes token {vocab[new]!r} again; minbpe gives every merge a new id")
        new_id[new] = 256 + rank
        merges.append((new_id[a], new_id[b]))
    next_id = 256 + len(merges)
    specials = {}
    for s, i in sorted(table.special_tokens.items(), key=lambda kv: kv[1]):
        if i not in new_id:
            new_id[i] = max(i, next_id)
            next_id = new_id[i] + 1
        specials[s] = new_id[i]
    return merges, specials, new_id


def losses(table: MergeTable) -> list[str]:
    out = []
    try:
        _, specials, new_id = _renumber(table)
    except BPEError as exc:
        return [str(exc)]
    moved = {i: j for i, j in new_id.items() if i != j}
    if moved:
        out.append(f"{len(moved)} token ids change (minbpe numbers merges 256 + n): " + ", ".join(f"{i}->{j}" for i, j in list(moved.items())[:8]))
    if table.counts:
        out.append("per-merge counts are not stored in a minbpe .model")
    for s in table.special_tokens:
        if any(c.isspace() for c in s):
            out.append(f"special token {s!r} contains whitespace; minbpe's reader cannot load it")
    return out


def write(table: MergeTable, path: str, overwrite: bool = True) -> None:
    merges, specials, _ = _renumber(table)
    pattern = "" if table.pretokenizer == "regex:" + WHOLE_TEXT else pattern_text(table.pretokenizer)
    if "\n" in pattern:
        raise BPEError(f"{path}: the pre-tokenizer regex contains a newline; a minbpe .model cannot hold it")
    lines = [MAGIC, pattern, str(len(specials))]
    lines += [f"{s} {i}" for s, i in specials.items()]
    lines += [f"{a} {b}" for a, b in merges]
    atomic_write_text(path, "\n".join(lines) + "\n", overwrite)

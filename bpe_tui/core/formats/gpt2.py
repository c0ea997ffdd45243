"""GPT-2's two files: ``vocab.json`` (token -> id) and ``merges.txt`` (one merge per line).

Both write tokens through GPT-2's byte -> printable-character map (``Ġ`` is a space, ``Ċ`` a
newline). ``merges.txt`` may start with a ``#version: 0.2`` line. A merge's rank is its line
order; in GPT-2's own files the merged token's id is 256 + its rank, and tokens left over in
the vocabulary (``<|endoftext|>``) are special tokens.

A path may name the directory holding both files, or either of the two files.
"""

from __future__ import annotations

import json
import os

from ..atomic import atomic_write_text
from ..errors import BPEError
from ..table import MergeTable
from ..units import bytes_to_gpt2_str, gpt2_str_to_bytes
from ._shared import build_table, read_json_object

NAME = "gpt2"


def locate(path: str) -> tuple[str, str]:
    """(vocab.json, merges.txt) paths for a directory or either file."""
    if os.path.isdir(path):
        return os.path.join(path, "vocab.json"), os.path.join(path, "merges.txt")
    directory = os.path.dirname(path)
    return os.path.join(directory, "vocab.json"), os.path.join(directory, "merges.txt")


def sniff(path: str) -> bool:
    vocab_path, merges_path = locate(path)
    if not (os.path.isfile(vocab_path) and os.path.isfile(merges_path)):
        return False
    if os.path.isfile(path) and os.path.basename(path) not in ("vocab.json", "merges.txt"):
        return False
    with open(vocab_path, "rb") as f:
        return f.read(64).lstrip().startswith(b"{")


def read(path: str) -> MergeTable:
    vocab_path, merges_path = locate(path)
    for p in (vocab_path, merges_path):
        if not os.path.isfile(p):
            raise BPEError(f"{p}: missing (a GPT-2 table needs vocab.json and merges.txt side by side)")
    raw_vocab = read_json_object(vocab_path, "a GPT-2 vocab.json mapping token -> id")
    vocab: dict[int, bytes] = {}
    for token, i in raw_vocab.items():
        if not isinstance(i, int):
            raise BPEError(f"{vocab_path}: key {token!r}: id {i!r} is not an integer")
        try:
            vocab[i] = gpt2_str_to_bytes(token)
        except KeyError:
            vocab[i] = token.encode("utf-8")  # an added token outside the byte alphabet
    merges = []
    with open(merges_path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            line = line.rstrip("\r\n")
            if lineno == 1 and line.startswith("#version"):
                continue
            if not line.strip():
                continue
            parts = line.split(" ")
            if len(parts) != 2:
                raise BPEError(f"{merges_path}:{lineno}: expected 2 tokens separated by one space, found {len(parts)}")
            try:
                merges.append((gpt2_str_to_bytes(parts[0]), gpt2_str_to_bytes(parts[1]), f"line {lineno}"))
            except KeyError:
                raise BPEError(f"{merges_path}:{lineno}: token outside GPT-2's byte alphabet in {line!r}") from None
    # Entries that are neither single bytes nor merge results (<|endoftext|>) are special tokens.
    results = {left + right for left, right, _ in merges}
    specials = {s.decode("utf-8", "replace"): i for i, s in vocab.items() if len(s) > 1 and s not in results}
    return build_table(merges_path, "bytes", vocab, merges, specials, source_format=NAME, pretokenizer="gpt2")


def write(table: MergeTable, path: str) -> None:
    """Write ``path/vocab.json`` and ``path/merges.txt`` (path is a directory, made if needed)."""
    if table.units != "bytes":
        raise BPEError(f"{path}: the gpt2 format holds byte-level tables only; this table is chars (use native)")
    if os.path.exists(path) and not os.path.isdir(path):
        raise BPEError(f"{path}: the gpt2 format writes a directory (vocab.json + merges.txt), and this is a file")
    os.makedirs(path, exist_ok=True)
    vocab = {}
    for i, surface in sorted(table.vocab.items()):
        key = surface.decode("utf-8") if table.is_special(i) else bytes_to_gpt2_str(surface)
        vocab[key] = i
    lines = ["#version: 0.2"]
    lines += [f"{bytes_to_gpt2_str(a)} {bytes_to_gpt2_str(b)}" for a, b in table.merges]
    atomic_write_text(os.path.join(path, "vocab.json"), json.dumps(vocab, ensure_ascii=False) + "\n")
    atomic_write_text(os.path.join(path, "merges.txt"), "\n".join(lines) + "\n")

"""bpe-tui's own format: one JSON file, versioned, lossless, readable.

::

    {
      "format": "bpe-tui merge table",
      "version": 2,
      "units": "bytes",                 # or "chars"
      "variant": "made by the variant ...",  # a variant from outside bpe-tui: which, and whether
                                        # encoding needs its module (config["variant"] has it too)
      "config": {...},                  # the TrainerConfig it was trained with
      "pretokenizer": "gpt2", "end_of_word": null, "lowercase": false,
      "special_tokens": {"<|endoftext|>": 256},
      "vocab": {"Ġthe": 300, ...},      # token -> id
      "merges": [["Ġ", "t", 1520], ...],# left, right, count (count null if unknown)
      "manual_ranks": [3, 17]           # 0-based ranks of merges chosen by hand
    }

Version history: 1 had no ``manual_ranks`` (version 1 files still load: no merge by hand);
2 added it; 3 is written for a table of the picky setup (PickyBPE): its ``config`` holds
``word_start`` (``▁``, put in front of every word) and ``removals`` (``[k, token id, [part
ids]]`` right after merge k, replayed with the merges when encoding), and ``vocab`` the tokens
removed for good as well (merges and removals name them), numbered after the others, as the
reference numbers them (see :meth:`MergeTable.renumbered`). 4 is written for a BoundlessBPE
table: its ``config`` holds ``supermerges`` (the 1-based numbers of the merges that join whole
pre-tokens, applied after the words are encoded), ``removals`` (its deletions, as above, the
deleted tokens keeping their ids) and ``deletions`` (``bytes`` or ``pair``: how they split).

In bytes mode tokens are written through GPT-2's byte -> printable-character map (space is
``Ġ``), so every byte sequence is representable and the file stays readable; in chars mode
tokens are written as they are.
"""

from __future__ import annotations

import json
from typing import Any, Final

from ...atomic import atomic_write_text
from ...engine.registry import about_variant
from ...engine.units import bytes_to_gpt2_str, gpt2_str_to_bytes
from ...errors import BPEError
from ...types import Surface
from ..table import MergeTable
from ._shared import build_table, check_new_id, read_json_object, short

NAME: Final = "native"
MAGIC = "bpe-tui merge table"
VERSION = 2
#: The version of a file an older reader must not take: a table of the picky setup.
PICKY_VERSION = 3
#: The version of a BoundlessBPE table (older readers would encode it without its supermerges).
BOUNDLESS_VERSION = 4
#: Versions this reader understands.
READS = (1, 2, 3, 4)


def sniff(path: str) -> bool:
    if not path.endswith(".json") and not _starts_with_brace(path):
        return False
    with open(path, "rb") as f:
        head = f.read(4096)
    return MAGIC.encode() in head


def _starts_with_brace(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(64).lstrip().startswith(b"{")
    except (OSError, IsADirectoryError):
        return False


def losses(table: MergeTable) -> list[str]:
    """Nothing: the native format holds all a MergeTable holds (the reason it exists)."""
    return []


def write(table: MergeTable, path: str, overwrite: bool = True) -> None:
    table = table.renumbered()  # (PickyBPE's: the reference's numbering)
    specials = set(table.special_tokens.values())

    def enc(surface: Surface) -> str:
        return bytes_to_gpt2_str(surface) if isinstance(surface, bytes) else surface

    vocab = table.vocab
    vocab.update({i: table.surface(i) for i in table.removed})
    counts: list[int | None] = [*table.counts] if table.counts else [None] * table.num_merges
    data = {
        "format": MAGIC,
        "version": BOUNDLESS_VERSION if table.is_boundless else PICKY_VERSION if table.removals or table.word_start is not None else VERSION,
        "units": table.units,
        **({"variant": about_variant(table.config["variant"])} if isinstance(table.config.get("variant"), dict) else {}),
        "config": table.config,
        "pretokenizer": table.pretokenizer,
        "end_of_word": table.end_of_word,
        "lowercase": table.lowercase,
        "special_tokens": table.special_tokens,
        "vocab": {enc(s): i for i, s in sorted(vocab.items()) if i not in specials},
        "merges": [[enc(vocab[a]), enc(vocab[b]), c] for (a, b, _), c in zip(table.merge_ids, counts)],
        "manual_ranks": sorted(table.manual_ranks),
    }
    text = json.dumps(data, ensure_ascii=False, indent=1)
    atomic_write_text(path, text + "\n", overwrite)


def read(path: str) -> MergeTable:
    data = read_json_object(path, "a bpe-tui merge table")
    if data.get("format") != MAGIC:
        raise BPEError(f"{path}: not a bpe-tui merge table (key 'format' is not {MAGIC!r})")
    version = data.get("version")
    if version not in READS or isinstance(version, bool):
        raise BPEError(f"{path}: unknown version {version!r} (key 'version'; this bpe-tui reads versions {', '.join(map(str, READS))})")
    for key in ("units", "vocab", "merges"):
        if key not in data:
            raise BPEError(f"{path}: key {key!r} is missing")
    units = data["units"]
    if units not in ("bytes", "chars"):
        raise BPEError(f"{path}: key 'units' must be 'bytes' or 'chars', not {units!r}")
    bytes_mode = units == "bytes"

    def dec(token: object, where: str) -> Surface:
        if not isinstance(token, str):
            raise BPEError(f"{path}: {where}: token {token!r} is not a string")
        if not bytes_mode:
            return token
        try:
            return gpt2_str_to_bytes(token)
        except KeyError:
            raise BPEError(f"{path}: {where}: token {token!r} is not in GPT-2's byte alphabet") from None

    vocab_json = data["vocab"]
    if not isinstance(vocab_json, dict):
        raise BPEError(f"{path}: key 'vocab' must map token -> id")
    vocab: dict[int, Any] = {}  # all bytes or all str, as units says
    for token, i in vocab_json.items():
        check_new_id(path, f"vocab[{short(token)}]", i, vocab)
        vocab[i] = dec(token, f"vocab[{token!r}]")
    specials = data.get("special_tokens") or {}
    if not isinstance(specials, dict):
        raise BPEError(f"{path}: special_tokens: expected an object mapping token -> id, found {type(specials).__name__}")
    for s, i in specials.items():
        if not s or not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise BPEError(f"{path}: special_tokens[{short(s)}]: needs a non-empty token and an id of 0 or more, not {short(i)}")
        if i in vocab:
            raise BPEError(f"{path}: special_tokens[{s!r}]: id {i} is also a vocab id")
        vocab[i] = s.encode("utf-8") if bytes_mode else s
    config = data.get("config") or {}
    if not isinstance(config, dict):
        raise BPEError(f"{path}: config: expected an object, found {type(config).__name__}")
    for key, kind in (("pretokenizer", str), ("end_of_word", str), ("lowercase", bool)):
        if data.get(key) is not None and not isinstance(data[key], kind):
            raise BPEError(f"{path}: {key}: expected {kind.__name__}, found {short(data[key])}")
    if not isinstance(data["merges"], list):
        raise BPEError(f"{path}: merges: expected a list of [left, right, count], found {type(data['merges']).__name__}")
    merges = []
    counts: list[int] = []
    for n, entry in enumerate(data["merges"]):
        where = f"merges[{n}]"
        if not isinstance(entry, list) or len(entry) not in (2, 3):
            raise BPEError(f"{path}: {where}: expected [left, right, count]")
        merges.append((dec(entry[0], where), dec(entry[1], where), where))
        count = entry[2] if len(entry) == 3 else None
        if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 0):
            raise BPEError(f"{path}: {where}[2]: count {short(count)} is not a whole number")
        if count is not None:
            counts.append(count)
    manual = data.get("manual_ranks", [])
    if not isinstance(manual, list):
        raise BPEError(f"{path}: manual_ranks: expected a list of merge ranks, found {type(manual).__name__}")
    for n, rank in enumerate(manual):
        if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank < len(merges):
            raise BPEError(f"{path}: manual_ranks[{n}]: {short(rank)} is not the rank of a merge (0 to {len(merges) - 1})")
    if len(set(manual)) != len(manual):
        raise BPEError(f"{path}: manual_ranks: a rank is listed twice")
    table = build_table(
        path,
        units,
        vocab,
        merges,
        specials,
        source_format=NAME,
        pretokenizer=data.get("pretokenizer") or "gpt2",
        end_of_word=data.get("end_of_word"),
        lowercase=bool(data.get("lowercase")),
        counts=counts if len(counts) == len(merges) else None,
        config=config,
    )
    table.manual_ranks = frozenset(manual)
    return table

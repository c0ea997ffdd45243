"""tiktoken rank files (``.tiktoken``): one ``base64(token) rank`` line per token, no merges.

::

    IQ== 0          # b"!"  has rank (= id) 0
    Ig== 1
    ...
    IHRoZQ== 464    # b" the"

tiktoken encodes by repeatedly merging the adjacent pair whose *concatenation* has the lowest
rank. The file lists no merges, so we rebuild them: for every token of two or more bytes, in
rank order, run that same algorithm over the token's bytes using only the lower ranks; it stops
at two parts ``(left, right)``, and that is the merge that makes the token. (Splitting a token
naively, say at its longest known prefix, gives the wrong pair for thousands of GPT-2 tokens.)
A token the replay cannot reach in two parts is replayed again with every other token (its
parts may rank above it: see :func:`rebuild_merges`); what still cannot be reached is emitted
only by the whole-pre-token lookup below, and listed in ``config["notes"]``.

The file does not say which pre-tokenizer regex or special tokens go with it, and encoding
differs from merge-list BPE in one way: tiktoken emits a pre-token that is itself a token
whole, merges or not. The reader recognises the published files (OpenAI's, Llama 3, Whisper,
Qwen: see ``tiktoken_known.py``) and adds their regex and special tokens; any other file gets
GPT-2's regex and no special tokens. ``config["ignore_merges"]`` turns on the whole-pre-token
lookup, and ``config["notes"]`` says what was recognised and assumed.

Writing needs a byte-level table whose ids are usable as ranks: every merged token's id above
its parts' ids (true of every table bpe-tui trains). Special tokens are not stored (tiktoken
takes them as an argument); :func:`losses` says so.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import sys
from typing import Final

from ..atomic import atomic_write_text
from ..merging import HEAP_FROM, merge_heap
from ..errors import BPEError
from ..table import MergeTable
from ._shared import fail, read_head
from . import merges_cache
from .tiktoken_known import DEFAULT, identify

NAME: Final = "tiktoken"

def sniff(path: str) -> bool:
    head = read_head(path, 4096)
    if not head:
        return False
    lines = head.split(b"\n")
    if len(lines) > 1:
        lines = lines[:-1]  # the last one may be cut off
    lines = [line for line in lines if line.strip()][:20]
    if not lines:
        return False
    for line in lines:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            return False
        try:
            base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            return False
    return True


def read(path: str) -> MergeTable:
    with open(path, "rb") as f:
        data = f.read()
    by_rank, empty = _parse(path, data)
    ranks = {token: rank for rank, token in by_rank.items()}
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise fail(path, None, f"the single byte {bytes([missing[0]])!r} has no rank ({len(missing)} of 256 bytes missing); a tiktoken file ranks every byte")

    sha = hashlib.sha256(data).hexdigest()
    known, how = identify(sha, len(by_rank) + len(empty))
    notes = [how + ": " + _what_was_added(known), *known.notes]
    notes.append("a pre-token that is itself a token is emitted whole, as tiktoken does, even where no merge builds it")
    cached = merges_cache.load(sha)
    if cached is None:
        merges, unreachable = rebuild_merges(by_rank)
        merges_cache.store(sha, merges, unreachable)
    else:
        merges, unreachable = cached
    if unreachable:
        shown = ", ".join(repr(by_rank[r]) for r in unreachable[:5])
        notes.append(f"{len(unreachable)} tokens no merge builds (tiktoken's BPE over their bytes ends in more than two parts); only a whole pre-token emits them: {shown}")
    if empty:
        notes.append(f"the file ranks the empty token (rank {empty[0]}); it is kept for decoding and never produced")
    vocab: dict = dict(by_rank)
    vocab.update({r: b"" for r in empty})
    specials = {s: i for s, i in known.special_tokens.items() if i not in vocab}
    for s, i in specials.items():
        vocab[i] = s.encode("utf-8")
    return MergeTable(
        "bytes", vocab, merges, specials, pretokenizer=known.pretokenizer,
        config={"notes": notes, "ignore_merges": True, "encoding": known.name}, source_format=NAME, source=path,
    )


def _what_was_added(known) -> str:
    if known is DEFAULT:
        return "using GPT-2's regex and no special tokens"
    return f"its regex and {len(known.special_tokens):,} special tokens were added"


def _parse(path: str, data: bytes) -> tuple[dict[int, bytes], list[int]]:
    """``rank -> token`` of every line, and the ranks of empty tokens (Whisper's ``=``).

    A well-formed file is read in a few C-level passes, as fast as tiktoken reads it; on
    anything unusual the careful line-by-line reader says what is wrong and where.
    """
    if sys.version_info < (3, 11):  # a2b_base64's strict_mode is 3.11's: older take the careful reader
        return _parse_checked(path, data)
    try:
        pairs = [line.split() for line in data.splitlines() if line.strip()]
        if pairs and all(len(p) == 2 and p[1].isdigit() and p[0].strip(b"=") for p in pairs):
            tokens = [binascii.a2b_base64(p[0], strict_mode=True) for p in pairs]
            ranks = [int(p[1]) for p in pairs]
            by_rank = dict(zip(ranks, tokens))
            if len(by_rank) == len(pairs) == len(set(tokens)):
                return by_rank, []
    except (binascii.Error, ValueError):
        pass
    return _parse_checked(path, data)


def _parse_checked(path: str, data: bytes) -> tuple[dict[int, bytes], list[int]]:
    """:func:`_parse`, line by line, with a one-line error naming the first bad line."""
    by_rank: dict[int, bytes] = {}
    seen: dict[bytes, int] = {}
    empty: list[int] = []
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        parts = line.split()
        where = f"line {lineno}"
        if len(parts) != 2:
            raise fail(path, where, f"expected 'base64 rank', found {len(parts)} fields")
        if not parts[1].isdigit():
            raise fail(path, where, f"rank {parts[1][:20].decode('latin-1')!r} is not a non-negative integer")
        rank = int(parts[1])
        if rank in by_rank or rank in empty:
            raise fail(path, where, f"rank {rank} is used twice")
        if parts[0].strip(b"=") == b"":  # base64 of the empty token, as tiktoken reads it
            empty.append(rank)
            continue
        try:
            token = base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            raise fail(path, where, f"bad base64 {parts[0][:40].decode('latin-1')!r}") from None
        if token in seen:
            raise fail(path, where, f"token {token!r} is listed twice (ranks {seen[token]} and {rank})")
        seen[token] = rank
        by_rank[rank] = token
    if not by_rank:
        raise fail(path, None, "empty file: no ranks")
    return by_rank, empty


def rebuild_merges(by_rank: dict[int, bytes]) -> tuple[list[tuple[int, int, int]], list[int]]:
    """``(left_id, right_id, new_id)`` merges in rank order, and the ranks no merge makes.

    Each token of two or more bytes is encoded with the ranks below its own, exactly as
    tiktoken would (lowest-ranked concatenation first, leftmost on ties); the two parts it
    ends with form its merge. A few tables (Llama 3's) hold tokens this replay cannot reach
    in two parts; tiktoken still makes such a token when its two parts meet inside a longer
    pre-token, parts that may themselves rank *above* it. For those the replay runs again with
    every other token, and the merge it ends with is ranked where the token is. What is left
    is listed as unreachable: only the whole-pre-token lookup emits those.
    """
    ranks: dict[bytes, int] = {}
    made: dict[int, tuple[int, int, int]] = {}
    stuck = []
    for rank in sorted(by_rank):
        token = by_rank[rank]
        if len(token) > 1:
            parts = _bpe(token, ranks)
            if len(parts) == 2:
                made[rank] = (ranks[parts[0]], ranks[parts[1]], rank)
            else:
                stuck.append(rank)
        ranks[token] = rank
    unreachable = []
    for rank in stuck:
        token = by_rank[rank]
        del ranks[token]  # every other token may take part, not this one
        parts = _bpe(token, ranks)
        ranks[token] = rank
        if len(parts) == 2:
            made[rank] = (ranks[parts[0]], ranks[parts[1]], rank)
        else:
            unreachable.append(rank)
    return [made[r] for r in sorted(made)], unreachable


def _bpe(token: bytes, ranks: dict[bytes, int]) -> list[bytes]:
    """tiktoken's merge loop over the ranks so far, stopping at two parts (O(n log n) for long
    tokens: see :mod:`~bpe_tui.core.merging`)."""

    parts = [token[i : i + 1] for i in range(len(token))]
    if len(parts) >= HEAP_FROM:

        def pair_rank(left: bytes, right: bytes):
            joined = left + right
            rank = ranks.get(joined)
            return None if rank is None else (rank, joined)

        return merge_heap(parts, pair_rank, stop_at=2)
    while len(parts) > 2:
        best = None
        best_i = -1
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and (best is None or r < best):
                best, best_i = r, i
        if best is None:
            break
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return parts


# ---------------------------------------------------------------------- writing


def losses(table: MergeTable) -> list[str]:
    out = []
    if table.special_tokens:
        out.append(
            "special tokens are not stored in a tiktoken file; pass them to tiktoken.Encoding(special_tokens=...): "
            + ", ".join(f"{s}={i}" for s, i in table.special_tokens.items())
        )
    if table.counts:
        out.append("per-merge counts are not stored in a tiktoken file")
    out.append(f"the pre-tokenizer ({table.pretokenizer}) is not stored; pass its regex as pat_str")
    return out


def write(table: MergeTable, path: str, overwrite: bool = True) -> None:
    """Write ``base64 rank`` lines, ranks = our ids (checked to be a valid rank order)."""
    if table.units != "bytes":
        raise BPEError(f"{path}: a tiktoken file holds byte-level tables only; this table is chars")
    vocab = table.vocab
    lines = []
    last = -1
    made = set()
    for a, b, new in table.merge_ids:
        if new in made:
            raise BPEError(f"{path}: token {vocab[new]!r} is made by two merges; a tiktoken file cannot say that")
        made.add(new)
        if new <= last:
            raise BPEError(f"{path}: token ids do not follow the merge order (id {new} comes after id {last}); they cannot be ranks")
        last = new
    seen: dict[bytes, int] = {}
    for i, surface in sorted(vocab.items()):
        if not (i in made or (len(surface) == 1 and not table.is_special(i))):
            continue  # special tokens, and tokens no merge makes (tiktoken would build them)
        if surface in seen:
            raise BPEError(f"{path}: token {surface!r} has two ids ({seen[surface]} and {i})")
        seen[surface] = i
        lines.append(f"{base64.b64encode(surface).decode('ascii')} {i}")
    if len([s for s in seen if len(s) == 1]) != 256:
        raise BPEError(f"{path}: a tiktoken file needs all 256 single bytes; this table has {len([s for s in seen if len(s) == 1])}")
    atomic_write_text(path, "\n".join(lines) + "\n", overwrite)

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
A token the replay cannot reach in two parts is one tiktoken itself never produces; it is kept
in the vocabulary (for decoding) and listed in ``config["notes"]``.

The file does not say which pre-tokenizer regex or special tokens go with it. We recognise
OpenAI's three public files by size (50,256 ranks: GPT-2/r50k, 100,256: cl100k, 199,998:
o200k) and add their regex and special tokens; any other file gets GPT-2's regex and no
special tokens (``config["notes"]`` says so).

Writing needs a byte-level table whose ids are usable as ranks: every merged token's id above
its parts' ids (true of every table bpe-tui trains). Special tokens are not stored (tiktoken
takes them as an argument); :func:`losses` says so.
"""

from __future__ import annotations

import base64
import binascii

from ..atomic import atomic_write_text
from ..merging import HEAP_FROM, merge_heap
from ..errors import BPEError
from ..table import MergeTable
from ._shared import fail, read_head

NAME = "tiktoken"

#: OpenAI's public rank files, recognised by their number of ranks.
KNOWN = {
    50256: ("gpt2", {"<|endoftext|>": 50256}),
    100256: (
        "gpt4",
        {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
    ),
    199998: ("o200k", {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
}


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
    ranks: dict[bytes, int] = {}
    by_rank: dict[int, bytes] = {}
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            line = raw.strip()
            if not line:
                continue
            parts = line.split()
            where = f"line {lineno}"
            if len(parts) != 2:
                raise fail(path, where, f"expected 'base64 rank', found {len(parts)} fields")
            try:
                token = base64.b64decode(parts[0], validate=True)
            except (binascii.Error, ValueError):
                raise fail(path, where, f"bad base64 {parts[0].decode('latin-1')!r}") from None
            if not parts[1].isdigit():
                raise fail(path, where, f"rank {parts[1].decode('latin-1')!r} is not a non-negative integer")
            rank = int(parts[1])
            if not token:
                raise fail(path, where, "empty token")
            if token in ranks:
                raise fail(path, where, f"token {token!r} is listed twice (ranks {ranks[token]} and {rank})")
            if rank in by_rank:
                raise fail(path, where, f"rank {rank} is used twice")
            ranks[token] = rank
            by_rank[rank] = token
    if not ranks:
        raise fail(path, None, "empty file: no ranks")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise fail(path, None, f"the single byte {bytes([missing[0]])!r} has no rank ({len(missing)} of 256 bytes missing); a tiktoken file ranks every byte")

    merges, unreachable = rebuild_merges(by_rank)
    notes = []
    if unreachable:
        shown = ", ".join(repr(by_rank[r]) for r in unreachable[:5])
        notes.append(f"{len(unreachable)} tokens are unreachable by BPE (kept for decoding only): {shown}")
    known = KNOWN.get(len(ranks))
    if known is not None:
        pretokenizer, specials = known
        notes.append(f"recognised by size as OpenAI's {pretokenizer} ranks: its regex and special tokens were added")
    else:
        pretokenizer, specials = "gpt2", {}
        notes.append("the file does not record a pre-tokenizer or special tokens: using GPT-2's regex, no specials")
    vocab: dict = dict(by_rank)
    specials = {s: i for s, i in specials.items() if i not in vocab}
    for s, i in specials.items():
        vocab[i] = s.encode("utf-8")
    return MergeTable(
        "bytes", vocab, merges, specials, pretokenizer=pretokenizer,
        config={"notes": notes}, source_format=NAME, source=path,
    )


def rebuild_merges(by_rank: dict[int, bytes]) -> tuple[list[tuple[int, int, int]], list[int]]:
    """``(left_id, right_id, new_id)`` merges in rank order, and the unreachable ranks.

    Each token of two or more bytes is encoded with the ranks below its own, exactly as
    tiktoken would (lowest-ranked concatenation first, leftmost on ties); the two parts it
    ends with form its merge.
    """
    ranks: dict[bytes, int] = {}
    merges = []
    unreachable = []
    for rank in sorted(by_rank):
        token = by_rank[rank]
        if len(token) > 1:
            parts = _bpe(token, ranks)
            if len(parts) == 2:
                merges.append((ranks[parts[0]], ranks[parts[1]], rank))
            else:
                unreachable.append(rank)
        ranks[token] = rank
    return merges, unreachable


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

"""tiktoken rank files (``.tiktoken``): one ``base64(token) rank`` line per token, no merges.

::

    IQ== 0          # b"!"  has rank (= id) 0
    Ig== 1
    ...
    IHRoZQ== 464    # b" the"

tiktoken encodes by repeatedly merging the adjacent pair whose *concatenation* has the lowest
rank, and so does the table this reader returns (``config["merge_by"]``, see
:mod:`~bpe_tui.core.engine.merging`): opening a file is reading it, as fast as tiktoken's own loader.

The file lists no merges, and the views that show them (history, traces, merge trees, audits,
saving to a format with merges) need them, so the table rebuilds them when first asked
(:meth:`MergeTable.build_merges`, with progress and cancel for a UI): for every token of two or
more bytes, in rank order, run tiktoken's algorithm over the token's bytes using only the lower
ranks; it stops at two parts ``(left, right)``, and that is the merge that makes the token.
(Splitting a token naively, say at its longest known prefix, gives the wrong pair for thousands
of GPT-2 tokens.) A token the replay cannot reach in two parts is replayed again with every
other token (its parts may rank above it: see :func:`rebuild_merges`); what still cannot be
reached is emitted only by the whole-pre-token lookup below, and listed in ``config["notes"]``.
The result is kept in a cache (``merges_cache.py``), so the next build is a read.

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

from ...atomic import atomic_write_text
from ...engine.merging import merge
from ...engine.units import visible
from ...errors import BPEError
from ...wording import plural
from ..ranks import mergeable_ranks, rank_rule_problem
from ..table import BY_TOKEN_RANK, Cancelled, MergeTable, Progress
from . import merges_cache
from ._shared import fail, read_head
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
    singles = {token for token in by_rank.values() if len(token) == 1}
    missing = [b for b in range(256) if bytes([b]) not in singles]
    if missing:
        raise fail(path, None, f"the single byte {bytes([missing[0]])!r} has no rank ({len(missing)} of 256 bytes missing); a tiktoken file ranks every byte")

    sha = hashlib.sha256(data).hexdigest()
    known, how = identify(sha, len(by_rank) + len(empty))
    notes = [how + ": " + _what_was_added(known), *known.notes]
    notes.append("a pre-token that is itself a token is emitted whole, as tiktoken does, even where no merge builds it")
    if empty:
        notes.append(f"the file ranks the empty token (rank {empty[0]}); it is kept for decoding and never produced")
    vocab: dict = dict(by_rank)
    vocab.update({r: b"" for r in empty})
    specials = {s: i for s, i in known.special_tokens.items() if i not in vocab}
    for s, i in specials.items():
        vocab[i] = s.encode("utf-8")
    return MergeTable(
        "bytes", vocab, RankFileMerges(sha, by_rank), specials, pretokenizer=known.pretokenizer,
        config={"notes": notes, "ignore_merges": True, "merge_by": BY_TOKEN_RANK, "encoding": known.name},
        source_format=NAME, source=path,
    )


class RankFileMerges:
    """A rank file's :data:`~bpe_tui.core.tables.table.MergeBuilder`: the merges from the
    cache, else rebuilt by replay (and cached), with a note on the tokens no merge builds.
    A class, not a closure, so that a table holding it pickles (worker processes)."""

    def __init__(self, sha: str, by_rank: dict[int, bytes]):
        self.sha = sha
        self.by_rank = by_rank

    def __call__(self, progress: Progress | None, cancelled: Cancelled | None) -> tuple[list[tuple[int, int, int]], list[str]] | None:
        by_rank = self.by_rank
        cached = merges_cache.load(self.sha)
        if cached is None:
            rebuilt = rebuild_merges(by_rank, progress, cancelled)
            if rebuilt is None:
                return None
            merges_cache.store(self.sha, *rebuilt)
        else:
            rebuilt = cached
        merges, unreachable = rebuilt
        notes = []
        if unreachable:
            shown = ", ".join(visible(by_rank[r]) for r in unreachable[:5]) + (", …" if len(unreachable) > 5 else "")
            notes.append(f"{plural(len(unreachable), 'token')} no merge builds (tiktoken's BPE over their bytes ends in more than two parts); only a whole pre-token emits them: {shown}")
        return merges, notes


def _what_was_added(known) -> str:
    if known is DEFAULT:
        return "using GPT-2's regex and no special tokens (a rank file records neither; --pretokenizer and --special override)"
    specials = plural(len(known.special_tokens), "special token")
    return f"its regex and {specials} were added" if known.special_tokens else "its regex was added (it has no special tokens)"


def _parse(path: str, data: bytes) -> tuple[dict[int, bytes], list[int]]:
    """``rank -> token`` of every line, and the ranks of empty tokens (Whisper's ``=``).

    A well-formed file is read in a few C-level passes (one split of the whole file, then
    ``map``), faster than tiktoken's own loader; on anything unusual the careful line-by-line
    reader says what is wrong and where.
    """
    if sys.version_info < (3, 11):  # a2b_base64's strict_mode is 3.11's: older take the careful reader
        return _parse_checked(path, data)
    fields = data.split()
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if fields and len(fields) == 2 * lines:  # two fields on every line, no blank line
        texts, numbers = fields[0::2], fields[1::2]
        try:
            if all(map(bytes.isdigit, numbers)):
                tokens = list(map(_strict_base64, texts))  # "=" (the empty token) is refused here
                ranks = list(map(int, numbers))
                by_rank = dict(zip(ranks, tokens))
                if len(by_rank) == len(tokens) == len(set(tokens)):
                    return by_rank, []
        except (binascii.Error, ValueError):
            pass
    return _parse_checked(path, data)


def _strict_base64(text: bytes) -> bytes:
    """``text`` decoded as base64, refusing anything but the alphabet and its padding (Python
    3.11's strict mode; _parse sends older Pythons to the careful reader)."""
    if sys.version_info >= (3, 11):
        return binascii.a2b_base64(text, strict_mode=True)
    raise binascii.Error("strict base64 decoding needs Python 3.11")


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


def rebuild_merges(
    by_rank: dict[int, bytes], progress: Progress | None = None, cancelled: Cancelled | None = None
) -> tuple[list[tuple[int, int, int]], list[int]] | None:
    """``(left_id, right_id, new_id)`` merges in rank order, and the ranks no merge makes.

    Each token of two or more bytes is encoded with the ranks below its own, exactly as
    tiktoken would (lowest-ranked concatenation first, leftmost on ties: the one merge loop,
    by token rank, stopped at two parts); the two parts it ends with form its merge. A few
    tables (Llama 3's) hold tokens this replay cannot reach in two parts; tiktoken still makes
    such a token when its two parts meet inside a longer pre-token, parts that may themselves
    rank *above* it. For those the replay runs again with every other token, and the merge it
    ends with is ranked where the token is. What is left is listed as unreachable: only the
    whole-pre-token lookup emits those.

    ``progress(done, total)`` is called every few thousand tokens; when ``cancelled()`` says
    so, the replay stops and returns None.
    """
    ranks: dict[bytes, int] = {}
    made: dict[int, tuple[int, int, int]] = {}
    stuck = []
    total = len(by_rank)
    for done, rank in enumerate(sorted(by_rank)):
        if done % 4096 == 0:
            if cancelled is not None and cancelled():
                return None
            if progress is not None:
                progress(done, total)
        token = by_rank[rank]
        if len(token) > 1:
            parts = merge([token[i : i + 1] for i in range(len(token))], ranks, stop_at=2)
            if len(parts) == 2:
                made[rank] = (ranks[parts[0]], ranks[parts[1]], rank)
            else:
                stuck.append(rank)
        ranks[token] = rank
    unreachable = []
    for rank in stuck:
        token = by_rank[rank]
        del ranks[token]  # every other token may take part, not this one
        parts = merge([token[i : i + 1] for i in range(len(token))], ranks, stop_at=2)
        ranks[token] = rank
        if len(parts) == 2:
            made[rank] = (ranks[parts[0]], ranks[parts[1]], rank)
        else:
            unreachable.append(rank)
    if progress is not None:
        progress(total, total)
    return [made[r] for r in sorted(made)], unreachable


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
    if table.units == "bytes":
        try:
            differs = rank_rule_problem(table, mergeable_ranks(table, table.source or "table"))
        except BPEError:
            differs = None  # write says what stops it
        if differs is not None:
            out.append(f"tiktoken (and bpe-tui reading the file) encodes by rank, otherwise than this merge list: {differs}")
    return out


def write(table: MergeTable, path: str, overwrite: bool = True) -> None:
    """Write ``base64 rank`` lines, ranks = our ids (see :func:`~bpe_tui.core.tables.ranks.mergeable_ranks`)."""
    if table.units != "bytes":
        raise BPEError(f"{path}: a tiktoken file holds byte-level tables only; this table is chars")
    ranks = mergeable_ranks(table, path)
    lines = [f"{base64.b64encode(token).decode('ascii')} {rank}" for token, rank in ranks.items()]
    atomic_write_text(path, "\n".join(lines) + "\n", overwrite)

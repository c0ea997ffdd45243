"""A table's tokens as tiktoken's ranks (``mergeable_ranks``: token bytes -> rank), or why not.

tiktoken merges the adjacent pair whose concatenation is the token of the lowest rank, so a
table hands itself over as ranks when its ids can be those ranks: a byte-level table whose
every merged token's id is above the ids of the tokens merged before it, each made by one
merge, and every single byte has a token. A table that already encodes by token rank (a rank
file read) is its ranks as they are. Special tokens are not ranks (tiktoken takes them apart).

Used by the tiktoken format's writer and by :meth:`MergeTable.to_tiktoken`; the rule is here
once. (Reads the table through the names in :class:`RankSource`: the table's module imports
this one.)
"""

from __future__ import annotations

from typing import Protocol

from ..engine.merging import merge
from ..errors import BPEError
from ..types import Surface


class RankSource(Protocol):
    """What this module reads of a MergeTable."""

    units: str
    by_token_rank: bool
    special_tokens: dict[str, int]

    @property
    def vocab(self) -> dict[int, Surface]: ...

    @property
    def merge_ids(self) -> list[tuple[int, int, int]]: ...

    def is_special(self, token_id: int) -> bool: ...


def mergeable_ranks(table: RankSource, where: str = "table") -> dict[bytes, int]:
    """``token bytes -> rank`` (= id) of the table's ordinary tokens, in rank order; a
    one-line BPEError (naming ``where``) when the ids cannot be ranks."""
    if table.units != "bytes":
        raise BPEError(f"{where}: tiktoken's ranks are byte-level tokens; this table is chars")
    vocab = table.vocab
    special_ids = set(table.special_tokens.values())
    if table.by_token_rank:  # (a rank file's own ranks: merges or not, tiktoken builds them)
        keep = sorted(i for i in vocab if i not in special_ids and vocab[i])  # (not Whisper's empty token)
    else:
        made: set[int] = set()
        last = -1
        for _, _, new in table.merge_ids:
            if new in made:
                raise BPEError(f"{where}: token {vocab[new]!r} is made by two merges; tiktoken's ranks cannot say that")
            made.add(new)
            if new <= last:
                raise BPEError(f"{where}: token ids do not follow the merge order (id {new} comes after id {last}); they cannot be ranks")
            last = new
        # (a token no merge makes and no single byte is left out: tiktoken would build it)
        keep = [i for i in sorted(vocab) if i in made or (len(vocab[i]) == 1 and i not in special_ids)]
    ranks: dict[bytes, int] = {}
    for i in keep:
        surface = vocab[i]
        assert isinstance(surface, bytes)  # a bytes table
        if surface in ranks:
            raise BPEError(f"{where}: token {surface!r} has two ids ({ranks[surface]} and {i})")
        ranks[surface] = i
    singles = sum(1 for s in ranks if len(s) == 1)
    if singles != 256:
        raise BPEError(f"{where}: tiktoken's ranks need all 256 single bytes; this table has {singles}")
    return ranks


def rank_rule_problem(table: RankSource, ranks: dict[bytes, int]) -> str | None:
    """Where tiktoken's rule would encode differently from the table's merge list, or None.

    tiktoken merges adjacent parts whenever their concatenation is a token (lowest rank
    first), the merge list only the pairs it lists; the two agree when each merged token's
    bytes reach that token both ways. A token the merge list does not reach from its own bytes
    (its parts are taken by an earlier merge: a merge chosen by hand, a table read from a file),
    or that tiktoken's rule does not reach, is named. (A table that encodes by token rank is
    tiktoken's rule itself: None.)"""
    if table.by_token_rank:
        return None
    vocab = table.vocab
    pair_ranks: dict[tuple[int, int], int] = {}
    made: dict[tuple[int, int], int] = {}
    for rank, (a, b, new) in enumerate(table.merge_ids):
        pair_ranks.setdefault((a, b), rank)
        made.setdefault((a, b), new)
    base = {token[0]: i for token, i in ranks.items() if len(token) == 1}
    for _, _, new in table.merge_ids:
        data = vocab[new]
        assert isinstance(data, bytes)  # a bytes table
        by_list = merge([base[b] for b in data], pair_ranks, made)
        by_rank = merge([data[k : k + 1] for k in range(len(data))], ranks)
        if by_list != [new] or by_rank != [data]:
            return (
                f"token {data!r} (id {new}): its bytes merge into {len(by_list)} token(s) by the table's merge list "
                f"and {len(by_rank)} by tiktoken's rule, not into the token itself both ways"
            )
    return None

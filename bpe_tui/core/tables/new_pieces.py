"""The pre-tokens an encoder meets for the first time: how they become ids, and the loop over a
text's pre-tokens that finds the others in the pieces cache.

Text repeats its words, so the encoder keeps each pre-token's ids in a pieces cache
(:class:`~bpe_tui.core.engine.merging.PieceCache`); what costs time is the rest, the pre-tokens
the cache does not hold yet: each is turned into its base symbols and merged. :class:`NewPieces`
does that work for an :class:`~bpe_tui.core.tables.encoder.Encoder` in one of two ways, with the
same ids (``tests/core/test_merge_core.py`` holds them to each other on random text and on every
kind of table):

* **pure Python**: :meth:`NewPieces.pure`, the fast forms of the merge loop
  (:func:`~bpe_tui.core.engine.merging.merge_pairs` by merge list,
  :func:`~bpe_tui.core.engine.merging.merge_bytes` by token rank), a pre-token at a time, and
  ``map(cache.__getitem__, words)`` over a text's pre-tokens;
* **compiled**: the C extension of :mod:`~bpe_tui.core.engine.merge_core`, whose ``Merger``
  holds the table's indices in C and runs the same steps, the loop over a text's pre-tokens
  included (``Merger.encode_words``). For a bytes table it makes the base symbols too; for a
  chars table it asks :meth:`NewPieces.chars` (base symbols in Python, merged in C); a table
  with removals (PickyBPE) is worked out by :meth:`NewPieces.pure` (its replay in C: the
  core's ``Replayer``, see removals.py), and a BoundlessBPE table's
  pre-tokens by its compiled supermerges, given a ``Merger`` of its word merges
  (:meth:`NewPieces.word_merger`; see boundless.py). One shortcut is its own: a
  pre-token that is itself a token, where the table emits it whole (``ignore_merges``) or its
  bytes merge into it (found out once per token), is looked up in the token index without the
  cache, which would hold the same one id for it.

Nothing else in bpe-tui knows which way ran. A pre-token longer than the limit on one
pre-token (:data:`~bpe_tui.core.limits.PRETOKEN`) is refused the same way on both paths, with
one line naming the limit; below it, a long pre-token with no split point costs O(n log n) time
on both (the merge loop's heap) and memory in proportion to its length.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import Any, Protocol

from ..engine import merge_core
from ..engine.merging import PieceCache, merge_bytes, merge_pairs, pair_merges
from ..errors import BPEError
from ..limits import PRETOKEN, shown_mb
from ..types import UNK_ID, Surface

#: Pre-tokens this long (UTF-8 bytes) or longer are measured against the limit first.
LONG_FROM = 1 << 16


def check_pretoken(word: str) -> None:
    """Refuse a pre-token over :data:`~bpe_tui.core.limits.PRETOKEN` (one line saying so).
    Both paths ask for pre-tokens of :data:`LONG_FROM` bytes or more, so a limit below that
    counts as that."""
    size = len(word.encode("utf-8", "surrogatepass"))
    limit = max(PRETOKEN.bytes(), LONG_FROM)
    if size > limit:
        raise BPEError(
            f"a pre-token of {size:,} bytes (text with no split point: no space, no punctuation) is over the "
            f"{shown_mb(limit)} MB limit on one pre-token; {PRETOKEN.hint(limit)}"
        )


class Worked(Protocol):
    """What this module reads of an :class:`~bpe_tui.core.tables.encoder.Encoder`."""

    units: str
    by_token_rank: bool
    ignore_merges: bool
    surface_to_id: dict[Surface, int]
    base: dict[Any, int]
    word_start: str | None
    eow_id: int | None
    outside_from: int | None
    removals: Any
    boundless: Any
    cache: PieceCache

    def merge_index(self) -> tuple[Mapping[tuple[int, int], int], Mapping[tuple[int, int], int]]: ...

    def whole_token(self, word: str) -> int | None: ...

    def base_ids(self, word: str) -> list[int]: ...

    def merged(self, symbols: list[Any]) -> list[int]: ...


class NewPieces:
    """How one encoder works out the pre-tokens its cache does not hold (see the module
    docstring). The path is chosen when the encoder is made (``BPE_TUI_PURE``); the merge
    list's index and the compiled ``Merger`` are made when first needed."""

    def __init__(self, encoder: Worked):
        self.encoder = encoder
        self._compiled = merge_core.compiled()
        self._core: Any = None  # the compiled Merger, once made
        self._pair_merges: dict[tuple[int, int], int] | None = None

    # ------------------------------------------------------------------ a text's pre-tokens

    def extend(self, words: list[str], out: list[int]) -> None:
        """``out += `` the ids of ``words``, each from the cache, or worked out and kept there."""
        cache = self.encoder.cache
        core = self._core or self._make_core()
        if core is None:
            out += chain.from_iterable(map(cache.__getitem__, words))
        else:
            core.encode_words(words, cache, cache.limit, out)

    def work_out(self, word: str) -> tuple[int, ...]:
        """The ids of one pre-token the cache does not hold (the cache's ``compute``)."""
        core = self._core or self._make_core()
        return self.pure(word) if core is None else core.work_out(word)

    # ------------------------------------------------------------------ the two paths

    def pure(self, word: str) -> tuple[int, ...]:
        """The pure-Python path: emitted whole, or merged by the fast forms of the merge loop
        (the same ids as :meth:`Encoder.merged <bpe_tui.core.tables.encoder.Encoder.merged>`)."""
        enc = self.encoder
        if len(word) * 4 >= LONG_FROM:
            check_pretoken(word)
        if enc.by_token_rank:  # (no end-of-word marker: see EncodeOptions.by_token_rank)
            piece = word.encode("utf-8")
            whole = enc.surface_to_id.get(piece) if enc.ignore_merges else None
            return (whole,) if whole is not None else tuple(merge_bytes(piece, enc.surface_to_id))  # type: ignore[arg-type]
        if enc.ignore_merges:
            found = enc.whole_token(word)
            if found is not None:
                return (found,)
        if enc.boundless is not None:  # (a BoundlessBPE table: its events replayed, boundless.py)
            return tuple(enc.boundless.work_out(word))
        if enc.removals is not None:
            return tuple(enc.merged(enc.base_ids(word)))
        return tuple(merge_pairs(enc.base_ids(word), self.pair_index()))

    def chars(self, word: str) -> tuple[int, ...]:
        """A chars table on the compiled path: base symbols (and a whole token) in Python,
        merged in C."""
        enc = self.encoder
        if len(word) * 4 >= LONG_FROM:
            check_pretoken(word)
        if enc.ignore_merges:
            found = enc.whole_token(word)
            if found is not None:
                return (found,)
        return tuple(self._core.merge_ids(enc.base_ids(word)))

    def pair_index(self) -> dict[tuple[int, int], int]:
        """The merge list's index the fast form reads (:func:`~bpe_tui.core.engine.merging.pair_merges`)."""
        if self._pair_merges is None:
            self._pair_merges = pair_merges(*self.encoder.merge_index())
        return self._pair_merges

    def _make_core(self) -> Any:
        """The compiled ``Merger`` of this table (None on the Python path), made once."""
        if self._compiled is None:
            return None
        enc = self.encoder
        checks = self._checks()
        if enc.removals is not None:
            core = self._compiled.Merger("python", None, **checks)
        elif enc.by_token_rank:
            core = self._compiled.Merger("ranks", enc.surface_to_id, ignore_merges=enc.ignore_merges, **checks)
        elif enc.units == "bytes":
            core = self._bytes_merger(tuple(enc.merge_index()))
        else:
            core = self._compiled.Merger("pairs", tuple(enc.merge_index()), **{**checks, "fallback": self.chars})
        self._core = core
        return core

    def _bytes_merger(self, index: tuple[Mapping[tuple[int, int], int], ...]) -> Any:
        """A compiled ``Merger`` of a bytes table by merge list ``index`` (pair -> rank, pair
        -> the token it makes): a pre-token's bytes to base ids, merged, in C."""
        enc = self.encoder
        assert self._compiled is not None  # (the callers ask first)
        return self._compiled.Merger(
            "pairs", index, tokens=enc.surface_to_id, ignore_merges=enc.ignore_merges and enc.eow_id is None,
            bases=[enc.base.get(b, UNK_ID) for b in range(256)], word_start=(enc.word_start or "").encode("utf-8"),
            eow=enc.eow_id, eow_not_after_unknown=enc.outside_from is not None, **self._checks(),
        )

    def _checks(self) -> dict[str, Any]:
        """What every compiled ``Merger`` is given: :meth:`pure` for what it leaves to Python,
        and the one-pre-token size check from LONG_FROM bytes on."""
        return {"fallback": self.pure, "check_long": check_pretoken, "long_from": LONG_FROM}

    def word_merger(self, index: tuple[Mapping[tuple[int, int], int], ...]) -> Any:
        """For a BoundlessBPE table: a compiled ``Merger`` of its word merges (``index``: its
        merge list without the supermerges), which works out a pre-token's ids as
        :meth:`pure` would before its events are checked for deletions (boundless.py); None on
        the Python path, or where :meth:`pure` does not come to the table's events (a
        pre-token given whole under ignore_merges, merges by token rank) or the table is not
        a bytes table."""
        enc = self.encoder
        if self._compiled is None or enc.units != "bytes" or enc.ignore_merges or enc.by_token_rank:
            return None
        return self._bytes_merger(index)

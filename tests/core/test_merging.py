"""The heap merge loop (long pieces) gives exactly what the simple loop gives: merges, dropout
draws and trace alike; and the table's encode, dropout and trace agree across the two."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_tui.core.merging import HEAP_FROM, MergeLog, merge_heap, merge_simple
from bpe_tui.core.table import MergeTable


def ranks_of(merges: list[tuple[int, int]]):
    """pair_rank over symbols 0..3 and merges (a, b) -> 100 + rank (first listing wins)."""
    table: dict = {}
    for rank, (a, b) in enumerate(merges):
        table.setdefault((a, b), (rank, 100 + rank))
    return lambda a, b: table.get((a, b))


symbols = st.lists(st.integers(0, 3), min_size=0, max_size=90)
merge_lists = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=6).map(
    lambda base: base + [(100 + i, 100 + j) for i in range(3) for j in range(3)]
)


@settings(max_examples=300, deadline=None)
@given(symbols, merge_lists, st.sampled_from([0.0, 0.3, 1.0]), st.integers(0, 5), st.integers(1, 3))
def test_heap_equals_simple_loop(syms, merges, p, seed, stop_at):
    pair_rank = ranks_of(merges)
    log_a: list = []
    log_b: list = []
    a = merge_simple(syms, pair_rank, stop_at, p, random.Random(seed), log_a)
    b = merge_heap(syms, pair_rank, stop_at, p, random.Random(seed), log_b)
    assert a == b
    assert log_a == log_b
    for k in range(len(log_a)):
        assert MergeLog(syms, log_a).symbols_after(k) == MergeLog(syms, log_b).symbols_after(k)


def chain_table() -> MergeTable:
    """a+a, aa+aa, aaaa+aaaa, ...: the table that made long runs quadratic."""
    vocab = {0: "a", 1: "b"}
    merges = []
    surface = "a"
    for k in range(2, 12):
        vocab[k] = surface + surface
        merges.append((k - 1 if k > 2 else 0, k - 1 if k > 2 else 0, k))
        surface = surface + surface
    vocab[12] = "ab"
    merges.append((0, 1, 12))
    return MergeTable("chars", vocab, merges, pretokenizer="regex:\\S+")


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab", min_size=HEAP_FROM, max_size=300), st.integers(0, 3))
def test_table_long_pieces_match_simple_loop(word, seed):
    table = chain_table()
    ids = table._base_ids(word)
    simple = merge_simple(ids, table._ranks.get_pair)
    assert list(table.encode(word)) == simple
    steps = table.trace(word)
    rebuilt = [t.symbols for t in steps]
    log: list = []
    merge_simple(ids, table._ranks.get_pair, log=log)
    assert [(s.rank, s.position) for s in steps] == [(r, pos) for _, r, _, pos in log]
    assert rebuilt == [tuple(table.surface(i) for i in MergeLog(ids, log).symbols_after(k)) for k in range(len(log))]
    dropped = table.encode(word, dropout=0.4, seed=seed)
    assert dropped == merge_simple(ids, table._ranks.get_pair, p=0.4, rng=random.Random(seed))


def test_long_run_of_one_character_encodes_to_few_tokens():
    table = chain_table()
    ids = table.encode("a" * 40_000)
    assert table.decode(ids) == "a" * 40_000
    assert len(ids) == 40_000 // 1024 + bin(40_000 % 1024).count("1")
    assert len(table.trace("a" * 5000)) == 5000 - len(table.encode("a" * 5000))

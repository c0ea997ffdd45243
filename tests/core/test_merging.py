"""The one merge loop (core/merging.py): its scan, its heap and a plain reference loop give
the same merges, dropout draws and traces, for both rules (by merge list and by token rank);
its fast forms (merge_pairs, merge_bytes) the same merges as the loop; and the table's encode,
dropout and trace agree with the reference on long pieces."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_tui.core.engine import merging
from bpe_tui.core.engine.merging import HEAP_FROM, MergeLog, PieceCache, merge, merge_bytes, merge_pairs, pair_merges
from bpe_tui.core.tables.table import MergeTable


def reference(symbols, key_rank, stop_at=1, p=0.0, rng=None, log=None):
    """The loop everyone writes: each round, every adjacent pair's ``key_rank(left, right) ->
    (rank, new) or None``; candidates tried in (rank, position) order, each skipped with
    probability p; the first not skipped merges."""
    symbols = list(symbols)
    starts = list(range(len(symbols)))
    while len(symbols) > stop_at:
        candidates = []
        for i in range(len(symbols) - 1):
            hit = key_rank(symbols[i], symbols[i + 1])
            if hit is not None:
                candidates.append((hit[0], i, hit[1]))
        candidates.sort(key=lambda c: (c[0], c[1]))
        chosen = next((c for c in candidates if not (p > 0 and rng.random() < p)), None)
        if chosen is None:
            break
        rank, i, new = chosen
        symbols[i : i + 2] = [new]
        if log is not None:
            log.append((starts[i], rank, new, i))
            del starts[i + 1]
    return symbols


def pair_rule(merges: list[tuple[int, int]]):
    """By merge list, over symbols 0..3 and merges (a, b) -> 100 + rank (first listing wins)."""
    ranks: dict = {}
    made: dict = {}
    for rank, (a, b) in enumerate(merges):
        if (a, b) not in ranks:
            ranks[a, b] = rank
            made[a, b] = 100 + rank
    return ranks, made, lambda a, b: (ranks[a, b], made[a, b]) if (a, b) in ranks else None


def token_rule(tokens: list[bytes]):
    """By token rank: bytes a-d and the given tokens, ranked in the order given."""
    ranks: dict = {}
    for token in [b"a", b"b", b"c", b"d", *tokens]:
        ranks.setdefault(token, len(ranks))
    return ranks, None, lambda a, b: (ranks[a + b], a + b) if a + b in ranks else None


symbols = st.lists(st.integers(0, 3), min_size=0, max_size=90)
merge_lists = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=6).map(
    lambda base: base + [(100 + i, 100 + j) for i in range(3) for j in range(3)]
)
token_lists = st.lists(st.text(alphabet="abcd", min_size=2, max_size=6).map(str.encode), max_size=30)


def agree(syms, ranks, made, key_rank, p, seed, stop_at):
    expected_log: list = []
    expected = reference(syms, key_rank, stop_at, p, random.Random(seed), expected_log)
    heap_log: list = []
    assert merging._heap(syms, ranks, made, stop_at, p, random.Random(seed), heap_log) == expected
    assert heap_log == expected_log
    for k in range(len(expected_log)):
        assert MergeLog(syms, heap_log).symbols_after(k) == MergeLog(syms, expected_log).symbols_after(k)
    assert MergeLog(syms, heap_log).pairs() == [
        (MergeLog(syms, heap_log).symbols_after(k - 1) if k else tuple(syms))[pos : pos + 2] for k, (_, _, _, pos) in enumerate(heap_log)
    ]
    assert merge(syms, ranks, made, stop_at=stop_at, dropout=p, rng=random.Random(seed)) == expected
    if p == 0:
        assert merge(syms, ranks, made, stop_at=stop_at) == expected  # the scan, for short pieces


@settings(max_examples=300, deadline=None)
@given(symbols, merge_lists, st.sampled_from([0.0, 0.3, 1.0]), st.integers(0, 5), st.integers(1, 3))
def test_loop_by_merge_list_equals_reference(syms, merges, p, seed, stop_at):
    agree(syms, *pair_rule(merges), p, seed, stop_at)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcd", max_size=90), token_lists, st.sampled_from([0.0, 0.3, 1.0]), st.integers(0, 5), st.integers(1, 3))
def test_loop_by_token_rank_equals_reference(text, tokens, p, seed, stop_at):
    syms = [c.encode() for c in text]
    agree(syms, *token_rule(tokens), p, seed, stop_at)


@settings(max_examples=400, deadline=None)
@given(symbols, merge_lists)
def test_merge_pairs_is_the_loop_by_merge_list(syms, merges):
    ranks, made, _ = pair_rule(merges)
    assert merge_pairs(list(syms), pair_merges(ranks, made)) == merge(syms, ranks, made)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abcd", max_size=150), token_lists)
def test_merge_bytes_is_the_loop_by_token_rank(text, tokens):
    ranks, _, _ = token_rule(tokens)
    piece = text.encode()
    assert merge_bytes(piece, ranks) == [ranks[s] for s in merge([bytes([b]) for b in piece], ranks)]


def test_piece_cache_works_out_what_it_lacks_and_forgets_when_full():
    cache = PieceCache(limit=2, compute=lambda piece: (len(piece),))
    assert cache["ab"] == (2,) and cache["abc"] == (3,) and len(cache) == 2
    assert cache["x"] == (1,) and list(cache) == ["x"]  # full: cleared, then kept
    assert cache.get("zz") is None and "zz" not in cache  # .get never works anything out


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
    ids = table._encoder.base_ids(word)
    key_rank = pair_rule_of(table)
    simple = reference(ids, key_rank)
    assert list(table.encode(word)) == simple
    steps = table.trace(word)
    rebuilt = [t.symbols for t in steps]
    log: list = []
    reference(ids, key_rank, log=log)
    assert [(s.rank, s.position) for s in steps] == [(r, pos) for _, r, _, pos in log]
    assert rebuilt == [tuple(table.surface(i) for i in MergeLog(ids, log).symbols_after(k)) for k in range(len(log))]
    dropped = table.encode(word, dropout=0.4, seed=seed)
    assert dropped == reference(ids, key_rank, p=0.4, rng=random.Random(seed))


def pair_rule_of(table: MergeTable):
    """The reference's view of a table's merge list, through its public questions."""
    made = {}
    for a, b, new in reversed(table.merge_ids):
        made[a, b] = new
    return lambda a, b: (table.pair_rank(a, b), made[a, b]) if (a, b) in made else None


def test_long_run_of_one_character_encodes_to_few_tokens():
    table = chain_table()
    ids = table.encode("a" * 40_000)
    assert table.decode(ids) == "a" * 40_000
    assert len(ids) == 40_000 // 1024 + bin(40_000 % 1024).count("1")
    assert len(table.trace("a" * 5000)) == 5000 - len(table.encode("a" * 5000))

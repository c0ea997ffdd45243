"""The compiled merge core (core/engine/_merge_core.c) gives the pure-Python path's ids, exactly.

Each table is made twice, once with ``BPE_TUI_PURE=1`` (the Python path) and once without (the
compiled core), and both get the same random Unicode text: trained tables of every kind (bytes
and characters, by merge list and by token rank, end-of-word markers, a word start, ignore_merges,
unknown bytes, special tokens, PickyBPE's removals) and the real tables of ../shared/tables.
The core's own two loops are held to merging.py's on random symbols, short pieces (the scan) and
long ones (the heap). Bad input gets the same answer on both paths: lone surrogates, a pre-token
over the size limit, a table whose ids do not fit, Ctrl+C in a long merge.

Where the core is not built (no C compiler when bpe-tui was installed) these tests skip and say
so; on a machine with a compiler, the core not being built is a failure.
"""

from __future__ import annotations

import gc
import os
import shutil
import sysconfig
import types
import weakref
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_tui
from bpe_tui.core.engine import merge_core, merging
from bpe_tui.core.errors import BPEError
from bpe_tui.core.tables import boundless
from bpe_tui.core.tables.removals import ReplayLog
from bpe_tui.core.tables.table import MergeTable
from tests.conftest import CORPORA, SHARED, need, rank_file
from tests.core.test_encoder import trained  # (the demo and multilingual corpora, trained to a config)

compiled = merge_core._core
needs_core = pytest.mark.skipif(compiled is None, reason=f"the compiled merge core is not built here ({merge_core.engine_info()})")

TRICKY = list(" \t\n\r'sdtllvem123 ½中日한éÉ\u0301😀𝐀<|>▁") + ["<|endoftext|>", "<|end|>", "<|e", "a" * 40, "abc", " abc", "bc"]
texts = st.lists(st.one_of(st.characters(), st.sampled_from(TRICKY)), max_size=200).map("".join)
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_the_core_is_built_where_there_is_a_compiler():
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) here: bpe-tui runs pure Python ({merge_core.engine_info()})")
    assert compiled is not None, merge_core.engine_info()


@contextmanager
def path(pure: bool):
    """BPE_TUI_PURE set (the Python path) or not (the compiled core) while a table is made."""
    before = os.environ.pop(merge_core.PURE_VARIABLE, None)
    if pure:
        os.environ[merge_core.PURE_VARIABLE] = "1"
    try:
        yield
    finally:
        os.environ.pop(merge_core.PURE_VARIABLE, None)
        if before is not None:
            os.environ[merge_core.PURE_VARIABLE] = before


def rebuilt(table: MergeTable, **config) -> MergeTable:
    """``table`` with ``config`` added (a rule no trainer writes: word_start on bytes, ignore_merges)."""
    return MergeTable(table.units, table.vocab, table.merge_ids, table.special_tokens, table.pretokenizer,
                      table.end_of_word, table.lowercase, config={**table.config, **config})


def missing_bytes() -> MergeTable:
    """A bytes table without the tokens of some bytes, with an end-of-word marker and ids past
    outside_vocab_from: unknown symbols, and the marker's rule after them."""
    vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256) if not 0x80 <= i < 0xC0}
    vocab[300] = b"</w>"
    merges = [(ord("a"), ord("b"), 301), (301, 300, 302), (ord("e"), 300, 303)]
    vocab.update({301: b"ab", 302: b"ab</w>", 303: b"e</w>"})
    return MergeTable("bytes", vocab, merges, pretokenizer="gpt2", end_of_word="</w>", config={"outside_vocab_from": 303})


def unreachable() -> MergeTable:
    """A bytes table with a token its own bytes do not merge into: a, b, c merge a+b first,
    so "abc" never meets b+c, and the token abc (made from a + bc) is not reached."""
    vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
    vocab.update({256: b"ab", 257: b"bc", 258: b"abc", 259: b" abc"})
    a, b, c, space = ord("a"), ord("b"), ord("c"), ord(" ")
    return MergeTable("bytes", vocab, [(a, b, 256), (b, c, 257), (a, 257, 258), (space, 258, 259)], pretokenizer="gpt2")


#: name -> how to make it (trained here, or read from ../shared/tables).
TRAINED = {
    "bytes by merge list": lambda: trained(preset="gpt2", vocab_size=600, special_tokens=["<|endoftext|>", "<|end|>", "<|e"]),
    "bytes with </w>": lambda: trained(units="bytes", end_of_word="</w>", pretokenizer="gpt4", vocab_size=500),
    "bytes, word start and ignore_merges": lambda: rebuilt(trained(preset="gpt2", vocab_size=500), word_start="▁", ignore_merges=True),
    "bytes, ignore_merges": lambda: rebuilt(trained(preset="gpt2", vocab_size=500), ignore_merges=True),
    "bytes, unknown bytes": missing_bytes,
    "bytes, a token its bytes do not reach": unreachable,
    "chars with </w>": lambda: trained(units="chars", end_of_word="</w>", pretokenizer="gpt4", vocab_size=400),
    "chars, lowercased, o200k": lambda: trained(units="chars", pretokenizer="o200k", lowercase=True, vocab_size=400),
    "chars, ignore_merges": lambda: rebuilt(trained(units="chars", pretokenizer="gpt2", vocab_size=400), ignore_merges=True),
    "picky (removals)": lambda: trained(preset="picky", picky=0.6, vocab_size=400),
    "boundless (supermerges)": lambda: trained(preset="boundless", vocab_size=700),
}
REAL = {
    "gpt2": "gpt2", "gpt2-openai": "gpt2-openai", "cl100k": "cl100k/cl100k_base.tiktoken", "o200k": "o200k/o200k_base.tiktoken",
    "llama3": "llama3/tokenizer.model", "qwen2": "qwen2", "mistral": "mistral-hf-v3/tokenizer.json",
    "llama2-sp": "llama2-sp/tokenizer.model", "whisper": "whisper-multilingual/multilingual.tiktoken",
    "gpt-neox": "gpt-neox20b/20B_tokenizer.json", "roberta-bne": "roberta-bne/tokenizer.json",
    "minbpe": "minbpe-karpathy/regex_specials_1024.model", "subword-nmt": "subword-nmt-chuvash/bpe.codes",
}
_made: dict[tuple[str, bool], MergeTable] = {}


def made(name: str, pure: bool) -> MergeTable:
    """A table of TRAINED or REAL on one path, made once (a real one skips where it is absent)."""
    if name == "by token rank":
        return by_token_rank(pure)
    if (name, pure) not in _made:
        with path(pure):
            _made[name, pure] = TRAINED[name]() if name in TRAINED else bpe_tui.load(str(need(SHARED / "tables" / REAL[name])))
    return _made[name, pure]


_rank_files: list[str] = []


def by_token_rank(pure: bool) -> MergeTable:
    """A small rank file (tiktoken's rule), read on one path."""
    if ("by token rank", pure) not in _made:
        if not _rank_files:
            import tempfile

            tokens = [w.encode() for w in ("he", "ll", "llo", "hello", " wor", "ld", " world", "é", "中日", "  ", "\n\n", "aa", "aaaa")]
            _rank_files.append(rank_file(__import__("pathlib").Path(tempfile.mkdtemp()) / "t.tiktoken", tokens))
        with path(pure):
            _made["by token rank", pure] = bpe_tui.load(_rank_files[0])
    return _made["by token rank", pure]


def both(name: str) -> tuple[MergeTable, MergeTable]:
    pure, fast = made(name, True), made(name, False)
    assert pure._encoder._pieces._compiled is None and fast._encoder._pieces._compiled is compiled
    if fast._encoder.boundless is not None:
        assert pure._encoder.boundless.compiled is None and isinstance(fast._encoder.boundless.compiled, compiled.Supermerges)
    return pure, fast


def agree(name: str, text: str) -> None:
    pure, fast = both(name)
    fast._encoder.cache.clear()  # (each example starts cold on the compiled side, warm on the other)
    assert fast.encode(text) == pure.encode(text)
    assert fast.encode_ordinary(text) == pure.encode_ordinary(text)
    assert fast.encode_ordinary(text) == pure.encode_ordinary(text)  # the compiled side warm too
    chunks = [text[: len(text) // 3], text[len(text) // 3 :]]
    assert list(fast.encode_iterable(chunks)) == list(pure.encode_iterable(chunks))
    assert fast.pieces(text) == pure.pieces(text)


@needs_core
@pytest.mark.parametrize("name", [*TRAINED, "by token rank"])
@SETTINGS
@given(text=texts)
def test_trained_tables_same_ids_on_both_paths(name, text):
    agree(name, text)


@needs_core
@pytest.mark.parametrize("name", sorted(REAL))
@SETTINGS
@given(text=texts)
def test_real_tables_same_ids_on_both_paths(name, text):
    agree(name, text)


#: Text of the demo corpus's words (and TRICKY's), where a BoundlessBPE table's supermerges fire.
DEMO_WORDS = sorted(set((CORPORA / "demo.txt").read_text(encoding="utf-8").split()))[:400]
wordy_texts = st.lists(st.one_of(st.sampled_from(DEMO_WORDS), st.sampled_from(TRICKY), st.sampled_from([" ", " ", "\n", ", "])),
                       max_size=120).map(" ".join)


#: A run's Joins (token, since, until) over tokens 0-4, and supermerges among those tokens.
_join = st.tuples(st.integers(0, 4), st.integers(-1, 40), st.sampled_from([8, 20, 33, boundless.NEVER]))
run_joins = st.one_of(st.lists(_join, min_size=2, max_size=20), st.lists(_join, min_size=boundless.LONG_RUN, max_size=boundless.LONG_RUN + 40))
super_pairs = st.dictionaries(st.tuples(st.integers(0, 4), st.integers(0, 4)), st.tuples(st.integers(0, 40).map(lambda p: p * 4), st.integers(0, 4)), max_size=12)


@needs_core
@settings(max_examples=400, deadline=None)
@given(run_joins, super_pairs)
def test_the_compiled_scan_is_boundless_run(joins, pairs):
    """Supermerges.run (C) is BoundlessEvents.run on any run (its scan, or its heap from
    LONG_RUN items on): supermerges that make tokens other supermerges take, positions in any
    order, items whole for a while."""
    events = types.SimpleNamespace(super_pairs=pairs)
    events._long_run = lambda joins: boundless.BoundlessEvents._long_run(events, joins)  # type: ignore[arg-type]
    core = compiled.Supermerges(pairs, frozenset(pairs), boundless.LONG_RUN)
    assert core.run(joins) == boundless.BoundlessEvents.run(events, joins)  # type: ignore[arg-type]


@needs_core
@pytest.mark.parametrize("name", ["picky (removals)", "boundless (supermerges)"])
@SETTINGS
@given(text=wordy_texts)
def test_the_compiled_replay_is_replay_python(name, text):
    """Replayer.replay (C) is Removals.replay_python on every pre-token of the text, its log
    (the events, the word after each) included: merges and removals in order, a removed token
    made again, an unknown symbol."""
    table = made(name, False)
    removals = table._encoder.removals
    words = table._encoder.words(text) + ["\x00\x00", "é" * 9]
    for word in words:
        symbols = table._encoder.base_ids(word)
        fast, slow = ReplayLog(), ReplayLog()
        assert removals.replay(symbols, fast) == removals.replay_python(symbols, slow)
        assert fast.events == slow.events
        assert removals.replay([*symbols, -1, *symbols]) == removals.replay_python([*symbols, -1, *symbols])


@needs_core
@SETTINGS
@given(text=wordy_texts)
def test_boundless_joins_the_same_on_both_paths(text):
    """BoundlessBPE's pass over the pre-tokens (join_words in C, Joiner.joined_python the
    reference), on text of the corpus's words, cold and warm, whole and streamed."""
    agree("boundless (supermerges)", text)


@needs_core
def test_boundless_real_text_joins_the_same_on_both_paths():
    """The demo corpus and tinyshakespeare: supermerges do fire, and each pass gives the same ids."""
    pure, fast = both("boundless (supermerges)")
    joiner = fast._encoder.boundless
    made = {fast.merge_ids[n - 1][2] for n in fast.config["supermerges"]}
    texts = [(CORPORA / "demo.txt").read_text(encoding="utf-8")]
    if (SHARED / "corpora" / "tinyshakespeare.txt").exists():
        texts.append((SHARED / "corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8"))
    for text in texts:
        fast._encoder.cache.clear()
        joiner.runs.clear()
        ids = fast.encode(text)
        assert made & set(ids), "no supermerge's token in the text: the test would hold nothing"
        assert ids == pure.encode(text)
        words = fast._encoder.words(text)
        assert joiner.joined(words) == joiner.joined_python(words)  # the one Joiner's caches, warm


@needs_core
@pytest.mark.parametrize("name", ["gpt2", "cl100k", "o200k", "llama3", "llama2-sp"])
def test_real_text_same_ids_on_both_paths(name):
    """tinyshakespeare, the 12 parallel texts and long runs with no split point (the heap)."""
    shakespeare = need(SHARED / "corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")
    parallel = "".join(p.read_text(encoding="utf-8") for p in sorted((CORPORA / "parallel").glob("*.txt")))
    runs = "a" * 5000 + " " + "ab" * 3000 + " " + "日本語" * 700 + " " + "x\u0301" * 900
    pure, fast = both(name)
    for text in (shakespeare, parallel, runs):
        fast._encoder.cache.clear()
        assert fast.encode(text) == pure.encode(text)


@needs_core
def test_a_pretoken_that_is_a_token_its_bytes_do_not_reach_is_merged():
    """The compiled loop looks a pre-token up as a whole token only where its bytes merge into
    it (or the table says ignore_merges): "abc" is a token, but merging gives ab + c."""
    pure, fast = both("bytes, a token its bytes do not reach")
    for text in ("abc", "abc abc x abc", " abc", "bc abc"):
        fast._encoder.cache.clear()
        assert fast.encode(text) == pure.encode(text)
    assert fast.encode("abc") == [256, ord("c")] and fast.encode(" abc") == [ord(" "), 256, ord("c")]


# ---------------------------------------------------------------------- the core's own loops


#: Short pieces (the scan) and long ones (HEAP_FROM symbols or more: the heap), few symbols: ties.
pair_symbols = st.one_of(st.lists(st.integers(-1, 5), max_size=merging.HEAP_FROM), st.lists(st.integers(-1, 5), min_size=merging.HEAP_FROM, max_size=300))
pieces = st.one_of(st.binary(max_size=merging.HEAP_FROM), st.binary(min_size=merging.HEAP_FROM, max_size=300)).map(lambda b: bytes(x % 5 + 97 for x in b))
pair_lists = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=12).map(
    lambda base: base + [(100 + i, j) for i in range(4) for j in range(6)] + [(100 + i, 100 + j) for i in range(4) for j in range(4)]
)


@needs_core
@settings(max_examples=300, deadline=None)
@given(pair_symbols, pair_lists)
def test_merge_ids_is_merge_pairs(symbols, merges):
    ranks: dict = {}
    made_by: dict = {}
    for rank, pair in enumerate(merges):
        if pair not in ranks:
            ranks[pair], made_by[pair] = rank, 100 + rank % 4
    index = merging.pair_merges(ranks, made_by)
    core = compiled.Merger("pairs", (ranks, made_by), fallback=tuple, check_long=len)
    assert core.merge_ids(list(symbols)) == merging.merge_pairs(list(symbols), index)


@needs_core
@settings(max_examples=300, deadline=None)
@given(pieces, st.lists(st.text(alphabet="abcde", min_size=2, max_size=7).map(str.encode), max_size=40))
def test_merge_bytes_is_python_merge_bytes(piece, tokens):
    ranks: dict = {bytes([b]): b for b in range(256)}
    for token in tokens:
        ranks.setdefault(token, 256 + len(ranks))
    core = compiled.Merger("ranks", ranks, fallback=tuple, check_long=len)
    assert core.merge_bytes(piece) == merging.merge_bytes(piece, ranks)


@needs_core
def test_a_single_byte_without_a_token_is_the_same_keyerror():
    ranks = {b"a": 0, b"b": 1, b"ab": 2}
    core = compiled.Merger("ranks", ranks, fallback=tuple, check_long=len)
    for piece in (b"abc", b"c", b"ab" * 40 + b"c"):
        with pytest.raises(KeyError) as python:
            merging.merge_bytes(piece, ranks)
        with pytest.raises(KeyError) as c:
            core.merge_bytes(piece)
        assert c.value.args == python.value.args == (b"c",)


# ---------------------------------------------------------------------- bad input, both paths


def outcome(call):
    try:
        return ("ids", call())
    except Exception as error:  # noqa: BLE001  (what matters is that both paths say the same)
        return (type(error).__name__, str(error))


@needs_core
@pytest.mark.parametrize("name", ["bytes by merge list", "chars with </w>", "by token rank"])
def test_lone_surrogates_get_the_same_answer(name):
    pure, fast = both(name)
    for text in ("a\ud800b", "\udfff", "x \ud83d", "\ud83d\ude00"):
        assert outcome(lambda: fast.encode(text)) == outcome(lambda: pure.encode(text))
        assert outcome(lambda: fast.encode_word(text)) == outcome(lambda: pure.encode_word(text))


@needs_core
@pytest.mark.parametrize("name", ["bytes by merge list", "chars with </w>", "by token rank", "picky (removals)"])
def test_a_pretoken_over_the_limit_is_refused_the_same_way(name, monkeypatch):
    pure, fast = both(name)
    monkeypatch.setenv("BPE_TUI_MAX_PRETOKEN_MB", "0.125")  # (the default is 16)
    big = "ab" * 70_000  # 140,000 bytes with no split point, over 0.125 MB (131,072 bytes)
    fast._encoder.cache.clear()
    pure._encoder.cache.clear()
    said = outcome(lambda: fast.encode(big))
    assert said == outcome(lambda: pure.encode(big))
    assert said[0] == "BPEError" and "limit on one pre-token" in said[1] and "0.125 MB limit" in said[1] and "BPE_TUI_MAX_PRETOKEN_MB=0.5 raises" in said[1]
    small = "ab" * 60_000
    assert fast.encode(small) == pure.encode(small)


@pytest.mark.parametrize("name", ["bytes by merge list", "chars with </w>", "picky (removals)", "boundless (supermerges)"])
def test_a_table_is_freed_once_dropped(name):
    """A table's encoder and its compiled Merger refer to each other (the Merger calls back into
    the encoder): the garbage collector frees both once the table is dropped (it could not see
    the Merger's references, and every table loaded stayed in memory: 60 MB per o200k)."""
    with path(False):
        table = TRAINED[name]()
    table.encode("the baker bakes 日本 " * 3)
    boundless = table._encoder.boundless
    assert compiled is None or table._encoder._pieces._core is not None or (boundless is not None and boundless.compiled is not None)
    encoder = weakref.ref(table._encoder)
    del table, boundless
    gc.collect()
    assert encoder() is None


@pytest.mark.parametrize("bad", [1 << 32, -5])
def test_a_table_whose_ids_do_not_fit_is_refused_on_both_paths(bad):
    vocab = {i: bytes([i]) for i in range(256)}
    vocab[bad] = b"ab"
    for pure in (True, False):
        with path(pure), pytest.raises(BPEError, match=f"token id {bad} .* does not fit: ordinary tokens' ids run from 0 to 4,294,967,295"):
            MergeTable("bytes", vocab, [(97, 98, bad)], pretokenizer="gpt2", source="made.json")
    # a special token's id is never merged: any id will do
    table = MergeTable("bytes", {**{i: bytes([i]) for i in range(256)}, 1 << 40: b"<s>"}, [], special_tokens={"<s>": 1 << 40})
    assert table.encode("a<s>") == [97, 1 << 40]


def test_engine_info_says_which_path_runs(monkeypatch):
    monkeypatch.setenv("BPE_TUI_PURE", "1")
    assert bpe_tui.engine_info().startswith("pure Python (BPE_TUI_PURE=1")
    monkeypatch.setenv("BPE_TUI_PURE", "0")
    expected = "compiled core (C): the merge loop, the known regexes' split, eval's word tally, BoundlessBPE's supermerges, the replay of removals" if compiled is not None else "pure Python (the compiled core is not built"
    assert bpe_tui.engine_info().startswith(expected)

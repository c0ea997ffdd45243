"""The encoder's fast path (core/tables/encoder.py) gives the plain path's ids on random
Unicode text, for every rule a table can have: the fast path is the split on Python's re (or
the ASCII form), the pieces cache filled in C, and the fast forms of the merge loop; the plain
path is the regex package's split and the plain loop, one pre-token at a time, no cache.
Trained tables of each kind always; the real tables of ../shared when they are there. Also:
streaming gives the whole text's ids, and EncodeOptions reads what the config says."""

from __future__ import annotations

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_tui
from bpe_tui.core.engine.trainer import Trainer
from bpe_tui.core.engine.config import TrainerConfig
from bpe_tui.core.tables.encoder import BY_TOKEN_RANK, EncodeOptions
from bpe_tui.core.tables.streaming import lowercase_stream
from bpe_tui.core.tables.table import MergeTable
from bpe_tui.core.text.pretokenize import valid_text
from tests.conftest import CORPORA, SHARED, need, rank_file

TRICKY = list(" \t\n\r'sdtllvem123 ½中日한éÉ\u0301😀𝐀<|>") + ["<|endoftext|>", "<|end|>", "<|e", "<|end_of_text|>"]
#: Text of any characters, with the ones the rules treat specially (special tokens' texts too).
texts = st.lists(st.one_of(st.characters(), st.sampled_from(TRICKY)), max_size=150).map("".join)
streams = st.lists(st.lists(st.one_of(st.characters(), st.sampled_from(TRICKY)), max_size=30).map("".join), max_size=8)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def plain_encode(table: MergeTable, text: str) -> list[int]:
    """``encode_ordinary`` the educational way (tables without normalizer or prefix space)."""
    encoder = table._encoder
    out: list[int] = []
    text = valid_text(text)
    if table.lowercase:
        text = text.lower()
    for word in regex.compile(table._pre.pattern_text).findall(text):
        whole = encoder.whole_token(word)
        out += [whole] if whole is not None else encoder.merged(encoder.symbols(word))
    return encoder.finish(out)


def trained(**config) -> MergeTable:
    text = (CORPORA / "demo.txt").read_text(encoding="utf-8") + (CORPORA / "multilingual.txt").read_text(encoding="utf-8")
    trainer = Trainer.from_text(text, TrainerConfig(**config))
    for _ in trainer.run():
        pass
    return trainer.table


TABLES = {
    "bytes by merge list": lambda: trained(preset="gpt2", vocab_size=600),
    "bytes with special tokens": lambda: trained(
        preset="gpt2", pretokenizer="whitespace", vocab_size=500, special_tokens=["<|endoftext|>", "<|end|>", "<|e"],
    ),
    "chars with </w>": lambda: trained(units="chars", end_of_word="</w>", pretokenizer="gpt4", vocab_size=400),
    "chars, lowercased, o200k": lambda: trained(units="chars", pretokenizer="o200k", lowercase=True, vocab_size=400),
}
REAL = {"gpt2": "gpt2", "cl100k": "cl100k/cl100k_base.tiktoken", "o200k": "o200k/o200k_base.tiktoken", "llama3": "llama3/tokenizer.model"}
_made: dict[str, MergeTable] = {}


def table_named(name: str) -> MergeTable:
    """A table of TABLES, trained, or a real one of ../shared (REAL: the test skips where it
    is absent), made once."""
    if name not in _made:
        _made[name] = TABLES[name]() if name in TABLES else bpe_tui.load(str(need(SHARED / "tables" / REAL[name])))
    return _made[name]


#: The tables the tests below draw from: trained here, and the real ones of ../shared.
GROUPS = {"trained": sorted(TABLES), "real": sorted(REAL)}


@pytest.mark.parametrize("group", sorted(GROUPS))
@SETTINGS
@given(data=st.data(), text=texts)
def test_fast_path_is_the_plain_path(group, data, text):
    table = table_named(data.draw(st.sampled_from(GROUPS[group])))
    assert table.encode_ordinary(text) == plain_encode(table, text)


@SETTINGS
@given(texts)
def test_fast_path_is_the_plain_path_by_token_rank(tmp_path_factory, text):
    if "rank" not in _made:
        tokens = [w.encode() for w in ("he", "ll", "llo", "hello", " wor", "ld", " world", "é", "中日", "  ", "\n\n")]
        _made["rank"] = bpe_tui.load(rank_file(tmp_path_factory.mktemp("r") / "t.tiktoken", tokens))
    table = _made["rank"]
    assert table.by_token_rank
    assert table.encode_ordinary(text) == plain_encode(table, text)


@pytest.mark.parametrize("group", sorted(GROUPS))
@SETTINGS
@given(data=st.data(), chunks=streams)
def test_streaming_gives_the_whole_texts_ids(group, data, chunks):
    table = table_named(data.draw(st.sampled_from(GROUPS[group])))
    text = "".join(chunks)
    assert list(table.encode_iterable(chunks)) == table.encode(text)
    assert list(table.pieces_iterable(chunks)) == table.pieces(text)
    ordinary = {"allowed_special": frozenset(), "disallowed_special": ()}
    assert list(table.encode_iterable(chunks, **ordinary)) == table.encode_ordinary(text)


#: Capital sigmas among cased letters and case-ignorable characters (an apostrophe, a combining
#: accent, a modifier letter, a full stop), which str.lower skips when it decides a final sigma.
SIGMA_TEXT = ["Σ", "Σ", "A", "a", "1", " ", "'", "\u0301", "ʰ", ".", "İ", "ß", "-"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(SIGMA_TEXT), max_size=8).map("".join), max_size=5))
def test_a_lowercased_stream_is_the_whole_text_lowercased(chunks):
    """str.lower writes a capital sigma final (ς) only after a cased letter and before none:
    a chunk's last sigma waits for the next chunk (["A", "Σ"] gave "aσ"; "AΣ".lower() is "aς")."""
    pieces = list(lowercase_stream(chunks))
    assert "".join(text for text, _ in pieces) == "".join(chunks)
    assert "".join(lowered for _, lowered in pieces) == "".join(chunks).lower()


def test_a_lowercasing_table_streams_a_final_sigma_as_the_whole_text():
    """The case hypothesis found in a fresh clone's CI: "A" then "Σ" with a lowercasing table."""
    table = table_named("chars, lowercased, o200k")
    for chunks in (["A", "Σ"], ["ΟΔΟΣ", " ", "ΣΑ"], ["Σ", "'", "A"], ["aΣ\u0301", "\u0301", ""]):
        text = "".join(chunks)
        assert list(table.pieces_iterable(chunks)) == table.pieces(text)
        assert list(table.encode_iterable(chunks)) == table.encode(text)


@pytest.mark.parametrize("name", ["o200k", "chars, lowercased, o200k"])
def test_a_stream_waits_for_o200ks_contraction_after_a_word(name):
    """o200k's words take a contraction after them: "a'" then "sa" is "a's", "a", not "a",
    "'", "sa" (a stream took every pre-token but the last as final; hypothesis found it)."""
    table = table_named(name)
    for chunks in (["a'", "sa"], ["A'", "SA"], ["a'r", "e x"], ["a'l", "l"], ["a", "'", "s", "a"], ["xy'", "VE?"], ["é'", "ſ"]):
        text = "".join(chunks)
        assert list(table.encode_iterable(chunks)) == table.encode(text), chunks
        assert list(table.pieces_iterable(chunks)) == table.pieces(text), chunks


#: Tables with an unknown token of their own: a character outside their alphabet encodes to it
#: (not to UNK_ID, -1), streamed or not. Issue 42: encode --ids, which streams, printed -1
#: for a PickyBPE table where encode and --json gave its <UNK>, 1.
UNKNOWN_TOKEN = {
    "PickyBPE (<UNK>)": lambda: trained(preset="picky", picky=0.9, vocab_size=400),
    "PickyBPE, saved and read back": lambda: _saved_and_read(trained(preset="picky", picky=0.7, vocab_size=350)),
    "chars with an unk token and coverage": lambda: trained(
        units="chars", pretokenizer="gpt4", special_tokens=["<unk>"], unk_token="<unk>", character_coverage=0.999, vocab_size=400,
    ),
}


def _saved_and_read(table: MergeTable) -> MergeTable:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        bpe_tui.save(table, f"{folder}/t.json")
        return bpe_tui.load(f"{folder}/t.json")


@SETTINGS
@given(data=st.data(), chunks=streams)
def test_streaming_gives_the_tables_own_unknown_id(data, chunks):
    name = data.draw(st.sampled_from(sorted(UNKNOWN_TOKEN)))
    if name not in _made:
        _made[name] = UNKNOWN_TOKEN[name]()
    table = _made[name]
    assert table.unk_id >= 0
    text = "".join(chunks)
    whole = table.encode(text)
    assert bpe_tui.UNK_ID not in whole
    assert list(table.encode_iterable(chunks)) == whole
    assert list(table.encode_iterable(iter([text]))) == whole
    assert [table.unk_id if i == bpe_tui.UNK_ID else i for i, _ in table.pieces_iterable(chunks)] == whole


def test_options_are_read_once_from_the_config():
    options = EncodeOptions.from_config(
        {"merge_by": BY_TOKEN_RANK, "ignore_merges": True, "prepend_space": True, "unk_id": True, "fuse_unk": 1,
         "continuing_subword_prefix": "##"},
        "bytes", None,
    )
    assert options.by_token_rank and options.ignore_merges and options.fuse_unk
    assert options.prefix_scheme == "always"  # an older table's prepend_space
    assert options.unk_id is None  # True is not an id
    assert options.continuing_prefix is None  # chars tables only
    assert EncodeOptions.from_config({"merge_by": BY_TOKEN_RANK}, "bytes", "</w>").by_token_rank is False
    assert EncodeOptions.from_config({}, "chars", None) == EncodeOptions()

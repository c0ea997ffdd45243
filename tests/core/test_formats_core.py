"""Native JSON and GPT-2 vocab.json + merges.txt: round trips, atomic writes, malformed input."""

from __future__ import annotations

import json

import pytest

import bpe_tui
from bpe_tui import BPEError, Trainer, TrainerConfig
from tests.conftest import CORPORA


@pytest.fixture(scope="module")
def bytes_table():
    cfg = TrainerConfig(preset="gpt2", vocab_size=400, special_tokens=["<|endoftext|>"])
    t = Trainer.from_files([str(CORPORA / "multilingual.txt")], cfg)
    for _ in t.run():
        pass
    return t.table


@pytest.fixture(scope="module")
def chars_table():
    t = Trainer.from_files([str(CORPORA / "demo.txt")], TrainerConfig(preset="classic", merges=200))
    for _ in t.run():
        pass
    return t.table


SAMPLES = ["the lowest 日本語 👩‍💻 § — “x”", "newer<|endoftext|>widest", "  spaces\n\nand lines"]


@pytest.mark.parametrize("fmt", ["native", "gpt2"])
def test_bytes_round_trip(bytes_table, tmp_path, fmt):
    path = tmp_path / ("t.json" if fmt == "native" else "t")
    bpe_tui.save(bytes_table, str(path), format=fmt)
    again = bpe_tui.load(str(path))
    assert again.source_format == fmt
    assert again.merges == bytes_table.merges and again.vocab == bytes_table.vocab
    assert again.special_tokens == bytes_table.special_tokens
    for s in SAMPLES:
        assert again.encode(s) == bytes_table.encode(s)


def test_native_keeps_config_and_counts(bytes_table, chars_table, tmp_path):
    for table in (bytes_table, chars_table):
        bpe_tui.save(table, str(tmp_path / "x.json"))
        again = bpe_tui.load(str(tmp_path / "x.json"))
        assert again.counts == table.counts and again.config == table.config
        assert (again.units, again.end_of_word, again.pretokenizer) == (table.units, table.end_of_word, table.pretokenizer)
        assert again.tokens("the lowest ünknown") == table.tokens("the lowest ünknown")


def test_chars_mode_unknown_characters_are_marked_not_fatal(chars_table):
    pieces = chars_table.pieces("the 日本")
    assert (bpe_tui.UNK_ID, "日") in pieces and (bpe_tui.UNK_ID, "本") in pieces
    assert chars_table.decode(chars_table.encode("the")) == "the "


def test_failed_save_leaves_the_old_file_whole(bytes_table, tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text("old contents")
    import bpe_tui.core.atomic as atomic

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(BPEError, match="No space left"):
        bpe_tui.save(bytes_table, str(path))
    assert path.read_text() == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


def native(tmp_path, **override) -> str:
    data = {
        "format": "bpe-tui merge table", "version": 1, "units": "chars", "pretokenizer": "whitespace",
        "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b", 3]],
    }
    data.update(override)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize(
    "override, message",
    [
        (dict(version=7), "unknown version 7 (key 'version'"),
        (dict(merges=[["a", "c", 1]]), "merges[0]: merge 'a' 'c' names token 'c', which is not in the vocabulary"),
        (dict(merges=[["a", "b", 3], ["a", "b", 3]]), "merges[1]: merge 'a' 'b' is listed twice"),
        (dict(merges=[["a"]]), "merges[0]: expected [left, right, count]"),
        (dict(vocab={"a": 0, "b": "x"}), "vocab['b']: id 'x' is not an integer"),
        (dict(units="words"), "key 'units' must be"),
    ],
)
def test_native_malformed(tmp_path, override, message):
    path = native(tmp_path, **override)
    with pytest.raises(BPEError) as exc:
        bpe_tui.load(path)
    assert message in str(exc.value) and path in str(exc.value)


def test_native_bad_json_names_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"format": "bpe-tui merge table",\n"version": 1,\n"units": bytes}')
    with pytest.raises(BPEError, match=r"bad JSON at line 3"):
        bpe_tui.load(str(path), format="native")


def gpt2_dir(tmp_path, vocab, merges_text) -> str:
    (tmp_path / "vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "merges.txt").write_text(merges_text)
    return str(tmp_path)


BASE = {chr(c): i for i, c in enumerate(range(ord("a"), ord("e")))}  # a..d


@pytest.mark.parametrize(
    "vocab, merges, message",
    [
        (dict(BASE, ab=4), "#version: 0.2\na b c\n", "merges.txt:2: expected 2 tokens"),
        (dict(BASE, ab=4), "a b\na b\n", "line 2: merge 'a' 'b' is listed twice"),
        (dict(BASE, ab=4), "a x\n", "is not in the vocabulary"),
        (dict(BASE), "a b\n", "line 1: the merged token 'ab' is not in the vocabulary"),
    ],
)
def test_gpt2_malformed(tmp_path, vocab, merges, message):
    path = gpt2_dir(tmp_path, vocab, merges)
    with pytest.raises(BPEError) as exc:
        bpe_tui.load(path)
    assert message in str(exc.value) and "merges.txt" in str(exc.value)


def test_gpt2_missing_partner_file(tmp_path):
    (tmp_path / "vocab.json").write_text("{}")
    with pytest.raises(BPEError, match="not a merge table"):
        bpe_tui.load(str(tmp_path / "vocab.json"))


def test_from_vocab_merges_keeps_ids():
    vocab = {10: b"a", 11: b"b", 12: b" ", 20: b"ab", 21: b" ab", 99: b"<s>"}
    table = bpe_tui.MergeTable.from_vocab_merges(vocab, [(b"a", b"b"), (b" ", b"ab")], special_tokens=["<s>"])
    assert table.encode(" ab ab<s>") == [21, 21, 99]
    assert table.special_tokens == {"<s>": 99}
    tree = table.merge_tree(21)
    assert (tree.rank, tree.left.surface, tree.right.surface, tree.leaves()) == (1, b" ", b"ab", [b" ", b"a", b"b"])


def test_truncated_table_and_trace():
    t = Trainer.from_text((CORPORA / "cs336_example.txt").read_text(), TrainerConfig(preset="gpt2", pretokenizer="whitespace", merges=6))
    for _ in t.run():
        pass
    table = t.table
    assert table.truncated(2).tokens("newest") == [b"n", b"e", b"w", b"est"]
    steps = table.trace("newest")
    assert [(s.rank, s.new_token) for s in steps] == [(0, b"st"), (1, b"est"), (4, b"west"), (5, b"ne")]
    assert steps[-1].symbols == (b"ne", b"west")


def test_dropout_is_seeded_and_only_splits_further():
    t = Trainer.from_files([str(CORPORA / "demo.txt")], TrainerConfig(preset="gpt2", merges=300))
    for _ in t.run():
        pass
    table = t.table
    text = "the lowest newer widest morning"
    assert table.encode(text, dropout=0.0) == table.encode(text)
    a = table.encode(text, dropout=0.3, seed=1)
    assert a == table.encode(text, dropout=0.3, seed=1)
    assert table.decode(a) == text and len(a) >= len(table.encode(text))
    assert len(table.encode(text, dropout=1.0)) == len(text.encode("utf-8"))


def test_describe_without_building_a_rank_files_merges(tmp_path, monkeypatch):
    """describe(build=False) leaves a rank file's merge list unbuilt (merges: None) until it
    is built; describe() builds it to count the merges."""
    from tests.conftest import rank_file

    monkeypatch.setenv("BPE_TUI_CACHE", str(tmp_path / "cache"))
    table = bpe_tui.load(rank_file(tmp_path / "r.tiktoken", [b"ab", b"cd", b"abcd"]))
    summary = table.describe(build=False)
    assert summary["merges"] is None and summary["vocab_size"] == 259 and not table.merges_built
    assert table.describe()["merges"] == 3 and table.merges_built
    assert table.describe(build=False)["merges"] == 3


def test_a_folder_holding_one_table_file_opens_that_file(bytes_table, tmp_path, capsys):
    """tables/o200k/ holds o200k_base.tiktoken alone: the folder means the file (compressed or
    not), as people point at the folder a table was downloaded into."""
    from bpe_tui.cli import main

    for fmt, name in [("tiktoken", "t.tiktoken"), ("minbpe", "t.model")]:
        folder = tmp_path / fmt
        folder.mkdir()
        bpe_tui.save(bytes_table, str(folder / name), format=fmt)
        (folder / ".hidden").write_text("not a table", encoding="utf-8")
        table = bpe_tui.load(str(folder))
        assert table.source_format == fmt and table.merges == bytes_table.merges
        assert main(["inspect", str(folder)]) == 0
        assert f"{fmt} merge table" in capsys.readouterr().out


def test_a_folder_of_several_tables_names_them(bytes_table, tmp_path, capsys):
    from bpe_tui.cli import main
    from bpe_tui.core.tables.formats import SeveralTables

    for name, fmt in [("a.model", "minbpe"), ("b.tiktoken", "tiktoken")]:
        bpe_tui.save(bytes_table, str(tmp_path / name), format=fmt)
    (tmp_path / "notes.txt").write_text("a corpus, not a table\n", encoding="utf-8")
    with pytest.raises(SeveralTables, match=r"a folder of 2 merge tables; open one of them: a\.model, b\.tiktoken$"):
        bpe_tui.load(str(tmp_path))
    assert main(["inspect", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "open one of them" in err


def test_a_folder_of_one_compressed_corpus_is_no_table(tmp_path):
    import gzip

    (tmp_path / "corpus.txt.gz").write_bytes(gzip.compress(b"the cat sat on the mat\n" * 50, mtime=0))
    with pytest.raises(BPEError, match="not a merge table"):
        bpe_tui.load(str(tmp_path))

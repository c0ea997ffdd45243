"""minbpe .model files: round trips, minbpe's own example, malformed files."""

from __future__ import annotations

import pytest

import bpe_tui
from tests.conftest import CORPORA

from .conftest import FIXTURES, TEXTS, assert_load_fails, same_table, write


def test_wikipedia_example_from_minbpe_readme():
    """minbpe's README: BasicTokenizer trained on "aaabdaaabac" to 256 + 3 tokens encodes it
    as [258, 100, 258, 97, 99]; the fixture is that tokenizer's .model file."""
    table = bpe_tui.load(str(FIXTURES / "wikipedia_basic.model"))
    assert table.source_format == "minbpe"
    assert table.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert table.decode([258, 100, 258, 97, 99]) == "aaabdaaabac"


def test_our_first_seen_trainer_writes_minbpes_file(tmp_path):
    """minbpe's tie-break is first-seen; our trainer with it writes the same file."""
    corpus = write(tmp_path / "w.txt", "aaabdaaabac")
    table = bpe_tui.train(corpus, preset="gpt2", pretokenizer=r"regex:(?s).+", tie_break="first-seen", merges=3)
    out = tmp_path / "ours.model"
    bpe_tui.save(table, str(out), format="minbpe")
    assert out.read_text() == (FIXTURES / "wikipedia_basic.model").read_text()


def test_regex_tokenizer_fixture():
    table = bpe_tui.load(str(FIXTURES / "regex_gpt4.model"))
    assert table.pretokenizer == "gpt4"
    assert table.special_tokens == {"<|endoftext|>": 100257}
    assert table.vocab[259] == b"hello" and table.vocab[260] == b" w"
    assert table.encode("hello world<|endoftext|>") == [259, 260, 111, 114, 108, 100, 100257]


def test_round_trip_identical_table(tmp_path):
    table = bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt4", tie_break="first-seen", vocab_size=700)
    path = tmp_path / "t.model"
    bpe_tui.save(table, str(path), format="minbpe")
    back = bpe_tui.load(str(path))
    same_table(back, table)
    bpe_tui.save(back, str(tmp_path / "again.model"), format="minbpe")
    assert (tmp_path / "again.model").read_text() == path.read_text()


def test_specials_are_renumbered_after_the_merges(trained_table, tmp_path):
    from bpe_tui.core.tables.formats import minbpe

    notes = minbpe.losses(trained_table)
    assert any("ids change" in n for n in notes)
    path = tmp_path / "t.model"
    bpe_tui.save(trained_table, str(path), format="minbpe")
    back = bpe_tui.load(str(path))
    assert back.merges == trained_table.merges
    n = 256 + trained_table.num_merges
    assert back.special_tokens == {"<|endoftext|>": n, "<|pad|>": n + 1}
    for text in TEXTS:
        assert back.decode(back.encode(text)) == trained_table.decode(trained_table.encode(text))
        assert len(back.encode(text)) == len(trained_table.encode(text))


@pytest.mark.parametrize(
    "content, needles",
    [
        ("minbpe v2\n\n0\n97 97\n", ["line 1", "minbpe v1"]),
        ("minbpe v1\n", ["truncated"]),
        ("minbpe v1\n\n2\n<a> 300\n", ["truncated", "2 special tokens"]),
        ("minbpe v1\n\nx\n", ["line 3", "number of special tokens"]),
        ("minbpe v1\n\n0\n97 97\n300 97\n", ["line 5", "token id 300 does not exist"]),
        ("minbpe v1\n\n0\n97 97 97\n", ["line 4", "two token ids"]),
        ("minbpe v1\n\n1\n<x> 256\n97 97\n", ["'<x>'", "256"]),
    ],
    ids=["wrong-header", "truncated", "truncated-specials", "bad-count", "missing-token", "bad-merge", "special-clash"],
)
def test_malformed(tmp_path, content, needles):
    assert_load_fails(tmp_path / "bad.model", content, "minbpe", *needles)

"""subword-nmt / fastBPE codes: the attached-</w> mapping, round trips, fixtures, malformed files.

``apply_codes`` below is subword-nmt's apply_bpe algorithm (encode one word) written from its
documented behaviour: version 0.1 appends a bare ``</w>`` symbol, version 0.2 attaches it to the
last character; then the adjacent pair with the lowest code rank is merged everywhere, until
no pair is a code.
"""

from __future__ import annotations

import pytest

import bpe_tui
from bpe_tui import BPEError
from tests.conftest import CORPORA

from .conftest import FIXTURES, assert_load_fails, same_table

EOW = "</w>"


def read_codes(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    version = (0, 1)
    if lines and lines[0].startswith("#version:"):
        version = tuple(int(x) for x in lines[0].split()[-1].split("."))
        lines = lines[1:]
    codes = [tuple(line.split(" ")[:2]) for line in lines if line]
    return codes, version


def apply_codes(codes, version, word: str) -> tuple[str, ...]:
    ranks = {}
    for i, code in enumerate(codes):
        ranks.setdefault(code, i)
    symbols = tuple(word) + (EOW,) if version == (0, 1) else tuple(word[:-1]) + (word[-1] + EOW,)
    while len(symbols) > 1:
        pairs = set(zip(symbols, symbols[1:]))
        best = min(pairs, key=lambda p: ranks.get(p, float("inf")))
        if best not in ranks:
            break
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == best:
                out.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = tuple(out)
    return symbols


def attached_view(tokens) -> tuple[str, ...]:
    """Our segmentation with a bare </w> glued onto the symbol before it."""
    tokens = list(tokens)
    if len(tokens) > 1 and tokens[-1] == EOW:
        tokens[-2:] = [tokens[-2] + EOW]
    return tuple(tokens)


def corpus_words():
    text = (CORPORA / "demo.txt").read_text(encoding="utf-8")
    words = list(dict.fromkeys(text.split()))
    return words + ["bookshelf", "lowest", "unseen", "aaaa", "tttt", "ee"]


@pytest.fixture(scope="module")
def classic_table():
    return bpe_tui.train(str(CORPORA / "demo.txt"), preset="classic", merges=400)


def test_version_02_codes_segment_like_our_table(classic_table, tmp_path):
    path = tmp_path / "codes.txt"
    bpe_tui.save(classic_table, str(path), format="subword-nmt")
    codes, version = read_codes(path)
    assert version == (0, 2)
    assert not any(right == EOW for _, right in codes)
    checked = 0
    for word in corpus_words():
        if any(classic_table.token_id(c) is None for c in word):
            continue
        assert apply_codes(codes, version, word) == attached_view(classic_table.tokens(word)), word
        checked += 1
    assert checked > 500


def test_version_01_codes_are_our_table_as_it_is(classic_table, tmp_path):
    path = tmp_path / "codes01.txt"
    bpe_tui.save(classic_table, str(path), format="subword-nmt", version="0.1")
    codes, version = read_codes(path)
    assert version == (0, 1)
    for word in corpus_words()[:800]:
        if all(classic_table.token_id(c) is not None for c in word):
            assert apply_codes(codes, version, word) == tuple(classic_table.tokens(word)), word
    back = bpe_tui.load(str(path))  # codes hold no vocabulary: ids differ, merges and pieces do not
    assert back.merges == classic_table.merges and back.end_of_word == EOW
    assert back.tokens("bookshelf lowest") == classic_table.tokens("bookshelf lowest")


def test_reading_02_codes_encodes_like_subword_nmt(classic_table, tmp_path):
    path = tmp_path / "codes.txt"
    bpe_tui.save(classic_table, str(path), format="subword-nmt")
    codes, version = read_codes(path)
    table = bpe_tui.load(str(path))
    assert table.source_format == "subword-nmt" and table.end_of_word == EOW
    for word in corpus_words():
        if all(table.token_id(c) is not None for c in word):
            assert tuple(table.tokens(word)) == apply_codes(codes, version, word), word


def test_round_trip(classic_table, tmp_path):
    first = tmp_path / "a.codes"
    bpe_tui.save(classic_table, str(first), format="subword-nmt", counts=True)
    table = bpe_tui.load(str(first))
    second = tmp_path / "b.codes"
    bpe_tui.save(table, str(second), format="subword-nmt", counts=True)
    assert second.read_text() == first.read_text()
    same_table(bpe_tui.load(str(second)), table)


def test_paper_example_fixture():
    """Sennrich et al.'s low / lower / newest / widest, as version 0.2 codes."""
    path = FIXTURES / "paper_example.codes"
    table = bpe_tui.load(str(path))
    codes, version = read_codes(path)
    expected = {"lowest": ("low", "est</w>"), "newer": ("new", "e", "r</w>"), "wider": ("wid", "e", "r</w>"),
                "low": ("low</w>",), "lower": ("lower</w>",), "widest": ("widest</w>",), "wildest": ("wi", "l", "d", "est</w>")}
    for word, pieces in expected.items():
        assert apply_codes(codes, version, word) == pieces
        assert tuple(table.tokens(word)) == pieces
    assert table.decode(table.encode("lowest newer")) == "lowest newer "


def test_fastbpe_fixture_with_counts(tmp_path):
    path = FIXTURES / "fastbpe.codes"
    table = bpe_tui.load(str(path))
    assert table.source_format == "subword-nmt" and table.config["codes_version"] == "0.2"
    implied = table.config["implied_merges"]
    assert table.counts[implied:] == [9, 9, 7, 5, 6, 6, 6, 2]
    assert tuple(table.tokens("newest")) == ("newest</w>",)
    out = tmp_path / "out.codes"
    bpe_tui.save(table, str(out), format="subword-nmt", counts=True)
    assert out.read_text().splitlines()[1:] == path.read_text().splitlines()


@pytest.mark.parametrize(
    "content, needles",
    [
        ("#version: 0.3\ne s\n", ["line 1", "0.3"]),
        ("#version: 0.2\ne s t\n", ["line 2", "count"]),
        ("#version: 0.2\ne s\nes x y z\n", ["line 3", "4 fields"]),
        ("#version: 0.2\ne s\nst e\n", ["line 3", "'st'", "not in the vocabulary"]),
        ("#version: 0.2\n", ["no merges"]),
        ("#version: 0.2\ne s 3\nt h\n", ["line 3", "count column"]),
    ],
    ids=["wrong-version", "bad-count", "too-many-fields", "missing-token", "empty", "mixed-counts"],
)
def test_malformed(tmp_path, content, needles):
    assert_load_fails(tmp_path / "bad.codes", content, "subword-nmt", *needles)


def test_bytes_table_cannot_be_written(trained_table, tmp_path):
    with pytest.raises(BPEError, match="chars-mode"):
        bpe_tui.save(trained_table, str(tmp_path / "x.codes"), format="subword-nmt")

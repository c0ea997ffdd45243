"""compare(): counts, characters per token, and differing spans aligned by character offsets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_tui
from bpe_tui.core.analysis.compare import compare, format_comparison, token_spans
from tests.conftest import CORPORA

from .conftest import TEXTS

SMALL = bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", vocab_size=300)
BIG = bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", vocab_size=900)
CLASSIC = bpe_tui.train(str(CORPORA / "demo.txt"), preset="classic", vocab_size=400)


def test_same_table_no_differences():
    for text in TEXTS:
        result = compare(BIG, BIG, text)
        assert result.same and result.a.count == result.b.count == len(BIG.encode(text))


def test_bookshelf():
    text = "the bookshelf"
    result = compare(BIG, SMALL, text)
    assert result.a.count == len(BIG.encode(text)) and result.b.count == len(SMALL.encode(text))
    assert abs(result.a.chars_per_token - len(text) / result.a.count) < 1e-9
    for d in result.differences:
        assert d.text == text[d.start : d.end]
        assert [t.key for t in d.a] != [t.key for t in d.b]
        assert "".join(BIG.decode([t.id]) for t in d.a) == d.text
    report = format_comparison(result, "big", "small")
    assert "split differently" in report


def test_bytes_against_chars_with_emoji_and_marker():
    text = "Zoë saw 😀 twice, lowest"
    result = compare(BIG, CLASSIC, text)
    emoji = text.index("😀")
    byte_tokens = [t for t in result.a.tokens if t.start == emoji]
    assert byte_tokens and all(t.end == emoji + 1 for t in byte_tokens)
    assert any(d.start <= emoji < d.end for d in result.differences)
    assert sum(t.nbytes for t in result.a.tokens) == len(text.encode())
    assert sum(t.nbytes for t in result.b.tokens) == len(text.replace(" ", "").encode())  # whitespace split drops spaces


def test_whitespace_dropping_pretokenizer_offsets():
    spans = token_spans(CLASSIC, "a  bc")
    assert all(0 <= t.start <= t.end <= 5 for t in spans)
    assert [t.start for t in spans if t.nbytes][:1] == [0]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab cé\n😀日<|endoftext|>"), max_size=40))
def test_spans_tile_the_text(text):
    for table in (BIG, SMALL):
        spans = token_spans(table, text)
        assert sum(t.nbytes for t in spans) == len(text.encode("utf-8"))
        pos = 0
        for t in spans:
            assert t.start <= pos <= t.end or (t.start == pos)
            pos = max(pos, t.end)
        assert pos == len(text)
    result = compare(BIG, SMALL, text)
    for d in result.differences:
        assert d.text == text[d.start : d.end]

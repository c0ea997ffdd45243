"""Evaluation metrics on hand-countable text, safe cuts for parallel encoding, and agreement
with tiktoken's own counts on real tables (../shared)."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

import bpe_tui
from bpe_tui.core.analysis import evaluate as ev
from bpe_tui.core.analysis import reports
from bpe_tui.core.errors import BPEError
from bpe_tui.core.tables.table import MergeTable
from bpe_tui.core.text.blocks import plan_ranges
from tests.conftest import GPT2_DIR, SHARED, TINYSHAKESPEARE, need


def gpt2_table_and_tiktoken():
    """GPT-2's table as we read it, and tiktoken's Encoding built from the same files."""
    import tiktoken

    from bpe_tui.core.engine.units import gpt2_str_to_bytes
    from bpe_tui.core.text.pretokenize import GPT2_PATTERN

    vocab = json.loads(need(GPT2_DIR / "vocab.json").read_text(encoding="utf-8"))
    ranks = {gpt2_str_to_bytes(s): i for s, i in vocab.items() if s != "<|endoftext|>"}
    reference = tiktoken.Encoding("gpt2-shared", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 50256})
    return bpe_tui.load(str(GPT2_DIR)), reference


def aa_table() -> MergeTable:
    """Characters a and b, one merge a + a, whitespace split: every count can be done by hand."""
    return MergeTable("chars", {0: "a", 1: "b", 2: "aa"}, [(0, 0, 2)], pretokenizer="whitespace")


def test_metrics_by_hand():
    # words: aa | b | aab ; tokens: aa | b | aa b
    m = ev.evaluate_text(aa_table(), "aa b aab\n")
    assert (m.tokens, m.chars, m.bytes, m.words) == (4, 9, 9, 3)
    assert m.chars_per_token == 9 / 4 and m.fertility == 4 / 3
    assert m.continued_share == pytest.approx(1 / 3)  # aab is split
    assert m.kept_whole_share == pytest.approx(2 / 3)  # aa and b always whole
    assert m.used == 2 and m.utilization == pytest.approx(2 / 3)
    # p = (1/2, 1/2): H_2.5 = 1 bit, over log2 of the vocabulary size 3
    assert m.renyi_efficiency == pytest.approx(1 / math.log2(3))


def test_kept_whole_is_per_distinct_word_and_every_occurrence():
    # "aab" split once; "aa" whole twice; "aaa" -> aa a: split
    m = ev.evaluate_text(aa_table(), "aa aa aaa")
    assert m.word_types == 2 and m.whole_types == 1 and m.continued == 1 and m.words == 3


def test_renyi_efficiency_formula():
    counts = {1: 6, 2: 3, 3: 1}
    p = [0.6, 0.3, 0.1]
    h = math.log2(sum(x**2.5 for x in p)) / (1 - 2.5)
    assert ev.renyi_efficiency(counts, 8) == pytest.approx(h / 3)
    shannon = -sum(x * math.log2(x) for x in p)
    assert ev.renyi_efficiency(counts, 8, alpha=1) == pytest.approx(shannon / 3)
    assert ev.renyi_efficiency({}, 8) is None


def test_bytes_table_words_and_whitespace_tokens():
    """A byte-level table: multi-byte words count bytes, a token of spaces belongs to no word."""
    table = bpe_tui.train(str(need_corpus("demo.txt")), preset="gpt2", merges=50)
    text = "é  naïve\n"
    m = ev.evaluate_text(table, text)
    assert m.aligned and m.words == 2 and m.bytes == len(text.encode()) and m.chars == len(text)
    assert m.tokens == len(table.encode(text))


def need_corpus(name):
    from tests.conftest import CORPORA

    return CORPORA / name


def test_premium_and_reports(tmp_path):
    (tmp_path / "one.txt").write_text("aa aa\n", encoding="utf-8")
    (tmp_path / "two.txt").write_text("ab ab ab\n", encoding="utf-8")
    corpora = [ev.parse_corpus(f"first={tmp_path / 'one.txt'}"), ev.parse_corpus(str(tmp_path / "two.txt"))]
    assert [c.label for c in corpora] == ["first", "two"]
    result = ev.evaluate([aa_table()], corpora, ["aa"], workers=1)
    assert result.get(0, 0).tokens == 2 and result.get(0, 1).tokens == 6
    assert result.premium(0, 1) == 3.0
    rows = result.rows()
    assert rows[1]["premium"] == 3.0 and rows[1]["tokens"] == 6 and rows[0]["corpus"] == "first"
    text = reports.format_table(result).splitlines()
    assert text[0].split()[:3] == ["table", "corpus", "tokens"] and len(text) == 4
    assert len({len(line) for line in text[:2]}) == 1  # header and rule are aligned
    md = reports.format_markdown(result).splitlines()
    assert md[1].startswith("|:---|:---|---:") and md[3].split("|")[-2].strip() == "3.000"


def test_bad_corpus_specs(tmp_path):
    with pytest.raises(BPEError, match="no such file"):
        ev.parse_corpus(str(tmp_path / "missing.txt"))
    with pytest.raises(BPEError, match="give a file"):
        ev.parse_corpus("label=")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(BPEError, match="empty"):
        ev.evaluate([aa_table()], [ev.parse_corpus(str(empty))], workers=1)


# ---------------------------------------------------------------------- cutting text safely


def blank_line_table() -> MergeTable:
    """Bytes, GPT-2's regex, merges \\n + \\n and space + \\n: cuts at the wrong line end show."""
    vocab = {b: bytes([b]) for b in range(256)}
    vocab[256] = b"\n\n"
    vocab[257] = b" \n"
    return MergeTable("bytes", vocab, [(10, 10, 256), (32, 10, 257)], pretokenizer="gpt2")


def test_line_cuts_can_change_gpt2_pieces_and_safe_cuts_do_not():
    table = blank_line_table()
    whole = "x\n\n\ny"
    assert len(table.encode(whole)) == 4  # x, \n\n, \n, y
    assert len(table.encode("x\n")) + len(table.encode("\n\ny")) == 5  # a line end is not enough
    # spaces before a line end: " \n" is one piece at the end of a text, " " + "\n" inside one
    assert len(table.encode("a \n")) + len(table.encode("b")) == 3 and len(table.encode("a \nb")) == 4
    assert ev._last_safe(whole) == 0  # no line end between two non-space characters
    assert ev._last_safe("a\nb\n\nc") == 2
    pieces = list(ev.safe_pieces(["x\n", "\n\ny\n", "z\n", "\nw"]))
    assert "".join(pieces) == "x\n\n\ny\nz\n\nw"
    assert pieces == ["x\n\n\ny\n", "z\n\nw"]


def test_ranges_sum_to_the_whole_file(tmp_path):
    """Per-range encoding adds up to whole-file encoding once the cuts are safe (and not before)."""
    table = blank_line_table()
    line = "word \n\n\nnext line\n  indented\n"
    path = tmp_path / "big.txt"
    path.write_text(line * 40_000, encoding="utf-8")  # ~1.1 MB: several ranges
    size = path.stat().st_size
    whole_ids = table.encode(path.read_text(encoding="utf-8"))
    whole = len(whole_ids)
    raw = plan_ranges(str(path), size, 100_000)
    safe = ev.safe_ranges(str(path), raw)
    assert len(raw) > 5 and len(safe) > 5 and safe[0][0] == 0 and safe[-1][1] == size
    tallier = ev.Tallier(table)
    assert sum(ev.tally_range(tallier, str(path), a, b).tokens for a, b in safe) == whole
    def counts(spans, whole):
        total = ev.Tally()
        for a, b in spans:
            total.add(ev.tally_range(tallier, str(path), a, b, whole=whole))
        return total.counts

    assert counts(safe, False) == Counter(whole_ids)
    assert counts(raw, True) != Counter(whole_ids)  # plain line-aligned ranges split differently
    corpus = [ev.parse_corpus(str(path))]
    one = ev.evaluate([table], corpus, workers=1).get(0, 0)
    two = ev.evaluate([table], corpus, workers=2).get(0, 0)
    assert one.tokens == two.tokens == whole
    assert (one.words, one.continued, one.counts) == (two.words, two.continued, two.counts)


def test_progress_and_cancel(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("aa b\n" * 200_000, encoding="utf-8")
    seen = []
    ev.evaluate([aa_table(), aa_table()], [ev.parse_corpus(str(path))], workers=1, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1][0] == seen[-1][1] == 2 * path.stat().st_size
    with pytest.raises(ev.Cancelled):
        ev.evaluate([aa_table(), aa_table()], [ev.parse_corpus(str(path))], workers=1, should_stop=lambda: True)


# ---------------------------------------------------------------------- real tables (../shared)


def test_gpt2_on_tinyshakespeare_agrees_with_tiktoken():
    table, reference = gpt2_table_and_tiktoken()
    text = need(TINYSHAKESPEARE).read_text(encoding="utf-8")
    theirs = reference.encode_ordinary(text)
    for workers in (1, 2):
        m = ev.evaluate([table], [ev.parse_corpus(str(TINYSHAKESPEARE))], workers=workers).get(0, 0)
        assert m.tokens == len(theirs) == 338_025
        assert m.used == len(set(theirs)) == 11_706
        assert round(m.bytes_per_token, 4) == round(len(text.encode()) / len(theirs), 4) == 3.2997
        assert m.words == len(text.split())


def test_cl100k_on_the_parallel_set_agrees_with_tiktoken():
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    from bpe_tui.core.text.pretokenize import GPT4_PATTERN

    path = need(SHARED / "tables" / "cl100k" / "cl100k_base.tiktoken")
    reference = tiktoken.Encoding("cl100k-shared", pat_str=GPT4_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens={})
    result = ev.evaluate([bpe_tui.load(str(path))], ev.parallel_set(), workers=1)
    assert result.corpora[0] == "en" and len(result.corpora) >= 10
    for c, corpus in enumerate(ev.parallel_set()):
        text = open(corpus.paths[0], encoding="utf-8").read()
        assert result.get(0, c).tokens == len(reference.encode_ordinary(text)), corpus.label
    assert all(result.premium(0, c) > 1 for c in range(1, len(result.corpora)))


def test_parallel_set_is_parallel():
    corpora = ev.parallel_set()
    assert [c.label for c in corpora][:1] == ["en"] and len(corpora) >= 10
    lines = {c.label: open(c.paths[0], encoding="utf-8").read().splitlines() for c in corpora}
    assert {len(v) for v in lines.values()} == {30}
    assert all(line.strip() for v in lines.values() for line in v)


def test_unknown_characters_count_as_what_they_are():
    """A chars table without a line-break symbol: the unknown \\n is whitespace, the unknown c a letter."""
    table = MergeTable("chars", {0: "a", 1: "b", 2: "aa", 3: " "}, [(0, 0, 2)], pretokenizer="gpt2")
    m = ev.evaluate_text(table, "aa\nb c")
    assert table.encode("aa\nb c") == [2, -1, 1, 3, -1]
    assert m.aligned and m.words == 3 and m.continued == 0 and m.tokens == 5

"""The vocabulary audit on small tables built here, where every answer is known by construction,
and on GPT-2's real table (../shared) for the counts tiktoken agrees with."""

from __future__ import annotations

import pytest

from bpe_tui.core.analysis.audit import (
    audit,
    characters_of,
    inside_counts,
    scripts_of,
    tree_text,
)
from bpe_tui.core.tables.table import MergeTable


def byte_table() -> tuple[MergeTable, dict[bytes, int]]:
    """256 single bytes, then merges chosen so that each category has known members.

    ``xyz`` is made by (x, yz) but (x, y) has a lower rank, so encoding "xyz" never gives it;
    ``.\\n`` is cut by GPT-2's regex; `` \\xc3`` is a space and half of "é"; ``aб`` mixes
    Latin and Cyrillic; 400 and 401 are in the vocabulary without a merge (401 repeats
    ``abc``), 403 holds the special token's text.
    """
    vocab = {b: bytes([b]) for b in range(256)}
    merges_by_surface = [
        (b"a", b"b"), (b"ab", b"c"), (b".", b"\n"), (b"x", b"y"), (b"y", b"z"), (b"x", b"yz"),
        (b"\xc3", b"\xa9"), (b" ", b"\xc3"), (b" ", b" "), (b"\xd0", b"\xb1"), (b"a", "б".encode()),
        (b"abc", b"d"),
    ]
    ids = {bytes([b]): b for b in range(256)}
    merges = []
    for left, right in merges_by_surface:
        new = len(vocab)
        vocab[new] = left + right
        ids[left + right] = new
        merges.append((ids[left], ids[right], new))
    vocab[400] = b"hello"
    vocab[401] = b"abc"
    vocab[402] = b"<|end|>"
    vocab[403] = b"<|end|>!"
    table = MergeTable("bytes", vocab, merges, {"<|end|>": 402}, pretokenizer="gpt2")
    return table, ids


def test_categories_by_construction():
    table, ids = byte_table()
    report = audit(table, long_chars=4)
    assert set(report["unbuildable"].ids) == {400, 401, 403}
    assert report["unreachable"].ids == (ids[b".\n"], ids[b"xyz"])
    assert report["partial_utf8"].ids == (ids[b" \xc3"],)  # single bytes are the alphabet
    assert report["partial_utf8"].notes[ids[b" \xc3"]] == "· + start of é"
    assert report["duplicates"].ids == (ids[b"abc"], 401)
    assert report["contains_special"].ids == (403,)
    assert report["mixed_scripts"].ids == (ids["aб".encode()],)
    assert report["mixed_scripts"].notes[ids["aб".encode()]] == "Latin + Cyrillic"
    # 4 characters or more: hello, <|end|>!, abcd (the special token itself is not listed)
    assert set(report["long"].ids) == {400, 403, ids[b"abcd"]}
    # no corpus: the corpus categories are empty and say they were not computed
    assert not report["unused"].computed and not report["intermediate"].computed
    assert report.summary()["unused"] is None and report.utilization is None


def test_whitespace_only_lists_exactly_the_blank_tokens():
    table, ids = byte_table()
    blank = {i for i, s in table.vocab.items() if s.decode("utf-8", "replace").strip() == "" and s}
    assert set(audit(table)["whitespace_only"].ids) == blank
    assert ids[b"  "] in blank and 32 in blank and 10 in blank


def test_corpus_categories_from_emitted_counts():
    table, ids = byte_table()
    ab, abc, abcd = ids[b"ab"], ids[b"abc"], ids[b"abcd"]
    emitted = {abcd: 10, abc: 2, ids[b"xy"]: 5, ord("z"): 5}
    inside = inside_counts(table, emitted)
    # abc: inside 10 abcd; ab: inside 12 abc occurrences (10 in abcd + 2 emitted)
    assert inside[abc] == 10 and inside[ab] == 12 and inside[ord("a")] == 12 and inside[ord("d")] == 10
    assert inside[ord("x")] == 5 and inside.get(ids[b"yz"], 0) == 0
    report = audit(table, emitted)
    # ab: alone 0 of 12 -> scaffold; abc: alone 2 of 12 (17%) -> not below 10%
    assert report["intermediate"].ids == (ab,)
    assert report["intermediate"].notes[ab] == "alone 0×, inside longer tokens 12×"
    assert report.used == 4 and report.corpus_tokens == 22
    unused = set(report["unused"].ids)
    assert unused == set(table.vocab) - set(emitted) - {402}  # special tokens are not "unused"
    assert report.utilization == pytest.approx(4 / len(table))


def test_chars_table_with_end_of_word():
    """(o, w) comes first, so "low" can never be built as lo + w; "lo" can."""
    vocab = {0: "l", 1: "o", 2: "w", 3: "</w>", 4: "ow", 5: "lo", 6: "low", 7: "low</w>", 8: "ow</w>"}
    merges = [(1, 2, 4), (0, 1, 5), (5, 2, 6), (6, 3, 7), (4, 3, 8)]
    table = MergeTable("chars", vocab, merges, pretokenizer="whitespace", end_of_word="</w>")
    assert table.encodes_to_itself(5) and table.encodes_to_itself(4) and table.encodes_to_itself(8)
    assert not table.encodes_to_itself(6) and not table.encodes_to_itself(7)
    assert audit(table)["unreachable"].ids == (6, 7)
    assert table.unbuildable_ids() == [] and table.base_ids() == {0, 1, 2, 3}


def test_tree_text_and_helpers():
    table, ids = byte_table()
    assert tree_text(table, ids[b"abcd"]) == "[[[a b] c] d]"
    assert tree_text(table, ord("a")) == "a"
    assert scripts_of("hello") == ["Latin"] and scripts_of("日本語です") == ["CJK"] and scripts_of("123") == []
    assert scripts_of("Москва-city") == ["Cyrillic", "Latin"]
    pieces = {"é".encode()[:1]: ["é"], "日".encode()[1:]: ["日"]}
    assert characters_of("日".encode()[1:], pieces) == "end of 日"
    assert characters_of("é".encode()[:1], pieces) == "start of é"
    assert characters_of(b"\xa9 x\xc3", {b"\xa9": ["é"], b"\xc3": ["é"]}) == "end of é + ·x + start of é"


def test_gpt2_audit_on_tinyshakespeare_agrees_with_tiktoken():
    """Tokens, used ids and utilization from our encoding equal tiktoken's own count."""
    from collections import Counter

    from tests.conftest import TINYSHAKESPEARE, need
    from tests.core.test_evaluate import gpt2_table_and_tiktoken

    table, reference = gpt2_table_and_tiktoken()
    text = need(TINYSHAKESPEARE).read_text(encoding="utf-8")
    theirs = reference.encode_ordinary(text)
    report = audit(table, Counter(table.encode(text)))
    assert report.corpus_tokens == len(theirs) == 338_025
    assert report.used == len(set(theirs)) == 11_706
    assert report.utilization == pytest.approx(11_706 / 50_257)
    assert len(report["unused"]) == 50_257 - 11_706 - 1  # <|endoftext|> is special, not "unused"
    assert report["unreachable"].ids == () and report["unbuildable"].ids == ()
    assert len(report["partial_utf8"]) > 0 and len(report["intermediate"]) > 0

"""The compiled word tally (``tally_words`` in core/engine/_merge_core.c) gives the Python
tally's numbers, exactly.

:meth:`Tallier.add <bpe_tui.core.analysis.evaluate.Tallier.add>` hands a text's ids to the
compiled core where it runs; :meth:`~bpe_tui.core.analysis.evaluate.Tallier.add_each` is the
straightforward computation in Python, the reference. Both tally the same texts into tallies of
their own, which must be equal in every field, down to the order in which the id counts were
first met (the Rényi sum adds the counts in that order). Texts: random Unicode with the
characters that make word metrics hard (whitespace of every kind, ``▁``, an end-of-word
marker's text, CJK, emoji, combining marks that a normalizer folds, special tokens' texts), and
real text. Tables: every kind the merge core's tests train (bytes and characters, end-of-word
markers, a word start, unknown bytes and characters, PickyBPE's removals) and the real tables of
../shared/tables (sentencepiece's ``▁``, normalizers, rank files).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_tui.core.analysis import evaluate as ev
from bpe_tui.core.engine import merge_core
from bpe_tui.core.tables.table import MergeTable
from tests.conftest import CORPORA, SHARED, need
from tests.core.test_merge_core import REAL, TRAINED, made, needs_core, path

TRICKY = list(" \t\n\r\x0b\x0c\xa0\u3000'sdtllvem123 ½中日한éÉ\u0301😀𝐀<|>▁") + [
    "<|endoftext|>", "<|end|>", "</w>", "a" * 40, "abc", " abc", "bc", "don't", "x.\n/y", "  \n\n  ",
]
#: (No lone surrogates: eval reads text decoded from files, strictly or with replacement, so
#: none arrives; a str holding one has no UTF-8 length to tally, on either path.)
texts = st.lists(st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from(TRICKY)), max_size=200).map("".join)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def unknown_chars() -> MergeTable:
    """Characters a, b and aa, split on whitespace: every other character is unknown."""
    return MergeTable("chars", {0: "a", 1: "b", 2: "aa"}, [(0, 0, 2)], pretokenizer="whitespace")


def table(name: str) -> MergeTable:
    return unknown_chars() if name == "unknown characters" else made(name, pure=False)


def tallies(tab: MergeTable, pieces: list[str]) -> tuple[ev.Tally, ev.Tally]:
    """The same texts tallied by add (compiled where it runs) and by add_each (Python)."""
    tallier = ev.Tallier(tab)
    fast, slow = ev.Tally(), ev.Tally()
    for text in pieces:
        tallier.add(text, fast)
        tallier.add_each(text, slow)
    return fast, slow


def same(tab: MergeTable, pieces: list[str]) -> None:
    fast, slow = tallies(tab, pieces)
    assert fast == slow
    assert list(fast.counts) == list(slow.counts)  # (first met in the same order)


@needs_core
def test_the_compiled_tally_runs_unless_forced_pure():
    tab = unknown_chars()
    assert ev.Tallier(tab).core is merge_core._core
    with path(pure=True):
        assert ev.Tallier(tab).core is None


@needs_core
@pytest.mark.parametrize("name", [*TRAINED, "by token rank", "unknown characters"])
@SETTINGS
@given(first=texts, second=texts)
def test_trained_tables_same_tally(name, first, second):
    same(table(name), [first, second])


@needs_core
@pytest.mark.parametrize("name", sorted(REAL))
@SETTINGS
@given(first=texts, second=texts)
def test_real_tables_same_tally(name, first, second):
    same(table(name), [first, second])


#: Text cut oddly by pre-tokenizers, hand-picked: words that are several pre-tokens, pre-tokens
#: that hold several words (o200k's punctuation with line breaks after it), whitespace runs.
ODD = [
    "", " ", "\n", "a", "x.\n/y z", "don't stop,\tit's fine\r\n", "foo.bar(baz)  \n\n  qux", "▁▁a ▁b",
    "中文没有空格。日本語も。", "😀😀 a😀b", "e\u0301 e\u0301\u0301", "<|endoftext|>a<|endoftext|> b", "a</w> b</w>",
    "   leading and trailing   ", "x" * 300 + " y",
]


@needs_core
@pytest.mark.parametrize("name", [*TRAINED, "by token rank", "unknown characters", *sorted(REAL)])
def test_odd_and_real_text_same_tally(name):
    shakespeare = need(SHARED / "corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:200_000]
    parallel = [p.read_text(encoding="utf-8") for p in sorted((CORPORA / "parallel").glob("*.txt"))]
    same(table(name), [*ODD, shakespeare, *parallel])


@needs_core
@pytest.mark.parametrize("name", ["gpt2", "llama2-sp", "chars with </w>", "unknown characters"])
def test_the_metrics_are_the_same_on_both_paths(name):
    """evaluate_text with the core and with BPE_TUI_PURE=1: every number, the Rényi float too."""
    text = "".join(ODD) + need(SHARED / "corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:100_000]
    fast = ev.evaluate_text(table(name), text)
    with path(pure=True):
        pure_table = unknown_chars() if name == "unknown characters" else made(name, pure=True)
        assert os.environ.get(merge_core.PURE_VARIABLE)
        slow = ev.evaluate_text(pure_table, text)
    assert fast == slow and fast.as_dict() == slow.as_dict() and fast.counts == slow.counts
    assert list(fast.counts) == list(slow.counts) and fast.renyi_efficiency == slow.renyi_efficiency

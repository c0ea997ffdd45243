"""The reference encoder (bpe_tui.core.teaching.educational) against MergeTable's fast encoder, and the demo."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.teaching import educational
from bpe_tui.core.teaching.educational import (
    base_symbols,
    encode,
    encode_steps,
    encode_word,
    merge_word,
)
from tests.conftest import CORPORA

#: The worked examples that ship in corpora/, each with the rules its tutorial uses.
WORKED = [
    ("low_lower_lowest.txt", dict(preset="classic")),
    ("court.txt", dict(preset="classic")),
    ("cat_sat.txt", dict(preset="classic")),
    ("seed000.txt", dict(preset="classic", tie_break="lexical-min", lowercase=True)),
    ("cs336_example.txt", dict(preset="gpt2", pretokenizer="whitespace")),
]


def trained(text: str, merges: int, **config) -> Trainer:
    trainer = Trainer.from_text(text, TrainerConfig(merges=merges, **config))
    for _ in trainer.run():
        pass
    return trainer


@pytest.mark.parametrize("name,config", WORKED, ids=[w[0] for w in WORKED])
def test_reference_encoder_matches_the_table_on_the_worked_examples(name, config):
    text = (CORPORA / name).read_text()
    trainer = trained(text, 30, **config)
    table = trainer.table
    cfg = trainer.config
    for probe in [text, "slowest lowly newer", "the courthouse held", "a mat sat on a cat", "widest newest lower"]:
        expected = table.tokens(probe)
        assert encode(probe, table.merges, cfg) == expected, probe
        ids = [table.token_id(t) for t in expected]
        if None not in ids:
            assert ids == table.encode(probe)


def test_unseen_word_trace_reads_as_the_tutorials_say():
    trainer = trained((CORPORA / "low_lower_lowest.txt").read_text(), 7, preset="classic")
    merges = trainer.table.merges
    steps = list(encode_steps(base_symbols("slowest", trainer.config), merges))
    assert [rank + 1 for rank, _, _ in steps] == [1, 2, 4, 5, 6, 7]  # merge 3 (low, </w>) never applies
    assert steps[-1][2] == ["s", "lowest</w>"]
    assert encode_word(list("lower") + ["</w>"], merges) == ["lowe", "r", "</w>"]


def test_encode_merges_every_occurrence_left_to_right_without_overlap():
    assert merge_word(list("aaaa"), ("a", "a")) == ["aa", "aa"]
    assert merge_word(list("aaa"), ("a", "a")) == ["aa", "a"]
    assert encode_word(list("aaa"), [("a", "a")]) == ["aa", "a"]


def test_special_tokens_stay_whole():
    trainer = trained("ab ab ab<|x|>ab", 3, preset="gpt2", special_tokens=["<|x|>"])
    table = trainer.table
    assert encode("ab<|x|> ab", table.merges, trainer.config) == table.tokens("ab<|x|> ab")
    assert b"<|x|>" in encode("ab<|x|> ab", table.merges, trainer.config)


CONFIGS = [
    dict(preset="classic"),
    dict(preset="classic", tie_break="lexical-max", end_of_word=None),
    dict(preset="gpt2"),
    dict(preset="gpt2", pretokenizer="whitespace", end_of_word="</w>"),
    dict(preset="gpt4", lowercase=True),
]

texts = st.text(alphabet=st.sampled_from("aab bcd\nxyé€ "), min_size=0, max_size=60)


# In CI (CI=true) the examples are the same every run, as in test_trainer_properties.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=bool(os.environ.get("CI")))
@given(corpus=texts.filter(lambda t: t.strip()), probe=texts, which=st.integers(0, len(CONFIGS) - 1), merges=st.integers(0, 25))
def test_reference_encoder_matches_the_table_on_random_text(corpus, probe, which, merges):
    trainer = trained(corpus, merges, **CONFIGS[which])
    table = trainer.table
    assert encode(probe, table.merges, trainer.config) == table.tokens(probe)
    assert encode(corpus, table.merges, trainer.config) == table.tokens(corpus)


def test_demo_prints_a_trace():
    out = subprocess.run([sys.executable, "-m", "bpe_tui.core.teaching.educational"], capture_output=True, text=True, check=True).stdout
    assert "merge 1: l + o -> lo   (10 times)" in out
    assert "merge 5: lowe + s -> lowes   (3 times)" in out  # not (e, s): e is inside "lowe"
    assert out.rstrip().endswith("tokens    s, lowest</w>")
    assert out.count("\nmerge ") == educational.DEMO_MERGES

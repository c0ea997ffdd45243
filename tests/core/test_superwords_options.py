"""SuperBPE's stage-2 options, each on its own and together, against a brute-force reference.

The reference (superword_reference.py) is written apart from the trainer. Train k, undo j
equals train k - j across the transition with each option: test_superwords.py's property
test draws the options among its constraints.
"""

from __future__ import annotations

import os

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.superwords import stage2_pretokenizer, word_count
from bpe_tui.core.errors import BPEError
from bpe_tui.core.text.blocks import split_lines
from bpe_tui.core.text.pretokenize import PreTokenizer
from bpe_tui.core.text.superword_rules import SUPERWORD_DIGITS_PRETOKENIZER
from tests.core.superword_reference import make, reference_training

# Spaces, colons, punctuation runs and digit runs, so that every option has work to do.
texts = st.lists(st.text(alphabet="ab ab c.:, !\n1234", min_size=1, max_size=16), min_size=1, max_size=10).map(" ".join)
pretokenizers = st.sampled_from(["gpt2", "whitespace", "superbpe-stage1"])
OPTIONS = [
    {"superword_rule": "digits"},
    {"superword_max_words": 1},
    {"superword_max_words": 2},
    {"superword_skip_colon_space": True},
    {"superwords_drop_unused": True},
    {"superword_rule": "digits", "superword_max_words": 2, "superword_skip_colon_space": True, "superwords_drop_unused": True},
]
OPTION_IDS = ["digits", "words1", "words2", "colon", "drop", "all"]
settings.register_profile(
    "superword-options", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=bool(os.environ.get("CI")),
)
settings.load_profile("superword-options")


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize("rule", ["hf", "first-seen", "lexical-max"])
@given(text=texts, k=st.integers(0, 14), pretokenizer=pretokenizers)
def test_each_option_equals_the_brute_force_reference_at_every_step(options, rule, text, k, pretokenizer):
    t = make(text, rule, k, pretokenizer, **options)
    if t is None:
        return
    got = []
    for event in t.run(max_steps=32):
        got.append((event.pair, event.count))
        assert t.pair_counts() == t.recount_pairs()
        assert t.forbidden_pair_count() == sum(1 for p in t.recount_pairs() if t.forbidden_reason(p) is not None)
    want, dropped = reference_training(text, t.config, 32)
    assert got == want
    assert list(t.dropped_merges) == dropped
    if t.in_superword_stage:  # the table (dropped merges left out) encodes the text as the chunks stand
        table = t.table
        assert table.num_merges == t.steps_done - len(dropped)
        chunks = [piece for line in split_lines(text) for piece in PreTokenizer(t.pretokenizer).words(line)]
        assert [table.surface(i) for i in table.encode(text)] == [s for piece in chunks for s in t.segmentation(piece)]


def test_a_dropped_merge_leaves_the_table_and_undo_brings_it_back():
    """Four spaces of indentation: stage 1 cuts a whitespace run before a word
    (``···`` + ``·return``) and learns ``·ret``, ``··+·`` and ``·return``; in stage 2 the
    indentation is ``··`` ``··`` first, so none of the three pairs ever occurs: all three
    leave the table, and their tokens the vocabulary."""
    text = "def f(x):\n    return x + 1\n\n\ndef g(y):\n    return y * 2\n" * 6
    t = Trainer.from_text(text, TrainerConfig(preset="superbpe", superwords_after=12))
    t.goto(12)
    made = {e.step: e.new_token for e in t.history}
    assert t.dropped_merges == (8, 9, 11) and [made[s] for s in (8, 9, 11)] == [b" ret", b"   ", b" return"]
    table = t.table
    assert table.num_merges == 9 and not {b" ret", b"   ", b" return"} & set(table.vocab.values())
    assert t.vocab_size == len(table) == 256 + 12 - 3 and table.config["superwords_dropped"] == 3
    assert "3 merges never occur there and leave the table" in t.transition.explanation
    assert "merge 8 (·ret), 9 (···), 11 (·return)" in t.transition.explanation
    event = t.step()
    assert event is not None and t.table.num_merges == 10
    t.undo()
    t.undo()  # back across the transition: the merges and their tokens return
    assert t.dropped_merges == () and t.table.num_merges == 11 and b"   " in t.table.vocab.values()
    assert t.vocab_size == 256 + 11


def test_word_count_counts_runs_between_spaces():
    assert [word_count(t) for t in (b" by the way", b"the ", b"  ", b"a\nb c", b":  x")] == [3, 1, 0, 2, 2]


def test_the_digits_rule_cuts_only_digit_runs():
    cut = PreTokenizer(SUPERWORD_DIGITS_PRETOKENIZER).words
    assert cut("Hello, world!! 1,000,000 people:  ok\n") == ["Hello, world!! ", "1", ",", "000", ",", "000", " people:  ok\n"]
    assert cut("x12345y") == ["x", "12", "345", "y"]
    assert stage2_pretokenizer(TrainerConfig(superwords_after=1, superword_rule="digits")) == SUPERWORD_DIGITS_PRETOKENIZER


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"superword_rule": "digits"}, "superword_rule is an option of SuperBPE's stage 2: it needs superwords_after"),
        ({"superword_max_words": 4}, "superword_max_words is an option of SuperBPE's stage 2"),
        ({"superword_skip_colon_space": True}, "superword_skip_colon_space is an option"),
        ({"superwords_drop_unused": True}, "superwords_drop_unused is an option"),
        ({"superwords_after": 5, "superword_rule": "words"}, "unknown superword rule 'words'; choose regex or digits"),
        ({"superwords_after": 5, "superword_max_words": 0}, "superword_max_words must be 1 or more, not 0"),
        ({"superwords_after": 5, "superwords_drop_unused": "yes"}, "superwords_drop_unused must be true or false"),
    ],
)
def test_options_that_cannot_be_honoured_are_one_line_errors(kw, message):
    with pytest.raises(BPEError, match=regex.escape(message)):
        TrainerConfig(**kw)


def test_the_preset_is_the_authors_recipe_and_idle_without_a_transition():
    cfg = TrainerConfig(preset="superbpe")
    assert (cfg.units, cfg.tie_break, cfg.end_of_word, cfg.superword_rule, cfg.superword_max_words) == ("bytes", "hf", None, "digits", 4)
    assert cfg.superword_skip_colon_space and cfg.superwords_drop_unused and cfg.superwords_after is None
    assert cfg.describe() == "bytes · superbpe-stage1 · hf"
    assert TrainerConfig(preset="superbpe", superwords_after=9).describe() == (
        "bytes · superbpe-stage1 · hf · superwords after 9 · digits rule · ≤ 4 words · no ': ' · unused merges dropped"
    )
    assert TrainerConfig(**cfg.to_dict()) == cfg  # saved and read back, it is the same
    # each keyword overrides the preset
    assert TrainerConfig(preset="superbpe", superwords_after=9, superword_rule="regex", superword_max_words=None).stage2_options() == [
        "no ': '", "unused merges dropped"
    ]

"""SuperBPE's stage-2 options, each on its own and together, against a brute-force reference.

The reference is written apart from the trainer: chunks are cut with ``regex.split`` (the
digits rule by arithmetic on each digit run, not by the lookahead), the K merges are replayed
over them one by one in order while every pair is recounted (to see which never occurred),
and stage 2 recounts every pair at every step, leaving out the pairs the limits refuse.
"""

from __future__ import annotations

import os

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.superwords import chunk_config, stage2_pretokenizer, word_count
from bpe_tui.core.errors import BPEError
from bpe_tui.core.teaching.educational import best_pair, count_pairs, initial_words, merge_word, token_ids, train_naive
from bpe_tui.core.text.blocks import split_lines
from bpe_tui.core.text.corpus import count_text
from bpe_tui.core.text.pretokenize import PreTokenizer
from bpe_tui.core.text.superword_rules import SUPERWORD_DIGITS_PRETOKENIZER, SUPERWORD_SPLIT
from bpe_tui.core.types import TIE_BREAKS

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


def make(text: str, rule: str, k: int, pretokenizer: str, options: dict) -> Trainer | None:
    cfg = TrainerConfig(tie_break=rule, superwords_after=k, pretokenizer=pretokenizer, **options)
    if not count_text(text, cfg) or not count_text(text, chunk_config(cfg)):
        return None
    return Trainer.from_text(text, cfg)


def digit_groups(run: str) -> list[str]:
    """A digit run cut in threes from the right: ``12345`` -> ``12``, ``345``."""
    head = len(run) % 3
    return ([run[:head]] if head else []) + [run[i : i + 3] for i in range(head, len(run), 3)]


def reference_chunks(text: str, rule: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in split_lines(text):
        if rule == "regex":
            pieces = regex.split(f"({SUPERWORD_SPLIT})", line)
        else:
            pieces = [g for part in regex.split(r"(\p{N}+)", line) for g in (digit_groups(part) if part.isdigit() else [part])]
        for piece in pieces:
            if piece:
                counts[piece] = counts.get(piece, 0) + 1
    return counts


def allowed(pair: tuple, config: TrainerConfig) -> bool:
    token = pair[0] + pair[1]
    if config.superword_skip_colon_space and b": " in token:
        return False
    most = config.superword_max_words
    return most is None or len([w for w in token.split(b" ") if w]) <= most


def reference_training(text: str, config: TrainerConfig, steps: int) -> tuple[list, list[int]]:
    """``(merges with counts, 1-based steps dropped at the transition)`` by brute force."""
    k = config.superwords_after
    assert k is not None
    plain = TrainerConfig(tie_break=config.tie_break, pretokenizer=config.pretokenizer)
    stage1 = train_naive(count_text(text, plain), plain, min(k, steps))
    if len(stage1) < k:
        return stage1, []
    merges = [pair for pair, _ in stage1]
    words = initial_words(reference_chunks(text, config.superword_rule), plain)
    ids = token_ids({bytes([b]) for b in range(256)}, config.tie_break, "bytes")
    for a, b in merges:
        ids.setdefault(a + b, max(ids.values()) + 1)
    dropped: list[int] = []
    occurred = set(count_pairs(words))
    for n, pair in enumerate(merges):
        if config.superwords_drop_unused and pair not in occurred:
            dropped.append(n)
            continue
        occurred.discard(pair)
        words = [(merge_word(symbols, pair), count) for symbols, count in words]
        occurred |= set(count_pairs(words))
    kept_tokens = {a + b for n, (a, b) in enumerate(merges) if n not in dropped}
    for n in dropped:  # a token only dropped merges made: made again, it is a new token
        token = merges[n][0] + merges[n][1]
        if token not in kept_tokens:
            ids.pop(token, None)
    out = list(stage1)
    while len(out) < steps:
        counts = {p: c for p, c in count_pairs(words).items() if allowed(p, config)}
        if not counts:
            break
        pair = best_pair(counts, config.tie_break, ids)
        ids.setdefault(pair[0] + pair[1], max(ids.values()) + 1)
        out.append((pair, counts[pair]))
        words = [(merge_word(symbols, pair), count) for symbols, count in words]
    return out, [n + 1 for n in dropped]


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize("rule", ["hf", "first-seen", "lexical-max"])
@given(text=texts, k=st.integers(0, 14), pretokenizer=pretokenizers)
def test_each_option_equals_the_brute_force_reference_at_every_step(options, rule, text, k, pretokenizer):
    t = make(text, rule, k, pretokenizer, options)
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


def snapshot(t: Trainer):
    table = t.table
    return (
        t.steps_done, t.vocab_size, t.total_tokens, t.pretokenizer, t.pair_counts(), t.forbidden_pair_count(),
        [(t.word_text(i), t.word_frequency(i), t.segmentation(i)) for i in range(t.word_count)],
        t.top_pairs(8), [(e.pair, e.count, e.new_id) for e in t.history], t.transition, t.dropped_merges,
        table.merges, table.vocab, table.config.get("superwords_dropped"),
    )


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
@given(
    text=texts, k=st.integers(0, 12), steps=st.integers(0, 26), back=st.integers(0, 26),
    rule=st.sampled_from(list(TIE_BREAKS)), pretokenizer=pretokenizers,
)
def test_train_k_undo_j_equals_train_k_minus_j_with_each_option(options, text, k, steps, back, rule, pretokenizer):
    a = make(text, rule, k, pretokenizer, options)
    if a is None:
        return
    a.goto(steps)
    steps = a.steps_done
    back = min(back, steps)
    for _ in range(back):
        a.undo()
    assert a.pair_counts() == a.recount_pairs()
    b = make(text, rule, k, pretokenizer, options)
    b.goto(steps - back)
    assert snapshot(a) == snapshot(b)
    assert [(e.pair, e.count) for e in a.run(max_steps=8)] == [(e.pair, e.count) for e in b.run(max_steps=8)]


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

"""Explained merges, merges by hand, training on from a table, constraints (#14, the core half)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_tui import MergeTable, Trainer, TrainerConfig
from bpe_tui.core.corpus import count_text
from bpe_tui.core.errors import BPEError
from bpe_tui.core.formats import load
from tests.conftest import CORPORA
from tests.core.test_trainer_properties import RULES, answers, configs, make, texts

COURT = (CORPORA / "court.txt").read_text()
LOW = (CORPORA / "low_lower_lowest.txt").read_text()
CS336 = (CORPORA / "cs336_example.txt").read_text()
CAT = (CORPORA / "cat_sat.txt").read_text()


def explanations(text: str, n: int, **config) -> list[str]:
    trainer = Trainer.from_text(text, TrainerConfig(**config))
    return [e.explanation for e in trainer.run(max_steps=n)]


# ---------------------------------------------------------------------- explanations


def test_explanation_first_seen_on_court():
    got = explanations(COURT, 4, preset="classic")
    assert got[0] == (
        "merged t + h into th: 3 times, in 'the' (2) and 'that' (1); tied with 3 other pairs at 3, first-seen picks "
        "t + h because it occurs first, in 'the', the 1st word, at character 1, before h + e at character 2"
    )
    # (o, u), not (th, e): the true second merge, and why it beat (t, </w>).
    assert got[1] == (
        "merged o + u into ou: 3 times, in 'court' (2) and 'found' (1); tied with 1 other pair at 3, first-seen picks "
        "o + u because it occurs first, in 'court', the 2nd word, at character 2, before t + </w> at character 5"
    )
    assert got[2] == "merged t + </w> into t</w>: 3 times, in 'court' (2) and 'that' (1); no other pair occurs as often"


def test_explanation_first_seen_names_the_word_when_the_rival_is_in_a_later_one():
    got = explanations("ab cd ab cd", 1, preset="classic", end_of_word=None)
    assert got[0].endswith("first-seen picks a + b because it occurs first, in 'ab', the 1st word")


def test_explanation_lexical_max_on_the_cs336_example():
    got = explanations(CS336, 6, preset="gpt2", pretokenizer="whitespace")
    assert got[0] == (
        "merged s + t into st: 9 times, in 'newest' (6) and 'widest' (3); tied with 1 other pair at 9, lexical-max picks "
        "s + t because it is the greatest pair compared as bytes: it comes after e + s"
    )
    assert got[2].endswith("lexical-max picks o + w because it is the greatest pair compared as bytes: it comes after l + o")


def test_explanation_lexical_min_on_low_lower_lowest():
    got = explanations(LOW, 3, preset="classic", tie_break="lexical-min")
    assert got[0] == (
        "merged l + o into lo: 10 times, in 'low' (5), 'lowest' (3) and 'lower' (2); tied with 1 other pair at 10, "
        "lexical-min picks l + o because it is the smallest pair compared by code point: it comes before o + w"
    )
    assert got[2].endswith("lexical-min picks low + </w> because it is the smallest pair compared by code point: it comes before low + e")


def test_explanation_hf_names_the_ids():
    got = explanations(LOW, 3, preset="classic", tie_break="hf")
    # Hugging Face ids: the alphabet sorted by code point (</w> e l o r s t w), then merges.
    assert got[0].endswith("hf picks l + o because its token ids (2, 3) are the smallest pair of ids: o + w has (3, 7)")
    assert got[2].endswith("hf picks low + </w> because its token ids (9, 0) are the smallest pair of ids: low + e has (9, 1)")


def test_explanation_counts_words_beyond_the_named_three_and_overlapping_pairs():
    got = explanations("ab ab ab ab cab dab eab fab", 1, preset="classic")
    assert got[0].startswith("merged a + b into ab: 8 times, in 'ab' (4), 'cab' (1), 'dab' (1) and 2 other words;")
    # aaaa holds three (a, a): the sentence counts what the pair count counts.
    got = explanations("aaaa", 1, preset="classic")
    assert got[0].startswith("merged a + a into aa: 3 times, in 'aaaa' (3);")


def test_explanation_in_bytes_mode_shows_spaces():
    got = explanations("the the the", 1, preset="gpt2")
    assert "'·the'" in got[0] or "'the'" in got[0]


# ---------------------------------------------------------------------- merges by hand


def test_a_pair_chosen_by_hand_is_merged_and_marked():
    t = Trainer.from_text(COURT, TrainerConfig(preset="classic"))
    assert t.top_pairs(1)[0][0] == ("t", "h")
    event = t.step(pair=("o", "u"))
    assert event.manual and event.pair == ("o", "u") and event.count == 3 and event.tie_count == 0
    assert event.explanation == (
        "merged o + u into ou: 3 times, in 'court' (2) and 'found' (1); chosen by hand instead of t + h (3), "
        "the pair the rules (first-seen) pick"
    )
    assert t.pair_counts() == t.recount_pairs()
    assert not t.step().manual  # then the rules go on
    assert t.table.manual_ranks == frozenset({0})


def test_pairs_that_do_not_occur_or_are_forbidden_are_one_line_errors():
    t = Trainer.from_text(COURT, TrainerConfig(preset="classic", max_token_length=2))
    for bad, message in (
        (("q", "z"), "cannot merge q + z: the pair does not occur in the corpus now"),
        (("t", "t"), "cannot merge t + t: the pair does not occur"),
        (("x",), "a pair to merge is"),
        ("th", "a pair to merge is"),
    ):
        with pytest.raises(BPEError, match=re.escape(message)) as err:
            t.step(pair=bad)
        assert "\n" not in str(err.value)
    t.step(pair=("t", "h"))
    with pytest.raises(BPEError, match=re.escape("th + e would make a token of 3 chars, longer than max_token_length 2")):
        t.step(pair=("th", "e"))


def test_going_forward_again_replays_the_hand_choice_and_a_new_choice_replaces_what_followed():
    t = Trainer.from_text(COURT, TrainerConfig(preset="classic"))
    t.step()
    t.step(pair=("h", "e"))  # step 2 by hand
    t.step()
    t.step(pair=("c", "ou"))  # step 4 by hand
    path = [(e.pair, e.manual) for e in t.history]
    t.goto(0)
    assert t.planned_pair() is None
    t.goto(4)
    assert [(e.pair, e.manual) for e in t.history] == path
    t.goto(1)
    assert t.planned_pair() == ("h", "e")
    assert t.step().manual  # step() replays the plan too
    t.undo()
    t.step(pair=("o", "u"))  # a different choice at step 2: step 4's choice is forgotten
    assert set(t.manual_steps) == {2}
    t.undo()
    t.step(pair=("o", "u"))  # the same choice again keeps what followed (nothing here)
    assert set(t.manual_steps) == {2}
    assert t.forget_manual(after=1) == 1 and t.manual_steps == {}
    t.undo()
    assert not t.step().manual


def test_choosing_the_rules_pair_by_hand_keeps_later_choices():
    t = Trainer.from_text(COURT, TrainerConfig(preset="classic"))
    t.step()
    t.step(pair=("h", "e"))
    t.goto(0)
    leader = t.top_pairs(1)[0][0]
    t.step(pair=leader)  # what step 1 did anyway: the future still follows
    assert set(t.manual_steps) == {1, 2}
    assert t.step().pair == ("h", "e")


hand_moves = st.lists(
    st.one_of(
        st.tuples(st.just("step"), st.integers(1, 4)),
        st.tuples(st.just("hand"), st.integers(0, 6)),
        st.tuples(st.just("undo"), st.integers(1, 4)),
        st.tuples(st.just("goto"), st.integers(0, 20)),
    ),
    max_size=12,
)


def drive(t: Trainer, moves) -> None:
    for move, n in moves:
        if move == "step":
            for _ in range(n):
                t.step()
        elif move == "hand":
            top = t.top_pairs(7)
            if top:
                t.step(pair=top[min(n, len(top) - 1)][0])
        elif move == "undo":
            for _ in range(n):
                t.undo()
        else:
            t.goto(n)


def state(t: Trainer):
    return (
        t.steps_done,
        t.vocab_size,
        t.total_tokens,
        t.pair_counts(),
        [t.segmentation(i) for i in range(t.word_count)],
        t.top_pairs(6),
        [(e.pair, e.count, e.manual, e.explanation) for e in t.history],
        t.forbidden_pair_count(),
    )


@given(text=texts, config=configs, rule=st.sampled_from(RULES), moves=hand_moves)
def test_manual_merges_keep_undo_and_goto_exact(text, config, rule, moves):
    """Any mix of steps, hand choices, undos and gotos leaves the trainer exactly as a fresh
    trainer driven straight along the resulting path (the history's pairs, by hand where
    they were), and its table saves and loads without loss."""
    t = make(text, config, rule)
    if t is None:
        return
    drive(t, moves)
    assert t.pair_counts() == t.recount_pairs()
    fresh = make(text, config, rule)
    for e in t.history:
        got = fresh.step(pair=e.pair) if e.manual else fresh.step()
        assert (got.pair, got.manual) == (e.pair, e.manual)
    assert state(fresh) == state(t)
    # Undo everything and come back: the plan replays the hand choices.
    k = t.steps_done
    before = state(t)
    t.goto(0)
    t.goto(k)
    assert state(t) == before


@given(text=texts, config=configs, rule=st.sampled_from(RULES), moves=hand_moves)
def test_events_of_manual_paths_stay_valid(text, config, rule, moves):
    import copy

    t = make(text, config, rule)
    if t is None:
        return
    seen = []
    for move in moves:
        drive(t, [move])
        for e in t.history:
            if all(e is not s for s, _ in seen):
                seen.append((e, answers(copy.copy(e))))
    t.goto(0)
    drive(t, list(reversed(moves)))
    for e, when_new in seen:
        assert answers(e) == when_new


def test_manual_ranks_save_and_load_in_the_native_format(tmp_path):
    t = Trainer.from_text(COURT, TrainerConfig(preset="classic"))
    t.step()
    t.step(pair=("h", "e"))
    t.step()
    t.step(pair=("c", "ou"))
    table = t.table
    assert table.manual_ranks == frozenset({1, 3})
    path = tmp_path / "t.json"
    table.save(str(path))
    again = load(str(path))
    assert again.manual_ranks == frozenset({1, 3})
    assert again.merge_ids == table.merge_ids and again.counts == table.counts
    assert table.truncated(2).manual_ranks == frozenset({1})


def test_version_1_native_files_still_load(tmp_path):
    import json

    t = Trainer.from_text(COURT, TrainerConfig(preset="classic", merges=3))
    list(t.run())
    path = tmp_path / "t.json"
    t.table.save(str(path))
    data = json.loads(path.read_text())
    assert data["version"] == 2
    data["version"] = 1
    data.pop("manual_ranks", None)
    path.write_text(json.dumps(data))
    old = load(str(path))
    assert old.merge_ids == t.table.merge_ids and old.manual_ranks == frozenset()


@pytest.mark.parametrize("bad", ['"x"', "[5]", "[-1]", "[true]", "[0, 0]"])
def test_bad_manual_ranks_are_one_line_errors(tmp_path, bad):
    import json

    t = Trainer.from_text(COURT, TrainerConfig(preset="classic", merges=3))
    list(t.run())
    path = tmp_path / "t.json"
    t.table.save(str(path))
    data = json.loads(path.read_text())
    data["manual_ranks"] = json.loads(bad)
    path.write_text(json.dumps(data))
    with pytest.raises(BPEError, match="manual_ranks") as err:
        load(str(path))
    assert "\n" not in str(err.value)

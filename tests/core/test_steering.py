"""Explained merges, merges by hand, training on from a table, constraints (#14, the core half)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_tui
from bpe_tui import MergeTable, Trainer, TrainerConfig
from bpe_tui.core.errors import BPEError
from bpe_tui.core.tables.formats import load
from bpe_tui.core.text.corpus import count_text
from tests.conftest import CORPORA
from tests.core.test_trainer_properties import (
    RULES,
    answers,
    configs,
    make,
    snapshot,
    texts,
)

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


def test_explanation_rustbpe_numbers_bytes_by_value():
    # A space is byte 32 to rustbpe, before every letter; to hf it is "Ġ" (U+0120), after them.
    counts = {"ET": 3, " '": 3}
    got = Trainer.from_counts(counts, TrainerConfig(preset="gpt4", tie_break="rustbpe")).step()
    assert got.pair == (b" ", b"'") and got.explanation.endswith(
        "rustbpe picks · + ' because its ids (32, 39) are the smallest pair in rustbpe's numbering "
        "(a byte is its value, merged tokens follow as made): E + T has (69, 84)"
    )
    assert Trainer.from_counts(counts, TrainerConfig(preset="gpt4", tie_break="hf")).step().pair == (b"E", b"T")


def test_explanation_rustbpe_in_chars_mode_orders_as_hf():
    got = explanations(LOW, 3, preset="classic", tie_break="rustbpe")
    assert got[0].endswith(
        "rustbpe picks l + o because its ids (2, 3) are the smallest pair in rustbpe's numbering "
        "(the alphabet by code point, then merged tokens as made): o + w has (3, 7)"
    )
    assert [e.pair for e in Trainer.from_text(LOW, TrainerConfig(preset="classic", tie_break="rustbpe")).run()] == [
        e.pair for e in Trainer.from_text(LOW, TrainerConfig(preset="classic", tie_break="hf")).run()
    ]


def test_rustbpe_numbers_merged_tokens_from_256_whatever_the_specials():
    # Special tokens take ids 256.. here and never pair: rustbpe's numbering skips them.
    cfg = TrainerConfig(preset="gpt4", tie_break="rustbpe", special_tokens=["<|a|>", "<|b|>"])
    events = list(Trainer.from_counts({"abx": 2, "aby": 2}, cfg).run(max_steps=2))
    assert events[0].new_id == 258  # our id: after the bytes and the two specials
    assert events[1].explanation.endswith("ids (256, 120) are the smallest pair in rustbpe's numbering "
                                          "(a byte is its value, merged tokens follow as made): ab + y has (256, 121)")


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
        ((b"t", b"h"), "cannot merge t + h: this trainer works on characters: a pair's parts are str, as in step(pair=('t', 'h'))"),
    ):
        with pytest.raises(BPEError, match=re.escape(message)) as err:
            t.step(pair=bad)
        assert "\n" not in str(err.value)
    t.step(pair=("t", "h"))
    with pytest.raises(BPEError, match=re.escape("th + e would make a token of 3 chars, longer than max_token_length 2")):
        t.step(pair=("th", "e"))


def test_a_byte_level_trainer_asks_for_bytes_by_name():
    t = Trainer.from_text(COURT, TrainerConfig(preset="gpt2"))
    with pytest.raises(BPEError, match=re.escape("cannot merge t + h: this trainer is byte-level: a pair's parts are bytes, as in step(pair=(b't', b'h'))")):
        t.step(pair=("t", "h"))
    assert t.step(pair=(b"t", b"h")).pair == (b"t", b"h")


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
    """A trainer's observable state (snapshot) plus what steering adds: hand marks, explanations, hidden pairs."""
    return snapshot(t) + ([(e.manual, e.explanation) for e in t.history], t.forbidden_pair_count())


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
    bpe_tui.save(table, str(path))
    again = load(str(path))
    assert again.manual_ranks == frozenset({1, 3})
    assert again.merge_ids == table.merge_ids and again.counts == table.counts
    assert table.truncated(2).manual_ranks == frozenset({1})


def test_version_1_native_files_still_load(tmp_path):
    import json

    t = Trainer.from_text(COURT, TrainerConfig(preset="classic", merges=3))
    list(t.run())
    path = tmp_path / "t.json"
    bpe_tui.save(t.table, str(path))
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
    bpe_tui.save(t.table, str(path))
    data = json.loads(path.read_text())
    data["manual_ranks"] = json.loads(bad)
    path.write_text(json.dumps(data))
    with pytest.raises(BPEError, match="manual_ranks") as err:
        load(str(path))
    assert "\n" not in str(err.value)


# ---------------------------------------------------------------------- going on from a table


def trained_table(text: str, config: dict, rule: str, k: int) -> MergeTable | None:
    t = make(text, config, rule)
    if t is None:
        return None
    list(t.run(max_steps=k))
    return t.table


@given(text=texts, config=configs, rule=st.sampled_from([r for r in RULES if r not in ("hf", "picky")]), k=st.integers(0, 12), more=st.integers(0, 12))
def test_going_on_from_a_table_on_its_own_corpus_continues_the_same_training(text, config, rule, k, more):
    """Train k merges, save, go on from the table on the same corpus: the next merges are
    the ones training straight through makes (hf numbers ids its own way, and picky's order
    is the history of a pair counter the table does not hold: both are left out)."""
    straight = make(text, config, rule)
    if straight is None:
        return
    events = list(straight.run(max_steps=k + more))
    table = trained_table(text, config, rule, k)
    cfg = TrainerConfig(**config, tie_break=rule)
    t = Trainer(count_text(text, cfg), cfg, start=table)
    assert t.first_step == t.steps_done == table.num_merges
    assert t.pair_counts() == t.recount_pairs()
    got = list(t.run(max_steps=len(events) - table.num_merges))
    assert [(e.step, e.pair, e.count) for e in got] == [(e.step, e.pair, e.count) for e in events[table.num_merges :]]
    assert t.table.merge_ids == straight.table.merge_ids


@given(
    first=texts, second=texts, config=configs, rule=st.sampled_from(RULES), k=st.integers(0, 10), moves=hand_moves
)
def test_extended_tables_keep_undo_goto_exact_and_save_load_lossless(tmp_path_factory, first, second, config, rule, k, moves):
    table = trained_table(first, config, rule, k)
    if table is None:
        return
    path = tmp_path_factory.mktemp("ext") / "start.json"
    bpe_tui.save(table, str(path))
    start = load(str(path))
    cfg = TrainerConfig(**config, tie_break=rule)
    counts = count_text(second, cfg)
    if not counts:
        return
    t = Trainer(counts, cfg, start=start)
    base = t.first_step
    drive(t, [(m, n + base if m == "goto" else n) for m, n in moves])
    assert t.steps_done >= base
    assert t.pair_counts() == t.recount_pairs()
    fresh = Trainer(counts, cfg, start=start)
    for e in t.history:
        got = fresh.step(pair=e.pair) if e.manual else fresh.step()
        assert (got.step, got.pair, got.manual) == (e.step, e.pair, e.manual)
    assert state(fresh) == state(t)
    k_now = t.steps_done
    before = state(t)
    t.goto(base)
    assert t.undo() is None  # the table's merges cannot be undone
    t.goto(k_now)
    assert state(t) == before
    # Ids of the start table are kept, and the result saves and loads without loss.
    out = t.table
    assert all(out.surface(i) == s for i, s in start.vocab.items())
    assert out.merge_ids[:base] == start.merge_ids
    saved = tmp_path_factory.mktemp("ext") / "out.json"
    bpe_tui.save(out, str(saved))
    again = load(str(saved))
    assert (again.vocab, again.merge_ids, again.counts, again.manual_ranks, again.special_tokens) == (
        out.vocab, out.merge_ids, out.counts, out.manual_ranks, out.special_tokens
    )


def test_a_start_table_rules_the_corpus_and_says_what_it_decided():
    table = trained_table(COURT, dict(preset="classic"), "first-seen", 3)
    t = Trainer(count_text("xyz the", TrainerConfig(preset="classic")), TrainerConfig(preset="gpt2", tie_break="lexical-min"), start=table)
    assert t.config.units == "chars" and t.config.end_of_word == "</w>" and t.config.tie_break == "lexical-min"
    assert t.table_rules[0] == "units: chars (the table's; the config had bytes)"
    assert "pre-tokenizer: whitespace (the table's; the config had gpt2)" in t.table_rules
    # x, y, z are new characters: ids after the table's vocabulary, named.
    assert t.table_rules[-1].startswith(f"base symbols the table lacks, added with ids {len(table)}-{len(table) + 2}: x, y, z")
    assert t.segmentation("the") == ["th", "e", "</w>"]
    with pytest.raises(BPEError, match="the first 3 merges come from the start table"):
        t.goto(2)


def test_from_table_counts_the_corpus_under_the_table_rules(tmp_path):
    table = trained_table(COURT, dict(preset="classic"), "first-seen", 3)
    corpus = tmp_path / "c.txt"
    corpus.write_text("the court\n")
    t = Trainer.from_table(table, [str(corpus)])
    assert t.first_step == 3 and t.config.units == "chars" and t.config.tie_break == "first-seen"
    assert t.step().step == 4
    with pytest.raises(BPEError, match="smaller than the"):
        Trainer.from_table(table, [str(corpus)], TrainerConfig(vocab_size=5))


def test_extending_gpt2_keeps_every_id_and_first_merges_the_most_frequent_pair_left():
    from tests.conftest import GPT2_DIR, TAYLORSWIFT, need

    gpt2 = load(str(need(GPT2_DIR)))
    t = Trainer.from_table(gpt2, [str(need(TAYLORSWIFT))], TrainerConfig(tie_break="lexical-max"))
    assert t.first_step == 50_000 and t.vocab_size == 50_257
    left = {p: c for p, c in t.recount_pairs().items()}
    assert left == t.pair_counts()
    best = max(left.values())
    event = t.step()
    assert (event.step, event.new_id, event.count) == (50_001, 50_257, best)
    assert event.pair == max(p for p, c in left.items() if c == best)  # lexical-max among the most frequent
    table = t.table
    assert len(table) == 50_258 and table.num_merges == 50_001
    assert all(table.surface(i) == s for i, s in gpt2.vocab.items())
    assert table.special_tokens == gpt2.special_tokens == {"<|endoftext|>": 50_256}
    text = "Swift's 1989 (Taylor's Version) was released on October 27, 2023."
    assert table.truncated(50_000).encode(text) == gpt2.encode(text)
    t.undo()
    assert t.steps_done == 50_000 and t.undo() is None


# ---------------------------------------------------------------------- constraints


def allowed_by(config: TrainerConfig):
    """The constraints as the obvious reference: a pair is allowed when the merged token is no
    longer than max_token_length and does not mix characters in no_merge_across's class with
    others (the end-of-word marker is no character; a piece of a UTF-8 character is outside)."""
    import regex

    across = regex.compile(config.no_merge_across) if config.no_merge_across else None
    eow = config.end_of_word

    def standing(surface) -> set:
        text = surface.decode("utf-8", "surrogateescape") if isinstance(surface, bytes) else surface
        if eow and text.endswith(eow):
            text = text[: -len(eow)]
        return {bool(across.fullmatch(ch)) for ch in text}

    def allowed(pair) -> bool:
        left, right = pair
        if config.max_token_length is not None and len(left) + len(right) > config.max_token_length:
            return False
        return across is None or len(standing(left) | standing(right)) < 2

    return allowed


constrained = st.sampled_from(
    [
        dict(preset="classic", no_merge_across=r"[bc]"),
        dict(preset="gpt2", no_merge_across=r"\s"),
        dict(preset="gpt2", no_merge_across=r"\p{L}", max_token_length=3),
        dict(preset="classic", units="bytes", no_merge_across=r"[é]"),
        dict(preset="classic", no_merge_across=r"[a]", max_token_length=2),
    ]
)


@given(text=texts, config=constrained, rule=st.sampled_from(RULES), moves=hand_moves)
def test_constraints_forbid_exactly_the_pairs_they_name(text, config, rule, moves):
    t = make(text, config, rule)
    if t is None:
        return
    allowed = allowed_by(t.config)

    def check() -> None:
        present = t.recount_pairs()
        forbidden = [p for p in present if not allowed(p)]
        assert t.forbidden_pair_count() == len(forbidden)
        # by the constraint that forbids each pair, as forbidden_reason names it
        def named(text):
            return "max_token_length" if "max_token_length" in text else "no_merge_across"
        by_reason = Counter(named(t.forbidden_reason(p)) for p in forbidden)
        assert {named(what): n for what, n in t.forbidden_by().items()} == dict(by_reason)
        assert all(allowed(p) for p, _ in t.top_pairs(50))
        assert {p for p, _ in t.top_pairs(len(present) + 1)} == {p for p in present if allowed(p)}
        for p in forbidden[:3]:
            assert t.forbidden_reason(p)
            with pytest.raises(BPEError, match="cannot merge"):
                t.step(pair=p)

    check()
    drive(t, moves)
    check()
    for event in t.run(max_steps=30):
        assert allowed(event.pair)
        # The rules merged the most frequent allowed pair.
    check()
    k = t.steps_done
    before = state(t)
    t.goto(0)
    t.goto(k)
    assert state(t) == before


def test_no_merge_across_digits_on_real_words():
    t = Trainer.from_text("in 2024 we had 1984 and a1 b2 " * 4, TrainerConfig(preset="classic", no_merge_across=r"\d"))
    tokens = [e.new_token for e in t.run()]
    assert any(tok.startswith("20") for tok in tokens)
    for tok in tokens:
        text = tok.removesuffix("</w>")
        assert all(c.isdigit() for c in text) or not any(c.isdigit() for c in text)
    assert t.forbidden_pair_count() > 0 and t.stop_reason.startswith("nothing left")


def test_max_token_length_counts_the_units():
    # Bytes: é is two bytes, so "éé" is four units; characters: two.
    by_bytes = Trainer.from_text("éé éé éé", TrainerConfig(preset="gpt2", pretokenizer="whitespace", max_token_length=2))
    assert max(len(e.new_token) for e in by_bytes.run()) == 2
    by_chars = Trainer.from_text("éé éé éé", TrainerConfig(preset="classic", end_of_word=None, max_token_length=2))
    assert [e.new_token for e in by_chars.run()] == ["éé"]


def test_bad_no_merge_across_is_a_one_line_error():
    for bad in ("[", "x*", 5):
        with pytest.raises(BPEError, match="no_merge_across") as err:
            TrainerConfig(no_merge_across=bad)
        assert "\n" not in str(err.value)


def test_an_id_made_again_as_another_token_after_undo_keeps_the_tie_order():
    """Step (a, b) makes id 257 as 'ab'; undo; by hand (b, a) makes id 257 as 'ba'. Queue
    entries from the first life of 257 must not order ties by 'ab' (hypothesis found it:
    goto(0) then back listed the ties of (a, a) in another order than the run did)."""
    def fresh() -> Trainer:
        return Trainer.from_text("é aba é aab bab", TrainerConfig(preset="classic", units="bytes", no_merge_across="[é]", tie_break="lexical-min"))

    t = fresh()
    t.step()
    t.undo()
    t.step(pair=(b"b", b"a"))
    list(t.run(max_steps=30))
    ran = [(e.pair, e.ties, e.explanation) for e in t.history]
    k = t.steps_done
    t.goto(0)
    t.goto(k)
    assert [(e.pair, e.ties, e.explanation) for e in t.history] == ran
    aa = next(e for e in t.history if e.pair == (b"a", b"a"))
    assert aa.ties[:2] == ((b"a", b"b</w>"), (b"a", b"ba"))  # b</w> < ba as bytes ('<' < 'a')


# ---------------------------------------------------------------------- a trainer's table, fast


def checked_table(t: Trainer) -> MergeTable:
    """The trainer's table built as a file's is: every merge checked against the vocabulary."""
    fast = t.table
    return MergeTable(
        fast.units, t.vocab(), t.merge_list(), fast.special_tokens, fast.pretokenizer, fast.end_of_word,
        fast.lowercase, t.merge_counts(), fast.config, "trainer", t.name, t.manual_ranks(),
    )


def indices(table: MergeTable):
    return (table.merge_ids, table._pair_ranks, table._pair_made, table._creator, table.vocab, table.manual_ranks, table.counts)


@given(text=texts, config=configs, rule=st.sampled_from(RULES), moves=hand_moves)
def test_a_trainers_table_built_fast_equals_the_checked_build(text, config, rule, moves):
    """MergeTable.from_trainer skips the checks a file's merges get and reuses an earlier
    table's indices (the explorer builds one after every step): along any path of steps,
    hand choices, undos and gotos, the table equals the checked build, encodes alike, and the
    earlier table it started from is left as it was (tables are values)."""
    t = make(text, config, rule)
    if t is None:
        return
    previous = MergeTable.from_trainer(t)
    for move in moves:
        kept = indices(previous)
        drive(t, [move])
        table = MergeTable.from_trainer(t, like=previous)
        assert indices(table) == indices(checked_table(t))
        assert table.encode(text[:200]) == checked_table(t).encode(text[:200])
        assert indices(previous) == kept
        previous = table


def test_a_table_going_on_from_gpt2_reuses_its_indices_and_equals_the_checked_build():
    from tests.conftest import GPT2_DIR, need

    gpt2 = load(str(need(GPT2_DIR)))
    t = Trainer(count_text(COURT * 3, gpt2_config(gpt2)), gpt2_config(gpt2), start=gpt2)
    previous = t.table
    for move in (("step", 2), ("undo", 1), ("hand", 3), ("step", 1)):
        drive(t, [move])
        fast = MergeTable.from_trainer(t, like=previous)
        assert indices(fast) == indices(checked_table(t))
        previous = fast


def gpt2_config(table: MergeTable) -> TrainerConfig:
    from bpe_tui.core.engine.trainer import table_config

    return table_config(table, TrainerConfig(tie_break="lexical-max"))[0]

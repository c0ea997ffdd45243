"""Pilot tests for explaining and steering: tie marks and the why line, token boundaries and
NO_COLOR, merging a pair by hand, the settings dialog that switches the rules live."""

from __future__ import annotations

import time

from textual.widgets import Checkbox, Input, Select

from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.panes.history import TIE_MARK, UNDONE_MARK
from bpe_tui.ui.screens.dialogs import ConfirmScreen
from bpe_tui.ui.screens.settings import SettingsScreen, first_difference
from bpe_tui.ui.session.sessions import ExploreSession
from bpe_tui.ui.widgets.render import label

from bpe_tui import Trainer, TrainerConfig

from .conftest import CORPORA, DEMO, classic_app, demo_app, history_cells, open_settings, said, settle, text_app


def history_rows(app) -> list[str]:
    view = app.history.view
    return [view.row_text(i) for i in range(view.count)]


async def yes_lose_unsaved(app, pilot) -> None:
    """Retraining replaces the run's merges: with unsaved ones the explorer asks first; say yes."""
    await pilot.pause()
    assert isinstance(app.screen, ConfirmScreen)
    await pilot.press("y")


def notes(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in said(app)]


# ---------------------------------------------------------------------- explain


async def test_history_marks_tie_decided_merges_and_explains_the_row():
    # seed 001 (court): (t,h) wins a four-way tie at 3 under first-seen; (o,u) a tie as well
    app = classic_app("court.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("space", "space", "space")
        await settle(app, pilot)
        rows = history_rows(app)
        tr = app.session.trainer
        for row, ev in zip(rows, tr.history):
            mark = history_cells(app.history.view, row).mark  # the column after the step's
            assert mark == (TIE_MARK if ev.tie_count else " "), row
        assert history_cells(app.history.view, rows[0]).mark == TIE_MARK
        # the why line explains the cursor's row: the tied pairs and the rule
        app.history.view.focus()
        app.history.view.move_cursor(0)
        await settle(app, pilot)
        why = app.history.why
        assert why.startswith("merge 1:")
        ev = tr.history[0]
        assert ev.tie_count == 3 and len(ev.ties) == 3
        assert "[=] a tie at 3: first-seen picked (t, h) over " in why
        assert all(f"({a}, {b})" in why for a, b in ev.ties)
        # enter on the row goes there and keeps explaining it
        await pilot.press("enter")
        await settle(app, pilot)
        assert tr.steps_done == 1
        assert app.history.why.startswith("merge 1:")
        assert history_rows(app)[1].startswith(UNDONE_MARK)


async def test_why_line_follows_the_mouse_over_history_rows():
    app = classic_app("court.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("space", "space", "space")
        await settle(app, pilot)
        assert app.history.why == ""  # merge 3, (t, </w>), won alone: the line is hidden
        assert not app.history.query_one("#history-why").display
        await pilot.hover("#history-list", offset=(10, 0))
        await settle(app, pilot)
        assert app.history.why.startswith("merge 1:")


# ---------------------------------------------------------------------- boundaries, NO_COLOR


async def test_bar_key_shows_token_boundaries_in_words_and_text():
    app = classic_app("low_lower_lowest.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("space")  # (l, o)
        await settle(app, pilot)
        words = app.corpus.words_view
        assert not app.corpus.boundaries
        assert "lo" in words.row_text(0) and "|" not in words.row_text(0)
        await pilot.press("vertical_line")
        await settle(app, pilot)
        assert app.corpus.boundaries
        assert words.row_text(0).endswith("lo|w|</w>")
        # a click on a chip still finds its token (spans account for the bars)
        _, spans = words.row(0)
        assert [e - s for s, e, _ in spans] == [2, 1, 4]
        app.corpus.set_text_view(True)
        await settle(app, pilot)
        body = str(app.query_one("#corpus-text-body").render())
        assert "lo|w|</w>" in body
        await pilot.press("vertical_line")
        await settle(app, pilot)
        assert "|" not in str(app.query_one("#corpus-text-body").render())


async def test_no_color_shows_boundaries_from_the_start(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = classic_app("low_lower_lowest.txt")
    assert app.no_color  # Textual read it (and greys every colour out)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.corpus.boundaries
        assert app.corpus.words_view.row_text(0).endswith("l|o|w|</w>")


async def test_check_boxes_read_without_colour(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = classic_app("low_lower_lowest.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        box = app.query_one("#corpus-text-toggle", Checkbox)
        assert not box.value and str(box.render()).startswith("▐ ▌")
        await pilot.click("#corpus-text-toggle")
        await settle(app, pilot)
        assert box.value and str(box.render()).startswith("▐X▌")
        assert app.corpus.text_view


# ---------------------------------------------------------------------- switching the rules


def test_first_difference_sentences():
    assert first_difference([("t", "h"), ("o", "u")], [("t", "h"), ("o", "u")]) == "the same 2 merges"
    assert first_difference([("t", "h"), ("th", "e")], [("t", "h"), ("o", "u")]) == "from merge 2 on: (o, u) instead of (th, e)"
    assert first_difference([("a", "b")], [("a", "b")], first=50_001) == "the same 1 merge"
    assert first_difference([("a", "b"), ("c", "d")], [("x", "y")], first=50_001).startswith("from merge 50,001 on: (x, y)")
    assert "stop" in first_difference([("a", "b"), ("c", "d")], [("a", "b")])


async def test_settings_dialog_switches_tie_break_and_says_where_merges_differ():
    # court under first-seen: (t,h), (o,u), ...; under lexical-max the first tie goes another way
    app = classic_app("court.txt")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("space", "space", "space")
        await settle(app, pilot)
        before = [ev.pair for ev in app.session.trainer.history]
        await open_settings(app, pilot)
        assert isinstance(app.screen, SettingsScreen)
        app.screen.query_one("#tie-break", Select).value = "lexical-max"
        await pilot.click("#ok")
        await yes_lose_unsaved(app, pilot)
        await settle(app, pilot)
        assert not isinstance(app.screen, SettingsScreen)
        tr = app.session.trainer
        assert tr.config.tie_break == "lexical-max" and tr.steps_done == 3
        after = [ev.pair for ev in tr.history]
        assert after != before
        assert any(f"retrained under the new rules: {first_difference(before, after, '</w>')}" == n for n in notes(app))
        assert "instead of" in notes(app)[-1]
        # the history and pair table show the new run
        assert len(history_rows(app)) == 3


async def test_settings_dialog_offers_every_rule_and_retrains_under_rustbpe():
    # The demo corpus under hf, 40 merges; rustbpe numbers the bytes otherwise (a space is 32).
    app = demo_app(tie_break="hf")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"40", "enter")
        await settle(app, pilot)
        await open_settings(app, pilot)
        select = app.screen.query_one("#tie-break", Select)
        assert [value for _, value in select._options] == ["first-seen", "lexical-min", "lexical-max", "hf", "rustbpe", "subword-nmt", "picky"]
        select.value = "rustbpe"
        await pilot.click("#ok")
        await yes_lose_unsaved(app, pilot)
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.config.tie_break == "rustbpe" and tr.steps_done == 40
        straight = Trainer.from_files([str(DEMO)], TrainerConfig(preset="gpt2", tie_break="rustbpe", vocab_size=1000))
        assert [e.pair for e in tr.history] == [e.pair for e in straight.run(max_steps=40)]
        assert "bytes · gpt2 · rustbpe" in app.status.text


async def test_retraining_keeps_the_encode_box_text_and_encodes_it_with_the_new_table():
    app = classic_app("court.txt")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("space", "space", "space")
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.press(*"the court")
        await settle(app, pilot)
        assert app.encode.text == "the court" and app.encode.ids
        await pilot.press("escape", "comma")
        await pilot.pause()
        app.screen.query_one("#tie-break", Select).value = "lexical-max"
        await pilot.click("#ok")
        await yes_lose_unsaved(app, pilot)
        await settle(app, pilot)
        assert app.session.trainer.config.tie_break == "lexical-max"
        assert app.encode.text == "the court"
        assert app.encode.ids == app.session.table().encode("the court")
        assert app.encode.summary.startswith(f"{len(app.encode.ids)} tokens")


async def test_after_a_retrain_to_the_same_merges_the_deltas_are_the_last_merges_as_before():
    # min frequency 2 on the demo corpus keeps the first 3 merges (hundreds each): "the same 3
    # merges". The new run's pair table has no state shown before it: its Δ is the last
    # merge's change (▼ where that merge took from a pair, new only where it made one), as
    # the old run showed it after that step, not "new" on every pair the merge touched.
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("space", "space", "space")
        await settle(app, pilot)
        shown = {pair: row[5] for pair, row in zip(app.pairs.pairs, app.pairs.rows)}
        fell = {pair: d for pair, d in shown.items() if d.startswith("▼")}
        assert fell
        await open_settings(app, pilot)
        await pilot.press("tab")
        await pilot.press("end", "backspace", "2", "enter")
        await yes_lose_unsaved(app, pilot)
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.config.min_frequency == 2
        assert any("the same 3 merges" in n for n in notes(app))
        again = {pair: row[5] for pair, row in zip(app.pairs.pairs, app.pairs.rows)}
        assert {pair: again.get(pair) for pair in fell} == fell
        made = {pair for pair, (was, _) in tr.history[-1].pair_changes.items() if was == 0}
        assert {pair for pair, d in again.items() if d == "new"} <= made


async def test_settings_asks_before_replacing_unsaved_merges_and_no_keeps_the_run():
    app = classic_app("court.txt")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("space", "space")
        await settle(app, pilot)
        before = app.session
        await open_settings(app, pilot)
        app.screen.query_one("#tie-break", Select).value = "lexical-max"
        await pilot.click("#ok")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(app, pilot)
        assert app.session is before and app.session.trainer.config.tie_break == "first-seen"
        assert app.session.trainer.steps_done == 2


async def test_settings_min_frequency_bad_input_stays_in_the_dialog():
    app = classic_app("court.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_settings(app, pilot)
        box = app.screen.query_one("#min-frequency", Input)
        box.value = "lots"
        await pilot.click("#ok")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        assert "min frequency: 'lots' is not a whole number" in str(app.screen.query_one("#settings-error").render())
        box.focus()
        box.value = "0"
        await pilot.press("enter")
        await pilot.pause()
        assert "min_frequency must be 1 or more" in str(app.screen.query_one("#settings-error").render())
        # unchanged rules: nothing retrains
        box.value = "1"
        await pilot.click("#ok")
        await settle(app, pilot)
        assert not isinstance(app.screen, SettingsScreen)
        assert not any("retrain" in n for n in notes(app))


async def test_settings_min_frequency_stops_the_new_run_early():
    app = classic_app("court.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.main.go_to_step(6)
        await settle(app, pilot)
        await open_settings(app, pilot)
        await pilot.press("tab")  # from the tie-break to the min frequency box
        assert app.screen.focused is app.screen.query_one("#min-frequency", Input)
        await pilot.press("end", "backspace", "3")
        await pilot.press("enter")  # submits from the box
        await yes_lose_unsaved(app, pilot)
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.config.min_frequency == 3
        assert tr.steps_done < 6
        assert "then the new rules stop" in notes(app)[-1]


async def test_settings_lowercase_counts_the_corpus_again(tmp_path):
    path = tmp_path / "cased.txt"
    path.write_text("The the THE the cat Cat\n", encoding="utf-8")
    app = ExplorerApp(paths=[str(path)], config=__import__("bpe_tui").TrainerConfig(preset="classic", merges=20))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        words = {tr.word_text(w) for w in range(tr.word_count)}
        assert "The" in words
        await pilot.press("space", "space")
        await settle(app, pilot)
        await open_settings(app, pilot)
        app.screen.query_one("#lowercase", Checkbox).value = True
        await pilot.click("#ok")
        await yes_lose_unsaved(app, pilot)
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.config.lowercase
        assert {tr.word_text(w) for w in range(tr.word_count)} == {"the", "cat"}
        assert tr.steps_done == 2
        assert app.session.paths == [str(path)]


async def test_settings_cannot_recount_a_corpus_without_files():
    app = classic_app("court.txt")  # built from a trainer: no files are known to the session
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_settings(app, pilot)
        assert app.screen.query_one("#lowercase", Checkbox).disabled
        assert app.screen.query_one("#pretokenizer", Select).disabled
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)


async def test_settings_from_the_command_palette():
    app = classic_app("court.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert any(t.startswith("Switch the training rules") for t in titles)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"switch the training")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)


# ---------------------------------------------------------------------- explanation, merge by hand


async def test_explanation_under_the_pair_table_after_each_step():
    app = classic_app("court.txt")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.pairs.why_text == ""
        await pilot.press("space")
        await settle(app, pilot)
        tr = app.session.trainer
        assert app.pairs.why_text == tr.history[-1].explanation
        assert app.pairs.why_text.startswith("merged t + h into th: 3 times")
        await pilot.press("space")
        await settle(app, pilot)
        assert app.pairs.why_text == tr.history[-1].explanation
        await pilot.press("b", "b")
        await settle(app, pilot)
        assert app.pairs.why_text == ""


async def test_m_merges_the_selected_pair_by_hand_and_undo_keeps_it():
    app = classic_app("court.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        app.pairs.table.focus()
        await pilot.press("down", "down")  # the third pair
        chosen = app.pairs.pairs[2]
        leader = app.pairs.pairs[0]
        await pilot.press("m")
        await settle(app, pilot)
        ev = tr.history[-1]
        assert ev.pair == chosen and ev.manual and tr.steps_done == 1
        assert "chosen by hand instead of" in app.pairs.why_text
        row = history_rows(app)[0]
        assert history_cells(app.history.view, row).mark == "h"
        assert app.history.why == ""  # the latest merge: its sentence is under the pair table already
        # the leader is still there, and space merges it next by the rules
        assert leader in app.pairs.pairs
        await pilot.press("space")
        await settle(app, pilot)
        assert tr.history[-1].pair == leader and not tr.history[-1].manual
        app.history.view.move_cursor(0)
        await settle(app, pilot)
        assert app.history.why.startswith("merge 1: [h] merged")
        await pilot.press("b")
        await settle(app, pilot)
        # undo, then step again: the hand choice is replayed
        await pilot.press("b")
        await settle(app, pilot)
        assert tr.steps_done == 0
        await pilot.press("space")
        await settle(app, pilot)
        assert tr.history[-1].pair == chosen and tr.history[-1].manual
        assert history_cells(app.history.view, history_rows(app)[0]).mark == "h"


async def test_after_undoing_a_hand_merge_the_pair_table_names_the_pair_the_next_step_replays():
    # the walker's repro: N, down, down, m (a hand merge as merge 11), b: the next step replays
    # the hand choice, so the ▶ row and the caption must name it, not the leader
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        await pilot.press("N")
        await settle(app, pilot)
        app.pairs.table.focus()
        await pilot.press("down", "down")
        chosen = app.pairs.pairs[2]
        leader = app.pairs.pairs[0]
        await pilot.press("m")
        await settle(app, pilot)
        assert tr.history[-1].pair == chosen and tr.steps_done == 11
        await pilot.press("b")
        await settle(app, pilot)
        assert tr.planned_pair() == chosen
        marked = [i for i, row in enumerate(app.pairs.rows) if row[0].startswith("▶")]
        assert len(marked) == 1 and app.pairs.pairs[marked[0]] == chosen != leader
        eow = app.session.end_of_word
        shown = f"{label(chosen[0], eow)} + {label(chosen[1], eow)}"
        caption = app.pairs.caption_text
        assert caption.startswith(f"next (merge 11): {shown}  ×{tr.pair_count(chosen):,}")
        assert "chosen by hand" in caption
        await pilot.press("space")
        await settle(app, pilot)
        assert tr.history[-1].pair == chosen and tr.history[-1].manual
        # with no plan ahead the leader is marked again
        assert tr.planned_pair() is None
        assert app.pairs.rows[0][0] == "▶1" and "chosen by hand" not in app.pairs.caption_text


async def test_m_on_a_pair_that_cannot_merge_is_a_notification():
    app = classic_app("court.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.pairs.table.focus()
        await pilot.press("space")  # (t, h): the pairs list on screen still shows what it showed
        await settle(app, pilot)
        # a pair that no longer occurs, as a stale row would offer it
        app.pairs.pairs[0] = ("t", "h")
        app.pairs.table.move_cursor(row=0)
        await pilot.press("m")
        await settle(app, pilot)
        assert app.session.trainer.steps_done == 1
        assert any(n.startswith("cannot merge this pair: cannot merge t + h: the pair does not occur") for n in notes(app))
        assert app.is_running


async def test_a_hand_merge_is_marked_after_save_and_reopen(tmp_path):
    app = classic_app("court.txt")
    path = str(tmp_path / "court-2.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("space")
        app.pairs.table.focus()
        await pilot.press("down", "m")
        await settle(app, pilot)
        assert app.main.save_table(path, "native")
    table_app = ExplorerApp(table_path=path)
    async with table_app.run_test(size=(120, 40)) as pilot:
        await settle(table_app, pilot)
        rows = history_rows(table_app)
        view = table_app.history.view
        assert history_cells(view, rows[0]).mark == " "  # a saved table does not record ties
        assert history_cells(view, rows[1]).mark == "h"
        table_app.history.view.move_cursor(1)
        await settle(table_app, pilot)
        assert "[h] chosen by hand when the table was trained" in table_app.history.why


# ---------------------------------------------------------------------- constraints


async def test_settings_no_merge_across_hides_forbidden_pairs_and_says_how_many():
    # "a1 a1 b22 ..." : with no_merge_across \d no token mixes a digit with a letter
    app = text_app("a1 a1 a1 b22 b22 c3 x9y x9y\n", preset="classic")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert ("a", "1") in app.pairs.pairs
        await open_settings(app, pilot)
        box = app.screen.query_one("#no-merge-across", Input)
        box.focus()
        box.value = "["  # an invalid class: said in the dialog, which stays open
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        assert "no_merge_across: '[' is not a valid regex" in str(app.screen.query_one("#settings-error").render())
        box.value = r"\p{Nope}"
        await pilot.press("enter")
        await pilot.pause()
        assert "is not a valid regex" in str(app.screen.query_one("#settings-error").render())
        box.value = r"\d"
        await pilot.press("enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, SettingsScreen)
        tr = app.session.trainer
        assert tr.config.no_merge_across == r"\d"
        n = tr.forbidden_pair_count()
        assert n > 0
        joined = [(p[0] + p[1]).replace("</w>", "") for p in app.pairs.pairs]
        mixed = [j for j in joined if any(c.isdigit() for c in j) and any(c.isalpha() for c in j)]
        assert mixed == []
        assert f"({n} pairs hidden: no_merge_across \\d)" in app.pairs.caption_text
        assert "the same 0 merges" in notes(app)[-1]


async def test_m_on_a_forbidden_pair_is_a_notification():
    app = text_app("a1 a1 a1 b22 b22\n", preset="classic", no_merge_across=r"\d")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.pairs.table.focus()
        app.pairs.pairs[0] = ("a", "1")  # as a stale row would offer it
        await pilot.press("m")
        await settle(app, pilot)
        assert app.session.trainer.steps_done == 0
        assert any(n.startswith("cannot merge this pair: cannot merge a + 1") for n in notes(app))


# ---------------------------------------------------------------------- --from TABLE


async def test_from_table_numbers_go_on_and_undo_goto_stop_at_the_table(tmp_path):
    import bpe_tui

    table_path = str(tmp_path / "court-3.json")
    court = str(CORPORA / "court.txt")
    bpe_tui.save(bpe_tui.train(court, preset="classic", merges=3), table_path)
    table = bpe_tui.load(table_path)
    app = ExplorerApp(paths=[str(CORPORA / "cat_sat.txt")], config=bpe_tui.TrainerConfig(preset="classic", merges=10), start=table)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        session = app.session
        tr = session.trainer
        assert tr.first_step == 3 and tr.steps_done == 3
        assert session.start is table and session.unsaved == 0
        assert "next (merge 4)" in app.pairs.caption_text
        await pilot.press("space", "space")
        await settle(app, pilot)
        assert tr.steps_done == 5
        rows = history_rows(app)
        assert [history_cells(app.history.view, r).number for r in rows] == ["4", "5"]
        head = str(app.history.query_one("#history-head").render())
        assert head == "2 new merges · merges 1–3 are court-3.json's: open it (o) to list them"
        assert session.unsaved == 2
        # undo stops at the table's merges
        await pilot.press("b", "b", "b")
        await settle(app, pilot)
        assert tr.steps_done == 3
        assert any("already at step 3: the merges before come from the start table" in n for n in notes(app))
        # go to below the table clamps to it; forward again replays the same merges
        app.main.go_to_step(5)
        await settle(app, pilot)
        assert tr.steps_done == 5 and len(history_rows(app)) == 2
        app.main.go_to_step(0)
        await settle(app, pilot)
        assert tr.steps_done == 3
        assert any("the first 3 merges come from the start table" in n for n in notes(app))
        # the rules switched live keep the start table and number after it
        await pilot.press("space", "space")
        await settle(app, pilot)
        await open_settings(app, pilot)
        assert app.screen.query_one("#lowercase", Checkbox).disabled
        app.screen.query_one("#tie-break", Select).value = "lexical-max"
        await pilot.click("#ok")
        await yes_lose_unsaved(app, pilot)
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.first_step == 3 and tr.steps_done == 5 and app.session.start is table
        assert notes(app)[-1].startswith("retrained under the new rules: ")
        assert "merge 1 " not in notes(app)[-1] and "merge 2 " not in notes(app)[-1]


async def test_escape_cancels_retraining_and_keeps_the_old_run(monkeypatch):
    import random

    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 12))) for _ in range(15_000)]
    app = text_app(" ".join(words), vocab_size=50_000)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.main.go_to_step(4000)
        await settle(app, pilot)
        old = app.session
        assert old.trainer.steps_done == 4000
        # The new run's merging waits until it is cancelled, so escape always comes in time,
        # however fast the machine (the new run is not the old session: the patch reaches it only).
        real_advance = ExploreSession.advance

        def held(self, max_steps, *args, stop=None, **kwargs):
            if self is old:
                return real_advance(self, max_steps, *args, stop=stop, **kwargs)
            while not stop():
                time.sleep(0.01)
            return 0

        monkeypatch.setattr(ExploreSession, "advance", held)
        await open_settings(app, pilot)
        app.screen.query_one("#tie-break", Select).value = "first-seen"
        await pilot.click("#ok")
        await yes_lose_unsaved(app, pilot)
        await pilot.pause(0.15)
        assert app.query_one("#progress-row").display
        assert old.busy  # the old run is not moved meanwhile: keys say busy
        await pilot.press("space")
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.session is old and not old.busy
        assert old.trainer.steps_done == 4000 and old.trainer.config.tie_break == "lexical-max"
        assert any(n == "rules unchanged: retraining cancelled: the rules are as they were" for n in notes(app))
        assert not app.query_one("#progress-row").display


async def test_settings_pretokenizer_counts_the_corpus_again(tmp_path):
    import bpe_tui

    path = tmp_path / "code.txt"
    path.write_text("x=1; y=22; x=y+1;\n" * 3, encoding="utf-8")
    app = ExplorerApp(paths=[str(path)], config=bpe_tui.TrainerConfig(preset="gpt2", merges=20))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        before = {tr.word_text(w) for w in range(tr.word_count)}
        await pilot.press("space")
        await settle(app, pilot)
        await open_settings(app, pilot)
        app.screen.query_one("#pretokenizer", Select).value = "whitespace"
        await pilot.click("#ok")
        await yes_lose_unsaved(app, pilot)
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.config.pretokenizer == "whitespace" and tr.steps_done == 1
        after = {tr.word_text(w) for w in range(tr.word_count)}
        assert after != before and "x=1;" in after
        assert notes(app)[-1].startswith("retrained under the new rules: ")

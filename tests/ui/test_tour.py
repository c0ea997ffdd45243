"""Pilot tests of the guided tour (bpe-tui learn): every tour key, both kinds of answer, right
and wrong, leaving, and starting it from the explorer."""

from __future__ import annotations

import pytest
from textual.widgets import Checkbox, Input

from bpe_tui.core.teaching.lessons import STOPS
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.guide import tour_panel
from bpe_tui.ui.screens.dialogs import ConfirmScreen
from bpe_tui.ui.views.tour import TourPanel

from .conftest import classic_app, demo_app, settle


def panel(app) -> TourPanel:
    found = tour_panel(app)
    assert found is not None, "the tour is not open"
    return found


async def choose_pair(app, pilot, pair: tuple) -> None:
    """Move the pair table's cursor to ``pair`` and press enter, as a learner would."""
    app.pairs.table.focus()
    await pilot.pause()
    row = app.pairs.pairs.index(pair)
    while app.pairs.table.cursor_row > row:
        await pilot.press("up")
    while app.pairs.table.cursor_row < row:
        await pilot.press("down")
    await pilot.press("enter")
    await settle(app, pilot)


async def test_learn_opens_the_first_stop_with_the_answer_hidden():
    app = ExplorerApp(tour=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tour = panel(app)
        assert "Tour 1/10 · Pairs, counted" in tour.text
        assert "Which pair merges first?" in tour.text
        assert app.session.name == "low_lower_lowest.txt" and app.session.trainer.steps_done == 0
        assert app.session.trainer.config.tie_break == "first-seen"
        assert app.pairs.hide_next
        assert not any(row[0].startswith("▶") for row in app.pairs.rows)  # nothing says which wins
        assert "which pair?" in app.pairs.caption_text and "l + o" not in app.pairs.caption_text
        assert app.screen.has_class("-touring")


async def test_a_right_pair_answer_is_praised_and_the_explorer_makes_the_merge():
    app = ExplorerApp(tour=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await choose_pair(app, pilot, ("l", "o"))
        tour = panel(app)
        assert "✓ Right: merge 1 is (l, o), 10 times." in tour.text
        assert "Why: merged l + o into lo" in tour.text
        assert tour.query_one("#tour-verdict").has_class("right")
        assert app.session.trainer.steps_done == 1
        assert app.session.trainer.history[-1].pair == ("l", "o")
        assert not app.pairs.hide_next and app.pairs.rows[0][0] == "▶1"  # the table speaks again
        assert app.corpus.pair is None  # the answer is not left behind as a corpus filter


async def test_a_wrong_pair_answer_says_why_and_shows_the_true_merge():
    app = ExplorerApp(tour=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await choose_pair(app, pilot, ("o", "w"))
        tour = panel(app)
        assert "✗ Not (o, w) (10 times): merge 1 is (l, o), 10 times." in tour.text
        # why (l, o) won the tie: the trainer's own sentence on the merge it made
        assert "Why: merged l + o into lo: 10 times" in tour.text and "first-seen picks l + o" in tour.text
        assert tour.query_one("#tour-verdict").has_class("wrong")
        assert app.session.trainer.history[-1].pair == ("l", "o")  # the truth happens on screen
        await choose_pair(app, pilot, ("lo", "w"))  # answered already: enter filters the corpus again
        assert app.corpus.pair == ("lo", "w") and app.session.trainer.steps_done == 1


async def test_next_and_back_move_the_explorer_with_the_stops():
    app = ExplorerApp(tour=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        tour = panel(app)
        assert tour.tour.index == 1 and "Tour 2/10 · Watch a word become one token" in tour.text
        assert "Why:" not in tour.text  # the last stop's merge is not this one's
        assert app.session.trainer.steps_done == 2 and not app.pairs.hide_next
        await pilot.press("space")  # the learner steps on
        await settle(app, pilot)
        assert app.session.trainer.steps_done == 3
        await pilot.press("left_square_bracket")
        await settle(app, pilot)
        assert tour.tour.index == 0 and tour.tour.verdict is None
        assert app.session.trainer.steps_done == 0 and app.pairs.hide_next  # asked again
        await pilot.press("left_square_bracket")  # the first stop: nothing before it
        await settle(app, pilot)
        assert tour.tour.index == 0


async def test_every_stop_opens_its_example_at_its_step():
    app = ExplorerApp(tour=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for n, stop in enumerate(STOPS):
            tour = panel(app)
            assert tour.tour.index == n
            assert app.session.name == stop.example.corpus
            assert app.session.trainer.steps_done == stop.step
            assert app.session.trainer.config.tie_break == stop.example.config().tie_break
            assert f"Tour {n + 1}/{len(STOPS)} · {stop.title}" in tour.text
            await pilot.press("right_square_bracket")
            await settle(app, pilot)
        assert panel(app).tour.index == len(STOPS) - 1  # the last stop stays


async def test_number_keys_answer_a_choice_right_and_wrong():
    app = ExplorerApp(tour=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("1")
        await settle(app, pilot)
        tour = panel(app)
        assert "✗ Not 1: the answer is 3) 7." in tour.text
        await pilot.press("3")  # one answer per visit
        await settle(app, pilot)
        assert "✗ Not 1" in tour.text
        await pilot.press("right_square_bracket", "left_square_bracket")
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        assert "✓ Right: the answer is 3) 7." in panel(app).text


async def test_dropout_and_round_trip_stops_fill_the_encode_box():
    app = ExplorerApp(tour=7)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.query_one("#encode-input", Input).value == "lowest lowest lowest"
        assert app.query_one("#dropout", Checkbox).value and app.encode.dropout == 0.3
        await pilot.press("3")
        await settle(app, pilot)
        assert "✓ Right" in panel(app).text
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        assert app.query_one("#encode-input", Input).value == "slowest"
        assert not app.query_one("#dropout", Checkbox).value
        assert [s for _, s in app.encode.pieces] == ["s", "lowest</w>"]
        await pilot.press("2")
        await settle(app, pilot)
        assert "✓ Right: the answer is 2) 'slowest '." in panel(app).text


async def test_q_leaves_the_tour_and_the_explorer_stays():
    app = ExplorerApp(tour=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.pairs.hide_next
        await pilot.press("q")
        await settle(app, pilot)
        assert tour_panel(app) is None and not app.screen.has_class("-touring")
        assert not app.pairs.hide_next and app.pairs.rows[0][0] == "▶1"
        assert app.session.name == "court.txt" and app.session.trainer.steps_done == 1
        await pilot.press("q", "right_square_bracket", "1")  # no tour: the keys do nothing
        await settle(app, pilot)
        assert tour_panel(app) is None and app.session.trainer.steps_done == 1


async def test_tour_keys_typed_in_the_encode_box_are_text():
    app = ExplorerApp(tour=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("e", "q", "1", "right_square_bracket")
        await settle(app, pilot)
        assert app.query_one("#encode-input", Input).value == "q1]"
        assert panel(app).tour.index == 0 and panel(app).tour.verdict is None


async def test_L_starts_the_tour_from_the_explorer_and_asks_before_dropping_merges():
    app = classic_app("court.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("L")
        await settle(app, pilot)
        assert panel(app).tour.index == 0 and app.session.name == "low_lower_lowest.txt"
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        await pilot.press("L")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen) and tour_panel(app) is None
        await pilot.press("escape")  # no: keep the demo's merges
        await settle(app, pilot)
        assert tour_panel(app) is None and app.session.trainer.steps_done == 10


async def test_the_palette_offers_the_tour():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert any("guided tour" in c.title for c in app.get_system_commands(app.screen))
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"guided tour")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(app, pilot)
        assert panel(app).tour.index == 0 and app.session.name == "low_lower_lowest.txt"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_tour_snapshot(snap_compare, size):
    """The court stop after a wrong answer: the text, the question, ✗ and the true merge made."""

    async def answer_wrong(pilot):
        app = pilot.app
        await settle(app, pilot)
        await choose_pair(app, pilot, ("t", "</w>"))

    assert snap_compare(ExplorerApp(tour=3), terminal_size=size, run_before=answer_wrong)


async def test_a_pair_answer_when_no_pair_is_left_makes_no_merge():
    app = ExplorerApp(tour=3)  # the court: a few dozen merges and it is all whole words
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        trainer = app.session.trainer
        app.main.go_to_step(10_000)
        await settle(app, pilot)
        done = trainer.steps_done
        assert trainer.top_pairs(1) == []
        assert panel(app).answer(("t", "h"))
        assert "No pair is left to merge here." in panel(app).text and "Why:" not in panel(app).text
        assert trainer.steps_done == done


async def test_number_keys_answer_only_while_a_numbered_question_waits_else_they_show_tabs():
    """1-4 are the answer keys while a numbered question is open (the footer says so);
    answered, or with no tour, 1-3 show the tabs again."""
    app = ExplorerApp(tour=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        active = app.screen.active_bindings
        assert active["1"].binding.action == "answer(1)" and active["4"].binding.action == "answer(4)"
        assert active["right_square_bracket"].binding.show and active["q"].binding.action == "tour('leave')"
        await pilot.press("3")
        await settle(app, pilot)
        assert "✓ Right" in panel(app).text
        assert app.screen.active_bindings["1"].binding.action == "show_tab('history')"
        await pilot.press("2")
        await settle(app, pilot)
        assert app.main.query_one("#tabs").active == "tab-stats"
        await pilot.press("q")
        await settle(app, pilot)
        active = app.screen.active_bindings
        assert "right_square_bracket" not in active and "q" not in active and "4" not in active

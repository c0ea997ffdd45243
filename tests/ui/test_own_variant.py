"""A variant of one's own in the explorer (examples/min_words.py, ``--variant``): it steps,
undoes and goes to; the history's why line says why it chose each merge; the status line and
a saved table name it; Evaluate sets it beside plain BPE; and a variant that fails is a
notification, the trainer as it was."""

from __future__ import annotations

import pytest

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.session.sessions import read_preview
from bpe_tui.ui.views.evaluate import EvalScreen
from examples.min_words import MinWords
from tests.core.test_variants_seam import Crashing

from .conftest import DEMO, settle


def own_app(variant) -> ExplorerApp:
    """The explorer as ``bpe-tui DEMO --variant ...`` opens it: the corpus read in the loader,
    the variant made by the factory the command line hands over."""
    cfg = TrainerConfig(preset="gpt2", vocab_size=600, max_token_length=32)
    return ExplorerApp(paths=[str(DEMO)], config=cfg, variant=variant)


async def test_it_steps_undoes_goes_to_and_explains_itself():
    app = own_app(lambda: MinWords(5))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        assert isinstance(tr.variant, MinWords) and tr.variant.min_words == 5
        reference = Trainer.from_files([str(DEMO)], tr.config, variant=MinWords(5))
        reference.goto(20)
        app.main.go_to_step(20)
        await settle(app, pilot)
        assert [e.pair for e in tr.history] == [e.pair for e in reference.history]
        skipped = next(e for e in tr.history if "did not" in str(e.reason))
        app.history.view.focus()
        app.history.view.move_cursor(skipped.step - 1)
        await settle(app, pilot)
        assert str(skipped.reason) in app.history.why  # the why line: the variant's own words
        await pilot.press("b")  # undo
        await settle(app, pilot)
        assert tr.steps_done == 19
        await pilot.press("space")
        await settle(app, pilot)
        assert tr.steps_done == 20 and tr.history[-1].pair == reference.history[-1].pair
        assert "variant examples.min_words:MinWords" in app.main.query_one("StatusLine").text
        table = app.session.table()
        assert table.config["variant"]["class"] == "examples.min_words:MinWords"


async def test_evaluate_sets_it_beside_plain_bpe():
    app = own_app(lambda: MinWords(5))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.main.go_to_step(40)
        await settle(app, pilot)
        await pilot.press("v")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, EvalScreen) and screen.plain is not None
        assert len(screen.summaries) == 2
        assert "vs plain BPE at the same size" in str(screen.query_one("#eval-title").render())


async def test_a_variant_that_fails_is_a_notification_and_the_trainer_stays_usable():
    cfg = TrainerConfig(preset="gpt2", vocab_size=600)
    app = ExplorerApp(trainer=Trainer.from_files([str(DEMO)], cfg, variant=Crashing()), preview=read_preview([str(DEMO)]))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        await pilot.press("space")
        await settle(app, pilot)
        assert tr.steps_done == 1
        await pilot.press("space")  # the variant raises in after_merge at its second merge
        await settle(app, pilot)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and "after_merge raised ZeroDivisionError: division by zero" in str(errors[-1].message)
        assert tr.steps_done == 1 and len(app.session.timeline) == 1
        await pilot.press("b")
        await settle(app, pilot)
        assert tr.steps_done == 0


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_own_variant_screen(snap_compare, size):
    """The picture on docs/variants/your-own.md: MinWords 20 merges in, the history's cursor on
    a merge it chose over a more frequent pair, its why line saying so."""

    async def to_a_skip(pilot):
        app = pilot.app
        await settle(app, pilot)
        app.main.go_to_step(20)
        await settle(app, pilot)
        skipped = next(e for e in app.session.trainer.history if "did not" in str(e.reason))
        app.history.view.focus()
        app.history.view.move_cursor(skipped.step - 1)
        await settle(app, pilot)

    assert snap_compare(own_app(lambda: MinWords(5)), terminal_size=size, run_before=to_a_skip)

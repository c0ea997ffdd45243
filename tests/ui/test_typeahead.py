"""Keys typed ahead (bpe_tui/ui/typeahead.py): keys typed while the first corpus loads reach
its screen, and keys that come together go where the key before them sent the focus.

Issue 42: started in tmux, ``e`` pressed as soon as the status line showed and ``zebra``
typed left the encode box empty and ran z (zoom), b (undo), r (run) and a (the audit)."""

from __future__ import annotations

import threading

from textual import events
from textual.widgets import Input

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.screens.explore import ExploreScreen
from bpe_tui.ui.screens.layout import StartScreen
from bpe_tui.ui.screens.opening import OpenScreen

from .conftest import DEMO, demo_app, settle, settle_until


def nothing_but_typing_happened(app) -> None:
    """The walk typed text: no merge, no undo, no run, no view, no maximized pane."""
    assert isinstance(app.screen, ExploreScreen), app.screen
    assert app.session.trainer.steps_done == 0
    assert app.screen.maximized is None


def held_loading(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """The explorer's reading of its corpus held until the test lets it go: ``(loading,
    go_on)``, set by the reading when it starts, and by the test to let it finish."""
    loading, go_on = threading.Event(), threading.Event()
    real = Trainer.from_files.__func__

    def held_from_files(cls, paths, config=None, **options):
        loading.set()
        go_on.wait(60)  # the corpus is being read while the keys come
        return real(cls, paths, config, **options)

    monkeypatch.setattr(Trainer, "from_files", classmethod(held_from_files))
    return loading, go_on


async def until_reading(loading: threading.Event, pilot) -> None:
    """Until the held reading has started (the start screen is up, the keys come now)."""
    while not loading.is_set():
        await pilot.pause()


def demo_corpus_app() -> ExplorerApp:
    """The explorer as ``bpe-tui`` opens it: the demo corpus read behind the start screen."""
    return ExplorerApp(paths=[str(DEMO)], config=TrainerConfig(preset="gpt2", vocab_size=1000))


async def test_keys_typed_while_the_first_corpus_loads_reach_its_encode_box(monkeypatch):
    loading, go_on = held_loading(monkeypatch)
    app = demo_corpus_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await until_reading(loading, pilot)
        assert isinstance(app.screen, StartScreen)
        await pilot.press("e", *"zebra")
        assert isinstance(app.screen, StartScreen)  # still reading
        go_on.set()
        await settle_until(app, pilot, lambda: isinstance(app.screen, ExploreScreen) and app.encode.query_one("#encode-input", Input).value == "zebra", "the keys did not reach the encode box")
        nothing_but_typing_happened(app)
        assert app.encode.query_one("#encode-input", Input).has_focus


async def test_escape_while_the_first_corpus_loads_still_cancels_it(monkeypatch):
    loading, go_on = held_loading(monkeypatch)
    app = demo_corpus_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await until_reading(loading, pilot)
        await pilot.press("o")  # held for the screen to come, which does not: escape goes first
        await pilot.press("escape")
        go_on.set()
        await settle_until(app, pilot, lambda: "loading cancelled" in app.status.text, "escape did not cancel the loading")
        assert app.session is None and not isinstance(app.screen, OpenScreen)  # the o typed for it went too


async def test_keys_that_come_together_go_where_the_first_one_sent_the_focus():
    """Six keys read in one go (a fast typist, a paste, a busy terminal): ``e`` moves the focus
    to the encode box before ``zebra`` is read, as when they come one by one."""
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert not app.encode.query_one("#encode-input", Input).has_focus
        for key in "ezebra":
            app.post_message(events.Key(key, key))
        await settle_until(app, pilot, lambda: app.encode.query_one("#encode-input", Input).value == "zebra", "zebra did not reach the encode box")
        nothing_but_typing_happened(app)

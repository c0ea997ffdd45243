"""Hostile file names and contents in the explorer: notifications, the open dialog's error line
and the status line show them escaped (no raw ESC reaches the terminal, no newline splits a
message), never as markup, and what was open stays open.

The names are made at test time: ``ESC[2J`` (clear the screen), an OSC title sequence
(``ESC]0;...BEL``), a newline, and a name that reads as Textual markup.
"""

from __future__ import annotations

from textual.widgets import Input, Static

from bpe_tui import TrainerConfig
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.notifications import note_lines
from bpe_tui.ui.panes.status import StatusLine
from bpe_tui.ui.screens.dialogs import ConfirmScreen
from bpe_tui.ui.screens.opening import OpenScreen

from .conftest import demo_app, said, settle, settle_until

EVIL = "clear\x1b[2J title\x1b]0;PWNED\x07 line\nbreak"
SHOWN = "clear\\x1b[2J title\\x1b]0;PWNED\\x07 line\\nbreak"


def notifications(app) -> list[tuple[str, str]]:
    return [(str(n.title), str(n.message)) for n in said(app)]


def plain(text: str) -> bool:
    """No character a terminal would act on: every one printable (or a notes list's breaks)."""
    return all(c.isprintable() or c == "\n" for c in text)


async def open_from_dialog(app, pilot, path: str) -> None:
    await pilot.press("o")
    await pilot.pause()
    assert isinstance(app.screen, OpenScreen)
    app.screen.query_one("#path-input", Input).value = path
    app.screen.query_one("#path-input", Input).focus()
    await pilot.press("enter")


async def test_a_corpus_that_cannot_be_read_is_named_escaped_and_the_demo_stays(tmp_path):
    bad = tmp_path / f"{EVIL}.txt"
    bad.write_bytes(b"\xff\xfe not UTF-8\n")
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_from_dialog(app, pilot, str(bad))
        # the explorer offers to read it with substitutes, naming it
        await settle_until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the offer to read it anyway")
        question = str(app.screen.query_one(".question", Static).render())
        assert f"{SHOWN}.txt: not valid UTF-8" in question and plain(question)
        await pilot.press("n")
        await settle_until(app, pilot, lambda: any("not valid UTF-8" in m for _, m in notifications(app)), "the error")
        said = [m for _, m in notifications(app) if "not valid UTF-8" in m]
        assert len(said) == 1 and f"{SHOWN}.txt" in said[0]
        assert plain(said[0]) and "\n" not in said[0]
        assert app.session is not None and app.session.name == "demo.txt"  # what was open stays


async def test_the_open_dialog_names_a_missing_path_escaped(tmp_path):
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_from_dialog(app, pilot, str(tmp_path / EVIL))
        await pilot.pause()
        if isinstance(app.screen, OpenScreen):  # the dialog says it in its error line
            shown = str(app.screen.query_one("#open-error", Static).render())
        else:  # or the app says it in a notification
            shown = " ".join(m for _, m in notifications(app))
        assert SHOWN in shown and plain(shown) and "\n" not in shown


async def test_a_name_that_reads_as_markup_is_shown_as_it_is(tmp_path):
    (tmp_path / "[b]bold[").mkdir()
    bad = tmp_path / "[b]bold[" / "b] [red]x.txt"  # the path reads [b]bold[/b] [red]x.txt
    bad.write_bytes(b"\xff\n")
    app = demo_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:  # (toasts drawn)
        await settle(app, pilot)
        await open_from_dialog(app, pilot, str(bad))
        await settle_until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the offer to read it anyway")
        await pilot.press("n")
        await settle_until(app, pilot, lambda: any("not valid UTF-8" in m for _, m in notifications(app)), "the error")
        await settle_until(app, pilot, lambda: app.screen.query("Toast"), "the notification on the screen")
        toasts = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert any("[b]bold[/b] [red]x.txt" in t for t in toasts), toasts  # as it is, not read as markup


async def test_the_status_line_shows_the_corpus_name_escaped(tmp_path):
    corpus = tmp_path / f"{EVIL}.txt"
    corpus.write_text("low lower lowest newer newest\n" * 20)
    app = ExplorerApp(paths=[str(corpus)], config=TrainerConfig(preset="gpt2", vocab_size=300))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle_until(app, pilot, lambda: app.session is not None, "the corpus open")
        await settle(app, pilot)
        status = app.main.query_one(StatusLine)
        drawn = "".join(seg.text for strip in status.render_lines(status.region.reset_offset) for seg in strip)
        assert "\x1b" not in drawn and "\x07" not in drawn
        assert "clear\\x1b[2J" in drawn
        # a notification that names it: title and message escaped too
        app.notify(f"{app.session.name}: hello", title=f"about {app.session.name}")
        await pilot.pause()
        title, message = notifications(app)[-1]
        assert plain(title) and plain(message) and SHOWN in title and SHOWN in message


def test_a_list_of_notes_keeps_its_lines_and_escapes_each():
    text = note_lines(["first", f"second {EVIL}"])
    assert text.split("\n") == ["• first", f"• second {SHOWN}"]

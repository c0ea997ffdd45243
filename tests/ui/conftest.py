"""Shared helpers for the explorer's pilot and snapshot tests."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest
from rich.cells import cell_len

import bpe_tui
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.session.sessions import read_preview

REPO = Path(__file__).resolve().parents[2]
CORPORA = REPO / "corpora"
SHARED = REPO.parent / "shared"
GPT2_TABLE = SHARED / "tables" / "gpt2"
DEMO = Path(bpe_tui.demo_corpus_path())


def demo_app(vocab_size: int = 1000, **overrides) -> ExplorerApp:
    """The explorer on the demo corpus (loaded synchronously: deterministic first frame)."""
    cfg = TrainerConfig(preset="gpt2", vocab_size=vocab_size, **overrides)
    trainer = Trainer.from_files([str(DEMO)], cfg)
    return ExplorerApp(trainer=trainer, preview=read_preview([str(DEMO)]))


def classic_app(name: str = "low_lower_lowest.txt", **cfg) -> ExplorerApp:
    path = str(CORPORA / name)
    trainer = Trainer.from_files([path], TrainerConfig(preset="classic", **cfg))
    return ExplorerApp(trainer=trainer, preview=read_preview([path]))


def text_app(text: str, **cfg) -> ExplorerApp:
    cfg.setdefault("preset", "gpt2")
    trainer = Trainer.from_text(text, TrainerConfig(**cfg), name="inline")
    return ExplorerApp(trainer=trainer, preview=text)


class Said(NamedTuple):
    """A notification the explorer raised, as it was shown."""

    title: str
    message: str
    severity: str
    timeout: float | None  # as asked (None: Textual's default)


@pytest.fixture(autouse=True)
def notifications_kept(monkeypatch):
    """Every notification an explorer raises is kept in the order it came (see :func:`said`):
    a toast leaves the screen after a few seconds of wall time, and on a loaded machine those
    seconds passed before a test looked for it (its assertion then found nothing)."""
    from bpe_tui.ui.notifications import shown

    real_notify = ExplorerApp.notify

    def notify(self, message, *, title="", severity="information", timeout=None, markup=True):
        real_notify(self, message, title=title, severity=severity, timeout=timeout, markup=markup)
        self.__dict__.setdefault("_said_in_test", []).append(Said(shown(title), shown(message), severity, timeout))

    monkeypatch.setattr(ExplorerApp, "notify", notify)


def said(app) -> list[Said]:
    """What ``app`` has notified so far, whether or not its toast is still up (the screen's
    toasts now are ``app._notifications``)."""
    return list(app.__dict__.get("_said_in_test", []))


async def settle(app, pilot) -> None:
    """Wait for workers and pending messages."""
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


@pytest.fixture
def gpt2_table_path() -> str:
    if not (GPT2_TABLE / "merges.txt").is_file():
        pytest.skip(f"GPT-2's table is not at {GPT2_TABLE} (the shared data directory is absent)")
    return str(GPT2_TABLE)


async def settle_until(app, pilot, condition, what: str, seconds: float = 60.0) -> None:
    """Settle until ``condition()`` holds (work that starts from a message, a chain of loads):
    a wait with a generous bound for a loaded machine, never a statement about speed."""
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        await settle(app, pilot)
    await settle(app, pilot)


async def open_in_dialog(app, pilot, path: str) -> None:
    """``o``, ``path`` typed in the open dialog, enter (the opening itself goes on in a worker)."""
    from textual.widgets import Input

    await settle(app, pilot)
    await pilot.press("o")
    await pilot.pause()
    app.screen.query_one("#path-input", Input).value = path
    await pilot.press("enter")


async def wait_for_screen(app, pilot, kind, seconds: float = 20.0) -> None:
    """Settle until ``app.screen`` is a ``kind`` (loads chain: table A, then table B)."""
    await settle_until(app, pilot, lambda: isinstance(app.screen, kind), f"{kind.__name__} did not open; screen is {app.screen!r}", seconds)


async def open_settings(app, pilot) -> None:
    """``,`` and wait until the rules dialog is up with the focus in its first box (the tie-break):
    one pause is not always enough on a loaded machine."""
    from textual.widgets import Select

    from bpe_tui.ui.screens.settings import SettingsScreen

    await pilot.press("comma")
    await settle_until(
        app, pilot,
        lambda: isinstance(app.screen, SettingsScreen) and app.screen.focused is app.screen.query_one("#tie-break", Select),
        "the rules dialog did not open with the focus on the tie-break",
    )


@pytest.fixture(scope="session")
def compare_tables(tmp_path_factory) -> tuple[str, str]:
    """Two tiny tables trained on the shipped corpora (gpt2 rules): demo text vs multilingual text."""
    d = tmp_path_factory.mktemp("compare")
    a, b = d / "demo-300.json", d / "multilingual-300.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=300), str(a))
    bpe_tui.save(bpe_tui.train(str(CORPORA / "multilingual.txt"), preset="gpt2", merges=300), str(b))
    return str(a), str(b)


@pytest.fixture(scope="session")
def clip_table(tmp_path_factory) -> str:
    """A CLIP-format file (gzip-compressed, as CLIP ships its own) of a table trained on the
    demo corpus by CLIP's rules: bytes, CLIP's regex, </w>, lowercase."""
    path = tmp_path_factory.mktemp("clip") / "clip_vocab.txt.gz"
    table = bpe_tui.train(str(DEMO), units="bytes", pretokenizer="clip", end_of_word="</w>", lowercase=True, vocab_size=1200)
    bpe_tui.save(table, str(path), format="clip")
    return str(path)


class HistoryCells(NamedTuple):
    """One history row cut at its columns (each stripped of its padding)."""

    state: str
    number: str
    mark: str
    left: str
    right: str
    new: str
    count: str


def cut_cells(text: str, widths: list[int]) -> list[str]:
    """``text`` cut into pieces ``widths`` terminal cells wide (the last piece: the rest)."""
    pieces, start, used, bound = [], 0, 0, widths[0]
    for i, ch in enumerate(text):
        if len(pieces) < len(widths) and used >= bound:
            pieces.append(text[start:i])
            start = i
            if len(pieces) < len(widths):
                bound += widths[len(pieces)]
        used += cell_len(ch)
    pieces.append(text[start:])
    while len(pieces) <= len(widths):
        pieces.append("")
    return pieces


def history_cells(view, text: str) -> HistoryCells:
    """A history row as drawn (``view.row_text(i)`` or a line of the screen), by column:
    ``{state} {number} {mark} {left} + {right} → {new} {count}``."""
    c = view.columns
    widths = [1, 1, c.number, 1, 1, 1, c.left, 3, c.right, 3, c.new, 1]
    p = cut_cells(text, widths)
    return HistoryCells(p[0], p[2].strip(), p[4], p[6].strip(), p[8].strip(), p[10].strip(), p[12].strip())


@pytest.fixture
def snap_compare(snap_compare):
    """pytest-textual-snapshot's snap_compare, with what wall time decides taken out of the
    picture: the notifications are cleared (a toast lives a few seconds of wall time, an opened
    table's notes, so whether it was still on screen depended on how loaded the machine was),
    and every text box's cursor stops blinking, shown (a blinking cursor was caught on or off
    by chance: test_encode_specials_refused failed now and then)."""
    import inspect

    from textual.widgets import Input

    def compare(app, *args, run_before=None, **kwargs):
        async def before(pilot):
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            await settle(pilot.app, pilot)
            pilot.app.clear_notifications()
            for box in pilot.app.screen.query(Input):
                box.cursor_blink = False  # (and the cursor shown)
            await pilot.pause()

        return snap_compare(app, *args, run_before=before, **kwargs)

    return compare

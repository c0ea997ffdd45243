"""The explorer App: boots, switches sessions, holds what is global (theme, palette, help).

What you see is a screen (:mod:`bpe_tui.ui.screens`): an :class:`ExploreScreen` for a trainer
on a corpus, an :class:`InspectScreen` for a saved table, a :class:`StartScreen` while nothing
is open yet. The App shows one of them as its default screen and switches to another when a
corpus or table is opened (:meth:`ExplorerApp.opened`); everything a session's panes do lives
on its screen. Opening runs in the screen's :class:`~bpe_tui.ui.session.loader.Loader` worker, which
reports by messages that bubble up to the App. What the keys do is listed once, in
:mod:`~bpe_tui.ui.keys`.

Entry points (called by the CLI): :func:`run_explorer` and :func:`run_inspect`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
from collections.abc import Callable, Iterable

from textual import events
from textual.app import App, SystemCommand
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.signal import Signal

from ..core.engine.config import EXPLORER_MAX_TOKEN_LENGTH, TrainerConfig
from ..core.engine.registry import Variant
from ..core.engine.trainer import Trainer
from ..core.errors import BPEError
from ..core.tables.table import MergeTable
from ..core.text.datasets.records import RecordOptions
from ..core.wording import one_line, plural
from .guide import Guide, open_tour
from .keys import EXPLORE, INSPECT, VIEWS, help_rows, palette_commands, panes_for
from .messages import LoadCancelled, LoadFailed, SessionOpened
from .notifications import note_lines, shown
from .panes.corpus import CorpusPane
from .panes.detail import TokenDetail
from .panes.encode import EncodePane
from .panes.history import HistoryPane
from .panes.pairs import PairsPane
from .panes.search import TokenSearch
from .panes.stats import StatsPane
from .panes.status import StatusLine
from .picture import save_picture
from .screens.dialogs import ConfirmScreen, HelpScreen
from .screens.explore import ExploreScreen
from .screens.guards import confirm_discard, session_free
from .screens.inspect import InspectScreen
from .screens.layout import MainScreen, SessionScreen, StartScreen
from .screens.opening import OpenChoice, OpenScreen
from .session.loader import Loader
from .session.runner import Runner
from .session.sessions import ExploreSession, InspectSession, Session
from .typeahead import KeyDone, TypeAhead
from .views.compare import CompareScreen
from .widths import svg_in_cells

#: The default target when a config has none.
DEFAULT_VOCAB = 1000
#: What a table's reader noted, as a notification on opening: this many notes, this long.
NOTES_SHOWN = 2
NOTES_SECONDS = 5


def screen_for(session: Session, compare_path: str | None = None) -> SessionScreen:
    """The main screen that shows ``session``."""
    if isinstance(session, ExploreSession):
        return ExploreScreen(session, compare_path)
    assert isinstance(session, InspectSession)
    return InspectScreen(session, compare_path)


class ExplorerApp(App):
    """bpe-tui's explorer (explore a corpus) and inspector (inspect a saved table)."""

    TITLE = "bpe-tui"
    CSS_PATH = [
        "app.tcss",
        "panes/status.tcss",
        "panes/corpus.tcss",
        "panes/pairs.tcss",
        "panes/history.tcss",
        "panes/encode.tcss",
        "panes/stats.tcss",
        "panes/detail.tcss",
        "panes/search.tcss",
        "widgets/chips.tcss",
        "widgets/plot.tcss",
        "views/tour.tcss",
        "widgets/workbar.tcss",
    ]

    def __init__(
        self,
        paths: list[str] | None = None,
        config: TrainerConfig | None = None,
        errors: str = "strict",
        counts: bool = False,
        table_path: str | None = None,
        trainer: Trainer | None = None,
        table: MergeTable | None = None,
        preview: str | None = None,
        compare_path: str | None = None,
        workers: int | None = None,
        dask: str | None = None,
        tour: int | None = None,
        start: MergeTable | None = None,
        records: RecordOptions | None = None,
        languages: tuple | None = None,
        variant: Callable[[], Variant | None] | None = None,
        check_variant: bool = False,
    ) -> None:
        super().__init__()
        #: ``bpe-tui --language LANG=FILE ...``: ``(corpora, dev, ratio)`` for the variant that
        #: trains on one corpus per language.
        self.languages = languages
        #: ``bpe-tui --variant MODULE:CLASS``: makes the variant for the corpus the command line
        #: names; ``--check-variant``: its trainer recounts after every step.
        self.variant = variant
        self.check_variant = check_variant
        #: How JSON lines and Parquet corpora give their documents (--text-field,
        #: --skip-bad-records; the open dialog changes it for what it opens).
        self.records = records or RecordOptions()
        #: ``bpe-tui learn``: open the guided tour at this stop (0-based) once the start screen is up.
        self._tour_start = tour
        #: The guided tour while it is open (bpe_tui.ui.views.tour; it outlives the screens of its examples).
        self.guide: Guide | None = None
        #: ``bpe-tui CORPUS --from TABLE``: the corpus is trained on from this table.
        self.start = start
        #: ``--dask ADDRESS``: corpora opened in this app are counted on that Dask cluster.
        self.dask = dask
        #: Processes counting a corpus's words (None: the core decides by size; --workers).
        self.count_workers = workers
        self._initial = (paths, config, errors, counts, table_path, trainer, table, preview)
        #: ``bpe-tui open A --compare B``: compare with B once the first table is open.
        self._compare_path = compare_path
        #: What is open: an ExploreSession, an InspectSession, or None (nothing yet).
        self.session: Session | None = None
        #: The screen that shows it (the start screen while nothing is open).
        self.main: MainScreen = StartScreen(then=self._open_initial)  # see get_default_screen
        #: Show a character that tokens cut between them as each token's bytes (``<0xE0>``),
        #: not once, whole (the u key; read through ``ChipStyles.whole``).
        self.show_bytes = False
        #: Published when ``show_bytes`` turns over: what draws chips draws them again.
        self.look_changed_signal: Signal[bool] = Signal(self, "look-changed")
        #: Keys one at a time, held while the first corpus or table loads (ui/typeahead.py).
        self.typeahead = TypeAhead(self)

    # ------------------------------------------------------------------ booting

    def get_default_screen(self) -> Screen:
        """The screen for what the CLI handed over already read; else the start screen, and
        what the command line named is opened once it is up."""
        paths, config, errors, counts, table_path, trainer, table, preview = self._initial
        session: Session | None = None
        if trainer is not None:
            session = ExploreSession(trainer, preview)
        elif table is not None:
            session = InspectSession(table, source=table.source)
        if session is not None:
            path, self._compare_path = self._compare_path, None
            self.session, self.main = session, screen_for(session, path)
        elif self._tour_start is None and (table_path is not None or self.languages is not None or paths):
            self.typeahead.hold_until_ready()  # keys typed while it loads go to its screen
        return self.main

    async def on_event(self, event: events.Event) -> None:
        """A key from the terminal goes on only once the key before it is done, and waits
        while the first screen loads (see :mod:`~bpe_tui.ui.typeahead`)."""
        if isinstance(event, KeyDone):
            self.typeahead.arrived(event)
        elif isinstance(event, events.Key) and not event.is_forwarded:
            if not self.typeahead.takes(event):
                target = self.screen.focused or self.screen
                await super().on_event(event)
                self.typeahead.sent(target)
        else:
            await super().on_event(event)

    def notify(
        self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification of the explorer (a widget's ``notify`` comes here too): shown as
        text, never as markup, a file's name or content in it escaped and on one line (see
        :mod:`~bpe_tui.ui.notifications`)."""
        super().notify(shown(message), title=shown(title), severity=severity, timeout=timeout, markup=False)

    def on_load(self) -> None:
        """SIGINT and SIGTERM end the explorer as ctrl+q does, the terminal given back, with
        128 + the signal's number as its exit status (the CLI then says which, in one line).
        Left to Python, the CLI's handler would raise in the middle of whatever the screen
        was doing. (A test's headless app leaves the test runner's signals alone; Textual's
        web driver, under ``serve``, sets its own.)"""
        if self.is_headless:
            return
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # (not the main thread, no signals)
                loop.add_signal_handler(signum, self.exit, None, 128 + signum)

    def on_mount(self) -> None:
        if self.session is not None:
            self.show_notes(self.session)

    def _open_initial(self, screen: StartScreen) -> None:
        """Start opening the table or corpus the command line named (in the start screen's
        Loader worker)."""
        paths, config, errors, counts, table_path, *_ = self._initial
        if self._tour_start is not None:
            open_tour(self, self._tour_start)
        elif table_path is not None:
            screen.show_progress(f"opening {table_path}…", None)
            screen.loader.table(table_path)
        elif self.languages is not None:
            screen.show_progress(f"reading {plural(len(self.languages[0]), 'language')}…", None)
            screen.loader.languages(self.languages, default_config(config), errors, workers=self.count_workers, records=self.records)
        elif paths:
            screen.show_progress(f"reading {', '.join(paths)}…", None)
            screen.loader.corpus(
                list(paths), config or default_config(None), errors, counts, workers=self.count_workers, dask=self.dask, start=self.start,
                records=self.records, variant=self.variant, check=self.check_variant,
            )

    # ------------------------------------------------------------------ the main screen and its session

    def _get_dom_base(self) -> DOMNode:
        """``app.query_one(...)`` looks in the main screen (Textual's default: the first screen
        composed, here the start screen that stays at the bottom of the stack)."""
        return self.main

    def opened(self, session: Session) -> None:
        """Show a corpus or table just opened (in place of what was open), say what its reader
        assumed, and open the comparison ``bpe-tui open A --compare B`` asked for.

        The first screen (Textual cannot replace the bottom of the stack) stays there, emptied
        if it showed a session; the new session's screen is pushed on it, and replaces the
        screen of each session opened after it.
        """
        while not isinstance(self.screen, MainScreen):
            self.pop_screen()
        if self.guide is not None and not self.guide.shows(session):
            self.guide = None  # something else opened: the tour ends (L starts it again)
        path, self._compare_path = self._compare_path, None
        screen = screen_for(session, path)
        if self.main is self.screen_stack[0]:
            self.main.retire()
            self.push_screen(screen)
        else:
            self.switch_screen(screen)
        self.session, self.main = session, screen
        self.show_notes(session)

    def show_notes(self, session: Session) -> None:
        """What the table's reader recognised or assumed, or the bad records a dataset's
        reading skipped, as a notification (never silent)."""
        if isinstance(session, ExploreSession) and session.read_note:
            self.notify(session.read_note, title=f"opened {session.name}", timeout=NOTES_SECONDS * 2)
        if not isinstance(session, InspectSession):
            return
        notes = session.full_table.notes
        if notes:
            # Short and brief: on 80 columns a toast covers the history for as long as it stays.
            listed = notes[:NOTES_SHOWN] + ([f"+ {plural(len(notes) - NOTES_SHOWN, 'more note')}: bpe-tui inspect lists them"] if len(notes) > NOTES_SHOWN else [])
            self.notify(note_lines(listed), title=f"opened {session.name}: notes", timeout=NOTES_SECONDS)

    def on_session_opened(self, message: SessionOpened) -> None:
        self.main.hide_progress()
        self.opened(message.session)
        self.main.call_after_refresh(self.typeahead.ready)  # (once the screen is up, its focus set)
        if message.encode is not None:  # (a retrain: the encode box keeps its text)
            text, dropout = message.encode
            new = self.main
            if isinstance(new, SessionScreen):
                new.call_after_refresh(lambda: new.encode.set_text(text, dropout))

    def on_load_failed(self, message: LoadFailed) -> None:
        self.typeahead.drop()
        if message.compare:
            self.main.hide_progress()
            self.notify(message.message, title="cannot compare", severity="error", timeout=10)
            return
        if message.replacing is not None:
            self.offer_replacing(message.message, message.replacing)
            return
        self.failed_to_open(message.message)

    def failed_to_open(self, why: str) -> None:
        self._compare_path = None  # nothing to compare with
        why = one_line(why)  # (shown on the screen as well: a path in it escaped)
        self.notify(why, title="cannot open", severity="error", timeout=10)
        self.main.loading_stopped(f"could not open: {why} — press o to open something else")

    def offer_replacing(self, why: str, again: Callable[[], object]) -> None:
        """A corpus that is not valid UTF-8: ask to read it with each invalid byte read as
        U+FFFD (what ``--errors replace`` does); no leaves what was open as it was."""
        self.main.hide_progress()
        why = one_line(why)

        def answered(yes: bool | None) -> None:
            if yes:
                self.main.show_progress("reading, invalid bytes replaced…", None)
                again()
            else:
                self.failed_to_open(why)

        question = f"{why}.\nOpen it anyway, each invalid byte read as U+FFFD (�)?"
        self.push_screen(ConfirmScreen(question), answered)

    def on_compare_screen_other_table_wanted(self, message: CompareScreen.OtherTableWanted) -> None:
        if isinstance(self.main, SessionScreen):
            self.main.action_compare()

    def on_load_cancelled(self, message: LoadCancelled) -> None:
        self.typeahead.drop()
        self.main.loading_stopped("loading cancelled — press o to open a corpus or a table")

    # ------------------------------------------------------------------ opening, quitting

    def free(self) -> bool:
        """True when no worker moves the open session; else say so (a bell and a note)."""
        return session_free(self, self.session)

    def action_open(self) -> None:
        if not self.free():
            return

        def chosen(choice: OpenChoice | None) -> None:
            if choice is not None and self.openable(choice.path):  # a typo is said before unsaved merges are asked about
                self.confirm_discard(f"Open {choice.path}", lambda: self._open(choice.path, choice.records))

        self.push_screen(OpenScreen(self.records), chosen)

    def open_path(self, path: str, records: RecordOptions | None = None) -> None:
        """Open a table or a corpus; which one it is is found out in the Loader's worker.
        ``records``: how a dataset's records give documents (kept for the next open)."""
        if self.openable(path):
            self._open(path, records)

    def _open(self, path: str, records: RecordOptions | None) -> None:
        """open_path's work, for a path found there (see openable)."""
        path = os.path.expanduser(path)
        if records is not None:
            self.records = records
        main = self.main
        main.show_progress(f"opening {path}…", None)
        main.loader.path(path, default_config(main.corpus_config()), workers=self.count_workers, dask=self.dask, records=self.records)

    def openable(self, path: str) -> bool:
        """Whether ``path`` (``~`` expanded; a glob pattern matching something) is there; else
        say so in a notification."""
        import glob

        path = os.path.expanduser(path)
        if os.path.exists(path) or next(glob.iglob(path), None) is not None:
            return True
        self.notify(f"{path}: no such file or directory", title="cannot open", severity="error", timeout=10)
        return False

    def confirm_discard(self, doing: str, then: Callable[[], object]) -> None:
        """Run ``then()`` now, or after a yes when it would throw away unsaved merges."""
        confirm_discard(self, self.session, doing, then)

    async def action_quit(self) -> None:
        """ctrl+q: quit, after asking when unsaved merges would be lost."""
        self.confirm_discard("Quit", self.exit)

    def action_learn(self) -> None:
        """The guided tour (bpe_tui.ui.views.tour) under the panes, from its first stop."""
        if not self.free():
            return
        self.confirm_discard("Start the tour", lambda: open_tour(self))

    def action_picture(self) -> None:
        """P: the screen as an SVG picture beside the corpus or the table (ui/picture.py).

        The notifications on screen would cover what the picture shows: they are cleared, and
        the picture is taken once the screen is drawn without them; the one that says where
        it went comes after it is written."""
        self.clear_notifications()
        self.call_after_refresh(self._take_picture)

    def _take_picture(self) -> None:
        try:
            path = save_picture(self)
        except (BPEError, OSError) as exc:
            self.notify(str(exc), title="cannot save the picture", severity="error", timeout=10)
            return
        self.notify(path, title="picture saved")

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        """Textual's SVG screenshot, each run of text as long as its cells (ui/widths.py)."""
        return svg_in_cells(super().export_screenshot(title=title, simplify=simplify))

    def action_show_bytes(self) -> None:
        """u: characters cut between tokens as the tokens' bytes, or whole (and back)."""
        self.show_bytes = not self.show_bytes
        self.look_changed_signal.publish(self.show_bytes)
        self.notify("cut characters shown as their bytes" if self.show_bytes else "cut characters shown whole (underlined)", timeout=3)

    # ------------------------------------------------------------------ help and palette

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The help (an ``app.`` action, bound by the main screens and the views) is off, and
        out of the footer, while a dialog is on top: it lists a screen's keys, not a dialog's."""
        if action == "help":
            return getattr(self.screen, "KIND", None) is not None
        return super().check_action(action, parameters)

    def action_help(self) -> None:
        """The keys of the screen shown: a view's (compare, audit, evaluate), else the main
        screen's (the tour's while the tour is open)."""
        kind = getattr(self.screen, "KIND", None)
        if kind in VIEWS:
            self.push_screen(HelpScreen(help_rows(kind), panes_for(kind), f"keys of the {kind} view"))
            return
        main = self.main
        tour = isinstance(main, ExploreScreen) and main.guide is not None
        heading = {EXPLORE: "keys while training", INSPECT: "keys of a saved table"}.get(main.KIND, "keys")
        self.push_screen(HelpScreen(help_rows(main.KIND, tour), panes_for(main.KIND), heading))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from palette_commands(screen)
        if isinstance(screen, MainScreen):
            if self.workers and any(w.group in ("train", "merges") and w.is_running for w in self.workers) or (
                isinstance(screen, ExploreScreen) and screen.playing
            ):
                yield SystemCommand("Cancel", "stop the run, auto-play or the merge list's build (escape)", lambda: screen.run_action("cancel"))

    # ------------------------------------------------------------------ the main screen's panes, by name
    # (what tests and other screens reach for: app.pairs, app.encode, ...)

    @property
    def status(self) -> StatusLine:
        return self.main.query_one(StatusLine)

    @property
    def corpus(self) -> CorpusPane:
        return self.main.query_one(CorpusPane)

    @property
    def search(self) -> TokenSearch:
        return self.main.query_one("#search", TokenSearch)

    @property
    def pairs(self) -> PairsPane:
        return self.main.query_one(PairsPane)

    @property
    def history(self) -> HistoryPane:
        return self.main.query_one(HistoryPane)

    @property
    def encode(self) -> EncodePane:
        return self.main.query_one(EncodePane)

    @property
    def stats(self) -> StatsPane:
        return self.main.query_one(StatsPane)

    @property
    def detail(self) -> TokenDetail:
        return self.main.query_one(TokenDetail)

    @property
    def loader(self) -> Loader:
        return self.main.loader

    @property
    def runner(self) -> Runner:
        return self.main.query_one(Runner)

    @property
    def playing(self) -> bool:
        main = self.main
        return isinstance(main, ExploreScreen) and main.playing

    @property
    def play_rate(self) -> int:
        return self.runner.rate

    @property
    def busy(self) -> bool:
        return self.session is not None and self.session.busy


# ---------------------------------------------------------------------- entry points


def default_config(config: TrainerConfig | None) -> TrainerConfig:
    """The config to train with: gpt2 preset by default (with the explorer's max_token_length);
    vocab_size 1000 if there is no target."""
    config = config or TrainerConfig(preset="gpt2", max_token_length=EXPLORER_MAX_TOKEN_LENGTH)
    if config.vocab_size is None and config.merges is None:
        config = dataclasses.replace(config, vocab_size=DEFAULT_VOCAB)
    return config


def run_explorer(
    paths: list[str] | None,
    config: TrainerConfig,
    errors: str = "strict",
    counts: bool = False,
    workers: int | None = None,
    dask: str | None = None,
    start: MergeTable | None = None,
    records: RecordOptions | None = None,
    languages: tuple | None = None,
    variant: Callable[[], Variant | None] | None = None,
    check_variant: bool = False,
) -> int:
    """Open the explorer on ``paths`` (None or empty: the built-in demo corpus); ``workers``
    processes count the words of every corpus it opens (None: by size, see count_files), or,
    with ``dask`` (a scheduler address or "local"), the Dask cluster does. ``start``: go on
    training from this table (``--from``): its merges are applied first, and new merges
    number on after them. ``records``: how JSON lines and Parquet corpora give their documents.
    ``languages``: ``(corpora, dev, ratio)`` for the variant that trains on one corpus per
    language (see ``Trainer.from_languages``), instead of ``paths``. ``variant``: makes the
    variant the corpus is trained with (``--variant``); ``check_variant``: check mode."""
    from .. import demo_corpus_path

    if not paths and languages is None:
        paths = [demo_corpus_path()]
        counts = False
    app = ExplorerApp(
        paths=list(paths or ()), config=default_config(config), errors=errors, counts=counts, workers=workers, dask=dask, start=start,
        records=records, languages=languages, variant=variant, check_variant=check_variant,
    )
    app.run()
    return app.return_code or 0


def run_inspect(table_path: str, compare_path: str | None = None, table: MergeTable | None = None) -> int:
    """Open a saved merge table (any format the core reads) in inspect mode; ``table``, if
    given, is that file already read (the CLI reads it first, so errors come before the screen).

    With ``compare_path``, the comparison view opens on the two tables once both are loaded.
    """
    app = ExplorerApp(table_path=None if table is not None else table_path, table=table, compare_path=compare_path)
    app.run()
    return app.return_code or 0


def run_tour(start: int = 0) -> int:
    """``bpe-tui learn``: the explorer with the tour open at stop ``start`` (0-based)."""
    app = ExplorerApp(tour=start)
    app.run()
    return app.return_code or 0

"""The explorer App: one screen, panes that talk through messages, training in thread workers.

The App is thin: it owns the :class:`~bpe_tui.ui.session.Session`, routes messages between
panes, and keeps long work off the UI thread. Opening corpora and tables is the
:class:`~bpe_tui.ui.loader.Loader`'s; thousands of merges and auto-play are the
:class:`~bpe_tui.ui.runner.Runner`'s (a worker that posts one batched update every ~80 ms,
never one per merge). Both report by messages. What the keys do is listed in
:mod:`~bpe_tui.ui.keys`.

Entry points (called by the CLI): :func:`run_explorer` and :func:`run_inspect`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable

from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, ProgressBar, Static, TabbedContent, TabPane

from ..core.config import EXPLORER_MAX_TOKEN_LENGTH, TrainerConfig
from ..core.errors import BPEError
from ..core.table import MergeTable
from ..core.trainer import Trainer
from .compare import CompareScreen, Side
from .corpus import CorpusPane
from .detail import TokenDetail
from .dialogs import ConfirmScreen, FindScreen, GotoScreen, HelpScreen, PathScreen
from .encode import EncodePane
from .history import HistoryPane
from .keys import INSPECT_ACTIONS, KEYS, PANES, TRAIN_ACTIONS
from .loader import Loader
from .messages import (
    CompareReady,
    EncodeChanged,
    LoadCancelled,
    LoadFailed,
    LoadProgress,
    PairSelected,
    Played,
    Progressed,
    Retrained,
    RetrainProgress,
    SessionReady,
    StepChosen,
    TokenSelected,
    WorkDone,
)
from .pairs import PairsPane
from .runner import Runner
from .search import TokenSearch
from .session import Session
from .stats import StatsPane
from .status import StatusLine

#: Moves up to this many merges run on the UI thread; more go to a worker.
SYNC_STEPS = 10
#: The default target when a config has none.
DEFAULT_VOCAB = 1000


class ExplorerApp(App):
    """bpe-tui's explorer (explore a corpus) and inspector (inspect a saved table)."""

    TITLE = "bpe-tui"
    CSS_PATH = [
        "app.tcss",
        "status.tcss",
        "corpus.tcss",
        "pairs.tcss",
        "history.tcss",
        "encode.tcss",
        "stats.tcss",
        "detail.tcss",
        "search.tcss",
    ]
    BINDINGS = [
        # Help first: the footer shows bindings in order and cuts what does not fit (80 columns)
        Binding("question_mark,f1", "help", "Help"),  # f1: also from inside a text box
        Binding("space", "step", "Step"),
        Binding("n", "step", "Step", show=False),
        Binding("N", "step(10)", "+10", show=False),
        Binding("ctrl+n", "step(100)", "+100", show=False),
        Binding("r", "run", "Run"),
        Binding("b", "undo", "Undo"),
        Binding("backspace", "undo", "Undo", show=False),
        Binding("g", "goto", "Go to"),
        Binding("w", "whole_table", "Whole table"),
        Binding("s", "save", "Save"),
        Binding("o", "open", "Open"),
        Binding("c", "compare", "Compare"),
        Binding("a", "audit", "Audit", show=False),
        Binding("v", "evaluate", "Evaluate", show=False),
        Binding("slash", "find", "Find"),
        Binding("e", "focus_encode", "Encode", show=False),
        Binding("p", "play", "Play"),
        Binding("comma", "settings", "Rules", show=False),
        Binding("vertical_line", "boundaries", "Boundaries", show=False),
        Binding("plus,equals_sign", "faster", "Faster", show=False),
        Binding("minus", "slower", "Slower", show=False),
        Binding("escape", "cancel", "Cancel", show=False),
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
        start: MergeTable | None = None,
    ) -> None:
        super().__init__()
        #: ``bpe-tui CORPUS --from TABLE``: the corpus is trained on from this table.
        self.start = start
        #: ``--dask ADDRESS``: corpora opened in this app are counted on that Dask cluster.
        self.dask = dask
        self.session: Session | None = None
        self._initial = (paths, config, errors, counts, table_path, trainer, table, preview)
        #: ``bpe-tui open A --compare B``: compare with B once the first table is open.
        self._compare_path = compare_path
        self._last_compare = ""  # the compare prompt offers the last table B again
        self.config = config
        self.work_label = ""
        #: Processes counting a corpus's words (None: the core decides by size; --workers).
        self.count_workers = workers
        #: The step a move is headed for while a worker moves the trainer (goto, steps).
        self._move_target: int | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield CorpusPane(id="corpus")
                yield TokenSearch(id="search")
                yield EncodePane(id="encode")
            with Vertical(id="right"):
                yield PairsPane(id="pairs")
                with TabbedContent(id="tabs", initial="tab-history"):
                    with TabPane("History", id="tab-history"):
                        yield HistoryPane(id="history")
                    with TabPane("Stats", id="tab-stats"):
                        yield StatsPane(id="stats")
                    with TabPane("Token", id="tab-token"):
                        yield TokenDetail(id="detail")
        with Horizontal(id="progress-row"):
            yield Static("", id="progress-label", markup=False)
            yield ProgressBar(id="progress", show_eta=False)
        yield Loader()
        yield Runner()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#search").display = False
        self.query_one("#progress-row").display = False
        paths, config, errors, counts, table_path, trainer, table, preview = self._initial
        if trainer is not None:
            self.set_session(Session(trainer=trainer, preview=preview))
        elif table is not None:
            self.opened(Session(table=table, source=table.source))
        elif table_path is not None:
            self.load_table(table_path)
        elif paths:
            self.load_corpus(paths, config or default_config(None), errors, counts)
        else:
            self.query_one(StatusLine).show(None, None)

    # ------------------------------------------------------------------ pane access

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def corpus(self) -> CorpusPane:
        return self.query_one(CorpusPane)

    @property
    def pairs(self) -> PairsPane:
        return self.query_one(PairsPane)

    @property
    def history(self) -> HistoryPane:
        return self.query_one(HistoryPane)

    @property
    def encode(self) -> EncodePane:
        return self.query_one(EncodePane)

    @property
    def stats(self) -> StatsPane:
        return self.query_one(StatsPane)

    @property
    def detail(self) -> TokenDetail:
        return self.query_one(TokenDetail)

    @property
    def search(self) -> TokenSearch:
        return self.query_one("#search", TokenSearch)

    @property
    def runner(self) -> Runner:
        return self.query_one(Runner)

    @property
    def playing(self) -> bool:
        return self.runner.playing

    @property
    def play_rate(self) -> int:
        return self.runner.rate

    @property
    def busy(self) -> bool:
        return self.session is not None and self.session.busy

    # ------------------------------------------------------------------ sessions

    def set_session(self, session: Session) -> None:
        """Show a new corpus or table (replacing what was there)."""
        self.stop_play()
        self.session = session
        explore = session.mode == "explore"
        self.corpus.display = explore
        self.search.display = not explore
        if not explore:
            self.search.set_table(session.full_table)
        self.detail.token_id = None
        self.refresh_all()
        self.refresh_bindings()
        if explore:
            self.pairs.table.focus()
        else:
            self.history.view.focus()

    def refresh_all(self, follow: bool = True) -> None:
        """Re-render every pane from the session (UI thread, trainer idle)."""
        session = self.session
        if session is None:
            self.status.show(None, None)
            return
        snap = session.snapshot()
        self._apply(snap, idle=True, follow=follow)

    def _apply(self, snap, idle: bool, follow: bool = True) -> None:
        session = self.session
        with self.batch_update():
            self.status.show(session, snap, self.play_rate if self.playing else None, self.work_label)
            if snap.mode == "explore":
                self.pairs.show(session, snap, idle)
                self.corpus.show(session, snap)
            if snap.mode == "explore":
                self.history.show(session, snap.timeline_len, snap.step, follow=follow)
            else:
                self.history.show(session, snap.timeline_len, snap.step, follow=False)
            self.stats.show(session, snap.step)
            if idle:
                self.encode.update_table(session)  # the inspect pair table follows its EncodeChanged
                if self.detail.token_id is not None:
                    table = session.lookup_table()
                    if table is not None and self.detail.token_id in table.vocab:
                        self.detail.show(table, self.detail.token_id)

    # ------------------------------------------------------------------ loading (the Loader's workers)

    @property
    def loader(self) -> Loader:
        return self.query_one(Loader)

    def load_corpus(self, paths: list[str], config: TrainerConfig, errors: str = "strict", counts: bool = False) -> None:
        self._show_progress(f"reading {', '.join(paths)}…", None)
        self.loader.corpus(list(paths), config, errors, counts, workers=self.count_workers, dask=self.dask, start=self.start)

    def load_table(self, path: str) -> None:
        self._show_progress(f"opening {path}…", None)
        self.loader.table(path)

    def on_load_failed(self, message: LoadFailed) -> None:
        self._hide_progress()
        if message.compare:
            self.notify(message.message, title="cannot compare", severity="error", timeout=10)
            return
        self._compare_path = None  # nothing to compare with
        self.notify(message.message, title="cannot open", severity="error", timeout=10)
        if self.session is None:
            self.status.show(None, None, note=f"could not open: {message.message} — press o to open something else")

    def on_load_cancelled(self, message: LoadCancelled) -> None:
        self._hide_progress()
        if self.session is None:
            self.status.show(None, None, note="loading cancelled — press o to open a corpus or a table")

    def on_load_progress(self, message: LoadProgress) -> None:
        if message.dask:
            self._show_progress(f"counting on dask {message.dask}: {message.done} of {message.total} blocks", message.total, message.done)
            return
        self._show_progress(f"reading corpus: {message.done / 1e6:.1f} of {message.total / 1e6:.1f} MB", message.total, message.done)

    def on_session_ready(self, message: SessionReady) -> None:
        self._hide_progress()
        self.opened(message.session)

    def opened(self, session: Session) -> None:
        """Show a corpus or table just opened, say what its reader assumed, and open the
        comparison ``bpe-tui open A --compare B`` asked for."""
        self.set_session(session)
        self.show_notes(session)
        if self._compare_path is not None:
            path, self._compare_path = self._compare_path, None
            self.compare_with(path)

    def show_notes(self, session: Session) -> None:
        """What the table's reader recognised or assumed, as a notification (never silent)."""
        table = session.full_table
        if table is not None and table.notes:
            shown = table.notes[:4] + ([f"… {len(table.notes) - 4} more: bpe-tui inspect lists them all"] if len(table.notes) > 4 else [])
            self.notify("\n".join("• " + n[:160] for n in shown), title=f"opened {session.name}: notes", timeout=12)

    # ------------------------------------------------------------------ progress row

    def _show_progress(self, label: str, total: float | None, done: float = 0) -> None:
        self.query_one("#progress-row").display = True
        self.query_one("#progress-label", Static).update(label)
        self.query_one(ProgressBar).update(total=total, progress=done)

    def _hide_progress(self) -> None:
        self.query_one("#progress-row").display = False

    # ------------------------------------------------------------------ training

    def _move(self, what: str, target: int | None = None, forward: int | None = None, respect: bool = True) -> None:
        """Move the trainer: ``forward`` merges, or to step ``target``; small moves inline."""
        session = self.session
        step = session.trainer.steps_done
        if target is not None:
            amount = target - step
            respect = False
        else:
            amount = forward
        if amount == 0:
            return
        if abs(amount) <= SYNC_STEPS:
            if amount > 0:
                done = session.advance(amount, respect_target=respect)
            else:
                done = session.retreat(-amount)
            if done < abs(amount) and amount > 0:
                self._notify_stopped_short()
            self.refresh_all()
            return
        self._show_progress(what, abs(amount))
        self.work_label = what
        self._move_target = step + amount
        self.runner.train(session, what, amount, respect)

    def on_progressed(self, message: Progressed) -> None:
        if self.session is None or not self.session.busy:
            return
        self.query_one(ProgressBar).update(total=message.total, progress=message.done)
        self._apply(message.snapshot, idle=False)

    def on_work_done(self, message: WorkDone) -> None:
        self._hide_progress()
        self.work_label = ""
        self.refresh_all()
        if message.error:
            self.notify(message.error, title=message.what, severity="error")
        elif message.cancelled:
            self.notify(f"cancelled after {message.done:,} — kept what was done", title=message.what)
        elif self.session.trainer is not None and self.session.trainer.stop_reason and message.what.startswith("run"):
            self.notify(self.session.trainer.stop_reason, title="finished")
        elif self._move_target is not None and self.session.trainer is not None and self.session.trainer.steps_done < self._move_target:
            self._notify_stopped_short()
        self._move_target = None

    def _notify_stopped_short(self) -> None:
        """A forward move (steps, go to step k) ended early: say at which step and why."""
        tr = self.session.trainer
        self.notify(f"stopped at step {tr.steps_done:,}: {tr.stop_reason or 'finished'}", title="stopped")

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in TRAIN_ACTIONS or action in INSPECT_ACTIONS or action in ("goto", "save", "find", "open", "help", "focus_encode", "compare", "audit", "evaluate"):
            if len(self.screen_stack) > 1:
                return False
        if action in TRAIN_ACTIONS:
            return self.session is not None and self.session.mode == "explore"
        if action in INSPECT_ACTIONS:
            return self.session is not None and self.session.mode == "inspect"
        return True

    def _can_act(self) -> bool:
        if self.session is None:
            self.notify("nothing loaded yet: press o to open a corpus or a table", severity="warning")
            return False
        if self.session.busy:
            self.bell()
            self.notify("busy — escape cancels the run", severity="warning", timeout=2)
            return False
        return True

    def action_step(self, n: int = 1) -> None:
        if not self._can_act() or self.session.mode != "explore":
            return
        self._move(f"{n} steps", forward=n)

    def action_run(self) -> None:
        if not self._can_act() or self.session.mode != "explore":
            return
        tr = self.session.trainer
        if tr.finished:
            self.notify(tr.stop_reason or "already at the target", title="nothing to run")
            return
        target = tr.target_steps
        amount = target - tr.steps_done if target is not None and target > tr.steps_done else 10**9
        self._show_progress("run to target", amount if amount < 10**9 else None)
        self.work_label = "run"
        self.runner.train(self.session, "run to target", amount, True)

    def action_undo(self) -> None:
        if not self._can_act() or self.session.mode != "explore":
            return
        first = self.session.first_step
        if self.session.trainer.steps_done <= first:
            self.notify(f"already at step {first:,}" + (": the merges before come from the start table" if first else ""), timeout=3)
            return
        self._move("undo", forward=-1)

    def action_goto(self) -> None:
        if not self._can_act():
            return
        session = self.session
        if session.mode == "explore":
            prompt = f"go to step ({session.first_step:,} – any; target {session.trainer.target_steps}):"
        else:
            prompt = f"cut the table after merge (0 – {session.full_table.num_merges:,}):"

        def done(value: int | None) -> None:
            if value is not None:
                self.go_to_step(value)

        self.push_screen(GotoScreen(prompt, session.step), done)

    def go_to_step(self, k: int) -> None:
        session = self.session
        if k < 0:
            self.notify("steps start at 0", severity="warning")
            return
        if session.mode == "explore":
            if not self._can_act():
                return
            if k < session.first_step:
                self.notify(f"the first {session.first_step:,} merges come from the start table: going to step {session.first_step:,}", timeout=4)
                k = session.first_step
            self._move(f"go to step {k}", target=k)
        else:
            session.cut = None if k >= session.full_table.num_merges else k
            self.refresh_all(follow=False)
            if k > 0:
                self.history.view.move_cursor(min(k, session.full_table.num_merges) - 1, notify=False)

    def action_whole_table(self) -> None:
        if self.session is not None and self.session.mode == "inspect":
            self.session.cut = None
            self.refresh_all(follow=False)

    def action_cancel(self) -> None:
        workers = [w for w in self.workers if w.group in ("train", "load") and w.is_running]
        if workers:
            for w in workers:
                w.cancel()
            return
        if self.playing:
            self.stop_play()
            self.refresh_all()
            return
        if isinstance(self.focused, Input):
            self._focus_main()
            return
        if self.session is not None and self.session.mode == "explore" and self.corpus.pair is not None:
            self.corpus.set_pair(None)

    def _focus_main(self) -> None:
        if self.session is not None and self.session.mode == "explore":
            self.pairs.table.focus()
        else:
            self.history.view.focus()

    # -- auto-play

    def action_play(self) -> None:
        if self.playing:
            self.stop_play()
        elif self._can_act():
            self.runner.play(self.session)
        self.refresh_all()

    def stop_play(self) -> None:
        self.runner.stop()

    def on_played(self, message: Played) -> None:
        if message.stopped is not None:
            self.notify(message.stopped, title="auto-play stopped")
        self.refresh_all()

    def _rate(self, delta: int) -> None:
        rate = self.runner.change_rate(delta)
        self.notify(f"auto-play: {rate} merges per second", timeout=1.5)
        if self.session is not None and not self.session.busy:
            self.refresh_all(follow=False)

    def action_faster(self) -> None:
        self._rate(1)

    def action_slower(self) -> None:
        self._rate(-1)

    # -- steering: merge by hand, switch the rules, boundaries (behaviour in pairs.py, settings.py, loader.py, corpus.py)

    def action_merge_selected(self) -> None:
        """m in the pair table: merge the selected pair instead of the leader."""
        if not self._can_act() or self.session.mode != "explore":
            return
        pair = self.pairs.selected_pair
        if pair is None:
            self.notify("no pair to merge", severity="warning")
            return
        self.stop_play()
        try:
            event = self.session.merge_by_hand(pair)
        except BPEError as exc:
            self.notify(str(exc), title="cannot merge this pair", severity="error", timeout=8)
            return
        self.refresh_all()
        if event is None:
            self._notify_stopped_short()

    def action_settings(self) -> None:
        """, : the settings dialog; a changed config retrains in the Loader's worker."""
        if not self._can_act() or self.session.mode != "explore":
            return
        from .settings import SettingsScreen, needs_recount

        self.stop_play()
        session = self.session
        old = session.trainer.config

        def chosen(config: TrainerConfig | None) -> None:
            if config is None:
                return
            recount = needs_recount(old, config)
            self._show_progress("retraining under the new rules…", None)
            self.loader.retrain(session, config, recount, workers=self.count_workers, dask=self.dask)

        self.push_screen(SettingsScreen(old, recount=session.paths is not None, start=session.start is not None), chosen)

    def on_retrain_progress(self, message: RetrainProgress) -> None:
        self._show_progress(f"{message.what}: {message.done:,} of {message.total:,}", message.total, message.done)

    def on_retrained(self, message: Retrained) -> None:
        self._hide_progress()
        if message.session is None:
            self.notify(message.note, title="rules unchanged", severity="warning", timeout=8)
            self.refresh_all()
            return
        self.set_session(message.session)
        self.notify(message.note, title="retrained under the new rules", timeout=12)

    def action_boundaries(self) -> None:
        """|: token boundaries between the corpus pane's chips, on or off."""
        self.corpus.set_boundaries(not self.corpus.boundaries)

    # -- files

    def action_save(self) -> None:
        if not self._can_act():
            return
        from ..core.formats import writers

        session = self.session
        stem = os.path.splitext(session.name)[0] or "table"
        default = f"{stem}-{session.step}.json"

        def chosen(result) -> None:
            if result is None:
                return
            path, fmt = result
            if os.path.exists(path) and (os.path.isfile(path) or os.listdir(path)):

                def confirmed(yes: bool | None) -> None:
                    if yes:
                        self.save_table(path, fmt)

                self.push_screen(ConfirmScreen(f"{path} exists. Overwrite it?"), confirmed)
            else:
                self.save_table(path, fmt)

        hint = "native: one JSON file, keeps the config and counts · gpt2: a directory with vocab.json + merges.txt"
        self.push_screen(PathScreen("Save the merge table", default, formats=list(writers()), hint=hint), chosen)

    def save_table(self, path: str, fmt: str) -> bool:
        """Write the current table (the saved file is replaced atomically, or left whole)."""
        table = self.session.table()
        try:
            table.save(path, format=fmt)
        except BPEError as exc:
            self.notify(str(exc), title="save failed", severity="error", timeout=10)
            return False
        except OSError as exc:
            self.notify(f"{path}: {exc.strerror or exc}", title="save failed", severity="error", timeout=10)
            return False
        if self.session.mode == "explore":
            self.session.saved_step = self.session.step
        self.notify(f"saved {table.num_merges:,} merges to {path} ({fmt})", title="saved")
        return True

    def confirm_discard(self, doing: str, then) -> None:
        """Run ``then()`` now, or after a yes when it would throw away unsaved merges."""
        lost = self.session.unsaved if self.session is not None else 0
        if not lost:
            then()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        question = f"{lost:,} merges of {self.session.name} are not saved (s saves them). {doing} anyway?"
        self.push_screen(ConfirmScreen(question), answered)

    async def action_quit(self) -> None:
        """ctrl+q: quit, after asking when unsaved merges would be lost."""
        self.confirm_discard("Quit", self.exit)

    def action_open(self) -> None:
        if self.session is not None and self.session.busy:
            self._can_act()
            return

        def chosen(path: str | None) -> None:
            if path:
                self.confirm_discard(f"Open {path}", lambda: self.open_path(path))

        hint = "a corpus (text file or directory) or a merge table (native JSON, GPT-2 directory, …)"
        self.push_screen(PathScreen("Open a corpus or a merge table", "", hint=hint), chosen)

    def open_path(self, path: str) -> None:
        """Open a table or a corpus; which one it is is found out in the Loader's worker."""
        path = os.path.expanduser(path)
        if not os.path.exists(path):
            self.notify(f"{path}: no such file or directory", title="cannot open", severity="error", timeout=10)
            return
        config = self.session.trainer.config if self.session is not None and self.session.trainer is not None else None
        self._show_progress(f"opening {path}…", None)
        self.loader.path(path, default_config(config), workers=self.count_workers, dask=self.dask)

    # -- compare

    def action_compare(self) -> None:
        if not self._can_act():
            return

        def chosen(path: str | None) -> None:
            if path:
                self.compare_with(path)

        hint = "any readable table: native JSON, a GPT-2 directory, tokenizer.json, tiktoken, minbpe, subword-nmt, sentencepiece"
        self.push_screen(PathScreen("Compare the current table with (table B)", self._last_compare, hint=hint), chosen)

    def compare_with(self, path: str) -> None:
        """Load table B in a worker, then show the comparison (a bad path: a notification)."""
        path = os.path.expanduser(path)
        self._last_compare = path
        self._show_progress(f"opening {path} to compare…", None)
        self.loader.compare_table(path)

    def current_side(self) -> Side | None:
        """Table A: the trainer's table so far (explore) or the opened table, as cut (inspect)."""
        session = self.session
        table = session.table() if session is not None else None
        if table is None:
            return None
        if session.mode == "explore":
            origin = f"training, step {session.step:,}"
        else:
            origin = f"format {table.source_format}"
            if session.cut is not None:
                origin += f", first {session.cut:,} merges"
        return Side(table, session.name, origin)

    def on_compare_ready(self, message: CompareReady) -> None:
        self._hide_progress()
        b = Side(message.table, os.path.basename(os.path.normpath(message.path)), f"format {message.table.source_format}")
        if isinstance(self.screen, CompareScreen):
            self.screen.set_sides(self.screen.a, b)
            return
        if self.busy:
            self.notify("busy — press c again when the run ends", title="compare", severity="warning")
            return
        a = self.current_side()
        if a is None:
            return
        self.push_screen(CompareScreen(a, b, self.encode.text))

    # -- audit and evaluate (their own screens, bpe_tui.ui.audit and bpe_tui.ui.evaluate)

    def action_audit(self) -> None:
        if self._can_act():
            from .audit import AuditScreen

            self.stop_play()
            side = self.current_side()
            trainer = self.session.trainer if self.session.mode == "explore" else None
            self.push_screen(AuditScreen(side.table, f"{side.name} ({side.origin})", trainer=trainer))

    def action_evaluate(self) -> None:
        if self._can_act():
            from .evaluate import EvalScreen

            self.stop_play()
            side = self.current_side()
            self.push_screen(EvalScreen(side.table, side.name, origin=side.origin))

    # -- find, help

    def action_find(self) -> None:
        if self.session is None:
            self._can_act()
            return
        if self.session.mode == "inspect":
            self.query_one("#search-input", Input).focus()
            return
        table = self.session.table()

        def chosen(token_id: int | None) -> None:
            if token_id is not None:
                self.show_token(token_id, True)

        self.push_screen(FindScreen(table), chosen)

    def action_focus_encode(self) -> None:
        box = self.query_one("#encode-input", Input)
        box.focus()
        box.cursor_position = len(box.value)  # type on at the end; never select it all

    def action_help(self) -> None:
        self.push_screen(HelpScreen([(k, w) for k, w, _ in KEYS], PANES))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, CompareScreen):
            yield SystemCommand("Compare with another table B", "key: ctrl+o", screen.action_other)
            yield SystemCommand("Swap tables A and B", "key: ctrl+t", screen.action_swap)
            yield SystemCommand("Back to the explorer", "key: escape", screen.action_close)
            return
        for keys, what, action in KEYS:
            if action is None or action == "cancel":
                continue
            name = action.split("(")[0]
            if name in TRAIN_ACTIONS and (self.session is None or self.session.mode != "explore"):
                continue
            if name in INSPECT_ACTIONS and (self.session is None or self.session.mode != "inspect"):
                continue
            title = what[0].upper() + what[1:]
            yield SystemCommand(title, f"key: {keys}", lambda a=action: self.run_action(a))
        if self.playing or self.runner.training:
            yield SystemCommand("Cancel", "stop the run or auto-play (escape)", lambda: self.run_action("cancel"))
        yield SystemCommand("Slower auto-play", "key: -", lambda: self.run_action("slower"))

    # ------------------------------------------------------------------ routed messages

    def show_token(self, token_id: int, show: bool) -> None:
        session = self.session
        table = session.lookup_table() if session is not None else None
        if table is None:
            return
        self.detail.show(table, token_id)
        if show:
            self.query_one(TabbedContent).active = "tab-token"

    def on_token_selected(self, message: TokenSelected) -> None:
        self.show_token(message.token_id, message.show)
        session = self.session
        if message.show and session is not None and session.mode == "inspect":
            rank = session.full_table.rank_of(message.token_id)
            if rank is not None:
                self.history.view.move_cursor(rank, notify=False)

    def on_pair_selected(self, message: PairSelected) -> None:
        if self.session is not None and self.session.mode == "explore":
            self.corpus.set_pair(message.pair)

    def on_step_chosen(self, message: StepChosen) -> None:
        self.go_to_step(message.step)

    def on_encode_changed(self, message: EncodeChanged) -> None:
        if self.session is not None and self.session.mode == "inspect":
            self.pairs.show_text_pairs(self.session, message.text, message.pairs)


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
) -> int:
    """Open the explorer on ``paths`` (None or empty: the built-in demo corpus); ``workers``
    processes count the words of every corpus it opens (None: by size, see count_files), or,
    with ``dask`` (a scheduler address or "local"), the Dask cluster does. ``start``: go on
    training from this table (``--from``): its merges are applied first, and new merges
    number on after them."""
    from .. import demo_corpus_path

    if not paths:
        paths = [demo_corpus_path()]
        counts = False
    app = ExplorerApp(paths=list(paths), config=default_config(config), errors=errors, counts=counts, workers=workers, dask=dask, start=start)
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

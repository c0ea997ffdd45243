"""Opening things in the background: a corpus, a merge table, or table B to compare with.

The Loader is a widget with nothing to show. Each of its methods starts a thread worker that
reads the files and posts what came of it: :class:`LoadProgressed` while a corpus is read, then
:class:`SessionOpened` (a corpus or table to show) or :class:`CompareLoaded` (table B), or
:class:`LoadFailed` with a one-line reason, or :class:`LoadCancelled` when escape stopped it.
The messages bubble up to the App, which decides what the screen does with them; the Loader
never touches another widget. A rank file (o200k) opens without its merge list; the inspect
screen then has its Loader build the list behind the panes (:meth:`Loader.merges`:
:class:`MergesProgressed`, then :class:`MergesBuilt` or :class:`MergesCancelled`).

Workers are *exclusive* per group: opening something new cancels the load still running.
"""

from __future__ import annotations

import time
from typing import Any
from collections.abc import Callable

from textual import work
from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from ...core.engine.config import TrainerConfig
from ...core.engine.trainer import Trainer
from ...core.engine.registry import Variant
from ...core.errors import BPEError, NotUTF8, one_line
from ...core.text.languages import paths_of
from ...core.tables.formats import load
from ...core.tables.table import MergeTable
from ...core.text.datasets.records import ReadReport, RecordOptions
from ..messages import (
    BATCH_SECONDS,
    CompareLoaded,
    LoadCancelled,
    LoadFailed,
    LoadProgressed,
    MergesBuilt,
    MergesCancelled,
    MergesProgressed,
    Retrained,
    RetrainProgressed,
    SessionOpened,
)
from .sessions import ExploreSession, InspectSession, read_preview

#: What goes wrong with a file that is not ours to check: unreadable, not text, not valid.
FILE_ERRORS = (OSError, UnicodeError, ValueError)


class _Cancelled(Exception):
    """Raised inside the reading when escape cancelled the worker."""


class Loader(Widget):
    """Reads corpora and merge tables in thread workers; reports by messages."""

    DEFAULT_CSS = "Loader { display: none; }"

    def _reporter(self, message: Callable[[int, int], Message]) -> Callable[[int, int], None]:
        """A ``progress(done, total)`` for long work in the current worker: it posts
        ``message(done, total)`` at most every :data:`BATCH_SECONDS` (a few screen updates a
        second, never one per block or merge), and raises :class:`_Cancelled` once escape has
        cancelled the worker, which stops the work at its next report."""
        worker = get_current_worker()
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            if worker.is_cancelled:
                raise _Cancelled()
            now = time.monotonic()
            if now - last >= BATCH_SECONDS:
                last = now
                self.post_message(message(done, total))

        return progress

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def path(
        self, path: str, config: TrainerConfig, workers: int | None = None, dask: str | None = None, records: RecordOptions | None = None
    ) -> None:
        """Open whatever ``path`` holds: a merge table if its format is recognised, else a corpus.

        Telling the two apart reads the file, which can be slow (a big file, a network mount)
        and is refused for what is not a regular file (a FIFO would block): so it happens
        here, in the worker, never on the UI thread.
        """
        import glob
        import os

        from ...core.tables.formats import SeveralTables, check_readable, detect

        if not os.path.exists(path) and glob.has_magic(path):  # a glob of shards: a corpus
            self._corpus([path], config, workers=workers, dask=dask, records=records)
            return
        try:
            check_readable(path)
        except BPEError as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        try:
            detect(path)
        except SeveralTables as exc:  # a folder of tables is no corpus: say which to open
            self.post_message(LoadFailed(str(exc)))
            return
        except BPEError:
            self._corpus([path], config, workers=workers, dask=dask, records=records)
            return
        self._table(path)

    def _corpus(
        self,
        paths: list[str],
        config: TrainerConfig,
        errors: str = "strict",
        counts: bool = False,
        workers: int | None = None,
        dask: str | None = None,
        start: MergeTable | None = None,
        records: RecordOptions | None = None,
        variant: Callable[[], Variant | None] | None = None,
        check: bool = False,
    ) -> None:
        """Count the corpus (on the Dask cluster ``dask`` if given) and build a trainer;
        progress by bytes read, or by blocks counted on Dask, and by records read (JSON lines,
        Parquet: ``records`` says which field holds the text and whether bad records are
        skipped). With ``start`` (``--from``) the trainer goes on from that table (its merges
        applied to the corpus first).

        ``variant``: makes the variant to train with (``--variant``; None: the config's);
        ``check``: the trainer recounts after every step (``--check-variant``).

        ``workers``: processes counting the words (None: by size, see core.corpus.count_files).
        Escape cancels: the next progress report raises, which also stops the worker
        processes of a parallel count (they report several times a second while they read).
        """
        records = records or RecordOptions()
        report = ReadReport()
        progress = self._reporter(lambda done, total: LoadProgressed(done, total, dask, report.records))
        reading: dict[str, Any] = dict(
            errors=errors, progress=progress, counts=counts, workers=workers, client=dask,
            text_field=records.text_field, skip_bad_records=records.skip_bad, report=report,
        )

        def build() -> ExploreSession:
            own = variant() if variant is not None else None
            if start is not None:
                trainer = Trainer.from_table(start, paths, config, variant=own, **reading)
            else:
                trainer = Trainer.from_files(paths, config, variant=own, **reading)
            trainer.check_variant(check)
            return ExploreSession(
                trainer, read_preview(paths, counts, records), paths=list(paths), errors=errors, counts=counts, start=start, workers=workers,
                dask=dask, records=records, read_note="; ".join(report.said()) or None,
            )

        self._open(build, paths, again=lambda: self.corpus(paths, config, "replace", counts, workers, dask, start, records, variant, check))

    def _open(self, build: Callable[[], ExploreSession], paths: list[str], again: Callable[[], object]) -> None:
        """Build a session in this worker and say how it went: :class:`SessionOpened`, or
        why not (:class:`LoadFailed`, :class:`LoadCancelled`). A file that is not UTF-8 comes
        with ``again``, which reads everything again with invalid bytes replaced (the App
        offers it)."""
        try:
            session = build()
            session.word_order()
        except _Cancelled:
            self.post_message(LoadCancelled())
            return
        except NotUTF8 as exc:
            where = exc.name if exc.line is None else f"{exc.name}:{exc.line:,}"
            self.post_message(LoadFailed(f"{where}: not valid UTF-8 at byte {exc.byte:,}", replacing=lambda: again()))
            return
        except BPEError as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        except Exception as exc:  # unreadable, not text, or what no reader foresaw: a notification, never a stuck "reading"
            self.post_message(LoadFailed(f"{', '.join(paths)}: {one_line(exc)}"))
            return
        self.post_message(SessionOpened(session))

    #: ``_corpus`` in a thread worker (``path`` calls the plain one from its own worker).
    corpus = work(thread=True, exclusive=True, group="load", exit_on_error=False)(_corpus)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def languages(
        self, languages: tuple, config: TrainerConfig, errors: str = "strict", workers: int | None = None, records: RecordOptions | None = None,
    ) -> None:
        """The variant that trains on one corpus per language: read every language's corpus and development text
        (``languages``: ``(corpora, dev, ratio)``, see ``Trainer.from_languages``) and build
        its trainer; progress by bytes read, language by language."""
        corpora, dev, ratio = languages
        records = records or RecordOptions()
        progress = self._reporter(lambda done, total: LoadProgressed(done, total, None, 0))
        paths = [path for files in corpora.values() for path in paths_of(files)]

        def build() -> ExploreSession:
            trainer = Trainer.from_languages(
                corpora, dev=dev, ratio=ratio, config=config, errors=errors, workers=workers, progress=progress,
                text_field=records.text_field, skip_bad_records=records.skip_bad,
            )
            return ExploreSession(trainer, read_preview(paths), paths=paths, errors=errors, workers=workers, records=records)

        self._open(build, paths, again=lambda: self.languages(languages, config, "replace", workers, records))

    def _table(self, path: str) -> None:
        """Open a merge table in any readable format, to inspect it. A rank file's merge list
        is not built here: the inspect screen shows the table at once and builds it behind
        the panes (:meth:`merges`)."""
        table = self._read_table(path)
        if table is not None:
            session = InspectSession(table, source=path)
            if table.merges_built:
                session.rank_index()
            self.post_message(SessionOpened(session))

    #: ``_table`` in a thread worker.
    table = work(thread=True, exclusive=True, group="load", exit_on_error=False)(_table)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def compare_table(self, path: str) -> None:
        """Open table B for the comparison view."""
        table = self._read_table(path, compare=True)
        worker = get_current_worker()
        # a rank file's merge list is built here (the comparison numbers B's merges too), unless a newer request replaced this one
        if table is not None and table.build_merges(cancelled=lambda: worker.is_cancelled) and not worker.is_cancelled:
            self.post_message(CompareLoaded(table, path))

    @work(thread=True, exclusive=True, group="merges", exit_on_error=False)
    def merges(self, session: InspectSession) -> None:
        """Build the inspected rank file's merge list (read from the cache when it was built
        before): :class:`MergesProgressed` meanwhile, then :class:`MergesBuilt`, or
        :class:`MergesCancelled` when escape stopped it (nothing is kept)."""
        worker = get_current_worker()
        progress = self._reporter(MergesProgressed)
        table = session.full_table
        try:
            built = table.build_merges(progress, cancelled=lambda: worker.is_cancelled)
        except _Cancelled:
            built = False
        except BPEError as exc:  # a built merge that does not check out (the replay's always do): say what
            self.post_message(MergesCancelled(str(exc)))
            return
        if not built:
            self.post_message(MergesCancelled())
            return
        session.rank_index()  # the pair table's merge numbers, made here rather than on the UI thread
        self.post_message(MergesBuilt(table))

    def _read_table(self, path: str, compare: bool = False):
        """The merge table at ``path``, or None once LoadFailed says why not."""
        try:
            return load(path)
        except BPEError as exc:
            message = str(exc)
        except Exception as exc:  # what no reader foresaw: still a notification
            message = f"{path}: {one_line(exc)}"
        self.post_message(LoadFailed(message, compare=compare))
        return None

    # ------------------------------------------------------------------ retraining under new rules

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def retrain(self, old: ExploreSession, config: TrainerConfig, recount: bool) -> None:
        """Train anew under ``config`` up to the step ``old`` stands at, and say where the
        merge lists first differ (:class:`Retrained`); :class:`RetrainProgressed` meanwhile.

        ``recount``: count the corpus files again (lowercase or the pre-tokenizer changed), where
        ``old`` was counted (its worker processes or Dask cluster); otherwise the new trainer starts from ``old``'s
        word counts. ``old`` is marked busy
        while this runs, so nothing moves it; escape cancels and leaves it as it was.
        """
        from ..screens.settings import first_difference

        worker = get_current_worker()
        counting = self._reporter(lambda done, total: RetrainProgressed("counting the corpus again", done, total))
        merging = self._reporter(lambda done, total: RetrainProgressed("retraining under the new rules", done, total))
        old.busy = True
        try:
            target = old.trainer.steps_done
            before = old.merged_pairs()
            name = old.trainer.name
            variant = old.trainer.variant
            # a variant whose corpus is not the files (one per language) counts it again itself
            counted = variant.recount(config, errors=old.errors, workers=old.workers, progress=counting) if recount else None
            if counted is not None:
                words, fresh = counted
                trainer = Trainer(words, config, name=name, variant=fresh)
            elif recount and old.paths is not None:  # (the dialog offers a recount only for files)
                trainer = Trainer.from_files(
                    old.paths, config, errors=old.errors, counts=old.counts, workers=old.workers, client=old.dask,
                    progress=counting, text_field=old.records.text_field, skip_bad_records=old.records.skip_bad, variant=variant.fresh(),
                )
            else:
                words, chunks = old.trainer.corpus_counts()
                trainer = Trainer(words, config, name=name, start=old.start, chunk_counts=chunks, variant=variant.fresh())
            session = ExploreSession(
                trainer, old.preview, paths=old.paths, errors=old.errors, counts=old.counts, start=old.start, workers=old.workers, dask=old.dask,
                records=old.records,
            )
            while trainer.steps_done < target:
                if session.advance(target - trainer.steps_done, respect_target=False, deadline=time.monotonic() + BATCH_SECONDS, stop=lambda: worker.is_cancelled) == 0:
                    break  # nothing left to merge, or below min frequency: the new rules stop here
                merging(trainer.steps_done, target)
            if worker.is_cancelled:
                raise _Cancelled()
            session.word_order()
            note = first_difference(before, session.merged_pairs(), config.end_of_word, first=session.first_step + 1)
        except _Cancelled:
            self.post_message(Retrained(None, "retraining cancelled: the rules are as they were"))
            return
        except BPEError as exc:
            self.post_message(Retrained(None, f"cannot retrain: {exc}"))
            return
        except FILE_ERRORS as exc:
            self.post_message(Retrained(None, f"cannot count {', '.join(old.paths or [])} again: {exc}"))
            return
        finally:
            old.busy = False
        self.post_message(Retrained(session, note))

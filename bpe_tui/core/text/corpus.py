"""From files to word counts: the only pass over the raw corpus text.

BPE trains on *distinct* words with their counts, never on the raw text, so a corpus is read
once, streamed in blocks, and reduced to ``{pre-token: count}`` in order of first appearance
(the order the first-seen tie-break needs).

The corpus is read line by line, each line with its newline, as Hugging Face's trainer reads
files: special tokens are cut out of each line, then the pre-tokenizer runs on the pieces. (A
pre-tokenizer regex never sees across a line break; for GPT-2's regex that only matters where
spaces stand right before a newline.) A dataset's record (a JSON lines record, a Parquet row)
is a document: read the same way, and no pre-token spans two (:mod:`.datasets`).

Counting is exact and fast: for the GPT-2 and whitespace pre-tokenizers, one ``findall`` runs
over a whole block of lines with a pattern that provably yields the same pre-tokens as running
the original pattern line by line (see :data:`~bpe_tui.core.text.pretokenize.GPT2_LINE_PATTERN`); other pre-tokenizers run
line by line. Big inputs are counted by worker processes, each over its own part of the
input (:mod:`.parts`: byte ranges that start and end at line boundaries, whole compressed
files, runs of Parquet row groups); their counts are merged in part order, so the words keep
their order of first appearance and the merges are the same for 1 and N workers. Memory grows
with the number of distinct words, never with the corpus size.

Which files a list of paths means is :mod:`.sources`' question, how a file's bytes become text
:mod:`.blocks`'; saving and reading the counts is :mod:`.count_files`'.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from multiprocessing.context import BaseContext
from multiprocessing.pool import Pool
from typing import Any, TextIO

import regex

from ..engine.config import TrainerConfig
from ..errors import BPEError, NotUTF8, RecordError
from .blocks import BLOCK, LONG_LINE, Progress, document_pieces, split_lines
from .datasets.records import ReadReport, RecordOptions
from .parts import Part, plan_parts, read_part
from .pretokenize import LINE_SAFE_PATTERNS, PreTokenizer, ascii_findall
from .sources import corpus_where, expand_sources, source_name, url_size
from .splitting import RegexTimeout

#: Inputs smaller than this are counted in this process by default: one process counts
#: ~25 MB/s (ASCII text), and starting a pool and merging its counts costs ~50 ms, so below
#: a few MB workers save nothing (measured: 2 workers lose on tinyshakespeare's 1.1 MB).
PARALLEL_MIN_BYTES = 8 << 20
#: Byte ranges per worker (more ranges: finer progress and better balance, more merging).
RANGES_PER_WORKER = 8
#: Smallest byte range handed to a worker.
MIN_RANGE = 256 << 10
#: How often (seconds) the parent reports progress while workers read: the progress callback
#: also runs this often, so a callback that raises (a cancelled load) stops the pool promptly.
POLL_SECONDS = 0.05

#: Non-ASCII blocks are looked at in pieces of about this many characters (cut at line
#: ends), so that a stray non-ASCII character slows down only its own piece.
PIECE = 16 << 10


def pretokenizer_for(config: TrainerConfig) -> PreTokenizer:
    """The PreTokenizer a config describes."""
    return PreTokenizer(config.pretokenizer, config.special_tokens, config.lowercase)


def count_lines(lines: Iterable[str], pre: PreTokenizer, counts: Counter[str] | None = None, first_line: int = 1) -> Counter[str]:
    """Add the pre-tokens of each line to ``counts`` (a Counter keeps first-appearance order).

    A custom regex that gives up names the line (numbered from ``first_line``)."""
    counts = Counter() if counts is None else counts
    words = pre.words
    for number, line in enumerate(lines, start=first_line):
        try:
            counts.update(words(line))
        except RegexTimeout as exc:
            raise RegexTimeout(f"line {number}: {exc}") from None
    return counts


class WordCounter:
    """Adds the pre-tokens of text to a Counter exactly as :func:`count_lines` would, line by
    line, but a whole block of lines at a time where the pre-tokenizer allows it.

    ``add`` takes text that ends at a line end (or at the end of the input), as
    :func:`~.blocks.iter_text_blocks` yields it; ``add_pieces`` a stream of such texts. A
    dataset's documents are counted otherwise, each whole (``add_documents``).
    """

    def __init__(self, config: TrainerConfig):
        self.pre = pre = pretokenizer_for(config)
        safe = LINE_SAFE_PATTERNS.get(pre.name)
        # A special token holding a line break could only match at a line end line by line.
        if safe is not None and any("\n" in t for t in pre.special_tokens):
            safe = None
        self.block_mode = safe is not None
        if safe is not None:  # the block-mode pre-tokenizers (see _words)
            self._findall: Callable[[str], list[str]] = regex.compile(safe).findall
            self._ascii_findall = ascii_findall(pre.name, line_safe=True) or self._findall
        self._special_split = pre.special_matcher.split if pre.special_matcher is not None else None
        self._lowercase = pre.lowercase
        # Documents are pre-tokenized whole, by the pattern itself (not a line-safe form), with
        # the same shortcuts as blocks: a trainer's pre-tokenizer (pretokenizer_for) is its
        # pattern, lowercasing and special tokens, and nothing else (no normalizer, no prefix).
        self._whole_findall: Callable[[str], list[str]] = pre.pattern.findall
        self._whole_ascii_findall = ascii_findall(pre.name) or self._whole_findall
        self.lines_done = 0  # lines added so far (line-by-line mode), for messages

    def add(self, text: str, counts: Counter[str]) -> Counter[str]:
        if not self.block_mode:  # custom patterns: line by line, counting lines for messages
            first = self.lines_done + 1
            self.lines_done += text.count("\n")
            return count_lines(split_lines(text), self.pre, counts, first)
        for segment in self._segments(text):  # (str.lower's only context rule, final sigma, stops at "\n")
            counts.update(self._words(segment))
        return counts

    def add_pieces(self, pieces: Iterable[str], counts: Counter[str]) -> Counter[str]:
        """Add a text file's text given in pieces that each end at a line end or at the end of
        the input (what :func:`~.parts.read_part` gives of a text file: blocks of about BLOCK
        characters); a piece longer than LONG_LINE blocks is cut at line ends first
        (:func:`~.blocks.document_pieces`)."""
        for piece in pieces:
            if len(piece) > LONG_LINE * BLOCK:
                for cut in document_pieces(piece):
                    self.add(cut, counts)
            else:
                self.add(piece, counts)
        return counts

    def add_documents(self, documents: Iterable[str], counts: Counter[str]) -> Counter[str]:
        r"""Add documents (a dataset's records, an iterable's items), each pre-tokenized whole
        and on its own, as Hugging Face's ``train_from_iterator`` and rustbpe read an item: no
        pre-token spans two documents, and one may span a line break inside a document (GPT-4's
        ``\s*[\r\n]+`` takes a blank line's two breaks as one piece, as encoding the document
        does). A file is read line by line instead (:meth:`add_pieces`), as tokenizers reads
        files; a document that is one line counts the same either way. A document longer than
        LONG_LINE blocks is cut first (:func:`~.blocks.document_pieces`), so memory stays flat."""
        words = self._document_words
        for number, document in enumerate(documents, start=1):
            try:
                for piece in document_pieces(document):
                    counts.update(words(piece))
            except RegexTimeout as exc:
                raise RegexTimeout(f"document {number:,}: {exc}") from None
        return counts

    def _document_words(self, text: str) -> list[str]:
        """PreTokenizer.words(text) for a trainer's pre-tokenizer (special tokens cut first,
        then lowercasing), faster: ASCII text by the ASCII pattern."""
        out: list[str] = []
        for segment in self._segments(text):
            out += self._whole_ascii_findall(segment) if segment.isascii() else self._whole_findall(segment)
        return out

    def _segments(self, text: str) -> list[str]:
        """What the pattern reads of ``text``: the text between special tokens (cut before
        lowercasing, none empty), each lowercased where the rules say so."""
        if self._special_split is None:
            segments = [text] if text else []
        else:
            segments = [segment for segment in self._special_split(text) if segment]
        return [segment.lower() for segment in segments] if self._lowercase else segments

    def add_part(self, records: bool, pieces: Iterable[str], counts: Counter[str]) -> Counter[str]:
        """Add what :func:`~.parts.read_part` gives of a part: a dataset's documents
        (``records``), else a text file's blocks."""
        return self.add_documents(pieces, counts) if records else self.add_pieces(pieces, counts)

    def _words(self, text: str) -> list[str]:
        """findall over ``text``: the ASCII pattern where a piece is all ASCII (str.isascii
        is O(1)), the Unicode one elsewhere; pieces are cut after line ends."""
        if text.isascii():
            return self._ascii_findall(text)
        if len(text) <= PIECE:
            return self._findall(text)
        out: list[str] = []
        pos = 0
        n = len(text)
        while pos < n:
            cut = text.find("\n", pos + PIECE) + 1 or n
            piece = text[pos:cut]
            out += self._ascii_findall(piece) if piece.isascii() else self._findall(piece)
            pos = cut
        return out


def count_text(text: str, config: TrainerConfig) -> dict[str, int]:
    """Word counts of a string, read line by line like a file."""
    return dict(WordCounter(config).add(text, Counter()))


def count_files(
    paths: Iterable[str],
    config: TrainerConfig,
    errors: str = "strict",
    progress: Progress | None = None,
    workers: int | None = None,
    records: RecordOptions | None = None,
    report: ReadReport | None = None,
) -> dict[str, int]:
    """Word counts of files, directories, globs and stdin, streamed; see the module docstring.

    ``workers``: processes counting in parallel (None: the CPU count for inputs of
    :data:`PARALLEL_MIN_BYTES` or more, 1 below). The result is the same for any number of
    workers, word order included. Any thread may call this (the explorer counts in a thread
    worker). ``progress(bytes_read, total)`` is called as the reading goes, also while the
    workers are busy; an exception it raises (a cancel) stops the workers at once. From a
    thread, the workers start from a forkserver, which imports the ``__main__`` module: a
    script needs multiprocessing's usual ``if __name__ == "__main__":`` guard.

    ``records``: how JSON lines and Parquet files give their documents (the text field,
    whether bad records are skipped). ``report``, if given, is filled in as the reading goes:
    documents read (live, also from the workers), bad records skipped.
    """
    records = records or RecordOptions()
    report = report if report is not None else ReadReport()
    sources = expand_sources(paths, report.notes)
    sizes = {p: file_size(p) for p in sources if p != "-"}
    total = sum(sizes.values())
    n = resolve_workers(workers, total)
    counter = WordCounter(config)
    counts: Counter[str] = Counter()
    parts = plan_parts(sources, sizes, range_size(total, n) if n > 1 else None, records, report.notes)
    if sum(1 for part in parts if part.path != "-") > 1:
        _count_parallel(parts, total, config, errors, records, progress, n, counter, counts, report)
    else:
        done = 0
        for part in parts:
            counter.lines_done = 0
            try:
                counter.add_part(part.kind.records, read_part(part, errors, records, report, progress, done, total), counts)
            except RegexTimeout as exc:
                raise RegexTimeout(f"{source_name(part.path)}: {exc}") from None
            done += part.size
    if not counts:
        raise BPEError(f"{corpus_where(sources)}: the corpus is empty (no words found)")
    return dict(counts)


def file_size(path: str) -> int:
    """A corpus file's size in bytes (an fsspec URL's, through fsspec)."""
    if "://" in path:
        return url_size(path)
    return os.path.getsize(path)


def resolve_workers(workers: int | None, total_bytes: int) -> int:
    """How many processes count ``total_bytes`` of input (see :func:`count_files`)."""
    if workers is None:
        return (os.cpu_count() or 1) if total_bytes >= PARALLEL_MIN_BYTES else 1
    if workers < 1:
        raise BPEError(f"--workers must be 1 or more, not {workers}")
    return workers


# ---------------------------------------------------------------------- parallel counting


def range_size(total_bytes: int, workers: int) -> int:
    """Bytes per range when ``workers`` count ``total_bytes``: RANGES_PER_WORKER ranges each,
    none smaller than MIN_RANGE."""
    return max(MIN_RANGE, -(-total_bytes // (workers * RANGES_PER_WORKER)))


def _pool_context() -> BaseContext:
    """fork where the platform has it and this process runs one thread (forking a threaded
    process, such as the explorer, risks deadlocks: use forkserver there), else spawn."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


class _StderrWithoutFileno:
    """``sys.stderr`` as it is, except that it has no file descriptor to offer (see below)."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def fileno(self) -> int:
        raise io.UnsupportedOperation("fileno")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


_STDERR_LOCK = threading.Lock()


def start_resource_tracker() -> None:
    """Make sure multiprocessing's resource tracker runs, whatever ``sys.stderr`` is now.

    forkserver and spawn pools need the tracker, which multiprocessing starts on first use,
    handing it ``sys.stderr.fileno()``. Inside the explorer, Textual has replaced sys.stderr
    by an object whose fileno() is -1, and the start fails with "bad value(s) in
    fds_to_keep". The tracker is then started here, from a stderr that offers no descriptor
    (it keeps the process's own fd 2, as every child does); writes to sys.stderr meanwhile
    still go where they went.
    """
    from multiprocessing import resource_tracker

    with _STDERR_LOCK:
        stream = sys.stderr
        try:
            usable = stream.fileno() >= 0
        except Exception:  # None, or no fileno at all: multiprocessing leaves it out
            usable = True
        if usable:
            resource_tracker.ensure_running()
            return
        sys.stderr = _StderrWithoutFileno(stream)
        try:
            resource_tracker.ensure_running()
        finally:
            sys.stderr = stream


#: The signals that end a command: a pool holds them back while it starts its workers.
ENDING_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _start_worker(initializer: Callable[..., None], *initargs: Any) -> None:
    """In a new pool worker, before its own ``initializer``: Ctrl+C (SIGINT, which reaches
    every process of the terminal's process group) is ignored, for only the parent answers
    it; SIGTERM, which ``Pool.terminate`` sends, ends the worker at once and silently (a
    forked worker inherits the parent's handlers, which would raise in it and print a
    traceback). Both were held back while the pool started (see :func:`worker_pool`): a
    Ctrl+C held back is dropped here, a SIGTERM ends the worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDING_SIGNALS)
    initializer(*initargs)


def _ready_context() -> BaseContext:
    """The context pools start from (:func:`_pool_context`), with the resource tracker that a
    forkserver or spawn pool needs already running (see :func:`start_resource_tracker`):
    shared values made in it before the pool starts need the tracker too."""
    ctx = _pool_context()
    if ctx.get_start_method() != "fork":
        start_resource_tracker()
    return ctx


@contextmanager
def worker_pool(
    size: int, initializer: Callable[..., None], initargs: tuple[Any, ...] = (), ctx: BaseContext | None = None,
) -> Iterator[Pool]:
    """A pool of ``size`` worker processes, each set up by ``initializer(*initargs)``, ended
    when the block is left (see :func:`ending_pool`); ``ctx``: the context, when the caller
    made shared values in it already (see :func:`_ready_context`).

    A forked worker inherits the parent's signal handlers until :func:`_start_worker` runs,
    so SIGINT and SIGTERM are held back (blocked, not ignored: the parent still gets them)
    while the pool starts, and let through once the pool is in the hands of
    :func:`ending_pool`, which terminates it if one of them ends the command. Only the main
    thread receives signals; elsewhere there is nothing to hold back.
    """
    ctx = ctx or _ready_context()
    masked = threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_sigmask")
    if masked:
        signal.pthread_sigmask(signal.SIG_BLOCK, ENDING_SIGNALS)
    try:
        with ending_pool(ctx.Pool(size, initializer=_start_worker, initargs=(initializer, *initargs))) as pool:
            if masked:
                masked = False
                signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDING_SIGNALS)  # a held-back signal lands here
            yield pool
    finally:
        if masked:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDING_SIGNALS)


@contextmanager
def _worker_pool(size: int) -> Iterator[tuple[Pool, Any, Any]]:
    """A pool of ``size`` processes counting words (see :func:`worker_pool`), and the shared
    counts of bytes and of documents they have read. Leaving the block terminates the pool
    whatever happened: after an exception (a cancel, Ctrl+C, SIGTERM, a bad byte) the
    workers stop at once rather than finishing their ranges."""
    ctx = _ready_context()
    bytes_read = ctx.Value("q", 0)
    records_read = ctx.Value("q", 0)
    with worker_pool(size, _init_worker, (bytes_read, records_read), ctx) as pool:
        yield pool, bytes_read, records_read


#: How long a pool stopped after an error may take to wind its threads down (see ending_pool).
STOP_SECONDS = 5.0


@contextmanager
def ending_pool(pool: Pool) -> Iterator[Pool]:
    """``pool``, ended when the block is left: after its work is done, closed and joined (its
    workers leave when told there is no more); after an error, a cancel or Ctrl+C, terminated
    (its workers stop at once), in a daemon thread given STOP_SECONDS, after which any worker
    still there is killed and the caller goes on. (``Pool.terminate`` once waited ten minutes
    for its task-handler thread after an error in a worker, under a parallel test run: a caller
    must never hang on a failed count.)"""
    try:
        yield pool
    except BaseException:
        stopper = threading.Thread(target=pool.terminate, name="pool-stopper", daemon=True)
        stopper.start()
        stopper.join(STOP_SECONDS)
        if stopper.is_alive():
            for process in list(getattr(pool, "_pool", [])):  # the pool's worker processes
                if process.exitcode is None:
                    process.kill()
        raise
    pool.close()
    pool.join()


_WORKER_COUNTERS: dict[str, WordCounter] = {}
_SHARED: tuple[Any, Any] | None = None  # in a worker: the pool's shared counts of bytes and documents read


def _init_worker(bytes_read: Any, records_read: Any) -> None:  # multiprocessing Values
    """In a new worker: remember where to add bytes and documents read."""
    global _SHARED
    _SHARED = (bytes_read, records_read)


PartResult = tuple[list[str], list[int], ReadReport]


def _count_part_task(task: tuple[int, Part, TrainerConfig, str, RecordOptions]) -> tuple[int, PartResult] | tuple[int, Exception]:
    """In a pool worker: ``(index, (words, counts, report))`` of one part (see
    :func:`count_part`), or ``(index, error)``: errors travel back as values, so the parent
    raises the first one in corpus order, as one pass would, whichever part failed first in
    time. Bytes and documents read are added to the pool's shared counts as they are read."""
    index, part, config, errors, records = task
    report = ReadReport()
    reported = [0, 0]

    def progress(done: int, _total: int) -> None:
        if _SHARED is not None:
            bytes_read, records_read = _SHARED
            with bytes_read.get_lock():
                bytes_read.value += done - reported[0]
            with records_read.get_lock():
                records_read.value += report.records - reported[1]
            reported[:] = [done, report.records]

    try:
        words, numbers, report = count_part(part, config, errors, records, progress, report)
    except Exception as exc:
        return index, exc
    progress(reported[0], 0)  # the documents after the last block
    return index, (words, numbers, report)


def count_part(
    part: Part, config: TrainerConfig, errors: str = "strict", records: RecordOptions | None = None,
    progress: Progress | None = None, report: ReadReport | None = None,
) -> PartResult:
    """The word counts of one part of the corpus, as (words, counts) in first-seen order, and
    what reading it met (documents, bad records skipped, JSON lines read).

    Runs in a worker (a pool process here, a Dask worker in :mod:`.distributed`), which keeps
    one WordCounter per config. ``progress(bytes_read, 0)`` follows the reading of the part.
    """
    key = repr(config)
    counter = _WORKER_COUNTERS.get(key)
    if counter is None:
        counter = _WORKER_COUNTERS[key] = WordCounter(config)
    report = report if report is not None else ReadReport()
    counts: Counter[str] = Counter()
    counter.add_part(part.kind.records, read_part(part, errors, records or RecordOptions(), report, progress), counts)
    return list(counts), list(counts.values()), report


class InOrder:
    """Adds the parts' results to ``counts`` and ``report`` in corpus order (call :meth:`add`
    for part 0, 1, 2 ...), so a word's first appearance decides its position, as in one pass.
    A JSON lines part's line numbers count from its own start: those of its bad records, and
    of an error it raised (:meth:`error`), are moved on by the lines of the parts before it."""

    def __init__(self, counts: Counter[str], report: ReadReport) -> None:
        self.counts = counts
        self.report = report
        self._lines: dict[str, int] = {}  # file -> lines of its parts added so far

    def add(self, part: Part, words: list[str], numbers: list[int], report: ReadReport) -> None:
        add_range_counts(self.counts, words, numbers)
        before = self._lines.get(part.path, 0)
        self.report.add(report, before)
        self._lines[part.path] = before + report.lines

    def error(self, part: Part, exc: BaseException) -> BaseException:
        """The error a part raised, as one pass would have raised it."""
        if isinstance(exc, (NotUTF8, RecordError)):
            return exc.rebased(self._lines.get(part.path, 0))
        return exc


def _count_parallel(
    parts: list[Part],
    total: int,
    config: TrainerConfig,
    errors: str,
    records: RecordOptions,
    progress: Progress | None,
    n: int,
    counter: WordCounter,
    counts: Counter[str],
    report: ReadReport,
) -> None:
    """Count the parts in ``n`` worker processes (stdin here), merging in part order.

    Results come back as each part finishes, in any order, and are merged in part order (so a
    word's first appearance decides its position, as in one pass). While the parent waits it
    reports the bytes (and documents, in ``report.records``) the workers have read so far,
    every :data:`POLL_SECONDS`.
    """
    import multiprocessing

    tasks = [(i, part, config, errors, records) for i, part in enumerate(parts) if part.path != "-"]
    finished: dict[int, Any] = {}  # index -> (words, counts, report) or an error
    read = ReadReport()  # what the parts met, added up in order
    merged = InOrder(counts, read)
    base = report.records  # documents the caller's report held already
    with _worker_pool(min(n, len(tasks))) as (pool, bytes_read, records_read):
        results = pool.imap_unordered(_count_part_task, tasks, chunksize=1)

        def report_progress() -> None:
            report.records = base + max(records_read.value, read.records)  # live, from the workers
            if progress is not None:
                progress(min(bytes_read.value, total), total)

        for i, part in enumerate(parts):
            if part.path == "-":
                counter.add_part(part.kind.records, read_part(part, errors, records, read, progress, bytes_read.value, total), counts)
                continue
            while i not in finished:
                try:
                    index, outcome = results.next(timeout=POLL_SECONDS)
                    finished[index] = outcome
                except multiprocessing.TimeoutError:
                    report_progress()  # still reading: say how far
            outcome = finished.pop(i)
            if isinstance(outcome, BaseException):
                raise merged.error(part, outcome)
            merged.add(part, *outcome)
            report_progress()
    report.records = base
    report.add(read)


def add_range_counts(counts: Counter[str], words: list[str], numbers: list[int]) -> None:
    """Add one part's (words, counts) to ``counts``. Called in part order, so a word's
    first appearance decides its position, as in one pass."""
    if counts:
        get = counts.get
        for w, c in zip(words, numbers):
            counts[w] = get(w, 0) + c
    else:
        counts.update(dict(zip(words, numbers)))

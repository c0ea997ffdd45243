"""From files to word counts: the only pass over the raw corpus text.

BPE trains on *distinct* words with their counts, never on the raw text, so a corpus is read
once, streamed in blocks, and reduced to ``{pre-token: count}`` in order of first appearance
(the order the first-seen tie-break needs).

The corpus is read line by line, each line with its newline, as Hugging Face's trainer reads
files: special tokens are cut out of each line, then the pre-tokenizer runs on the pieces. (A
pre-tokenizer regex never sees across a line break; for GPT-2's regex that only matters where
spaces stand right before a newline.)

Counting is exact and fast: for the GPT-2 and whitespace pre-tokenizers, one ``findall`` runs
over a whole block of lines with a pattern that provably yields the same pre-tokens as running
the original pattern line by line (see :data:`~bpe_tui.core.text.pretokenize.GPT2_LINE_PATTERN`); other pre-tokenizers run
line by line. Big inputs are counted by worker processes, each over its own byte range of the
input (ranges start and end at line boundaries); their counts are merged in range order, so the
words keep their order of first appearance and the merges are the same for 1 and N workers.
Memory grows with the number of distinct words, never with the corpus size.

Which files a list of paths means is :mod:`.sources`' question; saving and reading the counts
is :mod:`.count_files`'.
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
from typing import Any, BinaryIO, TextIO

import regex

from ..engine.config import TrainerConfig
from ..errors import BPEError, NotUTF8
from .pretokenize import LINE_SAFE_PATTERNS, PreTokenizer, RegexTimeout, ascii_findall
from .sources import SNIFF, corpus_where, expand_sources

BLOCK = 1 << 20  # bytes read at a time

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

Progress = Callable[[int, int], None]

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


def split_lines(text: str) -> Iterator[str]:
    """Lines of ``text``, each with its ``\\n`` (only ``\\n`` ends a line)."""
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            if start < len(text):
                yield text[start:]
            return
        yield text[start : end + 1]
        start = end + 1


class WordCounter:
    """Adds the pre-tokens of text to a Counter exactly as :func:`count_lines` would, line by
    line, but a whole block of lines at a time where the pre-tokenizer allows it.

    ``add`` takes text that ends at a line end (or at the end of the input), as
    :func:`iter_text_blocks` yields it.
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
        self.lines_done = 0  # lines added so far (line-by-line mode), for messages

    def add(self, text: str, counts: Counter[str]) -> Counter[str]:
        if not self.block_mode:  # custom patterns: line by line, counting lines for messages
            first = self.lines_done + 1
            self.lines_done += text.count("\n")
            return count_lines(split_lines(text), self.pre, counts, first)
        lower = self._lowercase  # str.lower's only context rule (final sigma) stops at "\n"
        if self._special_split is None:
            counts.update(self._words(text.lower() if lower else text))
        else:
            for segment in self._special_split(text):  # specials are cut before lowercasing
                if segment:
                    counts.update(self._words(segment.lower() if lower else segment))
        return counts

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


# ---------------------------------------------------------------------- reading text


def iter_file_lines(path: str, errors: str = "strict", progress: Progress | None = None, done: int = 0, total: int = 0) -> Iterator[str]:
    """Stream the lines of a UTF-8 file (or stdin for ``-``) in blocks.

    A NUL byte in the first block means a binary file (BPEError). Invalid UTF-8 raises a
    BPEError naming the byte offset, unless ``errors="replace"``.
    """
    for text in iter_text_blocks(path, errors, progress, done, total):
        yield from split_lines(text)


def iter_text_blocks(
    path: str,
    errors: str = "strict",
    progress: Progress | None = None,
    done: int = 0,
    total: int = 0,
    start: int = 0,
    end: int | None = None,
) -> Iterator[str]:
    """Stream a UTF-8 file (or stdin) as decoded blocks that each end at a line end.

    ``start`` (the start of a line) and ``end`` (just after a line end, or the file size)
    select a byte range of a file. Reads stay aligned to multiples of BLOCK from the start of
    the file, so a range is cut into exactly the blocks a whole-file read would cut it into
    (this only matters for lines longer than LONG_LINE blocks, which are cut at a word boundary).
    Progress reports ``done`` + bytes read so far, of ``total``.
    """
    if errors not in ("strict", "replace"):
        raise BPEError(f"unknown --errors value {errors!r}; choose strict or replace")
    try:
        stream = open_binary(path)
    except OSError as exc:
        raise BPEError(f"{path}: cannot open: {exc.strerror}") from None
    name = "stdin" if path == "-" else path
    offset = start
    carry = b""
    first = start == 0
    try:
        if start:
            stream.seek(start)
        while True:
            size = BLOCK - (offset + len(carry)) % BLOCK
            if end is not None:
                size = min(size, end - offset - len(carry))
            try:
                block = stream.read(size) if size > 0 else b""
            except OSError as exc:  # EIO, /proc/self/mem: the open worked, the read did not
                raise BPEError(f"{name}: cannot read at byte {offset + len(carry)}: {exc.strerror or exc}") from None
            if first:
                first = False
                nul = block.find(b"\0", 0, SNIFF)
                if nul >= 0:
                    raise BPEError(f"{name}: looks like a binary file (NUL byte at byte {nul}); give a text corpus")
            if not block:
                data, carry = carry, b""
            else:
                data = carry + block
                cut = data.rfind(b"\n") + 1
                if cut == 0 and len(data) < LONG_LINE * BLOCK:
                    carry = data
                    continue
                if cut == 0:
                    cut = _word_safe_cut(data)
                data, carry = data[:cut], data[cut:]
            if not data:
                break
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                if errors == "strict":
                    raise NotUTF8(name, offset + exc.start) from None
                text = data.decode("utf-8", "replace")
            offset += len(data)
            yield text
            if progress is not None:
                progress(done + offset - start, total)
            if not block:
                break
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


#: A line longer than this many blocks is handed on in pieces (memory stays flat on a corpus
#: that is one long line), each cut at a word boundary (see :func:`_word_safe_cut`).
LONG_LINE = 4


def _word_safe_cut(data: bytes) -> int:
    """A cut point inside a very long line that does not cut a pre-token in two: just before
    a single space that follows a non-space (GPT-2-style patterns start a word with its
    space, whitespace splitting drops it), else where UTF-8 allows."""
    pos = len(data)
    floor = max(0, len(data) - 4 * BLOCK)
    while True:
        pos = data.rfind(b" ", floor, pos)
        if pos <= 0:
            return _utf8_safe_cut(data)
        if data[pos - 1 : pos] not in (b" ", b"\t", b"\r", b"\x0b", b"\x0c") and data[pos + 1 : pos + 2] not in (b" ", b""):
            return pos


def open_binary(path: str) -> BinaryIO:
    """The bytes of ``path``: stdin for ``-``, an fsspec URL (``s3://...``, ``file://...``)
    through fsspec (a dependency of dask; only URLs need it), else the local file."""
    if path == "-":
        return sys.stdin.buffer
    if "://" in path:
        import fsspec

        stream: BinaryIO = fsspec.open(path, "rb").open()
        return stream
    return open(path, "rb")


def _utf8_safe_cut(data: bytes) -> int:
    """A cut point that does not split a UTF-8 sequence (for very long lines)."""
    cut = len(data)
    for back in range(1, 4):
        if cut - back >= 0 and (data[cut - back] & 0xC0) == 0xC0:
            return cut - back
    return cut


def count_files(
    paths: Iterable[str],
    config: TrainerConfig,
    errors: str = "strict",
    progress: Progress | None = None,
    workers: int | None = None,
) -> dict[str, int]:
    """Word counts of files, directories and stdin, streamed; see the module docstring.

    ``workers``: processes counting in parallel (None: the CPU count for inputs of
    :data:`PARALLEL_MIN_BYTES` or more, 1 below). The result is the same for any number of
    workers, word order included. Any thread may call this (the explorer counts in a thread
    worker). ``progress(bytes_read, total)`` is called as the reading goes, also while the
    workers are busy; an exception it raises (a cancel) stops the workers at once. From a
    thread, the workers start from a forkserver, which imports the ``__main__`` module: a
    script needs multiprocessing's usual ``if __name__ == "__main__":`` guard.
    """
    sources = expand_sources(paths)
    sizes = {p: os.path.getsize(p) for p in sources if p != "-"}
    total = sum(sizes.values())
    n = resolve_workers(workers, total)
    counter = WordCounter(config)
    counts: Counter[str] = Counter()
    jobs = _plan_jobs(sources, sizes, range_size(total, n)) if n > 1 else []
    if sum(1 for _, span in jobs if span is not None) > 1:
        _count_parallel(jobs, total, config, errors, progress, n, counter, counts)
    else:
        done = 0
        for path in sources:
            counter.lines_done = 0
            try:
                for text in iter_text_blocks(path, errors, progress, done, total):
                    counter.add(text, counts)
            except RegexTimeout as exc:
                raise RegexTimeout(f"{'stdin' if path == '-' else path}: {exc}") from None
            done += sizes.get(path, 0)
    if not counts:
        raise BPEError(f"{corpus_where(sources)}: the corpus is empty (no words found)")
    return dict(counts)


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


def plan_ranges(path: str, size: int, target: int) -> list[tuple[int, int]]:
    """Cut a file into byte ranges of about ``target`` bytes, each starting at a line start."""
    cuts = [0]
    if size > target:
        with open_binary(path) as f:
            for guess in range(target, size, target):
                if guess <= cuts[-1]:
                    continue
                f.seek(guess - 1)
                pos = guess - 1
                while True:  # the first line end at or after guess - 1
                    piece = f.read(1 << 16)
                    if not piece:
                        pos = size
                        break
                    nl = piece.find(b"\n")
                    if nl >= 0:
                        pos += nl + 1
                        break
                    pos += len(piece)
                if pos >= size:
                    break
                if pos > cuts[-1]:
                    cuts.append(pos)
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


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


@contextmanager
def _worker_pool(size: int) -> Iterator[tuple[Pool, Any]]:
    """A pool of ``size`` processes counting words, and the shared count of bytes they have read.

    The workers ignore SIGINT: Ctrl+C reaches every process of the terminal's process group,
    and only the parent should answer it (it terminates the pool on its way out, so no worker
    prints a traceback). Leaving the block terminates the pool whatever happened: after an
    exception (a cancel, Ctrl+C, a bad byte) the workers stop at once rather than finishing
    their ranges.
    """
    ctx = _pool_context()
    if ctx.get_start_method() != "fork":
        start_resource_tracker()
    bytes_read = ctx.Value("q", 0)
    # A forked worker inherits the parent's handlers until its initializer runs, so Ctrl+C is
    # held back (blocked, not ignored: the parent still gets it) while the pool starts. Only
    # the main thread receives signals; elsewhere there is nothing to hold back.
    masked = threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_sigmask")
    if masked:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    pool = None
    try:
        pool = ctx.Pool(size, initializer=_init_worker, initargs=(bytes_read,))
        if masked:
            masked = False
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a held-back Ctrl+C lands here
        yield pool, bytes_read
    finally:
        if masked:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        if pool is not None:
            pool.terminate()
            pool.join()


_WORKER_COUNTERS: dict[str, WordCounter] = {}
_BYTES_READ = None  # in a worker: the pool's shared count of bytes read


def _init_worker(bytes_read: Any) -> None:  # a multiprocessing Value
    """In a new worker: leave Ctrl+C to the parent (a Ctrl+C held back while the pool started
    is dropped here); remember where to add bytes read."""
    global _BYTES_READ
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _BYTES_READ = bytes_read


def _count_range(task: tuple[int, str, int, int, TrainerConfig, str]) -> tuple[int, list[str], list[int]] | tuple[int, Exception]:
    """In a pool worker: ``(index, words, counts)`` of one byte range (see
    :func:`count_range`), or ``(index, error)``: errors travel back as values, so the parent
    raises the first one in file order, as one pass would, whichever range failed first in
    time. Bytes read are added to the pool's shared count as they are read."""
    index, path, start, end, config, errors = task
    reported = [0]

    def progress(done: int, _total: int) -> None:
        if _BYTES_READ is not None:
            with _BYTES_READ.get_lock():
                _BYTES_READ.value += done - reported[0]
            reported[0] = done

    try:
        words, numbers = count_range(path, start, end, config, errors, progress)
    except Exception as exc:
        return index, exc
    return index, words, numbers


def count_range(
    path: str, start: int, end: int, config: TrainerConfig, errors: str = "strict", progress: Progress | None = None
) -> tuple[list[str], list[int]]:
    """The word counts of one byte range of a file, as (words, counts) in first-seen order.

    Runs in a worker (a pool process here, a Dask worker in :mod:`.distributed`), which keeps
    one WordCounter per config. ``progress(bytes_read, 0)`` follows the reading of the range.
    """
    key = repr(config)
    counter = _WORKER_COUNTERS.get(key)
    if counter is None:
        counter = _WORKER_COUNTERS[key] = WordCounter(config)
    counts: Counter[str] = Counter()
    for text in iter_text_blocks(path, errors, progress, start=start, end=end):
        counter.add(text, counts)
    return list(counts), list(counts.values())


def _plan_jobs(sources: list[str], sizes: dict[str, int], target: int) -> list[tuple[str, tuple[int, int] | None]]:
    """``(path, (start, end))`` per byte range of each file, ``("-", None)`` for stdin."""
    jobs: list[tuple[str, tuple[int, int] | None]] = []
    for path in sources:
        if path == "-":
            jobs.append((path, None))
        else:
            jobs.extend((path, span) for span in plan_ranges(path, sizes[path], target) or [(0, 0)])
    return jobs


def _count_parallel(
    jobs: list[tuple[str, tuple[int, int] | None]],
    total: int,
    config: TrainerConfig,
    errors: str,
    progress: Progress | None,
    n: int,
    counter: WordCounter,
    counts: Counter[str],
) -> None:
    """Count the ranges in ``n`` worker processes (stdin here), merging in job order.

    Results come back as each range finishes, in any order, and are merged in job order (so a
    word's first appearance decides its position, as in one pass). While the parent waits it
    reports the bytes the workers have read so far, every :data:`POLL_SECONDS`.
    """
    import multiprocessing

    tasks = [(i, path, span[0], span[1], config, errors) for i, (path, span) in enumerate(jobs) if span is not None]
    finished: dict[int, list[Any]] = {}  # index -> [words, counts] or [error]
    with _worker_pool(min(n, len(tasks))) as (pool, bytes_read):
        results = pool.imap_unordered(_count_range, tasks, chunksize=1)

        def report() -> None:
            if progress is not None:
                progress(min(bytes_read.value, total), total)

        for i, (path, span) in enumerate(jobs):
            if span is None:
                for text in iter_text_blocks(path, errors, progress, bytes_read.value, total):
                    counter.add(text, counts)
                continue
            while i not in finished:
                try:
                    index, *result = results.next(timeout=POLL_SECONDS)
                    finished[index] = result
                except multiprocessing.TimeoutError:
                    report()  # still reading: say how far
            outcome = finished.pop(i)
            if len(outcome) == 1:
                raise outcome[0]
            add_range_counts(counts, *outcome)
            report()


def add_range_counts(counts: Counter[str], words: list[str], numbers: list[int]) -> None:
    """Add one range's (words, counts) to ``counts``. Called in range order, so a word's
    first appearance decides its position, as in one pass."""
    if counts:
        get = counts.get
        for w, c in zip(words, numbers):
            counts[w] = get(w, 0) + c
    else:
        counts.update(dict(zip(words, numbers)))

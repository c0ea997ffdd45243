"""Counting words on a Dask cluster: the same byte ranges as local counting, counted by
Dask workers instead of a process pool, merged here in range order.

Training past a few GB of text costs mostly counting; the merge loop runs on the word counts,
whose size grows with the number of distinct words, not with the corpus. So a corpus that
outgrows one machine is counted on a cluster and trained on here::

    import bpe_tui
    counts = bpe_tui.count_words(["s3://bucket/corpus/*.txt"], config, client="tcp://scheduler:8786")
    trainer = bpe_tui.Trainer.from_counts(counts, config)

How the work is split is local counting's rule, reused rather than copied: the corpus is cut
into parts by :func:`~.parts.plan_parts` (line-aligned byte ranges of plain text and JSON lines
files, whole compressed files, runs of Parquet row groups), and a worker counts one part with
:func:`~.corpus.count_part` (the same WordCounter: special tokens cut first, then the
pre-tokenizer). Results come back as ``(words, counts, report)`` in first-seen order within
the part, and this process adds them up in part order (:class:`~.corpus.InOrder`), so each
word keeps the position of its first appearance in the whole corpus. The counts are the same
dict, in the same order, as local counting gives, for every preset and every range size, and
so the ``first-seen`` tie-break picks the same merges.

Inputs are local paths, globs and directories, or fsspec URLs (``s3://``, ``gs://``,
``hdfs://``, ``file://``...), which pass through untouched: the workers open them with fsspec.
This process lists the files and plans the ranges (a few small reads per range), so it needs
to see the inputs too; on a real cluster, local paths must name the same files on every
machine (a shared filesystem), and URLs need the filesystem's package (s3fs, gcsfs...) and
credentials on both sides.

dask is optional (``pip install 'bpe-tui[dask]'``): it is imported only when a cluster is used,
so ``import bpe_tui`` and the rest of the core never need it.
"""

from __future__ import annotations

import logging
import os
import queue
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ..engine.config import TrainerConfig
from ..errors import BPEError, one_line
from .blocks import Progress
from .corpus import (
    InOrder,
    count_files,
    count_part,
    file_size,
    range_size,
    start_resource_tracker,
)
from .datasets.records import ReadReport, RecordOptions
from .kinds import PARQUET
from .parts import Part, plan_parts
from .sources import corpus_where, expand_sources

#: What ``--dask`` takes to start a LocalCluster here instead of connecting to a scheduler.
LOCAL = "local"
#: Seconds between looks at the running futures; progress is called at least this often,
#: so a progress callback that raises (a cancelled explorer load) stops the work promptly.
POLL = 0.1
#: Seconds to wait for a scheduler to answer before giving up.
CONNECT_TIMEOUT = 10
INSTALL_HINT = "pip install 'bpe-tui[dask]'"


def require_distributed() -> Any:
    """The ``dask.distributed`` module, or a one-line BPEError naming the extra to install."""
    try:
        import dask.distributed as distributed
    except ImportError:
        raise BPEError(f"--dask needs dask.distributed, which is not installed: {INSTALL_HINT}") from None
    return distributed


@contextmanager
def dask_client(address: Any, workers: int | None = None) -> Iterator[Any]:
    """A dask Client for ``address``.

    ``"local"`` starts a LocalCluster here (``workers`` processes of one thread each, one per
    CPU by default) and closes it afterwards. Any other string is a
    scheduler address as dask.distributed takes it (``tcp://host:8786``). A Client is used as
    it is and left open.
    """
    if address != LOCAL and workers is not None:
        raise BPEError("--workers applies to --dask local only; a running cluster has its own workers")
    if not isinstance(address, str):
        yield address
        return
    distributed = require_distributed()
    if address == LOCAL:
        if workers is None:
            workers = os.cpu_count() or 1
        if workers < 1:
            raise BPEError(f"--workers must be 1 or more, not {workers}")
        # Its worker processes need multiprocessing's resource tracker, which fails to start
        # from inside the explorer unless started this way (see corpus.start_resource_tracker).
        start_resource_tracker()
        # Workers write their logs to this terminal (and over the explorer's screen): keep them
        # quiet. A failed range still reaches the caller, as the exception it raised.
        try:
            cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL
            )
        except Exception as exc:  # e.g. "Nanny failed to start": say it in one line
            raise BPEError(f"--dask local: the cluster did not start ({one_line(exc)})") from None
        client = distributed.Client(cluster)
    else:
        cluster = None
        try:
            client = _connect(distributed, address)
        except Exception as exc:  # refused, unreachable, not a scheduler: one line, never a traceback
            raise BPEError(f"--dask {address}: cannot reach the scheduler ({one_line(exc)})") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _connect(distributed: Any, address: str) -> Any:
    """A client of the scheduler at ``address``. distributed asserts that the scheduler's
    first reply is one message; under load it was seen failing once (an AssertionError out of
    ``Client._ensure_connected``) and then connecting: a second try is made."""
    try:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except AssertionError:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT)


# ---------------------------------------------------------------------- inputs


def expand_inputs(paths: Iterable[str], notes: list[str] | None = None) -> list[str]:
    """Files to count, in order, as :func:`~.sources.expand_sources` finds them (URLs
    included); stdin is refused: a worker elsewhere cannot read it."""
    paths = list(paths)
    if "-" in paths:
        raise BPEError("--dask cannot count stdin: give files, directories, globs or URLs")
    return expand_sources(paths, notes)


# ---------------------------------------------------------------------- counting


def count_words(
    paths: Iterable[str] | str | os.PathLike[str],
    config: TrainerConfig,
    client: Any = None,
    errors: str = "strict",
    progress: Progress | None = None,
    workers: int | None = None,
    blocksize: int | None = None,
    text_field: str = "text",
    skip_bad_records: bool = False,
    report: ReadReport | None = None,
) -> dict[str, int]:
    """Word counts of a corpus, ``{pre-token: count}`` in order of first appearance.

    The result is the same wherever the counting runs (here, in worker processes, on Dask),
    word order included.

    Args:
        paths: Files (text, compressed or not; JSON lines; Parquet), directories, globs,
            fsspec URLs (on Dask), or one of them alone; a list or tuple of them. Anything else
            iterable (a generator, a ``datasets`` column) is an iterable of texts, each a
            document (:func:`~.datasets.iterables.count_texts`): to count a list of texts
            rather than of paths, give ``iter(texts)``.
        config: The rules that cut the text into pre-tokens (pre-tokenizer, lowercase,
            special tokens, ...).
        client: None counts here (:func:`~.corpus.count_files`, with ``workers``
            processes); else a ``dask.distributed.Client``, a scheduler address, or
            ``"local"`` for a LocalCluster of ``workers`` processes started for this call.
        errors: "strict" (bytes that are not UTF-8 are an error naming the byte) or "replace".
        progress: ``progress(done, total)``: bytes read here, parts (blocks) counted on Dask,
            items for an iterable of texts.
        workers: Processes (None: the CPU count for big inputs, one for small ones).
        blocksize: Bytes per Dask part (each cut at the next line end, or the next Parquet row
            group); None: :data:`~.corpus.RANGES_PER_WORKER` parts per worker thread.
        text_field: The field of a JSON lines record, or the Parquet column, holding the text
            (a dotted path for a nested one).
        skip_bad_records: Skip records without it (else the first is an error).
        report: If given, filled in with what the reading met: documents read, bad records
            skipped (``report.summary()``).

    Returns:
        ``{pre-token: count}``, in order of first appearance.
    """
    records = RecordOptions(text_field, skip_bad_records)
    report = report if report is not None else ReadReport()
    if isinstance(paths, (str, os.PathLike)):
        names = [str(os.fspath(paths))]  # one path, not its characters
    elif isinstance(paths, (list, tuple)):
        names = [str(os.fspath(p)) for p in paths]
    else:
        if client is not None:
            raise BPEError("an iterable of texts is counted here: client= counts files (give paths)")
        from .datasets.iterables import count_texts

        return count_texts(paths, [config], errors, progress, report)[0]
    if client is None:
        return count_files(names, config, errors=errors, progress=progress, workers=workers, records=records, report=report)
    sources = expand_inputs(names, report.notes)  # a missing file fails before a cluster starts
    with dask_client(client, workers) as dask:
        return _count_on_dask(dask, sources, config, errors, records, report, progress, blocksize)


def _count_on_dask(
    client: Any, sources: list[str], config: TrainerConfig, errors: str, records: RecordOptions, report: ReadReport,
    progress: Progress | None, blocksize: int | None,
) -> dict[str, int]:
    """Plan the parts, submit one task per part, add the results up in part order."""
    sizes = {p: file_size(p) for p in sources}
    if blocksize is None:
        threads = sum(client.nthreads().values()) or 1
        blocksize = range_size(sum(sizes.values()), threads)
    elif blocksize < 1:
        raise BPEError(f"block size must be 1 byte or more, not {blocksize}")
    parts = plan_parts(sources, sizes, blocksize, records, report.notes)  # in the order a single pass reads the corpus
    futures = [client.submit(count_part, part, config, errors, records, pure=False) for part in parts]
    counts: Counter[str] = Counter()
    try:
        _merge_in_order(futures, parts, InOrder(counts, report), progress)
    finally:
        unfinished = [f for f in futures if not f.done()]
        if unfinished:  # cancelled, or a part failed: stop the rest on the cluster
            client.cancel(unfinished)
    if not counts:
        raise BPEError(f"{corpus_where(sources)}: the corpus is empty (no words found)")
    return dict(counts)


def _merge_in_order(futures: list[Any], parts: list[Part], merged: InOrder, progress: Progress | None) -> None:
    """Wait for the part futures; add each result as soon as every part before it is added,
    so results are merged in part order while later parts are still counted.

    A part that failed raises its error when its turn comes, so the error is the one a single
    pass meets first; an error that is not a BPEError (a worker that died, say) becomes one
    naming the part. Each fetched result is released at once, freeing the worker's memory.
    """
    total = len(futures)
    finished: queue.SimpleQueue[int] = queue.SimpleQueue()  # indices of futures as they finish
    for i, future in enumerate(futures):
        future.add_done_callback(lambda _, i=i: finished.put(i))
    done = 0
    added = 0  # parts 0 .. added-1 are merged
    ready: set[int] = set()  # finished parts whose turn has not come yet
    if progress is not None:
        progress(0, total)
    while added < total:
        try:
            ready.add(finished.get(timeout=POLL))
            while not finished.empty():
                ready.add(finished.get())
        except queue.Empty:
            pass
        done = len(ready) + added
        while added in ready:
            ready.remove(added)
            part = parts[added]
            try:
                words, numbers, report = futures[added].result()  # raises the part's error, if any
            except BPEError as exc:
                raise merged.error(part, exc) from None
            except KeyboardInterrupt:
                raise
            except Exception as exc:
                raise BPEError(f"{part.path}: counting {_span(part)} on dask failed ({one_line(exc)})") from None
            merged.add(part, words, numbers, report)
            futures[added].release()
            added += 1
        if progress is not None:
            progress(done, total)


def _span(part: Part) -> str:
    """Which part of its file a part is, in words."""
    if part.end is None:
        return "the file"
    unit = "row groups" if part.kind.kind == PARQUET else "bytes"
    return f"{unit} {part.start}-{part.end}"


__all__ = ["INSTALL_HINT", "LOCAL", "count_words", "dask_client", "expand_inputs", "require_distributed"]

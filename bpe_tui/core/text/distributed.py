"""Counting words on a Dask cluster: the same byte ranges as local counting, counted by
Dask workers instead of a process pool, merged here in range order.

Training past a few GB of text costs mostly counting; the merge loop runs on the word counts,
whose size grows with the number of distinct words, not with the corpus. So a corpus that
outgrows one machine is counted on a cluster and trained on here::

    import bpe_tui
    counts = bpe_tui.count_words(["s3://bucket/corpus/*.txt"], config, client="tcp://scheduler:8786")
    trainer = bpe_tui.Trainer.from_counts(counts, config)

How the work is split is :mod:`.corpus`'s rule, reused rather than copied: each file is cut
into line-aligned byte ranges by :func:`~.corpus.plan_ranges`, and a worker counts one range
with :func:`~.corpus.count_range` (the same WordCounter: special tokens cut first, then the
pre-tokenizer). Results come back as ``(words, counts)`` in first-seen order within the range,
and this process adds them up in range order — ordered by (file index, byte offset) — so each
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

import glob
import logging
import os
import queue
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ..engine.config import TrainerConfig
from ..errors import BPEError
from .corpus import (
    Progress,
    add_range_counts,
    count_files,
    count_range,
    plan_ranges,
    range_size,
    start_resource_tracker,
)
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
            raise BPEError(f"--dask local: the cluster did not start ({_one_line(exc)})") from None
        client = distributed.Client(cluster)
    else:
        cluster = None
        try:
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
        except (OSError, ValueError, TypeError) as exc:
            raise BPEError(f"--dask {address}: cannot reach the scheduler ({_one_line(exc)})") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _one_line(exc: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


# ---------------------------------------------------------------------- inputs


def expand_inputs(paths: Iterable[str]) -> list[str]:
    """Files to count, in order: fsspec URLs expanded by fsspec (globs, directories), local
    globs by :mod:`glob` (sorted), everything else as :func:`~.sources.expand_sources` does."""
    out: list[str] = []
    for path in paths:
        if path == "-":
            raise BPEError("--dask cannot count stdin: give files, directories, globs or URLs")
        if "://" in path:
            out.extend(_expand_url(path))
        elif glob.has_magic(path):
            found = sorted(glob.glob(path))
            if not found:
                raise BPEError(f"{path}: no file matches")
            out.extend(expand_sources(found))
        else:
            out.extend(expand_sources([path]))
    return out


def _expand_url(url: str) -> list[str]:
    """The files an fsspec URL names (a file, a glob, or a directory, walked in sorted order),
    as URLs with the same protocol. Unlike a local directory's files, they are not sniffed for
    binary content here (that would read every file from this machine): a binary file is met
    by the worker that reads it, as a one-line error."""
    import fsspec

    fs, _, found = fsspec.core.get_fs_token_paths(url)
    files: list[str] = []
    for p in sorted(found):
        if fs.isdir(p):
            below = sorted(fs.find(p))  # every file below, hidden ones (any part starting with ".") left out
            files.extend(f for f in below if not any(part.startswith(".") for part in f[len(p) :].split("/")))
        elif fs.exists(p):
            files.append(p)
    if not files:
        raise BPEError(f"{url}: no such file or directory")
    return [fs.unstrip_protocol(f) for f in files]


def _size(path: str) -> int:
    if "://" in path:
        import fsspec

        fs, p = fsspec.core.url_to_fs(path)
        return int(fs.size(p))
    return os.path.getsize(path)


# ---------------------------------------------------------------------- counting


def count_words(
    paths: Iterable[str] | str | os.PathLike[str],
    config: TrainerConfig,
    client: Any = None,
    errors: str = "strict",
    progress: Progress | None = None,
    workers: int | None = None,
    blocksize: int | None = None,
) -> dict[str, int]:
    """Word counts of a corpus, ``{pre-token: count}`` in order of first appearance.

    ``paths``: files, directories, globs, fsspec URLs (on Dask), or one of them alone.

    ``client=None`` counts here (:func:`~.corpus.count_files`, with ``workers`` processes).
    Otherwise the counting runs on Dask: ``client`` is a ``dask.distributed.Client``, a
    scheduler address, or ``"local"`` for a LocalCluster of ``workers`` processes (one per CPU
    by default) started for this call. ``blocksize``: bytes per range (each cut at the next
    line end); by default :data:`~.corpus.RANGES_PER_WORKER` ranges per worker thread.
    ``progress(done, total)`` reports bytes read here, and ranges (blocks) counted on Dask.
    The result is the same either way, word order included.
    """
    if isinstance(paths, (str, os.PathLike)):
        names = [str(os.fspath(paths))]  # one path, not its characters
    else:
        names = [str(os.fspath(p)) for p in paths]
    if client is None:
        return count_files(names, config, errors=errors, progress=progress, workers=workers)
    sources = expand_inputs(names)  # a missing file fails before a cluster starts
    with dask_client(client, workers) as dask:
        return _count_on_dask(dask, sources, config, errors, progress, blocksize)


def _count_on_dask(client: Any, sources: list[str], config: TrainerConfig, errors: str, progress: Progress | None, blocksize: int | None) -> dict[str, int]:
    """Plan the ranges, submit one task per range, add the results up in range order."""
    sizes = [_size(p) for p in sources]
    if blocksize is None:
        threads = sum(client.nthreads().values()) or 1
        blocksize = range_size(sum(sizes), threads)
    elif blocksize < 1:
        raise BPEError(f"block size must be 1 byte or more, not {blocksize}")
    # (file index, byte offset) order: the order a single pass reads the corpus in.
    tasks = [(path, start, end) for path, size in zip(sources, sizes) for start, end in plan_ranges(path, size, blocksize)]
    futures = [client.submit(count_range, path, start, end, config, errors, pure=False) for path, start, end in tasks]
    counts: Counter[str] = Counter()
    try:
        _merge_in_order(futures, tasks, counts, progress)
    finally:
        unfinished = [f for f in futures if not f.done()]
        if unfinished:  # cancelled, or a range failed: stop the rest on the cluster
            client.cancel(unfinished)
    if not counts:
        raise BPEError(f"{corpus_where(sources)}: the corpus is empty (no words found)")
    return dict(counts)


def _merge_in_order(futures: list[Any], tasks: list[Any], counts: Counter[str], progress: Progress | None) -> None:
    """Wait for the range futures; add each result to ``counts`` as soon as every range before
    it is added, so results are merged in range order while later ranges are still counted.

    A range that failed raises its error when its turn comes, so the error is the one a single
    pass meets first; an error that is not a BPEError (a worker that died, say) becomes one
    naming the range. Each fetched result is released at once, freeing the worker's memory.
    """
    total = len(futures)
    finished: queue.SimpleQueue[int] = queue.SimpleQueue()  # indices of futures as they finish
    for i, future in enumerate(futures):
        future.add_done_callback(lambda _, i=i: finished.put(i))
    done = 0
    merged = 0  # ranges 0 .. merged-1 are in counts
    ready: set[int] = set()  # finished ranges whose turn has not come yet
    if progress is not None:
        progress(0, total)
    while merged < total:
        try:
            ready.add(finished.get(timeout=POLL))
            while not finished.empty():
                ready.add(finished.get())
        except queue.Empty:
            pass
        done = len(ready) + merged
        while merged in ready:
            ready.remove(merged)
            try:
                words, numbers = futures[merged].result()  # raises the range's error, if any
            except (BPEError, KeyboardInterrupt):
                raise
            except Exception as exc:
                path, start, end = tasks[merged]
                raise BPEError(f"{path}: counting bytes {start}-{end} on dask failed ({_one_line(exc)})") from None
            add_range_counts(counts, words, numbers)
            futures[merged].release()
            merged += 1
        if progress is not None:
            progress(done, total)


__all__ = ["INSTALL_HINT", "LOCAL", "count_words", "dask_client", "expand_inputs", "require_distributed"]

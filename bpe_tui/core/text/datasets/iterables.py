"""Any iterable of strings as a corpus, each item one document: a ``datasets`` column, a
generator over records, a list of texts. (What Hugging Face tokenizers' ``train_from_iterator``
takes.)

Each item is one document, pre-tokenized whole and on its own as ``train_from_iterator`` and
rustbpe do (special tokens first, then the pre-tokenizer; see
:meth:`~..corpus.WordCounter.add_documents`): no pre-token spans two items. The iterable is read once,
whatever is counted from it: with several configs (SuperBPE's words and chunks) each item is
counted under each as it passes. Memory holds the counts and about a block of text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from ...engine.config import TrainerConfig
from ...errors import BPEError
from ..blocks import BLOCK, check_errors
from ..corpus import WordCounter
from .records import ReadReport, check_unicode

#: Items between two progress reports.
PROGRESS_EVERY = 1000

Progress = Callable[[int, int], None]


def count_texts(
    texts: Iterable[str],
    configs: list[TrainerConfig],
    errors: str = "strict",
    progress: Progress | None = None,
    report: ReadReport | None = None,
    name: str = "texts",
) -> list[dict[str, int]]:
    """Word counts of the items of ``texts``, one dict per config (in order of first
    appearance), in one pass. ``progress(items, len(texts))`` every PROGRESS_EVERY items and at
    the end (the length 0 when the iterable has none). An item that is not a string is a
    one-line error naming it (1-based); so is half a surrogate pair in one, unless
    ``errors="replace"`` reads it as U+FFFD. ``report.records`` counts the items."""
    check_errors(errors)
    if isinstance(texts, (str, bytes)):
        raise BPEError(f"{name}: give an iterable of texts (a list, a generator, a dataset column), not one {type(texts).__name__}")
    try:
        length = len(texts)  # type: ignore[arg-type]
    except TypeError:
        length = 0
    try:
        items = iter(texts)
    except TypeError:
        raise BPEError(f"{name}: {type(texts).__name__} is not iterable: give an iterable of texts") from None
    report = report if report is not None else ReadReport()
    counters = [WordCounter(c) for c in configs]
    counts: list[Counter[str]] = [Counter() for _ in configs]
    batch: list[str] = []
    size = 0
    number = 0
    for number, text in enumerate(items, start=1):
        if not isinstance(text, str):
            hint = " (decode it first)" if isinstance(text, (bytes, bytearray)) else ""
            raise BPEError(f"{name}: item {number:,} is {type(text).__name__}, not a string{hint}")
        if not text.isascii():
            try:
                text = check_unicode(text, errors)
            except ValueError as exc:
                raise BPEError(f"{name}: item {number:,}: {exc}") from None
        batch.append(text)
        size += len(text)
        report.records += 1
        if size >= BLOCK:
            _add(counters, batch, counts)
            batch, size = [], 0
        if progress is not None and number % PROGRESS_EVERY == 0:
            progress(number, length)
    _add(counters, batch, counts)
    if progress is not None:
        progress(number, length)
    if not counts[0]:
        raise BPEError(f"{name}: the corpus is empty (no words found in {number:,} texts)")
    return [dict(c) for c in counts]


def _add(counters: list[WordCounter], batch: list[str], counts: list[Counter[str]]) -> None:
    for counter, into in zip(counters, counts):
        counter.add_documents(batch, into)

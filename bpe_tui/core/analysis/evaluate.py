"""Evaluating tokenizers on corpora: the numbers people compute in notebooks, for any table.

:func:`evaluate` encodes every corpus with every table and measures, per table x corpus:

tokens
    How many tokens the corpus encodes to (special tokens in the text included).
bytes per token, characters per token
    UTF-8 bytes (characters) of the corpus divided by its tokens: how much text a token holds
    on average. Higher means shorter sequences for the same text.
fertility
    Tokens per whitespace word (Ács 2019; Rust et al. 2021). A *whitespace word* is a maximal
    run of characters other than space, tab, line feed, carriage return, vertical tab and form
    feed. 1.0 would mean one token per word. Scripts written without spaces (Chinese,
    Japanese, Thai) have few, long "words", so their fertility is not comparable with other
    languages'; use the token premium for those.
continued words
    The share of word occurrences split into two or more tokens (Rust et al.'s "proportion of
    continued words"). A token counts for a word when it holds at least one of the word's
    characters; a token holding only whitespace belongs to no word.
words kept whole
    The share of distinct words (types) that come out as a single token at every occurrence.
vocabulary used
    Distinct token ids emitted, and that number over the vocabulary size (utilization).
Rényi efficiency (alpha 2.5)
    Zouhar et al. 2023, "Tokenization and the Noiseless Channel". Let p_i be the share of
    emitted tokens that are token i (its unigram probability on the corpus). The Rényi entropy
    of order alpha is ``H_a(p) = 1/(1 - a) * log2(sum_i p_i ** a)``, and the efficiency is
    ``H_a(p) / log2(|V|)`` with |V| the table's vocabulary size, a number in [0, 1]. alpha 2.5
    is the order the paper found to correlate best with downstream BLEU: it penalises
    vocabularies where a few very frequent tokens carry most of the text. (The authors'
    ``tokenization-scorer`` package divides by the number of distinct tokens seen unless it is
    given the vocabulary size; we use the vocabulary size, as the paper does.)
token premium
    On parallel text (the same sentences in several languages), a language's tokens divided
    by the first corpus's tokens, with the same table (Petrov et al. 2023, "Language Model
    Tokenizers Introduce Unfairness Between Languages"). 1.8 means the same content costs 80%
    more tokens than in the first language.

How the work is split: each corpus file is cut into byte ranges that start at line starts
(:func:`bpe_tui.core.text.blocks.plan_ranges`), each range is read with
:func:`~bpe_tui.core.text.blocks.iter_text_blocks`, and worker processes encode the ranges with
every table; their tallies add up. Encoding a text in pieces gives the same tokens as encoding
it whole only where the pre-tokenizer cannot see across the cut. For GPT-2's regex (and
GPT-4's, GPT-4o's and the whitespace split) that holds at a line end with a non-whitespace
character on both sides (``a\\n|b``); at other line ends it can fail: ``\\s+(?!\\S)`` makes
``"x\\n\\n\\ny"`` into ``\\n\\n`` + ``\\n`` when whole, but ``\\n`` + ``\\n\\n`` when cut after the
first line, and ``" \\n"`` before a letter is one piece at the end of a range but two inside a
text. So every cut (between ranges, and between the blocks a range is read in) is moved
forward to such a safe line end (:func:`safe_ranges`, :func:`safe_pieces`); a file without
one (CRLF line ends: ``\r`` is whitespace) is encoded whole. Tables where no cut is safe
(:func:`safe_cut` is False: a custom regex, a special token holding a line break, a prefix
space put in front of each text) are encoded one whole file at a time.
"""

from __future__ import annotations

import math
import operator
import os
import re
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, compress, repeat
from typing import Any, BinaryIO

from ..engine import merge_core
from ..errors import BPEError
from ..tables.table import UNK_ID, MergeTable
from ..text.blocks import iter_text_blocks, plan_ranges
from ..text.corpus import (
    MIN_RANGE,
    RANGES_PER_WORKER,
    resolve_workers,
    worker_pool,
)
from ..text.parts import file_kind
from ..text.sources import corpus_where
from .audit import Cancelled, inside_counts
from .corpora import PARALLEL_DIR, PARALLEL_LANGUAGES, Corpus, parallel_set, parse_corpora, parse_corpus  # noqa: F401  (re-exported)

#: The Rényi order of Zouhar et al. 2023.
RENYI_ALPHA = 2.5
#: Pre-tokenizers for which a cut at a line end between two non-whitespace characters is safe.
CUT_SAFE_PRETOKENIZERS = {"gpt2", "gpt4", "o200k", "whitespace"}
#: What separates whitespace words (ASCII whitespace, so bytes and characters agree).
WORD = re.compile(r"[^ \t\n\r\x0b\x0c]+")  # (Python's re: the class is spelled out, re is faster)
_ASCII_SPACE = frozenset(b" \t\n\r\x0b\x0c")
_SPACE_CHARS = frozenset(" \t\n\r\x0b\x0c\u2581")
_ASCII_SPACE_BYTES = bytes(sorted(_ASCII_SPACE))  # (for bytes.translate: deleted)
_NO_SPACE_CHARS = dict.fromkeys(map(ord, _SPACE_CHARS))  # (for str.translate: deleted)

Progress = Callable[[int, int], None]


# ---------------------------------------------------------------------- the numbers


@dataclass
class Tally:
    """What encoding a piece of a corpus with one table adds up to (tallies add)."""

    tokens: int = 0
    bytes: int = 0
    chars: int = 0
    words: int = 0
    continued: int = 0  # word occurrences split into 2+ tokens
    counts: Counter[int] = field(default_factory=Counter)  # token id -> emitted
    types: set[str] = field(default_factory=set)  # distinct whitespace words
    split_types: set[str] = field(default_factory=set)  # ... of which some occurrence was split
    aligned: bool = True  # tokens and words lined up (else the word metrics are unknown)

    def add(self, other: "Tally") -> None:
        self.tokens += other.tokens
        self.bytes += other.bytes
        self.chars += other.chars
        self.words += other.words
        self.continued += other.continued
        self.counts.update(other.counts)
        self.types |= other.types
        self.split_types |= other.split_types
        self.aligned = self.aligned and other.aligned


@dataclass(frozen=True)
class Metrics:
    """One table on one corpus. Word metrics are None when tokens and words did not line up
    (a table that changes the text, such as a lowercasing or normalizing one)."""

    table: str
    corpus: str
    vocab_size: int
    tokens: int
    bytes: int
    chars: int
    words: int
    continued: int
    word_types: int
    whole_types: int
    aligned: bool
    counts: dict[int, int] = field(compare=False, repr=False)

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens if self.tokens else 0.0

    @property
    def fertility(self) -> float | None:
        return self.tokens / self.words if self.words else None

    @property
    def continued_share(self) -> float | None:
        return self.continued / self.words if self.words and self.aligned else None

    @property
    def kept_whole_share(self) -> float | None:
        return self.whole_types / self.word_types if self.word_types and self.aligned else None

    @property
    def used(self) -> int:
        return sum(1 for n in self.counts.values() if n)

    @property
    def utilization(self) -> float:
        return self.used / self.vocab_size if self.vocab_size else 0.0

    @property
    def renyi_efficiency(self) -> float | None:
        return renyi_efficiency(self.counts, self.vocab_size)

    def as_dict(self) -> dict[str, Any]:
        """The numbers, for JSON (ids and counts left out)."""
        return {
            "table": self.table,
            "corpus": self.corpus,
            "tokens": self.tokens,
            "bytes": self.bytes,
            "chars": self.chars,
            "words": self.words,
            "bytes_per_token": _round(self.bytes_per_token),
            "chars_per_token": _round(self.chars_per_token),
            "fertility": _round(self.fertility),
            "continued_words": _round(self.continued_share),
            "words_kept_whole": _round(self.kept_whole_share),
            "vocab_size": self.vocab_size,
            "used": self.used,
            "utilization": _round(self.utilization),
            "renyi_efficiency": _round(self.renyi_efficiency),
        }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def renyi_efficiency(counts: Mapping[int, int], vocab_size: int, alpha: float = RENYI_ALPHA) -> float | None:
    """``H_alpha(p) / log2(vocab_size)`` for the unigram distribution of ``counts`` (see the
    module docstring); None for an empty corpus or a vocabulary of one token."""
    total = sum(counts.values())
    if not total or vocab_size < 2:
        return None
    if alpha == 1:
        entropy = -sum(n / total * math.log2(n / total) for n in counts.values() if n)
    else:
        entropy = math.log2(sum((n / total) ** alpha for n in counts.values() if n)) / (1 - alpha)
    return float(entropy / math.log2(vocab_size))


@dataclass(frozen=True)
class Evaluation:
    """Every table on every corpus: ``metrics[t][c]`` for table t and corpus c."""

    tables: tuple[str, ...]
    corpora: tuple[str, ...]
    metrics: tuple[tuple[Metrics, ...], ...]

    def get(self, table: int, corpus: int) -> Metrics:
        return self.metrics[table][corpus]

    def premium(self, table: int, corpus: int) -> float | None:
        """Tokens of ``corpus`` over tokens of the first corpus, with the same table."""
        first = self.metrics[table][0].tokens
        return self.metrics[table][corpus].tokens / first if first else None

    def rows(self) -> list[dict[str, Any]]:
        """One dict per table x corpus, with the premium when there are several corpora."""
        out = []
        for t in range(len(self.tables)):
            for c in range(len(self.corpora)):
                row = self.get(t, c).as_dict()
                if len(self.corpora) > 1:
                    row["premium"] = _round(self.premium(t, c))
                out.append(row)
        return out


def savings(table: MergeTable, counts: Mapping[int, int]) -> list[tuple[int, int]]:
    """``(rank, tokens saved)`` per merge on a corpus, most saving first.

    Each occurrence of a merge's result in the corpus's encoding -- emitted, or inside the
    merge tree of an emitted token -- is one token fewer than without that merge, so the
    encoding's length is its base symbols minus the sum of all savings. This tells which
    merges helped a language most.
    """
    inside = inside_counts(table, counts)
    out = []
    for rank, (_, _, new) in enumerate(table.merge_ids):
        if table.rank_of(new) == rank:
            n = counts.get(new, 0) + inside.get(new, 0)
            if n:
                out.append((rank, n))
    out.sort(key=lambda x: (-x[1], x[0]))
    return out


# ---------------------------------------------------------------------- tallying text


class Tallier:
    """Encodes text with one table and tallies tokens, bytes, words and ids.

    Word metrics need to know which tokens hold which words' characters. Every token's
    non-whitespace length (bytes for a byte-level table, characters otherwise; the end-of-word
    marker and sentencepiece's ``▁`` count as whitespace, an unknown character as one) is laid
    out along the token sequence as a byte string with a 1 where a token ends (``marks``: a
    token of length 3 is ``00 00 01``), and every word's along the words; a word is split when a
    token ends inside it, before its last character (``marks.find(1, start, last)``: each step
    runs in C, over ids and words). If the two totals differ, the table changed the text, and
    the word metrics are marked unknown rather than guessed.

    :meth:`add_each` is that computation in Python, the reference. Where the compiled merge
    core runs (:func:`~bpe_tui.core.engine.merge_core.compiled`), :meth:`add` hands the ids and
    the text to its ``tally_words``, which does the same in one pass over each without making
    the marks or the list of words; the Python path decides a text that holds an unknown
    character of a chars table.
    """

    def __init__(self, table: MergeTable):
        self.table = table
        self.bytes_mode = table.units == "bytes"
        vocab = table.vocab
        size = max(vocab) + 2 if vocab else 2
        lengths = [0] * size
        eow = table.end_of_word
        for i, surface in vocab.items():
            if isinstance(surface, bytes):
                raw = surface.replace(eow.encode("utf-8"), b"") if eow else surface
                lengths[i] = len(raw.translate(None, _ASCII_SPACE_BYTES))
            else:
                text = surface.replace(eow, "") if eow else surface
                lengths[i] = len(text.translate(_NO_SPACE_CHARS))
        lengths[UNK_ID] = 1  # the last slot: an unknown character (see _lengths_of)
        self.lengths = lengths
        #: A length as marks: ``marks[n]`` is n - 1 zero bytes and a 1 (nothing for 0); and each
        #: id's marks (the unknown id's last).
        self.marks = [b""] + [bytes(n - 1) + b"\x01" for n in range(1, max(lengths) + 1)]
        self.id_marks = list(map(self.marks.__getitem__, lengths))
        #: Characters a chars-mode table knows; the others encode as UNK_ID, in text order.
        self.known = {s for s in vocab.values() if isinstance(s, str) and len(s) == 1}
        #: The compiled word tally and the lengths as it reads them (None: the Python path).
        self.core = merge_core.compiled()
        self.length_buffer = array("q", lengths)

    def _marks_of(self, ids: list[int], text: str) -> bytes:
        """Each token's non-whitespace length as marks, one byte a character with a 1 where
        the token ends; an unknown character counts as what it is (a line break the table has
        no symbol for is whitespace, a letter is not)."""
        if self.bytes_mode or UNK_ID not in ids:
            return b"".join(map(self.id_marks.__getitem__, ids))
        lengths = self.lengths
        unknown = (c for c in text if c not in self.known)
        return b"".join(map(self.marks.__getitem__, (lengths[i] if i != UNK_ID else int(next(unknown, "x") not in _SPACE_CHARS) for i in ids)))

    def add(self, text: str, tally: Tally) -> None:
        """Encode ``text`` and tally it: in the compiled core where it runs, else as
        :meth:`add_each` does (the same numbers)."""
        ids = self.table.encode(text)
        core = self.core
        done = None if core is None else core.tally_words(text, ids, self.length_buffer, self.bytes_mode, tally.counts, tally.types, tally.split_types)
        if done is None:
            self.tally_ids(text, ids, tally)
            return
        words, continued, aligned = done
        tally.tokens += len(ids)
        tally.bytes += len(text.encode("utf-8")) if not text.isascii() else len(text)
        tally.chars += len(text)
        tally.words += words
        tally.continued += continued
        tally.aligned = tally.aligned and aligned

    def add_each(self, text: str, tally: Tally) -> None:
        """Encode ``text`` and tally it in Python: the reference :meth:`add` is held to."""
        self.tally_ids(text, self.table.encode(text), tally)

    def tally_ids(self, text: str, ids: list[int], tally: Tally) -> None:
        """Tally ``text`` encoded as ``ids``, per id and per word (the class docstring)."""
        tally.tokens += len(ids)
        data_len = len(text.encode("utf-8")) if not text.isascii() else len(text)
        tally.bytes += data_len
        tally.chars += len(text)
        tally.counts.update(ids)
        words = WORD.findall(text)
        if not words:
            return
        marks = self._marks_of(ids, text)  # 1: a token ends here (non-whitespace only)
        total = len(marks)
        if self.bytes_mode and not text.isascii():
            sizes = list(map(len, map(str.encode, words)))
        else:
            sizes = list(map(len, words))
        if total != sum(sizes):
            tally.aligned = False
            tally.words += len(words)
            tally.types.update(words)
            return
        # A token ends inside a word, before its last character: the word is split.
        word_ends = list(accumulate(sizes))
        word_starts = [0, *word_ends[:-1]]
        lasts = map(operator.sub, word_ends, repeat(1))
        split = list(map(operator.ne, map(marks.find, repeat(1), word_starts, lasts), repeat(-1)))
        tally.split_types.update(compress(words, split))
        tally.words += len(words)
        tally.continued += sum(split)
        tally.types.update(words)


def safe_cut(table: MergeTable) -> bool:
    """Whether a text may be encoded in pieces cut at safe line ends (module docstring)."""
    return (
        table.pretokenizer in CUT_SAFE_PRETOKENIZERS
        and table.prefix_space is None
        and not any("\n" in s for s in table.special_tokens)
    )


def safe_pieces(blocks: Iterable[str]) -> Iterator[str]:
    """Re-cut a stream of text blocks so that every piece ends at a safe cut (or the end)."""
    carry = ""
    for block in blocks:
        text = carry + block
        cut = _last_safe(text)
        if cut:
            yield text[:cut]
            carry = text[cut:]
        else:
            carry = text
    if carry:
        yield carry


def _last_safe(text: str) -> int:
    """The offset of the last safe cut in ``text`` (0: none)."""
    pos = len(text)
    while True:
        nl = text.rfind("\n", 0, pos)
        if nl <= 0:
            return 0
        if nl + 1 < len(text) and not text[nl - 1].isspace() and not text[nl + 1].isspace():
            return nl + 1
        pos = nl


def safe_ranges(path: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Move the cuts between byte ranges forward to safe line ends (ranges that meet merge)."""
    if len(ranges) < 2:
        return ranges
    size = ranges[-1][1]
    cuts = [0]
    with open(path, "rb") as f:
        for _, end in ranges[:-1]:
            cut = _next_safe(f, max(end, cuts[-1] + 1), size)
            if cut >= size:
                break
            cuts.append(cut)
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def _next_safe(f: BinaryIO, pos: int, size: int) -> int:
    """The first safe cut at or after byte ``pos`` of an open file (``size`` if none)."""
    while pos < size:
        start = max(0, pos - 4)  # a few bytes back: the character before the line feed
        f.seek(start)
        chunk = f.read(pos - start + (1 << 16))
        hit = _first_safe(chunk, pos - start)
        if hit is not None:
            return start + hit
        if start + len(chunk) >= size:
            break
        pos = start + len(chunk) - 4  # look again at the tail: a character may straddle
    return size


def _first_safe(chunk: bytes, start: int) -> int | None:
    """The first safe cut at or after offset ``start`` of a byte chunk, judged on characters
    (a character cut off by the chunk's ends does not count as non-whitespace)."""
    i = chunk.find(b"\n", max(1, start - 1))
    while 0 <= i < len(chunk) - 1:
        before = chunk[max(0, i - 4) : i].decode("utf-8", "replace")[-1:]
        after = chunk[i + 1 : i + 5].decode("utf-8", "replace")[:1]
        if before and after and not (before.isspace() or after.isspace() or "\ufffd" in before + after):
            return i + 1
        i = chunk.find(b"\n", i + 1)
    return None


# ---------------------------------------------------------------------- running it

_WORKER_TABLES: list[Tallier] = []


def _init_worker(tables: list[MergeTable]) -> None:
    global _WORKER_TABLES
    _WORKER_TABLES = [Tallier(t) for t in tables]


def _tally_job(job: tuple[int, str, int, int, str, bool]) -> Tally:
    """In a worker: tally one byte range of one file with one table."""
    t, path, start, end, errors, whole = job
    return tally_range(_WORKER_TABLES[t], path, start, end, errors, whole)


def tally_range(tallier: Tallier, path: str, start: int, end: int | None, errors: str = "strict", whole: bool = False) -> Tally:
    """Tally one byte range (line-aligned, cuts safe) of a file; ``whole``: as one string."""
    tally = Tally()
    blocks = iter_text_blocks(path, errors, start=start, end=end)
    pieces = ["".join(blocks)] if whole else safe_pieces(blocks)
    for text in pieces:
        if text:
            tallier.add(text, tally)
    return tally


def evaluate(
    tables: Sequence[MergeTable],
    corpora: Sequence[Corpus],
    table_names: Sequence[str] | None = None,
    errors: str = "strict",
    workers: int | None = None,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Evaluation:
    """Encode every corpus with every table and measure (module docstring).

    Args:
        tables: The tables.
        corpora: The corpora; on parallel text the first is the premium's reference.
        table_names: What the rows call each table (None: its source, else "table N").
        errors: "strict" or "replace", for bytes that are not UTF-8.
        workers: Processes sharing the work (None: the CPU count for inputs of 8 MB or more,
            else 1; see :func:`bpe_tui.core.text.corpus.resolve_workers`).
        progress: ``progress(done, total)``: bytes encoded over all tables.
        should_stop: Asked between ranges; true raises :class:`Cancelled`.

    Returns:
        The metrics of every table on every corpus.

    Raises:
        BPEError: No table, no corpus, or a corpus that is not a text file.
    """
    if not tables:
        raise BPEError("give at least one table to evaluate")
    if not corpora:
        raise BPEError("give at least one corpus (--corpus FILE)")
    names = list(table_names) if table_names is not None else [t.source or f"table {k + 1}" for k, t in enumerate(tables)]
    sizes = {p: os.path.getsize(p) for c in corpora for p in c.paths}
    corpus_bytes = sum(sizes[p] for c in corpora for p in set(c.paths))
    total = corpus_bytes * len(tables)
    n = resolve_workers(workers, total)
    target = max(MIN_RANGE, -(-corpus_bytes // (n * RANGES_PER_WORKER)))
    kinds = {p: file_kind(p) for p in sizes}  # a compressed file is encoded whole, by one worker
    for path, kind in kinds.items():
        if kind.records:
            raise BPEError(f"{path}: holds {kind.kind} records; evaluating reads text files (compressed or not): train and count read records")

    # One job per table x byte range; a table that cannot be cut gets each file whole.
    jobs: list[tuple[int, int, str, int, int]] = []  # (table, corpus, path, start, end)
    for t, table in enumerate(tables):
        cut = safe_cut(table)
        for c, corpus in enumerate(corpora):
            for path in corpus.paths:
                size = sizes[path]
                spans = safe_ranges(path, plan_ranges(path, size, target)) if cut and n > 1 and kinds[path].splittable else [(0, size)]
                jobs.extend((t, c, path, a, b) for a, b in spans or [(0, 0)])

    tallies = [[Tally() for _ in corpora] for _ in tables]
    done = 0

    def take(job: tuple[int, int, str, int, int], tally: Tally) -> None:
        nonlocal done
        t, c, _, start, end = job
        tallies[t][c].add(tally)
        done += end - start
        if progress is not None:
            progress(done, total)
        if should_stop is not None and should_stop():
            raise Cancelled()

    if n > 1 and len(jobs) > 1:
        tasks = [(t, path, a, b, errors, not safe_cut(tables[t])) for t, _, path, a, b in jobs]
        with worker_pool(min(n, len(jobs)), _init_worker, (list(tables),)) as pool:
            for job, tally in zip(jobs, pool.imap(_tally_job, tasks, chunksize=1)):
                take(job, tally)
    else:
        talliers = [Tallier(t) for t in tables]
        for job in jobs:
            t, _, path, a, b = job
            take(job, tally_range(talliers[t], path, a, b, errors, whole=not safe_cut(tables[t])))

    metrics = []
    for t, table in enumerate(tables):
        row = []
        for c, corpus in enumerate(corpora):
            tally = tallies[t][c]
            if not tally.chars:
                raise BPEError(f"{corpus_where(list(corpus.paths))}: the corpus is empty")
            row.append(
                Metrics(
                    names[t], corpus.label, len(table), tally.tokens, tally.bytes, tally.chars, tally.words,
                    tally.continued, len(tally.types), len(tally.types - tally.split_types), tally.aligned,
                    dict(tally.counts),
                )
            )
        metrics.append(tuple(row))
    return Evaluation(tuple(names), tuple(c.label for c in corpora), tuple(metrics))


def evaluate_text(table: MergeTable, text: str, table_name: str = "table", corpus: str = "text") -> Metrics:
    """The metrics of one table on an in-memory text (encoded whole, in this process)."""
    tally = Tally()
    Tallier(table).add(text, tally)
    return Metrics(
        table_name, corpus, len(table), tally.tokens, tally.bytes, tally.chars, tally.words, tally.continued,
        len(tally.types), len(tally.types - tally.split_types), tally.aligned, dict(tally.counts),
    )

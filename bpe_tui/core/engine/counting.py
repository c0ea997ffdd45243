"""From a corpus to the counts a trainer is built on: ``(word counts, chunk counts, name)``.

A trainer never reads text: it is built from word counts (pre-token -> how often it occurs,
in order of first appearance). This module turns each kind of corpus into those counts, as
tiktoken's ``load.py`` turns a rank file into ranks, and returns them; the trainer's
``from_text``, ``from_files``, ``from_iterator`` and ``from_table`` are these functions and
one call of ``Trainer.from_counts``.

Most trainers need one cut of the corpus. SuperBPE (:mod:`~bpe_tui.core.engine.variants.superbpe`)
needs two: the words under the config's pre-tokenizer, and the *chunks* under its stage-2 rule,
which it switches to after merge K. :func:`count_stages` counts what a config needs, in one
pass over the text where the reader can (several configs at once) and one per config where
it cannot.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import BPEError
from .config import TrainerConfig, named
from .start import table_config
from .superwords import chunk_config

if TYPE_CHECKING:
    from ..tables.table import MergeTable

__all__ = ["Counts", "count_each", "count_stages", "file_counts", "iterator_counts", "no_chunks_from_counts", "table_counts", "text_counts"]


class Counts(NamedTuple):
    """A corpus counted for a trainer.

    words:  pre-token -> count, in order of first appearance
    chunks: the stage-2 chunks with counts (SuperBPE with a transition ahead), else None
    name:   what the corpus is called in messages and the status line
    """

    words: dict[str, int]
    chunks: dict[str, int] | None
    name: str


def count_stages(
    count: Callable[[list[TrainerConfig]], list[dict[str, int]]], config: TrainerConfig, first_step: int,
) -> tuple[dict[str, int], dict[str, int] | None]:
    """``(word counts, chunk counts)`` of a corpus, ``count`` counting it under each of a
    list of configs (one dict each, in one pass or several).

    Without superwords_after: the words, no chunks. With it: the words under the config's
    pre-tokenizer and the chunks under SuperBPE's stage-2 rule, or, for a trainer that starts
    at or past the transition, only the chunks, as its words. With ``boundless``: the words,
    and BoundlessBPE's runs of pre-tokens that may join as the chunks (:func:`runs_config`)."""
    if config.boundless is not None:  # (one pass: the pre-tokens and the runs, told apart after)
        from ..text.boundless_rules import split_counts

        return split_counts(count([runs_config(config)])[0])
    k = config.superwords_after
    if k is None:
        return count([config])[0], None
    if k <= first_step:
        return count([chunk_config(config)])[0], None
    words, chunks = count([config, chunk_config(config)])
    return words, chunks


def runs_config(config: TrainerConfig) -> TrainerConfig:
    """The config that counts a corpus for BoundlessBPE in one pass: its pre-tokens, and its
    second cut, the runs of adjacent pre-tokens the merge pattern takes, marked
    (:class:`~bpe_tui.core.text.boundless_rules.RunsPattern`; ``split_counts`` tells them
    apart), under the config's pre-tokenizer, lowercase and special tokens."""
    from ..text.boundless_rules import MERGE_PATTERN, runs_pretokenizer

    pattern = runs_pretokenizer(config.pretokenizer, config.boundless_merge_pattern or MERGE_PATTERN, words=True)
    return replace(config, pretokenizer=pattern, boundless=None, boundless_deletions="bytes", boundless_merge_pattern=None, vocab_size=None, merges=None)


def count_each(count: Callable[[TrainerConfig, bool], dict[str, int]]) -> Callable[[list[TrainerConfig]], list[dict[str, int]]]:
    """Count under several configs by counting once per config (files can be read again):
    ``count(config, first)``, ``first`` true for the first counting only (a read report is
    filled by it alone: the others read the same records)."""
    return lambda configs: [count(c, k == 0) for k, c in enumerate(configs)]


def no_chunks_from_counts(config: TrainerConfig, paths: list[str]) -> None:
    """Refuse SuperBPE on word-count files: they cannot say which words stood side by side."""
    for field_name in ("superwords_after", "boundless"):
        if getattr(config, field_name) is not None:
            from ..text.corpus import corpus_where

            raise BPEError(f"{corpus_where(paths)}: {named(field_name)} needs the text itself: word-count files cannot say which words stood side by side")


def _check_words(word_counts: Mapping[str, int], paths: list[str]) -> None:
    """A corpus with no words is an error that names its files as the user gave them."""
    if not word_counts:
        from ..text.sources import corpus_where

        raise BPEError(f"{corpus_where(paths)}: the corpus is empty (no words to train on)")


def _paths(paths: Iterable[str] | str) -> list[str]:
    """One path or many, as a list of strings."""
    listed = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    return [os.fspath(p) for p in listed]


def text_counts(text: str, config: TrainerConfig, name: str = "text") -> Counts:
    """A string, read line by line exactly as a file would be."""
    from ..text.corpus import count_text

    words, chunks = count_stages(count_each(lambda cfg, _: count_text(text, cfg)), config, 0)
    return Counts(words, chunks, name)


def file_counts(
    paths: Iterable[str] | str, config: TrainerConfig, first_step: int = 0, counts: bool = False, report: Any = None,
    **options: Any,
) -> Counts:
    """Files, directories, globs or ``-`` (see ``Trainer.from_files``); ``counts``: the
    inputs are ``word<TAB>count`` files; ``first_step``: the merges a start table has (a
    SuperBPE transition at or before it means the corpus is counted as chunks only);
    ``options``: :func:`~bpe_tui.core.text.distributed.count_words`'s (errors, progress,
    workers, client, text_field, skip_bad_records)."""
    from ..text.count_files import read_count_files
    from ..text.distributed import count_words
    from ..text.sources import corpus_name

    listed = _paths(paths)
    chunks = None
    if counts:
        no_chunks_from_counts(config, listed)
        words = read_count_files(listed, progress=options.get("progress"))
    else:
        words, chunks = count_stages(
            count_each(lambda cfg, first: count_words(listed, cfg, report=report if first else None, **options)), config, first_step
        )
    _check_words(words, listed)
    return Counts(words, chunks, corpus_name(listed))


def iterator_counts(texts: Iterable[str], config: TrainerConfig, errors: str = "strict",
                    progress: Callable[[int, int], None] | None = None, name: str = "texts") -> Counts:
    """Any iterable of strings, each one document (see ``Trainer.from_iterator``), read once."""
    from ..text.datasets.iterables import count_texts

    words, chunks = count_stages(lambda configs: count_texts(texts, configs, errors, progress, name=name), config, 0)
    return Counts(words, chunks, name)


def table_counts(table: "MergeTable", paths: Iterable[str] | str, config: TrainerConfig | None = None, **options: Any) -> Counts:
    """The corpus at ``paths`` counted under ``table``'s rules (its units, pre-tokenizer,
    end-of-word marker, lowercase and special tokens; see
    :func:`~bpe_tui.core.engine.start.table_config`), to go on training from it."""
    cfg, _ = table_config(table, config)
    return file_counts(paths, cfg, first_step=table.num_merges, **options)

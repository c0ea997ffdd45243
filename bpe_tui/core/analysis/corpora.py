"""The corpora an evaluation measures: labelled files (``--corpus [LABEL=]PATH``), their labels
told apart, and the parallel text set shipped with bpe-tui (see :mod:`.evaluate`)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..compression import plain_name
from ..errors import BPEError
from ..shipped import shipped
from ..text.parts import file_kind
from ..text.sources import corpus_name, expand_sources

#: The parallel text set shipped with bpe-tui (corpora/parallel), English first.
PARALLEL_DIR = str(shipped("parallel"))
PARALLEL_LANGUAGES = ["en", "de", "fr", "es", "tr", "ru", "el", "ar", "hi", "zh", "ja", "ko"]


@dataclass(frozen=True)
class Corpus:
    """A labelled corpus: one or more files (a directory is expanded to its text files)."""

    label: str
    paths: tuple[str, ...]
    #: What finding and sniffing its files assumed or left out, one line each (see
    #: :func:`~bpe_tui.core.text.sources.expand_sources` and :mod:`~bpe_tui.core.text.kinds`).
    notes: tuple[str, ...] = ()


def parse_corpora(specs: Sequence[str]) -> list[Corpus]:
    """``--corpus`` specs as corpora (see :func:`parse_corpus`), their labels told apart: two
    files of the same name (``en/text.txt``, ``de/text.txt``) are labelled by as much of
    their paths as tells them apart (``en/text``, ``de/text``), and the same file given twice
    is numbered (``text``, ``text #2``). A label given twice (``A=x A=y``) is an error: the
    person chose it."""
    corpora = [parse_corpus(spec) for spec in specs]
    named = [_label_and_path(spec)[2] for spec in specs]
    given = Counter(c.label for c, n in zip(corpora, named) if n)
    twice = next((label for label, n in given.items() if n > 1), None)
    if twice is not None:
        raise BPEError(f"--corpus: the label {twice!r} names two corpora; give each its own")
    labels = [c.label for c in corpora]
    for label in {label for label in labels if labels.count(label) > 1}:
        same = [i for i, c in enumerate(corpora) if c.label == label and not named[i]]
        paths = [os.path.normpath(_label_and_path(specs[i])[1]).split(os.sep)[:-1] for i in same]
        depth = 1
        while depth <= max(map(len, paths)) and len({tuple(p[-depth:]) for p in paths}) < len(paths):
            depth += 1
        for n, (i, folders) in enumerate(zip(same, paths), 1):
            longer = "/".join([*folders[-depth:], label])
            labels[i] = longer if len({tuple(p[-depth:]) for p in paths}) == len(paths) else (label if n == 1 else f"{label} #{n}")
    return [replace(c, label=label) for c, label in zip(corpora, labels)]


def _label_and_path(spec: str) -> tuple[str, str, bool]:
    """A ``--corpus`` spec's label, its path, and whether the label was given (``LABEL=``)."""
    label, eq, path = spec.partition("=")
    if not eq or os.path.exists(spec):
        return os.path.splitext(os.path.basename(plain_name(os.path.normpath(spec))))[0] or spec, spec, False  # (a.txt.gz: a)
    return label, path, True


def parse_corpus(spec: str) -> Corpus:
    """``LABEL=PATH`` or ``PATH`` (labelled by its file name without extension)."""
    label, path, _ = _label_and_path(spec)
    if not path:
        raise BPEError(f"--corpus {spec!r}: give a file after the '='")
    notes: list[str] = []
    sources = expand_sources([path], notes)
    if "-" in sources:
        raise BPEError("eval reads files, not stdin: give --corpus FILE")
    notes += [kind.note for kind in map(file_kind, sources) if kind.note is not None]
    return Corpus(label or corpus_name(sources), tuple(sources), tuple(notes))


def parallel_set(directory: str = PARALLEL_DIR) -> list[Corpus]:
    """The shipped parallel text set as labelled corpora, English (the premium's reference) first."""
    corpora = [
        Corpus(lang, (os.path.join(directory, f"{lang}.txt"),))
        for lang in PARALLEL_LANGUAGES
        if os.path.isfile(os.path.join(directory, f"{lang}.txt"))
    ]
    if not corpora:
        raise BPEError(f"{directory}: the parallel text set is not there (it ships with bpe-tui: reinstall it, or give corpora)")
    return corpora

"""Corpora in several languages: one training corpus per language, and either a development
text per language or a target compression ratio per language (what parity-aware BPE trains
on, see :mod:`~bpe_tui.core.engine.variants.parity`).

The development texts are *multi-parallel*: line n of every file says the same thing, in its
language (corpora/parallel is such a set). Only then does "language A needs more tokens than
language B for its development text" mean that A is served worse. This module reads the
corpora and the development texts with a trainer's pre-tokenizer and checks what can be
checked, each as one line naming the language and the file:

* two languages or more, each named once, each with a corpus that holds words;
* either development texts or ratios (not both, not neither), one for every language and no
  other; a ratio is a number above 0;
* development texts that are parallel: the same number of lines, none without words.

Languages keep the order they were given in: it is the order of the words (a language's
words after the previous ones'), and it breaks ties between languages (the first wins, as in
the reference code, which numbers languages by their order on its command line).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import BPEError, NotUTF8
from ..wording import plural

#: How a language may be named: letters, digits, ``_`` and ``-`` (``en``, ``zh-Hans``, ``pt_BR``).
NAME_CHARS = "letters, digits, _ and -"


@dataclass(frozen=True)
class LanguageCorpora:
    """What :func:`read_languages` read: per language (in ``languages``' order) its word
    counts, and its development text's word counts (``dev``, None with ratios) or its ratio."""

    languages: tuple[str, ...]
    words: tuple[dict[str, int], ...]
    dev: tuple[dict[str, int], ...] | None
    dev_lines: int
    ratio: tuple[float, ...] | None
    paths: dict[str, list[str]]
    dev_paths: dict[str, str]

    def union(self) -> dict[str, int]:
        """Every language's words in one mapping, in order of first appearance (a language's
        new words after the previous ones'), each counted over all languages: the corpus the
        trainer holds."""
        out: dict[str, int] = {}
        for counts in self.words:
            for word, count in counts.items():
                out[word] = out.get(word, 0) + count
        return out


def paths_of(value: str | os.PathLike | Iterable) -> list[str]:
    """One path or several, as a list of strings."""
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    return [os.fspath(p) for p in value]


def check_languages(
    corpora: Mapping[str, Any], dev: Mapping[str, Any] | None = None, ratio: Mapping[str, Any] | None = None,
) -> None:
    """Everything about the languages that can be checked before reading a file (BPEError,
    one line)."""
    import regex

    names = list(corpora)
    for name in [*names, *(dev or {}), *(ratio or {})]:
        if not isinstance(name, str) or not regex.fullmatch(r"[\w-]+", name):
            raise BPEError(f"language {name!r}: a language is named with {NAME_CHARS} (en, zh-Hans, pt_BR)")
    if len(names) < 2:
        raise BPEError(f"parity-aware BPE weighs languages against each other: give two languages or more (got {plural(len(names), 'language')})")
    for name in names:
        if not paths_of(corpora[name]):
            raise BPEError(f"language {name}: no corpus files")
    if dev is None and ratio is None:
        raise BPEError(
            "parity-aware BPE needs a development text per language (multi-parallel: line n of each says the same thing) "
            "or a target compression ratio per language"
        )
    if dev is not None and ratio is not None:
        raise BPEError("give development texts or compression ratios, not both")
    given, what = (dev, "development text") if dev is not None else (ratio, "compression ratio")
    assert given is not None
    for name in names:
        if name not in given:
            raise BPEError(f"language {name} has no {what}: give one for every language ({', '.join(names)})")
    for name in given:
        if name not in corpora:
            raise BPEError(f"{what} for {name}, which is not one of the training languages ({', '.join(names)})")
    if ratio is not None:
        for name, value in ratio.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise BPEError(f"compression ratio of {name} must be a number above 0, not {value!r}")


def read_languages(
    corpora: Mapping[str, Any],
    config: Any,
    dev: Mapping[str, Any] | None = None,
    ratio: Mapping[str, Any] | None = None,
    errors: str = "strict",
    count: Callable[[list[str], Any], dict[str, int]] | None = None,
) -> LanguageCorpora:
    """Read and check every language's corpus and development text (see the module docstring).

    ``corpora``: language -> its corpus (a path or several: files, directories, globs, as
    ``Trainer.from_files`` takes them); ``dev``: language -> its development text (one
    file), or ``ratio``: language -> its target compression ratio. ``config``: the
    TrainerConfig whose pre-tokenizer cuts the words. ``count(paths, config)`` counts a
    corpus (default: :func:`~bpe_tui.core.text.distributed.count_words`, with ``errors``).
    """
    from .blocks import iter_file_lines
    from .corpus import count_lines, pretokenizer_for
    from .distributed import count_words
    from .sources import corpus_where, expand_sources

    check_languages(corpora, dev, ratio)
    languages = tuple(corpora)
    paths = {name: paths_of(corpora[name]) for name in languages}
    counter = count if count is not None else (lambda p, cfg: count_words(p, cfg, errors=errors))
    words = []
    for name in languages:
        try:
            counts = counter(paths[name], config)
        except NotUTF8 as exc:  # (still a NotUTF8: the explorer offers to read it again)
            raise exc.inside(f"language {name}") from None
        except BPEError as exc:
            raise BPEError(f"language {name}: {exc}") from None
        if not counts:
            raise BPEError(f"language {name}: {corpus_where(paths[name])}: the corpus is empty (no words to train on)")
        words.append(counts)
    if dev is None:
        assert ratio is not None
        return LanguageCorpora(languages, tuple(words), None, 0, tuple(float(ratio[n]) for n in languages), paths, {})
    dev_paths: dict[str, str] = {}
    for name in languages:
        given = paths_of(dev[name])
        found = expand_sources(given)
        if len(found) != 1:
            raise BPEError(f"development text of {name}: {corpus_where(given)} is {plural(len(found), 'file')}; give one file per language")
        dev_paths[name] = found[0]
    pre = pretokenizer_for(config)
    dev_words, lines = [], {}
    for name in languages:
        seen = [0]
        try:
            counts = dict(count_lines(_counted(iter_file_lines(dev_paths[name], errors), seen), pre))
        except NotUTF8 as exc:
            raise exc.inside(f"development text of {name}") from None
        except BPEError as exc:
            raise BPEError(f"development text of {name}: {exc}") from None
        lines[name] = seen[0]
        if not counts:
            raise BPEError(f"development text of {name}: {dev_paths[name]}: no words in it")
        dev_words.append(counts)
    first = languages[0]
    odd = [n for n in languages if lines[n] != lines[first]]
    if odd:
        shown = ", ".join(f"{dev_paths[n]} ({n}) has {plural(lines[n], 'line')}" for n in [first, *odd[:3]])
        more = f" and {len(odd) - 3} more differ" if len(odd) > 3 else ""
        raise BPEError(f"the development texts are not parallel (line n of each must say the same thing): {shown}{more}")
    return LanguageCorpora(languages, tuple(words), tuple(dev_words), lines[first], None, paths, dev_paths)


def _counted(lines: Iterable[str], seen: list[int]) -> Iterable[str]:
    """The lines, counted in ``seen[0]`` as they go by."""
    for line in lines:
        seen[0] += 1
        yield line

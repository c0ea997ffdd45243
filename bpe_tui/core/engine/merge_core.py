"""Which merge loop the encoder runs: the compiled merge core, or the Python one it mirrors.

bpe-tui's merge loop is Python (:mod:`~bpe_tui.core.engine.merging`): the reference, the
teaching path and the fallback. Beside it sits an optional C extension, ``_merge_core.c`` in this
folder, that does the encoder's hot loop (merging the pre-tokens a text brings that the pieces
cache does not hold) with the same results; ``pip install`` builds it where the machine has a C
compiler. The tests hold the two paths to each other on random text and on every kind of table.
Its last sections are ``eval``'s word tally (``tally_words``), the twin of
:meth:`Tallier.add_each <bpe_tui.core.analysis.evaluate.Tallier.add_each>`, and BoundlessBPE's
pass over a text's pre-tokens (``join_words``), the twin of
:meth:`Joiner.joined_python <bpe_tui.core.tables.boundless.Joiner.joined_python>`.

This module says which one runs, once, for everything: the encoder asks :func:`compiled` for the
extension (None: the Python path), and so does the split of the known regexes, which the
extension also does (``known_pattern`` in core/text/splitting.py); :func:`engine_info` says it
in words (``bpe-tui --version`` shows it). ``BPE_TUI_PURE=1`` in the environment forces the Python path; it is read
when a table is made, so a test can make one table of each kind in one process.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from types import ModuleType

#: The environment variable that forces the pure-Python path (any value but empty or 0).
PURE_VARIABLE = "BPE_TUI_PURE"


def _load() -> tuple[ModuleType | None, str]:
    """The extension setup.py built, or None and why not (in words)."""
    try:
        return importlib.import_module(f"{__package__}._merge_core"), ""
    except ModuleNotFoundError:  # (setup.py builds it only where there was a C compiler)
        return None, "no C compiler when bpe-tui was installed"
    except ImportError as error:  # a build for another Python, a broken file
        return None, " ".join(str(error).split()) or type(error).__name__


_core, _missing = _load()


def forced_pure() -> bool:
    """Whether ``BPE_TUI_PURE`` asks for the pure-Python path."""
    return os.environ.get(PURE_VARIABLE, "").strip() not in ("", "0")


def compiled() -> ModuleType | None:
    """The compiled merge core, or None where the Python path runs (not built, or forced)."""
    return None if forced_pure() else _core


#: What the compiled core does where it runs (each has its Python twin, the reference).
COMPILED_DOES = "the merge loop, the known regexes' split, eval's word tally, BoundlessBPE's supermerges, the replay of removals"


def engine_info() -> str:
    """Which path encodes, in words: the compiled core and what it does, or pure Python and why."""
    if _core is None:
        return f"pure Python (the compiled core is not built: {_missing})"
    if forced_pure():
        return f"pure Python ({PURE_VARIABLE}={os.environ[PURE_VARIABLE].strip()}; the compiled core is there)"
    return f"compiled core (C): {COMPILED_DOES}"


def pair_merger(ranks: Mapping[tuple[int, int], int], made: Mapping[tuple[int, int], int]) -> Callable[[list[int]], list[int]]:
    """A merge loop by merge list over ids, for code that merges ids it made itself (a
    BoundlessBPE table's pre-tokens between their deletions): ``merge(ids) -> ids`` as
    :func:`~bpe_tui.core.engine.merging.merge_pairs` gives them, run by the compiled core where
    it runs. ``ranks``: pair -> its rank (the smaller merges first); ``made``: pair -> the token
    it makes."""
    from .merging import merge_pairs, pair_merges

    core = compiled()
    if core is None:
        index = pair_merges(ranks, made)
        return lambda ids: merge_pairs(list(ids), index)
    return core.Merger("pairs", (dict(ranks), dict(made)), fallback=_ids_only, check_long=_ids_only).merge_ids


def _ids_only(word: str) -> None:
    """A :func:`pair_merger`'s Merger is asked for ids only (``merge_ids``), never for a word."""
    raise TypeError("this merge loop merges ids, not words: use merge_ids")

"""The texts bpe-tui ships inside the package: the demo corpus, the tutorials' worked
examples (the guided tour's) and the parallel text set (the Evaluate view's).

They live in ``bpe_tui/data`` so that an installed bpe-tui, from a wheel as much as from a
checkout, finds them; the repository's ``corpora/`` links to the same files.
"""

from __future__ import annotations

from pathlib import Path

#: The package's data folder.
DATA = Path(__file__).resolve().parent.parent / "data"


def shipped(name: str) -> Path:
    """A shipped text by file name: ``shipped("court.txt")``, ``shipped("parallel")``."""
    return DATA / name


def demo_corpus_path() -> str:
    """Path of the built-in demo corpus (original short stories written for bpe-tui)."""
    return str(shipped("demo.txt"))

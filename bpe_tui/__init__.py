"""bpe-tui: watch Byte Pair Encoding learn, and inspect real merge tables.

The library in five lines:

    import bpe_tui
    cfg = bpe_tui.TrainerConfig(preset="gpt2", vocab_size=1000)
    trainer = bpe_tui.Trainer.from_files(["corpus.txt"], cfg)
    for event in trainer.run(): print(event.step, event.pair, event.count)
    bpe_tui.save(trainer.table, "table.json")

In a notebook, tables, trainers and merges draw themselves, and ``bpe_tui.show(table, text)``
draws a text's tokens as chips with their ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core import (
        PRESETS,
        UNK_ID,
        BPEError,
        MergeEvent,
        MergeNode,
        MergeTable,
        TraceStep,
        Trainer,
        TrainerConfig,
    )
    from .core.engine.merge_core import engine_info
    from .core.engine.registry import Bench, Choice, Merged, Option, PlainBPE, Variant
    from .core.errors import VariantError
    from .core.notebook import show
    from .core.shipped import demo_corpus_path
    from .core.tables.adopt import from_tiktoken, from_tokenizers
    from .core.tables.formats import load, save
    from .core.text.distributed import count_words

__version__ = "0.1.0"

#: Where each public name lives. A name is imported when it is first used, so ``import
#: bpe_tui`` itself imports nothing heavy: the ``bpe-tui`` command (bpe_tui.launch) answers
#: Ctrl+C before the engine is loaded.
_HOMES = {
    **dict.fromkeys(["PRESETS", "UNK_ID", "BPEError", "MergeEvent", "MergeNode", "MergeTable", "TraceStep", "Trainer", "TrainerConfig"], ".core"),
    "show": ".core.notebook",
    "demo_corpus_path": ".core.shipped",
    "from_tiktoken": ".core.tables.adopt",
    "from_tokenizers": ".core.tables.adopt",
    "load": ".core.tables.formats",
    "save": ".core.tables.formats",
    "count_words": ".core.text.distributed",
    **dict.fromkeys(["Bench", "Choice", "Merged", "Option", "PlainBPE", "Variant"], ".core.engine.registry"),
    "VariantError": ".core.errors",
    "engine_info": ".core.engine.merge_core",
}
#: The subpackages, reachable as attributes (``bpe_tui.core.errors`` after ``import bpe_tui``).
_SUBPACKAGES = ("core", "charts", "cli", "ui")


def __getattr__(name: str) -> Any:
    """A public name (or subpackage), imported on first use and kept."""
    import importlib

    if name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name], __name__), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "BPEError",
    "Bench",
    "Choice",
    "Merged",
    "Option",
    "PlainBPE",
    "Variant",
    "VariantError",
    "MergeEvent",
    "MergeNode",
    "MergeTable",
    "PRESETS",
    "TraceStep",
    "Trainer",
    "TrainerConfig",
    "UNK_ID",
    "count_words",
    "demo_corpus_path",
    "engine_info",
    "from_tiktoken",
    "from_tokenizers",
    "load",
    "save",
    "show",
    "train",
]


def train(paths: Iterable[str] | str, **config: Any) -> MergeTable:
    """Train to the configured target in one call and return the table.

    Args:
        paths: The corpus: a path, or several (text, compressed or not, JSON lines, Parquet,
            directories, globs; see :meth:`Trainer.from_files`).
        **config: TrainerConfig's fields (preset, vocab_size, merges, ...), plus ``errors``
            ("strict" or "replace") for input that is not UTF-8.

    Returns:
        The merge table the trainer made.

    Raises:
        BPEError: Bad input or a bad rule, in one line.
    """
    from .core import Trainer, TrainerConfig

    errors = config.pop("errors", "strict")
    if isinstance(paths, str):
        paths = [paths]
    trainer = Trainer.from_files(list(paths), TrainerConfig(**config), errors=errors)
    for _ in trainer.run():
        pass
    return trainer.table



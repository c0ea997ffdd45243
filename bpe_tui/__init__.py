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
from typing import Any

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
from .core.engine.registry import Bench, Choice, Merged, Option, PlainBPE, Variant
from .core.errors import VariantError
from .core.engine.merge_core import engine_info
from .core.notebook import show
from .core.shipped import demo_corpus_path
from .core.tables.adopt import from_tiktoken, from_tokenizers
from .core.tables.formats import load, save
from .core.text.distributed import count_words

__version__ = "0.1.0"

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
    errors = config.pop("errors", "strict")
    if isinstance(paths, str):
        paths = [paths]
    trainer = Trainer.from_files(list(paths), TrainerConfig(**config), errors=errors)
    for _ in trainer.run():
        pass
    return trainer.table



"""BPE variants: plain BPE and the variants of recent papers, one module each.

How a variant plugs into the trainer, and what it may do there, is the typed contract in
:mod:`~bpe_tui.core.engine.variants.seam`; how it declares its options,
:mod:`~bpe_tui.core.engine.variants.options`. Which variants there are, and which one a config
asks for, is the registry's (:mod:`~bpe_tui.core.engine.registry`).
"""

from __future__ import annotations

from ..state import Merged
from .options import Option
from .plain import PlainBPE
from .seam import Bench, Choice, ChoiceTuple, MergedElsewhere, Series, Variant

__all__ = ["Bench", "Choice", "ChoiceTuple", "Merged", "MergedElsewhere", "Option", "PlainBPE", "Series", "Variant"]

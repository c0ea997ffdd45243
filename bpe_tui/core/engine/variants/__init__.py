"""BPE variants: plain BPE and the variants of recent papers, one module each.

How a variant plugs into the trainer, and what it may do there, is the contract in
:mod:`~bpe_tui.core.engine.variants.seam`. This package's front door picks the variant a
config asks for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .plain import PlainBPE
from .seam import Choice, ChoiceTuple, Merged, Variant

if TYPE_CHECKING:
    from ..config import TrainerConfig

__all__ = ["Choice", "ChoiceTuple", "Merged", "PlainBPE", "Variant", "variant_for"]


def variant_for(config: "TrainerConfig", chunk_counts: Mapping[str, int] | None = None) -> Variant:
    """The variant a config asks for: SuperBPE with ``superwords_after`` (``chunk_counts``:
    the corpus's stage-2 chunks, see :class:`~.superbpe.SuperBPE`), PickyBPE with ``picky=τ``
    (or under the ``picky`` tie-break rule, whose order PickyBPE keeps), else plain BPE.
    Parity-aware BPE (``config.parity``) needs more than a config, one corpus per language:
    ``Trainer.from_languages`` makes it."""
    if config.parity is not None:
        from ...errors import BPEError

        raise BPEError(
            "parity-aware BPE trains on one corpus per language: Trainer.from_languages({lang: paths}, dev={lang: path}, config) "
            "(bpe-tui train --language LANG=FILE --dev LANG=FILE ...)"
        )
    if config.superwords_after is not None:
        from .superbpe import SuperBPE

        return SuperBPE(chunk_counts)
    if config.picky is not None or config.tie_break == "picky":
        from .picky import PickyBPE

        return PickyBPE(config.picky)
    return PlainBPE()

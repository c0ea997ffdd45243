"""The BPE engine: pure Python + regex, importable without textual.

Start with ``educational``: the whole algorithm, training and encoding, written the way the
tutorials write it (``python -m bpe_tui.core.teaching.educational`` prints a short trace). The other
modules do the same work fast, in the order data flows through them:

* ``pretokenize`` text -> pre-tokens (special tokens cut out first)
* ``corpus``      files -> word counts (streamed)
* ``config``      TrainerConfig and presets
* ``trainer``     Trainer: incremental pair counts, priority queue, step/undo/run -> MergeEvent;
                  merges by hand, going on from a table, constraints
* ``tiebreak``    every tie-break rule (TIE_BREAKS), each defined once (its order and why a pair wins)
* ``events``      MergeEvent: one merge as a value, with its explanation sentence
* ``speed``       the trainer's speed helpers (id strings, the C-level index build, ...)
* ``table``       MergeTable: merges + vocab; encode/decode/trace/dropout
* ``formats``     merge-table files: read, write, detect
* ``lessons``     the guided tour's stops (``bpe-tui learn``): text, questions, checks
"""

from .engine.config import PRESETS, TrainerConfig
from .engine.trainer import MergeEvent, Trainer
from .errors import BPEError
from .tables.table import UNK_ID, MergeNode, MergeTable, TraceStep

__all__ = ["BPEError", "MergeEvent", "MergeNode", "MergeTable", "PRESETS", "TraceStep", "Trainer", "TrainerConfig", "UNK_ID"]

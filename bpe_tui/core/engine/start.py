"""Going on from a saved table: which of the table's rules a new training run must keep.

A table's merges apply only to a corpus split and spelled the way the table's own was: the same
units, pre-tokenizer, end-of-word marker, lowercasing and special tokens. Training on from a
table (``Trainer.from_table``, ``bpe-tui CORPUS --from TABLE``) therefore takes those rules from
the table, whatever the config says, and says which it took (:func:`table_config`); the rest
(tie-break, targets, constraints) may differ.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import BPEError
from .config import PARITY_FIELDS, PRESETS, TrainerConfig

if TYPE_CHECKING:
    from ..tables.table import MergeTable

__all__ = ["TABLE_RULES", "table_config"]


#: What a table decides about the corpus, as (TrainerConfig field, name a person reads).
TABLE_RULES = (
    ("units", "units"),
    ("pretokenizer", "pre-tokenizer"),
    ("end_of_word", "end-of-word marker"),
    ("lowercase", "lowercase"),
    ("special_tokens", "special tokens"),
)


def table_config(table: "MergeTable", config: TrainerConfig | None = None) -> tuple[TrainerConfig, list[str]]:
    """The rules for training on from ``table``, and what was taken from the table, by name.

    How the corpus is split and spelled must be the table's, or its merges would not apply:
    its units, pre-tokenizer, end-of-word marker, lowercase and special tokens rule, whatever
    ``config`` says (each note says what was taken and, where ``config`` differed, what it
    replaced). The rest (tie-break, targets, min_frequency, constraints) comes from
    ``config``, or, without one, from the table's own training config where it recorded one
    (bpe-tui tables do), else TrainerConfig's defaults.

    A table whose library also rewrites the text before splitting (a normalizer, a space put
    in front), or one trained under PickyBPE's setup (a word-start marker, removals, its own
    alphabet), cannot be reproduced by training: BPEError. So can a config asking for that
    setup on another table.
    """
    where = table.source or "table"
    cfg = table.config
    if isinstance(cfg.get("normalizer"), dict):
        raise BPEError(f"{where}: cannot go on training from this table: its library normalizes the text first ({cfg['normalizer'].get('type', 'a normalizer')}), which training does not reproduce")
    if cfg.get("prepend_scheme") or cfg.get("prepend_space"):
        raise BPEError(f"{where}: cannot go on training from this table: its library puts a space in front of the text, which training does not reproduce")
    if table.removals or table.word_start is not None:
        raise BPEError(f"{where}: cannot go on training from this table: it was trained under PickyBPE's setup (▁ before each word, removals), which going on from a table does not reproduce")
    if config is not None and (config.word_start is not None or config.character_coverage is not None or config.alphabet != "code-point"):
        raise BPEError(f"{where}: cannot go on training from a table under the picky setup (word_start, character_coverage, alphabet): the table's own alphabet and words decide; give PickyBPE's threshold alone (picky=τ)")
    taken = {
        "units": table.units,
        "pretokenizer": table.pretokenizer,
        "end_of_word": table.end_of_word,
        "lowercase": table.lowercase,
        "special_tokens": list(table.special_tokens),
    }
    if config is not None:
        values = config.to_dict()
    else:
        known = TrainerConfig().to_dict()
        # (a table trained parity-aware goes on as plain BPE: its languages are not here)
        values = {k: v for k, v in cfg.items() if k in known and k not in ("vocab_size", "merges", *PARITY_FIELDS)}
        values.setdefault("preset", "gpt2")
    notes = []
    for field_name, label in TABLE_RULES:
        value = taken[field_name]
        shown = _shown_rule(field_name, value)
        if config is not None and getattr(config, field_name) != value:
            notes.append(f"{label}: {shown} (the table's; the config had {_shown_rule(field_name, getattr(config, field_name))})")
        else:
            notes.append(f"{label}: {shown}")
    values.update(taken)
    values.pop("preset", None)
    named = cfg.get("preset")
    preset = config.preset if config is not None else (named if isinstance(named, str) and named in PRESETS else "gpt2")
    try:
        return TrainerConfig(preset=preset, **values), notes
    except BPEError as exc:
        raise BPEError(f"{where}: cannot go on training from this table: {exc}") from None


def _shown_rule(field_name: str, value) -> str:
    if field_name == "end_of_word":
        return repr(value) if value else "none"
    if field_name == "lowercase":
        return "yes" if value else "no"
    if field_name == "special_tokens":
        return ", ".join(value) if value else "none"
    return str(value)

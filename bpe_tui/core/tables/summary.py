"""A merge table's summary in words: what ``bpe-tui inspect`` prints and what the explorer's
inspect screen shows before any text is typed.

One place says how a pre-tokenizer, the special tokens, a prefix-space scheme and SuperBPE's
two stages read in a sentence; :func:`summary` gathers them, labelled, for a table (without
building a rank file's merge list: ``describe(build=False)``).
"""

from __future__ import annotations

from ..engine.superwords import SUPERWORD_RULE_NAME, is_superword_rule
from ..engine.units import visible
from ..text.pretokenize import PIPELINE
from .table import MergeTable

#: Where a prefix-space scheme puts its space (MergeTable.prefix_space).
PREFIX_SPACE_WHERE = {"first": "the text", "always": "each segment", "prepend": "each segment, always"}


def describe_pretokenizer(name: str) -> str:
    """A pre-tokenizer's name for one line: named ones as they are, long regexes shortened."""
    if is_superword_rule(name):
        return SUPERWORD_RULE_NAME
    if name.startswith(PIPELINE):
        return f"a pipeline of {name.count('pattern')} split steps"
    return name if len(name) <= 60 else name[:57] + "..."


def describe_specials(specials: dict[str, int], shown: int = 8) -> str:
    """Special tokens and their ids on one line (``<|endoftext|> = 50256``), readable
    (whitespace visible), a long list cut in the middle."""
    items = [f"{visible(s)} = {i}" for s, i in sorted(specials.items(), key=lambda kv: kv[1])]
    if len(items) > shown + 2:
        items = items[: shown - 2] + [f"… {len(items) - shown} more …"] + items[-2:]
    return ", ".join(items)


def describe_prefix_space(scheme: str) -> str:
    """Where a prefix-space scheme puts its space: ``a space is put before the text (first)``."""
    return f"a space is put before {PREFIX_SPACE_WHERE.get(scheme, scheme)} ({scheme})"


def describe_superwords(table: MergeTable) -> str | None:
    """SuperBPE's two stages, when the table records them (None otherwise): ``merges 1-K
    under gpt2, then pairs may span spaces``."""
    k = table.config.get("superwords_after")
    if not isinstance(k, int):
        return None
    return f"merges 1-{k:,} under {describe_pretokenizer(str(table.config.get('pretokenizer')))}, then pairs may span spaces"


def summary(table: MergeTable, merges_note: str | None = None) -> list[tuple[str, str]]:
    """``(label, fact)`` rows: format, size, rules, special tokens and the reader's notes
    (one row each). A rank file's merge list is not built for it: until it is, the size
    row says ``merges_note`` (how far its build has come) instead of the merge count."""
    d = table.describe(build=False)
    merges = f"{d['merges']:,} merges" if d["merges"] is not None else (merges_note or "merges not built yet")
    rows = [
        ("format", str(d["format"])),
        ("size", f"{d['vocab_size']:,} tokens, {merges}"),
        ("units", str(d["units"])),
        ("pre-tokenizer", describe_pretokenizer(str(d["pretokenizer"]))),
    ]
    if d["tie_break"]:
        rows.append(("tie-break", str(d["tie_break"])))
    superwords = describe_superwords(table)
    if superwords is not None:
        rows.append(("superwords", superwords))
    if d["end_of_word"]:
        rows.append(("end of word", repr(d["end_of_word"]) + (", lowercase" if d["lowercase"] else "")))
    elif d["lowercase"]:
        rows.append(("lowercase", "yes"))
    if d["prefix_space"]:
        rows.append(("prefix space", describe_prefix_space(str(d["prefix_space"]))))
    specials = d["special_tokens"]
    listed = describe_specials(specials)
    rows.append(("specials", "none" if not specials else listed if len(specials) == 1 else f"{len(specials):,} tokens: {listed}"))
    rows.extend(("note", note) for note in d["notes"])
    return rows

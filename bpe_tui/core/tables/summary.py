"""A merge table summarised for people, in one place: ``bpe-tui inspect`` prints it, a
notebook draws it (:mod:`bpe_tui.core.notebook`) and the explorer's inspect screen shows it
before any text is typed.

It reads plain values (a pre-tokenizer's name, the special tokens, ``MergeTable.describe()``'s
dict), never a table, so that whatever a table itself shows can use it without an import circle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.config import stage2_phrases
from ..engine.superwords import is_superword_rule, superword_rule_name
from ..engine.units import visible
from ..text.pretokenize import PIPELINE, short_name

#: How many merges a summary lists from the start of the table, and from its end.
FIRST_MERGES = 10
LAST_MERGES = 5

#: How many special tokens a summary names (long lists are cut in the middle).
SPECIALS_NAMED = 8

#: Where a prefix-space scheme puts its space (MergeTable.prefix_space).
PREFIX_SPACE_WHERE = {"first": "the text", "always": "each segment", "prepend": "each segment, always"}


def summary_ranks(num_merges: int) -> tuple[range, range]:
    """The 0-based ranks a summary lists: the first merges, and the last ones after them
    (empty when the first already reach the end)."""
    first = range(min(FIRST_MERGES, num_merges))
    return first, range(max(len(first), num_merges - LAST_MERGES), num_merges)


def short_pretokenizer(name: str) -> str:
    """A pre-tokenizer as a status line names it: a stage-2 rule by its name, a named one by
    its short name, and any other as "custom regex" past 24 characters."""
    short = short_name(name)
    if is_superword_rule(short):
        return superword_rule_name(short)
    return short if len(short) < 24 else "custom regex"


def describe_pretokenizer(name: str) -> str:
    """A pre-tokenizer's name for one line: named ones as they are, long regexes shortened."""
    if is_superword_rule(name):
        return superword_rule_name(name)
    name = short_name(name)
    if name.startswith(PIPELINE):
        return f"a pipeline of {name.count('pattern')} split steps"
    return name if len(name) <= 60 else name[:57] + "..."


def special_items(specials: Mapping[str, int], shown: int = SPECIALS_NAMED) -> list[str]:
    """``token = id`` for the special tokens by id, readable (whitespace visible); a long list
    is cut in the middle, where an item says how many were left out."""
    items = [f"{visible(s)} = {i}" for s, i in sorted(specials.items(), key=lambda kv: kv[1])]
    if len(items) > shown + 2:
        items = items[: shown - 2] + [f"… {len(items) - shown} more …"] + items[-2:]
    return items


def describe_specials(specials: Mapping[str, int], shown: int = SPECIALS_NAMED) -> str:
    """Special tokens on one line (see :func:`special_items`)."""
    return f"special tokens ({len(specials):,}): " + ", ".join(special_items(specials, shown))


def describe_prefix_space(scheme: str) -> str:
    """Where a prefix-space scheme puts its space: ``a space is put before the text (first)``."""
    return f"a space is put before {PREFIX_SPACE_WHERE.get(scheme, scheme)} ({scheme})"


def describe_superwords(
    superwords_after: object, pretokenizer: object, config: Mapping[str, Any] | None = None, merges: int | None = None,
) -> str | None:
    """SuperBPE's two stages from a table's config values ``superwords_after`` and
    ``pretokenizer`` (None when it records none): ``merges 1-K under gpt2, then pairs may
    span spaces``; with the table's whole ``config``, its stage-2 options and the merges
    dropped at the transition too (``... (digits rule, ≤ 4 words, 8 unused merges dropped)``).
    ``merges``, the table's merge count: a table that ends at or before merge K says it has no
    superwords, rather than naming merges it does not have."""
    if not isinstance(superwords_after, int):
        return None
    under = describe_pretokenizer(str(pretokenizer))
    if merges is not None and superwords_after >= merges:
        made = f"merges 1-{merges:,} under {under}" if merges else "no merges"
        text = f"{made}; no superwords (they were to start after merge {superwords_after:,})"
    elif superwords_after == 0:
        text = f"pairs may span spaces from merge 1 (no merges under {under} first)"
    else:
        text = f"merges 1-{superwords_after:,} under {under}, then pairs may span spaces"
    options = stage2_phrases(config or {})
    return f"{text} ({', '.join(options)})" if options else text


def summary(d: Mapping[str, Any], variant_rows: Sequence[tuple[str, str]] = (), merges_note: str | None = None) -> list[tuple[str, str]]:
    """``(label, fact)`` rows from ``MergeTable.describe(build=False)``'s dict ``d``: format,
    size, units, pre-tokenizer, tie-break, what the variant that made it says of it
    (``variant_rows``: :func:`~bpe_tui.core.engine.registry.about_table`, SuperBPE's stages,
    PickyBPE's τ and removals, parity-aware BPE's languages), end of word, prefix space,
    special tokens and the reader's notes, one row each. While a
    rank file's merge list is not built (``d["merges"]`` None), the size row says
    ``merges_note`` (how far its build has come) instead of the merge count."""
    merges = f"{d['merges']:,} merges" if d["merges"] is not None else (merges_note or "merges not built yet")
    rows = [
        ("format", str(d["format"])),
        ("size", f"{d['vocab_size']:,} tokens, {merges}"),
        ("units", str(d["units"])),
        ("pre-tokenizer", describe_pretokenizer(str(d["pretokenizer"]))),
    ]
    if d["tie_break"]:
        rows.append(("tie-break", str(d["tie_break"])))
    rows.extend(variant_rows)
    if d["end_of_word"]:
        rows.append(("end of word", repr(d["end_of_word"]) + (", lowercase" if d["lowercase"] else "")))
    elif d["lowercase"]:
        rows.append(("lowercase", "yes"))
    if d["prefix_space"]:
        rows.append(("prefix space", describe_prefix_space(str(d["prefix_space"]))))
    specials = d["special_tokens"]
    listed = ", ".join(special_items(specials))
    rows.append(("specials", "none" if not specials else listed if len(specials) == 1 else f"{len(specials):,} tokens: {listed}"))
    rows.extend(("note", str(note)) for note in d["notes"])
    return rows

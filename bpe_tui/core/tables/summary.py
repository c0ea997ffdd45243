"""A merge table summarised for people, in one place: ``bpe-tui inspect`` prints it and a
notebook draws it (:mod:`bpe_tui.core.notebook`).

It reads plain values (a pre-tokenizer's name, the special tokens, a merge count), never a
table, so that the table's own ``_repr_html_`` can use it without an import circle.
"""

from __future__ import annotations

from ..engine.superwords import SUPERWORD_RULE_NAME, is_superword_rule
from ..engine.units import visible
from ..text.pretokenize import PIPELINE, short_name

#: How many merges a summary lists from the start of the table, and from its end.
FIRST_MERGES = 10
LAST_MERGES = 5

#: How many special tokens a summary names (long lists are cut in the middle).
SPECIALS_NAMED = 8


def summary_ranks(num_merges: int) -> tuple[range, range]:
    """The 0-based ranks a summary lists: the first merges, and the last ones after them
    (empty when the first already reach the end)."""
    first = range(min(FIRST_MERGES, num_merges))
    return first, range(max(len(first), num_merges - LAST_MERGES), num_merges)


def describe_pretokenizer(name: str) -> str:
    """A pre-tokenizer's name for one line: named ones as they are, long regexes shortened."""
    if is_superword_rule(name):
        return SUPERWORD_RULE_NAME
    name = short_name(name)
    if name.startswith(PIPELINE):
        return f"a pipeline of {name.count('pattern')} split steps"
    return name if len(name) <= 60 else name[:57] + "..."


def special_items(specials: dict[str, int], shown: int = SPECIALS_NAMED) -> list[str]:
    """``token = id`` for the special tokens by id, readable (whitespace visible); a long list
    is cut in the middle, where an item says how many were left out."""
    items = [f"{visible(s)} = {i}" for s, i in sorted(specials.items(), key=lambda kv: kv[1])]
    if len(items) > shown + 2:
        items = items[: shown - 2] + [f"… {len(items) - shown} more …"] + items[-2:]
    return items


def describe_specials(specials: dict[str, int], shown: int = SPECIALS_NAMED) -> str:
    """Special tokens on one line (see :func:`special_items`)."""
    return f"special tokens ({len(specials):,}): " + ", ".join(special_items(specials, shown))

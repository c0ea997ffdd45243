"""Handing a table to the libraries people train models with: tiktoken and Hugging Face.

:meth:`MergeTable.to_tiktoken` returns a ``tiktoken.Encoding`` and
:meth:`MergeTable.to_tokenizers` a ``tokenizers.Tokenizer``; each encodes every text to the
ids :meth:`MergeTable.encode` gives (special tokens recognised: tiktoken's
``allowed_special="all"``, HF's default), or, when the table does something the library
cannot express, is refused with a one-line BPEError naming it. The checks are
:func:`tiktoken_problems` and :func:`tokenizers_problems`; the tests hold both to the real
libraries on the varied text set (tests/interop/test_handoff.py).

The other way, :func:`~bpe_tui.core.tables.adopt.from_tiktoken` and
:func:`~bpe_tui.core.tables.adopt.from_tokenizers`, lives in ``adopt.py`` (it reads through
the file formats; this module is imported by the table's and may import no format).
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from ..errors import BPEError
from ..text.pretokenize import PIPELINE, pattern_text
from ..types import UNK_ID
from . import ranks, tokenizer_json


class Table(ranks.RankSource, tokenizer_json.TableView, Protocol):
    """What this module reads of a MergeTable."""

    source: str | None
    config: dict[str, Any]
    word_start: str | None

    @property
    def emits_unknown(self) -> bool: ...

    @property
    def removals(self) -> list[list[Any]]: ...


def library(name: str) -> Any:
    """An optional library, imported, or a one-line BPEError saying how to get it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise BPEError(f"this needs the {name} library: pip install {name}") from None


def listed(problems: list[str]) -> str:
    """The first problem, then how many more and which: one line for an error."""
    more = f" (and {len(problems) - 1} more: {'; '.join(problems[1:])})" if len(problems) > 1 else ""
    return problems[0] + more


def _refuse(library_name: str, problems: list[str]) -> BPEError:
    return BPEError(f"{library_name} cannot encode this table as bpe-tui does: {listed(problems)}")


def _special_flags(table: Table) -> list[str]:
    flags = table.config.get("special_flags") or {}
    return sorted(t for t, f in flags.items() if isinstance(f, dict) and any(f.values()) and t in table.special_tokens)


def picky_problems(table: Table) -> list[str]:
    """What of PickyBPE's or BoundlessBPE's setup in ``table`` no other library does (empty: nothing)."""
    out = []
    if table.removals:
        out.append("its removals (PickyBPE: merges and removals apply in the order they happened)")
    if table.word_start is not None:
        out.append(f"the {table.word_start!r} it puts in front of every word (PickyBPE's setup)")
    if table.config.get("supermerges"):
        out.append("its supermerges (BoundlessBPE: whole pre-tokens joined after the words are encoded)")
    return out


def tiktoken_problems(table: Table) -> list[str]:
    """What in ``table`` a tiktoken Encoding cannot do, one phrase each (empty: nothing)."""
    out = picky_problems(table)
    if table.units != "bytes":
        out.append("it is a chars table (tiktoken works on UTF-8 bytes)")
        return out
    if table.end_of_word:
        out.append(f"its end-of-word marker {table.end_of_word!r}")
    if table.lowercase:
        out.append("it lowercases the text")
    if isinstance(table.config.get("normalizer"), dict):
        out.append(f"its normalizer ({table.config['normalizer'].get('type')})")
    if table.prefix_space:
        out.append(f"its prefix space ({table.prefix_space})")
    if table.pretokenizer.startswith(PIPELINE):
        out.append("its pre-tokenizer is a pipeline of split steps (SuperBPE's split, a Hugging Face Sequence), not one regex")
    flagged = _special_flags(table)
    if flagged:
        out.append(f"special tokens with Hugging Face's lstrip/rstrip/single_word/normalized flags ({', '.join(flagged[:3])})")
    if table.emits_unknown:
        out.append("some bytes have no token")
    not_special = table.config.get("added_not_special") or []
    if not_special:
        out.append(
            f"{len(not_special)} added tokens that are not special (Hugging Face's \"special\": false, matched in any text): "
            "tiktoken has only special tokens, which encode_ordinary spells out"
        )
    return out


def to_tiktoken(table: Table, name: str | None = None) -> Any:
    """A ``tiktoken.Encoding`` of ``table`` (see the module docstring); ``name`` defaults to
    the table's source. Ranks are the table's ids, the regex its pre-tokenizer's, the
    special tokens its own. A table that encodes by its merge list is checked token by token
    first (:func:`~bpe_tui.core.tables.ranks.rank_rule_problem`: GPT-2's 50,000 in a second
    or two)."""
    problems = tiktoken_problems(table)
    if problems:
        raise _refuse("tiktoken", problems)
    mergeable = ranks.mergeable_ranks(table, table.source or "table")
    differs = ranks.rank_rule_problem(table, mergeable)
    if differs is not None:
        raise _refuse("tiktoken", [differs])
    tiktoken = library("tiktoken")
    return tiktoken.Encoding(
        name or f"bpe-tui:{table.source or 'table'}",
        pat_str=pattern_text(table.pretokenizer),
        mergeable_ranks=mergeable,
        special_tokens=dict(table.special_tokens),
    )


def tokenizers_problems(table: Table) -> list[str]:
    """What in ``table`` a Hugging Face tokenizer (from :mod:`~bpe_tui.core.tables.tokenizer_json`)
    cannot do, one phrase each (empty: nothing)."""
    out = picky_problems(table)
    if table.units == "chars" and table.end_of_word:
        out.append(f"its end-of-word marker {table.end_of_word!r} is a symbol of its own (HF attaches it to the last character: word-final ids differ)")
    spec = table.config.get("normalizer")
    if isinstance(spec, dict) and spec.get("type") == "SentencePiece":
        out.append("sentencepiece's normalizer (its charsmap, whitespace rules and dummy prefix)")
    if table.lowercase:
        out.append("it lowercases with Python's str.lower (HF's Lowercase differs, on a word-final Σ)")
    if table.prefix_space and not tokenizer_json.prefix_written(table):
        out.append(f"its prefix space ({table.prefix_space}) with this pre-tokenizer")
    if tokenizer_json.unknown_dropped(table):
        if table.unk_id != UNK_ID:  # its own unknown token, a special token the tokenizer.json cannot name as HF's unk_token
            given = f"its unknown token {table.vocab.get(table.unk_id)!r} (id {table.unk_id})"
        else:
            given = f"UNK_ID ({UNK_ID})"
        out.append(f"characters it has never seen encode to {given} here; the tokenizer.json names no unk_token, so HF drops them")
    return out


def to_tokenizers(table: Table) -> Any:
    """A ``tokenizers.Tokenizer`` of ``table`` (see the module docstring): its tokenizer.json,
    loaded. No post-processor, so ``add_special_tokens`` adds nothing."""
    problems = tokenizers_problems(table)
    if problems:
        raise _refuse("tokenizers", problems)
    tokenizers = library("tokenizers")
    return tokenizers.Tokenizer.from_str(tokenizer_json.dumps(table))

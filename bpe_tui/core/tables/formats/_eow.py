"""Two ways to mark the end of a word, and the exact map between them.

bpe-tui's chars-mode tables (and subword-nmt codes of version 0.1) keep the end-of-word
marker as a symbol of its own: ``low`` starts as ``l o w </w>``, and ``(w, </w>)`` is an
ordinary merge that can come early, late or never.

subword-nmt codes of version 0.2, fastBPE codes and Hugging Face's ``end_of_word_suffix``
attach the marker to the last character from the start: ``low`` starts as ``l o w</w>``.
There is no "attach" step, and a merge ``(e, r)`` never applies at the end of a word (there
the symbols are ``e r</w>``).

Reading attached codes (:func:`detach`) is exact: every character ``c`` gets a merge
``(c, </w>)`` ranked before all the others, so encoding first builds ``c</w>`` from the last
character, which is the attached representation's starting point; from there the two merge
lists are the same. Writing attached codes from a separate-marker table (:func:`attach`) maps
the *view* of each segmentation (the marker glued onto the symbol before it):

* ``(x, </w>)`` merges are dropped (attaching is not a step in the attached representation);
* every other merge is written as it is;
* a merge ``(y, z)`` whose right side ``z`` can still stand bare before ``</w>`` at that point
  (its ``(z, </w>)`` merge comes later or never) is followed by ``(y, z</w>)``, which is how
  the attached representation merges the same two symbols at the end of a word.

For trained tables this gives the same segmentations up to the view (checked against a
reference implementation of subword-nmt's apply_bpe in tests/interop).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from ...types import FormatName
from ..table import MergeTable
from ._shared import build_table

INF = float("inf")


def attach(table: MergeTable) -> list[tuple[str, str, int | None]]:
    """``(left, right, count)`` merges of a separate-marker table in attached form.

    Derived ``(y, z</w>)`` merges have count None (the codes file does not say). A bytes
    table's tokens come back as latin-1 text, a character per byte (``.encode("latin-1")``
    gives the bytes back; the marker is ASCII, the same either way).
    """
    eow = cast(str, table.end_of_word)  # callers attach only tables with a marker
    if table.units == "bytes":
        vocab = {i: cast(bytes, s).decode("latin-1") for i, s in table.vocab.items()}
        eow_id = table.token_id(eow.encode("utf-8"))
    else:
        vocab = cast("dict[int, str]", table.vocab)
        eow_id = table.token_id(eow)
    merges = table.merge_ids
    counts: list[int | None] = list(table.counts) if table.counts else [None] * len(merges)
    attach_rank: dict[int, int] = {}  # token id -> rank of its (token, </w>) merge
    creator: dict[int, tuple[int, int, int]] = {}  # token id -> (rank, left, right)
    for rank, (a, b, new) in enumerate(merges):
        if b == eow_id:
            attach_rank.setdefault(a, rank)
        creator.setdefault(new, (rank, a, b))

    def last_char_and_spine(token_id: int) -> tuple[int, float]:
        """(id of the last base symbol, rank where it was first merged with its left)."""
        spine = INF
        while token_id in creator:
            rank, _, right = creator[token_id]
            spine = rank
            token_id = right
        return token_id, spine

    out: list[tuple[str, str, int | None]] = []
    seen: set[tuple[str, str]] = set()

    def emit(left: str, right: str, count: int | None) -> None:
        if (left, right) not in seen:
            seen.add((left, right))
            out.append((left, right, count))

    for rank, ((a, b, _), count) in enumerate(zip(merges, counts)):
        if b == eow_id:
            continue
        left, right = vocab[a], vocab[b]
        emit(left, right, count)
        if right.endswith(eow):
            continue
        last, spine = last_char_and_spine(b)
        bare_possible = attach_rank.get(b, INF) > rank and (last == b or attach_rank.get(last, INF) > spine)
        if bare_possible:
            emit(left, right + eow, None)
    return out


def split_symbol(token: str, eow: str) -> tuple[str, bool]:
    """``('low', True)`` for ``low</w>``; ``('low', False)`` for ``low``."""
    if token.endswith(eow) and len(token) > len(eow):
        return token[: -len(eow)], True
    return token, False


def detach(
    merges: list[tuple[str, str, str]], eow: str, extra_chars: Iterable[str] = ()
) -> tuple[list[str], list[tuple[str, str, str]]]:
    """Base symbols and separate-marker merges for attached ``(left, right, where)`` merges.

    Returns ``(alphabet, merges)``: the characters (sorted by code point) plus the marker,
    and the merge list with one ``(c, </w>)`` merge per character in front. ``extra_chars``
    adds characters the merges never mention (a vocabulary's single characters).
    """
    chars: set[str] = set(extra_chars)
    for left, right, _ in merges:
        for token in (left, right):
            body, _ = split_symbol(token, eow)
            if token != eow:
                chars.update(body)
    alphabet = sorted(chars)
    prefix = [(c, eow, "(implied: every character can end a word)") for c in alphabet]
    return alphabet + [eow], prefix + list(merges)


def build_attached_table(
    path: str,
    vocab: dict[int, str],
    merges: list[tuple[str, str, str]],
    specials: dict[str, int],
    eow: str,
    *,
    source_format: FormatName,
    pretokenizer: str,
    lowercase: bool = False,
    config: dict[str, Any] | None = None,
) -> MergeTable:
    """A table from a vocabulary and merges written with the marker attached (Hugging Face's
    ``end_of_word_suffix``, XLM's and FlauBERT's ``merges.txt``), as our separate marker.

    ``vocab`` is id -> surface with the marker attached (``low</w>``); ids are kept. The
    characters the file implies (single characters of the vocabulary, bare or attached, and
    those the merges name) become base symbols, and :func:`detach` puts one ``(c, </w>)`` merge
    per character in front, so encoding is exact.
    """
    special_ids = set(specials.values())
    extra: set[str] = set()
    for i, surface in vocab.items():
        if i in special_ids:
            continue
        body, _ = split_symbol(surface, eow)
        if len(body) == 1:
            extra.add(body)
    alphabet, detached = detach(merges, eow, extra)
    surface_ids = {s: i for i, s in vocab.items()}
    next_id = first_added = max(vocab, default=-1) + 1
    for symbol in alphabet:
        if symbol not in surface_ids:
            vocab[next_id] = symbol
            surface_ids[symbol] = next_id
            next_id += 1
    # Symbols the encoding passes through that the file has no id for (bare characters,
    # ``c</w>``): unknown when left unmerged, as in the file's own library.
    config = dict(config or {})
    config["outside_vocab_from"] = first_added
    table = build_table(
        path, "chars", vocab, detached, specials, source_format=source_format, pretokenizer=pretokenizer,
        end_of_word=eow, lowercase=lowercase, config=config, add_missing_results=True,
    )
    added = len(table.vocab) - first_added
    if added > 0 and isinstance(table.config.get("notes"), list):
        table.config["notes"].append(
            f"{added} symbols the vocabulary lacks (bare characters, c{eow}) help build tokens; left unmerged they are unknown"
        )
    return table

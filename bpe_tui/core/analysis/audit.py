"""Auditing a vocabulary: which tokens a merge table holds that it never or hardly ever uses.

A trained BPE table is more than its merges: it carries tokens that encoding can never produce,
byte pieces that are not text, tokens that exist only to build longer ones, and tokens that a
given corpus never needs. Finding them by hand means writing the same notebook again for every
tokenizer; :func:`audit` sorts a table's tokens into these categories (a token may be in
several), each with the token ids and, where it helps, a one-line note per token:

``unreachable``
    Encoding the token's own text does not give the token (:meth:`MergeTable.encodes_to_itself`):
    the pre-tokenizer cuts the text (GPT-4o's regex cuts ``" I'"`` before the apostrophe), the
    normalizer changes it (Qwen2's NFC), a special token sits inside it, or lower-ranked merges
    take its symbols first. BPE with this
    table never emits it, yet it takes an embedding row. (Tokens in ``unbuildable`` are left
    out here: they are a different story.)
``unbuildable``
    Not buildable by merges (:meth:`MergeTable.unbuildable_ids`): neither a base symbol, nor a
    special token, nor the result of any merge. Only a whole-piece lookup can emit it (tiktoken
    emits a pre-token whole when it is itself a rank; Llama 3's table relies on that).
``partial_utf8``
    Byte tokens that are not valid UTF-8 on their own: pieces of multi-byte characters. The
    note names characters (from the vocabulary and the corpus) the piece is part of. Single
    bytes are the alphabet of a byte-level table and are not listed.
``intermediate``
    Needs a corpus. "Scaffold" tokens (Picky BPE, Chizhov et al. 2024): tokens that are parts
    of later merges and that the corpus's encoding shows inside longer tokens but never, or
    far less often, on their own. For every token *t*, ``inside(t)`` counts how often *t*
    sits in the merge tree of an emitted token (walking merges from the last rank down, so a
    token inside a token inside a token counts at every level). *t* is intermediate when
    ``emitted(t) / (emitted(t) + inside(t))`` is below :data:`SCAFFOLD_SHARE` (that share is
    Picky BPE's "intersection over self" turned around: the share of *t*'s occurrences where
    it stands alone).
``unused``
    Needs a corpus: tokens (special tokens excepted) the corpus's encoding never emits. The
    summary gives vocabulary utilization, the share of the vocabulary that is emitted at least
    once.
``duplicates``
    The same surface under two or more ids (decoding cannot tell them apart).
``contains_special``
    Ordinary tokens whose text contains a special token's text.
``whitespace_only``
    Tokens made of spaces, tabs and line breaks only.
``long``
    Tokens of :data:`LONG_TOKEN_CHARS` characters or more (often boilerplate or
    memorised strings from the training data).
``mixed_scripts``
    Tokens whose letters come from two or more scripts (Latin and Cyrillic look-alikes,
    fused words from scraped pages). Chinese characters, kana and hangul count as one group.
``superword``
    Tokens that span a space: whitespace between two other characters or after a word's
    letters or digits (``·by·the``, ``,·and``, ``the·``; :func:`~bpe_tui.core.engine.superwords.is_superword`). SuperBPE trains them on
    purpose; an ordinary pre-tokenizer never lets a merge make one.

Every token in a list comes with its merge tree (:func:`tree_text`). The corpus counts come
from :func:`bpe_tui.core.analysis.evaluate.evaluate` (its ``counts``), so the audit itself never reads
text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import regex

from ..engine.superwords import is_superword
from ..engine.units import visible
from ..tables.table import MergeNode, MergeTable
from ..types import Surface, SurfaceT

#: A token is "long" from this many characters on.
LONG_TOKEN_CHARS = 16
#: A part of later merges is intermediate when it stands alone in fewer than this share of
#: its occurrences in the corpus's encoding (Picky BPE removes tokens above IoS 0.9).
SCAFFOLD_SHARE = 0.1
#: Tokens checked between two progress reports.
PROGRESS_EVERY = 2000
#: Characters a partial-UTF-8 note names at most.
CHARACTERS_SHOWN = 6

#: Scripts told apart by ``mixed_scripts`` (the ones CJK writing mixes count as one).
SCRIPTS = [
    "Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Armenian", "Georgian", "Devanagari",
    "Bengali", "Gurmukhi", "Gujarati", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala",
    "Thai", "Lao", "Tibetan", "Myanmar", "Khmer", "Ethiopic", "Thaana", "Syriac",
]
CJK = ["Han", "Hiragana", "Katakana", "Hangul", "Bopomofo"]
_SCRIPT_RE = regex.compile(
    "|".join(f"(?P<{name}>\\p{{Script={name}}})" for name in SCRIPTS)
    + "|(?P<CJK>" + "|".join(f"\\p{{Script={name}}}" for name in CJK) + ")"
)
_LETTER = regex.compile(r"\p{L}")
_ASCII_LETTER = regex.compile(r"[A-Za-z]")

#: What each category means, in the order reports list them: (key, title, meaning).
CATEGORIES: list[tuple[str, str, str]] = [
    ("unreachable", "unreachable", "encoding the token's own text does not give the token"),
    ("unbuildable", "not buildable by merges", "no merge makes it; only a whole-piece lookup can emit it"),
    ("partial_utf8", "partial UTF-8", "byte pieces of characters, not decodable alone"),
    ("intermediate", "intermediate (scaffold)", "parts of later merges, (almost) never emitted alone on the corpus"),
    ("unused", "unused on the corpus", "never emitted when the corpus is encoded"),
    ("duplicates", "duplicates", "the same surface under two or more ids"),
    ("contains_special", "contain a special token's text", "ordinary tokens with a special token's text inside"),
    ("whitespace_only", "whitespace only", "spaces, tabs and line breaks only"),
    ("long", "very long", f"{LONG_TOKEN_CHARS} characters or more"),
    ("mixed_scripts", "mixed scripts", "letters from two or more scripts"),
    ("superword", "superwords", "span a space: whitespace inside, or after a word's letters (SuperBPE)"),
]
#: Categories that need a corpus.
CORPUS_CATEGORIES = ("intermediate", "unused")


class Cancelled(Exception):
    """Raised by :func:`audit` and :func:`bpe_tui.core.analysis.evaluate.evaluate` when their
    ``should_stop`` says so; nothing is returned."""


@dataclass(frozen=True)
class Category:
    """One audit category: its ids in id order, and a note per token where one helps."""

    key: str
    title: str
    meaning: str
    ids: tuple[int, ...]
    notes: Mapping[int, str] = field(default_factory=dict, compare=False)
    computed: bool = True  # False for corpus categories when no corpus was given

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Audit:
    """The audit of one table (optionally on one corpus)."""

    vocab_size: int
    categories: tuple[Category, ...]
    corpus_tokens: int | None = None  # tokens the corpus encodes to (None: no corpus)
    used: int | None = None  # distinct ids emitted on the corpus

    def __getitem__(self, key: str) -> Category:
        for category in self.categories:
            if category.key == key:
                return category
        raise KeyError(key)

    @property
    def utilization(self) -> float | None:
        """The share of the vocabulary emitted at least once on the corpus."""
        return None if self.used is None else self.used / max(1, self.vocab_size)

    def summary(self) -> dict[str, Any]:
        """Counts per category, vocabulary size, and utilization (for JSON and headers)."""
        out: dict[str, Any] = {"vocab_size": self.vocab_size}
        for c in self.categories:
            out[c.key] = len(c) if c.computed else None
        out["corpus_tokens"] = self.corpus_tokens
        out["used"] = self.used
        out["utilization"] = None if self.utilization is None else round(self.utilization, 6)
        return out


def audit(
    table: MergeTable,
    emitted: Mapping[int, int] | None = None,
    long_chars: int = LONG_TOKEN_CHARS,
    scaffold_share: float = SCAFFOLD_SHARE,
    corpus_chars: str = "",
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Audit:
    """Sort ``table``'s tokens into the categories of the module docstring.

    ``emitted`` maps token id -> how often encoding the corpus emitted it (the ``counts`` of
    :func:`bpe_tui.core.analysis.evaluate.evaluate`); without it the corpus categories are empty and
    marked not computed. ``corpus_chars`` adds characters partial-UTF-8 notes may name.
    The slow part is encoding every token's text: ``progress(done, total)`` reports it every
    :data:`PROGRESS_EVERY` tokens, and ``should_stop()`` is asked as often (true: raise
    :class:`Cancelled`).
    """
    vocab = table.vocab
    special = {i for i in vocab if table.is_special(i)}
    unbuildable = table.unbuildable_ids()
    texts = {i: _text(table, s) for i, s in vocab.items()}

    found: dict[str, list[int]] = {key: [] for key, _, _ in CATEGORIES}
    notes: dict[str, dict[int, str]] = {key: {} for key, _, _ in CATEGORIES}
    found["unbuildable"] = list(unbuildable)
    skip = special | set(unbuildable)
    ordered = sorted(vocab)
    for n, i in enumerate(ordered):
        if n % PROGRESS_EVERY == 0:
            if should_stop is not None and should_stop():
                raise Cancelled()
            if progress is not None:
                progress(n, len(ordered))
        if i not in skip and not table.encodes_to_itself(i):
            found["unreachable"].append(i)
    if progress is not None:
        progress(len(ordered), len(ordered))

    if table.units == "bytes":
        base = table.base_ids()
        partial = [i for i in sorted(vocab) if texts[i] is None and i not in base]
        found["partial_utf8"] = partial
        charset = {c for t in texts.values() if t for c in t if ord(c) > 127} | {c for c in corpus_chars if ord(c) > 127}
        pieces = _character_pieces(charset)
        for i in partial:
            notes["partial_utf8"][i] = characters_of(cast(bytes, _body(table, vocab[i])), pieces)

    by_surface: dict[Surface, list[int]] = {}
    for i in sorted(vocab):
        by_surface.setdefault(vocab[i], []).append(i)
    for ids in by_surface.values():
        if len(ids) > 1:
            for i in ids:
                found["duplicates"].append(i)
                notes["duplicates"][i] = "same as id " + ", ".join(str(j) for j in ids if j != i)
    found["duplicates"].sort()

    found["superword"] = superword_tokens(table, texts)
    special_texts = [s for s in table.special_tokens if len(s) > 1]
    for i in sorted(vocab):
        text = texts[i]
        if i in special or not text:
            continue
        inside = [s for s in special_texts if s in text]
        if inside:
            found["contains_special"].append(i)
            notes["contains_special"][i] = "contains " + ", ".join(inside)
        if not text.replace("\u2581", " ").strip():
            found["whitespace_only"].append(i)
        if len(text) >= long_chars:
            found["long"].append(i)
            notes["long"][i] = f"{len(text)} characters"
        scripts = scripts_of(text)
        if len(scripts) > 1:
            found["mixed_scripts"].append(i)
            notes["mixed_scripts"][i] = " + ".join(scripts)

    corpus_tokens = used = None
    if emitted is not None:
        corpus_tokens = sum(emitted.values())
        used = sum(1 for i, n in emitted.items() if n > 0 and i in vocab)
        found["unused"] = unused_tokens(table, emitted)
        for i, (alone, within) in intermediate_tokens(table, emitted, scaffold_share).items():
            found["intermediate"].append(i)
            notes["intermediate"][i] = f"alone {alone:,}×, inside longer tokens {within:,}×"

    categories = tuple(
        Category(key, title, meaning, tuple(found[key]), notes[key], emitted is not None or key not in CORPUS_CATEGORIES)
        for key, title, meaning in CATEGORIES
    )
    return Audit(len(vocab), categories, corpus_tokens, used)


def intermediate_tokens(
    table: MergeTable, emitted: Mapping[int, int], scaffold_share: float = SCAFFOLD_SHARE
) -> dict[int, tuple[int, int]]:
    """The ``intermediate`` (scaffold) tokens of the module docstring, in id order: token id ->
    ``(times emitted alone, times inside longer emitted tokens)`` on the corpus whose counts
    are ``emitted``. Only tokens of the vocabulary count: base symbols are the alphabet, not
    scaffolding, and a token PickyBPE removed for good is in merge trees but no longer in the
    vocabulary."""
    vocab = table.vocab
    inside_longer = inside_counts(table, emitted)
    parts = {p for a, b, _ in table.merge_ids for p in (a, b)}
    out: dict[int, tuple[int, int]] = {}
    for i in sorted(parts):
        if i not in vocab or table.rank_of(i) is None:
            continue
        alone, inside = emitted.get(i, 0), inside_longer.get(i, 0)
        if inside and alone < scaffold_share * (alone + inside):
            out[i] = (alone, inside)
    return out


def unused_tokens(table: MergeTable, emitted: Mapping[int, int]) -> list[int]:
    """The ``unused`` tokens of the module docstring, in id order: tokens of the vocabulary,
    special tokens excepted, that the corpus whose counts are ``emitted`` never gave."""
    return [i for i in sorted(table.vocab) if not table.is_special(i) and not emitted.get(i)]


def superword_tokens(table: MergeTable, texts: Mapping[int, str | None] | None = None) -> list[int]:
    """The ``superword`` tokens of the module docstring, in id order: ordinary tokens whose
    text (end-of-word marker off; byte pieces that are not UTF-8 have none) spans a space
    (:func:`~bpe_tui.core.engine.superwords.is_superword`). ``texts``: the tokens' texts when
    the caller has them already."""
    vocab = table.vocab
    if texts is None:
        texts = {i: _text(table, s) for i, s in vocab.items()}
    return [i for i in sorted(vocab) if not table.is_special(i) and (text := texts[i]) and is_superword(text)]


def inside_counts(table: MergeTable, emitted: Mapping[int, int]) -> dict[int, int]:
    """How often each token sits inside the merge trees of the emitted tokens.

    A token's occurrences are its emitted count plus its occurrences inside other tokens, and
    each occurrence of a token made by a merge is one occurrence of each of the merge's two
    parts (the merge that first makes it: :meth:`MergeTable.merge_tree`'s). So a token's
    total is known once every token whose merge holds it is done: the tokens are taken in
    that order (a topological order of the merge trees). Ranks do not give it: in a table
    converted from sentencepiece scores a merge may use a part that a later rank makes
    (Llama 2's ``" queen"``, rank 55,043, is made of ``"een"``, made at rank 56,276).
    """
    parts: dict[int, tuple[int, int]] = {}  # token -> the two parts of the merge that first makes it
    for rank in range(table.num_merges):
        a, b, new = table.merge_at(rank)
        if table.rank_of(new) == rank:
            parts[new] = (a, b)
    waiting = dict.fromkeys(parts, 0)  # token -> merges holding it not yet done
    for a, b in parts.values():
        for part in (a, b):
            if part in waiting:
                waiting[part] += 1
    ready = [t for t, n in waiting.items() if n == 0]
    inside: dict[int, int] = {}
    while ready:
        token = ready.pop()
        total = emitted.get(token, 0) + inside.get(token, 0)
        for part in parts[token]:
            if total:
                inside[part] = inside.get(part, 0) + total
            if part in waiting:
                waiting[part] -= 1
                if waiting[part] == 0:
                    ready.append(part)
    return inside


def tree_text(table: MergeTable, token_id: int) -> str:
    """A token's merge tree on one line: ``[[t h] e]`` reads "t + h, then + e"."""

    def walk(node: MergeNode) -> str:
        if node.left is None or node.right is None:  # a base symbol (a merge has both)
            return visible(node.surface, table.end_of_word)
        return f"[{walk(node.left)} {walk(node.right)}]"

    return walk(table.merge_tree(token_id))


def scripts_of(text: str) -> list[str]:
    """The scripts of a text's letters, in order of first appearance (CJK as one group)."""
    if text.isascii():  # (the letters of ASCII are Latin's A-Z and a-z: most tokens, at once)
        return ["Latin"] if _ASCII_LETTER.search(text) else []
    seen: list[str] = []
    for m in _SCRIPT_RE.finditer(text):
        name = m.lastgroup
        if name not in seen:
            seen.append(name)
    if not seen and _LETTER.search(text) is None:
        return []
    return seen


def characters_of(piece: bytes, pieces: Mapping[bytes, list[str]]) -> str:
    """Which characters a partial UTF-8 byte token is a piece of, as a short note.

    The bytes are read as: the end of a character (continuation bytes at the start), whole
    characters, and the start of a character (a lead byte whose sequence is cut off). Each
    cut-off part names the characters (from ``pieces``) whose UTF-8 holds it:
    ``b" \xe2\x80"`` is ``· + start of – — …``.
    """
    i = 0
    while i < len(piece) and piece[i] & 0xC0 == 0x80:
        i += 1
    j = len(piece)
    for k in range(len(piece) - 1, i - 1, -1):
        if piece[k] & 0xC0 != 0x80:  # the last lead (or ASCII) byte
            need = 2 if piece[k] < 0xE0 else 3 if piece[k] < 0xF0 else 4
            if piece[k] >= 0xC0 and len(piece) - k < need:
                j = k
            break
    if i == len(piece):  # continuation bytes only: the end or the middle of characters
        ends = all(c.encode("utf-8").endswith(piece) for c in pieces.get(piece, ["?"]))
        return ("end of " if ends else "inside ") + _names(piece, pieces)
    parts = []
    if i:
        parts.append("end of " + _names(piece[:i], pieces))
    if piece[i:j]:
        parts.append(visible(piece[i:j]))
    if j < len(piece):
        parts.append("start of " + _names(piece[j:], pieces))
    return " + ".join(parts)


def _names(part: bytes, pieces: Mapping[bytes, list[str]]) -> str:
    chars = pieces.get(part)
    if not chars:
        return "a character not seen in the vocabulary"
    more = f" (+{len(chars) - CHARACTERS_SHOWN} more)" if len(chars) > CHARACTERS_SHOWN else ""
    return " ".join(chars[:CHARACTERS_SHOWN]) + more


def _character_pieces(charset: set[str]) -> dict[bytes, list[str]]:
    """Every proper multi-byte piece of each character's UTF-8 -> the characters holding it."""
    out: dict[bytes, list[str]] = {}
    for c in sorted(charset):
        data = c.encode("utf-8")
        n = len(data)
        for i in range(n):
            for j in range(i + 1, n + 1):
                if j - i < n:
                    out.setdefault(data[i:j], []).append(c)
    return out


def _body(table: MergeTable, surface: Surface) -> Surface:
    """A surface without the end-of-word marker."""
    eow = table.end_of_word
    if eow and isinstance(surface, bytes):
        return _without_suffix(surface, eow.encode("utf-8"))
    if eow and isinstance(surface, str):
        return _without_suffix(surface, eow)
    return surface


def _without_suffix(surface: SurfaceT, marker: SurfaceT) -> SurfaceT:
    return surface[: -len(marker)] if surface.endswith(marker) and surface != marker else surface


def _text(table: MergeTable, surface: Surface) -> str | None:
    """A token's text (end-of-word marker off), or None for bytes that are not UTF-8."""
    body = _body(table, surface)
    if isinstance(body, str):
        return body
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


__all__ = [
    "Audit",
    "Cancelled",
    "Category",
    "CATEGORIES",
    "audit",
    "inside_counts",
    "intermediate_tokens",
    "unused_tokens",
    "superword_tokens",
    "tree_text",
    "scripts_of",
    "characters_of",
]

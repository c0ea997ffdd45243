"""The audit against brute force, on every real table in ../shared/tables.

Each category of :func:`bpe_tui.core.analysis.audit.audit` is worked out here again from its
definition, the slow and obvious way, with none of the audit's shortcuts: a token is
unreachable when encoding its own text does not give it back, a token is inside another when
it sits in that token's merge tree, and so on (``brute_force`` below, one block a category).
The audit on the table and on a corpus (taylorswift.txt) must list exactly the same ids in
every category. o200k's audit once said 0 unreachable tokens where there are 12: a whole-token
shortcut answered before the pre-tokenizer was asked whether the text stays one piece.

For the rank files, the unreachable tokens are also asked of tiktoken itself.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from collections.abc import Mapping

import pytest
import regex

import bpe_tui
from bpe_tui.core.analysis.audit import CATEGORIES, CJK, LONG_TOKEN_CHARS, SCAFFOLD_SHARE, SCRIPTS, audit
from bpe_tui.core.tables.table import MergeTable
from tests.conftest import SHARED, TAYLORSWIFT, need

TABLES = SHARED / "tables"

#: Every table in ../shared/tables, as a person opens it (a file, or a folder for the
#: formats whose table is two files).
REAL_TABLES = [
    "gpt2", "gpt2-openai", "cl100k/cl100k_base.tiktoken", "o200k/o200k_base.tiktoken", "llama3/tokenizer.model",
    "qwen2", "llama2-sp/tokenizer.model", "mistral-hf-v3/tokenizer.json", "roberta-bne", "roberta-bne/tokenizer.json",
    "gpt-neox20b/20B_tokenizer.json", "whisper-multilingual/multilingual.tiktoken", "minbpe-karpathy/basic.model",
    "minbpe-karpathy/regex.model", "minbpe-karpathy/regex_specials_1024.model", "subword-nmt-chuvash/bpe.codes",
]


def test_every_real_table_is_listed():
    """A table added to ../shared/tables is audited here too."""
    folders = {p.name for p in need(TABLES).iterdir() if p.is_dir()}
    assert folders == {name.split("/")[0] for name in REAL_TABLES}


# ---------------------------------------------------------------------- the definitions, slowly


def without_prefix_space(table: MergeTable) -> MergeTable:
    """The same table without the space sentencepiece-style tables put in front of a text:
    a token such as Llama 2's ``"the"`` (no ``▁``) stands inside a word, never at the start
    of a text, so its own text is encoded as the table encodes it there."""
    config = dict(table.config)
    config.pop("prepend_scheme", None)
    config.pop("prepend_space", None)
    normalizer = config.get("normalizer")
    if isinstance(normalizer, dict) and normalizer.get("add_dummy_prefix"):
        config["normalizer"] = dict(normalizer, add_dummy_prefix=False)
    if config == table.config:
        return table
    return MergeTable(table.units, table.vocab, table.merge_ids, table.special_tokens, table.pretokenizer,
                      table.end_of_word, table.lowercase, config=config, source_format=table.source_format)


def body(table: MergeTable, surface):
    """``(surface without the end-of-word marker, whether it had one)``."""
    marker = table.end_of_word
    if marker:
        marker = marker.encode() if isinstance(surface, bytes) else marker
        if surface.endswith(marker) and surface != marker:
            return surface[: -len(marker)], True
    return surface, False


def text_of(table: MergeTable, surface) -> str | None:
    """A token's text (no end-of-word marker), or None for bytes that are not UTF-8."""
    part, _ = body(table, surface)
    if isinstance(part, bytes):
        try:
            return part.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return part


class NaiveBPE:
    """BPE the textbook way: again and again, join the adjacent pair with the lowest rank
    (the leftmost on a tie). A rank file's rank of a pair is the rank of the token the pair's
    bytes make (tiktoken's rule); a merge list's is the first merge of the pair's two ids."""

    def __init__(self, table: MergeTable) -> None:
        self.by_token_rank = table.by_token_rank
        vocab = table.vocab  # (a copy each time it is asked for)
        self.first_id: dict = {}
        for i in sorted(vocab):
            if not table.is_special(i):
                self.first_id.setdefault(vocab[i], i)
        self.merges: dict = {}
        for rank, (a, b, new) in enumerate(table.merge_ids):
            self.merges.setdefault((a, b), (rank, new))

    def rank(self, a, b) -> int | None:
        if self.by_token_rank:
            return self.first_id.get(a + b)
        return self.merges.get((a, b), (None,))[0]

    def join(self, a, b):
        return a + b if self.by_token_rank else self.merges[(a, b)][1]

    def __call__(self, units: list) -> list[int]:
        """The ids ``units`` (bytes or characters) merge into."""
        symbols = list(units) if self.by_token_rank else [self.first_id[u] for u in units]
        while len(symbols) > 1:
            found = [(r, k) for k in range(len(symbols) - 1) if (r := self.rank(symbols[k], symbols[k + 1])) is not None]
            if not found:
                break
            _, k = min(found)
            symbols[k : k + 2] = [self.join(symbols[k], symbols[k + 1])]
        return [self.first_id[s] for s in symbols] if self.by_token_rank else symbols


_SCRIPT_PATTERNS = [(name, regex.compile(rf"\p{{Script={name}}}")) for name in SCRIPTS] + [
    ("CJK", regex.compile(rf"\p{{Script={name}}}")) for name in CJK
]


@functools.lru_cache(maxsize=None)
def script_of(character: str) -> str | None:
    return next((name for name, pattern in _SCRIPT_PATTERNS if pattern.fullmatch(character)), None)


def is_word_character(c: str) -> bool:
    return unicodedata.category(c)[0] in "LNM"


def spans_a_space(text: str) -> bool:
    """Whitespace after a word's letters or digits (``the·``), or between a character and a
    word (``,·and``); a leading space (``·the``) is not one."""
    for k, c in enumerate(text):
        if not c.isspace() or k == 0 or text[k - 1].isspace():
            continue
        before = text[:k].split()[-1]  # the run of non-space characters just before
        after = text[k:].lstrip()
        if any(map(is_word_character, before)) or (after and is_word_character(after[0])):
            return True
    return False


def brute_force(table: MergeTable, emitted: Mapping[int, int]) -> dict[str, list[int]]:
    """Every audit category of ``table`` (on a corpus whose encoding emitted ``emitted``),
    each from its definition."""
    vocab = table.vocab
    ids = sorted(vocab)
    special = {i for i in ids if table.is_special(i)}
    first_made: dict[int, tuple[int, int]] = {}  # token -> parts of the first merge making it
    for a, b, new in table.merge_ids:
        first_made.setdefault(new, (a, b))
    naive_bpe = NaiveBPE(table)
    first_id = naive_bpe.first_id  # surface -> its (first) id

    def is_base(i: int) -> bool:  # a single byte, a single character, the end-of-word marker
        s = vocab[i]
        if table.units == "bytes":
            return len(s) == 1 and first_id[s] == i
        return (len(s) == 1 or s == table.end_of_word) and i not in first_made

    base = {i for i in ids if i not in special and is_base(i)}
    texts = {i: text_of(table, vocab[i]) for i in ids}
    found: dict[str, list[int]] = {}

    found["unbuildable"] = [i for i in ids if i not in special and i not in base and i not in first_made]

    # Unreachable: encode(decode([id])) != [id]. A token with no text of its own (the inside
    # of a word in an end-of-word table, a piece of a character) is merged from its units.
    plain = without_prefix_space(table)
    left_out = special | base | set(found["unbuildable"])
    unreachable = []
    for i in ids:
        if i in left_out:
            continue
        part, whole_word = body(table, vocab[i])
        text = texts[i]
        if text is not None and (whole_word or table.end_of_word is None):
            if plain.encode(plain.decode([i], errors="strict")) != [i]:
                unreachable.append(i)
            continue
        units = [part[k : k + 1] for k in range(len(part))] if isinstance(part, bytes) else list(part)
        one_piece = text is None or plain.pretokenize(text) == [(False, text)]
        if not one_piece or naive_bpe(units) != [i]:
            unreachable.append(i)
    found["unreachable"] = unreachable

    if table.units == "bytes":
        found["partial_utf8"] = [i for i in ids if texts[i] is None and len(body(table, vocab[i])[0]) > 1]
    else:
        found["partial_utf8"] = []

    found["unused"] = [i for i in ids if i not in special and not emitted.get(i)]

    # Intermediate: a token made by a merge and used in merges, found in the merge trees of
    # the emitted tokens, and alone in fewer than SCAFFOLD_SHARE of its occurrences.
    below: dict[int, Counter] = {}  # token -> how often each token sits in its merge tree

    def tree_counts(token: int) -> Counter:
        todo = [token]
        while todo:
            t = todo[-1]
            missing = [p for p in first_made.get(t, ()) if p not in below]
            if missing:
                todo += missing
                continue
            counts: Counter = Counter()
            for p in first_made.get(t, ()):
                counts[p] += 1
                counts.update(below[p])
            below[t] = counts
            todo.pop()
        return below[token]

    inside: Counter = Counter()
    for token, n in emitted.items():
        for t, k in tree_counts(token).items():
            inside[t] += k * n
    parts = {p for a, b, _ in table.merge_ids for p in (a, b)}
    found["intermediate"] = [
        i for i in ids if i in parts and i in first_made and inside[i]
        and emitted.get(i, 0) < SCAFFOLD_SHARE * (emitted.get(i, 0) + inside[i])
    ]

    surfaces = Counter(vocab.values())
    found["duplicates"] = [i for i in ids if surfaces[vocab[i]] > 1]

    ordinary = [i for i in ids if i not in special and texts[i]]
    special_texts = [s for s in table.special_tokens if len(s) > 1]
    found["contains_special"] = [i for i in ordinary if any(s in texts[i] for s in special_texts)]
    found["whitespace_only"] = [i for i in ordinary if all(c.isspace() or c == "\u2581" for c in texts[i])]
    found["long"] = [i for i in ordinary if len(texts[i]) >= LONG_TOKEN_CHARS]
    found["mixed_scripts"] = [
        i for i in ordinary if len({script_of(c) for c in texts[i] if unicodedata.category(c)[0] == "L"} - {None}) > 1
    ]
    found["superword"] = [i for i in ordinary if spans_a_space(texts[i])]
    return found


# ---------------------------------------------------------------------- the checks


@pytest.fixture(scope="module")
def corpus() -> str:
    return need(TAYLORSWIFT).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", REAL_TABLES)
def test_every_category_agrees_with_brute_force(name, corpus):
    table = bpe_tui.load(str(need(TABLES / name)))
    emitted = Counter(table.encode(corpus))
    report = audit(table, emitted)
    expected = brute_force(table, emitted)
    assert sorted(expected) == sorted(key for key, _, _ in CATEGORIES)  # every category is checked
    vocab = table.vocab
    for key in expected:
        ours = list(report[key].ids)
        if ours != expected[key]:
            missed = sorted(set(expected[key]) - set(ours))[:5]
            extra = sorted(set(ours) - set(expected[key]))[:5]
            raise AssertionError(
                f"{name}: {key}: the audit lists {len(ours):,}, brute force {len(expected[key]):,}; "
                f"missed {[(i, vocab[i]) for i in missed]}, wrongly listed {[(i, vocab[i]) for i in extra]}"
            )


def test_o200k_has_twelve_unreachable_tokens():
    """GPT-4o's regex cuts ``" I'"`` (a rank) before the apostrophe: it encodes as two tokens."""
    table = bpe_tui.load(str(need(TABLES / "o200k/o200k_base.tiktoken")))
    unreachable = audit(table)["unreachable"].ids
    assert len(unreachable) == 12 and 3413 in unreachable
    assert table.decode([3413]) == " I'" and table.encode(" I'") == [357, 6]


@pytest.mark.parametrize("name", ["cl100k", "o200k", "llama3", "whisper"])
def test_unreachable_tokens_of_rank_files_as_tiktoken_finds_them(name, monkeypatch):
    """The tokens whose text tiktoken (with the publisher's regex and special tokens) does not
    encode to themselves are the audit's unreachable ones with a text of their own. (No rank
    holds a special token's text, so ``encode_ordinary`` gives what ``encode`` would, without
    looking for 1,600 special tokens in every one of 200,000 texts.)"""
    from tests.interop.test_real_tables import CASES

    path = need(TABLES / CASES[name][0])
    enc = CASES[name][1](path, monkeypatch)
    table = bpe_tui.load(str(path))
    reference = []
    for i in range(enc.n_vocab):
        if i in enc._special_tokens.values():
            continue
        try:
            text = enc.decode_single_token_bytes(i).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            continue  # no such rank, or a piece of a character (no text of its own)
        assert not any(s in text for s in enc.special_tokens_set)
        if text and enc.encode_ordinary(text) != [i]:  # (Whisper's empty rank has no text either)
            reference.append(i)
    vocab = table.vocab
    ours = [i for i in audit(table)["unreachable"].ids if text_of(table, vocab[i]) is not None]
    assert ours == reference

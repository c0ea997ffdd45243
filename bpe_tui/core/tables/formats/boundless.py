"""BoundlessBPE's ``.model`` file (``word v1``): what the authors' trainer saves and their
inference loads (github kensho-technologies/boundlessbpe; the models of their paper are in its
``models/``).

::

    word v1
    "<the pre-tokenizer regex, as a JSON string>"
    <n>                       then n lines  <id> <token>             the vocabulary
    <n>                       then n lines  <id> <special token>     (as it is, not spelled)
    <n>                       then n lines  <event> <left> <right>   word merges
    <n>                       then n lines  <event> <token>          word deletions
    <n>                       then n lines  <event> <left> <right>   supermerges
    <n>                       then n lines  <event> <token>          superword deletions (none)

Tokens are spelled in GPT-2's byte-to-character map (``Ġ`` is a space), so no token holds a
space. The four event sections share one numbering: together their indices run 0, 1, 2, ...
in the order the trainer made them, and the inference replays them in that order (see
:mod:`~bpe_tui.core.tables.boundless`). The vocabulary keeps every token ever made, the deleted
ones too, with the ids the trainer gave them (the 256 bytes, then one per merge, in order).

Read as a bytes table whose merge list holds the word merges and the supermerges in event
order (``config["supermerges"]`` says which are supermerges), the deletions as
``config["removals"]``. A deleted token splits into its bytes (the paper's rule, and the
default of the authors' ``encode_ordinary``) or into the pair that made it (their ablation,
``blowup=False``); the file does not say which. The reader takes the pair where the file's
name says so by the authors' naming (``boundless_<lines>_<bytes>_<vocab>_<tau>_<recalc>_<pattern>_0[_<size>].model``:
the 0 is ``blowup``), bytes otherwise, and its notes say which it took; ``read(path,
deletions="pair")`` decides it.
"""

from __future__ import annotations

import json
import os
import re
from typing import Final

from ...atomic import atomic_write_text
from ...engine.units import bytes_to_gpt2_str, bytes_to_unicode
from ...errors import BPEError
from ...text.boundless_rules import MERGE_PATTERN
from ..table import MergeTable
from ._shared import fail, pattern_name, pattern_text, read_head, short

NAME: Final = "boundless"
MAGIC = "word v1"
#: How a deleted token splits: into its bytes, or into the pair that made it.
DELETIONS = ("bytes", "pair")
#: The authors' model names: ..._<pattern>_<blowup>[_<vocabulary size>].model
_AUTHORS_NAME = re.compile(r"^boundless_\d+_\d+_\d+_[\d.]+_\d+_[A-Za-z0-9]+_([01])(?:_\d+)?\.model$")
#: GPT-2's characters -> the bytes they stand for, as a str.translate table (then Latin-1),
#: and the characters it spells with.
_UNSPELL = {ord(c): b for b, c in bytes_to_unicode().items()}
_SPELLING = frozenset(bytes_to_unicode().values())
#: A section's lines, joined: ``<index> <token>`` or ``<index> <token> <token>`` each.
_ROWS = {2: re.compile(r"(?:\d+ [^ \n]+\n)*"), 3: re.compile(r"(?:\d+ [^ \n]+ [^ \n]+\n)*")}
_SECTIONS = ("vocabulary entries", "special tokens", "word merges", "word deletions", "supermerges", "superword deletions")


def sniff(path: str) -> bool:
    head = read_head(path, 64)
    return re.match(rb"word v\d+\r?\n", head) is not None


def deletions_of(path: str) -> str | None:
    """How the authors' name for a model file says its deletions split (None: it does not say)."""
    found = _AUTHORS_NAME.match(os.path.basename(path))
    return None if found is None else ("bytes" if found.group(1) == "1" else "pair")


class _Lines:
    """The file's lines with a cursor, for reading its sections in order."""

    def __init__(self, path: str, lines: list[str]):
        self.path, self.lines, self.next = path, lines, 2

    def count(self, section: str) -> tuple[int, int]:
        """The number that starts a section, and its line number."""
        lineno = self.next + 1
        if self.next >= len(self.lines):
            raise fail(self.path, f"line {lineno}", f"the file ends before the number of {section} (truncated?)")
        text = self.lines[self.next]
        if not text.isdigit():
            raise fail(self.path, f"line {lineno}", f"expected the number of {section}, found {short(text)}")
        self.next += 1
        return int(text), lineno

    def entries(self, n: int, fields: int, section: str, announced: int) -> tuple[list[int], list[list[str]]]:
        """The indices of a section's ``n`` lines and their other fields (checked at once, in C)."""
        have = len(self.lines) - self.next
        if have < n:
            raise fail(self.path, f"line {len(self.lines) + 1}", f"the file ends early: line {announced} announces {n:,} {section}, {have:,} follow (truncated?)")
        block = self.lines[self.next : self.next + n]
        if not _ROWS[fields].fullmatch("".join(line + "\n" for line in block)):
            shape = {"vocabulary entries": "<id> <token>", "special tokens": "<id> <special token>"}.get(section, "<event> <left> <right>" if fields == 3 else "<event> <token>")
            bad = next(k for k, line in enumerate(block) if not _ROWS[fields].fullmatch(line + "\n"))
            raise fail(self.path, f"line {self.next + bad + 1}", f"expected '{shape}' ({section}), found {short(block[bad])}")
        rows = [line.split(" ") for line in block]
        self.next += n
        return [int(r[0]) for r in rows], [r[1:] for r in rows]


def read(path: str, deletions: str | None = None) -> MergeTable:
    """The table in a ``word v1`` file; ``deletions`` (``"bytes"`` or ``"pair"``) says how its
    deleted tokens split, where the file's name does not (see the module docstring)."""
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].rstrip("\r") != MAGIC:
        found = short(lines[0]) if lines else "an empty file"
        raise fail(path, "line 1", f"expected the version line {MAGIC!r}, found {found} (this reader reads {MAGIC})")
    if any(line.endswith("\r") for line in lines):
        lines = [line.rstrip("\r") for line in lines]
    if len(lines) < 2:
        raise fail(path, "line 2", "the file ends before the pre-tokenizer line (truncated?)")
    try:
        pattern = json.loads(lines[1])
    except json.JSONDecodeError:
        pattern = None
    if not isinstance(pattern, str):
        raise fail(path, "line 2", f"expected the pre-tokenizer regex as a JSON string, found {short(lines[1])}")
    cursor = _Lines(path, lines)
    n, at = cursor.count(_SECTIONS[0])
    ids, fields = cursor.entries(n, 2, _SECTIONS[0], at)
    spellings = [f[0] for f in fields]
    vocab: dict[int, bytes | str] = {}
    token_id: dict[bytes, int] = {}
    by_spelling: dict[str, bytes] = {}
    for k, (i, token) in enumerate(zip(ids, spellings)):
        if not _SPELLING.issuperset(token):
            raise fail(path, f"line {at + 1 + k}", f"token {short(token)} is not spelled in GPT-2's byte-to-character map")
        surface = token.translate(_UNSPELL).encode("latin-1")
        if i in vocab or surface in token_id:
            other = spellings.index(token) if surface in token_id else ids.index(i)
            what = f"token {short(token)} is listed twice" if surface in token_id else f"id {i} is given twice"
            raise fail(path, f"line {at + 1 + k}", f"{what} (also line {at + 1 + other})")
        vocab[i] = by_spelling[token] = surface
        token_id[surface] = i
    missing = [b for b in range(256) if bytes([b]) not in token_id]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise fail(path, f"line {at}", f"the vocabulary lacks the byte 0x{missing[0]:02X}{more} (every byte must be a token)")
    n, at = cursor.count(_SECTIONS[1])
    specials: dict[str, int] = {}
    for k, (i, (text,)) in enumerate(zip(*cursor.entries(n, 2, _SECTIONS[1], at))):
        if i in vocab:
            raise fail(path, f"line {at + 1 + k}", f"special token {short(text)} has id {i}, which a vocabulary token has")
        specials[text] = i
        vocab[i] = text.encode("utf-8")
    events: list[tuple[int, int, str, list[str]]] = []  # (index, line, kind, tokens as spelled)
    counts: dict[str, tuple[int, int]] = {}
    for section, kind, width in zip(_SECTIONS[2:], ("word", "deletion", "super", "superdeletion"), (3, 2, 3, 2)):
        n, at = counts[kind] = cursor.count(section)
        indices, tokens = cursor.entries(n, width, section, at)
        events += zip(indices, range(at + 1, at + 1 + n), [kind] * n, tokens)
    if cursor.next < len(lines):
        raise fail(path, f"line {cursor.next + 1}", f"unexpected text after the last section: {short(lines[cursor.next])}")
    n, at = counts["superdeletion"]
    if n:
        raise fail(path, f"line {at}", f"{n:,} superword deletions: the authors' inference refuses them (it supports none), and so does this reader")
    events.sort()
    for k, (i, lineno, _, _) in enumerate(events):
        if i != k:
            if k and events[k - 1][0] == i:
                raise fail(path, f"line {lineno}", f"event {i} is numbered twice (also line {events[k - 1][1]}): the event sections' indices must run 0, 1, 2, ... together")
            last, where = events[-1][0], events[-1][1]
            raise fail(path, f"line {where}", f"event {last} is out of sequence: the {len(events):,} events of the four sections must be numbered 0 to {len(events) - 1:,} together, and event {k} is missing")
    mode = deletions or deletions_of(path) or "bytes"
    if mode not in DELETIONS:
        raise BPEError(f"deletions must be one of {', '.join(DELETIONS)}, not {mode!r}")
    table = _events_table(path, pattern, vocab, token_id, by_spelling, specials, events, mode)
    how = "as asked" if deletions is not None else "as the file's name says, by the authors' naming" if deletions_of(path) else "by default: the file does not say"
    twice = table.config.pop("deleted_twice", 0)
    table.config["notes"] = [
        f"read from a BoundlessBPE model (kensho-technologies/boundlessbpe): {table.num_merges - len(table.supermerges):,} word merges, "
        f"{len(table.supermerges):,} supermerges, {len(table.removals):,} deletions, each deleted token split into "
        f"{'its bytes' if mode == 'bytes' else 'the pair that made it'} ({how})",
    ]
    if twice:
        table.config["notes"].append(
            f"{twice:,} token{'s are' if twice != 1 else ' is'} deleted twice in the file; each is deleted at its last deletion only, "
            "as the authors' inference does (it keeps one deletion per token)"
        )
    return table


def _events_table(
    path: str, pattern: str, vocab: dict[int, bytes | str], token_id: dict[bytes, int], by_spelling: dict[str, bytes],
    specials: dict[str, int], events: list[tuple[int, int, str, list[str]]], mode: str,
) -> MergeTable:
    """The table of a file's events, each checked in order: a merge joins two tokens made
    before it into a token of the vocabulary that no event made before; a deletion splits a
    token a word merge made, right after a merge (two at most)."""
    made: dict[bytes, tuple[int, str, tuple[int, int] | None]] = {bytes([b]): (-1, "byte", None) for b in range(256)}
    merges: list[tuple[int, int, int]] = []
    supermerges: list[int] = []
    removals: list[list | None] = []
    #: token -> its deletion's place in removals. The authors' inference keeps one deletion per
    #: token, the last in the file (it maps each deleted token to one event index), so a token
    #: deleted twice (trained with deletions into the pair, which can bring a deleted token
    #: back) is deleted at its last deletion only, here too.
    deleted_at: dict[bytes, int] = {}
    twice: set[bytes] = set()
    after = 0  # deletions since the last merge
    for index, lineno, kind, tokens in events:
        what = "a supermerge" if kind == "super" else "a word merge" if kind == "word" else "a deletion"
        parts = []
        for shown in tokens:
            surface = by_spelling.get(shown)
            if surface is None:
                raise fail(path, f"line {lineno}", f"{what} names token {short(shown)}, which is not in the vocabulary")
            if surface not in made:
                raise fail(path, f"line {lineno}", f"{what} (event {index}) names token {short(shown)} before any event makes it")
            parts.append(surface)
        if kind != "deletion":
            a, b = parts
            new = a + b
            if new not in token_id:
                raise fail(path, f"line {lineno}", f"{what} of {short(tokens[0])} and {short(tokens[1])} makes {short(bytes_to_gpt2_str(new))}, which is not in the vocabulary")
            if new in made:
                raise fail(path, f"line {lineno}", f"{what} makes {short(bytes_to_gpt2_str(new))}, which event {made[new][0]} made already")
            made[new] = (index, kind, (token_id[a], token_id[b]))
            merges.append((token_id[a], token_id[b], token_id[new]))
            if kind == "super":
                supermerges.append(len(merges))
            after = 0
            continue
        token = parts[0]
        if not merges:
            raise fail(path, f"line {lineno}", f"a deletion (event {index}) before any merge")
        maker = made[token][1]
        if maker != "word":
            raise fail(path, f"line {lineno}", f"deletes {short(tokens[0])}, which {'a supermerge made' if maker == 'super' else 'is a byte'}: a deletion splits a token a word merge made")
        after += 1
        if after > 2:
            raise fail(path, f"line {lineno}", "a third deletion after one merge (the trainer deletes at most the two tokens a merge joined)")
        pair = made[token][2]
        assert pair is not None
        if token in deleted_at:  # deleted again (a split into the pair brought it back): only the last counts
            removals[deleted_at[token]] = None
            twice.add(token)
        deleted_at[token] = len(removals)
        removals.append([len(merges), token_id[token], [token_id[token[x : x + 1]] for x in range(len(token))] if mode == "bytes" else list(pair)])
    config = {
        "supermerges": supermerges, "removals": [r for r in removals if r is not None], "deletions": mode, "merge_pattern": MERGE_PATTERN,
        "deleted_twice": len(twice),
    }
    try:
        return MergeTable("bytes", vocab, merges, specials, pretokenizer=pattern_name(pattern), config=config, source_format=NAME, source=path)
    except BPEError as exc:
        raise fail(path, None, str(exc)) from None


def problems(table: MergeTable) -> list[str]:
    """What stops ``table`` from being written so that the authors' inference encodes it as
    bpe-tui does (empty: nothing)."""
    out = []
    if table.units != "bytes":
        return ["it is a chars table (the format holds byte-level tables)"]
    if table.end_of_word is not None or table.word_start is not None:
        out.append("it puts a marker at the end or start of each word, which the authors' inference does not")
    if table.lowercase or table.options.normalizer is not None or table.prefix_space is not None:
        out.append("it changes the text before splitting it (lowercase, a normalizer or a prefix space), which the authors' inference does not")
    try:
        pattern = pattern_text(table.pretokenizer)
        if "\n" in json.dumps(pattern):
            out.append("its pre-tokenizer cannot be written on one line")
    except BPEError as exc:
        out.append(str(exc))
    for s in table.special_tokens:
        if not s or any(c.isspace() for c in s):
            out.append(f"special token {s!r} is empty or holds whitespace, which the format's lines cannot")
    vocab = {**table.vocab, **{i: table.surface(i) for i in table.removed}}
    made = {new: (a, b) for a, b, new in reversed(table.merge_ids)}
    seen: dict[int, int] = {}
    for k, token, _ in table.removals:
        if token in seen:
            out.append(
                f"it deletes {vocab[token]!r} twice (after merges {seen[token]:,} and {k:,}), and the authors' inference keeps one "
                "deletion per token (the last): it would encode otherwise (save as native)"
            )
            break
        seen[token] = k
    for k, token, parts in table.removals:
        surface = vocab[token]
        if isinstance(surface, bytes) and list(parts) != [table.token_id(bytes([x])) for x in surface] and tuple(parts) != made.get(token):
            out.append(f"the removal after merge {k} splits {surface!r} into neither its bytes nor the pair that made it")
            break
    return out


def losses(table: MergeTable) -> list[str]:
    out = problems(table)
    if table.counts:
        out.append("per-merge counts are not stored in a word v1 .model")
    if table.removals:
        out.append(f"the file does not record how deleted tokens split (here: {_mode(table)}); the authors' inference takes blowup={_mode(table) == 'bytes'}")
    if table.by_token_rank or table.ignore_merges:
        out.append("the table encodes by token rank or takes a pre-token that is a token whole; the authors' inference replays the merge list in order")
    return out


def _mode(table: MergeTable) -> str:
    mode = table.config.get("deletions")
    return mode if mode in DELETIONS else "bytes"


def write(table: MergeTable, path: str, overwrite: bool = True) -> None:
    found = problems(table)
    if found:
        raise BPEError(f"the {NAME} format cannot hold this table so that the authors' inference encodes it as bpe-tui does: {found[0]}")
    specials = set(table.special_tokens.values())
    vocab = {**table.vocab, **{i: table.surface(i) for i in table.removed}}
    words = [(i, bytes_to_gpt2_str(s)) for i, s in sorted(vocab.items()) if i not in specials]  # type: ignore[arg-type]
    supermerges = set(table.supermerges)
    after: dict[int, list[int]] = {}
    for k, token, _ in table.removals:
        after.setdefault(k, []).append(token)
    sections: list[list[str]] = [[], [], [], []]  # word merges, word deletions, supermerges, superword deletions
    index = 0
    for rank, (a, b, _) in enumerate(table.merge_ids, start=1):
        sections[2 if rank in supermerges else 0].append(f"{index} {bytes_to_gpt2_str(vocab[a])} {bytes_to_gpt2_str(vocab[b])}")  # type: ignore[arg-type]
        index += 1
        for token in after.get(rank, []):
            sections[1].append(f"{index} {bytes_to_gpt2_str(vocab[token])}")  # type: ignore[arg-type]
            index += 1
    out = [MAGIC, json.dumps(pattern_text(table.pretokenizer)), str(len(words))]
    out += [f"{i} {s}" for i, s in words]
    out += [str(len(table.special_tokens))] + [f"{i} {s}" for s, i in table.special_tokens.items()]
    for lines in sections:
        out += [str(len(lines))] + lines
    atomic_write_text(path, "\n".join(out) + "\n", overwrite)

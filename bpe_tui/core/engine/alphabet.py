"""The base alphabet of a fresh training run: which symbols words start as, and their ids.

Before the first merge every word is a sequence of base symbols, and every symbol needs an id.
Which symbols, and in what order, is a config's choice:

* **bytes**: the 256 byte values, a byte's id being its value (GPT-2 and every byte-level
  tokenizer since), then an end-of-word marker's own id if there is one, then the special
  tokens;
* **chars**, ``alphabet="code-point"``: the corpus's characters sorted by code point, then the
  end-of-word marker, then the special tokens;
* **chars**, ``alphabet="first-seen"``: the special tokens first, then the characters in the
  order the corpus first shows them, words read in order, each left to right (PickyBPE's
  reference numbers its tokens so, and its model files keep these ids).

Two more settings change the symbols themselves. ``word_start`` puts its text in front of every
word (``▁the``: the word began after a space), as ordinary characters. ``character_coverage``
leaves the rarest characters out, as PickyBPE's reference does after sentencepiece: with the
characters counted over the corpus (``▁`` included) and sorted by count, most first (equal
counts in order of first appearance), the rarest ones whose counts sum to less than
``round(coverage × total)`` below the total are dropped, and each of their occurrences becomes
the special token ``unk_token``, which never merges. (When even the rarest character alone
reaches that amount, the reference drops *every* character, a slip of ``list[-0:]``, and its
training then fails; here nothing is dropped.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from .config import TrainerConfig
from .speed import convert_all, utf8_as_ids

__all__ = ["Alphabet", "fresh_alphabet", "left_out_characters"]


class Alphabet(NamedTuple):
    """A fresh run's ids, and its words spelled with them.

    surfaces:    id -> surface, for the base symbols and the special tokens
    base_count:  how many base symbols (the rest of ``surfaces`` are special tokens)
    special_ids: special token -> id
    words:       each word as an id string (see :mod:`~bpe_tui.core.engine.speed`), with
                 ``word_start`` in front and the end-of-word marker after
    unknown:     the id that stands for a character left out (``unk_token``'s), or None
    left_out:    the characters left out by ``character_coverage``, rarest first
    """

    surfaces: list
    base_count: int
    special_ids: dict[str, int]
    words: list[str]
    unknown: int | None
    left_out: list[str]


def fresh_alphabet(texts: Sequence[str], counts: Sequence[int], config: TrainerConfig) -> Alphabet:
    """The alphabet of ``texts`` (the distinct words, in order of first appearance, with their
    ``counts``) under ``config``'s units, ``alphabet``, ``word_start``, end-of-word marker,
    special tokens and ``character_coverage``."""
    eow, head = config.end_of_word, config.word_start or ""
    if config.units == "bytes":
        base: list = [bytes([i]) for i in range(256)] + ([eow.encode("utf-8")] if eow is not None else [])
        surfaces = base + [s.encode("utf-8") for s in config.special_tokens]
        special_ids = {s: len(base) + k for k, s in enumerate(config.special_tokens)}
        # latin-1 turns the UTF-8 bytes into ids, once over all the words (convert_all)
        words = convert_all(list(texts), utf8_as_ids, "\x00")
        if head:
            start = utf8_as_ids(head)
            words = [start + w for w in words]
        return Alphabet(surfaces, len(base), special_ids, _with_tail(words, eow, 256), None, [])
    left_out = left_out_characters(texts, counts, head, config.character_coverage) if config.character_coverage is not None else []
    dropped = set(left_out)
    if config.alphabet == "first-seen":
        seen = dict.fromkeys(head + "".join(texts))
        chars = [ch for ch in seen if ch not in dropped] + ([eow] if eow is not None else [])
        specials = list(config.special_tokens)
        surfaces = specials + chars
        special_ids = {s: k for k, s in enumerate(specials)}
        first_char = len(specials)
    else:
        found: set[str] = set(head)
        for word in texts:
            found.update(word)
        chars = sorted((found - dropped) | ({eow} if eow is not None else set()))
        surfaces = chars + list(config.special_tokens)
        special_ids = {s: len(chars) + k for k, s in enumerate(config.special_tokens)}
        first_char = 0
    unknown = special_ids[config.unk_token] if config.unk_token is not None else None
    to_ids = {ord(ch): chr(first_char + k) for k, ch in enumerate(chars) if len(ch) == 1 and ch != eow}
    if unknown is not None:
        to_ids.update({ord(ch): chr(unknown) for ch in dropped})
    words = convert_all(list(texts), lambda text: text.translate(to_ids), "\U0010ffff")
    if head:
        start = head.translate(to_ids)
        words = [start + w for w in words]
    eow_id = first_char + chars.index(eow) if eow is not None else None
    return Alphabet(surfaces, len(chars), special_ids, _with_tail(words, eow, eow_id), unknown, left_out)


def _with_tail(words: list[str], eow: str | None, eow_id: int | None) -> list[str]:
    """The words with the end-of-word marker's id after each (when there is one)."""
    if eow is None or eow_id is None:
        return words
    tail = chr(eow_id)
    return [w + tail for w in words]


def left_out_characters(texts: Sequence[str], counts: Sequence[int], head: str, coverage: float) -> list[str]:
    """The characters ``character_coverage`` leaves out, rarest first (see the module's
    docstring; PickyBPE's ``BPE._filter_characters``)."""
    totals: Counter[str] = Counter()
    for ch in head:  # (the marker's characters first: the reference reads "▁" + word)
        totals[ch] += 0
    for text, count in zip(texts, counts):
        for ch, n in Counter(head + text).items():
            totals[ch] += n * count
    corpus_size = sum(totals.values())
    to_remove = corpus_size - round(coverage * corpus_size)
    if to_remove <= 0:
        return []
    rarest_last = totals.most_common()  # most first; equal counts in order of first appearance
    dropped = 0
    running = 0
    for _, n in reversed(rarest_last):  # how many of the rarest sum to less than to_remove
        running += n
        if running >= to_remove:
            break
        dropped += 1
    return [ch for ch, _ in reversed(rarest_last[len(rarest_last) - dropped :])] if dropped else []

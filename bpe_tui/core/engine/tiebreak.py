"""Tie-break rules: which pair BPE merges when several share the highest count.

Every tool breaks ties its own way, so the trainer offers each tool's rule (their names:
:data:`~bpe_tui.core.types.TIE_BREAKS`), and this module is the one place each is defined: the
order it puts pairs in, and the sentence that says why the winner won (:attr:`MergeEvent.explanation <bpe_tui.core.engine.events.MergeEvent.explanation>`).

* ``first-seen``   the pair that occurs first, reading the words in order of first appearance
                   (what Python's ``max`` over an insertion-ordered dict does; minbpe)
* ``lexical-min``  the smallest ``(left, right)``, compared as bytes (the Rust tutorial's sort)
* ``lexical-max``  the greatest ``(left, right)``, compared as bytes (CS336; subword-nmt)
* ``hf``           Hugging Face tokenizers: the smallest ``(left_id, right_id)``, where the ids
                   are the special tokens, then the alphabet sorted by code point, then merged
                   tokens in creation order
* ``rustbpe``      nanochat's rustbpe: the smallest ``(left_id, right_id)``, where a byte's id
                   is its value and merged tokens follow in creation order (merge n makes id
                   255 + n). Only the order of the 256 bytes differs from ``hf``: there a
                   space is ``Ġ`` (U+0120), after every letter; here it is 32, before them
* ``picky``        PickyBPE's reference: the pair that entered its pair counter first (a
                   Python ``Counter`` updated in place, read with ``most_common(1)``)
* ``subword-nmt``  the greatest ``(left, right)`` as subword-nmt compares the strings it holds:
                   by code point, a byte-level token spelled with GPT-2's byte -> character map
                   (space = ``Ġ``, U+0120, after every letter), which is how parity-aware BPE's
                   reference code feeds it bytes. In chars mode the same as ``lexical-max``

How the trainer uses a rule. Its priority queue holds one entry per pair,
``(-count, *key, pair)``, and the smallest entry is merged next, so a rule is its **key**: a
tuple that sorts the winning pair first among pairs of equal count (the way Hugging Face's
tokenizers defines its merge order once, in ``impl Ord for Merge``). Four rules build the key
from per-token *material* kept in :attr:`TieBreakRule.material` (index = token id), so a key costs
two list look-ups; first-seen asks the trainer where the pair first occurs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..types import TIE_BREAKS
from ..look import look
from .units import bytes_to_unicode


def show(surface, end_of_word: str | None = None) -> str:
    """A token as a sentence shows it: as every pane draws it (:func:`~bpe_tui.core.look.look`:
    whitespace made visible, a lone vowel sign on ◌)."""
    return look(surface, end_of_word)


def show_pair(pair: Sequence, end_of_word: str | None = None) -> str:
    """``t + h``: a pair of surfaces as a sentence shows it."""
    return f"{show(pair[0], end_of_word)} + {show(pair[1], end_of_word)}"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st ..."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class TieBreakRule:
    """One tie-break rule: the key it orders pairs by, and why a pair wins under it.

    ``material[i]`` is token ``i``'s part of a pair key; the trainer calls :meth:`add_token`
    when it creates a token and :meth:`drop_last_token` when an undo removes it. Explaining
    (:meth:`why`) reads only the values it is given, never the material, so an event can keep
    the rule and explain itself whatever the trainer does next.
    """

    name = ""
    #: True when a pair's key can change while its count stays the same (first-seen: the
    #: words that hold it change), so a queued entry must be rebuilt to be trusted.
    moving_keys = False

    def __init__(self, surfaces: Sequence, units: str, end_of_word: str | None):
        self.units = units
        self.end_of_word = end_of_word
        self.material: list = [self.token_material(i, s) for i, s in enumerate(surfaces)]

    def __getstate__(self) -> dict:
        """Pickled (inside an event) without the material: a copy can explain, not order."""
        return dict(self.__dict__, material=[])

    def token_material(self, token_id: int, surface) -> object:
        """Token ``token_id``'s material, from its surface (None: a hole in the ids)."""
        return None

    def add_token(self, a: int, b: int, new_id: int) -> None:
        """Append the material of token ``new_id``, made by merging ``a`` and ``b`` (each rule
        builds it from theirs, in the one call the trainer makes per merge)."""
        self.material.append(None)

    def drop_last_token(self) -> None:
        self.material.pop()

    def entry_function(self, first_occurrence: Callable[[str], tuple[int, int]]) -> Callable[[str, int], tuple]:
        """A pair's whole queue entry ``(-count, *key, pair)`` from its internal key and count,
        built in one call (the trainer calls it for every count that rises)."""
        material = self.material
        return lambda p, c: (-c, material[ord(p[0])], material[ord(p[1])], p)

    def why(self, won: tuple, rival: tuple, won_key: tuple, rival_key: tuple, words: Sequence[str]) -> str:
        """The clause saying why pair ``won`` beat ``rival`` (the next pair in this rule's
        order, at the same count); ``*_key`` are their keys as the queue held them, and
        ``words`` the corpus's words by first appearance."""
        raise NotImplementedError

    # helpers for why()
    def _pair(self, pair: tuple) -> str:
        return show_pair(pair, self.end_of_word)

    def _compared(self) -> str:
        return "compared as bytes" if self.units == "bytes" else "compared by code point"


class FirstSeen(TieBreakRule):
    """The pair whose first occurrence comes first, reading words in order of first
    appearance and each word left to right. Its key is ``(word, offset)`` of that occurrence,
    which the training state finds (see ``TrainingState.first_occurrence``); it moves when merges change
    the words holding the pair."""

    name = "first-seen"
    moving_keys = True

    def __init__(self, surfaces: Sequence, units: str, end_of_word: str | None):
        super().__init__((), units, end_of_word)  # no per-token material

    def add_token(self, a: int, b: int, new_id: int) -> None:
        pass

    def drop_last_token(self) -> None:
        pass

    def entry_function(self, first_occurrence: Callable[[str], tuple[int, int]]) -> Callable[[str, int], tuple]:
        return lambda p, c: (-c, *first_occurrence(p), p)

    def why(self, won, rival, won_key, rival_key, words) -> str:
        w, offset = won_key
        where = f"in '{show(words[w])}', the {ordinal(w + 1)} word"
        if rival_key[0] != w:
            return f"first-seen picks {self._pair(won)} because it occurs first, {where}"
        unit = "byte" if self.units == "bytes" else "character"
        return (
            f"first-seen picks {self._pair(won)} because it occurs first, {where}, at {unit} {offset + 1}, "
            f"before {self._pair(rival)} at {unit} {rival_key[1] + 1}"
        )


def _sortable_text(surface) -> str:
    """A surface as a str that sorts like its bytes (latin-1 keeps byte order; for str, code
    point order is UTF-8 byte order)."""
    return surface.decode("latin-1") if isinstance(surface, bytes) else surface


class LexicalMin(TieBreakRule):
    """The smallest ``(left, right)``: material is the surface as sortable text."""

    name = "lexical-min"

    def token_material(self, token_id, surface):
        return None if surface is None else _sortable_text(surface)

    def add_token(self, a, b, new_id):
        material = self.material
        material.append(material[a] + material[b])

    def why(self, won, rival, won_key, rival_key, words) -> str:
        return (
            f"lexical-min picks {self._pair(won)} because it is the smallest pair {self._compared()}: "
            f"it comes before {self._pair(rival)}"
        )


class LexicalMax(TieBreakRule):
    """The greatest ``(left, right)``. The queue takes the smallest key, so material is the
    sortable text with every code point inverted and a terminator above them all: the
    greatest pair sorts first, and a longer string before its own prefix."""

    name = "lexical-max"

    def token_material(self, token_id, surface):
        if surface is None:
            return None
        return "".join(chr(0x10FFFE - ord(ch)) for ch in _sortable_text(surface)) + "\U0010ffff"

    def add_token(self, a, b, new_id):
        material = self.material
        material.append(material[a][:-1] + material[b])  # drop a's terminator; b's ends the key

    def why(self, won, rival, won_key, rival_key, words) -> str:
        return (
            f"lexical-max picks {self._pair(won)} because it is the greatest pair {self._compared()}: "
            f"it comes after {self._pair(rival)}"
        )


class SubwordNmt(LexicalMax):
    """The greatest ``(left, right)`` among subword-nmt's strings: subword-nmt takes
    ``max(stats, key=lambda pair: (count, pair))`` over tuples of ``str``, and the byte-level
    BPE built on it (parity-aware BPE's reference, after Hugging Face's ``ByteLevel``
    pre-tokenizer) holds each byte as its GPT-2 character. So bytes compare through that map:
    ``Ġ`` (a space, U+0120) comes after every ASCII letter, where as a byte (32) it comes
    before them. Material is LexicalMax's, built from the mapped text."""

    name = "subword-nmt"

    def __init__(self, surfaces: Sequence, units: str, end_of_word: str | None):
        self._b2u = bytes_to_unicode()
        super().__init__(surfaces, units, end_of_word)

    def token_material(self, token_id, surface):
        if isinstance(surface, bytes):
            surface = "".join(self._b2u[b] for b in surface)
        return super().token_material(token_id, surface)

    def why(self, won, rival, won_key, rival_key, words) -> str:
        how = "as GPT-2's byte characters, by code point" if self.units == "bytes" else "by code point"
        return (
            f"subword-nmt picks {self._pair(won)} because it is the greatest pair compared {how}: "
            f"it comes after {self._pair(rival)}"
        )


class HuggingFace(TieBreakRule):
    """The smallest ``(left_id, right_id)`` in Hugging Face's numbering: special tokens, then
    the alphabet sorted by code point (bytes through GPT-2's byte -> character map), then
    merged tokens in creation order. Material is that id.

    ``base_count`` base symbols and ``special_count`` specials (which follow the base here,
    but come first in Hugging Face) are renumbered; with ``keep_ids`` (a trainer extending a
    saved table) the table's own ids are the order.
    """

    name = "hf"

    def __init__(self, surfaces: Sequence, units: str, end_of_word: str | None, base_count: int = 0, special_count: int = 0, keep_ids: bool = False):
        self.base_count = base_count
        self.special_count = special_count
        self.rank: dict[int, int] = {}
        if not keep_ids:
            b2u = bytes_to_unicode()

            def hf_text(i, s):
                if units != "bytes":
                    return s
                return "".join(b2u[b] for b in s) if len(s) == 1 else s.decode("utf-8", "replace")

            order = sorted(range(base_count), key=lambda i: hf_text(i, surfaces[i]))
            self.rank = {token_id: special_count + pos for pos, token_id in enumerate(order)}
        super().__init__(surfaces, units, end_of_word)

    def token_material(self, token_id, surface):
        return self.rank.get(token_id, token_id)

    def add_token(self, a, b, new_id):
        self.material.append(new_id)  # merged tokens rank by creation, after the whole alphabet

    def why(self, won, rival, won_key, rival_key, words) -> str:
        return (
            f"hf picks {self._pair(won)} because its token ids ({won_key[0]}, {won_key[1]}) are the smallest pair of ids: "
            f"{self._pair(rival)} has ({rival_key[0]}, {rival_key[1]})"
        )


class RustBPE(TieBreakRule):
    """rustbpe's rule (nanochat's trainer, ``train_from_iterator``): the smallest
    ``(left_id, right_id)`` in rustbpe's numbering, where a byte's id is its value and each
    merged token's is 256 + its merge index (its heap's ``Ord for MergeJob``: the higher count,
    then the smaller pair). Material is that number.

    Here the numbering is: a single byte is its value; every other token that can take part
    in a pair follows, from 256, in id order, which for merged tokens is the order they were
    made. A fresh run's special tokens are skipped (rustbpe has none; they never pair), so its
    merged tokens are numbered exactly as rustbpe numbers them; an end-of-word marker (which
    rustbpe does not have either) comes right after the bytes. In chars mode there are no
    bytes: the alphabet (sorted by code point) comes first, then the merged tokens, the order
    hf uses too. With ``keep_ids`` (a trainer extending a saved table) every token but the
    single bytes is numbered in the table's id order.
    """

    name = "rustbpe"

    def __init__(self, surfaces: Sequence, units: str, end_of_word: str | None, base_count: int = 0, special_count: int = 0, keep_ids: bool = False):
        self._skip = range(0) if keep_ids else range(base_count, base_count + special_count)
        self._next = 256 if units == "bytes" else 0
        super().__init__(surfaces, units, end_of_word)

    def token_material(self, token_id, surface):
        if surface is None or token_id in self._skip:
            return None
        if self.units == "bytes" and len(surface) == 1:
            return surface[0]
        number = self._next
        self._next += 1
        return number

    def add_token(self, a, b, new_id):
        self.material.append(self._next)
        self._next += 1

    def drop_last_token(self):
        self.material.pop()
        self._next -= 1

    def why(self, won, rival, won_key, rival_key, words) -> str:
        numbering = "a byte is its value, merged tokens follow as made" if self.units == "bytes" else "the alphabet by code point, then merged tokens as made"
        return (
            f"rustbpe picks {self._pair(won)} because its ids ({won_key[0]}, {won_key[1]}) are the smallest pair "
            f"in rustbpe's numbering ({numbering}): {self._pair(rival)} has ({rival_key[0]}, {rival_key[1]})"
        )


class PickyOrder(TieBreakRule):
    """PickyBPE's reference order (github pchizhov/picky_bpe, ``bpe_trainer.py``): it keeps
    every pair's count in a ``Counter`` updated in place and merges ``most_common(1)``, which
    gives, among the highest counts, the pair inserted first. A pair leaves the counter when
    it is merged, when a merge takes its count to zero or when a removal splits one of its
    tokens, and a pair made again goes to the back.

    The key is the pair's place in that counter, a number (a *stamp*) the PickyBPE variant
    (:mod:`~bpe_tui.core.engine.variants.picky`) gives it when the reference would insert it:
    the corpus's pairs in order of first appearance, then, step by step, the pairs each merge
    or removal makes. The variant runs whenever this rule is chosen (without a threshold it
    removes nothing) and keeps :attr:`stamps`; a pair not stamped yet sorts last. Going on
    from a table, the counter starts afresh from the corpus as the table leaves it (the
    order of the run that made the table is not in the table).
    """

    name = "picky"
    moving_keys = True

    #: The key of a pair not stamped yet (a merge's new pairs, until the variant stamps them).
    UNSTAMPED = 1 << 62

    def __init__(self, surfaces: Sequence, units: str, end_of_word: str | None):
        super().__init__((), units, end_of_word)
        #: pair key -> its place in the reference's counter (see the variant).
        self.stamps: dict[str, int] = {}

    def add_token(self, a: int, b: int, new_id: int) -> None:
        pass

    def drop_last_token(self) -> None:
        pass

    def entry_function(self, first_occurrence: Callable[[str], tuple[int, int]]) -> Callable[[str, int], tuple]:
        stamp = self.stamps.get
        never = self.UNSTAMPED
        return lambda p, c: (-c, stamp(p, never), p)

    def why(self, won, rival, won_key, rival_key, words) -> str:
        return (
            f"picky picks {self._pair(won)} because it entered the pair counter first "
            f"(PickyBPE's reference takes the first of the most common): before {self._pair(rival)}"
        )


RULES: dict[str, type[TieBreakRule]] = {r.name: r for r in (FirstSeen, LexicalMin, LexicalMax, HuggingFace, RustBPE, SubwordNmt, PickyOrder)}
assert tuple(RULES) == TIE_BREAKS


def make_rule(name: str, surfaces: Sequence, units: str, end_of_word: str | None, base_count: int, special_count: int, keep_ids: bool) -> TieBreakRule:
    """The rule called ``name``, with material for the tokens in ``surfaces`` (ids 0 ...)."""
    if name == HuggingFace.name:
        return HuggingFace(surfaces, units, end_of_word, base_count, special_count, keep_ids)
    if name == RustBPE.name:
        return RustBPE(surfaces, units, end_of_word, base_count, special_count, keep_ids)
    return RULES[name](surfaces, units, end_of_word)

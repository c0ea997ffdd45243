"""The trainer's speed helpers, apart from the algorithm so that it reads plainly.

None of this changes what is learned; each piece buys time (measured on tinyshakespeare ->
10k and a 28 MB corpus; benchmarks/compare.py) and says how much.

**Id strings.** Every token has an integer id, and a word's current segmentation is kept as a
``str`` whose characters are those ids (``chr(id)``); a pair is the 2-character string of its
two ids. Then merging a pair in a word is ``word.replace(pair, chr(new_id))``, which is
exactly BPE's left-to-right, non-overlapping replacement, done in C; ``pair in word`` asks
whether a word holds a pair; the pairs around an occurrence at ``i`` are the slices
``word[i-1:i+1]`` and ``word[i+1:i+3]``; and a string of ids is compact and never tracked by
the garbage collector. Against lists of ints this makes a merge several times faster. Token
ids must therefore be code points (:data:`MAX_TOKEN_ID`). Nothing outside the trainer sees
these strings: it answers in ids and surfaces.

**The C-level index build** (:func:`pair_index`): the pair -> words index and the pair counts
of the whole corpus built with ``map``/``chain``/``deque`` so that the loop runs in C (4x
faster than the plain double loop on 28 MB).

**The fast event constructor** (:func:`fast_constructor`): a frozen dataclass's ``__init__``
pays one ``object.__setattr__`` per field; handing it its ``__dict__`` at once saved 6% of the
training time.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator
from dataclasses import MISSING, fields
from itertools import chain, repeat
from operator import add, sub
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")

#: Token ids are stored as characters, so they must be code points.
MAX_TOKEN_ID = 0x10FFFF


def key_of(a: int, b: int) -> str:
    """The internal key of the pair of token ids ``(a, b)``: the two ids as characters."""
    return chr(a) + chr(b)


def ids_of(key: str) -> tuple[int, int]:
    """The token ids ``(a, b)`` of an internal pair key."""
    return ord(key[0]), ord(key[1])


def surface_pair(surfaces: list, key: str) -> tuple:
    """The ``(left, right)`` surfaces of an internal pair key."""
    return surfaces[ord(key[0])], surfaces[ord(key[1])]


def surface_pairs(surfaces: list, entries: list) -> tuple:
    """The ``(left, right)`` surfaces of the pairs of queue entries (a pair key last in each),
    in one call (a tie lists up to five: one call each cost more than the list)."""
    return tuple([(surfaces[ord(e[-1][0])], surfaces[ord(e[-1][1])]) for e in entries])


def pairs_of(word: str) -> Iterator[str]:
    """Every adjacent pair (as a key) of a word stored as characters, left to right."""
    return map(add, word, word[1:])


def utf8_as_ids(text: str) -> str:
    """``text``'s UTF-8 bytes as characters: byte-level token ids of the base alphabet, when
    a byte's id is its value (a fresh bytes-mode trainer). latin-1 does it in C."""
    return text.encode("utf-8").decode("latin-1")


def convert_all(words: list[str], convert: Callable[[str], str], sep: str) -> list[str]:
    """``[convert(w) for w in words]`` in one call on the words joined by ``sep``, when no word
    holds ``sep`` (``convert`` works character by character and maps ``sep`` to itself):
    one C call instead of one Python call per word."""
    joined = sep.join(words)
    if joined.count(sep) == len(words) - 1:
        return convert(joined).split(sep)
    return list(map(convert, words))


def pair_index(words: list[str], counts: list[int]) -> tuple[dict[str, int], defaultdict[str, dict[int, None]], dict[int, int]]:
    """``(pair -> count, pair -> words holding it, count -> pairs with that count)``.

    Built in one pass that runs in C: every pair occurrence appends its word to the pair's
    list (a word holding a pair twice is listed twice), so a pair's count is the sum of its
    listed words' counts. The lists then become the index's word "sets": dicts of word ->
    None, because a dict of ints is never tracked by the garbage collector, where 100k+ sets
    would be traversed by every full collection (that alone cost a third of the training time
    on 28 MB). Each list is popped as it is converted, so the lists and the dicts never all
    stand at once.
    """
    listed: defaultdict[str, list[int]] = defaultdict(list)
    every_pair = chain.from_iterable(map(pairs_of, words))
    pairs_per_word = map(sub, map(len, words), repeat(1))
    its_word = chain.from_iterable(map(repeat, range(len(words)), pairs_per_word))
    deque(map(list.append, map(listed.__getitem__, every_pair), its_word), maxlen=0)
    count_of = counts.__getitem__
    pc: dict[str, int] = {}
    where: defaultdict[str, dict[int, None]] = defaultdict(dict)
    for pair in list(listed):
        members = listed.pop(pair)
        pc[pair] = sum(map(count_of, members))
        where[pair] = dict.fromkeys(members)
    return pc, where, dict(Counter(pc.values()))


def fast_constructor(cls: type[T]) -> Callable[[dict], T]:
    """A constructor for the frozen dataclass ``cls`` that takes the dict of its fields as the
    instance's ``__dict__``, instead of one ``object.__setattr__`` per field: ``new(values)``
    is equal to ``cls(**values)`` in every way (fields not given get their defaults), and
    ``values`` becomes the instance's own. It takes the fields as one dict, not as keyword
    arguments: a call with more than 15 of those compiles (CPython 3.11) to building a dict,
    unpacking it and building it again; and the dict is not copied (an ``update`` of the
    instance's dict copied the event's fields: 0.2% of a training run's instructions).

    A field with a plain default that ``values`` leaves out is read from the class, where the
    dataclass put its default, so it costs the instance's dict no key: a dict of 22 keys takes
    a table twice the size of one of 20, which cost 1% of a training run's instructions when
    MergeEvent grew two fields that plain BPE leaves at their defaults. Fields made by a
    ``default_factory`` are filled in when ``values`` holds fewer keys than the fields without
    a plain default (pass all of those, or only some of the others)."""
    factories = [(f.name, f.default_factory) for f in fields(cls) if f.default_factory is not MISSING]
    needed = sum(1 for f in fields(cls) if f.default is MISSING)  # no class attribute to read instead
    post_init = getattr(cls, "__post_init__", None)
    set_dict = object.__setattr__  # past the frozen class's own __setattr__

    def new(values: dict) -> T:
        if len(values) < needed:  # the trainer passes every field without a plain default: no loop
            for name, factory in factories:
                if name not in values:
                    values[name] = factory()
        obj: T = object.__new__(cls)
        set_dict(obj, "__dict__", values)
        if post_init is not None:
            post_init(obj)
        return obj

    return new

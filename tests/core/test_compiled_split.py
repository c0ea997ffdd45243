"""The compiled core's split of the known regexes (_merge_core.c's Splitter) gives the regex
package's pieces, exactly.

GPT-2's, cl100k's, o200k's, Llama 3's and Qwen's regexes are written out by hand in C; what a
character is comes from a table the ``regex`` package fills (core/text/char_classes.py). So:

* the table says what ``regex`` says, character by character, for each class it holds;
* every text of up to four characters drawn from one representative of each kind of character
  the table tells apart (and the characters the patterns name: space, apostrophe, CR, LF, '/',
  the contractions' letters in both cases) splits as ``regex.findall`` splits it: every way the
  alternatives and their backtracking can meet, up to four characters;
* random Unicode (every plane, combining marks, digits of many scripts, runs of CR and LF,
  apostrophes with letters of mixed case, spaces of every kind) splits as ``regex`` splits it,
  with ``findall`` and ``finditer``, whole or between ``pos`` and ``endpos``;
* ``BPE_TUI_PURE=1`` turns it off (the Python path splits), and the real tables' ids are the
  same on both paths (tests/interop run on both).
"""

from __future__ import annotations

import itertools
import os
from array import array

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_tui.core.engine import merge_core
from bpe_tui.core.text import char_classes
from bpe_tui.core.text.char_classes import BITS, CLASSES, PLANE, SPLIT_PATTERNS, fill_plane, plane_bits
from bpe_tui.core.text.splitting import _known_pattern, known_pattern

needs_core = pytest.mark.skipif(merge_core._core is None, reason=f"the compiled core is not built here ({merge_core.engine_info()})")
pytestmark = needs_core

PATTERNS = sorted(SPLIT_PATTERNS)

#: Characters the patterns name or treat specially, beside characters of every kind.
SPACES = "\t\n\x0b\x0c\r \x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff"
LETTERS = "sStTrReEvVmMlLdDſKkaZéÉǅʰª中日한ßİı"
MARKS = "\u0301\u0300\u093f\u0e31\u20dd\U0001d167"
DIGITS = "0123456789٠١٢٣۴५௫๓²½Ⅻ〇𝟘𑁦"
OTHERS = "'’/.,!?-_<|>▁😀\U0001f3fb\U000e0061\U000f0000\x00\x7f"
WIDE = "𝐀𝐚𠀀\U00030000\U0001e900\U0001e922"
TRICKY = SPACES + LETTERS + MARKS + DIGITS + OTHERS + WIDE


def splitter(pattern: str):
    """The known pattern split by the compiled core (whatever BPE_TUI_PURE says: CI runs the
    encoder's tests again with it set)."""
    split = _known_pattern(pattern, merge_core._core)
    assert split._split is not None, "the compiled core does not split a known regex"
    return split


def test_the_table_is_what_regex_says_for_every_character_of_two_planes_and_samples_of_the_rest():
    """Each bit against regex.match on one character at a time (the table is built from runs)."""
    for plane in range(char_classes.PLANES):
        fill_plane(plane)
    chars = list(range(0, 2 * PLANE)) + list(range(2 * PLANE, 0x110000, 97))
    for bit, cls in BITS.items():
        compiled = regex.compile(cls)
        wrong = [hex(c) for c in chars if bool(CLASSES[c] & bit) != bool(compiled.fullmatch(chr(c)))]
        assert not wrong, (cls, wrong[:10])


def test_a_plane_is_filled_when_a_text_first_holds_one_of_its_characters():
    plane = 0x10  # (private use) emptied as it is before any text holds one of its characters
    fill_plane(plane)
    filled = list(CLASSES[plane * PLANE : (plane + 1) * PLANE])
    char_classes.READY[plane] = 0
    CLASSES[plane * PLANE : (plane + 1) * PLANE] = array("H", bytes(2 * PLANE))
    text = "a\U00100000b 1"
    for pattern in PATTERNS:
        assert splitter(pattern).findall(text) == regex.findall(pattern, text)
    assert char_classes.READY[plane] and list(CLASSES[plane * PLANE : (plane + 1) * PLANE]) == filled


def representatives() -> list[str]:
    """One character of each kind the table tells apart (the first of each bit value, per
    plane group), and the characters the patterns name."""
    for plane in range(char_classes.PLANES):
        fill_plane(plane)
    seen: dict[int, str] = {}
    for c in range(0x110000):
        seen.setdefault(CLASSES[c], chr(c) if not 0xD800 <= c < 0xE000 else "x")
    named = " '\r\n/sStTrReEvVmMlLdDſ"
    return list(dict.fromkeys([*seen.values(), *named]))


def test_every_short_text_of_every_kind_of_character_splits_as_regex_splits_it():
    """Up to three characters of every kind, four of the kinds that meet most (letters of
    both cases and of both of o200k's classes, contraction letters, spaces, line breaks, a
    mark, a digit): the ways two to four alternatives meet, with backtracking."""
    reps = representatives()
    assert len(reps) < 60, len(reps)
    core = list(" \t\r\n'/sSlLeEAaª0\u0300")  # (four characters: these, a kind of each)
    assert all(c in reps or CLASSES[ord(c)] in {CLASSES[ord(r)] for r in reps} for c in core)
    count = 0
    for pattern in PATTERNS:
        fast, plain = splitter(pattern), regex.compile(pattern)
        for size in (1, 2, 3):
            for combo in itertools.product(reps, repeat=size):
                text = "".join(combo)
                assert fast.findall(text) == plain.findall(text), (pattern, text)
                count += 1
        for combo in itertools.product(core, repeat=4):
            text = "".join(combo)
            assert fast.findall(text) == plain.findall(text), (pattern, text)
            count += 1
    assert count == len(PATTERNS) * (len(reps) + len(reps) ** 2 + len(reps) ** 3 + len(core) ** 4)


pieces = st.one_of(
    st.characters(),  # any plane
    st.characters(categories=["Mn", "Mc", "Me"]),
    st.characters(categories=["Nd", "Nl", "No"]),
    st.characters(categories=["Zs", "Zl", "Zp", "Cc"]),
    st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo"]),
    st.sampled_from(list(TRICKY)),
    st.text(st.sampled_from("\r\n \t"), min_size=1, max_size=6),  # runs of line breaks and spaces
    st.text(st.sampled_from("'sStTrReEvVmMlLdDſ"), min_size=1, max_size=4).map(lambda t: "'" + t),  # contractions
    st.text(st.sampled_from(DIGITS), min_size=1, max_size=8),
    st.text(st.sampled_from("AbCÉé\u0301ǅʰ中"), min_size=1, max_size=6),  # CamelCase, marks, o200k's classes
)
texts = st.lists(pieces, max_size=60).map("".join)
SETTINGS = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(texts)
def test_random_unicode_splits_as_regex_splits_it(text):
    for pattern in PATTERNS:
        assert splitter(pattern).findall(text) == regex.findall(pattern, text), pattern


@settings(max_examples=300, deadline=None)
@given(texts, st.integers(0, 8), st.integers(0, 8))
def test_finditer_and_pos_endpos_are_regexs(text, pos, cut):
    endpos = max(pos, len(text) - cut)
    for pattern in PATTERNS:
        fast, plain = splitter(pattern), regex.compile(pattern)
        got = [(m.start(), m.end(), m.group()) for m in fast.finditer(text, pos, endpos)]
        assert got == [(m.start(), m.end(), m.group()) for m in plain.finditer(text, pos, endpos)], pattern
        assert fast.findall(text, pos, endpos) == plain.findall(text, pos, endpos), pattern


def test_long_runs_split_in_linear_time_as_regex_splits_them():
    """A megabyte of one kind of character (o200k's letters that are both upper and lower,
    spaces before a line break, digits): one pass, the pieces regex gives."""
    for text in ("ǅ" * 200_000 + "a", "ʰ" * 200_000 + "A'S", " " * 200_000 + "\n" + " " * 10, "7" * 100_001, "a\u0301" * 100_000):
        for pattern in PATTERNS:
            assert splitter(pattern).findall(text) == regex.findall(pattern, text), (pattern, text[:3])


def test_pure_python_splits_without_the_core(monkeypatch):
    monkeypatch.setenv(merge_core.PURE_VARIABLE, "1")
    for pattern in PATTERNS:
        assert known_pattern(pattern)._split is None
    monkeypatch.delenv(merge_core.PURE_VARIABLE)
    assert all(known_pattern(p)._split is not None for p in PATTERNS)
    assert os.environ.get(merge_core.PURE_VARIABLE) is None

"""The one rule for a token's look (bpe_tui.core.look): what is drawn for odd tokens, and how a
run of tokens that cuts a character is grouped to be drawn whole."""

from __future__ import annotations

import pytest

from bpe_tui.core.engine.units import visible
from bpe_tui.core.look import DOTTED_CIRCLE, LRM, Piece, look, pieces


@pytest.mark.parametrize(
    "surface, drawn",
    [
        ("ा".encode(), "◌ा"),  # a Devanagari vowel sign alone: on a dotted circle
        ("हि".encode(), "हि"),  # with its consonant: as it is
        (" ि".encode(), "·◌ि"),  # after a space (drawn ·): its own circle, never on the ·
        ("ี", "◌ี"),  # a Thai vowel above, chars mode
        ("กี่", "กี่"),
        ("\u1161", "◌\u1161"),  # a conjoining Hangul vowel alone
        ("َ", "◌َ"),  # an Arabic haraka alone
        ("ि</w>", "◌ि</w>"),  # with the end-of-word marker after it
        ("e\u0301", "e\u0301"),
    ],
)
def test_a_combining_mark_without_a_base_is_drawn_on_a_dotted_circle(surface, drawn):
    assert look(surface, "</w>") == drawn


@pytest.mark.parametrize(
    "surface, drawn",
    [
        ("\u200d", "<ZWJ>"),
        ("\u200c", "<ZWNJ>"),
        ("\u200b", "<ZWSP>"),
        ("\ufe0f", "<VS16>"),
        ("\u200e", "<LRM>"),
        ("\u202e", "<RLO>"),
        ("\u2028x", "<LS>x"),
        ("\u00ad", "<SHY>"),
        ("👨\u200d", "👨<ZWJ>"),  # a joiner at the end of a token would glue the next chip on
        ("\u200d👩", "<ZWJ>👩"),
        ("a\u200db", "a<ZWJ>b"),  # no emoji either side: named
        ("👍🏽", "👍<U+1F3FD>"),  # a skin tone: one emoji or two by terminal
        ("☰", "<U+2630>"),  # Unicode 16 made it wide; terminals on older tables do not
    ],
)
def test_invisible_and_disputed_characters_are_named(surface, drawn):
    assert look(surface) == drawn
    assert look(surface.encode()) == drawn


def test_characters_doing_their_job_inside_a_token_stay():
    family = "👨\u200d👩\u200d👧"
    assert look(family) == family  # one emoji
    assert look("می\u200cخواهم") == "می\u200cخواهم" + LRM  # a non-joiner between Persian letters
    assert look("❤\ufe0f") == "❤"  # a text symbol asked to look like an emoji: drawn as text
    assert look("👁\ufe0f") == "👁"
    assert look("☺\ufe0e") == "☺\ufe0e"  # other selectors stay on their base


def test_right_to_left_letters_end_in_a_left_to_right_mark():
    assert look("مرحبا".encode()) == "مرحبا" + LRM
    assert look("·שלום") == "·שלום" + LRM
    assert look("abc") == "abc"


def test_whitespace_controls_and_bytes_are_drawn_as_visible_draws_them():
    for surface in (b" the", b"\n", b"\t", b"\x1b[2J", b"\xe0\xa4", b"\xff", "\x00", "[/b]", b"\xc2\x9b"):
        assert look(surface) == visible(surface)
    assert look(b"") == "∅" and look("") == "∅" and look(None) == "?"
    assert look(b"\xe0\xa4\xbe\xe0") == "◌ा<0xE0>"
    assert look(b"<0xE0>" + "ा".encode()) == "<0xE0>ा"  # (a real ">" is a base)


def test_a_drawn_mark_never_follows_an_escape():
    assert look(b"\xe0" + "ि".encode()) == "<0xE0>" + DOTTED_CIRCLE + "ि"


def test_pieces_group_the_bytes_of_a_character_cut_between_tokens():
    # "·नम": a space, न as three byte tokens, म as one token
    tokens = [b" ", b"\xe0", b"\xa4", b"\xa8", "म".encode()]
    assert pieces(tokens) == [Piece(0, 1), Piece(1, 4), Piece(4, 5)]
    assert [p.cut for p in pieces(tokens)] == [False, True, False]
    # a token that holds the end of one character and the start of the next joins both
    tokens = [b"\xe0\xa4", b"\xa8\xe0\xa4", b"\xae"]
    assert pieces(tokens) == [Piece(0, 3)]
    assert pieces([b"ab", b"c"]) == [Piece(0, 1), Piece(1, 2)]
    assert pieces([]) == [] and pieces([b"\xe0"]) == [Piece(0, 1)]


def test_pieces_group_a_letter_with_the_marks_of_other_tokens():
    # chars mode: क + ि is one letter as a reader sees it
    assert pieces(["क", "ि", "त", "</w>"]) == [Piece(0, 2), Piece(2, 3), Piece(3, 4)]
    # bytes mode: the same, by bytes
    assert pieces(["क".encode(), "ि".encode()]) == [Piece(0, 2)]
    # an emoji sequence cut at its joiners
    assert pieces(["👨\u200d".encode(), "👩".encode()]) == [Piece(0, 2)]


def test_bytes_that_are_no_character_stay_pieces_of_their_own():
    assert pieces([b"\xff", b"\xfe", b"a"]) == [Piece(0, 1), Piece(1, 2), Piece(2, 3)]
    assert pieces([b"\xe0", b"a"]) == [Piece(0, 1), Piece(1, 2)]  # a cut character never finished


def test_one_cell_each_says_whether_a_chart_can_place_a_word():
    from bpe_tui.core.look import one_cell_each

    assert one_cell_each("lowest") and one_cell_each("·привет") and one_cell_each("हा")  # (a spacing mark takes its cell)
    assert not one_cell_each("है")  # ै sits on the cell before
    assert not one_cell_each("日本") and not one_cell_each("👍") and not one_cell_each("a\u200db")

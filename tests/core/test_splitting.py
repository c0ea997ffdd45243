"""Running pre-tokenizer regexes (core/text/splitting.py): the known regexes on Python's re give
the regex package's pieces on every character up to U+FFFF and on random Unicode text; a
text with a character beyond U+FFFF is told apart at once; the guard's batched form finds
what the plain guarded call finds, and still stops a catastrophic pattern; a regex that is a
known one by its text is not guarded, however it reached the table."""

from __future__ import annotations

import sys

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_tui.core.text import splitting
from bpe_tui.core.text.presets import KNOWN_PATTERNS, LLAMA3_PATTERN, QWEN_PATTERN
from bpe_tui.core.text.pretokenize import PreTokenizer
from bpe_tui.core.text.splitting import (
    GuardedPattern,
    KnownPattern,
    RegexTimeout,
    _bmp,
    is_narrow,
    known_pattern,
    narrow_translation,
)

#: Characters the patterns treat specially, beside any character at all.
TRICKY = list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000'sSdDmMtTlLvVrReEſKK123١²½Ⅻ_-/.,!?éÉǅʰ\u0301\u093f中日한😀𝐀𝟘")
texts = st.text(st.one_of(st.characters(), st.sampled_from(TRICKY)), max_size=120)


def test_every_known_regex_has_a_narrow_translation():
    """(Possessive quantifiers, in cl100k's, need Python 3.11's re: on 3.10 regex runs it.)"""
    for pattern in KNOWN_PATTERNS:
        assert narrow_translation(pattern) is not None, pattern
        possessive = "++" in pattern or "?+" in pattern
        assert known_pattern(pattern).narrow() or (possessive and sys.version_info < (3, 11)), pattern


def test_known_regexes_agree_with_regex_on_every_character_up_to_ffff():
    """Each character of U+0000-U+FFFF in contexts that exercise every alternative of the
    known regexes (after a letter, a space, an apostrophe, a digit; before 's; doubled ...)."""
    bmp = _bmp()
    contexts = ["{0}", "a{0}", " {0}", "{0}a", "'{0}", "{0}'s", "1{0}2", "{0}\n", "\n{0}", " {0}{0}", "A{0}b", "é{0}", "{0} x", "'{0}l"]
    for pattern in sorted(KNOWN_PATTERNS):
        fast, plain = known_pattern(pattern).narrow(), regex.compile(pattern)
        for context in contexts:
            for start in range(0, 0x10000, 8192):
                text = "\u2029".join(context.format(c) for c in bmp[start : start + 8192])
                assert fast.findall(text) == plain.findall(text), (pattern, context, start)


@settings(max_examples=300, deadline=None)
@given(texts, st.integers(0, 10), st.integers(0, 10))
def test_known_regexes_agree_with_regex_on_random_text(text, pos, cut):
    for pattern in KNOWN_PATTERNS:
        known, plain = known_pattern(pattern), regex.compile(pattern)
        assert known.findall(text) == plain.findall(text), pattern
        endpos = max(pos, len(text) - cut)
        spans = [(m.start(), m.end()) for m in known.finditer(text, pos, endpos)]
        assert spans == [(m.start(), m.end()) for m in plain.finditer(text, pos, endpos)], pattern


@settings(max_examples=300, deadline=None)
@given(texts)
def test_a_text_beyond_ffff_is_told_apart(text):
    assert is_narrow(text) == all(c <= "\uffff" for c in text)
    assert is_narrow(text + "😀") is False and is_narrow(text.encode("ascii", "ignore").decode()) is True


UNKNOWN = [
    r"\S+", r"\w+|\s+", r"(?i)[a-z]+|.", r"a(?=b)|b", r"\d{1,3}|\D", r"(?<=a)b|.", r"\b\w+", r"[^ ]+ +|x",
    r"a*", r"x?|.", r"(a)|b", r"(?P<w>\w)\1|.", r"(?r)\w+", "(?:" + LLAMA3_PATTERN + ")",
]


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from(list("ab xy1\n'éA😀")), max_size=60), st.integers(0, 4))
def test_the_guards_batched_form_finds_what_the_plain_call_finds(text, pos):
    for pattern in UNKNOWN:
        compiled = regex.compile(pattern)
        guarded = GuardedPattern(compiled)
        assert guarded.findall(text) == compiled.findall(text), pattern
        spans = [(m.start(), m.end(), m.group()) for m in guarded.finditer(text, pos)]
        assert spans == [(m.start(), m.end(), m.group()) for m in compiled.finditer(text, pos)], pattern


def test_the_guard_still_stops_a_catastrophic_regex(monkeypatch):
    monkeypatch.setattr(splitting, "REGEX_TIMEOUT", 0.3)
    guarded = GuardedPattern(regex.compile(r"(?:a|aa)+$|\w+"))
    assert guarded._batched is not None  # the batched form is the one that runs
    for call in (guarded.findall, lambda text: list(guarded.finditer(text))):
        try:
            call("a" * 40 + "!")
        except RegexTimeout as exc:
            assert "gave up after 0.3 s" in str(exc)
        else:
            raise AssertionError("a catastrophic regex ran to its end")


def test_a_known_regex_by_its_text_is_not_guarded():
    for pattern in (LLAMA3_PATTERN, QWEN_PATTERN):
        assert isinstance(PreTokenizer("regex:" + pattern).pattern, KnownPattern)
    assert isinstance(PreTokenizer("gpt2").pattern, KnownPattern)
    assert isinstance(PreTokenizer("regex:" + LLAMA3_PATTERN + "|x").pattern, GuardedPattern)


# ---------------------------------------------------------------------- digit groups (issue 42)

#: Digits of several scripts, other numerics (not \d: ½ ²), letters, marks and spaces.
DIGITY = list("0123456789") * 6 + list("٠١٢٣۴५½² aZé.,-\n")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(DIGITY), st.integers(1, 700).map(lambda n: "9" * n)), max_size=12).map("".join))
def test_digit_groups_cut_in_blocks_give_the_pieces_of_the_plain_split(text):
    """SuperBPE's stage-1 split and its digits rule cut long digit runs into blocks before the
    regex runs (linear time): the pieces are those the regex gives the whole text."""
    from bpe_tui.core.text.pipeline import SplitPipeline
    from bpe_tui.core.text.pretokenize import SUPERBPE_STAGE1_PRETOKENIZER
    from bpe_tui.core.text.superword_rules import SUPERWORD_DIGITS_PRETOKENIZER

    for spelled in (SUPERBPE_STAGE1_PRETOKENIZER, SUPERWORD_DIGITS_PRETOKENIZER):
        blocked = SplitPipeline.from_json(spelled.removeprefix("pipeline:"))
        plain = SplitPipeline.from_json(spelled.removeprefix("pipeline:"))
        assert blocked._by_digit_blocks
        plain._by_digit_blocks.clear()
        assert blocked.findall(text) == plain.findall(text)


def test_a_line_of_twenty_thousand_digits_is_split_and_trained_on(tmp_path, capsys):
    """The digit groups' lookahead is quadratic in a run's length: a line of 20,000 digits
    gave up after 5 s, so train --preset superbpe and encode refused valid text (issue 42)."""
    from bpe_tui.cli import main

    corpus = tmp_path / "digits.txt"
    corpus.write_text("1" * 20_000 + "\n", encoding="utf-8")
    table = tmp_path / "t.json"
    assert main(["train", str(corpus), "--preset", "superbpe", "--merges", "10", "-o", str(table), "-q"]) == 0
    capsys.readouterr()
    assert main(["encode", "-t", str(table), "--ids", "7" * 20_001]) == 0
    out, err = capsys.readouterr()
    assert err == "" and len(out.split()) == 20_001  # 7 is not merged: a token a digit

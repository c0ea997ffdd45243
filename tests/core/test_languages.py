"""Corpora in several languages (core/text/languages.py): what is read, and every bad input
as one line naming the language and the file."""

from __future__ import annotations

import pytest

from bpe_tui import BPEError, TrainerConfig
from bpe_tui.core.text.languages import check_languages, read_languages
from tests.conftest import CORPORA

PARALLEL = CORPORA / "parallel"
CONFIG = TrainerConfig(preset="parity")


def langs(*names: str) -> dict[str, str]:
    return {n: str(PARALLEL / f"{n}.txt") for n in names}


def test_the_shipped_development_texts_are_parallel():
    """corpora/parallel: 12 languages, 30 lines each, none empty (what the dev check needs)."""
    names = [p.stem for p in sorted(PARALLEL.glob("*.txt"))]
    assert len(names) == 12
    read = read_languages(langs(*names), CONFIG, dev=langs(*names))
    assert read.dev_lines == 30
    for name in names:
        lines = (PARALLEL / f"{name}.txt").read_text(encoding="utf-8").split("\n")
        assert lines[-1] == "" and len(lines) == 31 and all(line.strip() for line in lines[:-1]), name


def test_words_keep_the_languages_order_and_add_up():
    read = read_languages(langs("de", "en"), CONFIG, dev=langs("de", "en"))
    assert read.languages == ("de", "en")
    union = read.union()
    assert list(union)[0] == " Die"  # the first language's words first
    assert union[" The"] == read.words[1][" The"]
    assert sum(union.values()) == sum(sum(w.values()) for w in read.words)
    assert " ," in union  # parity's pre-tokenizer: a space in front of every piece


def test_ratio_form_needs_no_development_text():
    read = read_languages(langs("en", "de"), CONFIG, ratio={"en": 2, "de": 1.5})
    assert read.dev is None and read.ratio == (2.0, 1.5)


@pytest.mark.parametrize(
    "corpora, dev, ratio, needle",
    [
        (langs("en"), langs("en"), None, "two languages or more (got 1 language)"),
        (langs("en", "de"), None, None, "a development text per language"),
        (langs("en", "de"), langs("en", "de"), {"en": 1, "de": 1}, "not both"),
        (langs("en", "de"), langs("en"), None, "language de has no development text"),
        (langs("en", "de"), langs("en", "de", "fr"), None, "development text for fr, which is not one of the training languages (en, de)"),
        (langs("en", "de"), None, {"en": 1, "de": 0}, "compression ratio of de must be a number above 0, not 0"),
        (langs("en", "de"), None, {"en": 1, "de": float("nan")}, "must be a number above 0"),
        ({"e n": "x", "de": "y"}, None, {"e n": 1, "de": 1}, "language 'e n': a language is named with"),
    ],
)
def test_bad_languages_are_one_line_before_reading(corpora, dev, ratio, needle):
    with pytest.raises(BPEError) as exc:
        check_languages(corpora, dev, ratio)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_development_texts_that_are_not_parallel(tmp_path):
    short = tmp_path / "de.txt"
    short.write_text("".join((PARALLEL / "de.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:29]), encoding="utf-8")
    with pytest.raises(BPEError) as exc:
        read_languages(langs("en", "de"), CONFIG, dev={"en": str(PARALLEL / "en.txt"), "de": str(short)})
    message = str(exc.value)
    assert "not parallel" in message and "(en) has 30 lines" in message and f"{short} (de) has 29 lines" in message
    assert "\n" not in message


def test_an_empty_language_corpus_names_the_language_and_the_file(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n\n", encoding="utf-8")
    with pytest.raises(BPEError, match=rf"language de: {empty}: the corpus is empty"):
        read_languages({"en": str(PARALLEL / "en.txt"), "de": str(empty)}, CONFIG, ratio={"en": 1, "de": 1})


def test_a_development_text_without_words(tmp_path):
    blank = tmp_path / "blank.txt"
    blank.write_text("\n" * 30, encoding="utf-8")
    with pytest.raises(BPEError, match=rf"development text of de: {blank}: no words in it"):
        read_languages(langs("en", "de"), CONFIG, dev={"en": str(PARALLEL / "en.txt"), "de": str(blank)})


def test_a_missing_development_file(tmp_path):
    with pytest.raises(BPEError, match="nowhere.txt: no such file"):
        read_languages(langs("en", "de"), CONFIG, dev={"en": str(PARALLEL / "en.txt"), "de": str(tmp_path / "nowhere.txt")})

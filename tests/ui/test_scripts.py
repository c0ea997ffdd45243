"""Every script bpe-tui ships reads right: the explorer on each of the 12 parallel texts.

Snapshots (pytest-textual-snapshot): each language byte-level (the o200k preset: GPT-4o's
rules, whose pre-tokenizer keeps a letter's marks with it; GPT-2's cuts Devanagari at every
vowel sign, which the explorer shows as it is, ``◌ा`` and all) and character-level (the
classic preset: characters, ``</w>``, whitespace), at step 0 and after
100 merges, with its first sentence in the encode box. Every language is taken in both
units, at both steps and at both sizes, in pairs that keep the number of pictures at 48
rather than 96: bytes at step 0 at 120x40 and after 100 merges at 80x24, characters the other
way round. tests/e2e/test_scripts_tmux.py reads every number on those screens back from tmux
at both sizes.

Pilot tests: at step 0 a byte-level corpus pane shows Hindi words, not ``<0xE0><0xA4>...``;
``u`` shows the bytes and back; the encode box draws a cut character once, over the ids of
its tokens.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.session.sessions import read_preview

from .conftest import settle

PARALLEL = Path(__file__).resolve().parents[2] / "bpe_tui" / "data" / "parallel"
LANGUAGES = sorted(p.stem for p in PARALLEL.glob("*.txt"))
UNITS = {"bytes": "o200k", "chars": "classic"}
#: (units, step) -> the size it is pictured at (each of the four at both sizes: see above).
SIZES = {("bytes", 0): (120, 40), ("bytes", 100): (80, 24), ("chars", 0): (80, 24), ("chars", 100): (120, 40)}
CASES = [
    pytest.param(lang, units, step, size, id=f"{lang}-{units}-step{step}-{size[0]}x{size[1]}")
    for lang in LANGUAGES
    for (units, step), size in SIZES.items()
]


def parallel_app(lang: str, units: str) -> ExplorerApp:
    path = str(PARALLEL / f"{lang}.txt")
    trainer = Trainer.from_files([path], TrainerConfig(preset=UNITS[units], vocab_size=1000))
    return ExplorerApp(trainer=trainer, preview=read_preview([path]))


def first_sentence(lang: str) -> str:
    return (PARALLEL / f"{lang}.txt").read_text(encoding="utf-8").splitlines()[0]


def test_twelve_languages():
    assert len(LANGUAGES) == 12


@pytest.mark.parametrize("lang, units, step, size", CASES)
def test_scripts(snap_compare, lang, units, step, size):
    async def steps_and_sentence(pilot):
        app = pilot.app
        await settle(app, pilot)
        if step:
            await pilot.press("ctrl+n")
            await settle(app, pilot)
        box = app.query_one("#encode-input", Input)
        box.cursor_blink = False
        box.value = first_sentence(lang)
        await settle(app, pilot)

    assert snap_compare(parallel_app(lang, units), terminal_size=size, run_before=steps_and_sentence)


async def test_a_hindi_reader_reads_the_corpus_pane_at_step_0():
    app = parallel_app("hi", "bytes")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        words = app.corpus.words_view
        rows = [words.row_text(i) for i in range(words.count)]
        assert not any("<0x" in row for row in rows), rows[:5]
        assert any(row.rstrip().endswith("·है") for row in rows)  # "is", after its space
        app.corpus.set_text_view(True)
        await settle(app, pilot)
        running = str(app.corpus.query_one("#corpus-text-body").render())
        assert "पुस्तकालय·नौ·बजे·खुलता·है" in running
        await pilot.press("u")  # the bytes, one key away
        await settle(app, pilot)
        assert "·<0xE0><0xA4><0xB9><0xE0><0xA5><0x88>" in str(app.corpus.query_one("#corpus-text-body").render())
        app.corpus.set_text_view(False)
        await settle(app, pilot)
        assert any("<0xE0>" in words.row_text(i) for i in range(words.count))
        await pilot.press("u")
        await settle(app, pilot)
        assert not any("<0x" in words.row_text(i) for i in range(words.count))


async def test_the_encode_box_draws_a_cut_character_once_over_its_tokens_ids():
    app = parallel_app("hi", "bytes")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.query_one("#encode-input", Input).value = "है"
        await settle(app, pilot)
        view = app.encode.query_one("#encode-view")
        top, ids = view.row_text(0), view.row_text(1)
        table = app.session.table()
        assert top.startswith("है") and "<0x" not in top
        assert ids.split() == [str(i) for i in table.encode("है")] == ["224", "164", "185", "224", "165", "136"]
        await pilot.press("u")
        await settle(app, pilot)
        assert view.row_text(0).split() == ["<0xE0>", "<0xA4>", "<0xB9>", "<0xE0>", "<0xA5>", "<0x88>"]

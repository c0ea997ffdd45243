"""What a notebook shows: the ``_repr_html_`` of MergeTable, Trainer and MergeEvent, and
``bpe_tui.show(table, text)``; and the short plain reprs a console shows.

Checked: everything from a token or a text is escaped, long tables and texts are cut, bytes
tokens read as the explorer writes them, the hover says id, merge number (1-based) and bytes,
nothing depends on colour alone, and none of it loads Jupyter (or textual, or rich).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import bpe_tui
from bpe_tui import MergeTable, Trainer, TrainerConfig
from bpe_tui.core import notebook
from tests.conftest import CORPORA, rank_file


@pytest.fixture(scope="module")
def demo() -> Trainer:
    trainer = Trainer.from_files([bpe_tui.demo_corpus_path()], TrainerConfig(vocab_size=400, special_tokens=["<|endoftext|>"]))
    trainer.goto(30)
    return trainer


def titles(html: str) -> list[str]:
    return re.findall(r'title="([^"]*)"', html)


def chip_labels(html: str) -> list[str]:
    """Each chip's label (the text before its id note)."""
    return re.findall(r"<span title=\"[^\"]*\" style=\"[^\"]*\">([^<]*)<span", html)


def test_a_token_that_is_markup_shows_as_text_everywhere():
    hostile = ["<script>alert(1)</script>", 'x" onmouseover="alert(2)', "&amp;"]
    table = MergeTable.from_vocab_merges(
        {**{i: bytes([i]) for i in range(256)}, 256: b"<s", 257: b"<s>", **{258 + k: t.encode() for k, t in enumerate(hostile)}},
        [(b"<", b"s"), (b"<s", b">")],
        special_tokens=hostile,
    )
    html = bpe_tui.show(table, "<s> " + " ".join(hostile))._repr_html_() + table._repr_html_()
    assert "<script" not in html and "onmouseover=" not in html.replace('onmouseover=&quot;', "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&amp;amp;" in html  # the token "&amp;" is shown as those five characters
    assert "x&quot;·onmouseover=&quot;alert(2)" in html  # (its space made visible, as every token's)
    assert "&lt;s&gt;" in html  # the merged token <s>


def test_hovering_a_chip_gives_its_id_its_merge_counted_from_1_and_its_bytes(demo):
    demo.goto(30)
    table = demo.table
    shown = bpe_tui.show(table, " the end<|endoftext|>")
    html = shown._repr_html_()
    the = table.token_id(b" the")
    assert the in shown.ids
    assert f"id {the} · merge {table.rank_of(the) + 1} · bytes 20 74 68 65" in titles(html)
    special = table.special_tokens["<|endoftext|>"]
    assert f"id {special} · special token · bytes 3C 7C 65 6E 64 6F 66 74 65 78 74 7C 3E" in titles(html)
    assert f">{special} special<" in html  # said, not only drawn with a dashed border
    first = table.merge_ids[0][2]
    assert f"id {first} · merge 1 · " in table._repr_html_()


def test_bytes_tokens_read_as_the_explorer_writes_them(demo):
    demo.goto(30)
    shown = bpe_tui.show(demo.table, " é\n")
    assert shown.tokens == ["·", "<0xC3>", "<0xA9>", "⏎"]
    html = shown._repr_html_()
    assert chip_labels(html) == ["·", "&lt;0xC3&gt;", "&lt;0xA9&gt;", "⏎"]
    assert "bytes C3" in html and "bytes A9" in html
    assert repr(shown) == "<4 tokens: · | <0xC3> | <0xA9> | ⏎>"


def test_every_chip_has_a_border_and_an_id_so_colour_is_not_needed(demo):
    html = bpe_tui.show(demo.table, "The baker's lowest price")._repr_html_()
    chips = re.findall(r'<span title="[^"]*" style="([^"]*)">([^<]*)<span[^>]*>([^<]*)</span>', html)
    assert len(chips) == len(bpe_tui.show(demo.table, "The baker's lowest price").ids)
    for style, _label, note in chips:
        assert "border:1px solid" in style
        assert note.split()[0].isdigit()


def test_an_unknown_character_is_a_chip_saying_unk():
    trainer = Trainer.from_files([str(CORPORA / "court.txt")], TrainerConfig(preset="classic", vocab_size=60))
    html = bpe_tui.show(trainer.table, "zq")._repr_html_()
    assert html.count(">unk<") == 2 and "border-style:dotted" in html
    assert "unknown character" in titles(html)[0]


def test_a_long_table_lists_its_first_and_last_merges_and_says_how_many_it_left_out(demo):
    demo.goto(100)
    html = demo.table._repr_html_()
    numbers = [int(n.replace(",", "")) for n in re.findall(r'<tr><td style="[^"]*">([\d,]+)</td>', html)]
    assert numbers == [*range(1, 11), *range(96, 101)]
    assert "… 85 merges not shown …" in html
    assert "1 special token" in html and "&lt;|endoftext|&gt; = 256" in html
    small = Trainer.from_files([str(CORPORA / "court.txt")], TrainerConfig(preset="classic", merges=4))
    small.goto(4)
    assert "not shown" not in small.table._repr_html_()


def test_a_long_text_is_cut_after_max_chips_and_says_how_many_more(demo):
    shown = bpe_tui.show(demo.table, "a b " * 700)
    assert len(shown.ids) == len(demo.table.encode("a b " * 700)) > notebook.MAX_CHIPS
    html = shown._repr_html_()
    assert len(chip_labels(html)) == notebook.MAX_CHIPS
    assert f"… {len(shown.ids) - notebook.MAX_CHIPS} more tokens (.ids has them all)" in html
    assert len(repr(shown)) < 100


def test_a_merge_event_shows_its_pair_its_token_and_why(demo):
    event = demo.history[-1]
    html = event._repr_html_()
    assert f"<b>merge {event.step}</b>" in html
    assert notebook._e(event.explanation) in html
    assert f">{event.new_id}<" in html and f">{event.pair_ids[0]}<" in html
    text = repr(event)
    assert text.startswith(f"<MergeEvent merge {event.step}: ") and "\n" not in text and len(text) < 120
    assert "words_touched" not in text  # the dataclass's repr listed every word the merge touched


def test_a_trainer_shows_where_it_stands_its_last_merge_and_the_pairs_next(demo):
    demo.goto(30)
    html = demo._repr_html_()
    assert "step 30/" in html and f"vocabulary {demo.vocab_size}" in html
    assert notebook._e(demo.history[-1].explanation) in html
    assert "▶1" in html
    assert html.count("<tr>") == notebook.NEXT_PAIRS + 1
    text = repr(demo)
    assert text.startswith("<Trainer 'demo.txt' step 30/") and "bytes · gpt2 · lexical-max" in text
    fresh = Trainer.from_text("low lower lowest", TrainerConfig(preset="classic", merges=1))
    assert "no merges yet" in fresh._repr_html_()
    fresh.step()
    assert "<b>finished</b>: reached 1 merges" in fresh._repr_html_()


def test_a_hand_merge_undone_is_what_the_trainer_says_comes_next():
    trainer = Trainer.from_files([str(CORPORA / "court.txt")], TrainerConfig(preset="classic", vocab_size=60))
    trainer.step(pair=("o", "u"))
    trainer.undo()
    html = trainer._repr_html_()
    assert "planned hand merge o + u" in html and "▶" not in html


def test_a_rank_file_is_summarised_without_building_its_merge_list(tmp_path):
    table = bpe_tui.load(rank_file(tmp_path / "r.tiktoken", [b"ab", b"abc"]))
    assert not table.merges_built
    assert "merge list not built yet" in repr(table)
    html = table._repr_html_() + bpe_tui.show(table, "abc")._repr_html_()
    assert "table.build_merges() first" in html
    assert not table.merges_built
    table.build_merges()
    assert "merge 2 ·" in bpe_tui.show(table, "abc")._repr_html_()


def test_plain_reprs_stay_one_short_line(demo):
    for value in (demo, demo.table, demo.history[0], bpe_tui.show(demo.table, "x" * 500)):
        text = repr(value)
        assert "\n" not in text and len(text) < 200, text


def test_drawing_for_a_notebook_loads_no_jupyter_and_no_ui():
    probe = (
        "import json, sys, bpe_tui\n"
        "t = bpe_tui.Trainer.from_text('low lower lowest', bpe_tui.TrainerConfig(preset='classic', merges=3))\n"
        "e = t.step()\n"
        "html = t._repr_html_() + t.table._repr_html_() + e._repr_html_() + bpe_tui.show(t.table, 'lowest')._repr_html_()\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert not loaded & {"IPython", "ipykernel", "jupyter_client", "nbformat", "textual", "rich"}

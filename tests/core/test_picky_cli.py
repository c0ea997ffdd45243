"""PickyBPE at the command line and in files: --picky TAU, --preset picky, the formats that
hold its tables (native, and the authors' model), and every bad input as one line, exit 2,
nothing written."""

from __future__ import annotations

import json

import pytest

import bpe_tui
from bpe_tui.core.errors import BPEError
from tests.conftest import CORPORA
from tests.core.test_cli import error_of, run

DEMO = str(CORPORA / "demo.txt")


@pytest.fixture(scope="module")
def picky_table():
    trainer = bpe_tui.Trainer.from_files(DEMO, bpe_tui.TrainerConfig(preset="picky", picky=0.6, vocab_size=300))
    for _ in trainer.run():
        pass
    assert trainer.removed, "the demo corpus should make PickyBPE remove tokens at τ 0.6"
    return trainer.table


def test_train_with_picky_then_encode_and_trace(capsys, tmp_path):
    out_path = tmp_path / "picky.json"
    code, out, _ = run(capsys, "train", DEMO, "--preset", "picky", "--picky", "0.6", "--vocab-size", "300", "-o", str(out_path))
    assert code == 0 and "PickyBPE τ 0.6" in out and " removals, " in out and "out of the vocabulary" in out
    table = bpe_tui.load(str(out_path))
    assert len(table) == 300 and table.removals and table.word_start == "▁"
    code, out, _ = run(capsys, "encode", "-t", str(out_path), "--ids", "the lowest newest")
    assert out.split() == [str(i) for i in table.encode("the lowest newest")]
    # a word whose replay crosses a removal: the trace says so
    word = next(w for w in open(DEMO, encoding="utf-8").read().split() if any(s.split for s in table.trace(w)))
    code, out, _ = run(capsys, "trace", "-t", str(out_path), word)
    assert code == 0 and " removal" in out.splitlines()[0] and ": removed " in out


def test_encode_gives_the_tables_unk_id_in_every_output(picky_table, capsys, tmp_path):
    """Characters the table does not know are its <UNK> (id 1) in --ids (which streams), in
    --json and in the plain listing alike: --ids printed -1 for them (issue 42)."""
    path = tmp_path / "pk.json"
    bpe_tui.save(picky_table, str(path))
    text = "x 日本 x"
    expected = picky_table.encode(text)
    assert picky_table.unk_id == 1 and expected.count(1) == 2
    _, out, _ = run(capsys, "encode", "-t", str(path), "--ids", text)
    assert out.split() == [str(i) for i in expected]
    _, out, _ = run(capsys, "encode", "-t", str(path), "--json", text)
    assert json.loads(out)["ids"] == expected
    _, out, _ = run(capsys, "encode", "-t", str(path), text)
    assert [int(line.split("\t")[0]) for line in out.splitlines()] == expected


def test_a_table_trained_with_an_end_of_word_marker_encodes_with_offsets(capsys, tmp_path):
    """PickyBPE with --end-of-word (which training accepts): encode --json raised IndexError
    (issue 42), for the replay's spans counted a token's characters as base symbols, and
    </w> is one symbol of four characters. The spans are the tokens' own characters."""
    path = tmp_path / "pk-eow.json"
    code, _, err = run(capsys, "train", DEMO, "--preset", "picky", "--picky", "0.7", "--vocab-size", "300", "--end-of-word", "</w>", "-o", str(path))
    assert code == 0, err
    table = bpe_tui.load(str(path))
    assert table.removals and table.end_of_word == "</w>"
    lines = open(DEMO, encoding="utf-8").read().splitlines()[:40] + ["the lowest x 日本", "newest newest", ""]
    for line in lines:
        ids, spans = table.encode_with_offsets(line)
        assert ids == table.encode(line)
        for token_id, (start, end) in zip(ids, spans):
            surface = table.vocab.get(token_id, "")
            shown = surface.replace("</w>", "").replace("▁", "") if token_id != table.unk_id else line[start:end]
            assert line[start:end].endswith(shown) or (shown == "" and start <= end), (line, token_id, surface, start, end)
    code, out, err = run(capsys, "encode", "-t", str(path), "--json", "the lowest x 日本")
    assert code == 0, err
    assert json.loads(out)["ids"] == table.encode("the lowest x 日本")


def test_saved_tables_keep_the_removals(picky_table, tmp_path):
    lines = open(DEMO, encoding="utf-8").read().splitlines()[:30]
    expected = [picky_table.renumbered().encode(line) for line in lines]
    for fmt in ("native", "picky"):
        path = tmp_path / f"t.{fmt}.json"
        bpe_tui.save(picky_table, str(path), format=fmt)
        back = bpe_tui.load(str(path))
        assert back.source_format == fmt and len(back) == len(picky_table)
        assert [back.encode(line) for line in lines] == expected
        assert back.removals and back.removed
    # the reference's numbering: no gaps, the tokens removed for good after the others
    renumbered = picky_table.renumbered()
    assert sorted(renumbered.vocab) == list(range(len(picky_table)))
    assert min(renumbered.removed) == len(picky_table)


@pytest.mark.parametrize("fmt", ["hf", "transformers", "subword-nmt"])
def test_formats_that_cannot_hold_removals_refuse(picky_table, tmp_path, fmt):
    with pytest.raises(BPEError, match=f"the {fmt} format cannot hold PickyBPE's removals") as err:
        bpe_tui.save(picky_table, str(tmp_path / "out"), format=fmt)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "out").exists()
    with pytest.raises(BPEError, match="its removals"):
        picky_table.to_tokenizers()


@pytest.mark.parametrize("fmt", [None, "native", "picky"])
def test_handing_to_tokenizers_says_where_unseen_characters_go(picky_table, tmp_path, fmt):
    """A Picky table gives characters it never saw its own <UNK> (id 1), never UNK_ID (-1):
    the refusal says so, trained, and saved and read back in either format that holds it."""
    table = picky_table
    if fmt is not None:
        bpe_tui.save(picky_table, str(tmp_path / "t.json"), format=fmt)
        table = bpe_tui.load(str(tmp_path / "t.json"))
    assert table.encode("\u65e5")[-1] == table.special_tokens["<UNK>"] == 1
    with pytest.raises(BPEError) as err:
        table.to_tokenizers()
    message = str(err.value)
    assert "encode to its unknown token '<UNK>' (id 1) here; the tokenizer.json names no unk_token, so HF drops them" in message
    assert "UNK_ID" not in message and "\n" not in message


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--picky", "0"], "picky: the IoS threshold must be a number above 0 and at most 1"),
        (["--picky", "1.01"], "not 1.01"),
        (["--picky", "nan"], "not nan"),
        (["--picky", "0.9", "--superwords-after", "5"], "--picky and --superwords-after do not go together"),
        (["--preset", "picky", "--format", "hf"], "the hf format cannot hold PickyBPE's setup"),
        (["--picky", "0.9", "--format", "gpt2"], "the gpt2 format cannot hold PickyBPE's setup"),
    ],
)
def test_bad_input_is_one_line_and_nothing_is_written(capsys, tmp_path, argv, message):
    out_path = tmp_path / "never.json"
    line = error_of(capsys, "train", DEMO, "--merges", "20", "-o", str(out_path), *argv)
    assert message in line
    assert not out_path.exists()


def test_going_on_from_a_picky_table_is_refused(capsys, picky_table, tmp_path):
    path = tmp_path / "picky.json"
    bpe_tui.save(picky_table, str(path))
    line = error_of(capsys, "train", DEMO, "--from", str(path), "--picky", "0.9", "-o", str(tmp_path / "more.json"))
    assert "trained under PickyBPE's setup" in line
    assert not (tmp_path / "more.json").exists()

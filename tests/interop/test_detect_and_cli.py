"""Format detection from content (not the file name), the registry, and the CLI commands."""

from __future__ import annotations

import json
import shutil

import pytest

import bpe_tui
from bpe_tui.cli import main
from bpe_tui.core.tables.formats import detect, readers, writers
from tests.conftest import CORPORA

from .conftest import FIXTURES


def test_registry_names():
    assert set(readers()) == {"native", "gpt2", "hf", "tiktoken", "minbpe", "subword-nmt", "sentencepiece", "clip", "picky", "boundless"}
    assert set(writers()) == {"native", "gpt2", "hf", "tiktoken", "minbpe", "subword-nmt", "clip", "transformers", "picky", "boundless"}


@pytest.mark.parametrize("fmt", ["native", "hf", "tiktoken", "minbpe"])
def test_detected_from_content_whatever_the_name(trained_table, tmp_path, fmt):
    path = tmp_path / "table.data"
    bpe_tui.save(trained_table, str(path), format=fmt)
    assert detect(str(path)).NAME == fmt
    assert bpe_tui.load(str(path)).source_format == fmt


def test_subword_nmt_and_sentencepiece_detected(tmp_path):
    import sentencepiece as spm

    codes = tmp_path / "whatever"
    shutil.copy(FIXTURES / "fastbpe.codes", codes)
    assert bpe_tui.load(str(codes)).source_format == "subword-nmt"
    spm.SentencePieceTrainer.train(input=str(CORPORA / "demo.txt"), model_prefix=str(tmp_path / "m"), vocab_size=300,
                                   model_type="bpe", minloglevel=2)
    shutil.move(tmp_path / "m.model", tmp_path / "m.bin")
    assert bpe_tui.load(str(tmp_path / "m.bin")).source_format == "sentencepiece"


def test_corpus_text_is_not_a_table():
    with pytest.raises(bpe_tui.BPEError, match="not a merge table"):
        bpe_tui.load(str(CORPORA / "demo.txt"))


def test_word_pairs_are_a_corpus_not_subword_nmt_codes(tmp_path):
    """Two words per line looks like codes at a glance; the first line of real codes joins
    two single characters, so this is read as the corpus it is."""
    pairs = tmp_path / "cities.txt"
    pairs.write_text("New York\nLos Angeles\nSan Francisco\nLas Vegas\n", encoding="utf-8")
    with pytest.raises(bpe_tui.BPEError, match="not a merge table"):
        detect(str(pairs))


def test_cli_train_legacy_merges(tmp_path, capsys):
    out = tmp_path / "tok.json"
    assert main(["train", str(CORPORA / "court.txt"), "-o", str(out), "--format", "hf", "--legacy-merges", "--tie-break", "hf",
                 "--vocab-size", "270", "-q"]) == 0
    merges = json.loads(out.read_text())["model"]["merges"]
    assert merges and all(isinstance(m, str) for m in merges)


def test_cli_convert_reports_losses_and_legacy_flag(trained_table, tmp_path, capsys):
    src = tmp_path / "t.json"
    bpe_tui.save(trained_table, str(src))
    assert main(["convert", str(src), str(tmp_path / "t.tiktoken"), "--to", "tiktoken"]) == 0
    err = capsys.readouterr().err
    assert "note: special tokens are not stored" in err and "counts" in err
    assert main(["convert", str(src), str(tmp_path / "t2.json"), "--to", "hf", "--legacy-merges"]) == 0
    assert isinstance(json.loads((tmp_path / "t2.json").read_text())["model"]["merges"][0], str)
    assert main(["convert", str(src), str(tmp_path / "t3.json"), "--to", "native", "--legacy-merges"]) == 2
    assert "--legacy-merges applies to the hf format" in capsys.readouterr().err


def test_cli_compare(trained_table, tmp_path, capsys):
    a = tmp_path / "a.json"
    bpe_tui.save(trained_table, str(a))
    b = tmp_path / "b.json"
    bpe_tui.save(trained_table.truncated(100), str(b))
    assert main(["compare", str(a), str(b), "the bookshelf and the bookcase"]) == 0
    out = capsys.readouterr().out
    assert "tokens" in out and "characters per token" in out and "split differently" in out
    assert main(["compare", str(a), str(a), "same text"]) == 0
    assert "same places" in capsys.readouterr().out


def test_gpt2_files_are_not_mistaken_for_tokenizer_json():
    """GPT-2's vocab.json has a token "model" (with an id, not an object after it)."""
    from tests.conftest import GPT2_DIR, need

    for name in ("vocab.json", "merges.txt"):
        assert bpe_tui.load(str(need(GPT2_DIR / name))).source_format == "gpt2"

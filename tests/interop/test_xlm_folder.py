"""XLM / FlauBERT folders: vocab.json + merges.txt of characters with ``</w>`` attached to a
word's last one (not GPT-2's bytes). The folder is made by the real ``tokenizers`` library
(BPE with ``end_of_word_suffix``, saved as vocab.json + merges.txt, the files transformers'
XLMTokenizer reads), and our ids must equal that library's on the varied text set. The Moses
pre-tokenization XLMTokenizer runs first is not applied (said in the notes), so the reference
splits on whitespace too.
"""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

import bpe_tui
from bpe_tui import BPEError
from tests.conftest import CORPORA
from tests.parity_texts import texts

SPECIALS = ["<s>", "</s>", "<pad>", "<unk>", "<special0>"]


def make_folder(tmp_path, tokenizer_config: dict | None, normalizer=None, with_counts: bool = False):
    """Train a tokenizers BPE with an attached </w> and save it as an XLM-style folder."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", end_of_word_suffix="</w>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    if normalizer is not None:
        tok.normalizer = normalizer
    trainer = trainers.BpeTrainer(vocab_size=900, special_tokens=SPECIALS, end_of_word_suffix="</w>", show_progress=False)
    tok.train([str(CORPORA / "demo.txt"), str(CORPORA / "multilingual.txt")], trainer)
    folder = tmp_path / "xlm"
    folder.mkdir()
    tok.model.save(str(folder))
    if with_counts:  # fastBPE's codes carry a count as a third column; XLMTokenizer ignores it
        merges = folder / "merges.txt"
        lines = [line for line in merges.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
        merges.write_text("".join(f"{line} {1000 - n}\n" for n, line in enumerate(lines)), encoding="utf-8")
    (folder / "special_tokens_map.json").write_text(json.dumps({"unk_token": "<unk>", "bos_token": "<s>", "additional_special_tokens": ["<special0>"]}))
    if tokenizer_config is not None:
        (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))
    return tok, folder


@pytest.mark.parametrize("with_counts", [False, True], ids=["two-columns", "fastbpe-counts"])
def test_xlm_folder_encodes_to_the_reference_ids(tmp_path, with_counts):
    tok, folder = make_folder(tmp_path, {"tokenizer_class": "XLMTokenizer", "do_lowercase_and_remove_accent": False}, with_counts=with_counts)
    table = bpe_tui.load(str(folder))
    assert table.units == "chars" and table.end_of_word == "</w>" and table.pretokenizer == "whitespace"
    assert any("Moses" in note for note in table.notes), table.notes
    for text in texts(["<s>", "<special0>"]):
        assert table.encode(text) == tok.encode(text).ids, text


def test_xlm_lowercase_and_remove_accent_comes_from_the_class(tmp_path):
    strip = normalizers.Sequence([normalizers.Lowercase(), normalizers.NFD(), normalizers.StripAccents()])
    tok, folder = make_folder(tmp_path, {"tokenizer_class": "XLMTokenizer", "do_lowercase_and_remove_accent": True}, normalizer=strip)
    table = bpe_tui.load(str(folder))
    assert any("Lowercase + NFD + StripAccents" in note for note in table.notes), table.notes
    for text in ["Élégant CAFÉ naïve Ångström", "Über straße ÇA", *texts()[:60]]:
        assert table.encode(text) == tok.encode(text).ids, text


def test_flaubert_without_lowercase_applies_nfc_only(tmp_path):
    tok, folder = make_folder(tmp_path, {"tokenizer_class": "FlaubertTokenizer", "do_lowercase": True},
                              normalizer=normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()]))
    table = bpe_tui.load(str(folder))
    for text in ["Le Café est FERMÉ", "e\u0301te\u0301 (NFD input)", *texts()[:40]]:
        assert table.encode(text) == tok.encode(text).ids, text


def test_folder_without_class_says_what_it_assumed(tmp_path):
    tok, folder = make_folder(tmp_path, None)
    table = bpe_tui.load(str(folder))
    assert any("no normalizer" in note for note in table.notes), table.notes
    text = "the lower newest widest"
    assert table.encode(text) == tok.encode(text).ids


def test_bad_merges_line_names_file_and_line(tmp_path):
    _, folder = make_folder(tmp_path, None)
    merges = folder / "merges.txt"
    lines = merges.read_text(encoding="utf-8").splitlines()
    lines[3] = "a b c d"
    merges.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(BPEError, match=r"merges\.txt:4: expected 'left right'"):
        bpe_tui.load(str(folder))

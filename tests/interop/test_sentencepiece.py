"""sentencepiece BPE models, read with our own wire-format reader: same ids as sentencepiece.

Raw text goes in on both sides: the table applies sentencepiece's normalizer itself (the
model's precompiled charsmap, squeezed whitespace, the dummy prefix space), and spells
characters outside the vocabulary as sentencepiece does (one <unk> per run, decoded " ⁇ ").
"""

from __future__ import annotations

import pytest
import sentencepiece as spm

import bpe_tui
from bpe_tui import BPEError
from bpe_tui.core.tables.formats.sentencepiece_bpe import parse_message
from tests.conftest import CORPORA
from tests.parity_texts import texts

from .conftest import assert_load_fails, assert_one_line_error


@pytest.fixture(scope="module")
def sp_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("spm")
    corpus = d / "corpus.txt"
    corpus.write_text((CORPORA / "demo.txt").read_text(encoding="utf-8") + (CORPORA / "multilingual.txt").read_text(encoding="utf-8"), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(d / "m"), vocab_size=800, model_type="bpe", character_coverage=1.0,
        user_defined_symbols=["<sep>"], minloglevel=2,
    )
    return str(d / "m.model"), spm.SentencePieceProcessor(model_file=str(d / "m.model")), corpus


def test_same_ids_as_sentencepiece(sp_model):
    """Raw text in, sentencepiece's ids out: its normalizer (nmt_nfkc's charsmap, squeezed
    whitespace, dummy prefix) and its unknown handling are the table's."""
    path, sp, corpus = sp_model
    table = bpe_tui.load(path)
    assert table.source_format == "sentencepiece" and table.units == "chars"
    assert table.config["normalizer"]["name"] == "nmt_nfkc" and table.config["normalizer"]["precompiled_charsmap"]
    lines = [line for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    odd = ["  leading and trailing  ", "tabs\tand\u3000ideographic  spaces", "ﬁne ｆｕｌｌ ①", "x <sep> y", "<sep>x", " <sep> ",
           "unknown \u2603\u2603 snowmen", "\u2603", ""]
    for line in lines[:400] + odd + texts():
        ids = table.encode(line)
        assert ids == sp.encode(line), line
        assert table.decode(ids) == sp.decode(ids), line
    assert list(table.encode_iterable(lines[:50])) == sp.encode("".join(lines[:50]))


def test_pieces_scores_and_types_match(sp_model):
    path, sp, _ = sp_model
    table = bpe_tui.load(path)
    assert len(table) == sp.get_piece_size()
    for i in range(sp.get_piece_size()):
        piece = sp.id_to_piece(i)
        expected = piece if (sp.is_control(i) or sp.is_unknown(i)) else piece.replace("\u2581", " ")
        assert table.vocab[i] == expected
    assert table.special_tokens == {"<sep>": sp.piece_to_id("<sep>")}


def test_unigram_model_is_refused(tmp_path):
    spm.SentencePieceTrainer.train(input=str(CORPORA / "demo.txt"), model_prefix=str(tmp_path / "u"), vocab_size=300,
                                   model_type="unigram", minloglevel=2)
    with pytest.raises(BPEError) as exc:
        bpe_tui.load(str(tmp_path / "u.model"))
    assert_one_line_error(exc, "u.model", "UNIGRAM", "not a BPE model")


def test_truncated_model(sp_model, tmp_path):
    data = open(sp_model[0], "rb").read()
    assert_load_fails(tmp_path / "cut.model", data[: len(data) // 2], "sentencepiece", "byte")


def test_wire_reader():
    # field 1 (varint 150), field 2 (string "hi"), field 3 (fixed32)
    data = bytes([0x08, 0x96, 0x01, 0x12, 0x02]) + b"hi" + bytes([0x1D, 0, 0, 0x80, 0x3F])
    fields = [(f, w, v) for f, w, v, _ in parse_message(data)]
    assert fields == [(1, 0, 150), (2, 2, b"hi"), (3, 5, b"\x00\x00\x80\x3f")]


def test_unknown_characters_encode_as_the_models_unk_id(sp_model):
    path, sp, _ = sp_model
    table = bpe_tui.load(path)
    unk = sp.unk_id()
    assert table.unk_id == unk
    for text in ("the \u2603 cat", "a\u2603b", "\u2603"):
        ids = table.encode(text)
        assert -1 not in ids and unk in ids
        assert ids == sp.encode(text), text

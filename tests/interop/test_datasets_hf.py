"""Datasets against Hugging Face tokenizers' ``train_from_iterator``: tinyshakespeare shipped as
nested JSON lines (gzipped) and as Parquet trains, with the ``hf`` tie-break, to the merges
tokenizers learns from the same records' lines, and ``Trainer.from_iterator`` over the lines
to the same merges as ``train_from_iterator`` over them."""

from __future__ import annotations

import json

import pytest

import bpe_tui
from bpe_tui.core.engine.units import gpt2_str_to_bytes
from tests.dataset_files import tinyshakespeare_lines, write_jsonl, write_parquet

pytest.importorskip("tokenizers")
pytest.importorskip("pyarrow", reason="the parquet extra is not installed")

VOCAB = 2000
SPECIAL = "<|endoftext|>"


def hf_from_iterator(texts) -> list[tuple[bytes, bytes]]:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB, special_tokens=[SPECIAL], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(texts, trainer)
    merges = []
    for m in json.loads(tok.to_str())["model"]["merges"]:
        a, b = m if isinstance(m, list) else m.split(" ")
        merges.append((gpt2_str_to_bytes(a), gpt2_str_to_bytes(b)))
    return merges


def ours(trainer: bpe_tui.Trainer) -> list:
    for _ in trainer.run():
        pass
    return list(trainer.table.merges)


@pytest.fixture(scope="module")
def expected():
    return hf_from_iterator(iter(tinyshakespeare_lines()))


CFG = bpe_tui.TrainerConfig(preset="gpt2", tie_break="hf", vocab_size=VOCAB, special_tokens=[SPECIAL])


def test_from_iterator_learns_train_from_iterators_merges(expected):
    assert ours(bpe_tui.Trainer.from_iterator(iter(tinyshakespeare_lines()), CFG)) == expected


def test_a_nested_jsonl_gz_and_a_parquet_file_learn_them_too(expected, tmp_path):
    lines = tinyshakespeare_lines()
    jsonl = write_jsonl(tmp_path / "ts.jsonl.gz", lines, field="meta.body")
    parquet = write_parquet(tmp_path / "ts.parquet", lines, row_group_size=3000)
    assert ours(bpe_tui.Trainer.from_files([str(jsonl)], CFG, text_field="meta.body", workers=2)) == expected
    assert ours(bpe_tui.Trainer.from_files([str(parquet)], CFG, workers=2)) == expected


def speeches() -> list[str]:
    """tinyshakespeare's speeches as documents of several lines, each ending with the blank
    line that follows it (``...\\n\\n``): GPT-2's regex takes those two line breaks as one
    piece when a document is read whole, as ``train_from_iterator`` reads an item."""
    text = "".join(tinyshakespeare_lines())
    docs = [speech + "\n\n" for speech in text.split("\n\n")]
    assert sum(d.count("\n") > 2 for d in docs) > 5000
    return docs


def test_multi_line_documents_are_read_whole_as_train_from_iterator_reads_them(tmp_path):
    """A record is one document, pre-tokenized whole (a line break inside it may join the
    whitespace around it into one pre-token), from an iterator, JSON lines and Parquet alike;
    read line by line, as a text file is, these documents would give other merges from
    merge 16 on ('\\n\\n' is never a pre-token then)."""
    docs = speeches()
    expected = hf_from_iterator(iter(docs))
    assert (b"\n", b"\n") in expected[:20]
    assert ours(bpe_tui.Trainer.from_iterator(iter(docs), CFG)) == expected
    jsonl = write_jsonl(tmp_path / "speeches.jsonl.gz", docs)
    parquet = write_parquet(tmp_path / "speeches.parquet", docs, row_group_size=2000)
    assert ours(bpe_tui.Trainer.from_files([str(jsonl)], CFG, workers=2)) == expected
    assert ours(bpe_tui.Trainer.from_files([str(parquet)], CFG, workers=2)) == expected
    text_file = tmp_path / "speeches.txt"
    text_file.write_text("".join(docs), encoding="utf-8")
    assert ours(bpe_tui.Trainer.from_files([str(text_file)], CFG)) != expected  # a file: line by line

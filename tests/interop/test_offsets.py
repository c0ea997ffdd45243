"""encode_with_offsets against Hugging Face tokenizers' Encoding.offsets, on the varied text
set (tests/parity_texts.py: 20 scripts, code, whitespace runs, numbers, emoji, special
tokens, tinyshakespeare lines): the same ids first, then the same character spans."""

from __future__ import annotations

import json

import pytest
import tiktoken
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Tokenizer, models, pre_tokenizers

import bpe_tui
from tests.conftest import SHARED, need
from tests.parity_texts import texts

TABLES = SHARED / "tables"


def same_offsets(table, tok, sample, name: str) -> None:
    assert len(sample) > 300 or not (SHARED / "corpora").exists()
    for text in sample:
        ids, spans = table.encode_with_offsets(text)
        assert ids == table.encode(text), (name, text)
        encoding = tok.encode(text, add_special_tokens=False)
        assert encoding.ids == ids, (name, text)
        assert [tuple(o) for o in encoding.offsets] == spans, (name, text)


def test_gpt2_against_its_own_files_in_tokenizers():
    """GPT-2: tokenizers' BPE built from vocab.json and merges.txt (ByteLevel, no post-processor)."""
    directory = need(TABLES / "gpt2")
    tok = Tokenizer(models.BPE.from_file(str(directory / "vocab.json"), str(directory / "merges.txt")))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.add_special_tokens(["<|endoftext|>"])
    same_offsets(bpe_tui.load(str(directory)), tok, texts(["<|endoftext|>"]), "gpt2")


def test_llama3_against_the_tokenizer_to_tokenizers_builds():
    """Llama 3's rank file: tokenizers has no rank-file reader, so the Tokenizer is the one
    ``to_tokenizers()`` builds (its merges rebuilt, ignore_merges on). Its ids are checked
    against tiktoken's (Meta's regex and special tokens) before its offsets are compared."""
    path = need(TABLES / "llama3" / "tokenizer.model")
    table = bpe_tui.load(str(path))
    tok = table.to_tokenizers()
    pattern = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
    enc = tiktoken.Encoding("llama3", pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens=table.special_tokens)
    sample = texts(["<|begin_of_text|>", "<|eot_id|>", "<|start_header_id|>"])
    assert [tok.encode(t, add_special_tokens=False).ids for t in sample] == [enc.encode(t, allowed_special="all") for t in sample]
    same_offsets(table, tok, sample, "llama3")


def test_mistral_v3_tokenizer_json():
    """Mistral 7B v0.3: no pre-tokenizer, Metaspace's prefix space (prepend_scheme first),
    byte_fallback (every <0xNN> token spans its whole character)."""
    path = need(TABLES / "mistral-hf-v3" / "tokenizer.json")
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    sample = texts(["<s>", "</s>", "[INST]"])
    assert any(tok.id_to_token(i).startswith("<0x") for t in sample for i in tok.encode(t, add_special_tokens=False).ids)
    same_offsets(bpe_tui.load(str(path)), tok, sample, "mistral")


def test_roberta_bne_prefix_space():
    """RoBERTa-BNE: ByteLevel with add_prefix_space (the added space spans the segment's first
    character). Its post-processor trims the space off offsets: taken out, to compare spans."""
    path = need(TABLES / "roberta-bne" / "tokenizer.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["post_processor"] = None
    tok = Tokenizer.from_str(json.dumps(data))
    tok.no_truncation()
    tok.no_padding()
    same_offsets(bpe_tui.load(str(path)), tok, texts(["<mask>", "</s>"]), "roberta-bne")


@pytest.mark.parametrize("preset", ["gpt2", "gpt4", "parity"])
def test_a_table_trained_here(trained_table, preset):
    """A table trained here (byte-level, two special tokens), handed to tokenizers; parity's
    pre-tokenizer puts a space in front of every piece, which spans the piece's first
    character."""
    from tests.conftest import CORPORA

    table = trained_table if preset == "gpt2" else bpe_tui.train(
        [str(CORPORA / "demo.txt"), str(CORPORA / "multilingual.txt")], preset=preset, vocab_size=900, special_tokens=["<|endoftext|>"]
    )
    same_offsets(table, table.to_tokenizers(), texts(list(table.special_tokens)), f"trained {preset}")


def test_special_tokens_that_take_in_whitespace(trained_table):
    """Hugging Face's lstrip/rstrip: the token spans the whitespace it takes in (as tokenizers
    gives it without a normalizer); the table comes back through from_tokenizers."""
    from tokenizers import AddedToken

    tok = trained_table.to_tokenizers()
    tok.add_special_tokens([AddedToken("<zz>", lstrip=True, rstrip=True), AddedToken("<ll>", lstrip=True)])
    table = bpe_tui.from_tokenizers(tok)
    sample = ["a  <zz>  b", "<zz>x", "x <ll> y", "x<ll>  \ny <zz>\n\n", *texts(["<zz>", "<ll>"])]
    same_offsets(table, tok, sample, "lstrip/rstrip")
    ids, spans = table.encode_with_offsets("a  <zz>  b")
    assert spans[1] == (1, 9)

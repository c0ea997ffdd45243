"""Hand-off to the libraries people train models with, and back: to_tiktoken, to_tokenizers,
from_tiktoken, from_tokenizers, and the transformers folder (AutoTokenizer.from_pretrained,
offline). Each encodes every text of the varied set to the table's own ids, or is refused
with one line naming why."""

from __future__ import annotations

import json
import os

import pytest
import tiktoken
import tiktoken_ext.openai_public as openai_public
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Tokenizer

import bpe_tui
from bpe_tui import BPEError
from tests.conftest import CORPORA, SHARED, need
from tests.parity_texts import texts

from .conftest import assert_one_line_error

TABLES = SHARED / "tables"


def same_ids_in_tiktoken(table, enc, name):
    sample = texts(sorted(table.special_tokens)[:4])
    mismatches = [t for t in sample if enc.encode(t, allowed_special="all") != table.encode(t)]
    assert not mismatches, f"{name}: {len(mismatches)} of {len(sample)} differ, first: {mismatches[0]!r}"
    for t in sample[:60]:
        assert enc.decode(table.encode(t)) == table.decode(table.encode(t))


def same_ids_in_tokenizers(table, tok, name):
    sample = texts(sorted(table.special_tokens)[:4])
    mismatches = [t for t in sample if tok.encode(t, add_special_tokens=False).ids != table.encode(t)]
    assert not mismatches, f"{name}: {len(mismatches)} of {len(sample)} differ, first: {mismatches[0]!r}"
    assert [tok.encode(t).ids for t in sample[:20]] == [table.encode(t) for t in sample[:20]]  # nothing added


@pytest.fixture(scope="module")
def trained():
    """Tables trained here: GPT-2's and GPT-4's regex, byte-level, with special tokens."""
    files = [str(CORPORA / "demo.txt"), str(CORPORA / "multilingual.txt"), str(CORPORA / "code_sample.py")]
    return {
        preset: bpe_tui.train(files, preset=preset, vocab_size=1000, special_tokens=["<|endoftext|>", "<|pad|>"])
        for preset in ("gpt2", "gpt4", "o200k")
    }


@pytest.fixture(scope="module")
def shared_tables():
    cache: dict = {}

    def get(path):
        if path not in cache:
            cache[path] = bpe_tui.load(str(need(TABLES / path)))
        return cache[path]

    return get


# ---------------------------------------------------------------------- to_tiktoken


@pytest.mark.parametrize("preset", ["gpt2", "gpt4", "o200k"])
def test_to_tiktoken_trained(trained, preset):
    table = trained[preset]
    enc = table.to_tiktoken()
    assert isinstance(enc, tiktoken.Encoding) and enc.n_vocab == table.n_vocab
    same_ids_in_tiktoken(table, enc, preset)


@pytest.mark.parametrize("path", ["gpt2", "cl100k/cl100k_base.tiktoken", "llama3/tokenizer.model"])
def test_to_tiktoken_real(shared_tables, path):
    table = shared_tables(path)
    same_ids_in_tiktoken(table, table.to_tiktoken(), path)


def test_to_tiktoken_refuses_by_name(trained, shared_tables):
    chars = bpe_tui.train(str(CORPORA / "demo.txt"), preset="classic", merges=50)
    cases = [
        (chars, "chars table"),
        (bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=50, lowercase=True), "lowercases"),
        (bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=50, superwords_after=20), "pipeline"),
    ]
    if (TABLES / "roberta-bne").exists():
        cases.append((shared_tables("roberta-bne/tokenizer.json"), "prefix space"))
    if (TABLES / "gpt-neox20b").exists():
        cases.append((shared_tables("gpt-neox20b/20B_tokenizer.json"), "normalizer (NFC)"))
    for table, needle in cases:
        with pytest.raises(BPEError) as exc:
            table.to_tiktoken()
        assert_one_line_error(exc, "tiktoken cannot encode this table", needle)


def test_to_tiktoken_refuses_merges_tiktokens_rule_would_not_follow():
    """abc made from (a, bc) while ab ranks first: the merge list stops at ab + c, tiktoken's
    rule goes on to abc (it merges whatever makes a token). Refused, naming the token."""
    from bpe_tui.core.tables.table import MergeTable
    from bpe_tui.core.text.pretokenize import GPT2_PATTERN

    vocab = {**{b: bytes([b]) for b in range(256)}, 256: b"ab", 257: b"bc", 258: b"abc"}
    table = MergeTable("bytes", vocab, [(97, 98, 256), (98, 99, 257), (97, 257, 258)])
    assert table.encode("abc") == [256, 99]
    enc = tiktoken.Encoding("x", pat_str=GPT2_PATTERN, mergeable_ranks={s: i for i, s in vocab.items()}, special_tokens={})
    assert enc.encode("abc") == [258]  # what a plain hand-over would have done
    with pytest.raises(BPEError) as exc:
        table.to_tiktoken()
    assert_one_line_error(exc, "token b'abc' (id 258)", "merge list", "tiktoken's rule")
    # a tiktoken file of it is written (a file is what was asked for), and convert notes the difference
    from bpe_tui.core.tables import formats

    assert any("encodes by rank, otherwise than this merge list: token b'abc' (id 258)" in n for n in formats.writers()["tiktoken"].losses(table))
    trained = bpe_tui.train(str(CORPORA / "demo.txt"), merges=30)
    assert not any("encodes by rank" in n for n in formats.writers()["tiktoken"].losses(trained))


# ---------------------------------------------------------------------- to_tokenizers


@pytest.mark.parametrize("preset", ["gpt2", "gpt4", "o200k"])
def test_to_tokenizers_trained(trained, preset):
    table = trained[preset]
    tok = table.to_tokenizers()
    assert isinstance(tok, Tokenizer) and tok.get_vocab_size() == len(table)
    same_ids_in_tokenizers(table, tok, preset)
    sample = texts([])[:60]
    assert [tok.decode(table.encode(t)) for t in sample] == [table.decode(table.encode(t)) for t in sample]


def test_to_tokenizers_superwords():
    table = bpe_tui.train(str(need(SHARED / "corpora" / "tinyshakespeare.txt")), preset="gpt2", vocab_size=700, superwords_after=300)
    same_ids_in_tokenizers(table, table.to_tokenizers(), "superwords")


@pytest.mark.parametrize("path", [
    "gpt2", "mistral-hf-v3/tokenizer.json", "roberta-bne/tokenizer.json", "gpt-neox20b/20B_tokenizer.json",
    "cl100k/cl100k_base.tiktoken",
])
def test_to_tokenizers_real(shared_tables, path):
    """What each table does is written: byte_fallback and unk_token (Mistral), ByteLevel's
    prefix space (RoBERTa-BNE), the NFC normalizer (GPT-NeoX), ignore_merges (cl100k)."""
    table = shared_tables(path)
    same_ids_in_tokenizers(table, table.to_tokenizers(), path)


def test_to_tokenizers_refuses_by_name():
    cases = [
        (bpe_tui.train(str(CORPORA / "demo.txt"), preset="classic", merges=50), "end-of-word marker"),
        (bpe_tui.train(str(CORPORA / "demo.txt"), units="chars", end_of_word=None, pretokenizer="whitespace", merges=50), "UNK_ID"),
        (bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=50, lowercase=True), "lowercases"),
    ]
    if (TABLES / "llama2-sp").exists():
        cases.append((bpe_tui.load(str(TABLES / "llama2-sp" / "tokenizer.model")), "sentencepiece's normalizer"))
    for table, needle in cases:
        with pytest.raises(BPEError) as exc:
            table.to_tokenizers()
        assert_one_line_error(exc, "tokenizers cannot encode this table", needle)


# ---------------------------------------------------------------------- from the libraries


def test_from_tiktoken_cl100k(monkeypatch, shared_tables):
    path = need(TABLES / "cl100k" / "cl100k_base.tiktoken")
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda _url, expected_hash=None: load_tiktoken_bpe(str(path), expected_hash))
    enc = tiktoken.Encoding(**openai_public.cl100k_base())
    table = bpe_tui.from_tiktoken(enc)
    assert table.special_tokens == enc._special_tokens and table.n_vocab == enc.n_vocab
    assert table.source == "tiktoken:cl100k_base" and not table.merges_built
    same_ids_in_tiktoken(table, enc, "from_tiktoken cl100k")
    # the ranks written as a .tiktoken file are OpenAI's file, byte for byte: the merges cache is shared
    import hashlib

    from bpe_tui.core.tables.formats.tiktoken_bpe import RankFileMerges

    assert isinstance(table._build, RankFileMerges)
    assert table._build.sha == hashlib.sha256(path.read_bytes()).hexdigest()


def test_from_tiktoken_round_trip(trained):
    table = trained["gpt4"]
    back = bpe_tui.from_tiktoken(table.to_tiktoken())
    assert back.special_tokens == table.special_tokens
    sample = texts(list(table.special_tokens))
    assert [back.encode(t) for t in sample] == [table.encode(t) for t in sample]
    assert back.merges == table.merges  # rebuilt by replay


def test_from_tokenizers(shared_tables, trained):
    path = need(TABLES / "mistral-hf-v3" / "tokenizer.json")
    tok = Tokenizer.from_file(str(path))
    table = bpe_tui.from_tokenizers(tok)
    assert table.source == "tokenizers.Tokenizer" and table.source_format == "hf"
    plain = Tokenizer.from_str(json.dumps(dict(json.loads(tok.to_str()), post_processor=None)))  # (no <s> added)
    same_ids_in_tokenizers(table, plain, "mistral")
    back = bpe_tui.from_tokenizers(trained["gpt2"].to_tokenizers())
    assert back.merges == trained["gpt2"].merges and back.vocab == trained["gpt2"].vocab


def test_from_the_libraries_refuses_what_it_cannot_read():
    from tokenizers import models

    with pytest.raises(BPEError, match="takes a tiktoken.Encoding"):
        bpe_tui.from_tiktoken("cl100k_base")
    with pytest.raises(BPEError, match="not a BPE model"):
        bpe_tui.from_tokenizers(Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]")))


# ---------------------------------------------------------------------- transformers


@pytest.fixture
def offline(monkeypatch):
    """No network: transformers reads the local folder only."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    pytest.importorskip("transformers")


def auto_tokenizer(folder):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))


@pytest.mark.parametrize("source", ["trained", "gpt2", "mistral-hf-v3/tokenizer.json"])
def test_transformers_folder_same_ids(offline, tmp_path, trained, shared_tables, source):
    table = trained["gpt2"] if source == "trained" else shared_tables(source)
    folder = tmp_path / "tok"
    bpe_tui.save(table, str(folder), format="transformers")
    assert sorted(os.listdir(folder)) == ["special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"]
    tok = auto_tokenizer(folder)
    sample = texts(sorted(table.special_tokens)[:4])
    mismatches = [t for t in sample if tok(t)["input_ids"] != table.encode(t)]
    assert not mismatches, f"{len(mismatches)} of {len(sample)} differ, first: {mismatches[0]!r}"
    assert [tok.encode(t, add_special_tokens=False) for t in sample[:30]] == [table.encode(t) for t in sample[:30]]
    assert [tok.decode(table.encode(t)) for t in sample[:60]] == [table.decode(table.encode(t)) for t in sample[:60]]
    back = bpe_tui.load(str(folder))  # read back as its tokenizer.json
    assert back.source_format == "hf" and [back.encode(t) for t in sample[:60]] == [table.encode(t) for t in sample[:60]]


def test_transformers_folder_special_token_roles(offline, tmp_path, trained, shared_tables):
    folder = tmp_path / "trained"
    bpe_tui.save(trained["gpt2"], str(folder), format="transformers", pad_token="<|pad|>")
    tok = auto_tokenizer(folder)
    assert (tok.eos_token, tok.pad_token, tok.bos_token, tok.unk_token) == ("<|endoftext|>", "<|pad|>", None, None)
    assert tok.eos_token_id == trained["gpt2"].special_tokens["<|endoftext|>"]
    config = json.loads((folder / "tokenizer_config.json").read_text())
    assert config["tokenizer_class"] == "PreTrainedTokenizerFast" and config["pad_token"] == "<|pad|>"
    if (TABLES / "mistral-hf-v3").exists():
        bpe_tui.save(shared_tables("mistral-hf-v3/tokenizer.json"), str(tmp_path / "mistral"), format="transformers")
        mistral = auto_tokenizer(tmp_path / "mistral")
        assert (mistral.bos_token, mistral.eos_token, mistral.unk_token) == ("<s>", "</s>", "<unk>")
        assert (mistral.bos_token_id, mistral.eos_token_id, mistral.unk_token_id) == (1, 2, 0)
    with pytest.raises(BPEError) as exc:
        bpe_tui.save(trained["gpt2"], str(tmp_path / "bad"), format="transformers", bos_token="<s>")
    assert_one_line_error(exc, "bos_token '<s>' is not one of the table's special tokens")
    assert not (tmp_path / "bad").exists()


def test_train_format_transformers(offline, tmp_path):
    from bpe_tui.cli import main

    folder = tmp_path / "out"
    assert main(["train", str(CORPORA / "demo.txt"), "--vocab-size", "400", "--special", "<|endoftext|>", "--format", "transformers", "-o", str(folder), "-q"]) == 0
    table = bpe_tui.load(str(folder))
    tok = auto_tokenizer(folder)
    text = "The baker<|endoftext|> said: 42!"
    assert tok(text)["input_ids"] == table.encode(text) and tok.eos_token == "<|endoftext|>"
    assert main(["train", str(CORPORA / "demo.txt"), "--vocab-size", "400", "--format", "transformers", "-o", str(folder), "-q"]) == 2


def test_transformers_folder_refuses_a_table_hf_would_encode_otherwise(tmp_path, shared_tables, capsys):
    """Llama 2's sentencepiece table: its normalizer (dummy prefix, spaces as ▁) is not in a
    tokenizer.json, so AutoTokenizer would give other ids. The folder is refused, library and
    CLI alike (one line, exit 2, nothing written, no notes first); the hf format still writes the
    file, with a note saying what it lacks."""
    from bpe_tui.cli import main

    source = TABLES / "llama2-sp" / "tokenizer.model"
    table = shared_tables("llama2-sp/tokenizer.model")
    with pytest.raises(BPEError) as exc:
        bpe_tui.save(table, str(tmp_path / "lib"), format="transformers")
    assert_one_line_error(exc, "transformers would encode this table otherwise: sentencepiece's normalizer")
    assert not (tmp_path / "lib").exists()
    capsys.readouterr()
    assert main(["convert", str(source), "--to", "transformers", str(tmp_path / "cli")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "write a tokenizer.json with the hf format" in err and "note:" not in err
    assert not (tmp_path / "cli").exists()
    assert main(["convert", str(source), "--to", "hf", str(tmp_path / "llama2.json")]) == 0
    assert "note: sentencepiece's normalizer" in capsys.readouterr().err and (tmp_path / "llama2.json").is_file()
    assert main(["convert", str(source), "--to", "clip", str(tmp_path / "clip.txt")]) == 2
    err = capsys.readouterr().err  # said once, as the error: no note saying it first
    assert err.count("\n") == 1 and "holds byte-level tables with an end-of-word marker only" in err

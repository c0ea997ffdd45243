"""The merge tables people use, from ../shared/tables, opened with no hints: the same ids as
their own library on a varied text set (tests/parity_texts.py: prose in 20 scripts, code,
whitespace runs, numbers, emoji, special tokens, tinyshakespeare lines).

* rank files: tiktoken with the regex and special tokens their publishers ship (OpenAI's from
  tiktoken's own registry, Meta's Llama 3 and OpenAI Whisper's as their code defines them);
* tokenizer.json files: tokenizers, loading the same file (no truncation, no added <s>);
* sentencepiece models: sentencepiece, loading the same file.
"""

from __future__ import annotations

import pytest
import sentencepiece as spm
import tiktoken
import tiktoken_ext.openai_public as openai_public
import tokenizers
from tiktoken.load import load_tiktoken_bpe

import bpe_tui
from bpe_tui.core.errors import DisallowedSpecial
from tests.conftest import SHARED, need
from tests.parity_texts import texts

TABLES = SHARED / "tables"

#: Meta's pre-tokenizer for Llama 3 (llama3/tokenizer.py), typed here independently.
LLAMA3_PAT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _openai(constructor, path, monkeypatch):
    """tiktoken's own registry entry, with its download pointed at the file in ../shared."""
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda _url, expected_hash=None: load_tiktoken_bpe(str(path), expected_hash))
    return tiktoken.Encoding(**constructor())


def _llama3(path, _monkeypatch):
    named = [
        "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>", "<|start_header_id|>", "<|end_header_id|>",
        "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
    ]
    names = named + [f"<|reserved_special_token_{2 + i}|>" for i in range(1, 256 - len(named) + 1)]
    ranks = load_tiktoken_bpe(str(path))
    return tiktoken.Encoding("llama3", pat_str=LLAMA3_PAT, mergeable_ranks=ranks,
                             special_tokens={s: len(ranks) + i for i, s in enumerate(names)})


def _whisper(path, _monkeypatch):
    # whisper/tokenizer.py: ranks read with a plain b64decode (the last line is the empty
    # token), GPT-2's regex, then its special tokens after the ranks.
    ranks = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            import base64

            ranks[base64.b64decode(token)] = int(rank)
    languages = ("en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg "
                 "lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af "
                 "oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su").split()
    specials = ["<|endoftext|>", "<|startoftranscript|>", *[f"<|{c}|>" for c in languages], "<|translate|>",
                "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>",
                *[f"<|{i * 0.02:.2f}|>" for i in range(1501)]]
    pat = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    return tiktoken.Encoding("whisper", pat_str=pat, mergeable_ranks=ranks,
                             special_tokens={s: len(ranks) + i for i, s in enumerate(specials)})


CASES = {
    "cl100k": ("cl100k/cl100k_base.tiktoken", lambda p, m: _openai(openai_public.cl100k_base, p, m)),
    "o200k": ("o200k/o200k_base.tiktoken", lambda p, m: _openai(openai_public.o200k_base, p, m)),
    "llama3": ("llama3/tokenizer.model", _llama3),
    "whisper": ("whisper-multilingual/multilingual.tiktoken", _whisper),
}


@pytest.fixture(scope="module")
def loaded():
    """Each table loaded once for the module (o200k takes seconds)."""
    cache: dict = {}

    def get(name):
        if name not in cache:
            cache[name] = bpe_tui.load(str(need(TABLES / CASES[name][0])))
        return cache[name]

    return get


@pytest.mark.parametrize("name", list(CASES))
def test_same_ids_as_tiktoken(name, loaded, monkeypatch):
    path = need(TABLES / CASES[name][0])
    enc = CASES[name][1](path, monkeypatch)
    table = loaded(name)
    assert table.special_tokens == enc._special_tokens
    sample = texts(sorted(enc.special_tokens_set)[:4])
    assert len(sample) > 300
    mismatches = [t for t in sample if table.encode(t) != enc.encode(t, allowed_special="all")]
    assert not mismatches, f"{len(mismatches)} of {len(sample)} differ, first: {mismatches[0]!r}"
    for t in sample[:60]:
        assert table.decode(table.encode(t)) == enc.decode(enc.encode(t, allowed_special="all"))


def test_notes_say_what_was_recognised(loaded):
    notes = " ".join(loaded("llama3").config["notes"])
    assert "sha256" in notes and "Llama 3" in notes and "256 special tokens" in notes
    assert "emitted whole" in notes
    # Llama 3's ids 128000+ are its special tokens, not unknown extras
    assert loaded("llama3").token_id("<|eot_id|>") == 128009
    whisper = " ".join(loaded("whisper").config["notes"])
    assert "empty token (rank 50256)" in whisper


def test_unknown_file_says_what_it_assumed(tmp_path):
    import base64

    lines = [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)] + ["IGE= 256"]
    path = tmp_path / "mine.tiktoken"
    path.write_text("\n".join(lines) + "\n")
    table = bpe_tui.load(str(path))
    assert table.pretokenizer == "gpt2" and not table.special_tokens
    assert any("not a rank file bpe-tui knows" in n and "GPT-2's regex" in n for n in table.config["notes"])
    assert sum("GPT-2's regex" in n for n in table.config["notes"]) == 1  # (it was said twice)


def test_llama3_merges_through_higher_ranked_parts(loaded):
    """Llama 3 holds tokens whose parts rank above them: their merges are found, and those
    merges sit at the token's own rank."""
    table = loaded("llama3")
    late = [(a, b, new) for a, b, new in table.merge_ids if max(a, b) > new]
    assert len(late) >= 80
    a, b, new = late[0]
    assert table.vocab[a] + table.vocab[b] == table.vocab[new]
    cut = table.truncated(table.rank_of(new) + 1)  # cutting there drops the merge: its parts come later
    assert new not in cut.vocab
    assert len(cut.merges) == cut.num_merges  # every kept merge still names tokens that exist


HF_FILES = ["mistral-hf-v3/tokenizer.json", "roberta-bne/tokenizer.json", "gpt-neox20b/20B_tokenizer.json"]


@pytest.mark.parametrize("name", HF_FILES)
def test_same_ids_as_tokenizers(name):
    path = need(TABLES / name)
    tok = tokenizers.Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    table = bpe_tui.load(str(path))
    decoder = tok.get_added_tokens_decoder().values()
    added = [t.content for t in decoder][:3] + [t.content for t in decoder if t.lstrip or t.rstrip or t.single_word]
    sample = texts(added[:6])
    mismatches = [t for t in sample if table.encode(t) != tok.encode(t, add_special_tokens=False).ids]
    assert not mismatches, f"{len(mismatches)} of {len(sample)} differ, first: {mismatches[0]!r}"
    for t in sample:
        ids = table.encode(t)
        assert table.decode(ids) == tok.decode(ids, skip_special_tokens=False), t


def test_hf_notes_name_what_is_applied():
    neox = bpe_tui.load(str(need(TABLES / "gpt-neox20b/20B_tokenizer.json")))
    assert "normalizer applied: NFC" in neox.config["notes"]
    mistral = bpe_tui.load(str(need(TABLES / "mistral-hf-v3/tokenizer.json")))
    assert mistral.config["byte_fallback"] and mistral.config["fuse_unk"]
    assert any("post_processor" in n for n in mistral.config["notes"])
    roberta = bpe_tui.load(str(need(TABLES / "roberta-bne/tokenizer.json")))
    assert roberta.prefix_space == "always"


def test_same_ids_as_sentencepiece_llama2():
    path = need(TABLES / "llama2-sp/tokenizer.model")
    sp = spm.SentencePieceProcessor(model_file=str(path))
    table = bpe_tui.load(str(path))
    sample = texts() + ["  leading spaces", "\ttab", "\n\nnewlines", " <s> </s> literal control text"]
    mismatches = [t for t in sample if table.encode(t) != sp.encode(t)]
    assert not mismatches, f"{len(mismatches)} of {len(sample)} differ, first: {mismatches[0]!r}"
    for t in sample:
        assert table.decode(sp.encode(t)) == sp.decode(sp.encode(t)), t


QWEN2_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""


def _qwen2_reference(directory):
    """Qwen2's fast tokenizer as transformers builds it from these files (Qwen2Converter):
    NFC, its regex split, byte-level BPE, the added tokens."""
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
    )

    tok = Tokenizer(models.BPE.from_file(str(directory / "vocab.json"), str(directory / "merges.txt")))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_REGEX), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    import json

    added = json.loads((directory / "added_tokens.json").read_text())
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t, _ in sorted(added.items(), key=lambda kv: kv[1])])
    assert all(tok.token_to_id(t) == i for t, i in added.items())
    return tok


def test_qwen2_folder_same_ids_as_its_fast_tokenizer():
    directory = need(TABLES / "qwen2")
    tok = _qwen2_reference(directory)
    table = bpe_tui.load(str(directory))
    assert table.special_tokens == {"<|endoftext|>": 151643, "<|im_start|>": 151644, "<|im_end|>": 151645}
    sample = texts(list(table.special_tokens)) + ["1234567 digits one by one", "e\u0301 combining (NFC)"]
    mismatches = [t for t in sample if table.encode(t) != tok.encode(t, add_special_tokens=False).ids]
    assert not mismatches, f"{len(mismatches)} of {len(sample)} differ, first: {mismatches[0]!r}"
    assert any("Qwen2Tokenizer" in n for n in table.config["notes"])


def test_openai_gpt2_files_same_ids_as_tiktoken(monkeypatch):
    """OpenAI's own encoder.json + vocab.bpe: the folder, or either file, is GPT-2 (not
    subword-nmt codes), with tiktoken's gpt2 encoding's ids."""
    directory = need(TABLES / "gpt2-openai")
    monkeypatch.setattr(
        openai_public, "data_gym_to_mergeable_bpe_ranks",
        lambda vocab_bpe_file, encoder_json_file, vocab_bpe_hash=None, encoder_json_hash=None: __import__(
            "tiktoken.load", fromlist=["x"]).data_gym_to_mergeable_bpe_ranks(str(directory / "vocab.bpe"), str(directory / "encoder.json")),
    )
    enc = tiktoken.Encoding(**openai_public.gpt2())
    for path in (directory, directory / "vocab.bpe", directory / "encoder.json"):
        table = bpe_tui.load(str(path))
        assert table.source_format == "gpt2" and table.num_merges == 50000
    sample = texts(["<|endoftext|>"])
    mismatches = [t for t in sample if table.encode(t) != enc.encode(t, allowed_special="all")]
    assert not mismatches, f"{len(mismatches)} of {len(sample)} differ, first: {mismatches[0]!r}"


def test_folder_with_tokenizer_json_reads_it():
    table = bpe_tui.load(str(need(TABLES / "roberta-bne")))
    assert table.source_format == "hf" and table.prefix_space == "always"


def test_inspect_lists_the_notes(capsys):
    from bpe_tui.cli import main

    assert main(["inspect", str(need(TABLES / "llama3/tokenizer.model"))]) == 0
    out = capsys.readouterr().out
    assert "notes (what the reader recognised" in out and "sha256 as Llama 3" in out
    assert "special tokens (256):" in out and "more" in out  # a long list, cut in the middle


def test_rules_given_by_hand_override_and_are_noted(tmp_path, capsys):
    """A rank file nobody recognises gets GPT-2's regex and no specials; --pretokenizer and
    --special set them, and the notes say they were set by hand."""
    import base64

    from bpe_tui.cli import main

    lines = [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)] + ["MTI= 256"]  # "12"
    path = tmp_path / "mine.tiktoken"
    path.write_text("\n".join(lines) + "\n")
    assert main(["encode", "-t", str(path), "--ids", "x12<|end|>"]) == 0
    assert capsys.readouterr().out.split() == ["120", "256", "60", "124", "101", "110", "100", "124", "62"]
    assert main(["encode", "-t", str(path), "--ids", "--pretokenizer", "gpt4", "--special", "<|end|>", "x12<|end|>"]) == 0
    assert capsys.readouterr().out.split() == ["120", "256", "257"]
    table = bpe_tui.load(str(path)).with_rules("gpt4", ["<|end|>"])
    assert table.special_tokens == {"<|end|>": 257} and table.pretokenizer == "gpt4"
    assert any("set by hand to gpt4" in n for n in table.notes) and any("added by hand: <|end|> = 257" in n for n in table.notes)
    assert main(["inspect", str(path), "--special", "<|end|>"]) == 0
    assert "added by hand" in capsys.readouterr().out


def test_a_normalizer_read_is_written_back(tmp_path):
    """GPT-NeoX's NFC survives a trip through our native file and back out to tokenizer.json."""
    table = bpe_tui.load(str(need(TABLES / "gpt-neox20b/20B_tokenizer.json")))
    bpe_tui.save(table, str(tmp_path / "t.json"))
    again = bpe_tui.load(str(tmp_path / "t.json"))
    bpe_tui.save(again, str(tmp_path / "tokenizer.json"), format="hf")
    tok = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for text in ["e\u0301 combining", "Å Å", "plain"]:
        assert again.encode(text) == table.encode(text) == tok.encode(text, add_special_tokens=False).ids, text


def test_added_tokens_that_are_not_special_are_matched_under_every_policy(tmp_path):
    """GPT-NeoX's runs of spaces (ids 50254-50276) are added tokens marked ``special: false``:
    Hugging Face matches them whole even with ``encode_special_tokens``, so ``encode_ordinary``
    and ``--specials refuse`` must too (they encoded indented code as ordinary text, or refused
    it), and a tokenizer.json written back keeps them not special."""
    path = need(TABLES / "gpt-neox20b/20B_tokenizer.json")
    tok = tokenizers.Tokenizer.from_file(str(path))
    tok.encode_special_tokens = True  # (only the special ones become ordinary text)
    table = bpe_tui.load(str(path))
    code = "def f():\n    return 1\n    \t  a  code <|endoftext|>"
    expected = tok.encode(code, add_special_tokens=False).ids
    assert 50274 in expected and 0 not in expected  # (four spaces whole; <|endoftext|> spelt out)
    assert table.encode_ordinary(code) == expected
    assert table.encode(code, allowed_special=set(), disallowed_special=()) == expected
    with pytest.raises(DisallowedSpecial) as refused:
        table.encode(code, allowed_special=set())
    assert refused.value.token == "<|endoftext|>"  # (refused for its special token, not for its spaces)
    assert table.encode(code[:30], allowed_special=set()) == tok.encode(code[:30], add_special_tokens=False).ids
    bpe_tui.save(table, str(tmp_path / "tokenizer.json"), format="hf")
    again = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    again.encode_special_tokens = True
    assert again.encode(code, add_special_tokens=False).ids == expected
    assert bpe_tui.load(str(tmp_path / "tokenizer.json")).encode_ordinary(code) == expected

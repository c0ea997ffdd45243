"""The tokenizer users' API against the libraries it mirrors, on the real tables: tiktoken's
special-token policy (allowed_special / disallowed_special, encode_ordinary), its lookups and
decoding (n_vocab, encode_single_token, decode_single_token_bytes, decode's errors, batches),
and Hugging Face's counterparts (token_to_id, id_to_token, encode_special_tokens)."""

from __future__ import annotations

import pytest
import tiktoken
import tiktoken_ext.openai_public as openai_public
from tiktoken.load import data_gym_to_mergeable_bpe_ranks, load_tiktoken_bpe

import bpe_tui
from bpe_tui.core.engine.units import gpt2_str_to_bytes
from bpe_tui.core.errors import DisallowedSpecial
from tests.conftest import SHARED, need
from tests.parity_texts import texts

TABLES = SHARED / "tables"


def _gpt2_encoding(monkeypatch):
    """tiktoken's own gpt2 encoding, its download pointed at OpenAI's files in ../shared."""
    directory = need(TABLES / "gpt2-openai")
    monkeypatch.setattr(
        openai_public, "data_gym_to_mergeable_bpe_ranks",
        lambda vocab_bpe_file, encoder_json_file, vocab_bpe_hash=None, encoder_json_hash=None:
            data_gym_to_mergeable_bpe_ranks(str(directory / "vocab.bpe"), str(directory / "encoder.json")),
    )
    return tiktoken.Encoding(**openai_public.gpt2())


def _cl100k_encoding(monkeypatch):
    path = need(TABLES / "cl100k" / "cl100k_base.tiktoken")
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda _url, expected_hash=None: load_tiktoken_bpe(str(path), expected_hash))
    return tiktoken.Encoding(**openai_public.cl100k_base())


PAIRS = {
    "gpt2": (lambda: bpe_tui.load(str(need(TABLES / "gpt2"))), _gpt2_encoding),
    "cl100k": (lambda: bpe_tui.load(str(need(TABLES / "cl100k" / "cl100k_base.tiktoken"))), _cl100k_encoding),
}


@pytest.fixture(scope="module")
def tables():
    cache: dict = {}

    def get(name):
        if name not in cache:
            cache[name] = PAIRS[name][0]()
        return cache[name]

    return get


#: tiktoken's arguments, every combination that means something different.
POLICY_CASES = [
    {},  # tiktoken's default: refuse every special token
    {"allowed_special": "all"},
    {"allowed_special": {"<|endoftext|>"}},
    {"disallowed_special": ()},
    {"allowed_special": set(), "disallowed_special": ()},
    {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()},
    {"allowed_special": {"<|fim_prefix|>"}},
    {"allowed_special": {"<|fim_prefix|>"}, "disallowed_special": {"<|endoftext|>"}},
    {"allowed_special": "all", "disallowed_special": {"<|endoftext|>"}},
    {"disallowed_special": {"lazy"}},  # any string is looked for, a special token or not
    {"allowed_special": {"<|endoftext|>", "not a special token"}},
]

POLICY_TEXTS = [
    "no special here, the lazy dog",
    "hi <|endoftext|> there",
    "<|endoftext|>",
    "a<|fim_prefix|>b<|endoftext|>c",
    "x <|fim_prefix|> y <|fim_middle|> z",
    "<|endoftext",  # the start of one only
    "lazy <|endoftext|><|endoftext|> lazy",
]


def _tiktoken_result(enc, text, case):
    try:
        return enc.encode(text, **case)
    except ValueError as exc:
        token = str(exc).split("disallowed special token ")[1].split(".\n")[0]
        return ("refused", eval(token))  # noqa: S307 - tiktoken writes the token with !r


def _our_result(table, text, case):
    args = {"allowed_special": set(), **case}  # (our default recognises them: tiktoken's made explicit)
    try:
        return table.encode(text, **args)
    except DisallowedSpecial as exc:
        assert isinstance(exc, ValueError)  # as tiktoken raises
        assert text[exc.offset :].startswith(exc.token)
        return ("refused", exc.token)


@pytest.mark.parametrize("name", list(PAIRS))
def test_special_policy_is_tiktokens(name, tables, monkeypatch):
    table = tables(name)
    enc = PAIRS[name][1](monkeypatch)
    kinds = set()
    for case in POLICY_CASES:
        for text in POLICY_TEXTS:
            expected = _tiktoken_result(enc, text, case)
            assert _our_result(table, text, case) == expected, (case, text)
            kinds.add(expected[0] if isinstance(expected, tuple) else "ids")
    assert kinds == {"refused", "ids"}


@pytest.mark.parametrize("name", list(PAIRS))
def test_encode_ordinary_and_batches_are_tiktokens(name, tables, monkeypatch):
    table = tables(name)
    enc = PAIRS[name][1](monkeypatch)
    sample = texts(sorted(enc.special_tokens_set)[:3])
    assert [table.encode_ordinary(t) for t in sample] == [enc.encode_ordinary(t) for t in sample]
    assert table.encode(sample[0]) == table.encode(sample[0], allowed_special="all", disallowed_special="all")
    batch = sample[:80]
    assert table.encode_batch(batch, workers=2) == enc.encode_batch(batch, allowed_special="all")
    assert table.encode_ordinary_batch(batch, workers=2) == enc.encode_ordinary_batch(batch)
    with_specials = [t for t in batch if any(s in t for s in enc.special_tokens_set)]
    assert with_specials
    with pytest.raises(ValueError):
        enc.encode_batch(with_specials)
    with pytest.raises(DisallowedSpecial):
        table.encode_batch(with_specials, workers=2, allowed_special=set())


@pytest.mark.parametrize("name", list(PAIRS))
def test_lookups_are_tiktokens(name, tables, monkeypatch):
    table = tables(name)
    enc = PAIRS[name][1](monkeypatch)
    assert table.n_vocab == enc.n_vocab
    ids = list(range(0, enc.n_vocab, 97)) + sorted(enc._special_tokens.values())
    for i in ids:
        try:
            expected = enc.decode_single_token_bytes(i)
        except KeyError:
            with pytest.raises(KeyError):
                table.decode_single_token_bytes(i)
            continue
        assert table.decode_single_token_bytes(i) == expected, i
        assert table.token_to_id(expected) == i
        assert enc.encode_single_token(expected) == i
    for text in ("hello", " the", "<|endoftext|>", "\n\n"):
        assert table.token_to_id(text) == enc.encode_single_token(text)
    assert table.token_to_id("certainly not one token, no") is None
    with pytest.raises(KeyError):
        enc.encode_single_token("certainly not one token, no")
    with pytest.raises(KeyError):
        table.decode_single_token_bytes(enc.n_vocab + 5)


@pytest.mark.parametrize("name", list(PAIRS))
def test_decode_errors_are_tiktokens(name, tables, monkeypatch):
    table = tables(name)
    enc = PAIRS[name][1](monkeypatch)
    cut = table.encode("a 🪿 b 𓀀 日本")  # (some tokens hold pieces of a character)
    pieces = [i for i in cut if enc.decode_single_token_bytes(i)[:1] >= b"\x80"]  # tokens that start inside a character
    assert pieces
    broken = pieces + cut
    refused = 0
    for ids in (cut, broken, broken[:1], broken[1:], cut[::-1]):
        for errors in ("replace", "ignore", "backslashreplace"):
            assert table.decode(ids, errors=errors) == enc.decode(ids, errors=errors), (ids, errors)
        try:
            expected = enc.decode(ids, errors="strict")
        except UnicodeDecodeError:
            with pytest.raises(bpe_tui.BPEError) as error:
                table.decode(ids, errors="strict")
            assert isinstance(error.value, ValueError)  # (UnicodeDecodeError is one)
            assert error.value.token_id == ids[error.value.position] and "\n" not in str(error.value)
            refused += 1
        else:
            assert table.decode(ids, errors="strict") == expected
    assert refused >= 2


def test_tiktokens_decode_with_offsets_starts_where_ours_do(tables, monkeypatch):
    """tiktoken's decode_with_offsets gives each token's first character (the one holding
    its first byte): the starts of our spans."""
    table = tables("cl100k")
    enc = _cl100k_encoding(monkeypatch)
    for text in texts(["<|endoftext|>"]):
        ids, spans = table.encode_with_offsets(text)
        decoded, starts = enc.decode_with_offsets(ids)
        assert decoded == text
        assert starts == [s for s, _ in spans], text


def test_hugging_face_names_on_gpt2(tables):
    """token_to_id / id_to_token / vocabulary size and encode_special_tokens (HF's switch for
    encode_ordinary) against a tokenizers Tokenizer of GPT-2's own files."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    table = tables("gpt2")
    tok = Tokenizer(models.BPE.from_file(str(TABLES / "gpt2" / "vocab.json"), str(TABLES / "gpt2" / "merges.txt")))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.add_special_tokens(["<|endoftext|>"])
    assert len(table) == tok.get_vocab_size() == table.n_vocab
    for i in range(0, 50257, 101):
        hf = tok.id_to_token(i)
        ours = table.id_to_token(i)
        assert ours == (gpt2_str_to_bytes(hf) if i != 50256 else hf.encode()), i
        assert table.token_to_id(ours) == tok.token_to_id(hf) == i
    assert table.id_to_token(50257) is None and tok.id_to_token(50257) is None
    sample = texts(["<|endoftext|>"])
    tok.encode_special_tokens = True
    assert [tok.encode(t).ids for t in sample] == [table.encode_ordinary(t) for t in sample]

"""The library as tokenizer users expect it, without the other libraries: the special-token
policy's rules, offsets (properties over random text), lookups, decoding's refusals, batches in
worker processes, pickled tables, and the CLI's options. tests/interop holds the same API to
tiktoken, tokenizers and transformers."""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_tui
from bpe_tui.cli import main
from bpe_tui.core.errors import DisallowedSpecial, TokenIdError, UndecodableToken
from bpe_tui.core.tables import batch, special_policy
from bpe_tui.core.tables.table import UNK_ID
from tests.conftest import CORPORA, rank_file

SPECIALS = ["<|endoftext|>", "<|pad|>", "<|end|>"]  # (<|end|> is a prefix of neither, and shorter)


@pytest.fixture(scope="module")
def byte_table():
    files = [str(CORPORA / "demo.txt"), str(CORPORA / "multilingual.txt")]
    return bpe_tui.train(files, preset="gpt2", vocab_size=800, special_tokens=SPECIALS)


@pytest.fixture(scope="module")
def classic_table():
    return bpe_tui.train(str(CORPORA / "demo.txt"), preset="classic", vocab_size=400, special_tokens=["<eos>"])


@pytest.fixture(scope="module")
def chars_table():
    """Characters, no end-of-word marker, whitespace kept in tokens (GPT-2's regex)."""
    return bpe_tui.train(str(CORPORA / "demo.txt"), units="chars", end_of_word=None, pretokenizer="gpt2", vocab_size=300)


# ---------------------------------------------------------------------- the special-token policy


def test_the_default_recognises_every_special_token(byte_table):
    text = "hi<|endoftext|>there <|pad|>"
    ids = byte_table.encode(text)
    assert byte_table.special_tokens["<|endoftext|>"] in ids and byte_table.special_tokens["<|pad|>"] in ids
    assert ids == byte_table.encode(text, allowed_special="all", disallowed_special="all")


def test_resolve_is_tiktokens_arithmetic():
    every = frozenset(SPECIALS)
    assert special_policy.resolve(SPECIALS, "all", "all") == (every, frozenset())
    assert special_policy.resolve(SPECIALS, set(), "all") == (frozenset(), every)
    assert special_policy.resolve(SPECIALS, {"<|pad|>"}, "all") == ({"<|pad|>"}, every - {"<|pad|>"})
    assert special_policy.resolve(SPECIALS, {"<|pad|>", "other"}, ()) == ({"<|pad|>"}, frozenset())
    assert special_policy.resolve(SPECIALS, set(), ["lazy"]) == (frozenset(), {"lazy"})
    for bad in ("<|pad|>", 5, [1], [""]):
        with pytest.raises(bpe_tui.BPEError):
            special_policy.resolve(SPECIALS, bad, "all")


def test_ordinary_text_and_refusal(byte_table):
    text = "a <|end|> b <|endoftext|>"
    ordinary = byte_table.encode_ordinary(text)
    assert not set(byte_table.special_tokens.values()) & set(ordinary)
    assert byte_table.decode(ordinary) == text
    with pytest.raises(DisallowedSpecial) as refused:
        byte_table.encode(text, allowed_special=set())
    assert (refused.value.token, refused.value.offset) == ("<|end|>", 2) and isinstance(refused.value, ValueError)
    # one allowed, the others ordinary: only that one's id
    ids = byte_table.encode(text, allowed_special={"<|endoftext|>"}, disallowed_special=())
    assert [i for i in ids if byte_table.is_special(i)] == [byte_table.special_tokens["<|endoftext|>"]]
    # the table itself is left as it was (the policy is a view for the call)
    assert set(byte_table.special_tokens) == set(SPECIALS)
    assert byte_table.encode(text) == byte_table.encode(text, allowed_special="all")


def test_the_longest_special_wins_the_refusal_at_one_place():
    table = bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=20, special_tokens=["<a>", "<a>b"])
    with pytest.raises(DisallowedSpecial) as refused:
        table.encode("x <a>b", allowed_special=set())
    assert refused.value.token == "<a>b" and refused.value.offset == 2


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(["ab ", "<|endoftext|>", "<|end", "|>", "x\n", "é", "<|pad|>", " "]), max_size=12), cuts=st.lists(st.integers(0, 60), max_size=5))
def test_streams_follow_the_policy_across_chunk_boundaries(byte_table, parts, cuts):
    """encode_iterable and pieces_iterable over any chunking equal encode of the whole text,
    under each policy; a refused token cut in two by a chunk boundary is still found, at its
    offset in the whole stream."""
    text = "".join(parts)
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    for policy in special_policy.POLICIES:
        allowed, disallowed = special_policy.policy_arguments(policy)
        try:
            whole = byte_table.encode(text, allowed_special=allowed, disallowed_special=disallowed)
        except DisallowedSpecial as exc:
            with pytest.raises(DisallowedSpecial) as streamed:
                list(byte_table.encode_iterable(iter(chunks), allowed_special=allowed, disallowed_special=disallowed))
            assert (streamed.value.token, streamed.value.offset) == (exc.token, exc.offset)
            continue
        assert list(byte_table.encode_iterable(iter(chunks), allowed_special=allowed, disallowed_special=disallowed)) == whole
        pieces = list(byte_table.pieces_iterable(iter(chunks), allowed_special=allowed, disallowed_special=disallowed))
        assert [i for i, _ in pieces] == whole


# ---------------------------------------------------------------------- offsets


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80) | st.lists(
    st.sampled_from(["the", " lowest", "<|endoftext|>", "<|pad|>", "😀", "日本", "  ", "\n", "é", "e\u0301", "’s", "42"]), max_size=15
).map("".join)


def _check_spans(text, spans):
    assert all(0 <= s <= e <= len(text) for s, e in spans)
    assert [s for s, _ in spans] == sorted(s for s, _ in spans)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_byte_level_round_trip_and_offsets(byte_table, text):
    """decode(encode_ordinary(t)) == t; offsets slice back to each token's text where the
    token is whole characters, and a token holding part of a character spans all of it."""
    assert byte_table.decode(byte_table.encode_ordinary(text)) == text
    ids, spans = byte_table.encode_with_offsets(text)
    assert ids == byte_table.encode(text) and len(spans) == len(ids)
    _check_spans(text, spans)
    for token_id, (s, e) in zip(ids, spans):
        data = byte_table.decode_single_token_bytes(token_id)
        try:
            whole = data.decode("utf-8")
        except UnicodeDecodeError:
            assert e - s >= 1 and data.decode("utf-8", "ignore") in text[s:e]  # the characters it is a piece of
            continue
        assert text[s:e] == whole, (text, token_id)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_chars_offsets_slice_back(classic_table, chars_table, text):
    """Chars tables: a token's text (without its end-of-word marker) is its span's text; an
    unknown character spans itself; the marker alone spans nothing."""
    for table in (classic_table, chars_table):
        ids, spans = table.encode_with_offsets(text)
        assert ids == table.encode(text)
        _check_spans(text, spans)
        pieces = table.pieces(text)
        assert [i for i, _ in pieces] == ids
        for (token_id, surface), (s, e) in zip(pieces, spans):
            shown = surface[: -len(table.end_of_word)] if table.end_of_word and surface.endswith(table.end_of_word) else surface
            assert text[s:e] == shown, (text, token_id, surface)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, seed=st.integers(0, 1000))
def test_offsets_under_dropout_are_those_of_the_same_sample(byte_table, text, seed):
    ids, spans = byte_table.encode_with_offsets(text, dropout=0.5, seed=seed)
    assert ids == [i for i, _ in byte_table.pieces(text, dropout=0.5, seed=seed)]
    _check_spans(text, spans)


def test_offsets_through_a_normalizer():
    """A lowercasing table: spans are in the text as given (each token's text is its span's,
    lowercased); a character lowercased into two spans itself."""
    table = bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=100, lowercase=True)
    text = "THE Baker's ÉCOLE"
    ids, spans = table.encode_with_offsets(text)
    assert ids == table.encode(text)
    for token_id, (s, e) in zip(ids, spans):
        data = table.decode_single_token_bytes(token_id)
        if data.decode("utf-8", "ignore") == data.decode("utf-8", "replace"):
            assert text[s:e].lower() == data.decode("utf-8")
    assert "İ".lower() == "i\u0307"  # one character, two once lowercased
    ids, spans = table.encode_with_offsets("xİy")
    assert ids == table.encode("xİy") and spans[0][0] == 0 and spans[-1][1] == 3
    assert all(s <= 1 < e or e <= 1 or s >= 2 for s, e in spans)  # nothing cuts İ in two


@pytest.fixture(scope="module")
def lowering_table():
    """CLIP's rules: bytes, CLIP's regex, </w>, lowercase."""
    return bpe_tui.train(str(CORPORA / "demo.txt"), units="bytes", pretokenizer="clip", end_of_word="</w>", lowercase=True, merges=50)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT | st.sampled_from(["The Moon while WINNING", "xİy ΟΔΟΣ"]))
def test_pretoken_spans_are_the_pieces_where_they_stand(byte_table, lowering_table, text):
    """pretoken_spans: pretokenize's pieces, each with its characters in the text as given,
    in order; a lowercasing table's piece comes from its span's text lowercased."""
    for table in (byte_table, lowering_table):
        found = table.pretoken_spans(text)
        assert [(sp, piece) for sp, piece, _ in found] == table.pretokenize(text)
        _check_spans(text, [span for _, _, span in found])
        for sp, piece, (s, e) in found:
            if sp or table is byte_table:
                assert piece == text[s:e]
            else:
                assert piece in text[s:e].lower(), (text, piece, text[s:e])


def test_offsets_under_the_policy(byte_table):
    text = "a<|pad|>b"
    ids, spans = byte_table.encode_with_offsets(text)
    assert spans[1] == (1, 8) and ids[1] == byte_table.special_tokens["<|pad|>"]
    ids, spans = byte_table.encode_with_offsets(text, allowed_special=set(), disallowed_special=())
    assert ids == byte_table.encode_ordinary(text) and "".join(text[s:e] for s, e in spans) == text


# ---------------------------------------------------------------------- lookups and decoding


def test_lookups(byte_table, chars_table):
    the = byte_table.token_to_id(" the")
    assert the is not None and byte_table.token_to_id(b" the") == the and byte_table.id_to_token(the) == b" the"
    assert byte_table.token_to_id("<|pad|>") == byte_table.special_tokens["<|pad|>"]
    assert byte_table.token_to_id("no such token at all") is None and byte_table.id_to_token(10**6) is None
    assert byte_table.n_vocab == len(byte_table) == max(byte_table.vocab) + 1
    assert byte_table.decode_single_token_bytes(the) == b" the"
    with pytest.raises(KeyError):
        byte_table.decode_single_token_bytes(10**6)
    token = next(s for s in chars_table.vocab.values() if len(s) > 2)
    assert chars_table.token_to_id(token) == chars_table.token_to_id(token.encode()) is not None
    assert chars_table.token_to_id(b"\xff") is None
    gapped = byte_table.with_rules(special_tokens=["<|late|>"])
    assert gapped.n_vocab == len(gapped)  # (with_rules numbers after the vocabulary: no gap)


def test_n_vocab_counts_past_a_gap(tmp_path):
    path = rank_file(tmp_path / "gap.tiktoken", [b"ab", b"cd"])
    table = bpe_tui.load(path).with_rules(special_tokens=["<x>"])
    assert len(table) == 259 and table.n_vocab == 259
    from bpe_tui.core.tables.table import MergeTable

    sparse = MergeTable("bytes", {**{b: bytes([b]) for b in range(256)}, 300: b"<s>"}, [], {"<s>": 300})
    assert len(sparse) == 257 and sparse.n_vocab == 301


def test_decode_refuses_ids_the_table_lacks(byte_table, classic_table):
    assert not byte_table.emits_unknown and classic_table.emits_unknown
    with pytest.raises(TokenIdError) as absent:
        byte_table.decode([104, UNK_ID])
    assert "position 2" in str(absent.value) and "every byte has a token" in str(absent.value)
    for bad in (-2, 10**6):
        with pytest.raises(TokenIdError):
            byte_table.decode([bad])
        with pytest.raises(TokenIdError):
            classic_table.decode([bad])
    # where encode gives UNK_ID, decode takes it back as U+FFFD
    ids = classic_table.encode("the ☃ end")
    assert UNK_ID in ids and "\ufffd" in classic_table.decode(ids)


def test_decode_strict_names_the_first_bad_id(byte_table):
    ids = byte_table.encode("ab 😀 c")
    cut = [i for i in ids if not byte_table.decode_single_token_bytes(i).isascii()]
    assert cut and byte_table.decode(ids, errors="strict") == "ab 😀 c"
    bad = ids[:1] + cut[:1] + ids[:1]
    with pytest.raises(UndecodableToken) as refused:
        byte_table.decode(bad, errors="strict")
    assert (refused.value.token_id, refused.value.position) == (cut[0], 1)
    assert byte_table.decode(bad) == byte_table.decode(bad, errors="replace") and "\ufffd" in byte_table.decode(bad)
    assert "\ufffd" not in byte_table.decode(bad, errors="ignore")


# ---------------------------------------------------------------------- batches and pickling


def test_encode_batch_in_worker_processes(byte_table):
    lines = (CORPORA / "demo.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:400] + ["a<|pad|>b", ""]
    expected = [byte_table.encode(t) for t in lines]
    for workers in (None, 1, 2, 3):
        assert byte_table.encode_batch(lines, workers=workers) == expected
    assert byte_table.encode_batch([], workers=2) == []
    assert byte_table.encode_ordinary_batch(lines, workers=2) == [byte_table.encode_ordinary(t) for t in lines]
    with pytest.raises(DisallowedSpecial):
        byte_table.encode_batch(lines, workers=2, allowed_special=set())


def test_batch_runs_cover_every_text_once():
    texts = ["x" * n for n in [5, 0, 300, 1, 1, 80, 2000, 3, 3, 3]]
    for count in range(1, 14):
        runs = batch.runs(texts, count)
        assert runs[0][0] == 0 and runs[-1][1] == len(texts) and len(runs) <= count
        assert all(a < b for a, b in runs) and all(b == c for (_, b), (c, _) in zip(runs, runs[1:]))
    assert batch.resolve_workers(None, 10, 50) == 1 and batch.resolve_workers(8, 10**9, 3) == 3


def test_tables_pickle_as_values(byte_table, tmp_path):
    back = pickle.loads(pickle.dumps(byte_table))
    assert back.merges == byte_table.merges and back.special_tokens == byte_table.special_tokens
    assert back.encode("the <|pad|> end") == byte_table.encode("the <|pad|> end")
    ranked = bpe_tui.load(rank_file(tmp_path / "r.tiktoken", [b"ab", b"cd", b"abcd"]))
    assert not ranked.merges_built
    again = pickle.loads(pickle.dumps(ranked))
    assert again.encode("abcd") == ranked.encode("abcd") == [258] and again.merges == ranked.merges


# ---------------------------------------------------------------------- the CLI


def test_cli_specials_and_offsets(capsys, tmp_path, byte_table):
    path = tmp_path / "t.json"
    bpe_tui.save(byte_table, str(path))
    text = "the <|pad|> 😀"
    assert main(["encode", "-t", str(path), "--json", text]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["ids"] == byte_table.encode(text)
    assert [tuple(o) for o in record["offsets"]] == byte_table.encode_with_offsets(text)[1]
    assert main(["encode", "-t", str(path), "--ids", "--specials", "ordinary", text]) == 0
    assert capsys.readouterr().out.split() == [str(i) for i in byte_table.encode_ordinary(text)]
    assert main(["encode", "-t", str(path), "--json", "--specials", "ordinary", text]) == 0
    assert json.loads(capsys.readouterr().out)["ids"] == byte_table.encode_ordinary(text)
    assert main(["encode", "-t", str(path), "--specials", "refuse", text]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "the special token '<|pad|>' at character 5 (offset 4) is refused" in err
    assert main(["encode", "-t", str(path), "--ids", "--specials", "refuse", "no specials"]) == 0
    assert capsys.readouterr().out.split() == [str(i) for i in byte_table.encode("no specials")]

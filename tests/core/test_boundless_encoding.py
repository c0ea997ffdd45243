"""Encoding with a BoundlessBPE table (tables/boundless.py), on small models written by hand:
supermerges join whole adjacent pre-tokens only, in event order, leftmost first, chained;
a pre-token is whole from the merge that makes it until a deletion splits it, and a supermerge
takes it only in between; a supermerge never applies inside a pre-token. Each expectation is
worked out here by hand; test_boundless_reference_diff.py holds the same models to the
authors' inference where their checkout is present."""

from __future__ import annotations

import random

import pytest

import bpe_tui
from bpe_tui.core.errors import BPEError
from bpe_tui.core.tables.formats import boundless as boundless_format
from tests.core.boundless_golden import model_text

#: GPT-2's pattern as the authors' regexconstants spell it (read as our gpt2)
GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def spelled(word: str) -> list[tuple]:
    """Word merges that build ``word`` left to right: (w0, w1), (w0w1, w2), ..."""
    b = word.encode()
    return [("W", b[:k], b[k : k + 1]) for k in range(1, len(b))]


OF, THE, WORLD, LA = spelled(" of"), spelled(" the"), spelled(" world"), spelled(" la")
#: The models of these tests, by name: (events, pre-tokenizer regex).
MODELS: dict[str, tuple[list[tuple], str]] = {
    "basic": (OF + THE + WORLD + [("S", b" of", b" the"), ("S", b" of the", b" world")] + LA + [("S", b" la", b" la")], GPT2),
    # " ab" is whole from event 1; the supermerge (event 5) comes before the deletion (event 8)
    "deleted-after": (
        spelled(" ab") + spelled(" cd") + [("S", b" ab", b" cd")] + [("W", b" ab", b"x"), ("W", b" abx", b"y"), ("D", b" ab")],
        GPT2,
    ),
    # the deletion (event 4) comes before the supermerge (event 7): " ab" is never whole then
    "deleted-before": (spelled(" ab") + [("W", b" ab", b"x"), ("D", b" ab")] + spelled(" cd") + [("S", b" ab", b" cd")], GPT2),
    # letters in twos: "abcd" is two pre-tokens, which join; letters in runs: one, which does not
    "pairs": ([("W", b"a", b"b"), ("W", b"c", b"d"), ("S", b"ab", b"cd")], r"\p{L}{2}|."),
    "inside": ([("W", b"a", b"b"), ("W", b"c", b"d"), ("S", b"ab", b"cd")], r"\p{L}+|."),
}


def table(name: str, tmp_path, deletions: str | None = None):
    events, pattern = MODELS[name]
    path = tmp_path / f"{name}.model"
    path.write_text(model_text(events, pattern), encoding="utf-8")
    return boundless_format.read(str(path), deletions=deletions) if deletions else bpe_tui.load(str(path))


def pieces(t, text: str) -> list[bytes]:
    return [t.surface(i) for i in t.encode(text)]


def test_supermerges_join_whole_pre_tokens_in_order_and_chain(tmp_path):
    t = table("basic", tmp_path)
    assert t.source_format == "boundless" and t.is_boundless and t.supermerges == [11, 12, 15]
    assert pieces(t, " of the world") == [b" of the world"]  # (" of", " the") then (" of the", " world")
    assert pieces(t, " the world of the") == [b" the", b" world", b" of the"]
    assert pieces(t, "of the") == [b"o", b"f", b" the"]  # "of" is not a whole token: no supermerge
    assert pieces(t, " of, the") == [b" of", b",", b" the"]  # not side by side
    assert pieces(t, " la la la la la") == [b" la la", b" la la", b" la"]  # leftmost first, no overlaps


def test_a_pre_token_joins_while_it_is_whole(tmp_path):
    after = table("deleted-after", tmp_path)
    # whole at the supermerge (event 7), deleted into bytes later (event 10): joined first
    assert pieces(after, " ab cd") == [b" ab cd"]
    assert pieces(after, " ab ab") == [b" ", b"a", b"b", b" ", b"a", b"b"]
    before = table("deleted-before", tmp_path)
    # deleted (event 4) before the supermerge (event 7): never whole then, so never joined
    assert pieces(before, " ab cd") == [b" ", b"a", b"b", b" cd"]
    # deleted into the pair that made it instead (the authors' ablation)
    pair = table("deleted-before", tmp_path, deletions="pair")
    assert pieces(pair, " ab cd") == [b" a", b"b", b" cd"]


def test_a_supermerge_never_applies_inside_a_pre_token(tmp_path):
    pairs = table("pairs", tmp_path)
    assert pairs.pretokenize("abcd") == [(False, "ab"), (False, "cd")]
    assert pieces(pairs, "abcd") == [b"abcd"]  # two whole pre-tokens side by side: joined
    assert pieces(pairs, "abc") == [b"ab", b"c"]
    inside = table("inside", tmp_path)
    assert inside.pretokenize("abcd") == [(False, "abcd")]
    assert pieces(inside, "abcd") == [b"ab", b"cd"]  # one pre-token: its word events only
    assert [step.new_token for step in inside.trace("abcd")] == [b"ab", b"cd"]


def test_every_way_in_gives_the_same_ids(tmp_path):
    t = table("basic", tmp_path)
    rng = random.Random(7)
    words = [" of", " the", " world", " la", ",", " x", "\n", " of the"]
    for _ in range(50):
        text = "".join(rng.choice(words) for _ in range(rng.randrange(1, 30)))
        ids = t.encode(text)
        assert t.decode(ids) == text
        assert [i for i, _ in t.pieces(text)] == ids
        cut = [text[k : k + 3] for k in range(0, len(text), 3)]  # a stream in 3-character chunks
        assert list(t.encode_iterable(cut)) == ids
        assert [i for i, _ in t.pieces_iterable(cut)] == ids
        assert t.encode_batch([text, text], workers=1) == [ids, ids]
    with pytest.raises(BPEError, match="offsets are not worked out for a BoundlessBPE table"):
        t.encode_with_offsets(" of the")
    with pytest.raises(BPEError, match="BPE-dropout is not defined"):
        t.encode(" of the", dropout=0.5)


def test_special_tokens_end_a_run(tmp_path):
    events, pattern = MODELS["basic"]
    path = tmp_path / "specials.model"
    path.write_text(model_text(events, pattern, {"<|endoftext|>": 300}), encoding="utf-8")
    t = bpe_tui.load(str(path))
    eot = t.special_tokens["<|endoftext|>"]
    assert t.encode(" of<|endoftext|> the") == [t.token_id(b" of"), eot, t.token_id(b" the")]
    assert list(t.encode_iterable([" of<|endo", "ftext|> the world"])) == t.encode(" of<|endoftext|> the world")


def test_a_cut_table_keeps_the_supermerges_before_the_cut(tmp_path):
    t = table("basic", tmp_path)
    cut = t.truncated(11)
    assert cut.supermerges == [11] and cut.is_boundless
    assert pieces(cut, " of the world") == [b" of the", b" world"]
    assert pieces(t.truncated(10), " of the world") == [b" of", b" the", b" world"]


def test_long_runs_join_as_short_ones(tmp_path, monkeypatch):
    """A run of 64 pre-tokens or more is joined with a heap (BoundlessEvents._long_run): the
    same result as the short runs' loop, on long random runs of the basic model's words."""
    from bpe_tui.core.tables import boundless

    t = table("basic", tmp_path)
    rng = random.Random(64)
    texts = ["".join(rng.choice([" of", " the", " world", " la"]) for _ in range(rng.randrange(64, 300))) for _ in range(30)]
    texts.append(" la" * 101)
    heap = [t.encode(text) for text in texts]
    assert [t.surface(i) for i in heap[-1]] == [b" la la"] * 50 + [b" la"]
    monkeypatch.setattr(boundless, "LONG_RUN", 10**9)
    again = table("basic", tmp_path)  # (a fresh table: no run remembered)
    assert [again.encode(text) for text in texts] == heap

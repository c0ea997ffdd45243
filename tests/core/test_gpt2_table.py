"""GPT-2's real merge table (from ../shared): our ids must equal tiktoken's."""

from __future__ import annotations

import json
import shutil

import pytest

import bpe_tui
from bpe_tui.core.engine.units import gpt2_str_to_bytes
from tests.conftest import CORPORA, GPT2_DIR, TAYLORSWIFT, TINYSHAKESPEARE, need

tiktoken = pytest.importorskip("tiktoken")

# tiktoken's own GPT-2 pattern (it claims equivalence with the original; we check it).
R50K = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

HARD = [
    "Hello, world! It's 2024 and they'll've done it.",
    "emoji 👩‍💻🇩🇪🙂 and CJK 日本語のテキスト 中文",
    "whitespace   runs\t\t\n\n\n  and trailing   ",
    "digits 1234567890 3.14159 1,000,000",
    "'s 's 'S 'll 'LL don't DON'T",
    "Ünïcödé ß ı İ ğ § — “quoted” ‘single’",
    "code: def f(x):\n    return x**2  # comment\n",
    "<|endoftext|> between <|endoftext|>documents",
    "\x00\x01 control \u200b zero width",
]


@pytest.fixture(scope="module")
def gpt2_pair():
    need(GPT2_DIR / "vocab.json")
    ours = bpe_tui.load(str(GPT2_DIR))
    with open(GPT2_DIR / "vocab.json", encoding="utf-8") as f:
        vocab = json.load(f)
    ranks = {gpt2_str_to_bytes(t): i for t, i in vocab.items() if t != "<|endoftext|>"}
    enc = tiktoken.Encoding("gpt2-from-files", pat_str=R50K, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 50256})
    return ours, enc


def test_loads_with_its_own_ids(gpt2_pair):
    ours, _ = gpt2_pair
    assert len(ours) == 50257 and ours.num_merges == 50000
    assert ours.special_tokens == {"<|endoftext|>": 50256}
    assert ours.encode("Hello world") == [15496, 995]
    assert ours.source_format == "gpt2"


@pytest.mark.parametrize("text", HARD)
def test_hard_cases_match_tiktoken(gpt2_pair, text):
    ours, enc = gpt2_pair
    assert ours.encode(text) == enc.encode(text, allowed_special="all")
    assert ours.decode(ours.encode(text)) == text


@pytest.mark.parametrize("path", [TAYLORSWIFT, TINYSHAKESPEARE], ids=["taylorswift", "tinyshakespeare"])
def test_shared_corpora_match_tiktoken(gpt2_pair, path):
    ours, enc = gpt2_pair
    text = need(path).read_text(encoding="utf-8")
    assert ours.encode(text) == enc.encode(text, allowed_special="all")


def test_with_version_header_and_without_load_the_same(gpt2_pair, tmp_path):
    ours, _ = gpt2_pair
    shutil.copy(GPT2_DIR / "vocab.json", tmp_path / "vocab.json")
    merges = (GPT2_DIR / "merges.txt").read_text(encoding="utf-8")
    assert not merges.startswith("#version")
    (tmp_path / "merges.txt").write_text("#version: 0.2\n" + merges, encoding="utf-8")
    headed = bpe_tui.load(str(tmp_path / "merges.txt"))
    assert headed.merge_ids == ours.merge_ids


def test_round_trip_through_our_gpt2_writer(gpt2_pair, tmp_path):
    ours, _ = gpt2_pair
    bpe_tui.save(ours, str(tmp_path / "out"), format="gpt2")
    again = bpe_tui.load(str(tmp_path / "out"))
    assert again.merge_ids == ours.merge_ids and again.vocab == ours.vocab


def test_trace_explains_a_split(gpt2_pair):
    ours, _ = gpt2_pair
    steps = ours.trace(" tokenization")
    assert steps[-1].symbols == tuple(ours.tokens(" tokenization"))
    assert all(ours.merge_at(s.rank)[2] == ours.token_id(s.new_token) for s in steps)


@pytest.mark.parametrize(
    ("cut", "first"), [(200_000, "26,058 ('ĠTillerson')"), ("lines", "23,087 ('ĠWords')")], ids=["mid-line", "at-a-line-end"]
)
def test_a_merges_file_cut_short_is_refused_in_one_line(gpt2_pair, tmp_path, cut, first):
    """Cut short, GPT-2's merges.txt left 27,038 tokens of vocab.json made by no merge, and
    they were taken for special tokens: `·prosecuted` was matched whole in the text. (Cut
    mid-line, the last line reads "Ġprosecut e", a merge that makes id 26,057: the tokens
    after it are named.)"""
    shutil.copy(GPT2_DIR / "vocab.json", tmp_path / "vocab.json")
    merges = (GPT2_DIR / "merges.txt").read_bytes()
    kept = merges[:200_000] if cut == 200_000 else b"".join(merges.splitlines(keepends=True)[:22_831])
    (tmp_path / "merges.txt").write_bytes(kept)
    with pytest.raises(bpe_tui.BPEError) as error:
        bpe_tui.load(str(tmp_path))
    message = str(error.value)
    assert message.startswith(f"{tmp_path / 'merges.txt'}:22831: the merges end here, but {tmp_path / 'vocab.json'} holds "), message
    assert f"from id {first}:" in message and message.endswith("merges.txt looks cut short, or belongs to another vocab.json")


def test_a_left_over_token_that_is_no_pair_stays_a_special_token(tmp_path):
    """The rule on a small pair of files: ``abc`` left over (``ab`` + ``c``) is a missing
    merge; ``<|endoftext|>`` left over is a special token."""
    from bpe_tui.core.engine.units import bytes_to_gpt2_str

    vocab = {bytes_to_gpt2_str(bytes([b])): b for b in range(256)}
    vocab.update({"ab": 256, "abc": 257, "<|endoftext|>": 258})
    (tmp_path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (tmp_path / "merges.txt").write_text("a b\nab c\n", encoding="utf-8")
    whole = bpe_tui.load(str(tmp_path))
    assert whole.special_tokens == {"<|endoftext|>": 258} and whole.encode("abc") == [257]
    (tmp_path / "merges.txt").write_text("a b\n", encoding="utf-8")
    with pytest.raises(bpe_tui.BPEError, match=r"merges.txt:1: the merges end here, .* 1 tokens that two of its tokens join into and no merge makes, from id 257 \('abc'\)"):
        bpe_tui.load(str(tmp_path))
    # a token the folder's added_tokens.json names is the folder's own: no missing merge
    (tmp_path / "added_tokens.json").write_text(json.dumps({"abc": 257}), encoding="utf-8")
    assert bpe_tui.load(str(tmp_path)).special_tokens == {"abc": 257, "<|endoftext|>": 258}
    (tmp_path / "added_tokens.json").unlink()
    # a pair bpe-tui wrote (its fingerprint in merges.txt) holds what it meant to: a special
    # token of two bytes ("##"), or a table whose tokens no merge builds (Llama 3's, written
    # as gpt2), is read as written
    table = bpe_tui.train(str(CORPORA / "cat_sat.txt"), merges=10, special_tokens=["##"])
    bpe_tui.save(table, str(tmp_path / "ours"), format="gpt2")
    again = bpe_tui.load(str(tmp_path / "ours"))
    assert again.special_tokens == table.special_tokens and again.merge_ids == table.merge_ids

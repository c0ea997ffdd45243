"""tiktoken rank files: ours load in tiktoken and encode alike; GPT-2 three ways, one answer."""

from __future__ import annotations

import base64

import pytest
import tiktoken
from tiktoken.load import load_tiktoken_bpe

import bpe_tui
from bpe_tui import BPEError
from bpe_tui.core.tables.formats.tiktoken_bpe import rebuild_merges
from bpe_tui.core.text.pretokenize import GPT2_PATTERN
from tests.conftest import GPT2_DIR, need

from .conftest import TEXTS, assert_load_fails, write


def encoding_for(path, table, pattern=GPT2_PATTERN):
    return tiktoken.Encoding(
        "bpe-tui-test", pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens=table.special_tokens
    )


def test_tiktoken_encodes_our_table_to_our_ids(trained_table, tmp_path):
    path = tmp_path / "table.tiktoken"
    bpe_tui.save(trained_table, str(path), format="tiktoken")
    enc = encoding_for(path, trained_table)
    for text in TEXTS:
        assert enc.encode(text, allowed_special="all") == trained_table.encode(text), text
        assert enc.decode(trained_table.encode(text)) == text
    back = bpe_tui.load(str(path))
    assert back.source_format == "tiktoken"
    assert back.merges == trained_table.merges  # rebuilt by replay, not stored
    assert back.encode(TEXTS[0]) == trained_table.encode(TEXTS[0])


def test_gpt4_regex_table(tmp_path):
    from bpe_tui.core.text.pretokenize import GPT4_PATTERN
    from tests.conftest import CORPORA

    table = bpe_tui.train(str(CORPORA / "code_sample.py"), preset="gpt4", vocab_size=600)
    path = tmp_path / "t.tiktoken"
    bpe_tui.save(table, str(path), format="tiktoken")
    enc = encoding_for(path, table, GPT4_PATTERN)
    for text in TEXTS:
        assert enc.encode(text, allowed_special="all") == table.encode(text), text


@pytest.fixture(scope="module")
def gpt2_three_ways(tmp_path_factory):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    need(GPT2_DIR / "vocab.json")
    d = tmp_path_factory.mktemp("gpt2")
    from_files = bpe_tui.load(str(GPT2_DIR))
    # a tokenizer.json written by tokenizers itself from GPT-2's two files
    tok = Tokenizer(models.BPE.from_file(str(GPT2_DIR / "vocab.json"), str(GPT2_DIR / "merges.txt")))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(["<|endoftext|>"])
    tok.save(str(d / "tokenizer.json"))
    from_hf = bpe_tui.load(str(d / "tokenizer.json"))
    # a tiktoken file we wrote, read back (merges rebuilt by replaying BPE)
    bpe_tui.save(from_files, str(d / "gpt2.tiktoken"), format="tiktoken")
    from_tiktoken = bpe_tui.load(str(d / "gpt2.tiktoken"))
    enc = tiktoken.Encoding("gpt2-local", pat_str=GPT2_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(d / "gpt2.tiktoken")),
                            special_tokens={"<|endoftext|>": 50256})
    return from_files, from_hf, from_tiktoken, enc, tok


def test_gpt2_three_loads_identical_ids_identical_to_tiktoken(gpt2_three_ways):
    from tests.conftest import TAYLORSWIFT

    from_files, from_hf, from_tiktoken, enc, tok = gpt2_three_ways
    assert [t.source_format for t in (from_files, from_hf, from_tiktoken)] == ["gpt2", "hf", "tiktoken"]
    texts = list(TEXTS)
    if TAYLORSWIFT.exists():
        texts.append(TAYLORSWIFT.read_text(encoding="utf-8")[:30_000])
    for text in texts:
        ids = from_files.encode(text)
        assert from_hf.encode(text) == ids
        assert from_tiktoken.encode(text) == ids
        assert enc.encode(text, allowed_special="all") == ids
        assert tok.encode(text).ids == ids


def test_gpt2_merges_rebuilt_exactly_from_ranks(gpt2_three_ways):
    from_files, from_hf, from_tiktoken, _, _ = gpt2_three_ways
    assert from_tiktoken.merges == from_files.merges == from_hf.merges
    assert from_tiktoken.special_tokens == from_files.special_tokens == {"<|endoftext|>": 50256}
    # the point of replaying: splitting at the longest known prefix gets many merges wrong
    known = {s for s in from_files.vocab.values()}
    naive_wrong = 0
    for left, right in from_files.merges:
        token = left + right
        cut = max(k for k in range(1, len(token)) if token[:k] in known and token[k:] in known)
        naive_wrong += (token[:cut], token[cut:]) != (left, right)
    assert naive_wrong > 1000


def test_unreachable_token_is_kept_and_noted(tmp_path):
    # "xabcdy" replayed with only ab and cd stops at x + ab + cd + y: tiktoken never makes it.
    lines = [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)]
    for rank, tok in enumerate([b"ab", b"cd", b"xabcdy"], start=256):
        lines.append(f"{base64.b64encode(tok).decode()} {rank}")
    table = bpe_tui.load(write(tmp_path / "u.tiktoken", "\n".join(lines) + "\n"))
    assert table.num_merges == 2 and table.vocab[258] == b"xabcdy"
    assert any("only a whole pre-token emits them" in n for n in table.config["notes"])
    assert table.encode("xabcdy") == [258]  # tiktoken's whole-pre-token lookup
    assert table.encode("xabcdyz") == [ord("x"), 256, 257, ord("y"), ord("z")]


def test_replay_uses_only_lower_ranks():
    by_rank = {i: bytes([i]) for i in range(256)}
    by_rank.update({256: b"bc", 257: b"ab", 258: b"abc"})
    merges, unreachable = rebuild_merges(by_rank)
    # "abc" replays with bc (rank 256) first: a + bc, although ab exists too.
    assert merges[-1] == (ord("a"), 256, 258) and not unreachable


@pytest.mark.parametrize(
    "content, needles",
    [
        ("IQ== 0\nIg== 1\n!!notbase64 2\n", ["line 3", "bad base64"]),
        ("IQ== 0\nIg==\n", ["line 2", "expected 'base64 rank'"]),
        ("IQ== 0\nIg== x\n", ["line 2", "rank"]),
        ("IQ== 0\nIQ== 1\n", ["line 2", "listed twice"]),
        ("IQ== 0\nIg== 1\n", ["no rank"]),
        ("", ["empty"]),
    ],
    ids=["bad-base64", "truncated-line", "bad-rank", "duplicate", "missing-bytes", "empty"],
)
def test_malformed(tmp_path, content, needles):
    assert_load_fails(tmp_path / "x.tiktoken", content, "tiktoken", *needles)


def test_chars_table_cannot_be_written(tmp_path):
    from tests.conftest import CORPORA

    table = bpe_tui.train(str(CORPORA / "court.txt"), preset="classic", merges=3)
    with pytest.raises(BPEError, match="byte-level"):
        bpe_tui.save(table, str(tmp_path / "x.tiktoken"), format="tiktoken")


def test_rebuilt_merges_are_cached_by_sha256(tmp_path, monkeypatch):
    """The second open of a rank file reads its merges from the cache (the replay is not run
    again); a damaged cache file is ignored and the merges are rebuilt."""
    from bpe_tui.core.tables.formats import merges_cache, tiktoken_bpe

    monkeypatch.setenv("BPE_TUI_CACHE", str(tmp_path / "cache"))
    lines = [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)]
    for rank, tok in enumerate([b"ab", b"cd", b"abcd", b"xabcdy"], start=256):
        lines.append(f"{base64.b64encode(tok).decode()} {rank}")
    path = write(tmp_path / "c.tiktoken", "\n".join(lines) + "\n")
    first = bpe_tui.load(path)
    assert not (tmp_path / "cache").exists()  # opening does not need the merges
    assert not first.merges_built and first.encode("abcd") == [258]
    first.merge_ids
    files = list((tmp_path / "cache").iterdir())
    assert len(files) == 1 and files[0].name.startswith("tiktoken-")

    def no_replay(_by_rank):
        raise AssertionError("the merges should come from the cache")

    monkeypatch.setattr(tiktoken_bpe, "rebuild_merges", no_replay)
    second = bpe_tui.load(path)
    assert second.merge_ids == first.merge_ids and second.notes == first.notes
    files[0].write_bytes(merges_cache.MAGIC + b"\x05\x00")  # damaged: too short
    monkeypatch.undo()
    monkeypatch.setenv("BPE_TUI_CACHE", str(tmp_path / "cache"))
    assert bpe_tui.load(path).merge_ids == first.merge_ids


def test_merge_list_is_built_when_asked_with_progress_and_cancel(tmp_path, monkeypatch):
    """A rank file opens without its merge list (encoding goes by token rank); build_merges
    reports progress, stops when cancelled (nothing kept), and builds when asked again."""
    monkeypatch.setenv("BPE_TUI_CACHE", str(tmp_path / "cache"))
    lines = [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)]
    tokens = [b"ab", b"cd", b"abcd", b"xabcdy"] + [bytes([65 + i % 26, 97 + i // 26]) for i in range(300)]
    for rank, tok in enumerate(dict.fromkeys(tokens), start=256):
        lines.append(f"{base64.b64encode(tok).decode()} {rank}")
    table = bpe_tui.load(write(tmp_path / "p.tiktoken", "\n".join(lines) + "\n"))
    assert not table.merges_built
    assert table.encode("abcd\nxabcdy") == [258, ord("\n"), 259]  # xabcdy whole: tiktoken's lookup
    assert not table.build_merges(cancelled=lambda: True) and not table.merges_built
    seen: list = []
    assert table.build_merges(progress=lambda done, total: seen.append((done, total)))
    assert table.merges_built and seen and seen[-1][0] == seen[-1][1] == len(table)
    assert table.merge_ids[:3] == [(ord("a"), ord("b"), 256), (ord("c"), ord("d"), 257), (256, 257, 258)]
    assert table.trace("abcd")[-1].new_token == b"abcd" and table.trace("abcd")[-1].rank == 2
    assert table.build_merges()  # already there


def test_one_special_token_is_said_in_the_singular():
    import tiktoken

    import bpe_tui

    enc = tiktoken.Encoding(
        name="one-special", pat_str=r"\S+|\s+", mergeable_ranks={bytes([i]): i for i in range(256)}, special_tokens={"<|endoftext|>": 256}
    )
    notes = bpe_tui.from_tiktoken(enc).notes
    assert "from tiktoken's Encoding 'one-special': its regex and 1 special token" in notes

"""Compressed table files open like their plain form: every format, every compression, found
by the first bytes whatever the name says; the CLI commands that take a table; bad input."""

from __future__ import annotations

import bz2
import gzip
import lzma

import pytest

import bpe_tui
from bpe_tui.core import compression
from bpe_tui.core.tables.formats import detect
from tests.conftest import CORPORA
from tests.core.test_cli import error_of, run


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard", reason="the zstd extra is not installed")
    return zstandard.ZstdCompressor().compress(data)


COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress, "zstd": _zstd}
#: A file name per format (a reader may look at the extension, as native does at .json).
NAMES = {"native": "t.json", "hf": "tokenizer.json", "tiktoken": "t.tiktoken", "minbpe": "t.model", "subword-nmt": "codes.txt", "clip": "vocab.txt"}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """One small table saved in each single-file format."""
    d = tmp_path_factory.mktemp("plain")
    corpus = str(CORPORA / "demo.txt")
    byte_level = bpe_tui.train(corpus, preset="gpt2", merges=200, special_tokens=["<|endoftext|>"])
    chars = bpe_tui.train(corpus, preset="classic", merges=200)
    clip_style = bpe_tui.train(corpus, units="bytes", pretokenizer="clip", end_of_word="</w>", lowercase=True, merges=200)
    out = {}
    for fmt, name in NAMES.items():
        table = {"subword-nmt": chars, "clip": clip_style}.get(fmt, byte_level)
        path = d / name
        bpe_tui.save(table, str(path), format=fmt)
        out[fmt] = path
    return out


def same(a, b) -> None:
    assert a.source_format == b.source_format and a.merge_ids == b.merge_ids and a.vocab == b.vocab
    assert a.special_tokens == b.special_tokens and a.pretokenizer == b.pretokenizer
    text = "The baker's lowest price: 7:45 <|endoftext|> ΟΔΟΣ"
    assert a.encode(text) == b.encode(text)


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
@pytest.mark.parametrize("fmt", sorted(NAMES))
def test_every_format_opens_compressed_like_its_plain_form(tables, tmp_path, fmt, kind):
    plain = tables[fmt]
    packed = COMPRESSORS[kind](plain.read_bytes())
    for name in (plain.name + compression.EXTENSIONS[kind][0], plain.name):  # the right ending, and none
        path = tmp_path / name
        path.write_bytes(packed)
        table = bpe_tui.load(str(path))
        same(table, bpe_tui.load(str(plain)))
        assert detect(str(path)).NAME == fmt
        assert table.source == str(path)
        assert table.notes[0].startswith(f"{kind}-compressed: read decompressed ({len(packed):,} -> {plain.stat().st_size:,} bytes)")


def test_the_commands_that_take_a_table_take_it_compressed(tables, tmp_path, capsys):
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(tables["native"].read_bytes()))
    code, out, _ = run(capsys, "inspect", str(path))
    assert code == 0 and "native merge table" in out and "gzip-compressed" in out
    code, out, _ = run(capsys, "encode", "-t", str(path), "--ids", "the lowest price")
    expect = bpe_tui.load(str(tables["native"])).encode("the lowest price")
    assert code == 0 and out.split() == [str(i) for i in expect]
    code, out, _ = run(capsys, "decode", "-t", str(path), *map(str, expect))
    assert code == 0 and out == "the lowest price"
    code, _, _ = run(capsys, "convert", str(path), str(tmp_path / "again.json"), "--to", "native")
    assert code == 0 and bpe_tui.load(str(tmp_path / "again.json")).merge_ids == bpe_tui.load(str(path)).merge_ids


def test_a_compressed_corpus_is_not_a_table(tmp_path):
    path = tmp_path / "corpus.txt.gz"
    path.write_bytes(gzip.compress((CORPORA / "demo.txt").read_bytes()))
    with pytest.raises(bpe_tui.BPEError, match=r"gzip-compressed, and what it holds is not a merge table this tool can read"):
        detect(str(path))


def test_detection_decompresses_only_the_head(tmp_path, monkeypatch):
    """A compressed corpus of any size is told apart from a table without reading it all."""
    from bpe_tui.core.tables.formats import _compressed

    sizes = []
    real = _compressed.decompressed

    def watched(path, kind, limit=None):
        sizes.append(limit)
        return real(path, kind, limit)

    monkeypatch.setattr(_compressed, "decompressed", watched)
    path = tmp_path / "big.txt.gz"
    path.write_bytes(gzip.compress(b"lorem ipsum dolor sit amet\n" * 200_000))
    with pytest.raises(bpe_tui.BPEError):
        detect(str(path))
    assert sizes == [_compressed.HEAD]


@pytest.mark.parametrize("cut", [0.5, 0.98])
def test_a_truncated_compressed_table_is_one_line_and_exit_2(tables, tmp_path, capsys, cut):
    packed = gzip.compress(tables["native"].read_bytes())
    path = tmp_path / "t.json.gz"
    path.write_bytes(packed[: int(len(packed) * cut)])
    line = error_of(capsys, "inspect", str(path))
    assert str(path) in line and ("damaged gzip data" in line or "not a merge table" in line)


def test_zstandard_without_its_package_names_the_extra(tables, tmp_path, capsys, monkeypatch):
    path = tmp_path / "t.json.zst"
    path.write_bytes(_zstd(tables["native"].read_bytes()))
    monkeypatch.setattr(compression, "_zstd", None)
    line = error_of(capsys, "inspect", str(path))
    assert "needs the zstandard package" in line and "bpe-tui[zstd]" in line and str(path) in line


def test_a_bad_table_inside_names_the_compressed_file(tmp_path):
    path = tmp_path / "codes.txt.gz"
    path.write_bytes(gzip.compress(b"#version: 0.2\na b\nc d e f\n"))
    with pytest.raises(bpe_tui.BPEError) as info:
        bpe_tui.load(str(path))
    assert str(info.value).startswith(f"{path}: line 3:") and "/bpe-tui-" not in str(info.value)

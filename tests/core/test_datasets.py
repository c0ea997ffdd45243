"""Datasets as they are shipped: compressed text, JSON lines and Parquet give the documents they
hold, and the same text gives the same word counts and merges in every form.

A record is a document: tinyshakespeare as JSON lines or Parquet whose records are its lines
(each with its newline) trains to the merges of the text file itself, and so do its gzip,
bzip2, xz and Zstandard forms, with 1 and 2 workers, and any iterable of its lines.
"""

from __future__ import annotations

import gzip
import json
import os

import pytest

import bpe_tui
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.text import corpus
from bpe_tui.core.text.corpus import count_files, count_text
from bpe_tui.core.text.datasets.records import ReadReport
from bpe_tui.core.text.parts import file_kind, plan_parts, preview_text
from bpe_tui.core.text.sources import expand_sources
from tests.dataset_files import (
    record,
    ten_mb_records,
    tinyshakespeare_lines,
    write_bytes,
    write_jsonl,
    write_parquet,
)

pytest.importorskip("pyarrow", reason="the parquet extra is not installed")
pytest.importorskip("zstandard", reason="the zstd extra is not installed")

FORMATS = ["ts.txt", "ts.txt.gz", "ts.txt.bz2", "ts.txt.xz", "ts.txt.zst", "ts.jsonl", "ts.jsonl.gz", "ts.jsonl.zst", "ts.parquet"]


@pytest.fixture(scope="module")
def shakespeare(tmp_path_factory):
    """tinyshakespeare in every form, made here from ../shared's copy (lines as records)."""
    lines = tinyshakespeare_lines()
    d = tmp_path_factory.mktemp("shakespeare")
    text = "".join(lines).encode("utf-8")
    for name in FORMATS:
        if name.startswith("ts.txt"):
            write_bytes(d / name, text)
        elif name.startswith("ts.jsonl"):
            write_jsonl(d / name, lines)
    write_parquet(d / "ts.parquet", lines, row_group_size=4000)  # 10 row groups
    return d


def merges(trainer: Trainer) -> list:
    return [(e.pair, e.count) for e in trainer.run()]


def test_every_form_of_tinyshakespeare_gives_the_text_files_merges(shakespeare):
    """first-seen reads the words' order, so this checks the order of first appearance too.
    Training is a function of the counted words in their order and the rules: every form's
    words are held to the text file's, and two forms (a stream, a Parquet file split among
    workers) are trained to the text file's merges besides."""
    cfg = TrainerConfig(preset="gpt2", tie_break="first-seen", merges=400, special_tokens=["<|endoftext|>"])
    reference = Trainer.from_files([str(shakespeare / "ts.txt")], cfg, workers=1)
    words = list(reference.corpus_counts()[0].items())
    expected = merges(reference)
    for name in FORMATS:
        for workers in (1, 2):
            trainer = Trainer.from_files([str(shakespeare / name)], cfg, workers=workers)
            assert list(trainer.corpus_counts()[0].items()) == words, (name, workers)
            if (name, workers) in (("ts.jsonl.zst", 1), ("ts.parquet", 2)):
                assert merges(trainer) == expected, (name, workers)
    lines = tinyshakespeare_lines()
    assert merges(Trainer.from_iterator(iter(lines), cfg)) == expected
    assert merges(Trainer.from_iterator(lines, cfg)) == expected


def test_the_records_are_counted_and_parts_are_the_forms_natural_pieces(shakespeare, monkeypatch):
    monkeypatch.setattr(corpus, "MIN_RANGE", 50_000)
    lines = tinyshakespeare_lines()
    sources = [str(shakespeare / n) for n in FORMATS]
    sizes = {p: os.path.getsize(p) for p in sources}
    parts = plan_parts(sources, sizes, 200_000, bpe_tui.core.text.datasets.records.RecordOptions())
    by_file = {n: [p for p in parts if p.path.endswith("/" + n)] for n in FORMATS}
    assert len(by_file["ts.txt"]) > 3 and len(by_file["ts.jsonl"]) > 3  # plain files: byte ranges
    assert all(len(by_file[n]) == 1 for n in FORMATS if n.endswith((".gz", ".bz2", ".xz", ".zst")))  # streams: whole
    assert [(p.start, p.end) for p in by_file["ts.parquet"]][0][0] == 0 and len(by_file["ts.parquet"]) > 1  # row groups
    assert sum(p.size for p in by_file["ts.parquet"]) == sizes[str(shakespeare / "ts.parquet")]
    for name in ("ts.jsonl", "ts.jsonl.zst", "ts.parquet"):
        for workers in (1, 2):
            report = ReadReport()
            count_files([str(shakespeare / name)], TrainerConfig(), workers=workers, report=report)
            assert report.records == len(lines) and report.skipped == 0, (name, workers)


def test_a_record_is_a_document_boundary(tmp_path):
    """Records without a final newline do not run into each other; special tokens are cut
    inside a record as in a text file; a record of several lines is read line by line."""
    texts = ["hello", "world", "a<|endoftext|>b", " two\n\nlines  \n", "x"]
    cfg = TrainerConfig(preset="gpt2", special_tokens=["<|endoftext|>"])
    expected: dict[str, int] = {}
    for text in texts:
        for word, n in count_text(text, cfg).items():
            expected[word] = expected.get(word, 0) + n
    for path in (write_jsonl(tmp_path / "r.jsonl", texts), write_parquet(tmp_path / "r.parquet", texts, row_group_size=2)):
        counted = count_files([str(path)], cfg, workers=1)
        assert counted == expected and "helloworld" not in counted
        assert list(counted.items()) == list(expected.items())
    assert bpe_tui.count_words(iter(texts), cfg) == expected


@pytest.mark.parametrize("field", ["body", "meta.body", "meta.inner.text"])
def test_custom_and_nested_text_fields(tmp_path, field):
    texts = ["the quick brown fox\n", "jumps over", "the lazy dog\n"]
    cfg = TrainerConfig()
    expected = bpe_tui.count_words(iter(texts), cfg)
    jsonl = write_jsonl(tmp_path / "n.jsonl.gz", texts, field=field)
    parquet = write_parquet(tmp_path / "n.parquet", texts, column=field)
    for path in (jsonl, parquet):
        assert bpe_tui.count_words(str(path), cfg, text_field=field) == expected, path
        with pytest.raises(bpe_tui.BPEError) as info:
            bpe_tui.count_words(str(path), cfg)  # the default field, "text", is not there: say what is
        message = str(info.value)
        assert "'text'" in message and ("id" in message and field.split(".")[0] in message), message


def test_a_key_holding_dots_and_a_list_index(tmp_path):
    path = tmp_path / "k.jsonl"
    path.write_text(
        json.dumps({"meta.body": "dotted key wins", "meta": {"body": "nested loses"}}) + "\n"
        + json.dumps({"messages": [{"content": "first message"}, {"content": "second message"}]}) + "\n"
    )
    cfg = TrainerConfig(preset="classic")
    assert "wins" in bpe_tui.count_words(str(path), cfg, text_field="meta.body", skip_bad_records=True)
    counts = bpe_tui.count_words(str(path), cfg, text_field="messages.1.content", skip_bad_records=True)
    assert set(counts) == {"second", "message"}


def test_ten_mb_of_records_counts_the_same_with_the_default_workers(tmp_path):
    """10 MB: past PARALLEL_MIN_BYTES, so the default is one worker per CPU; plain JSON lines
    are cut in byte ranges, the gzip file is one part, Parquet goes by row groups."""
    texts = ten_mb_records()
    cfg = TrainerConfig(preset="gpt2", special_tokens=["<|endoftext|>"])
    plain = write_jsonl(tmp_path / "big.jsonl", texts)
    assert plain.stat().st_size >= corpus.PARALLEL_MIN_BYTES
    expected = list(bpe_tui.count_words(iter(texts), cfg).items())
    for path in (plain, write_jsonl(tmp_path / "big.jsonl.gz", texts), write_parquet(tmp_path / "big.parquet", texts, row_group_size=2000)):
        report = ReadReport()
        assert list(count_files([str(path)], cfg, report=report).items()) == expected, path
        assert report.records == len(texts)
        assert list(count_files([str(path)], cfg, workers=3).items()) == expected, path


def test_a_folder_or_glob_of_shards_reads_like_a_folder_of_text_files(tmp_path):
    lines = [f"line {i} of the shards, word{i % 13}\n" for i in range(600)]
    shards = tmp_path / "shards"
    shards.mkdir()
    for k in range(3):
        write_jsonl(shards / f"part-{k}.jsonl.gz", lines[k * 200 : (k + 1) * 200])
        write_parquet(shards / f"part-{k}.parquet", lines[k * 200 : (k + 1) * 200], row_group_size=50)
    (shards / "notes.bin").write_bytes(b"\0\1\2 binary")
    (shards / "model.tar.gz").write_bytes(gzip.compress(b"tar\0\0\0 header"))  # binary inside: left out
    assert [os.path.basename(p) for p in expand_sources([str(shards)])] == [f"part-{k}.{e}" for k in range(3) for e in ("jsonl.gz", "parquet")]
    cfg = TrainerConfig(tie_break="first-seen", merges=60)
    expected = merges(Trainer.from_iterator(iter(lines), cfg))
    assert merges(Trainer.from_files([str(shards / "*.parquet")], cfg)) == expected
    assert merges(Trainer.from_files([str(shards / "*.jsonl.gz")], cfg, workers=2)) == expected
    both = count_files([str(shards)], cfg, workers=2)
    assert both == {w: 2 * n for w, n in bpe_tui.count_words(iter(lines), cfg).items()}


def test_kinds_come_from_magic_numbers_where_names_lie(tmp_path):
    text = b"plain words here\n"
    (tmp_path / "packed.txt").write_bytes(gzip.compress(text))  # gzip named .txt
    write_parquet(tmp_path / "table.txt", ["parquet named txt\n"])  # Parquet named .txt
    (tmp_path / "plain.jsonl.gz").write_bytes(json.dumps(record("jsonl, not packed")).encode() + b"\n")
    assert file_kind(str(tmp_path / "packed.txt")).compression == "gzip"
    assert file_kind(str(tmp_path / "table.txt")).kind == "parquet"
    kind = file_kind(str(tmp_path / "plain.jsonl.gz"))
    assert (kind.kind, kind.compression) == ("jsonl", None)
    counts = count_files([str(tmp_path)], TrainerConfig(preset="classic"))
    assert {"plain", "parquet", "jsonl,", "packed"} <= set(counts)


def test_iterables_report_progress_when_their_length_is_known():
    texts = [f"text number {i}\n" for i in range(2500)]
    seen: list = []
    Trainer.from_iterator(texts, TrainerConfig(merges=5), progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (2500, 2500) and seen[0] == (1000, 2500)
    seen.clear()
    bpe_tui.count_words((t for t in texts), TrainerConfig(), progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (2500, 0)  # a generator has no length


def test_superwords_from_an_iterator_read_it_once():
    lines = ["by the way, in the middle of the night\n", "the middle of the road\n"] * 50
    cfg = TrainerConfig(superwords_after=20, vocab_size=330)
    once = iter(lines)
    assert merges(Trainer.from_iterator(once, cfg)) == merges(Trainer.from_text("".join(lines), cfg))


def test_a_list_is_paths_and_an_iterator_is_texts(tmp_path):
    with pytest.raises(bpe_tui.BPEError, match="no such file"):
        bpe_tui.count_words(["a few words"], TrainerConfig())
    assert bpe_tui.count_words(iter(["a few words"]), TrainerConfig()) == {"a": 1, " few": 1, " words": 1}
    with pytest.raises(bpe_tui.BPEError, match="client"):
        bpe_tui.count_words(iter(["a"]), TrainerConfig(), client="local")


def test_the_preview_shows_the_first_documents(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl.gz", ["first document", "second one\n", "third"])
    assert preview_text([str(path)], 100) == "first document\nsecond one\nthird\n"
    packed = write_bytes(tmp_path / "p.txt.zst", b"compressed text\nsecond line\n")
    assert preview_text([str(packed)], 20) == "compressed text\nseco"


def test_compressed_stdin_and_compressed_count_files(tmp_path):
    """stdin is unpacked by its first bytes as a file is; a word-count file may be packed too."""
    import subprocess
    import sys

    text = "".join(f"line {i} of a piped corpus\n" for i in range(300))
    run = lambda *args, data=b"": subprocess.run([sys.executable, "-m", "bpe_tui.cli", *args], input=data, capture_output=True)  # noqa: E731
    proc = run("count", "-", "-o", str(tmp_path / "c.tsv"), data=gzip.compress(text.encode()))
    assert proc.returncode == 0, proc.stderr
    from bpe_tui.core.text.count_files import read_count_files

    assert list(read_count_files([str(tmp_path / "c.tsv")]).items()) == list(count_text(text, TrainerConfig()).items())
    write_bytes(tmp_path / "c.tsv.xz", (tmp_path / "c.tsv").read_bytes())
    cfg = TrainerConfig(merges=20)
    assert merges(Trainer.from_files([str(tmp_path / "c.tsv.xz")], cfg, counts=True)) == merges(Trainer.from_text(text, cfg))

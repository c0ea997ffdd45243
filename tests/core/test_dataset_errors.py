"""Bad datasets: each is one line naming the file and the record (line or row), or is read by
the rule of ``errors="replace"``; never a traceback, never a hang, never a half-read corpus
counted as if it were whole. (The CLI's side, exit status 2 and one line, is in
tests/core/test_hostile.py's catalogue.)"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import sys
import tracemalloc

import pytest

from bpe_tui import TrainerConfig, count_words
from bpe_tui.core.errors import BPEError, NotUTF8, RecordError
from bpe_tui.core.text import corpus
from bpe_tui.core.text.corpus import count_files
from bpe_tui.core.limits import RECORD
from bpe_tui.core.text.datasets.records import ReadReport, RecordOptions
from tests.dataset_files import write_jsonl, write_parquet, zstd

pa = pytest.importorskip("pyarrow", reason="the parquet extra is not installed")
pq = pytest.importorskip("pyarrow.parquet", reason="the parquet extra is not installed")
pytest.importorskip("zstandard", reason="the zstd extra is not installed")

CFG = TrainerConfig(preset="gpt2")
GOOD = [f"document {i}: the quick brown fox jumps over the lazy dog\n" for i in range(400)]


def one_line(exc: BaseException) -> str:
    message = str(exc)
    assert "\n" not in message and "Traceback" not in message
    return message


# ---------------------------------------------------------------------- compressed streams


@pytest.mark.parametrize("ending, pack", [(".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress), (".zst", zstd)])
@pytest.mark.parametrize("inner", ["txt", "jsonl"])
def test_a_truncated_stream_is_an_error_not_a_shorter_corpus(tmp_path, ending, pack, inner):
    data = "".join(GOOD).encode() if inner == "txt" else "".join(json.dumps({"text": t}) + "\n" for t in GOOD).encode()
    path = tmp_path / f"cut.{inner}{ending}"
    path.write_bytes(pack(data)[:-40])
    for workers in (1, 2):
        with pytest.raises(BPEError) as info:
            count_files([str(path), str(write_jsonl(tmp_path / "more.jsonl", GOOD))], CFG, workers=workers)
        assert one_line(info.value).startswith(f"{path}: damaged"), info.value


# ---------------------------------------------------------------------- Parquet


def test_a_file_that_is_not_parquet(tmp_path):
    lying = tmp_path / "text.parquet"
    lying.write_text("just some text\n" * 50)
    packed = tmp_path / "packed.parquet"
    packed.write_bytes(gzip.compress(write_parquet(tmp_path / "p.parquet", GOOD).read_bytes()))
    cut = tmp_path / "cut.parquet"
    cut.write_bytes((tmp_path / "p.parquet").read_bytes()[:-100])
    for path, said in [(lying, "not a Parquet file"), (packed, "is gzip-compressed"), (cut, "not a Parquet file")]:
        with pytest.raises(BPEError) as info:
            count_files([str(path)], CFG)
        assert one_line(info.value).startswith(f"{path}: {said}"), info.value


def test_damaged_parquet_data_names_the_row_group(tmp_path):
    path = write_parquet(tmp_path / "d.parquet", GOOD, row_group_size=100)
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(1)  # the text column's pages in row group 1
    data = bytearray(path.read_bytes())
    data[chunk.data_page_offset : chunk.data_page_offset + 40] = b"\x00" * 40  # (the footer is intact)
    path.write_bytes(bytes(data))
    with pytest.raises(BPEError) as info:
        count_files([str(path)], CFG)
    assert one_line(info.value).startswith(f"{path}: damaged Parquet data in row group 1"), info.value


def test_a_column_that_is_not_text_names_its_type_and_a_missing_one_the_columns(tmp_path):
    path = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"text": pa.array([1, 2, 3]), "body": ["a", "b", "c"], "meta": [{"n": 1}] * 3}), path)
    with pytest.raises(BPEError, match=r"ints\.parquet: column 'text' holds int64 values, not text$"):
        count_files([str(path)], CFG)
    with pytest.raises(BPEError, match=r"no column 'content' \(its columns: text, body, meta\)$"):
        count_words(str(path), CFG, text_field="content")
    with pytest.raises(BPEError, match=r"no field 'body' in column 'meta' \(its fields: n\)$"):
        count_words(str(path), CFG, text_field="meta.body")
    assert set(count_words(str(path), CFG, text_field="body")) == {"a", "b", "c"}


def test_nulls_and_invalid_utf8_in_a_parquet_column(tmp_path):
    path = tmp_path / "n.parquet"
    pq.write_table(pa.table({"text": ["fine", None, "also fine"]}), path, row_group_size=2)
    with pytest.raises(RecordError, match=r"n\.parquet: row 2: 'text' is null$"):
        count_files([str(path)], CFG)
    report = ReadReport()
    assert count_words(str(path), CFG, skip_bad_records=True, report=report) == {"fine": 1, "also": 1, " fine": 1}
    assert (report.records, report.skipped) == (2, 1) and "1 'text' null" in report.summary()

    raw = pa.array([b"ok", b"caf\xe9"], pa.binary())
    bad = tmp_path / "u.parquet"
    pq.write_table(pa.table({"text": pa.Array.from_buffers(pa.string(), 2, raw.buffers())}), bad)  # a string column, not UTF-8
    pq.write_table(pa.table({"text": raw}), tmp_path / "b.parquet")  # a binary column
    for path in (bad, tmp_path / "b.parquet"):
        with pytest.raises(RecordError, match=r": row 2: 'text' is not valid UTF-8 at byte 3 of the value"):
            count_files([str(path)], CFG)
        assert count_files([str(path)], CFG, errors="replace") == {"ok": 1, "caf": 1, "\ufffd": 1}  # (U+FFFD is no letter)


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    path = write_parquet(tmp_path / "p.parquet", GOOD)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(BPEError, match=r"needs pyarrow.*pip install 'bpe-tui\[parquet\]'"):
        count_files([str(path)], CFG)


def test_a_parquet_value_over_the_record_limit(tmp_path, monkeypatch):
    monkeypatch.setenv(RECORD.variable, str(100 / 2**20))  # 100 bytes
    path = write_parquet(tmp_path / "l.parquet", ["short", "x" * 101, "short again"])
    with pytest.raises(RecordError, match=r"row 2: 'text' is longer than"):
        count_files([str(path)], CFG)
    assert count_words(str(path), CFG, skip_bad_records=True) == {"short": 2, " again": 1}


# ---------------------------------------------------------------------- JSON lines


def bad_jsonl(tmp_path):
    """Good records with every kind of bad one among them, far apart (in different ranges)."""
    lines = [json.dumps({"text": t}) for t in GOOD]
    lines[50] = json.dumps({"body": "no text field", "id": 50})
    lines[120] = "{not json"
    lines[200] = json.dumps({"text": 12})
    lines[260] = json.dumps(["a", "list"])
    lines[330] = json.dumps({"text": None})
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("workers", [1, 3])
def test_bad_records_name_their_line_even_when_workers_read_ranges(tmp_path, monkeypatch, workers):
    monkeypatch.setattr(corpus, "MIN_RANGE", 2000)  # ranges of a few KB: the bad lines fall in later ranges
    path = bad_jsonl(tmp_path)
    with pytest.raises(RecordError) as info:
        count_files([str(path)], CFG, workers=workers)
    assert one_line(info.value) == f"{path}:51: no field 'text' (its fields: body, id)"
    report = ReadReport()
    counted = count_files([str(path)], CFG, workers=workers, records=RecordOptions(skip_bad=True), report=report)
    assert counted == count_files([str(write_jsonl(tmp_path / "ok.jsonl", [t for i, t in enumerate(GOOD) if i not in (50, 120, 200, 260, 330)]))], CFG)
    assert (report.records, report.skipped) == (395, 5)
    summary = report.summary()
    assert summary.startswith("skipped 5 bad records of 400 (")
    assert f"{path}:51: no field 'text'" in summary and f"{path}:121: not JSON" in summary and f"{path}:201: field 'text' is a number" in summary
    assert "1 not an object" in summary and "2 'text' not a string" in summary


def test_invalid_utf8_inside_a_json_string(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "MIN_RANGE", 2000)
    good = "".join(json.dumps({"text": t}) + "\n" for t in GOOD).encode()
    bad_line = b'{"text": "caf\xe9 au lait"}\n'
    path = tmp_path / "u.jsonl"
    path.write_bytes(good + bad_line + good)
    for workers in (1, 3):
        with pytest.raises(NotUTF8) as info:
            count_files([str(path)], CFG, workers=workers)
        assert one_line(info.value).startswith(f"{path}:401: not valid UTF-8 at byte {len(good) + 13} ")
        assert path.read_bytes()[info.value.byte] == 0xE9
    replaced = count_files([str(path)], CFG, errors="replace")
    assert replaced["caf"] == 1 and replaced["\ufffd"] == 1 and replaced[" au"] == 1


def test_half_a_surrogate_pair_in_a_json_escape(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"text": "pair \\ud83d\\ude00 ok"}\n{"text": "lone \\ud800 here"}\n')
    with pytest.raises(RecordError, match=r"s\.jsonl:2: the text holds \\ud800 at character 5.*--errors replace"):
        count_files([str(path)], CFG)
    counted = count_files([str(path)], CFG, errors="replace")
    assert counted[" \ufffd"] == 1 and counted[" \U0001f600"] == 1


def test_a_200_mb_record_is_refused_as_soon_as_it_is_too_long_and_skipped_in_flat_memory(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as f:
        f.write(b'{"text": "before"}\n{"text": "')
        chunk = b"word " * 200_000  # 1 MB
        for _ in range(200):
            f.write(chunk)
        f.write(b'"}\n{"text": "after"}\n')
    with pytest.raises(RecordError) as info:
        count_files([str(path)], CFG)
    assert one_line(info.value).startswith(f"{path}:2: a record longer than 64 MB (from byte 19): records are read whole; split it, or BPE_TUI_MAX_RECORD_MB=256 raises the limit")
    tracemalloc.start()
    try:
        report = ReadReport()
        counted = count_files([str(path)], CFG, records=RecordOptions(skip_bad=True), report=report)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counted == {"before": 1, "after": 1} and report.skipped == 1
    assert peak < RECORD.bytes() + (16 << 20), peak  # the record was never held whole


def test_a_json_array_file_says_what_json_lines_are(tmp_path):
    path = tmp_path / "array.json"
    path.write_text(json.dumps([{"text": "a"}, {"text": "b"}], indent=1))
    with pytest.raises(RecordError, match=r"array\.json:1: not JSON .*\(a JSON lines file holds one JSON object a line\)$"):
        count_files([str(path)], CFG)


@pytest.mark.parametrize("field", ["", "a..b", ".", " "])
def test_a_bad_text_field_name(tmp_path, field):
    with pytest.raises(BPEError, match="--text-field"):
        count_words(str(write_jsonl(tmp_path / "x.jsonl", GOOD)), CFG, text_field=field)


def test_bad_items_of_an_iterable():
    with pytest.raises(BPEError, match=r"item 2 is int, not a string$"):
        count_words(iter(["fine", 5]), CFG)
    with pytest.raises(BPEError, match=r"item 1 is bytes, not a string \(decode it first\)$"):
        count_words(iter([b"raw"]), CFG)
    with pytest.raises(BPEError, match=r"item 2: the text holds \\udc80"):
        count_words(iter(["ok", "bad \udc80"]), CFG)
    assert count_words(iter(["ok", "bad \udc80"]), CFG, errors="replace") == {"ok": 1, "bad": 1, " \ufffd": 1}
    with pytest.raises(BPEError, match="not one str"):
        from bpe_tui.core.text.datasets.iterables import count_texts

        count_texts("a string", [CFG])


def test_a_binary_file_named_json_is_said_to_be_binary(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(BPEError, match=r"bad\.json: looks like a binary file \(NUL byte at byte 2\)"):
        count_files([str(path)], CFG)


def test_a_truncated_stream_says_how_far_it_was_read(tmp_path):
    """The error counts the decompressed bytes read before the damage, to within one piece
    (64 KiB): a stream cut after ~300 KB of text does not say "after 0 bytes"."""
    import re
    import zlib

    from bpe_tui.core.compression import PIECE

    data = "".join(f"line {i}: the quick brown fox, number {i * 7919 % 10007}\n" for i in range(8000)).encode()
    packed = gzip.compress(data)
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(packed[: len(packed) * 3 // 4])
    with pytest.raises(BPEError) as info:
        count_files([str(path)], CFG, workers=1)
    found = re.search(r"damaged gzip data after ([\d,]+) decompressed bytes", str(info.value))
    assert found, info.value
    after = int(found.group(1).replace(",", ""))
    readable = len(zlib.decompressobj(31).decompress(packed[: len(packed) * 3 // 4]))
    assert readable - PIECE <= after <= readable, (after, readable, len(data))

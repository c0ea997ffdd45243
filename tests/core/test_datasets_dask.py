"""Datasets on a Dask cluster: sharded Parquet and JSON lines (plain and compressed) count to
local counting's words, in local counting's order, with the same records read, the same bad
records skipped and the same error for a bad one (its line counted from the file's start,
whichever worker met it)."""

from __future__ import annotations

import json

import pytest

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.errors import RecordError
from bpe_tui.core.text.corpus import count_files
from bpe_tui.core.text.datasets.records import ReadReport, RecordOptions
from bpe_tui.core.text.distributed import count_words
from tests.core.test_distributed import client  # noqa: F401  (a LocalCluster of two workers for the module)
from tests.dataset_files import tinyshakespeare_lines, write_jsonl, write_parquet

pytest.importorskip("pyarrow", reason="the parquet extra is not installed")
pytest.importorskip("zstandard", reason="the zstd extra is not installed")


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """tinyshakespeare's lines as 4 Parquet shards (row groups of 1,000 rows), 4 JSON lines
    shards and 4 gzipped JSON lines shards, nested field ``meta.body`` in the JSON lines."""
    lines = tinyshakespeare_lines()
    d = tmp_path_factory.mktemp("shards")
    quarter = len(lines) // 4 + 1
    for k in range(4):
        part = lines[k * quarter : (k + 1) * quarter]
        write_parquet(d / f"train-{k:05d}.parquet", part, row_group_size=1000)
        write_jsonl(d / f"owt-{k:02d}.jsonl", part, field="meta.body")
        write_jsonl(d / f"owt-{k:02d}.jsonl.zst", part, field="meta.body")
    return d


@pytest.mark.parametrize("glob, field", [("train-*.parquet", "text"), ("owt-*.jsonl", "meta.body"), ("owt-*.jsonl.zst", "meta.body")])
def test_sharded_datasets_count_on_dask_as_here(client, shards, glob, field):  # noqa: F811
    cfg = TrainerConfig(preset="gpt2", special_tokens=["<|endoftext|>"])
    here = ReadReport()
    local = list(count_files([str(shards / glob)], cfg, workers=1, records=RecordOptions(field), report=here).items())
    for blocksize in (20_000, None):  # small parts: plain files by byte ranges, Parquet by row groups
        there = ReadReport()
        counted = count_words([str(shards / glob)], cfg, client=client, blocksize=blocksize, text_field=field, report=there)
        assert list(counted.items()) == local, (glob, blocksize)
        assert there.records == here.records == len(tinyshakespeare_lines())


def test_first_seen_merges_from_parquet_shards_on_dask_equal_the_text_files(client, shards, tmp_path):  # noqa: F811
    cfg = TrainerConfig(preset="gpt2", tie_break="first-seen", merges=200)
    text = tmp_path / "ts.txt"
    text.write_text("".join(tinyshakespeare_lines()), encoding="utf-8")
    expected = [(e.pair, e.count) for e in Trainer.from_files([str(text)], cfg).run()]
    trainer = Trainer.from_files([str(shards / "train-*.parquet")], cfg, client=client)
    assert [(e.pair, e.count) for e in trainer.run()] == expected


def test_a_bad_record_on_dask_is_the_error_of_one_pass(client, tmp_path):  # noqa: F811
    lines = [json.dumps({"text": f"record {i} with some words\n"}) for i in range(3000)]
    lines[2345] = json.dumps({"body": "wrong field"})
    lines[2700] = "{cut"
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    cfg = TrainerConfig()
    with pytest.raises(RecordError) as here:
        count_files([str(path)], cfg, workers=1)
    with pytest.raises(RecordError) as there:
        count_words([str(path)], cfg, client=client, blocksize=5000)
    assert str(there.value) == str(here.value) == f"{path}:2,346: no field 'text' (its fields: body)"
    local, remote = ReadReport(), ReadReport()
    skipping = dict(skip_bad_records=True)
    assert count_words([str(path)], cfg, client=client, blocksize=5000, report=remote, **skipping) == count_words([str(path)], cfg, report=local, **skipping)
    assert remote.summary() == local.summary() and f"{path}:2,701: not JSON" in remote.summary()

"""The readers' hostile sweep (issue 33, items 1-4 and 7): the real CLI on damaged compressed
streams, valid files that look like something else, Parquet files gone wrong, decompression
bombs and inputs elsewhere.

Each case runs ``python -m bpe_tui.cli`` in a child process and checks what a person sees:
one line on stderr (notes aside) and exit status 2 for an error, or exit 0 (and the note that
says what was assumed) for a file that is valid; never a traceback; an output that was there
before an error is left as it was; and the child's peak resident memory (its rusage, from
``os.wait4``) stays under a bound that does not grow with what a file expands to. The inputs
are made at test time (tests/hostile_inputs.py): a bomb is tens of KB on disk.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import signal
import subprocess
import sys
import tempfile

import pytest

import bpe_tui
from bpe_tui.core.engine.config import TrainerConfig
from bpe_tui.core.engine.trainer import Trainer
from tests import hostile_inputs as hostile

pytest.importorskip("zstandard", reason="the zstd extra is not installed")
pytest.importorskip("pyarrow", reason="the parquet extra is not installed")

HANG_GUARD = 300  # seconds: only to turn a hang into a failure
MB = 1 << 20
#: The most a reader may hold, whatever the input: the interpreter, pyarrow where a Parquet
#: file is read, a block, a piece, a record up to its 64 MB limit. Before the fix, a bomb
#: held at least 256 MB (a Zstandard feed of 8 KB) and a compressed table all it expanded to.
BOUND = 200 * MB
OLD = "old contents\n"


@dataclasses.dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    peak: int  # bytes: the child's peak resident set (and its workers', the largest)

    @property
    def said(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip() and not line.startswith("bpe-tui: note:")]

    @property
    def notes(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("bpe-tui: note:")]


#: Runs the command it is given and writes that child's peak resident set (KB) to a file.
#: The measuring happens in this small process because a child forked from pytest's worker
#: starts with the worker's own peak counted (Linux carries the high-water mark across exec).
MEASURE = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[2:])\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def run_measured(args: list[str], stdin: bytes = b"", env: dict[str, str] | None = None, cwd=None) -> Run:
    """The CLI in a child process, with its own peak memory (see MEASURE)."""
    with tempfile.TemporaryDirectory() as tmp:
        peak = os.path.join(tmp, "peak")
        command = [sys.executable, "-c", MEASURE, peak, sys.executable, "-m", "bpe_tui.cli", *args]
        proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env={**os.environ, **(env or {})},
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(stdin, timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # (the measuring process and the CLI under it)
            proc.communicate()
            pytest.fail(f"bpe-tui {' '.join(args)} hung")
        with open(peak) as f:
            kb = int(f.read())
        return Run(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), kb * 1024)


def check(run: Run, outcome: str, fragment: str) -> None:
    assert "Traceback" not in run.stderr, run.stderr
    assert run.peak < BOUND, f"peak {run.peak / MB:.0f} MB"
    if outcome == "error":
        assert run.returncode == 2, (run.returncode, run.stderr)
        assert len(run.said) == 1 and "\n" not in run.said[0], run.stderr
        assert fragment in run.said[0], run.stderr
    else:
        assert run.returncode == 0 and not run.said, run.stderr
        assert not fragment or any(fragment in note for note in run.notes), run.stderr


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> pathlib.Path:
    d = hostile.make_all(tmp_path_factory.mktemp("sweep"))
    if not (d / "t.json").exists():
        trainer = Trainer.from_text(hostile.TEXT.decode() * 4, TrainerConfig(vocab_size=300))
        list(trainer.run())
        bpe_tui.save(trainer.table, str(d / "t.json"))
    return d


def _damaged_cases() -> list[tuple]:
    cases: list[tuple] = [
        (f"count-damaged-{kind}", ["count", f"dam.txt{hostile.ENDINGS[kind]}", "-o", "keep.tsv", "--force"], None, "error", f"dam.txt{hostile.ENDINGS[kind]}: damaged {kind} data after 0 decompressed bytes")
        for kind in hostile.PACK
    ]
    damage = "dam.txt.gz: damaged gzip data after 0 decompressed bytes"
    table = "dam.tiktoken.gz: damaged gzip data"
    cases += [
        ("count-damaged-jsonl-gz", ["count", "dam.jsonl.gz", "-o", "keep.tsv", "--force"], None, "error", "dam.jsonl.gz: damaged gzip data"),
        ("train-damaged", ["train", "dam.txt.gz", "-o", "keep.json", "--force", "-q"], None, "error", damage),
        ("train-damaged-two-workers", ["train", "dam.txt.gz", "good.txt", "-o", "keep.json", "--force", "-q", "--workers", "2"], None, "error", damage),
        ("train-damaged-counts", ["train", "dam.txt.gz", "--counts", "-o", "keep.json", "--force", "-q"], None, "error", damage),
        ("train-damaged-stdin", ["train", "-", "-o", "keep.json", "--force", "-q"], "dam.txt.gz", "error", "stdin: damaged gzip data"),
        ("eval-corpus-damaged", ["eval", "t.json", "--corpus", "dam.txt.gz"], None, "error", damage),
        ("audit-corpus-damaged", ["audit", "t.json", "--corpus", "dam.txt.gz"], None, "error", damage),
        ("count-folder-with-damaged", ["count", "folder", "-o", "keep.tsv", "--force"], None, "error", "b.txt.gz: damaged gzip data"),
        ("inspect-damaged-table", ["inspect", "dam.tiktoken.gz"], None, "error", table),
        ("encode-damaged-table", ["encode", "-t", "dam.tiktoken.gz", "hello"], None, "error", table),
        ("open-damaged-table", ["open", "dam.tiktoken.gz"], None, "error", table),
        ("convert-damaged-table", ["convert", "dam.tiktoken.gz", "keep.json", "--to", "native", "--force"], None, "error", table),
        ("train-from-damaged-table", ["train", "good.txt", "--from", "dam.tiktoken.gz", "-o", "keep.json", "--force", "-q"], None, "error", table),
        ("compare-damaged-table", ["compare", "dam.tiktoken.gz", "t.json"], "good.txt", "error", table),
        ("audit-damaged-table", ["audit", "dam.tiktoken.gz"], None, "error", table),
        ("inspect-damaged-clip", ["inspect", "clip/bpe_simple_vocab_16e6.txt.gz"], None, "error", "bpe_simple_vocab_16e6.txt.gz: damaged gzip data"),
    ]
    return cases


CASES = _damaged_cases() + [
    # valid files that look like something else
    ("count-xz-stream-padding", ["count", "padded.txt.xz", "-o", "new.tsv", "--force"], None, "ok", ""),
    ("count-text-starting-bzh", ["count", "bzh.txt", "-o", "new.tsv", "--force"], None, "ok", "bzh.txt: starts with BZh as bzip2 data does"),
    ("count-text-starting-par1", ["count", "par1.txt", "-o", "new.tsv", "--force"], None, "ok", "par1.txt: starts with PAR1 as Parquet files do, but does not end with it: read as text"),
    # Parquet
    ("count-two-text-columns", ["count", "two.parquet", "-o", "keep.tsv", "--force"], None, "error", "two.parquet: 2 columns are named 'text'"),
    ("train-two-text-columns", ["train", "two.parquet", "-o", "keep.json", "--force", "-q"], None, "error", "two.parquet: 2 columns are named 'text'"),
    ("count-page-checksum-fails", ["count", "flip.parquet", "-o", "keep.tsv", "--force"], None, "error", "flip.parquet: damaged Parquet data in row group 2 (after row 500): could not verify page integrity"),
    ("count-page-checksums-hold", ["count", "sums.parquet", "-o", "new.tsv", "--force"], None, "ok", ""),
    # reading elsewhere
    ("count-url-refused-dask", ["count", "http://127.0.0.1:1/x.txt", "--dask", "local", "-o", "keep.tsv", "--force"], None, "error", "http://127.0.0.1:1/x.txt: cannot read ("),
    ("count-url-refused", ["count", "http://127.0.0.1:1/x.txt", "-o", "keep.tsv", "--force"], None, "error", "http://127.0.0.1:1/x.txt: cannot read ("),
    ("count-folder-names-what-it-leaves-out", ["count", "mixed", "-o", "new.tsv", "--force"], None, "ok", "mixed: left out 1 file the readers cannot take: b.parquet.gz (gzip-compressed Parquet"),
    ("eval-folder-names-what-it-leaves-out", ["eval", "t.json", "--corpus", "mixed"], None, "ok", "mixed: left out 1 file the readers cannot take: b.parquet.gz"),
    ("audit-corpus-starting-par1", ["audit", "t.json", "--corpus", "par1.txt", "-q"], None, "ok", "par1.txt: starts with PAR1 as Parquet files do"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_cli(case, inputs):
    _name, args, stdin_file, outcome, fragment = case
    for kept in ("keep.tsv", "keep.json"):
        (inputs / kept).write_text(OLD)
    stdin = (inputs / stdin_file).read_bytes() if stdin_file else b""
    run = run_measured(args, stdin, cwd=inputs)
    check(run, outcome, fragment)
    for kept in ("keep.tsv", "keep.json"):
        assert (inputs / kept).read_text() == OLD, kept  # an error leaves the output as it was


def test_s3_without_s3fs_names_the_package(inputs):
    try:
        import s3fs  # noqa: F401

        pytest.skip("s3fs is installed here")
    except ImportError:
        pass
    for extra in ([], ["--dask", "local"]):
        run = run_measured(["count", "s3://bucket/corpus/x.txt", *extra, "-o", "keep.tsv", "--force"], cwd=inputs)
        check(run, "error", "s3://bucket/corpus/x.txt: reading s3:// URLs needs the s3fs package, which is not installed: pip install s3fs")


def test_the_valid_look_alikes_count_as_text(inputs):
    """What was assumed is what was read: the words of the text itself."""
    for name in ("padded.txt.xz", "bzh.txt", "par1.txt"):
        run = run_measured(["count", name, "-o", f"{name}.tsv", "--force"], cwd=inputs)
        check(run, "ok", "")
        words = dict(line.rsplit("\t", 1) for line in (inputs / f"{name}.tsv").read_text().splitlines())
        assert int(words[" lowest"]) == 200 and int(words["the"]) == 200, name


# ---------------------------------------------------------------------- decompression bombs


@pytest.mark.parametrize("kind", sorted(hostile.PACK))
def test_a_line_that_expands_to_hundreds_of_mb_counts_in_flat_memory(tmp_path, kind):
    """Text without a line end for 256 MB (tens of KB compressed) is legitimate for counting,
    which hands a long line on in pieces: it is counted, never held whole."""
    path = hostile.run_of(kind, tmp_path / f"bomb.txt{hostile.ENDINGS[kind]}", b"a", 256)
    assert path.stat().st_size < 512 * 1024
    run = run_measured(["count", str(path), "-o", str(tmp_path / "c.tsv"), "--force"])
    check(run, "ok", "")
    counts = [int(line.rsplit("\t", 1)[1]) for line in (tmp_path / "c.tsv").read_text().splitlines()]
    assert sum(counts) >= 64  # the 256 MB line, in pieces of a few MB


def test_a_record_too_long_to_hold_is_refused_or_skipped_in_flat_memory(tmp_path):
    path = hostile.zstd_run(tmp_path / "bomb.jsonl.zst", [(b'{"text": "', 1), (b"a" * MB, 256), (b'"}\n{"text": "fine"}\n', 1)])
    assert path.stat().st_size < 64 * 1024
    out = tmp_path / "c.tsv"
    out.write_text(OLD)
    run = run_measured(["count", str(path), "-o", str(out), "--force"])
    check(run, "error", f"{path}:1: a record longer than 64 MB (from byte 0): records are read whole; split it, or BPE_TUI_MAX_RECORD_MB=256 raises the limit")
    assert out.read_text() == OLD
    run = run_measured(["count", str(path), "-o", str(out), "--force", "--skip-bad-records"])
    check(run, "ok", "skipped 1 bad record of 2 (1 longer than 64 MB)")
    assert out.read_text() == "fine\t1\n"
    run = run_measured(["count", str(path), "-o", str(out), "--force"], env={"BPE_TUI_MAX_RECORD_MB": "0.5"})
    check(run, "error", "a record longer than 0.5 MB (from byte 0): records are read whole; split it, or BPE_TUI_MAX_RECORD_MB=2 raises the limit")


def test_a_table_that_expands_past_the_limit_is_refused_in_flat_memory(tmp_path):
    path = hostile.run_of("gzip", tmp_path / "bomb.tiktoken.gz", b"A", 64, before=hostile.tiktoken_lines())
    assert path.stat().st_size < 128 * 1024
    limited = {"BPE_TUI_MAX_TABLE_MB": "16"}
    for args in (["inspect", str(path)], ["encode", "-t", str(path), "hello"], ["open", str(path)]):
        run = run_measured(args, env=limited)
        check(run, "error", f"{path}: more than 16 MB once gzip-decompressed, and a merge table is read whole (BPE_TUI_MAX_TABLE_MB=64 raises the limit)")
        assert run.peak < 100 * MB, f"peak {run.peak / MB:.0f} MB"
    # raised, the table is read whole, and its last line is what is wrong with it
    run = run_measured(["inspect", str(path)], env={"BPE_TUI_MAX_TABLE_MB": "128"})
    assert run.returncode == 2 and len(run.said) == 1 and "line 2,001" in run.said[0].replace("line 2001", "line 2,001"), run.stderr
    plain = tmp_path / "big.tiktoken"
    plain.write_bytes(hostile.tiktoken_lines() + b"A" * (17 * MB))
    run = run_measured(["inspect", str(plain)], env=limited)
    check(run, "error", f"{plain}: more than 16 MB, and a merge table is read whole (BPE_TUI_MAX_TABLE_MB=64 raises the limit)")


def test_a_bad_limit_is_one_line(inputs):
    run = run_measured(["count", "good.txt", "-o", "new.tsv", "--force"], env={"BPE_TUI_MAX_RECORD_MB": "lots"}, cwd=inputs)
    check(run, "error", "BPE_TUI_MAX_RECORD_MB='lots': give the most MB a record may hold, a number above 0 (default 64)")

"""Hostile input, one line per case: what goes in, and what must come out.

Outcome classes:

* ``error``: the CLI exits 2 with exactly one line on stderr (no traceback) holding the
  fragment; the library raises BPEError whose message holds it.
* ``ok``: it works, and the case's own check on the result holds.

Every CLI case runs in a subprocess with a generous time limit that only stops a hang (a hang
fails the case; nothing here measures speed). ``{dir}`` in arguments is a scratch directory
holding: ``t.json`` (a small bytes table), ``c.json`` (a chars table), ``corpus.txt``,
``fifo`` (a FIFO), ``null-device`` (a character device like /dev/null), ``link.json`` (a symlink to ``real.json``) and ``file`` (a plain file).
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import stat
import subprocess
import sys

import pytest

import bpe_tui
from bpe_tui.core.engine.config import TrainerConfig
from bpe_tui.core.engine.trainer import Trainer
from bpe_tui.core.errors import BPEError
from bpe_tui.core.tables.formats import load
from bpe_tui.core.tables.table import MergeTable

CORPUS = "the lowest newest widest the low lower " * 40
HANG_GUARD = 120  # seconds: only to turn a hang into a failure


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("hostile")
    (d / "corpus.txt").write_text(CORPUS)
    t = Trainer.from_text(CORPUS, TrainerConfig(vocab_size=280, special_tokens=["<|endoftext|>"]))
    list(t.run())
    bpe_tui.save(t.table, str(d / "t.json"))
    c = Trainer.from_text(CORPUS, TrainerConfig(preset="classic", vocab_size=40))
    list(c.run())
    bpe_tui.save(c.table, str(d / "c.json"))
    os.mkfifo(d / "fifo")
    try:
        os.mknod(d / "null-device", 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a copy of /dev/null
    except PermissionError:
        os.mkfifo(d / "null-device")  # not root: a FIFO is as non-regular
    (d / "real.json").write_text("old")
    os.symlink(d / "real.json", d / "link.json")
    (d / "file").write_text("x")
    return d


def run_cli(args: list[str], stdin: bytes = b"", cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bpe_tui.cli", *args], input=stdin, capture_output=True, timeout=HANG_GUARD, cwd=cwd,
    )


def expect(proc: subprocess.CompletedProcess, outcome: str, fragment: str) -> None:
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    if outcome == "error":
        lines = [line for line in err.splitlines() if line.strip() and not line.startswith("bpe-tui: note:")]
        assert proc.returncode == 2, (proc.returncode, err)
        assert len(lines) == 1, err
        assert fragment in lines[0], err
    else:
        assert proc.returncode == 0, err
        out = proc.stdout.decode("utf-8", "replace")
        assert fragment in out, out


# ---------------------------------------------------------------------- the CLI

# (id, class of the issue, arguments, stdin, expected outcome, fragment of the message/output)
CLI_CASES = [
    # data loss
    ("train-over-symlink-writes-through", "data-loss", ["train", "{dir}/corpus.txt", "-o", "{dir}/link.json", "--force", "-q"], b"", "ok", ""),
    ("train-to-fifo-refused", "data-loss", ["train", "{dir}/corpus.txt", "-o", "{dir}/fifo", "--force", "-q"], b"", "error", "not a regular file"),
    # (a device node of our own, never the real /dev/null: a tool that fails this case replaces it)
    ("train-to-device-refused", "data-loss", ["train", "{dir}/corpus.txt", "-o", "{dir}/null-device", "--force", "-q"], b"", "error", "not a regular file"),
    ("train-to-directory-refused", "data-loss", ["train", "{dir}/corpus.txt", "-o", "{dir}", "--force", "-q"], b"", "error", "a directory"),
    ("train-existing-without-force", "data-loss", ["train", "{dir}/corpus.txt", "-o", "{dir}/file", "-q"], b"", "error", "already exists (--force on the command line"),
    ("gpt2-under-a-file", "data-loss", ["train", "{dir}/corpus.txt", "-o", "{dir}/file", "--format", "gpt2", "--force", "-q"], b"", "error", "not one"),
    ("convert-to-fifo", "data-loss", ["convert", "{dir}/t.json", "{dir}/fifo", "--to", "native", "--force"], b"", "error", "not a regular file"),
    # hangs and crashes
    ("encode-table-fifo", "hang", ["encode", "-t", "{dir}/fifo", "x"], b"", "error", "not a regular file"),
    ("inspect-table-dev-zero", "hang", ["inspect", "/dev/zero"], b"", "error", "not a regular file"),
    ("open-table-fifo", "hang", ["open", "{dir}/fifo"], b"", "error", "not a regular file"),
    ("inspect-proc-self-mem", "crash", ["inspect", "/proc/self/mem"], b"", "error", "/proc/self/mem"),
    ("train-proc-self-mem", "crash", ["train", "/proc/self/mem", "-o", "{dir}/m.json", "-q"], b"", "error", "/proc/self/mem"),
    ("encode-stdin-not-utf8", "crash", ["encode", "-t", "{dir}/t.json"], b"ab\xff\xfe", "error", "not valid UTF-8"),
    ("encode-argv-not-utf8", "crash", ["encode", "-t", "{dir}/t.json", "@ARGV_BAD"], b"", "error", "not valid UTF-8"),
    ("compare-stdin-not-utf8", "crash", ["compare", "{dir}/t.json", "{dir}/t.json"], b"\xff", "error", "not valid UTF-8"),
    ("encode-to-dev-full", "crash", ["encode", "-t", "{dir}/t.json", "--ids", "hello", "@STDOUT_DEV_FULL"], b"", "error", "cannot write"),
    ("catastrophic-regex", "hang", ["train", "{dir}/cat.txt", "-o", "{dir}/cat.json", "--force", "-q", "--pretokenizer", "regex:(a|aa)+$|\\w+"], b"", "error", "line 2"),
    ("unknown-pretokenizer-gpt3", "message", ["train", "{dir}/corpus.txt", "-o", "{dir}/r.json", "--force", "-q", "--pretokenizer", "gpt3"], b"", "error", "unknown pre-tokenizer"),
    ("long-piece-encodes", "hang", ["encode", "-t", "{dir}/t.json", "--ids", "@LONG_A"], b"", "ok", "97"),
    ("trace-long-piece", "hang", ["trace", "-t", "{dir}/t.json", "@LONG_A"], b"", "ok", "merges"),
    # types inside table files
    ("native-merges-as-ints", "types", ["inspect", "{dir}/bad-merges.json"], b"", "error", "bad-merges.json"),
    ("native-vocab-as-list", "types", ["inspect", "{dir}/bad-vocab.json"], b"", "error", "bad-vocab.json"),
    ("native-specials-as-list", "types", ["inspect", "{dir}/bad-specials.json"], b"", "error", "bad-specials.json"),
    ("native-config-as-list", "types", ["inspect", "{dir}/bad-config.json"], b"", "error", "bad-config.json"),
    ("native-negative-id", "types", ["inspect", "{dir}/neg-id.json"], b"", "error", "neg-id.json"),
    ("hf-merges-as-ints", "types", ["inspect", "{dir}/hf-bad.json"], b"", "error", "hf-bad.json"),
    ("gpt2-duplicate-ids", "silent", ["inspect", "{dir}/dup/vocab.json"], b"", "error", "also the id of another token"),
    ("gpt2-mixed-pair", "data-loss", ["inspect", "{dir}/mixed"], b"", "error", "do not belong together"),
    # silently wrong
    ("eow-in-corpus", "silent", ["train", "{dir}/corpus.txt", "-o", "{dir}/e.json", "--force", "-q", "--preset", "classic", "--end-of-word", "w"], b"", "error", "end-of-word marker"),
    ("eow-single-byte", "silent", ["train", "{dir}/corpus.txt", "-o", "{dir}/e.json", "--force", "-q", "--end-of-word", "#"], b"", "error", "single byte"),
    ("lowercase-upper-special", "silent", ["train", "{dir}/corpus.txt", "-o", "{dir}/l.json", "--force", "-q", "--lowercase", "--special", "<EOS>"], b"", "ok", ""),
    # messages
    ("argparse-one-line", "message", ["train"], b"", "error", "bpe-tui train --help"),
    ("misspelt-subcommand", "message", ["trian", "x"], b"", "error", "did you mean train?"),
    ("legacy-merges-without-hf-before-training", "message", ["train", "{dir}/corpus.txt", "-o", "{dir}/x.json", "--legacy-merges", "-q"], b"", "error", "--legacy-merges"),
    ("tiktoken-with-chars-before-training", "message", ["train", "{dir}/corpus.txt", "-o", "{dir}/x.tiktoken", "--format", "tiktoken", "--preset", "classic", "-q"], b"", "error", "byte-level tables only"),
    ("min-frequency-negative", "message", ["train", "{dir}/corpus.txt", "-o", "{dir}/x.json", "--min-frequency", "-3", "-q"], b"", "error", "--min-frequency"),
    ("workers-zero", "message", ["train", "{dir}/corpus.txt", "-o", "{dir}/x.json", "--workers", "0", "-q"], b"", "error", "--workers"),
    ("workers-1000-clamped", "message", ["count", "{dir}/corpus.txt", "-o", "{dir}/w.tsv", "--force", "--workers", "1000"], b"", "ok", "wrote"),
    ("vocab-size-not-a-number", "message", ["train", "{dir}/corpus.txt", "-o", "{dir}/x.json", "--vocab-size", "2.5"], b"", "error", "invalid int value"),
    ("long-bad-line-shortened", "message", ["inspect", "{dir}/longline/merges.txt"], b"", "error", "chars)"),
    # datasets (issue 25): damaged streams, files that are not what they say, bad records
    ("count-truncated-gzip", "crash", ["count", "{dir}/cut.jsonl.gz", "-o", "{dir}/x.tsv", "--force"], b"", "error", "damaged gzip data"),
    ("count-truncated-zstd", "silent", ["count", "{dir}/cut.txt.zst", "-o", "{dir}/x.tsv", "--force"], b"", "error", "damaged zstd data"),
    ("train-not-parquet", "crash", ["train", "{dir}/text.parquet", "-o", "{dir}/x.json", "--force", "-q"], b"", "error", "not a Parquet file"),
    ("train-int-column", "crash", ["train", "{dir}/ints.parquet", "-o", "{dir}/x.json", "--force", "-q"], b"", "error", "holds int64 values, not text"),
    ("count-missing-field", "message", ["count", "{dir}/body.jsonl", "-o", "{dir}/x.tsv", "--force"], b"", "error", "body.jsonl:1: no field 'text' (its fields: body)"),
    ("count-text-field", "cli", ["count", "{dir}/body.jsonl", "-o", "{dir}/x.tsv", "--force", "--text-field", "body"], b"", "ok", "from 2 records"),
    ("count-skip-bad-records", "cli", ["count", "{dir}/mixed.jsonl", "-o", "{dir}/x.tsv", "--force", "--skip-bad-records"], b"", "ok", "from 1 record"),
    ("count-jsonl-not-utf8", "crash", ["count", "{dir}/latin1.jsonl", "-o", "{dir}/x.tsv", "--force"], b"", "error", "latin1.jsonl:1: not valid UTF-8 at byte 13"),
    ("count-bad-text-field", "message", ["count", "{dir}/body.jsonl", "-o", "{dir}/x.tsv", "--force", "--text-field", "a..b"], b"", "error", "--text-field"),
    ("eval-jsonl-refused", "message", ["eval", "{dir}/t.json", "--corpus", "{dir}/body.jsonl"], b"", "error", "holds jsonl records"),
    # issue 10, item 12: CLI completeness
    ("decode-ids", "cli", ["decode", "-t", "{dir}/t.json", "@IDS_HELLO"], b"", "ok", "hello"),
    ("decode-stdin", "cli", ["decode", "-t", "{dir}/t.json"], b"@IDS_HELLO_STDIN", "ok", "hello"),
    ("decode-not-a-number", "cli", ["decode", "-t", "{dir}/t.json", "1", "x"], b"", "error", "not a whole number"),
    ("encode-dropout", "cli", ["encode", "-t", "{dir}/t.json", "--ids", "--dropout", "1", "--seed", "3", "ab"], b"", "ok", "97 98"),
    ("encode-dropout-out-of-range", "cli", ["encode", "-t", "{dir}/t.json", "--dropout", "1.5", "ab"], b"", "error", "between 0 and 1"),
    ("trace-word", "cli", ["trace", "-t", "{dir}/t.json", " lowest"], b"", "ok", "merge"),
    ("inspect-id", "cli", ["inspect", "{dir}/t.json", "--id", "260"], b"", "ok", "id 260"),
    ("encode-piped-one-per-line", "cli", ["encode", "-t", "{dir}/t.json", "the lowest"], b"", "ok", "\t"),
    ("encode-json-real-text", "cli", ["encode", "-t", "{dir}/t.json", "--json", "a b"], b"", "ok", '"bytes"'),
    # issue 27: special tokens in untrusted text, ids that are not the table's
    ("encode-special-refused", "silent", ["encode", "-t", "{dir}/t.json", "--specials", "refuse", "a<|endoftext|>"], b"", "error", "the special token '<|endoftext|>' at character 2 (offset 1) is refused"),
    ("encode-special-refused-stdin", "silent", ["encode", "-t", "{dir}/t.json", "--ids", "--specials", "refuse"], b"ab\nc <|endoftext|>", "error", "stdin: the special token '<|endoftext|>' at character 6 (offset 5)"),
    ("encode-special-ordinary", "silent", ["encode", "-t", "{dir}/t.json", "--ids", "--specials", "ordinary", "<|endoftext|>"], b"", "ok", "60 124"),
    ("decode-minus-one-bytes", "silent", ["decode", "-t", "{dir}/t.json", "--", "-1"], b"", "error", "token id -1 (position 1) is not in the vocabulary"),
    ("decode-minus-two-chars", "silent", ["decode", "-t", "{dir}/c.json", "--", "-2"], b"", "error", "token id -2 (position 1) is not in the vocabulary"),
    ("decode-minus-one-chars", "cli", ["decode", "-t", "{dir}/c.json", "--", "-1"], b"", "ok", "\ufffd"),
    ("decode-out-of-range", "silent", ["decode", "-t", "{dir}/t.json", "104", "99999999999"], b"", "error", "token id 99999999999 (position 2)"),
    ("decode-strict-partial-utf8", "silent", ["decode", "-t", "{dir}/t.json", "--errors", "strict", "104", "240", "159"], b"", "error", "token id 240 (position 2) does not decode"),
]


def _dataset_files(d: pathlib.Path) -> None:
    """Datasets gone wrong (made once per directory)."""
    import gzip

    if (d / "body.jsonl").exists():
        return
    lines = "".join(json.dumps({"text": f"line {i} of the corpus"}) + "\n" for i in range(500)).encode()
    (d / "cut.jsonl.gz").write_bytes(gzip.compress(lines)[:-30])
    import pyarrow as pa  # (the test extra brings zstandard and pyarrow)
    import pyarrow.parquet as pq
    import zstandard

    (d / "cut.txt.zst").write_bytes(zstandard.ZstdCompressor().compress(CORPUS.encode())[:-10])
    (d / "text.parquet").write_text(CORPUS)
    (d / "body.jsonl").write_text('{"body": "a record"}\n{"body": "another"}\n')
    (d / "mixed.jsonl").write_text('{"text": "good"}\nnot json\n{"text": 3}\n')
    (d / "latin1.jsonl").write_bytes(b'{"text": "caf\xe9"}\n')
    pq.write_table(pa.table({"text": [1, 2, 3]}), d / "ints.parquet")


def _bad_files(d: pathlib.Path) -> None:
    """Table files with well-formed JSON and wrong shapes (made once per directory)."""
    if (d / "bad-merges.json").exists():
        return
    (d / "cat.txt").write_text("hello\n" + "a" * 40 + "b\n")
    good = json.loads((d / "t.json").read_text())
    for name, key, value in [
        ("bad-merges", "merges", [1, 2, 3]),
        ("bad-vocab", "vocab", ["a", "b"]),
        ("bad-specials", "special_tokens", ["<|endoftext|>"]),
        ("bad-config", "config", [1]),
    ]:
        (d / f"{name}.json").write_text(json.dumps({**good, key: value}))
    neg = dict(good)
    neg["vocab"] = {**good["vocab"], "Ġzz": -5}
    (d / "neg-id.json").write_text(json.dumps(neg))
    table = load(str(d / "t.json"))
    bpe_tui.save(table, str(d / "hf.json"), format="hf")
    hf = json.loads((d / "hf.json").read_text())
    hf["model"]["merges"] = [1, 2]
    (d / "hf-bad.json").write_text(json.dumps(hf))
    bpe_tui.save(table, str(d / "g"), format="gpt2")
    (d / "dup").mkdir()
    vocab = json.loads((d / "g" / "vocab.json").read_text())
    vocab["Ġextra"] = 0
    (d / "dup" / "vocab.json").write_text(json.dumps(vocab))
    (d / "dup" / "merges.txt").write_text((d / "g" / "merges.txt").read_text())
    # A kill between the two files of an old writer: merges from another table.
    (d / "mixed").mkdir()
    other = Trainer.from_text("zebra zoo zone " * 30, TrainerConfig(vocab_size=270))
    list(other.run())
    bpe_tui.save(other.table, str(d / "other"), format="gpt2")
    (d / "mixed" / "vocab.json").write_text((d / "g" / "vocab.json").read_text())
    (d / "mixed" / "merges.txt").write_text((d / "other" / "merges.txt").read_text())
    (d / "longline").mkdir()
    (d / "longline" / "vocab.json").write_text((d / "g" / "vocab.json").read_text())
    (d / "longline" / "merges.txt").write_text("#version: 0.2\n" + "x " * 5000 + "\n")


@pytest.mark.parametrize("case", CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli(case, scratch):
    name, _kind, args, stdin, outcome, fragment = case
    _bad_files(scratch)
    _dataset_files(scratch)
    table = load(str(scratch / "t.json"))
    argv: list = []
    stdout_dev_full = False
    for arg in args:
        if arg == "@STDOUT_DEV_FULL":
            stdout_dev_full = True
        elif arg == "@IDS_HELLO":
            argv += [str(i) for i in table.encode("hello")]
        elif arg == "@ARGV_BAD":
            argv.append(os.fsdecode(b"caf\xe9"))
        elif arg == "@LONG_A":
            argv.append("a" * 20_000)
        else:
            argv.append(arg.replace("{dir}", str(scratch)))
    if stdin == b"@IDS_HELLO_STDIN":
        stdin = (",".join(map(str, table.encode("hello"))) + "\n").encode()
    if stdout_dev_full:
        with open("/dev/full", "wb") as full:
            proc = subprocess.run([sys.executable, "-m", "bpe_tui.cli", *argv], stdout=full, stderr=subprocess.PIPE, timeout=HANG_GUARD)
        proc.stdout = b""
    else:
        proc = run_cli(argv, stdin)
    expect(proc, outcome, fragment)
    if name == "train-over-symlink-writes-through":
        assert (scratch / "link.json").is_symlink() and load(str(scratch / "real.json")).num_merges > 0
    if name == "train-existing-without-force":
        assert (scratch / "file").read_text() == "x"
    if name == "lowercase-upper-special":
        assert load(str(scratch / "l.json")).encode("THE<EOS>")[-1] == load(str(scratch / "l.json")).special_tokens["<EOS>"]


# ---------------------------------------------------------------------- the library


def deep_chain() -> MergeTable:
    """A table whose last token is 3,000 merges deep (a + a, aa + a, aaa + a, ...)."""
    vocab = {0: "a"}
    merges = []
    for k in range(1, 3001):
        vocab[k] = "a" * (k + 1)
        merges.append((k - 1, 0, k))
    return MergeTable("chars", vocab, merges, pretokenizer="regex:\\S+")


def small() -> MergeTable:
    return MergeTable.from_vocab_merges({0: "a", 1: "b", 2: "ab"}, [("a", "b")], pretokenizer="whitespace")


LIB_CASES = [
    ("load-pathlib-path", "crash", lambda d: load(pathlib.Path(d / "t.json")).num_merges > 0, "ok", ""),
    ("merge-tree-3000-deep", "crash", lambda d: len(deep_chain().merge_tree(3000).leaves()) == 3001, "ok", ""),
    ("encode-lone-surrogate", "crash", lambda d: load(d / "t.json").decode(load(d / "t.json").encode("a\udcffb")) == "a\ufffdb", "ok", ""),
    ("train-lone-surrogate", "crash", lambda d: Trainer.from_text("a\udcffb", TrainerConfig()), "error", "surrogate"),
    ("from-files-str", "crash", lambda d: Trainer.from_files(str(d / "corpus.txt")).word_count > 3, "ok", ""),
    ("from-files-path", "crash", lambda d: Trainer.from_files(d / "corpus.txt").word_count > 3, "ok", ""),
    ("long-special-token", "hang", lambda d: Trainer.from_text("x" * 100_000 + " hi " * 1000, TrainerConfig(special_tokens=["y" * 100_000])).word_count == 3, "ok", ""),
    ("special-tokens-as-str", "silent", lambda d: TrainerConfig(special_tokens="<eos>").special_tokens == ["<eos>"], "ok", ""),
    ("str-special-from-vocab-merges", "silent", lambda d: list(MergeTable.from_vocab_merges({0: "a"}, [], special_tokens="<eos>").special_tokens) == ["<eos>"], "ok", ""),
    ("empty-special-from-vocab-merges", "silent", lambda d: MergeTable.from_vocab_merges({0: "a"}, [], special_tokens=[""]), "error", "empty"),
    ("zero-width-regex", "silent", lambda d: TrainerConfig(pretokenizer="regex:(?=a)"), "error", "empty string"),
    ("segmentation-negative", "silent", lambda d: Trainer.from_text("ab ab", TrainerConfig()).segmentation(-1), "error", "word"),
    ("vocab-size-nan", "silent", lambda d: TrainerConfig(vocab_size=math.nan), "error", "vocab_size"),
    ("vocab-size-inf", "silent", lambda d: TrainerConfig(vocab_size=math.inf), "error", "vocab_size"),
    ("vocab-size-2.5", "silent", lambda d: TrainerConfig(vocab_size=2.5), "error", "vocab_size"),
    ("min-frequency-negative", "silent", lambda d: TrainerConfig(min_frequency=-3), "error", "min_frequency"),
    ("dropout-above-one", "silent", lambda d: small().encode("ab", dropout=2), "error", "dropout"),
    ("dropout-negative", "silent", lambda d: small().encode("ab", dropout=-0.1), "error", "dropout"),
    ("goto-2.5", "silent", lambda d: Trainer.from_text("ab ab", TrainerConfig()).goto(2.5), "error", "step"),
    ("decode-true", "silent", lambda d: small().decode([True]), "error", "not an integer"),
    ("decode-minus-one-bytes", "silent", lambda d: load(d / "t.json").decode([104, -1]), "error", "token id -1 (position 2)"),
    ("decode-errors-unknown", "silent", lambda d: load(d / "t.json").decode([104], errors="surrogateescape"), "error", "errors must be one of"),
    ("allowed-special-a-str", "silent", lambda d: load(d / "t.json").encode("x", allowed_special="<|endoftext|>"), "error", "allowed_special must be 'all'"),
    ("disallowed-special-refused", "silent", lambda d: load(d / "t.json").encode("x<|endoftext|>", allowed_special=set()), "error", "at character 2 (offset 1)"),
    ("encode-batch-workers-zero", "silent", lambda d: load(d / "t.json").encode_batch(["a"], workers=0), "error", "workers"),
    ("encode-batch-not-str", "silent", lambda d: load(d / "t.json").encode_batch(["a", b"b"]), "error", "text 2 of the batch"),
    ("max-token-length", "memory", lambda d: max(len(e.new_token) for e in Trainer.from_text("a" * 5000, TrainerConfig(max_token_length=8)).run()) == 8, "ok", ""),
    ("eow-equals-base-char", "silent", lambda d: Trainer.from_text("a b", TrainerConfig(preset="classic", end_of_word="a")), "error", "end-of-word"),
    ("unknown-pretokenizer-name", "message", lambda d: TrainerConfig(pretokenizer="gpt3"), "error", "unknown pre-tokenizer"),
    ("save-exclusive", "data-loss", lambda d: bpe_tui.save(small(), d / "file", overwrite=False), "error", "already exists (--force on the command line, overwrite=True in Python"),
    ("save-umask", "data-loss", lambda d: (bpe_tui.save(small(), d / "mode.json"), oct((d / "mode.json").stat().st_mode & 0o777))[1] == oct(0o666 & ~_umask()), "ok", ""),
    ("long-line-not-cut-in-a-word", "silent", lambda d: _long_line_words(d), "ok", ""),
]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _long_line_words(d: pathlib.Path) -> bool:
    """A line longer than the reader's block gives the same words as counting it whole."""
    from bpe_tui.core.text import corpus

    words = " ".join(f"w{i % 997}x" for i in range(600_000))  # ~4.7 MB on one line
    (d / "long.txt").write_text(words)
    counted = corpus.count_files([str(d / "long.txt")], TrainerConfig(), workers=1)
    return counted == corpus.count_text(words, TrainerConfig())


@pytest.mark.parametrize("case", LIB_CASES, ids=[c[0] for c in LIB_CASES])
def test_library(case, scratch):
    _name, _kind, call, outcome, fragment = case
    if outcome == "error":
        with pytest.raises(BPEError) as info:
            call(scratch)
        assert fragment in str(info.value)
        assert "\n" not in str(info.value)
    else:
        assert call(scratch)

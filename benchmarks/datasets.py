"""A dataset as shipped, trained on by bpe-tui and by Hugging Face tokenizers (run by hand).

    python benchmarks/datasets.py                  # 1 GB of JSON lines, gzipped in 8 shards
    python benchmarks/datasets.py --size 0.1       # 100 MB (a busy machine, a quick look)
    python benchmarks/datasets.py --workdir /data/bench --keep

The corpus is made at run time: ``--size`` GB of JSON lines (before compression) in ``--shards``
``.jsonl.gz`` files, records of varied kinds and lengths (tinyshakespeare's speeches,
taylorswift's paragraphs, whole .py files of the Python installation, each pass numbered
differently so the words keep changing), each record with an id, a URL and a nested ``meta``
beside its ``text``. Two jobs train to 32,000 merges (gpt2 preset, GPT-2's regex on bytes, no
special token, so that special-token text in the Python sources is text to both; Hugging Face's
tie-break), each in a fresh process, in turns:

* bpe-tui: ``Trainer.from_files(shards)`` (the shards counted by the built-in worker
  processes, one per CPU, a shard each), then ``run()``;
* tokenizers: ``train_from_iterator`` over the same records read with the standard library
  (``gzip.open`` + ``json.loads``, the ``text`` field), ByteLevel pre-tokenizer, vocabulary
  256 + 32,000. It uses every core for its own counting and merging.

Wall and CPU seconds (CPU: the process and every process it waited for, its workers), peak RSS
of the process (VmHWM) and, for bpe-tui, of its largest counting worker. The same jobs run on
the first quarter of the shards too, so the peaks at two corpus sizes say whether memory stays
flat in corpus size (it grows with the distinct words, not with the text). The merge lists are
compared: both pre-tokenize each record whole (README: Datasets as they ship), so they part only
where a record holds characters of recent Unicode versions that the two regex engines class
differently (``regex`` counts them as letters, tokenizers' Onig does not).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from compare import TAYLOR, TINY, peak_rss_mb, versions  # noqa: E402  (benchmarks/compare.py)

MERGES = 32_000


# ---------------------------------------------------------------------- the corpus, made here


def documents() -> list[tuple[str, str]]:
    """(source, text) of every document one pass writes: speeches, paragraphs, whole files."""
    docs: list[tuple[str, str]] = []
    for path, sep in ((TINY, "\n\n"), (TAYLOR, "\n")):
        if path.exists():
            docs += [(path.stem, part + "\n") for part in path.read_text(encoding="utf-8").split(sep) if part.strip()]
    roots = dict.fromkeys([sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]])
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".py", ".rst", ".md", ".txt")):
                    try:
                        docs.append((name, (Path(dirpath) / name).read_text(encoding="utf-8")))
                    except (OSError, UnicodeDecodeError):
                        continue
    return docs


def make_shards(directory: Path, size: int, shards: int) -> list[Path]:
    """``size`` bytes of JSON lines in ``shards`` gzip files (made once; kept if there). The
    records run through the documents once, then again with the pass numbered, and on; each
    shard goes on where the one before stopped."""
    paths = [directory / f"web-{k:05d}-of-{shards:05d}.jsonl.gz" for k in range(shards)]
    done = directory / f"done-{size}-{shards}"
    if done.exists() and all(p.exists() for p in paths):
        return paths
    records = _records(documents())
    per_shard = size // shards
    for k, path in enumerate(paths):
        written = 0
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as out:
            while written < per_shard:
                line = next(records)
                out.write(line)
                written += len(line.encode("utf-8"))
        print(f"  shard {k + 1}/{shards}: {written / 1e6:.0f} MB of JSON lines, {path.stat().st_size / 1e6:.0f} MB gzipped", flush=True)
    done.touch()
    return paths


def _records(docs: list[tuple[str, str]]):
    """JSON lines, one a document, the documents over and over (from the second pass on, each
    text starts with its pass number, so that the words keep changing a little)."""
    n = 0
    rounds = 0
    while True:
        rounds += 1
        for source, text in docs:
            if rounds > 1:
                text = f"[pass {rounds}] " + text
            meta = {"source": source, "chars": len(text)}
            yield json.dumps({"id": n, "url": f"https://example.org/{source}/{n}", "text": text, "meta": meta}, ensure_ascii=n % 3 == 0) + "\n"
            n += 1


# ---------------------------------------------------------------------- the jobs (in a child)


def job_ours(shards: list[str]) -> dict:
    from bpe_tui import Trainer, TrainerConfig
    from bpe_tui.core.text.datasets.records import ReadReport

    cfg = TrainerConfig(preset="gpt2", merges=MERGES, tie_break="hf")
    report = ReadReport()
    t0 = time.perf_counter()
    trainer = Trainer.from_files(shards, cfg, report=report)
    t1 = time.perf_counter()
    for _ in trainer.run():
        pass
    t2 = time.perf_counter()
    from bpe_tui.core.engine.units import bytes_to_gpt2_str

    merges = [[bytes_to_gpt2_str(a), bytes_to_gpt2_str(b)] for a, b in trainer.table.merges]
    return {"count_s": t1 - t0, "train_s": t2 - t1, "words": trainer.word_count, "records": report.records, "merges": merges,
            "worker_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def job_hf(shards: list[str]) -> dict:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    def texts():
        for shard in shards:
            with gzip.open(shard, "rt", encoding="utf-8") as f:
                for line in f:
                    yield json.loads(line)["text"]

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(
        vocab_size=256 + MERGES, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    t0 = time.perf_counter()
    tok.train_from_iterator(texts(), trainer)
    seconds = time.perf_counter() - t0
    merges = json.loads(tok.to_str())["model"]["merges"]
    return {"train_s": seconds, "merges": [m.split(" ", 1) if isinstance(m, str) else m for m in merges]}


JOBS = {"ours": job_ours, "hf": job_hf}


def child_main(spec: str) -> None:
    job = json.loads(spec)
    result = JOBS[job["job"]](job["shards"])
    result["peak_rss_mb"] = peak_rss_mb()
    print("RESULT " + json.dumps(result))


# ---------------------------------------------------------------------- the parent


def run(job: str, shards: list[Path]) -> dict:
    """One job in a fresh process: its result, wall seconds, and CPU seconds of the process
    and of every process it waited for (its workers)."""
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    spec = json.dumps({"job": job, "shards": [str(p) for p in shards]})
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", spec], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[7:])
            result["wall_s"] = wall
            result["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            return result
    raise SystemExit(f"{job} failed: {(proc.stderr.strip().splitlines() or ['no output'])[-1]}")


def same_merges(a: list, b: list) -> str:
    """How far two merge lists agree, in words."""
    for k, (x, y) in enumerate(zip(a, b)):
        if list(x) != list(y):
            return f"the same first {k:,} merges (of {len(a):,} and {len(b):,}); merge {k + 1:,}: {x} vs {y}"
    return f"the same {min(len(a), len(b)):,} merges" + ("" if len(a) == len(b) else f" ({len(a):,} vs {len(b):,})")


def add_shard_arguments(p: argparse.ArgumentParser, size: float) -> None:
    """The options of a benchmark on these shards (explorer_run.py's too): their size and
    number, where they are written and kept, and the child process's job."""
    p.add_argument("--size", type=float, default=size, help=f"GB of JSON lines (before gzip; default {size:g})")
    p.add_argument("--shards", type=int, default=8, help="how many .jsonl.gz files (default 8)")
    p.add_argument("--workdir", help="where the shards are written (default: a temporary directory)")
    p.add_argument("--keep", action="store_true", help="keep the shards (in --workdir) for another run")
    p.add_argument("--child", help=argparse.SUPPRESS)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_shard_arguments(p, 1.0)
    args = p.parse_args()
    if args.child:
        child_main(args.child)
        return 0
    if not TINY.exists():
        print(f"note: {TINY} is absent; the corpus is made of the Python installation's files only")
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bpe-datasets-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"versions: {versions()}; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}", flush=True)
    print(f"making {args.size:g} GB of JSON lines in {args.shards} gzip shards in {work} ...", flush=True)
    shards = make_shards(work, int(args.size * 1e9), args.shards)
    quarter = shards[: max(1, len(shards) // 4)]
    rows = []
    try:
        for label, files in ((f"{len(quarter)} of {len(shards)} shards", quarter), (f"all {len(shards)} shards", shards)):
            gz = sum(f.stat().st_size for f in files) / 1e6
            print(f"\n{label}: {gz:,.0f} MB gzipped", flush=True)
            ours = run("ours", files)
            hf = run("hf", files)
            for name, r in (("bpe-tui", ours), ("tokenizers", hf)):
                extra = f"count {r['count_s']:.1f} s + merges {r['train_s']:.1f} s; worker peak {r['worker_rss_mb']:.0f} MB" if "count_s" in r else ""
                print(f"  {name:<11} wall {r['wall_s']:7.1f} s  CPU {r['cpu_s']:7.1f} s  peak RSS {r['peak_rss_mb']:6.0f} MB  {extra}", flush=True)
            print(f"  ratios bpe-tui/tokenizers: wall {ours['wall_s'] / hf['wall_s']:.2f}x, CPU {ours['cpu_s'] / hf['cpu_s']:.2f}x, "
                  f"peak RSS {ours['peak_rss_mb'] / hf['peak_rss_mb']:.2f}x", flush=True)
            print(f"  {ours['records']:,} records, {ours['words']:,} distinct words; {same_merges(ours['merges'], hf['merges'])}", flush=True)
            rows.append((label, gz, ours, hf))
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    print("\n| corpus | gzipped | engine | wall s | CPU s | peak RSS MB | notes |")
    print("|---|---:|---|---:|---:|---:|---|")
    for label, gz, ours, hf in rows:
        print(f"| {label} | {gz:,.0f} MB | bpe-tui | {ours['wall_s']:.1f} | {ours['cpu_s']:.1f} | {ours['peak_rss_mb']:.0f} "
              f"| counting {ours['count_s']:.1f} s, merges {ours['train_s']:.1f} s; largest worker {ours['worker_rss_mb']:.0f} MB; "
              f"{ours['words']:,} words |")
        print(f"| {label} | {gz:,.0f} MB | tokenizers | {hf['wall_s']:.1f} | {hf['cpu_s']:.1f} | {hf['peak_rss_mb']:.0f} | train_from_iterator |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

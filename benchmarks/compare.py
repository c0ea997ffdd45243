"""bpe-tui against its peers, side by side, in one run (run by hand; not part of the test suite).

    python benchmarks/compare.py            # everything, medians of 3 runs (a few minutes)
    python benchmarks/compare.py --quick    # one run of each, under a minute
    python benchmarks/compare.py --big      # also train on a 1 GB corpus made at run time

Every measurement runs in a fresh subprocess, so each engine's peak RSS (VmHWM, and the
largest worker process for our parallel counting) is its own. Engines compared in a target
run in turns (ours, theirs, ours, theirs, ...) and the target's ratio is the median of the
per-round ratios, so a shared machine that slows down for a minute slows both sides. Times are end to end from
the files (reading, pre-tokenizing, counting, training) unless a row says otherwise; the
import of each library is not timed. Peers:

* Hugging Face tokenizers: byte-level BPE with GPT-2's regex (ByteLevel pre-tokenizer), the
  same special token and vocabulary size, ``Tokenizer.train(files)``. It uses every core.
* sentencepiece, BPE model, where installed. Its pre-tokenization differs (whitespace as
  U+2581, no byte fallback, sentences = lines), so its rows compare a similar job, not the
  same one.
* the naive recount trainers, on the same word counts: the seeds' own loop
  (benchmarks/naive_seed.py, the baseline of the target) and bpe_tui.core.teaching.educational
  (the same algorithm written tighter, our test oracle). The script checks both give our merges.
* encoding: tiktoken (an Encoding built from GPT-2's vocab.json ranks) and tokenizers (GPT-2's
  vocab.json + merges.txt), on tinyshakespeare with GPT-2's table; ids are checked equal.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
TINY = SHARED / "corpora" / "tinyshakespeare.txt"
TAYLOR = SHARED / "corpora" / "taylorswift.txt"
GPT2_DIR = SHARED / "tables" / "gpt2"
SPECIAL = "<|endoftext|>"


# ---------------------------------------------------------------------- corpora made at run time


def stdlib_corpus(path: Path, limit: int = 28_000_000) -> Path:
    """About 28 MB of the Python standard library's own .py files, in sorted order."""
    if path.exists() and path.stat().st_size >= limit:
        return path
    root = Path(sysconfig.get_paths()["stdlib"])
    written = 0
    with open(path, "wb") as out:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__", "dist-packages"))
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                data = (Path(dirpath) / name).read_bytes()
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                out.write(data if data.endswith(b"\n") else data + b"\n")
                written += len(data)
                if written >= limit:
                    return path
    return path


def big_corpus(path: Path, size: int) -> Path:
    """``size`` bytes of varied text: every .py file under the Python installation (stdlib
    and site-packages) and the shared corpora, over and over, each pass with its lines
    numbered differently so that the words keep changing."""
    if path.exists() and path.stat().st_size >= size:
        return path
    sources = [p for p in (TINY, TAYLOR) if p.exists()]
    roots = dict.fromkeys([sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]])
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            sources += [Path(dirpath) / n for n in sorted(filenames) if n.endswith((".py", ".txt", ".rst", ".md"))]
    written = 0
    rounds = 0
    with open(path, "wb") as out:
        while written < size:
            rounds += 1
            for src in sources:
                try:
                    data = src.read_bytes()
                    data.decode("utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                if rounds > 1:
                    data = f"# pass {rounds} of {src.name}\n".encode() + data
                out.write(data if data.endswith(b"\n") else data + b"\n")
                written += len(data) + 1
                if written >= size:
                    break
    return path


# ---------------------------------------------------------------------- jobs (run in a child)


def peak_rss_mb() -> float:
    """This process's peak RSS, or its largest finished child's if that was bigger (MB)."""
    import resource

    peak = 0
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1])
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(peak, children) / 1024


def job_ours_train(path: str, vocab: int, workers: int | None) -> dict:
    from bpe_tui import Trainer, TrainerConfig

    cfg = TrainerConfig(preset="gpt2", vocab_size=vocab, special_tokens=[SPECIAL])
    t0 = time.perf_counter()
    trainer = Trainer.from_files([path], cfg, workers=workers)
    t1 = time.perf_counter()
    for _ in trainer.run():
        pass
    t2 = time.perf_counter()
    return {"seconds": t2 - t0, "count_s": t1 - t0, "train_s": t2 - t1, "vocab": trainer.vocab_size, "words": trainer.word_count}


def job_hf_train(path: str, vocab: int) -> dict:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab, special_tokens=[SPECIAL], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    t0 = time.perf_counter()
    tok.train([path], trainer)
    return {"seconds": time.perf_counter() - t0, "vocab": tok.get_vocab_size()}


def job_spm_train(path: str, vocab: int) -> dict:
    import sentencepiece as spm

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        spm.SentencePieceTrainer.train(
            input=path, model_prefix=os.path.join(tmp, "m"), model_type="bpe", vocab_size=vocab,
            character_coverage=1.0, hard_vocab_limit=False, user_defined_symbols=[SPECIAL],
            num_threads=os.cpu_count() or 1, minloglevel=2, max_sentence_length=1 << 16,
        )
        seconds = time.perf_counter() - t0
        sp = spm.SentencePieceProcessor(model_file=os.path.join(tmp, "m.model"))
        return {"seconds": seconds, "vocab": sp.get_piece_size()}


def job_naive_pair(path: str, vocab: int) -> dict:
    """Ours and the two naive recount trainers on the same word counts; merges compared."""
    from bpe_tui import Trainer, TrainerConfig
    from bpe_tui.core.teaching.educational import train_naive
    from bpe_tui.core.text.corpus import count_files

    sys.path.insert(0, str(HERE))
    import naive_seed

    cfg = TrainerConfig(preset="gpt2", vocab_size=vocab, special_tokens=[SPECIAL])
    t0 = time.perf_counter()
    counts = count_files([path], cfg, workers=1)
    count_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    trainer = Trainer.from_counts(counts, cfg)
    ours = [(e.pair, e.count) for e in trainer.run()]
    ours_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    naive = train_naive(counts, cfg, vocab - 257)
    naive_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    seed = naive_seed.train(counts, vocab - 257)
    seed_s = time.perf_counter() - t0
    return {
        "seconds": ours_s, "ours_s": ours_s, "naive_s": naive_s, "seed_s": seed_s, "count_s": count_s,
        "same": ours == naive, "seed_same": ours == seed, "merges": len(ours),
    }


def job_naive_only(path: str, vocab: int) -> dict:
    from bpe_tui import TrainerConfig
    from bpe_tui.core.teaching.educational import train_naive
    from bpe_tui.core.text.corpus import count_files

    cfg = TrainerConfig(preset="gpt2", vocab_size=vocab, special_tokens=[SPECIAL])
    counts = count_files([path], cfg, workers=1)
    t0 = time.perf_counter()
    train_naive(counts, cfg, vocab - 257)
    return {"seconds": time.perf_counter() - t0}


def gpt2_ranks() -> dict:
    from bpe_tui.core.engine.units import bytes_to_unicode

    u2b = {u: b for b, u in bytes_to_unicode().items()}
    vocab = json.loads((GPT2_DIR / "vocab.json").read_text(encoding="utf-8"))
    return {bytes(u2b[c] for c in token): rank for token, rank in vocab.items()}


def job_encode(engine: str, path: str) -> dict:
    text = Path(path).read_text(encoding="utf-8")
    if engine == "ours":
        import bpe_tui

        table = bpe_tui.load(str(GPT2_DIR))
        t0 = time.perf_counter()
        ids = table.encode(text)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        table.encode(text)
        warm = time.perf_counter() - t0
        return {"seconds": cold, "warm_s": warm, "ids": len(ids), "digest": hash(tuple(ids))}
    if engine == "tiktoken":
        import tiktoken

        from bpe_tui.core.text.pretokenize import GPT2_PATTERN

        enc = tiktoken.Encoding("gpt2-from-vocab-json", pat_str=GPT2_PATTERN, mergeable_ranks=gpt2_ranks(), special_tokens={})
        t0 = time.perf_counter()
        ids = enc.encode_ordinary(text)
        return {"seconds": time.perf_counter() - t0, "ids": len(ids), "digest": hash(tuple(ids))}
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.BPE.from_file(str(GPT2_DIR / "vocab.json"), str(GPT2_DIR / "merges.txt")))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    t0 = time.perf_counter()
    ids = tok.encode(text).ids
    return {"seconds": time.perf_counter() - t0, "ids": len(ids), "digest": hash(tuple(ids))}


def job_stepping(path: str, steps: int) -> dict:
    from bpe_tui import Trainer, TrainerConfig

    trainer = Trainer.from_files([path], TrainerConfig(preset="gpt2", special_tokens=[SPECIAL]))
    times = []
    clock = time.perf_counter
    for _ in range(steps):
        t0 = clock()
        event = trainer.step()
        times.append(clock() - t0)
        if event is None:
            break
    times.sort()
    return {
        "seconds": sum(times),
        "p50_ms": 1000 * times[len(times) // 2],
        "p99_ms": 1000 * times[min(len(times) - 1, int(len(times) * 0.99))],
        "max_ms": 1000 * times[-1],
        "steps": len(times),
    }


JOBS = {
    "ours": lambda a: job_ours_train(a["path"], a["vocab"], a.get("workers")),
    "hf": lambda a: job_hf_train(a["path"], a["vocab"]),
    "spm": lambda a: job_spm_train(a["path"], a["vocab"]),
    "naive-pair": lambda a: job_naive_pair(a["path"], a["vocab"]),
    "naive": lambda a: job_naive_only(a["path"], a["vocab"]),
    "encode": lambda a: job_encode(a["engine"], a["path"]),
    "stepping": lambda a: job_stepping(a["path"], a["steps"]),
}


def child_main(spec: str) -> None:
    args = json.loads(spec)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    result = JOBS[args["job"]](args)
    result["peak_rss_mb"] = peak_rss_mb()
    print("RESULT " + json.dumps(result))


# ---------------------------------------------------------------------- the parent


def run_child(job: dict, timeout: float = 3600) -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(job)],
        capture_output=True, text=True, timeout=timeout, env=env,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:120]}


def measure(job: dict, repeat: int) -> dict:
    """Run ``job`` ``repeat`` times in fresh processes; medians of the numbers."""
    return summarize([run_child(job) for _ in range(repeat)])


def measure_together(jobs: dict[str, dict], repeat: int) -> dict[str, dict]:
    """Run several jobs in turns (a, b, c, a, b, c, ...), so that each round meets the
    machine in the same mood; medians per job, and each job's ``rounds`` (seconds per round)
    for :func:`round_ratio`."""
    runs: dict[str, list] = {name: [] for name in jobs}
    for _ in range(repeat):
        for name, job in jobs.items():
            runs[name].append(run_child(job))
    out = {}
    for name, results in runs.items():
        out[name] = summarize(results)
        out[name]["rounds"] = [r.get("seconds") for r in results]
    return out


def round_ratio(a: dict, b: dict) -> float | None:
    """Median over rounds of a's time / b's time (None if a round failed)."""
    pairs = list(zip(a.get("rounds", []), b.get("rounds", [])))
    if not pairs or any(x is None or y is None for x, y in pairs):
        return None
    return statistics.median(x / y for x, y in pairs)


def summarize(runs: list[dict]) -> dict:
    """One result from several runs of a job: medians of the numbers."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return runs[0]
    out = dict(good[len(good) // 2])
    for key in good[0]:
        values = [r[key] for r in good if isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)]
        if len(values) == len(good) and key != "digest":
            out[key] = statistics.median(values)
    out["runs"] = len(good)
    return out


def versions() -> dict:
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for name in ("bpe-tui", "tokenizers", "tiktoken", "sentencepiece", "regex"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "not installed"
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        out["bpe-tui"] += f" ({rev})" if rev else ""
    except OSError:
        pass
    return out


def have(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


class Report:
    def __init__(self):
        self.rows: list[tuple] = []
        self.targets: list[tuple] = []

    def row(self, workload: str, engine: str, r: dict, base: dict | None = None, note: str = "") -> None:
        if "error" in r:
            self.rows.append((workload, engine, "error", "", "", r["error"]))
            print(f"  {workload:<34} {engine:<28} error: {r['error']}", flush=True)
            return
        ratio = f"{r['seconds'] / base['seconds']:.2f}x" if base and "seconds" in base and base is not r else ""
        rss = f"{r['peak_rss_mb']:.0f}" if "peak_rss_mb" in r else ""
        self.rows.append((workload, engine, f"{r['seconds']:.3f}", rss, ratio, note))
        print(f"  {workload:<34} {engine:<28} {r['seconds']:>8.3f} s {rss:>6} MB {ratio:>7} {note}", flush=True)

    def target(self, what: str, goal: str, value: float | None, ok: bool | None) -> None:
        shown = "n/a" if value is None else f"{value:.2f}"
        verdict = "n/a" if ok is None else ("met" if ok else "NOT met")
        self.targets.append((what, goal, shown, verdict))

    def print(self) -> None:
        print("\n| workload | engine | median s | peak RSS MB | vs ours | notes |")
        print("|---|---|---:|---:|---:|---|")
        for r in self.rows:
            print("| " + " | ".join(r) + " |")
        print("\n| target | goal | measured | |")
        print("|---|---|---:|---|")
        for t in self.targets:
            print("| " + " | ".join(t) + " |")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="one run of each workload (under a minute)")
    p.add_argument("--repeat", type=int, help="runs per measurement (default 3, 1 with --quick)")
    p.add_argument("--big", action="store_true", help="also train on a 1 GB corpus made at run time")
    p.add_argument("--big-size", type=float, default=1.0, help="size of the --big corpus in GB (default 1)")
    p.add_argument("--workdir", help="where to write the generated corpora (default: a temp dir)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child_main(args.child)
        return 0

    repeat = args.repeat or (1 if args.quick else 3)
    missing = [str(f) for f in (TINY, TAYLOR, GPT2_DIR) if not f.exists()]
    if missing:
        print(f"needs the shared data: {', '.join(missing)} missing", file=sys.stderr)
        return 2
    print(f"machine: {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs ({platform.processor() or 'cpu'})")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()))
    print(f"runs per measurement: {repeat} (medians); each run in a fresh process\n")
    tmp = tempfile.TemporaryDirectory(prefix="bpe-bench-")
    work = Path(args.workdir or tmp.name)
    work.mkdir(parents=True, exist_ok=True)
    report = Report()
    started = time.perf_counter()

    # -- training, tinyshakespeare
    sizes = (10_000,) if args.quick else (1_000, 5_000, 10_000)
    tiny = {}
    for vocab in sizes:
        w = f"tinyshakespeare -> {vocab // 1000}k"
        jobs = {"ours": {"job": "ours", "path": str(TINY), "vocab": vocab}, "hf": {"job": "hf", "path": str(TINY), "vocab": vocab}}
        if have("sentencepiece") and not args.quick:
            jobs["spm"] = {"job": "spm", "path": str(TINY), "vocab": vocab}
        got = measure_together(jobs, repeat)
        ours, hf = got["ours"], got["hf"]
        report.row(w, "bpe-tui", ours, note=f"count {ours.get('count_s', 0):.2f} s + train {ours.get('train_s', 0):.2f} s")
        report.row(w, "tokenizers", hf, ours)
        if "spm" in got:
            report.row(w, "sentencepiece (bpe)", got["spm"], ours, "different pre-tokenization")
        tiny[vocab] = (ours, hf)
    ours, hf = tiny[10_000]
    ratio = round_ratio(ours, hf)
    if ratio is not None:
        report.target("tinyshakespeare -> 10k, ours / tokenizers", "<= 1.5", ratio, ratio <= 1.5)

    # -- naive baseline, taylorswift -> 512
    w = "taylorswift -> 512 (from counts)"
    pair = measure({"job": "naive-pair", "path": str(TAYLOR), "vocab": 512}, repeat)
    if "error" not in pair:
        report.row(w, "bpe-tui", {"seconds": pair["ours_s"]}, note=f"counting {pair['count_s']:.3f} s not included")
        report.row(w, "naive recount (seeds, benchmarks/)", {"seconds": pair["seed_s"]}, {"seconds": pair["ours_s"]},
                   "merges equal ours" if pair["seed_same"] else "MERGES DIFFER")
        report.row(w, "naive recount (educational)", {"seconds": pair["naive_s"]}, {"seconds": pair["ours_s"]},
                   "merges equal ours" if pair["same"] else "MERGES DIFFER")
        ratio = pair["seed_s"] / pair["ours_s"]
        report.target("taylorswift -> 512, naive (seeds) / ours", ">= 100", ratio, ratio >= 100)
        report.target("  ... educational recount / ours", "", pair["naive_s"] / pair["ours_s"], None)
        report.target("  ... end to end (counting added to both)", "", (pair["seed_s"] + pair["count_s"]) / (pair["ours_s"] + pair["count_s"]), None)
        report.target("ours == both naive trainers' merges (taylorswift -> 512)", "equal", None, bool(pair["same"] and pair["seed_same"]))
    else:
        report.row(w, "naive", pair)

    # -- encoding with GPT-2's table
    w = "encode tinyshakespeare, GPT-2"
    size_mb = TINY.stat().st_size / 1e6
    enc = measure_together({e: {"job": "encode", "engine": e, "path": str(TINY)} for e in ("ours", "tiktoken", "tokenizers")}, repeat)
    eo = enc["ours"]
    report.row(w, "bpe-tui, first pass", eo, note=f"{size_mb / eo['seconds']:.1f} MB/s; warm cache {eo.get('warm_s', 0):.3f} s" if "seconds" in eo else "")
    for e in ("tiktoken", "tokenizers"):
        r = enc[e]
        same = "ids equal ours" if r.get("digest") == eo.get("digest") else "IDS DIFFER"
        report.row(w, e, r, eo, f"{size_mb / r['seconds']:.1f} MB/s; {same}" if "seconds" in r else "")
    for peer, goal in (("tiktoken", 0.5), ("tokenizers", 2)):
        ratio = round_ratio(enc[peer], eo)  # their time / ours = our throughput / theirs
        if ratio is not None:
            report.target(f"encode first pass, ours / {peer} throughput", f">= {goal:g}", ratio, ratio >= goal)

    # -- stepping latency
    st = measure({"job": "stepping", "path": str(TINY), "steps": 1000}, repeat)
    if "error" not in st:
        report.row("stepping, first 1,000 steps (tinyshakespeare)", "bpe-tui", st,
                   note=f"per step p50 {st['p50_ms']:.2f} ms, p99 {st['p99_ms']:.2f} ms, max {st['max_ms']:.1f} ms")
        report.target("stepping p99 (ms), first 1,000 steps", "<= 16", st["p99_ms"], st["p99_ms"] <= 16)
        report.target("  ... p50 (ms)", "", st["p50_ms"], None)

    # -- the standard library corpus
    std = stdlib_corpus(work / "stdlib.txt")
    w = f"stdlib .py ({std.stat().st_size / 1e6:.0f} MB) -> 10k"
    got = measure_together({
        "ours": {"job": "ours", "path": str(std), "vocab": 10_000},
        "ours1": {"job": "ours", "path": str(std), "vocab": 10_000, "workers": 1},
        "hf": {"job": "hf", "path": str(std), "vocab": 10_000},
    }, repeat)
    ours, ours1, hf = got["ours"], got["ours1"], got["hf"]
    report.row(w, f"bpe-tui ({os.cpu_count()} workers)", ours, note=f"count {ours.get('count_s', 0):.2f} s + train {ours.get('train_s', 0):.2f} s")
    report.row(w, "bpe-tui (1 worker)", ours1, ours, f"count {ours1.get('count_s', 0):.2f} s + train {ours1.get('train_s', 0):.2f} s")
    report.row(w, "tokenizers", hf, ours)
    ratio = round_ratio(ours, hf)
    if ratio is not None:
        report.target(f"stdlib -> 10k, ours ({os.cpu_count()} workers) / tokenizers", "<= 0.8", ratio, ratio <= 0.8)
        ratio1 = round_ratio(ours1, hf)
        if ratio1 is not None:
            report.target("  ... with 1 worker", "", ratio1, None)
        report.target("stdlib -> 10k peak RSS, ours / tokenizers", "<= 2", ours["peak_rss_mb"] / hf["peak_rss_mb"], ours["peak_rss_mb"] / hf["peak_rss_mb"] <= 2)

    # -- 1 GB streaming
    if args.big:
        size = int(args.big_size * 1e9)
        print(f"\n  writing a {size / 1e9:.1f} GB corpus to {work} ...", flush=True)
        big = big_corpus(work / "big.txt", size)
        w = f"{big.stat().st_size / 1e9:.2f} GB varied text -> 10k"
        ours = measure({"job": "ours", "path": str(big), "vocab": 10_000}, 1)
        report.row(w, f"bpe-tui ({os.cpu_count()} workers)", ours, note=f"count {ours.get('count_s', 0):.1f} s + train {ours.get('train_s', 0):.1f} s, {ours.get('words', 0):,} distinct words")
        hf = measure({"job": "hf", "path": str(big), "vocab": 10_000}, 1)
        report.row(w, "tokenizers", hf, ours)

    report.print()
    print(f"\n(total {time.perf_counter() - started:.0f} s)")
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())

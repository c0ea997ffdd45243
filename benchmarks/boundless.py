"""BoundlessBPE: the authors' trainer against bpe-tui's on 1 MB and 10 MB, bpe-tui's against
plain BPE on 100 MB, and encoding with their largest model (run by hand; not a test).

    python benchmarks/boundless.py train                   # 1 MB and 10 MB, 4,096 tokens, both trainers
    python benchmarks/boundless.py train --sizes 1 --vocab-size 2048 --timeout 600
    python benchmarks/boundless.py big                     # 100 MB to 32,768: BoundlessBPE and plain BPE
    python benchmarks/boundless.py encode                  # the 114,688-token model vs o200k

``train`` runs the authors' ``FasterHalfDirectRegexTokenizer`` (their checkout, found at
``--ref``, ``$BOUNDLESSBPE_CHECKOUT`` or ``../refs/boundlessbpe``) in a fresh process on the
same documents bpe-tui's golden runs use (tests/core/golden/boundless/recipe.py: a text cut
after every blank line, one JSON lines record each), with the paper's setup (GPT-4o's regex,
tau 0.9, deletions into bytes) and its bookkeeping check once per 1,000 steps, as their runs
did. The corpora: tinyshakespeare's first 1 MB, and 10 MB of this Python's standard library
(its ``.py`` files in sorted order, one document each, made here). It prints CPU and wall
seconds; a run past ``--timeout`` is stopped and its rate so far printed, with how long the
whole run would take at that rate. Then bpe-tui's trainer (``--preset boundless``, the same
setup) trains the same documents in a fresh process, counting included as the reference's
pre-tokenization is, and the ratio of CPU seconds is printed (it checks that both made the
same number of events of each kind).

``big`` trains 100 MB (the standard library's ``.py`` files, then this environment's
site-packages ``.py`` files, sorted, one document each) to 32,768 tokens with bpe-tui's
BoundlessBPE and with plain BPE under the same rules (``--preset boundless`` with the
variant off: GPT-4o's regex, ties to the smallest pair), each in a fresh process, counting
included, and prints their CPU and wall seconds and the ratio (the goal: at most 3).

``encode`` opens the largest published model the snapshot holds (114,688 tokens: the 131,072
ones are not in it) and o200k (../shared/tables), and encodes tinyshakespeare with each in a
fresh process, cold cache, CPU seconds (``time.process_time``), as benchmarks/tables.py does;
the rounds alternate, and the ratio printed is the median of the per-round ratios.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
TINY = SHARED / "corpora" / "tinyshakespeare.txt"
O200K = SHARED / "tables" / "o200k"
CHECKOUT = Path(os.environ.get("BOUNDLESSBPE_CHECKOUT") or REPO.parent / "refs" / "boundlessbpe")
LARGEST = "boundless_1000000_1000000000_131072_0.9_1000_gpt4o_1_114688.model"


def recipe():
    """tests/core/golden/boundless/recipe.py, for its ``documents`` and ``corpus_slice``."""
    spec = importlib.util.spec_from_file_location("boundless_recipe", REPO / "tests" / "core" / "golden" / "boundless" / "recipe.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def python_documents(size: int, site_packages: bool = True) -> list[str]:
    """The standard library's .py files, then (``site_packages``) this environment's
    site-packages .py files, each folder sorted, one document each, until ``size`` bytes."""
    paths = sysconfig.get_paths()
    roots = [Path(paths["stdlib"])] + ([Path(paths["purelib"])] if site_packages else [])
    docs, total = [], 0
    for k, root in enumerate(roots):
        for path in sorted(root.rglob("*.py")):
            if k == 0 and "site-packages" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            docs.append(text)
            total += len(text.encode("utf-8"))
            if total >= size:
                return docs
    return docs


def corpus(size_mb: int) -> tuple[str, list[str]]:
    if size_mb == 1:
        r = recipe()
        return "tinyshakespeare, first 1 MB", r.documents(r.corpus_slice(str(TINY), 1_000_000))
    if size_mb > 30:
        return f"Python {sys.version_info.major}.{sys.version_info.minor} stdlib + site-packages .py, {size_mb} MB", python_documents(size_mb * 1_000_000)
    return f"Python {sys.version_info.major}.{sys.version_info.minor} standard library .py, {size_mb} MB", python_documents(size_mb * 1_000_000, site_packages=False)


_OURS = r"""
import json, sys, time
from bpe_tui import Trainer, TrainerConfig
data, vocab, boundless = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
docs = [json.loads(line)["text"] for line in open(data, encoding="utf-8")]
cpu0, wall0 = time.process_time(), time.perf_counter()
config = TrainerConfig(preset="boundless", vocab_size=vocab) if boundless else TrainerConfig(preset="boundless", boundless=None, vocab_size=vocab)
trainer = Trainer.from_iterator(docs, config)
counted = time.process_time() - cpu0
for _ in trainer.run():
    pass
cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
kinds = {"w": 0, "s": 0, "wd": 0}
for event in trainer.history:
    kinds["s" if getattr(event.reason, "kind", "") == "supermerge" else "w"] += 1
    kinds["wd"] += len(event.after)
print(json.dumps({"cpu": cpu, "wall": wall, "count": counted, "steps": trainer.steps_done, "kinds": kinds}))
"""


def train_ours(docs: list[str], vocab: int, boundless: bool = True) -> dict:
    """bpe-tui's trainer on ``docs`` in a fresh process (counting included): CPU and wall seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "docs.jsonl")
        with open(data, "w", encoding="utf-8") as f:
            f.writelines(json.dumps({"text": d}) + "\n" for d in docs)
        out = subprocess.run([sys.executable, "-c", _OURS, data, str(vocab), "1" if boundless else "0"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


_REFERENCE = r"""
import sys, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
from boundlessbpe import FasterHalfDirectRegexTokenizer
from boundlessbpe.regexconstants import GPT4O_SPLIT_PATTERN
data, n, vocab, out = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
tokenizer = FasterHalfDirectRegexTokenizer(0.9, GPT4O_SPLIT_PATTERN)
tokenizer.train(data, out, n, vocab, 1000, True, 10**15, True)
"""


def train_reference(docs: list[str], vocab: int, timeout: float) -> dict:
    """The authors' trainer on ``docs`` in a fresh process: CPU and wall seconds, steps made."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "docs.jsonl")
        with open(data, "w", encoding="utf-8") as f:
            f.writelines(json.dumps({"text": d}) + "\n" for d in docs)
        log_path = os.path.join(tmp, "log.txt")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with open(log_path, "w") as log:
            child = subprocess.Popen([sys.executable, "-c", _REFERENCE, str(CHECKOUT), data, str(len(docs)), str(vocab), os.path.join(tmp, "m")], stdout=log, stderr=subprocess.STDOUT)
            try:
                child.wait(timeout=timeout)
                finished = child.returncode == 0
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
                finished = False
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        steps, first = 0, None
        kinds = {"w": 0, "s": 0, "wd": 0}
        with open(log_path) as log:
            for line in log:
                fields = line.split("\t")
                if fields[0] == "*" and len(fields) > 3 and fields[3] in kinds:
                    kinds[fields[3]] += 1
                    steps = int(fields[1])
                elif first is None and line.startswith("pretokenization time:"):
                    first = float(line.split()[2])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": cpu, "wall": wall, "steps": steps, "finished": finished, "pretokenize": first or 0.0, "kinds": kinds}


def cmd_train(args: argparse.Namespace) -> int:
    if not (CHECKOUT / "boundlessbpe" / "boundlessbpetrain.py").exists():
        print(f"the authors' checkout is absent ({CHECKOUT}): set BOUNDLESSBPE_CHECKOUT or --ref", file=sys.stderr)
        return 2
    if not TINY.exists():
        print(f"{TINY} is absent: this benchmark needs ../shared", file=sys.stderr)
        return 2
    print(f"the authors' FasterHalfDirectRegexTokenizer and bpe-tui's --preset boundless: GPT-4o regex, tau 0.9, deletions into bytes, to {args.vocab_size:,} tokens")
    print(f"{'corpus':<48} {'docs':>6} {'MB':>5} {'steps':>6} {'CPU s':>8} {'wall s':>8}  note")
    for size in args.sizes:
        name, docs = corpus(size)
        mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
        ours = train_ours(docs, args.vocab_size)
        made = f"{ours['kinds']['w']:,} word merges, {ours['kinds']['s']:,} supermerges, {ours['kinds']['wd']:,} deletions"
        print(f"{'  bpe-tui: ' + name:<48} {len(docs):>6,} {mb:>5.1f} {ours['steps']:>6,} {ours['cpu']:>8.1f} {ours['wall']:>8.1f}  {made} (counting {ours['count']:.1f} s CPU)", flush=True)
        r = train_reference(docs, args.vocab_size, args.timeout)
        want = args.vocab_size - 256
        made = f"{r['kinds']['w']:,} word merges, {r['kinds']['s']:,} supermerges, {r['kinds']['wd']:,} deletions"
        if r["finished"]:
            note = f"finished: {made}"
        elif r["steps"]:
            rate = (r["wall"] - r["pretokenize"]) / r["steps"]
            note = f"stopped at --timeout: {r['steps']:,} of {want:,} steps ({made}), {rate:.2f} s a step; the whole run ~{r['pretokenize'] + rate * want:,.0f} s wall"
        else:
            note = "stopped at --timeout before its first step"
        print(f"{'  reference: ' + name:<48} {len(docs):>6,} {mb:>5.1f} {r['steps']:>6,} {r['cpu']:>8.1f} {r['wall']:>8.1f}  {note}", flush=True)
        if r["finished"]:
            same = "the same events of each kind" if r["kinds"] == ours["kinds"] else f"NOT the same events: {r['kinds']} against {ours['kinds']}"
            print(f"  reference / bpe-tui: {r['cpu'] / ours['cpu']:.0f}x CPU, {r['wall'] / ours['wall']:.0f}x wall ({same})", flush=True)
        elif r["steps"]:
            rate = r["cpu"] / max(1, r["steps"])
            print(f"  reference / bpe-tui, at the reference's CPU rate so far: ~{rate * ours['steps'] / ours['cpu']:.0f}x CPU", flush=True)
    return 0


def cmd_big(args: argparse.Namespace) -> int:
    """100 MB to 32,768 tokens: bpe-tui's BoundlessBPE against plain BPE under the same rules."""
    name, docs = corpus(args.size)
    mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    print(f"{name}: {len(docs):,} documents, {mb:.1f} MB, to {args.vocab_size:,} tokens, fresh processes, counting included")
    print(f"{'trainer':<36} {'steps':>7} {'count s':>8} {'CPU s':>8} {'wall s':>8}  made")
    rows = {}
    for label, boundless in (("plain BPE (same rules)", False), ("BoundlessBPE (--preset boundless)", True)):
        r = rows[label] = train_ours(docs, args.vocab_size, boundless)
        made = f"{r['kinds']['w']:,} word merges, {r['kinds']['s']:,} supermerges, {r['kinds']['wd']:,} deletions"
        print(f"{label:<36} {r['steps']:>7,} {r['count']:>8.1f} {r['cpu']:>8.1f} {r['wall']:>8.1f}  {made}", flush=True)
    plain, ours = rows["plain BPE (same rules)"], rows["BoundlessBPE (--preset boundless)"]
    print(f"BoundlessBPE / plain BPE: {ours['cpu'] / plain['cpu']:.2f}x CPU, {ours['wall'] / plain['wall']:.2f}x wall (the goal: at most 3)")
    return 0


_ENCODE = r"""
import json, sys, time
import bpe_tui
path, text_path = sys.argv[1], sys.argv[2]
t = time.process_time(); table = bpe_tui.load(path); load = time.process_time() - t
text = open(text_path, encoding="utf-8").read()
t = time.process_time(); ids = table.encode(text); enc = time.process_time() - t
t = time.process_time(); again = table.encode(text); warm = time.process_time() - t
assert again == ids
print(json.dumps({"load": load, "encode": enc, "warm": warm, "n": len(ids)}))
"""


def run_encode(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _ENCODE, str(path), str(TINY)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def cmd_encode(args: argparse.Namespace) -> int:
    model = Path(args.model) if args.model else CHECKOUT / "models" / LARGEST
    for needed in (model, O200K, TINY):
        if not needed.exists():
            print(f"{needed} is absent", file=sys.stderr)
            return 2
    ours, base = [], []
    for _ in range(args.rounds):
        ours.append(run_encode(model))
        base.append(run_encode(O200K))
    mb = TINY.stat().st_size / 1e6
    print(f"encoding tinyshakespeare ({mb:.1f} MB), fresh process, CPU seconds, median of {args.rounds}")
    print(f"{'table':<40} {'open s':>7} {'encode s':>9} {'MB/s':>6} {'again s':>8} {'tokens':>8}")
    for name, rows in ((model.name[:40], ours), ("o200k", base)):
        load, enc, warm = (statistics.median(r[k] for r in rows) for k in ("load", "encode", "warm"))
        print(f"{name:<40} {load:>7.2f} {enc:>9.3f} {mb / enc:>6.2f} {warm:>8.3f} {rows[0]['n']:>8,}")
    ratio = statistics.median(b["encode"] / o["encode"] for o, b in zip(ours, base))
    again = statistics.median(b["warm"] / o["warm"] for o, b in zip(ours, base))
    print(f"BoundlessBPE speed / o200k's: {ratio:.2f} first pass, {again:.2f} second pass (above 1: faster)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", help="the authors' checkout (default: $BOUNDLESSBPE_CHECKOUT or ../refs/boundlessbpe)")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="the authors' trainer on 1 MB and 10 MB")
    t.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[1, 10], help="corpus sizes in MB (1: tinyshakespeare; more: the standard library)")
    t.add_argument("--vocab-size", type=int, default=4096)
    t.add_argument("--timeout", type=float, default=3600, help="seconds a run may take before it is stopped (its rate is still printed)")
    b = sub.add_parser("big", help="100 MB to 32,768 tokens: BoundlessBPE against plain BPE")
    b.add_argument("--size", type=int, default=100, help="MB (default 100)")
    b.add_argument("--vocab-size", type=int, default=32768)
    e = sub.add_parser("encode", help="the 114,688-token model against o200k")
    e.add_argument("--model", help="another .model file")
    e.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.ref:
        global CHECKOUT
        CHECKOUT = Path(args.ref)
    return {"train": cmd_train, "big": cmd_big, "encode": cmd_encode}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())

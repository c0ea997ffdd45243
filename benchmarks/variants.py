"""Plain BPE, PickyBPE, parity-aware BPE, SuperBPE and BoundlessBPE side by side (run by hand; not a test).

    python benchmarks/variants.py                              # 200 KB a language, vocabulary 3,000
    python benchmarks/variants.py --max-bytes 400000 --vocab-size 3500
    python benchmarks/variants.py --keep DIR                   # keep the tables and the texts

The material, the same for every variant:

* **training text**: twelve languages (corpora/parallel's) from this machine's gettext
  catalogues (tests/catalogues.py, ``--max-bytes`` per language), all of it the corpus of
  plain BPE, PickyBPE and SuperBPE, and each language's file its own corpus for parity-aware
  BPE;
* **development text** (parity-aware BPE's, which decides whose pair is merged): lines 1-15
  of each language of corpora/parallel;
* **evaluation text**: lines 16-30 of corpora/parallel, the same 15 sentences in twelve
  languages, which no variant saw (as the paper's FLORES dev and devtest halves).

Every variant trains under GPT-2's rules (bytes, GPT-2's regex, ties by the greatest pair) to
the same vocabulary size: plain BPE; PickyBPE with τ ``--picky`` (0.9); parity-aware BPE,
base; SuperBPE with its transition after ``--superwords-share`` (0.8) of the merges and its
stage-2 rule (the trainer's defaults; not the ``superbpe`` preset's limits); BoundlessBPE with
deletions at τ ``--picky`` too (its vocabulary size counts its deleted tokens, as its authors'
trainer does, so its table encodes with fewer). Each runs in a
fresh Python process that counts the corpus and trains, timed in CPU and wall seconds, one
after another in this run, and saves its table. Then the four tables are measured on the
evaluation text with ``bpe-tui eval``'s numbers (:mod:`bpe_tui.core.analysis.side_by_side`),
printed side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.catalogues import LANGUAGES, build  # noqa: E402

PARALLEL = REPO / "corpora" / "parallel"
VARIANTS = ("plain", "picky", "parity", "superbpe", "boundless")

_CHILD = r"""
import json, sys, time
from bpe_tui import Trainer, TrainerConfig, save

variant, vocab, tau, share, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
corpora = json.loads(sys.argv[6])
dev = json.loads(sys.argv[7])
clock = lambda: (time.process_time(), time.perf_counter())
c0 = clock()
base = dict(preset="gpt2", vocab_size=vocab)
if variant == "parity":
    trainer = Trainer.from_languages(corpora, dev=dev, config=TrainerConfig(parity="base", **base))
else:
    extra = {"picky": dict(picky=tau), "superbpe": dict(superwords_after=round(share * (vocab - 256))), "boundless": dict(boundless=tau)}.get(variant, {})
    trainer = Trainer.from_files(list(corpora.values()), TrainerConfig(**base, **extra))
c1 = clock()
for _ in trainer.run():
    pass
c2 = clock()
save(trainer.table, out)
print(json.dumps({"count": [c1[0] - c0[0], c1[1] - c0[1]], "train": [c2[0] - c1[0], c2[1] - c1[1]],
                  "merges": trainer.steps_done, "vocab": len(trainer.table)}))
"""


def child(variant: str, args: argparse.Namespace, corpora: dict[str, str], dev: dict[str, str], out: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-c", _CHILD, variant, str(args.vocab_size), str(args.picky), str(args.superwords_share), out,
           json.dumps(corpora), json.dumps(dev)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{variant}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def halves(folder: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Lines 1-15 (development) and 16-30 (evaluation) of each parallel text, as files."""
    dev, held = {}, {}
    for lang in LANGUAGES:
        lines = (PARALLEL / f"{lang}.txt").read_text(encoding="utf-8").splitlines(keepends=True)
        half = len(lines) // 2
        for part, chosen, out in (("dev", lines[:half], dev), ("eval", lines[half:], held)):
            path = folder / part / f"{lang}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(chosen), encoding="utf-8")
            out[lang] = str(path)
    return dev, held


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def run(args: argparse.Namespace, folder: Path) -> int:
    from bpe_tui import load
    from bpe_tui.core.analysis.evaluate import Corpus, evaluate
    from bpe_tui.core.analysis.reports import format_side_by_side
    from bpe_tui.core.analysis.side_by_side import side_by_side

    built = build(folder / "train", args.max_bytes)
    if len(built) < len(LANGUAGES):
        print(f"this machine has catalogues for {len(built)} of the {len(LANGUAGES)} languages (/usr/share/locale)", file=sys.stderr)
        return 2
    corpora = {lang: str(path) for lang, path in built.items()}
    dev, held = halves(folder)
    size = sum(p.stat().st_size for p in built.values())
    print(f"machine: {os.cpu_count()} CPUs ({cpu_model()}), Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    print(f"training text: {len(built)} languages, {size / 1e6:.2f} MB of catalogue text; vocabulary {args.vocab_size:,} for every variant")
    results, paths = {}, {}
    for variant in VARIANTS:
        paths[variant] = str(folder / f"{variant}.json")
        results[variant] = child(variant, args, corpora, dev, paths[variant])
    plain = results["plain"]
    print()
    print(f"{'':9} {'count CPU':>10} {'count wall':>11} {'train CPU':>10} {'train wall':>11} {'vs plain':>9} {'merges':>7} {'vocab':>6}")
    for variant, r in results.items():
        ratio = (r["count"][0] + r["train"][0]) / (plain["count"][0] + plain["train"][0])
        print(f"{variant:9} {r['count'][0]:9.2f}s {r['count'][1]:10.2f}s {r['train'][0]:9.2f}s {r['train'][1]:10.2f}s "
              f"{ratio:8.1f}x {r['merges']:7,} {r['vocab']:6,}")
    print("(vs plain: CPU seconds of counting and training over plain BPE's)")
    tables = [load(paths[v]) for v in VARIANTS]
    result = evaluate(tables, [Corpus(lang, (held[lang],)) for lang in LANGUAGES], list(VARIANTS), workers=1)
    print()
    print("on the held-out half of corpora/parallel (lines 16-30), as bpe-tui eval TABLE... --corpus LANG=FILE... prints it:")
    print(format_side_by_side(side_by_side(tables, result)))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab-size", type=int, default=3000, help="every variant's vocabulary size (default 3,000)")
    ap.add_argument("--max-bytes", type=int, default=200_000, help="training text per language (default 200,000; tests/catalogues.py)")
    ap.add_argument("--picky", type=float, default=0.9, help="PickyBPE's IoS threshold τ (default 0.9)")
    ap.add_argument("--superwords-share", type=float, default=0.8, help="SuperBPE's transition, as a share of the merges (default 0.8)")
    ap.add_argument("--keep", metavar="DIR", help="write the texts and the tables to DIR and keep them (default: a temporary folder)")
    args = ap.parse_args()
    if args.keep:
        return run(args, Path(args.keep))
    with tempfile.TemporaryDirectory() as folder:
        return run(args, Path(folder))


if __name__ == "__main__":
    sys.exit(main())

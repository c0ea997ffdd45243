"""Real merge tables, side by side with their own libraries (run by hand; not a test).

    python benchmarks/tables.py             # every table in ../shared/tables, medians of 3
    python benchmarks/tables.py --quick     # one round
    python benchmarks/tables.py o200k llama2-sp   # some of them

For each table: the time to open it (bpe-tui's ``load`` vs the library's own loading: tiktoken's
``load_tiktoken_bpe`` + ``Encoding``, tokenizers' ``Tokenizer.from_file``, sentencepiece's
``SentencePieceProcessor``), and the throughput of encoding tinyshakespeare (1.1 MB) with a
cold cache, with the ids checked equal. Each measurement runs in a fresh subprocess, the two
engines in turns, and the ratio printed is the median of the per-round ratios (ours / theirs
for times), so a busy shared machine slows both sides. Times are CPU seconds of the process
(``time.process_time``): on a machine shared with other jobs, wall time swings with their load.

Our load is measured twice per round: *cold*, with an empty merges cache (``BPE_TUI_CACHE``
pointing at a new directory: the first open of a rank file on a machine), and *warm*, a second
process on the same cache. ``merges`` is the time, after that cold open and the encode, to get
the table's merge list (``MergeTable.merge_ids``): rank files build it only when a view asks
(history, trace, search, audit, saving to a format with merges), so it is not part of opening.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TABLES = REPO.parent / "shared" / "tables"
TINY = REPO.parent / "shared" / "corpora" / "tinyshakespeare.txt"

#: name -> (path under ../shared/tables, library, how the library opens it)
TABLES_KNOWN = {
    "gpt2": ("gpt2", "tiktoken-gpt2"),
    "cl100k": ("cl100k/cl100k_base.tiktoken", "tiktoken-cl100k"),
    "o200k": ("o200k/o200k_base.tiktoken", "tiktoken-o200k"),
    "llama3": ("llama3/tokenizer.model", "tiktoken-llama3"),
    "mistral-hf-v3": ("mistral-hf-v3/tokenizer.json", "tokenizers"),
    "roberta-bne": ("roberta-bne/tokenizer.json", "tokenizers"),
    "gpt-neox20b": ("gpt-neox20b/20B_tokenizer.json", "tokenizers"),
    "llama2-sp": ("llama2-sp/tokenizer.model", "sentencepiece"),
}

OURS = r"""
import json, sys, time
import bpe_tui
path, text_path = sys.argv[1], sys.argv[2]
t = time.process_time(); table = bpe_tui.load(path); load = time.process_time() - t
text = open(text_path, encoding="utf-8").read()
t = time.process_time(); ids = table.encode(text); enc = time.process_time() - t
t = time.process_time(); merges = len(table.merge_ids); build = time.process_time() - t
print(json.dumps({"load": load, "encode": enc, "merges": build, "n": len(ids), "hash": hash(tuple(ids))}))
"""

THEIRS = r"""
import json, sys, time
kind, path, text_path = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(text_path, encoding="utf-8").read()
t = time.process_time()
if kind.startswith("tiktoken"):
    import tiktoken
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks, load_tiktoken_bpe
    from bpe_tui.core.tables.formats.tiktoken_known import LLAMA3_PATTERN, KNOWN
    from bpe_tui.core.text.pretokenize import NAMED_PATTERNS
    if kind == "tiktoken-gpt2":
        import json as j
        vocab = j.load(open(path + "/vocab.json"))
        from bpe_tui.core.engine.units import gpt2_str_to_bytes
        ranks = {gpt2_str_to_bytes(k): v for k, v in vocab.items() if k != "<|endoftext|>"}
        enc = tiktoken.Encoding("gpt2", pat_str=NAMED_PATTERNS["gpt2"], mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 50256})
    else:
        ranks = load_tiktoken_bpe(path)
        known = {"tiktoken-cl100k": KNOWN[2], "tiktoken-o200k": KNOWN[3], "tiktoken-llama3": KNOWN[4]}[kind]
        pat = known.pretokenizer[6:] if known.pretokenizer.startswith("regex:") else NAMED_PATTERNS[known.pretokenizer]
        enc = tiktoken.Encoding(kind, pat_str=pat, mergeable_ranks=ranks, special_tokens=known.special_tokens)
    load = time.process_time() - t
    t = time.process_time(); ids = enc.encode(text, allowed_special="all"); e = time.process_time() - t
elif kind == "tokenizers":
    import tokenizers
    tok = tokenizers.Tokenizer.from_file(path); tok.no_truncation()
    load = time.process_time() - t
    t = time.process_time(); ids = tok.encode(text, add_special_tokens=False).ids; e = time.process_time() - t
else:
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor(model_file=path)
    load = time.process_time() - t
    t = time.process_time(); ids = sp.encode(text); e = time.process_time() - t
print(json.dumps({"load": load, "encode": e, "n": len(ids), "hash": hash(tuple(ids))}))
"""


def run(code: str, *args: str, cache: str | None = None) -> dict:
    env = dict(os.environ, BPE_TUI_CACHE=cache) if cache else None
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"tables to run (default all: {', '.join(TABLES_KNOWN)})")
    parser.add_argument("--quick", action="store_true", help="one round instead of three")
    args = parser.parse_args()
    if not TINY.exists():
        print(f"{TINY} is absent: this benchmark needs ../shared", file=sys.stderr)
        return 2
    rounds = 1 if args.quick else 3
    mb = TINY.stat().st_size / 1e6
    print(f"{'table':<15} {'load cold':>9} {'warm':>6} {'theirs':>7} {'cold/th':>7} {'warm/th':>7} {'merges':>7}   "
          f"{'encode MB/s ours':>16} {'theirs':>7} {'ratio':>6}  ids")
    for name in args.names or list(TABLES_KNOWN):
        rel, kind = TABLES_KNOWN[name]
        path = TABLES / rel
        if not path.exists():
            print(f"{name:<15} (absent)")
            continue
        ours, warm, theirs = [], [], []
        for _ in range(rounds):
            with tempfile.TemporaryDirectory() as cache:
                ours.append(run(OURS, str(path), str(TINY), cache=cache))
                warm.append(run(OURS, str(path), str(TINY), cache=cache))
            theirs.append(run(THEIRS, kind, str(path), str(TINY)))
        cold_ratio = statistics.median(o["load"] / t["load"] for o, t in zip(ours, theirs))
        warm_ratio = statistics.median(o["load"] / t["load"] for o, t in zip(warm, theirs))
        enc_ratio = statistics.median(t["encode"] / o["encode"] for o, t in zip(ours, theirs))
        same = all(o["n"] == t["n"] and o["hash"] == t["hash"] for o, t in zip(ours + warm, theirs + theirs))
        lo, lw = statistics.median(o["load"] for o in ours), statistics.median(o["load"] for o in warm)
        lt = statistics.median(t["load"] for t in theirs)
        build = statistics.median(o["merges"] for o in ours)
        eo, et = statistics.median(mb / o["encode"] for o in ours), statistics.median(mb / t["encode"] for t in theirs)
        print(
            f"{name:<15} {lo:>8.2f}s {lw:>5.2f}s {lt:>6.2f}s {cold_ratio:>7.1f} {warm_ratio:>7.1f} {build:>6.2f}s   "
            f"{eo:>16.2f} {et:>7.2f} {enc_ratio:>6.2f}  {'same' if same else 'DIFFER'}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Real merge tables, side by side with their own libraries (run by hand; not a test).

    python benchmarks/tables.py             # every table in ../shared/tables, medians of 3
    python benchmarks/tables.py --quick     # one round
    python benchmarks/tables.py o200k llama2-sp   # some of them

For each table: the time to open it (bpe-tui's ``load`` vs the library's own loading: tiktoken's
``load_tiktoken_bpe`` + ``Encoding``, tokenizers' ``Tokenizer.from_file``, sentencepiece's
``SentencePieceProcessor``), and the throughput of encoding tinyshakespeare (1.1 MB) with a
cold cache, with the ids checked equal. Each measurement runs in a fresh subprocess, the two
engines in turns, and the ratio printed is the median of the per-round ratios (ours / theirs
for times), so a busy shared machine slows both sides.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
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
t = time.perf_counter(); table = bpe_tui.load(path); load = time.perf_counter() - t
text = open(text_path, encoding="utf-8").read()
t = time.perf_counter(); ids = table.encode(text); enc = time.perf_counter() - t
print(json.dumps({"load": load, "encode": enc, "n": len(ids), "hash": hash(tuple(ids))}))
"""

THEIRS = r"""
import json, sys, time
kind, path, text_path = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(text_path, encoding="utf-8").read()
t = time.perf_counter()
if kind.startswith("tiktoken"):
    import tiktoken
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks, load_tiktoken_bpe
    from bpe_tui.core.formats.tiktoken_known import LLAMA3_PATTERN, KNOWN
    from bpe_tui.core.pretokenize import NAMED_PATTERNS
    if kind == "tiktoken-gpt2":
        import json as j
        vocab = j.load(open(path + "/vocab.json"))
        from bpe_tui.core.units import gpt2_str_to_bytes
        ranks = {gpt2_str_to_bytes(k): v for k, v in vocab.items() if k != "<|endoftext|>"}
        enc = tiktoken.Encoding("gpt2", pat_str=NAMED_PATTERNS["gpt2"], mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 50256})
    else:
        ranks = load_tiktoken_bpe(path)
        known = {"tiktoken-cl100k": KNOWN[2], "tiktoken-o200k": KNOWN[3], "tiktoken-llama3": KNOWN[4]}[kind]
        pat = known.pretokenizer[6:] if known.pretokenizer.startswith("regex:") else NAMED_PATTERNS[known.pretokenizer]
        enc = tiktoken.Encoding(kind, pat_str=pat, mergeable_ranks=ranks, special_tokens=known.special_tokens)
    load = time.perf_counter() - t
    t = time.perf_counter(); ids = enc.encode(text, allowed_special="all"); e = time.perf_counter() - t
elif kind == "tokenizers":
    import tokenizers
    tok = tokenizers.Tokenizer.from_file(path); tok.no_truncation()
    load = time.perf_counter() - t
    t = time.perf_counter(); ids = tok.encode(text, add_special_tokens=False).ids; e = time.perf_counter() - t
else:
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor(model_file=path)
    load = time.perf_counter() - t
    t = time.perf_counter(); ids = sp.encode(text); e = time.perf_counter() - t
print(json.dumps({"load": load, "encode": e, "n": len(ids), "hash": hash(tuple(ids))}))
"""


def run(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
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
    print(f"{'table':<15} {'load ours':>10} {'theirs':>8} {'ratio':>6}   {'encode MB/s ours':>16} {'theirs':>8} {'ratio':>6}  ids")
    for name in args.names or list(TABLES_KNOWN):
        rel, kind = TABLES_KNOWN[name]
        path = TABLES / rel
        if not path.exists():
            print(f"{name:<15} (absent)")
            continue
        ours, theirs = [], []
        for _ in range(rounds):
            ours.append(run(OURS, str(path), str(TINY)))
            theirs.append(run(THEIRS, kind, str(path), str(TINY)))
        load_ratio = statistics.median(o["load"] / t["load"] for o, t in zip(ours, theirs))
        enc_ratio = statistics.median(t["encode"] / o["encode"] for o, t in zip(ours, theirs))
        same = all(o["n"] == t["n"] and o["hash"] == t["hash"] for o, t in zip(ours, theirs))
        lo, lt = statistics.median(o["load"] for o in ours), statistics.median(t["load"] for t in theirs)
        eo, et = statistics.median(mb / o["encode"] for o in ours), statistics.median(mb / t["encode"] for t in theirs)
        print(f"{name:<15} {lo:>9.2f}s {lt:>7.2f}s {load_ratio:>6.1f}   {eo:>16.2f} {et:>8.2f} {enc_ratio:>6.2f}  {'same' if same else 'DIFFER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

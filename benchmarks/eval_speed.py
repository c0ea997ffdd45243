"""How fast ``bpe-tui eval`` encodes, against tiktoken (run by hand; not part of the test suite).

    python benchmarks/eval_speed.py              # a 10 MB corpus: tinyshakespeare repeated
    python benchmarks/eval_speed.py --mb 50 --workers 4

The corpus is made at run time from ../shared/corpora/tinyshakespeare.txt (repeated). Rows:

* tiktoken, one table (GPT-2's ranks from ../shared/tables/gpt2/vocab.json), one thread:
  ``encode_ordinary`` over the whole text, the peer's single-table throughput.
* ``evaluate`` with GPT-2's table alone, then with three tables (GPT-2, cl100k, o200k), with the
  given worker processes: corpus MB x tables / seconds (every table encodes the whole corpus,
  and every metric is computed). Reading the tables is not timed.

Token counts are checked against tiktoken's before any number is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=10, help="corpus size in MB (default 10)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes for eval (default: CPU count)")
    args = parser.parse_args()

    import tiktoken

    import bpe_tui
    from bpe_tui.core.analysis import evaluate as ev
    from bpe_tui.core.engine.units import gpt2_str_to_bytes
    from bpe_tui.core.text.pretokenize import GPT2_PATTERN

    source = SHARED / "corpora" / "tinyshakespeare.txt"
    tables = [SHARED / "tables" / "gpt2", SHARED / "tables" / "cl100k" / "cl100k_base.tiktoken", SHARED / "tables" / "o200k" / "o200k_base.tiktoken"]
    for path in [source, *tables]:
        if not path.exists():
            print(f"{path} is absent: the benchmark needs ../shared", file=sys.stderr)
            return 2
    text = source.read_text(encoding="utf-8")
    repeat = max(1, round(args.mb * 1e6 / len(text.encode())))
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.txt"
        corpus.write_text(text * repeat, encoding="utf-8")
        size = corpus.stat().st_size
        mb = size / 1e6
        whole = corpus.read_text(encoding="utf-8")

        vocab = json.loads((tables[0] / "vocab.json").read_text(encoding="utf-8"))
        ranks = {gpt2_str_to_bytes(s): i for s, i in vocab.items() if s != "<|endoftext|>"}
        enc = tiktoken.Encoding("gpt2-shared", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
        start = time.perf_counter()
        reference = len(enc.encode_ordinary(whole))
        tiktoken_s = time.perf_counter() - start

        loaded = [bpe_tui.load(str(p)) for p in tables]
        names = ["gpt2", "cl100k", "o200k"]
        corpora = [ev.parse_corpus(str(corpus))]
        rows = []
        for count in (1, 3):
            start = time.perf_counter()
            result = ev.evaluate(loaded[:count], corpora, names[:count], workers=args.workers)
            seconds = time.perf_counter() - start
            assert result.get(0, 0).tokens == reference, (result.get(0, 0).tokens, reference)
            rows.append((count, seconds))

    print(f"corpus: tinyshakespeare x {repeat} = {mb:.1f} MB; eval workers: {args.workers}; {os.cpu_count()} CPUs")
    print(f"GPT-2 tokens: {reference:,} (bpe-tui eval and tiktoken agree)")
    print()
    tiktoken_rate = mb / tiktoken_s
    print(f"{'engine':<40} {'seconds':>8} {'MB/s':>8} {'vs tiktoken':>12}")
    print(f"{'tiktoken encode_ordinary, 1 table':<40} {tiktoken_s:>8.2f} {tiktoken_rate:>8.2f} {1:>12.2f}")
    for count, seconds in rows:
        rate = mb * count / seconds
        label = f"bpe-tui eval, {count} table{'s' if count > 1 else ''} ({'+'.join(names[:count])})"
        print(f"{label:<40} {seconds:>8.2f} {rate:>8.2f} {rate / tiktoken_rate:>12.2f}")
    print("\nMB/s counts corpus MB x tables; eval also computes every metric (words, types, counts).")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The benchmark's naive baseline (the seeds' own training loop) learns exactly our merges.

benchmarks/compare.py reports how much faster the trainer is than benchmarks/naive_seed.py; that
ratio only means something if both do the same job, so check it here on the demo corpus.
"""

from __future__ import annotations

import importlib.util

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.text.corpus import count_files
from tests.conftest import CORPORA, REPO


def _naive_seed():
    spec = importlib.util.spec_from_file_location("naive_seed", REPO / "benchmarks" / "naive_seed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seed_loop_learns_our_merges_on_the_demo_corpus():
    cfg = TrainerConfig(preset="gpt2", merges=80)  # bytes, GPT-2 regex, lexical-max ties
    counts = count_files([str(CORPORA / "demo.txt")], cfg)
    ours = [(e.pair, e.count) for e in Trainer.from_counts(counts, cfg).run()]
    assert len(ours) == 80
    assert _naive_seed().train(counts, 80) == ours


def test_seed_loop_breaks_ties_towards_the_greatest_pair():
    # "ab" and "cd" both occur twice: lexical-max takes (c, d) first, as the trainer does.
    counts = {"ab": 2, "cd": 2}
    cfg = TrainerConfig(preset="gpt2", merges=2)
    ours = [(e.pair, e.count) for e in Trainer.from_counts(counts, cfg).run()]
    assert ours == [((b"c", b"d"), 2), ((b"a", b"b"), 2)]
    assert _naive_seed().train(counts, 2) == ours

"""The same corpus and config give the same merges whatever PYTHONHASHSEED is."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import CORPORA, REPO

SCRIPT = """
import sys, bpe_tui
for rule in ["first-seen", "lexical-min", "lexical-max", "hf", "rustbpe"]:
    for preset in ["gpt2", "classic"]:
        cfg = bpe_tui.TrainerConfig(preset=preset, tie_break=rule, merges=300)
        t = bpe_tui.Trainer.from_files([sys.argv[1]], cfg)
        print(rule, preset, [(e.pair, e.count) for e in t.run()])
"""


@pytest.mark.parametrize("seeds", [("0", "1"), ("12345", "random")])
def test_merges_do_not_depend_on_hash_seed(seeds):
    outputs = []
    for seed in seeds:
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(REPO))
        run = subprocess.run([sys.executable, "-c", SCRIPT, str(CORPORA / "demo.txt")], env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].count("\n") == 10

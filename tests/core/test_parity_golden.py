"""Parity-aware BPE against its authors' code: the merges their ``parity_aware_learn_bpe.py``
wrote, kept in tests/core/golden/parity (manifest.json: each run's exact command, the
repository commit, the inputs and their sha256), are the merges bpe-tui makes, in order, from
the same inputs and settings under the ``parity`` preset.

Two kinds of input: corpora/parallel itself (always here), and per-language text made from
this machine's gettext catalogues by tests/catalogues.py at test time (never committed): those
runs skip, saying why, where the catalogues are absent or differ from the ones the goldens were
made from.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.units import bytes_to_gpt2_str
from tests.catalogues import build, sha256
from tests.conftest import CORPORA

GOLDEN = Path(__file__).parent / "golden" / "parity"
MANIFEST = json.loads((GOLDEN / "manifest.json").read_text(encoding="utf-8"))
RUNS = {run["name"]: run for run in MANIFEST["runs"]}


@pytest.fixture(scope="module")
def catalogues(tmp_path_factory) -> Path:
    """The catalogue texts, built once, checked against the digests the goldens were made from."""
    folder = tmp_path_factory.mktemp("catalogues")
    built = build(folder, 200_000)
    expected = MANIFEST["inputs"]["CAT"]["sha256"]
    if not built:
        pytest.skip("this machine has no gettext catalogues under /usr/share/locale")
    differ = [lang for lang, digest in expected.items() if lang not in built or sha256(built[lang]) != digest]
    if differ:
        pytest.skip(f"this machine's catalogues give other texts than the goldens' ({', '.join(differ)}): a run here would train on other input")
    return folder


def inputs(run: dict, request) -> tuple[dict, dict | None, dict | None]:
    if run["train"] == "parallel":
        folder = CORPORA / "parallel"
        for lang in run["languages"]:
            assert sha256(folder / f"{lang}.txt") == MANIFEST["inputs"]["PARALLEL"]["sha256"][lang], f"corpora/parallel/{lang}.txt changed: make the goldens again"
    else:
        folder = request.getfixturevalue("catalogues")
    corpora = {lang: str(folder / f"{lang}.txt") for lang in run["languages"]}
    dev = {lang: str(CORPORA / "parallel" / f"{lang}.txt") for lang in run["languages"]} if run["dev"] else None
    ratio = dict(zip(run["languages"], run["ratio"])) if run["ratio"] else None
    return corpora, dev, ratio


def config(run: dict) -> TrainerConfig:
    window = dict(parity_window=run["window_size"], parity_alpha=run["alpha"]) if run["variant"] == "window" else {}
    return TrainerConfig(
        preset="parity", parity=run["variant"], global_merges=run["global_merges"], min_frequency=run["min_frequency"],
        merges=run["symbols"], **window,
    )


def golden(name: str) -> list[str]:
    lines = (GOLDEN / f"{name}.merges").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "#version: 0.2"
    return lines[1:]


@pytest.mark.parametrize("name", list(RUNS))
def test_same_merges_in_the_same_order_as_the_authors_script(name, request):
    run = RUNS[name]
    corpora, dev, ratio = inputs(run, request)
    trainer = Trainer.from_languages(corpora, dev=dev, ratio=ratio, config=config(run))
    merges = [f"{bytes_to_gpt2_str(e.pair[0])} {bytes_to_gpt2_str(e.pair[1])}" for e in trainer.run()]
    expected = golden(name)
    assert len(merges) == len(expected) == run["merges"]
    first = next((i for i, (a, b) in enumerate(zip(merges, expected)) if a != b), None)
    assert first is None, f"merge {first + 1}: {merges[first]!r}, the reference {expected[first]!r}"
    # how each run ended, as the reference's did
    end = run["end"]
    if end.startswith("ran all"):
        assert trainer.stop_reason == f"reached {run['symbols']} merges"
    elif end.startswith("crashed"):  # every language over its share: the reference raises, we stop
        assert "every language has chosen more than its share" in trainer.stop_reason
    elif "language -1" in end:  # the reference's global column: the whole corpus ran out
        assert trainer.stop_reason.startswith("best pair occurs 1 time, below min_frequency 2")
    else:
        language = run["languages"][int(end.split("language ")[1].split()[0])]
        assert trainer.stop_reason.startswith(f"{language}'s turn, and its most frequent pair occurs")


def test_the_manifest_says_how_each_golden_was_made():
    reference = MANIFEST["reference"]
    assert len(reference["commit"]) == 40 and reference["script"].endswith("parity_aware_learn_bpe.py")
    for run in MANIFEST["runs"]:
        assert run["command"].startswith("python parity_aware_bpe/parity_aware_learn_bpe.py ")
        assert f"--output {run['name']}.merges" in run["command"]
        assert sha256(GOLDEN / f"{run['name']}.merges") == run["output_sha256"]
    variants = {(r["variant"], bool(r["global_merges"]), r["ratio"] is not None) for r in MANIFEST["runs"]}
    assert {("base", False, False), ("window", False, False), ("base", True, False), ("window", True, False),
            ("base", False, True), ("window", False, True)} <= variants

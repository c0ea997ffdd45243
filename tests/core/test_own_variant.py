"""Bring your own variant: examples/min_words.py, written only against the public seam, trained
from Python, from the command line (``--variant MODULE:CLASS``, ``--variant-option``) and as an
installed package's entry point; saved, read back without it, measured beside plain BPE; and
its errors (an import that fails, an option it does not have, a hook that raises, a broken
contract under ``--check-variant``) one line each, exit 2."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_tui import Trainer, TrainerConfig, VariantError, load
from bpe_tui.core.engine.registry import ENTRY_POINTS, installed_variants, load_variant, make_variant
from bpe_tui.core.text.corpus import count_text
from examples.min_words import MinWords
from tests.conftest import CORPORA, REPO

from .test_cli import error_of, run

DEMO = str(CORPORA / "demo.txt")
SPEC = "examples.min_words:MinWords"


@pytest.fixture(autouse=True)
def _repo_on_the_path(monkeypatch):
    """The command line imports ``examples.min_words`` as a reader's shell would: from the
    directory it runs in (the repository's root here)."""
    monkeypatch.chdir(REPO)


def holders(t: Trainer, pair: tuple) -> int:
    return len(t.words_containing(pair))


def test_it_merges_only_pairs_enough_words_hold_and_says_why():
    t = Trainer.from_files([DEMO], TrainerConfig(preset="gpt2", merges=60), variant=MinWords(3), check=True)
    plain = Trainer.from_files([DEMO], TrainerConfig(preset="gpt2", merges=60))
    for _ in plain.run():
        pass
    for event in t.run():
        t.undo()
        assert holders(t, event.pair) >= 3  # (counted before the merge)
        t.step()
    assert t.steps_done == 60 and [e.pair for e in t.history] != [e.pair for e in plain.history]
    skipped = next(e for e in t.history if "did not" in str(e.reason))
    assert skipped.explanation.endswith(str(skipped.reason)) and "in 1 word)" in skipped.explanation
    assert t.variant.plain_words(t) == t.corpus_counts()[0]  # what Evaluate trains plain BPE on


@settings(max_examples=30, deadline=None)
@given(text=st.lists(st.text(alphabet="aab bcd\n", min_size=1, max_size=10), min_size=1, max_size=12).map(" ".join),
       n=st.integers(1, 4), k=st.integers(0, 14), j=st.integers(0, 14))
def test_train_k_undo_j_equals_train_k_minus_j(text, n, k, j):
    cfg = TrainerConfig(preset="classic")
    counts = count_text(text, cfg)
    if not counts:
        return
    a = Trainer.from_counts(counts, cfg, variant=MinWords(n), check=True)
    for _ in range(k):
        if a.step() is None:
            break
    for _ in range(min(j, a.steps_done)):
        a.undo()
    b = Trainer.from_counts(counts, cfg, variant=MinWords(n))
    b.goto(a.steps_done)
    assert [e.pair for e in a.history] == [e.pair for e in b.history] and a.pair_counts() == b.pair_counts()


def test_the_command_line_trains_it_saves_it_and_the_table_reads_back_without_it(capsys, tmp_path):
    out = tmp_path / "mw.json"
    code, printed, err = run(capsys, "train", DEMO, "--merges", "40", "--variant", SPEC, "--variant-option", "min_words=3", "-o", str(out))
    assert code == 0, err
    assert f"variant {SPEC}" in printed  # the rules line names it
    data = json.loads(out.read_text())
    assert data["variant"] == (
        f"made by the variant min-words ({SPEC}) with min_words=3; any machine encodes it without the module (plain merges by rank)"
    )
    assert data["config"]["variant"] == {"name": "min-words", "class": SPEC, "options": {"min_words": 3}, "replayable": True}
    mine = Trainer.from_files([DEMO], TrainerConfig(preset="gpt2", merges=40), variant=MinWords(3))
    for _ in mine.run():
        pass
    table = load(str(out))  # (plain merges: no import of the module needed to read or encode it)
    assert table.merges == mine.table.merges and table.encode("the baker") == mine.table.encode("the baker")
    code, printed, _ = run(capsys, "inspect", str(out))
    assert f"variant: made by the variant min-words ({SPEC}) with min_words=3" in printed


def test_eval_measures_it_beside_plain_bpe(capsys, tmp_path):
    mine, plain = tmp_path / "mw.json", tmp_path / "plain.json"
    assert run(capsys, "train", DEMO, "--vocab-size", "400", "--variant", SPEC, "--variant-option", "min_words=5", "-o", str(mine), "-q")[0] == 0
    assert run(capsys, "train", DEMO, "--vocab-size", "400", "-o", str(plain), "-q")[0] == 0
    code, printed, err = run(capsys, "eval", str(mine), str(plain), "--corpus", f"demo={DEMO}", "-q")
    assert code == 0, err
    side = printed[printed.index("side by side"):].splitlines()
    assert side[0].split()[-2:] == ["mw.json", "plain.json"] and side[2].split()[1:] == ["400", "400"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--variant", "nowhere_at_all:X"], "--variant nowhere_at_all:X: cannot import nowhere_at_all: ModuleNotFoundError: No module named 'nowhere_at_all'"),
        (["--variant", "examples.min_words:Nope"], "--variant examples.min_words:Nope: module examples.min_words has no Nope"),
        (["--variant", "examples.min_words:at_least_one"], "is not a Variant class"),
        (["--variant", "no-such-name"], "--variant no-such-name: no such variant (give module:Class, or one of: plain"),
        (["--variant", SPEC, "--variant-option", "min_word=3"], f"--variant-option min_word: {SPEC} has no option 'min_word' (its options: min_words)"),
        (["--variant", SPEC, "--variant-option", "min_words=0"], "--variant-option min_words must be 1 or more, not 0"),
        (["--variant", SPEC, "--variant-option", "min_words=many"], "--variant-option min_words must be a whole number, not 'many'"),
        (["--variant", SPEC, "--variant-option", "min_words"], "--variant-option 'min_words': expected key=value"),
        (["--variant", "tests.core.test_variants_seam:Crashing"], "variant tests.core.test_variants_seam:Crashing: after_merge raised ZeroDivisionError: division by zero"),
        (["--variant", "tests.core.test_variants_seam:Careless", "--check-variant"], "Careless broke the seam's contract (step to step 3): pair"),
    ],
)
def test_its_errors_are_one_line_and_nothing_is_written(capsys, tmp_path, argv, message):
    out = tmp_path / "never.json"
    line = error_of(capsys, "train", DEMO, "--merges", "20", *argv, "-o", str(out), "-q")
    assert message in line, line
    assert not out.exists()


def test_the_explorers_command_line_loads_it_before_a_screen_opens():
    from bpe_tui.cli.explorer import explore_checked

    args, _, _ = explore_checked([DEMO, "--variant", SPEC, "--variant-option", "min_words=4"])
    assert args.variant == SPEC
    with pytest.raises(VariantError, match="cannot import nowhere_at_all"):
        explore_checked([DEMO, "--variant", "nowhere_at_all:X"])


def test_an_installed_package_offers_it_by_name(tmp_path, monkeypatch, capsys):
    """An entry point in the group bpe_tui.variants (as tiktoken_ext offers encodings)."""
    dist = tmp_path / "min_words_variant-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: min-words-variant\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINTS}]\nmin-words = {SPEC}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "min-words" in installed_variants()
    assert load_variant("min-words") is MinWords
    variant = make_variant(MinWords, {"min_words": "4"})
    assert variant.min_words == 4 and variant.made_with == (MinWords, {"min_words": 4})
    out = tmp_path / "t.json"
    assert run(capsys, "train", DEMO, "--merges", "10", "--variant", "min-words", "-o", str(out), "-q")[0] == 0


def test_the_pair_table_is_told_its_pick_when_it_is_not_the_leader():
    """The seam's default next_pick: the variant's peek, when it is not the queue's first (the
    explorer's pair table then marks that pair as the next merge)."""
    t = Trainer.from_files([DEMO], TrainerConfig(preset="gpt2", merges=40), variant=MinWords(5))
    t.goto(13)
    assert t.top_pairs(1)[0][0] == (b" a", b"nd")  # the leader: one word holds it
    pick = t.variant.next_pick(t)
    assert pick == t.step().pair == (b"i", b"t")
    t.goto(0)
    assert t.variant.next_pick(t) is None  # the leader is its pick too

"""SuperBPE as its authors train it: the ``superbpe`` preset gives the merges their trainer
gave, in order, on the same inputs (golden/superbpe/README.md says how those were made).

Their stage-2 trainer applies all three limits at once (at most 4 words, no ``": "``,
unused inherited merges dropped) with either stage-2 rule; each limit on its own is checked
against a brute-force reference in test_superwords_options.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.units import bytes_to_unicode
from tests.conftest import CORPORA, TAYLORSWIFT, TINYSHAKESPEARE, need

GOLDEN = Path(__file__).parent / "golden" / "superbpe"
PARALLEL = [CORPORA / "parallel" / f"{lang}.txt" for lang in "ar de el en es fr hi ja ko ru tr zh".split()]

#: The phrases text of the README: six stock phrases, two holding ": ", paired on 600 lines.
PHRASES = [
    "by the way of the world", "Note: in the middle of the night", "at the end of the day",
    "Q: what is the time now", "and so on and so forth", "on the other hand it is",
]
PHRASES_TEXT = "".join(f"{PHRASES[i % 6]} {PHRASES[(i * 5) % 6]}, said {i % 13} of them.\n" for i in range(600))

_CHARS = bytes_to_unicode()


def spelled(surface: bytes) -> str:
    """A token as merges.txt spells it (GPT-2's byte-to-character map)."""
    return "".join(_CHARS[b] for b in surface)


def golden(name: str) -> list[str]:
    lines = (GOLDEN / f"{name}.merges.txt").read_text(encoding="utf-8").split("\n")
    assert lines[0] == "#version: 0.2"
    return [line for line in lines[1:] if line]


def train_to(trainer: Trainer, k: int, merges: int) -> list[str]:
    """Step ``trainer`` until its table has ``merges`` merges (those dropped at the transition,
    after merge ``k``, do not count) or it stops; its table's merges as merges.txt lines."""
    trainer.goto(k)
    trainer.goto(k + merges - (k - len(trainer.dropped_merges)))
    return [f"{spelled(a)} {spelled(b)}" for a, b in trainer.table.merges]


RUNS = [
    ("tinyshakespeare-digits", lambda: [need(TINYSHAKESPEARE)], 1000, "digits"),
    ("tinyshakespeare-regex", lambda: [need(TINYSHAKESPEARE)], 1000, "regex"),
    ("parallel-digits", lambda: PARALLEL, 400, "digits"),
    ("parallel-regex", lambda: PARALLEL, 400, "regex"),
    ("code-digits", lambda: [CORPORA / "code_sample.py"], 400, "digits"),
]


@pytest.mark.parametrize("name, files, k, rule", RUNS, ids=[r[0] for r in RUNS])
def test_both_stages_give_the_authors_merges(name, files, k, rule):
    want = golden(name)
    config = TrainerConfig(preset="superbpe", superwords_after=k, superword_rule=rule)
    trainer = Trainer.from_files([str(p) for p in files()], config)
    got = train_to(trainer, k, len(want))
    assert got == want
    if name == "code-digits":  # the stage-1 merges its chunks never hold
        assert len(trainer.dropped_merges) == 8 and trainer.transition is not None
        assert "8 merges never occur there and leave the table" in trainer.transition.explanation


def test_the_limits_refuse_what_the_authors_trainer_skips(tmp_path):
    """23 tokens of 5 words or more and 8 holding ': ' are refused; then nothing is left."""
    corpus = tmp_path / "phrases.txt"
    corpus.write_text(PHRASES_TEXT, encoding="utf-8")
    want = golden("phrases-digits")
    trainer = Trainer.from_files([str(corpus)], TrainerConfig(preset="superbpe", superwords_after=40))
    assert train_to(trainer, 40, len(want) + 50) == want
    assert trainer.stop_reason is not None and "left would break a constraint" in trainer.stop_reason
    assert trainer.forbidden_pair_count() > 0
    reasons = {trainer.forbidden_reason(p) for p in trainer.recount_pairs()} - {None}
    assert any("more than superword_max_words 4" in r for r in reasons)
    assert any("': '" in r for r in reasons)


def test_extending_a_table_drops_its_merges_the_new_corpus_never_holds():
    """The authors' extend-an-existing-tokenizer path: stage 1 on one corpus, its table
    extended with superwords on another (``--from TABLE --superwords``)."""
    want = golden("taylorswift-tinyshakespeare-digits")
    base = Trainer.from_files([str(need(TAYLORSWIFT))], TrainerConfig(preset="superbpe", merges=1000))
    list(base.run())
    table = base.table
    config = TrainerConfig(preset="superbpe", superwords_after=1000)
    trainer = Trainer.from_table(table, [str(need(TINYSHAKESPEARE))], config)
    assert len(trainer.dropped_merges) == 267
    got = train_to(trainer, 1000, len(want))
    assert got == want
    saved = trainer.table
    assert saved.config["superwords_dropped"] == 267
    assert saved.num_merges == len(want) and len(saved) == 256 + len(want)

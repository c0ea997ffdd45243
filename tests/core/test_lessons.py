"""The tour's stops (bpe_tui.core.teaching.lessons) against the real Trainer: the tour never narrates a
merge the trainer does not make, every question has exactly one right answer, and the Tour
moves and checks answers as the UI expects."""

from __future__ import annotations

import pytest

from bpe_tui import BPEError, Trainer
from bpe_tui.core.engine.units import visible
from bpe_tui.core.teaching.lessons import (
    STOPS,
    ChoiceQuestion,
    PairQuestion,
    Tour,
    show_pair,
)

IDS = [f"{n + 1}-{stop.title}" for n, stop in enumerate(STOPS)]


def at_step(stop) -> Trainer:
    trainer = stop.example.trainer()
    assert trainer.goto(stop.step) == stop.step
    return trainer


def readable(pair) -> tuple:
    return tuple(visible(s) for s in pair)


def words_of(stop) -> str:
    q = stop.question
    extra = [q.prompt, getattr(q, "hint", ""), getattr(q, "why", ""), *getattr(q, "choices", ())] if q else []
    return " ".join([stop.text, *extra])


@pytest.mark.parametrize("stop", STOPS, ids=IDS)
def test_every_merge_a_stop_states_is_what_the_trainer_does(stop):
    trainer = stop.example.trainer()
    steps = [m.step for m in stop.merges] + [s for s, _ in stop.not_merges] + [s for s, _ in stop.ties]
    events = list(trainer.run(max_steps=max(steps + [1])))
    for claim in stop.merges:
        event = events[claim.step - 1]
        assert (event.step, readable(event.pair), event.count) == (claim.step, claim.pair, claim.count)
        assert show_pair(claim.pair) in words_of(stop), f"{claim} is checked but the stop never says it"
    for step, tied in stop.ties:
        event = events[step - 1]
        assert event.tie_count == len(tied) and sorted(readable(p) for p in event.ties) == sorted(tied)
        assert all(show_pair(p) in words_of(stop) for p in tied)
    for step, pair in stop.not_merges:
        assert readable(events[step - 1].pair) != pair
        assert show_pair(pair) in stop.text, "a myth the tour refutes is named in its text"


@pytest.mark.parametrize("stop", STOPS, ids=IDS)
def test_every_encoding_a_stop_states_is_what_the_table_does(stop):
    table = at_step(stop).table
    for text, tokens in stop.encodes:
        assert tuple(visible(t) for t in table.tokens(text)) == tokens


@pytest.mark.parametrize("stop", STOPS, ids=IDS)
def test_every_question_has_exactly_one_right_answer_at_its_step(stop):
    q = stop.question
    if q is None:
        return
    trainer = at_step(stop)
    if isinstance(q, PairQuestion):
        truth = q.answer(trainer)
        assert truth is not None
        assert q.check(trainer, truth).correct
        for pair, _ in trainer.top_pairs(6)[1:]:
            verdict = q.check(trainer, pair)
            assert not verdict.correct and show_pair(truth) in verdict.message
    else:
        right = q.answer(trainer)
        verdicts = [q.check(trainer, i) for i in range(len(q.choices))]
        assert [v.correct for v in verdicts] == [i == right for i in range(len(q.choices))]
        assert all(q.choices[right] in v.message for v in verdicts)


def test_the_answers_the_texts_lead_to():
    by_title = {s.title: s for s in STOPS}
    assert by_title["Watch a word become one token"].question.truth(at_step(by_title["Watch a word become one token"])) == "7"
    dropout = by_title["BPE-dropout on one word"]
    assert dropout.question.truth(at_step(dropout)) == "l + o + w + e + s + t + </w>"
    trip = by_title["Round trip with an unseen word"]
    assert trip.question.truth(at_step(trip)) == "'slowest '"  # </w> decodes as a space


def test_a_pair_answer_is_checked_against_the_trainer_as_it_stands():
    q = PairQuestion("Which pair merges next?", "a hint")
    trainer = STOPS[0].example.trainer()
    assert q.check(trainer, ("l", "o")) .message == "Right: merge 1 is (l, o), 10 times."
    wrong = q.check(trainer, ("o", "w"))
    assert not wrong.correct and wrong.message == "Not (o, w) (10 times): merge 1 is (l, o), 10 times. a hint"
    trainer.step()
    assert q.check(trainer, ("lo", "w")).correct  # the learner stepped on: the question follows


def test_a_choice_out_of_range_is_not_right():
    q = ChoiceQuestion("?", ("a", "b"), lambda trainer: "a")
    assert not q.check(STOPS[0].example.trainer(), 5).correct


def test_tour_moves_between_stops_and_takes_one_answer_per_stop():
    tour = Tour()
    assert tour.index == 0 and tour.waiting == "pair"
    assert not tour.go(-1) and tour.index == 0
    trainer = tour.stop.example.trainer()
    assert tour.answer(trainer, 0) is None  # a pair question does not take a number
    verdict = tour.answer(trainer, ("o", "w"))
    assert verdict is not None and not verdict.correct
    assert tour.waiting is None and tour.answer(trainer, ("l", "o")) is None  # answered: the truth is shown
    assert tour.go(1) and tour.verdict is None and tour.waiting == "choice"
    assert tour.go(-1) and tour.waiting == "pair"  # back again: ask again
    last = Tour(start=len(STOPS) - 1)
    assert last.stop.question is None and last.waiting is None and not last.go(1)
    with pytest.raises(BPEError):
        Tour(start=len(STOPS))


def test_a_missing_corpus_is_a_clear_error(tmp_path, monkeypatch):
    from bpe_tui.core.teaching import lessons

    monkeypatch.setattr(lessons, "shipped", lambda name: tmp_path / name)
    with pytest.raises(BPEError, match="court.txt: the worked example is missing"):
        lessons.COURT.trainer()


def test_learn_refuses_a_stop_the_tour_does_not_have(capsys):
    from bpe_tui.cli import main

    assert main(["learn", "--stop", "0"]) == 2
    assert capsys.readouterr().err.strip() == f"bpe-tui: error: --stop 0: the tour has stops 1 to {len(STOPS)}"


def test_learn_without_the_worked_examples_is_one_line_before_the_screen(capsys, tmp_path, monkeypatch):
    from bpe_tui.cli import main
    from bpe_tui.core.teaching import lessons

    monkeypatch.setattr(lessons, "shipped", lambda name: tmp_path / name)
    assert main(["learn"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bpe-tui: error: ") and "low_lower_lowest.txt: the worked example is missing" in err
    assert err.count("\n") == 1


def test_the_tour_and_the_parallel_set_run_from_an_installed_wheel(tmp_path):
    """The worked examples and the parallel text set ship inside the package (bpe_tui/data),
    so a non-editable install runs the tour's stops and the Evaluate view's default set."""
    import shutil
    import subprocess
    import sys
    import zipfile

    from tests.conftest import REPO

    source = tmp_path / "source"  # (a copy: building writes build/ beside the sources)
    shutil.copytree(REPO, source, symlinks=True, ignore=shutil.ignore_patterns(".*", "build", "*.egg-info", "tests", "benchmarks", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("bpe_tui-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for stop in STOPS:
        assert f"bpe_tui/data/{stop.example.corpus}" in names
    assert {f"bpe_tui/data/parallel/{lang}.txt" for lang in ("en", "zh", "ar")} <= set(names)
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    # The unpacked wheel, not the checkout, is what Python imports here.
    code = (
        "import bpe_tui, bpe_tui.core.teaching.lessons as l, bpe_tui.core.analysis.evaluate as e;"
        "assert bpe_tui.__file__.startswith(%r), bpe_tui.__file__;"
        "print(len(l.COURT.trainer().top_pairs(3)), len(e.parallel_set()))" % str(site)
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": str(site), "PATH": ""})
    assert out.stdout.split() == ["3", "12"]

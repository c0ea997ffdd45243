"""Parity-aware BPE on the command line: bpe-tui train --language LANG=FILE ... --dev LANG=FILE
... --parity base|window, and the explorer's command line; every bad input is one line, exit 2,
nothing written."""

from __future__ import annotations

import pytest

import bpe_tui
from bpe_tui import BPEError, Trainer, TrainerConfig
from bpe_tui.cli.explorer import explore_checked
from tests.conftest import CORPORA

from .test_cli import error_of, run

PARALLEL = CORPORA / "parallel"


def language_args(*names: str, dev: bool = True) -> list[str]:
    out = []
    for name in names:
        out += ["--language", f"{name}={PARALLEL / f'{name}.txt'}"]
        if dev:
            out += ["--dev", f"{name}={PARALLEL / f'{name}.txt'}"]
    return out


def test_train_parity_aware_and_say_how_each_language_fares(capsys, tmp_path):
    out = tmp_path / "p.json"
    code, stdout, err = run(capsys, "train", *language_args("en", "de", "hi"), "--parity", "window", "--merges", "200", "-o", str(out))
    assert code == 0, err
    lines = stdout.splitlines()
    assert lines[0] == "en, de, hi: 635 distinct words, 4,992 characters"
    assert lines[1] == "200 merges, vocabulary 456 (bytes · parity · subword-nmt · parity-aware window 100/2)"
    assert lines[2] == "development text tokens per language, before -> after:"
    assert [line.split(":")[0].strip() for line in lines[3:6]] == ["en", "de", "hi"]
    table = bpe_tui.load(str(out))
    assert table.config["parity_aware"]["languages"] == ["en", "de", "hi"]
    # the same merges as the library
    corpora = {n: str(PARALLEL / f"{n}.txt") for n in ("en", "de", "hi")}
    trainer = Trainer.from_languages(corpora, dev=corpora, config=TrainerConfig(preset="parity", parity="window", merges=200))
    list(trainer.run())
    assert trainer.table.merges == table.merges


def test_the_ratio_form_and_the_hybrid(capsys, tmp_path):
    out = tmp_path / "r.json"
    argv = [*language_args("en", "ru", dev=False), "--ratio", "en=1", "--ratio", "ru=1.2", "--merges", "50", "-q", "-o", str(out)]
    code, _, err = run(capsys, "train", *argv)
    assert code == 0, err
    code, _, err = run(capsys, "train", *language_args("en", "ru"), "--global-merges", "20", "--merges", "50", "-q", "-o", str(tmp_path / "h.json"))
    assert code == 0, err
    table = bpe_tui.load(str(tmp_path / "h.json"))
    assert table.config["global_merges"] == 20 and table.config["parity"] == "base"


@pytest.mark.parametrize(
    "argv, message",
    [
        (language_args("en"), "give two languages or more (got 1 language)"),
        (["--language", "en"], "--language 'en': expected LANG=FILE"),
        (language_args("en", "de", dev=False), "a development text per language"),
        ([*language_args("en", dev=True), *language_args("de", dev=False)], "language de has no development text"),
        ([*language_args("en", "de"), "--dev", f"fr={PARALLEL / 'fr.txt'}"], "development text for fr, which is not one of the training languages"),
        ([*language_args("en", "de"), "--dev", f"en={PARALLEL / 'fr.txt'}"], "--dev en= is given twice"),
        ([*language_args("en", "de", dev=False), "--ratio", "en=1", "--ratio", "de=abc"], "'abc' is not a number"),
        ([*language_args("en", "de", dev=False), "--ratio", "en=1", "--ratio", "de=-1"], "compression ratio of de must be a number above 0"),
        ([*language_args("en", "de", dev=False), "--ratio", "en=1", "--ratio", "de=1", "--global-merges", "5"], "ratio form does not go with --global-merges"),
        ([*language_args("en", "de"), "--max-token-length", "8"], "does not take --max-token-length"),
        ([*language_args("en", "de"), "--superwords-after", "8"], "does not take --superwords-after"),
        ([*language_args("en", "de"), "--parity-window", "8"], "--parity-window and --parity-alpha are options of the window variant"),
        ([*language_args("en", "de"), "--parity", "window", "--parity-alpha", "0"], "--parity-alpha must be 1 or more"),
        ([*language_args("en", "de"), "--counts"], "--counts does not go with --language"),
        ([str(CORPORA / "demo.txt"), *language_args("en", "de")], "with --language every corpus belongs to a language"),
        (["--parity", "window", str(CORPORA / "demo.txt")], "give --language LANG=FILE for each"),
        ([*language_args("en", "de"), "--language", "de=/nowhere/de.txt"], "language de: /nowhere/de.txt: no such file"),
    ],
)
def test_bad_input_is_one_line_and_nothing_is_written(capsys, tmp_path, argv, message):
    out = tmp_path / "out.json"
    line = error_of(capsys, "train", *argv, "-o", str(out), "-q")
    assert message in line, line
    assert not out.exists()


@pytest.mark.parametrize(
    "text, options, needles",
    [
        ("Guten Tag.\nBis morgen.\n", ["--dev", f"en={PARALLEL / 'en.txt'}", "--dev", "de={de}"], ["not parallel", "{de} (de) has 2 lines", "(en) has 30 lines"]),
        ("\n", ["--ratio", "en=1", "--ratio", "de=1"], ["language de: {corpus}: the corpus is empty"]),
    ],
    ids=["dev-not-parallel", "empty-corpus"],
)
def test_bad_files_are_one_line_naming_them(capsys, tmp_path, text, options, needles):
    made = tmp_path / "de.txt"
    made.write_text(text, encoding="utf-8")
    corpus = made if "--ratio" in options else PARALLEL / "de.txt"
    out = tmp_path / "out.json"
    argv = ["--language", f"en={PARALLEL / 'en.txt'}", "--language", f"de={corpus}", *[o.format(de=made) for o in options]]
    line = error_of(capsys, "train", *argv, "-o", str(out))
    for needle in needles:
        assert needle.format(de=made, corpus=made) in line, line
    assert not out.exists()


@pytest.mark.parametrize("content, said", [
    (b"\x00\x01binary\x00", "looks like a binary file (NUL byte at byte 0)"),
    (b"caf\xe9 ol\xe9\n", "not valid UTF-8 at byte 3"),
], ids=["binary", "not-utf8"])
@pytest.mark.parametrize("role", ["--language", "--dev"])
def test_a_bad_file_is_refused_naming_its_language_in_one_line(capsys, tmp_path, content, said, role):
    """A binary or invalid UTF-8 file as a language's corpus or development text: one line
    that names the language (issue 42: the development text's, and the UTF-8 refusals, named
    only the file). With --workers above the machine's CPUs, its note waits for the work: a
    refusal is still one line."""
    import os

    bad = tmp_path / "de.txt"
    bad.write_bytes(content)
    de = PARALLEL / "de.txt"
    argv = ["--language", f"en={PARALLEL / 'en.txt'}", "--dev", f"en={PARALLEL / 'en.txt'}"]
    argv += ["--language", f"de={bad if role == '--language' else de}", "--dev", f"de={bad if role == '--dev' else de}"]
    out = tmp_path / "out.json"
    line = error_of(capsys, "train", *argv, "-o", str(out), "--workers", str((os.cpu_count() or 1) + 1))
    what = "language de" if role == "--language" else "development text of de"
    assert line.startswith(f"bpe-tui: error: {what}: {bad}: {said}"), line
    assert not out.exists()


@pytest.mark.parametrize("fmt", ["gpt2", "tiktoken"])
def test_a_parity_table_is_not_written_where_its_pre_tokenizer_would_be_lost(capsys, tmp_path, fmt):
    """parity's pre-tokenizer (Whitespace, then a space before each piece) is a pipeline of
    steps, which a gpt2 or tiktoken file cannot hold: read back, it split text by GPT-2's regex
    (94 of 1,184 held-out lines encoded alike; issue 42). train refuses before reading a word,
    convert and save refuse too, in one line, and nothing is written."""
    message = f"bpe-tui: error: the {fmt} format cannot hold this table's pre-tokenizer (parity, a pipeline of split steps), so the file would encode otherwise: save as native or hf"
    out = tmp_path / f"out.{fmt}"
    assert error_of(capsys, "train", *language_args("en", "de"), "--merges", "40", "--format", fmt, "-o", str(out)) == message
    assert not out.exists()
    native = tmp_path / "t.json"
    code, _, err = run(capsys, "train", *language_args("en", "de"), "--merges", "40", "-o", str(native), "-q")
    assert code == 0, err
    assert error_of(capsys, "convert", str(native), str(out), "--to", fmt) == message
    assert not out.exists()
    with pytest.raises(BPEError, match="cannot hold this table's pre-tokenizer"):
        bpe_tui.save(bpe_tui.load(str(native)), str(out), format=fmt)
    assert not out.exists()
    # with a regex (--preset gpt2), parity-aware merges go to a gpt2 file as any merges do
    code, _, err = run(capsys, "train", *language_args("en", "de"), "--preset", "gpt2", "--merges", "40", "--format", fmt, "-o", str(out), "-q")
    assert code == 0, err


def test_count_refuses_languages(capsys, tmp_path):
    line = error_of(capsys, "count", str(CORPORA / "demo.txt"), *language_args("en", "de"), "-o", str(tmp_path / "c.tsv"))
    assert "--language and the variants' options belong to train and the explorer" in line


def test_the_explorers_command_line_checks_the_languages_before_a_screen_opens(tmp_path):
    args, cfg, start = explore_checked([*language_args("en", "de"), "--parity", "window"])
    assert cfg.parity == "window" and cfg.preset == "parity" and cfg.max_token_length is None and start is None
    with pytest.raises(BPEError, match="language de has no development text"):
        explore_checked([*language_args("en"), "--language", f"de={PARALLEL / 'de.txt'}"])
    with pytest.raises(BPEError, match="nowhere.txt: no such file"):
        explore_checked([*language_args("en", "de"), "--language", "fr=nowhere.txt", "--dev", f"fr={PARALLEL / 'fr.txt'}"])
    with pytest.raises(BPEError, match="does not go with --from"):
        explore_checked([*language_args("en", "de"), "--from", str(tmp_path / "t.json")])

"""The headless CLI: happy paths, and every bad input as one line on stderr with exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import bpe_tui
from bpe_tui.cli import main
from tests.conftest import CORPORA, REPO


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def error_of(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpe-tui: error: "), err
    assert "Traceback" not in err
    return lines[0]


# ---------------------------------------------------------------------- happy paths


def test_train_encode_inspect(capsys, tmp_path):
    out_path = tmp_path / "t.json"
    code, out, _ = run(capsys, "train", str(CORPORA / "demo.txt"), "-o", str(out_path), "--vocab-size", "400", "--special", "<|endoftext|>")
    assert code == 0 and "wrote" in out and "merges, vocabulary 400" in out
    table = bpe_tui.load(str(out_path))
    assert len(table) == 400 and table.special_tokens == {"<|endoftext|>": 256}
    assert table.counts and table.counts[0] >= table.counts[-1]

    code, out, _ = run(capsys, "encode", "-t", str(out_path), "--json", "the lowest<|endoftext|>")
    data = json.loads(out)
    assert data["ids"] == table.encode("the lowest<|endoftext|>")
    assert data["tokens"][-1] == "<|endoftext|>" and "".join(data["tokens"][:-1]) == "the lowest"

    code, out, _ = run(capsys, "encode", "-t", str(out_path), "--ids", "the")
    assert out.split() == [str(i) for i in table.encode("the")]

    code, out, _ = run(capsys, "inspect", str(out_path))
    assert code == 0 and "native merge table" in out and "first merges" in out

    code, out, _ = run(capsys, "inspect", str(out_path), "--token", " the")
    assert code == 0 and "·the" in out and "base" in out


def test_train_classic_gpt2_format_refused_but_native_works(capsys, tmp_path):
    msg = error_of(capsys, "train", str(CORPORA / "court.txt"), "-o", str(tmp_path / "d"), "--preset", "classic", "--format", "gpt2")
    assert "byte-level" in msg
    code, out, _ = run(capsys, "train", str(CORPORA / "court.txt"), "-o", str(tmp_path / "c.json"), "--preset", "classic", "--merges", "4")
    assert code == 0
    assert bpe_tui.load(str(tmp_path / "c.json")).merges == [("t", "h"), ("o", "u"), ("t", "</w>"), ("th", "e")]


def test_train_gpt2_format_writes_a_directory(capsys, tmp_path):
    code, _, _ = run(capsys, "train", str(CORPORA / "demo.txt"), "-o", str(tmp_path / "g"), "--format", "gpt2", "--merges", "50")
    assert code == 0
    assert (tmp_path / "g" / "vocab.json").exists() and (tmp_path / "g" / "merges.txt").read_text().startswith("#version: 0.2 ")
    assert bpe_tui.load(str(tmp_path / "g")).num_merges == 50


def test_all_training_options(capsys, tmp_path):
    code, out, _ = run(
        capsys, "train", str(CORPORA / "multilingual.txt"), "-o", str(tmp_path / "m.json"),
        "--preset", "gpt4", "--units", "chars", "--pretokenizer", r"regex:\w+|\s+|[^\w\s]+", "--end-of-word", "</w>",
        "--lowercase", "--tie-break", "hf", "--merges", "30", "--min-frequency", "2",
    )
    assert code == 0, out
    table = bpe_tui.load(str(tmp_path / "m.json"))
    assert table.units == "chars" and table.end_of_word == "</w>" and table.lowercase
    assert table.config["tie_break"] == "hf" and table.pretokenizer.startswith("regex:")
    assert table.num_merges == 30 and min(table.counts) >= 2


def test_directory_and_stdin_and_counts(capsys, tmp_path, monkeypatch):
    corpus_dir = tmp_path / "docs"
    (corpus_dir / "sub").mkdir(parents=True)
    (corpus_dir / "a.txt").write_text("low low lower\n")
    (corpus_dir / "sub" / "b.md").write_text("lowest newest\n")
    (corpus_dir / "image.bin").write_bytes(b"\x89PNG\x00\x00")
    counts = tmp_path / "counts.tsv"
    code, out, _ = run(capsys, "count", str(corpus_dir), "-o", str(counts))
    assert code == 0
    lines = counts.read_text().splitlines()
    assert lines == ["low\t1", " low\t1", " lower\t1", "\\n\t2", "lowest\t1", " newest\t1"]
    code, _, _ = run(capsys, "train", str(counts), "--counts", "-o", str(tmp_path / "a.json"), "--merges", "5")
    code, _, _ = run(capsys, "train", str(corpus_dir), "-o", str(tmp_path / "b.json"), "--merges", "5")
    assert bpe_tui.load(str(tmp_path / "a.json")).merges == bpe_tui.load(str(tmp_path / "b.json")).merges

    stdin = subprocess.run(
        [sys.executable, "-m", "bpe_tui", "train", "-", "-o", str(tmp_path / "s.json"), "--merges", "3"],
        input="low low low lower\n", capture_output=True, text=True, cwd=REPO,
    )
    assert stdin.returncode == 0, stdin.stderr
    assert bpe_tui.load(str(tmp_path / "s.json")).merges[0] == (b"o", b"w")  # ties with (l, o) at 4; lexical-max


def test_convert_between_native_and_gpt2(capsys, tmp_path):
    run(capsys, "train", str(CORPORA / "demo.txt"), "-o", str(tmp_path / "t.json"), "--merges", "40")
    code, out, _ = run(capsys, "convert", str(tmp_path / "t.json"), str(tmp_path / "g"), "--to", "gpt2")
    assert code == 0 and "-> " in out
    assert bpe_tui.load(str(tmp_path / "g")).merges == bpe_tui.load(str(tmp_path / "t.json")).merges


# ---------------------------------------------------------------------- bad input


def test_missing_file(capsys, tmp_path):
    assert "no such file" in error_of(capsys, "train", str(tmp_path / "nope.txt"), "-o", str(tmp_path / "o.json"))


def test_directory_without_text_files(capsys, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.bin").write_bytes(b"\x00\x01")
    assert "holds no text files" in error_of(capsys, "train", str(tmp_path / "d"), "-o", str(tmp_path / "o.json"))


def test_empty_corpus(capsys, tmp_path):
    (tmp_path / "e.txt").write_text("   \n\n")
    assert "empty" in error_of(capsys, "train", str(tmp_path / "e.txt"), "-o", str(tmp_path / "o.json"), "--pretokenizer", "whitespace")


def test_binary_file(capsys, tmp_path):
    (tmp_path / "b.txt").write_bytes(b"abc\x00def")
    msg = error_of(capsys, "train", str(tmp_path / "b.txt"), "-o", str(tmp_path / "o.json"))
    assert "binary" in msg and "byte 3" in msg


def test_invalid_utf8_names_file_and_byte_and_replace_gets_past(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello world\ncaf\xe9 au lait\n")
    msg = error_of(capsys, "train", str(bad), "-o", str(tmp_path / "o.json"))
    assert str(bad) in msg and "byte 15" in msg and "--errors replace" in msg
    code, _, _ = run(capsys, "train", str(bad), "-o", str(tmp_path / "o.json"), "--errors", "replace", "--merges", "3")
    assert code == 0 and not list(tmp_path.glob(".bpe-tui-*"))


def test_malformed_count_line_names_the_line(capsys, tmp_path):
    counts = tmp_path / "c.tsv"
    counts.write_text("low\t5\nlower 2\n")
    msg = error_of(capsys, "train", str(counts), "--counts", "-o", str(tmp_path / "o.json"))
    assert f"{counts}:2" in msg
    counts.write_text("low\tmany\n")
    assert "not a whole number" in error_of(capsys, "train", str(counts), "--counts", "-o", str(tmp_path / "o.json"))


def test_refuses_to_overwrite_without_force(capsys, tmp_path):
    out = tmp_path / "o.json"
    out.write_text("keep me")
    assert "--force" in error_of(capsys, "train", str(CORPORA / "court.txt"), "-o", str(out))
    assert out.read_text() == "keep me"


def test_bad_options(capsys, tmp_path):
    assert "does not compile" in error_of(capsys, "train", str(CORPORA / "court.txt"), "-o", str(tmp_path / "o.json"), "--pretokenizer", "regex:(")


def test_table_errors(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "bpe-tui merge table", "version": 1, "units": "bytes",\n "vocab": {"a": 97,}, "merges": []}')
    msg = error_of(capsys, "encode", "-t", str(bad), "x")
    assert "bad JSON at line 2" in msg
    assert "not a merge table" in error_of(capsys, "inspect", str(CORPORA / "court.txt"))


def test_no_traceback_from_the_real_command(tmp_path):
    run = subprocess.run([sys.executable, "-m", "bpe_tui", "encode", "-t", str(tmp_path / "missing.json"), "x"], capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_help(capsys):
    assert main(["--help"]) == 0
    assert "train" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["train", "--help"])
    assert exc.value.code == 0 and "--vocab-size" in capsys.readouterr().out


# ---------------------------------------------------------------------- wording and where


def test_counts_of_one_are_singular(capsys, tmp_path):
    table = tmp_path / "t.json"
    assert run(capsys, "train", str(CORPORA / "court.txt"), "-o", str(table), "--preset", "classic", "--merges", "20")[0] == 0
    code, out, _ = run(capsys, "trace", "-t", str(table), "court")
    assert code == 0 and out.splitlines()[0] == "court: 6 symbols -> 1 token in 5 merges"


def test_a_truncated_json_file_is_called_truncated(capsys, tmp_path):
    whole = '{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0, "b": false}}}'
    for cut in (len(whole) - 2, whole.index("false") + 3, whole.index('"b"') + 2):
        path = tmp_path / f"cut{cut}.json"
        path.write_text(whole[:cut])
        msg = error_of(capsys, "inspect", str(path))
        assert msg.startswith(f"bpe-tui: error: {path}: the JSON ends early, at line 1, column ") and msg.endswith("(a truncated file?)")


def test_corpus_errors_name_the_path_as_given(capsys, tmp_path):
    empty = tmp_path / "sub" / "empty.txt"
    empty.parent.mkdir()
    empty.write_text("")
    assert error_of(capsys, "train", str(empty), "-o", str(tmp_path / "o.json")) == f"bpe-tui: error: {empty}: the corpus is empty (no words found)"
    two = error_of(capsys, "train", str(empty), str(empty), "-o", str(tmp_path / "o.json"))
    assert two == f"bpe-tui: error: {empty} and {empty}: the corpus is empty (no words found)"


def test_encode_from_a_terminal_says_it_is_reading(capsys, tmp_path, monkeypatch):
    """With no TEXT, encode reads stdin; a person at a terminal is told so (a pipe is not)."""
    import io

    class Terminal(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    table = tmp_path / "t.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "court.txt"), preset="classic", merges=5), str(table))
    monkeypatch.setattr(sys, "stdin", Terminal(io.BytesIO(b"the court")))
    code, out, err = run(capsys, "encode", "-t", str(table))
    assert code == 0 and out.split("\t")[1].startswith("the")  # (ids, one per line: stdout is not a terminal)
    assert err.strip() == "bpe-tui: reading the text to encode from the terminal; ctrl+d ends it (or give TEXT)"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"the court")))
    assert run(capsys, "encode", "-t", str(table))[2] == ""


def test_progress_amounts_have_thousands_separators():
    """train's bar counts bytes while counting, then merges (it showed 0/10150044)."""
    from rich.progress import Progress

    from bpe_tui.cli.terminal import stderr_progress

    bar: Progress = stderr_progress()
    task = bar.add_task("counting", total=10_150_044, completed=5_000_000, unit="bytes")
    amount = bar.columns[2]
    assert amount.render(bar.tasks[0]).plain == "5.0 MB/10.2 MB"
    bar.update(task, completed=1234, total=10_000, unit="merges")
    assert amount.render(bar.tasks[0]).plain == "1,234/10,000"


def test_the_educational_demo_piped_into_head_stops_quietly():
    """``python -m bpe_tui.core.teaching.educational | head`` ends without a BrokenPipeError
    traceback and with status 0, in a clean shell too: without PYTHONUNBUFFERED (which a test
    runner may set) the output waits in a buffer, and its flush at exit once failed past the
    demo's handler ("Exception ignored ... Broken pipe", status 120)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bpe_tui.core.teaching.educational"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=env
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader has gone before the first line
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert (err, proc.returncode) == (b"", 0)


def test_a_linked_folder_is_read_and_a_link_loop_is_not_followed(tmp_path):
    """corpora/ holds parallel/ as a link to the package's copy: counting corpora/ reads it
    (it was left out without a word). A link back up the tree is read once, not forever."""
    from bpe_tui.core.text.sources import expand_sources

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "b.txt").write_text("b\n")
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "a.txt").write_text("a\n")
    (corpus / "linked").symlink_to(outside, target_is_directory=True)
    (corpus / "sub" / "up").symlink_to(corpus, target_is_directory=True)  # a loop
    (corpus / "again").symlink_to(outside, target_is_directory=True)  # the same folder twice
    notes: list[str] = []
    found = [os.path.relpath(p, corpus) for p in expand_sources([str(corpus)], notes)]
    assert found == ["a.txt", "again/b.txt"]
    assert notes == [
        f"{corpus}: skipped 2 linked folders: linked (the same folder as again, read once), sub/up (a link to {corpus}, a folder that holds it)"
    ]


def test_a_link_up_the_tree_is_skipped_with_a_note(tmp_path, capsys):
    """A folder holding a link to .. was followed into its parent: count FOLDER counted the
    files beside it (issue 42). A link to a folder that holds it is skipped, and named."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("inside\n")
    (tmp_path / "beside.txt").write_text("outside words\n")
    (corpus / "up").symlink_to("..", target_is_directory=True)
    (corpus / "root").symlink_to("/", target_is_directory=True)
    out = tmp_path / "c.tsv"
    assert main(["count", str(corpus), "-o", str(out)]) == 0
    assert "outside" not in out.read_text()
    err = capsys.readouterr().err
    assert err == f"bpe-tui: note: {corpus}: skipped 2 linked folders: root (a link to /, a folder that holds it), up (a link to .., a folder that holds it)\n"


@pytest.mark.parametrize("fmt", ["native", "tiktoken", "gpt2"])
def test_a_merge_table_given_as_the_explorers_corpus_is_refused_with_the_command_that_opens_it(capsys, tmp_path, fmt):
    """`bpe-tui tables/llama3` trained on the rank file as text (its base64 lines: `==` the
    first merge); it now says, in one line and before a screen opens, how to open it."""
    table = bpe_tui.train(str(CORPORA / "cat_sat.txt"), merges=10)
    path = tmp_path / {"native": "t.json", "tiktoken": "t.tiktoken", "gpt2": "folder"}[fmt]
    bpe_tui.save(table, str(path), format=fmt)
    message = error_of(capsys, str(path))
    assert message == f"bpe-tui: error: {path}: a merge table ({fmt}), not a corpus: open it with bpe-tui open {path} (or train on from it with --from)"
    from bpe_tui.cli.explorer import explore_checked

    args, _, _ = explore_checked([str(CORPORA / "cat_sat.txt"), str(CORPORA)])  # (text files and a folder of them: corpora)
    assert args.corpus == [str(CORPORA / "cat_sat.txt"), str(CORPORA)]


def test_corpora_that_hold_or_look_like_a_table_are_still_corpora(tmp_path):
    """A corpus folder with a table saved beside its text (the save dialog's default place), a
    dataset whose first record has a PickyBPE model's keys, and text in two-symbol lines (as
    subword-nmt's codes are): each is trained on, not refused as a merge table."""
    from bpe_tui.cli.explorer import explore_checked

    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "cat_sat.txt").write_text((CORPORA / "cat_sat.txt").read_text(encoding="utf-8"), encoding="utf-8")
    bpe_tui.save(bpe_tui.train(str(folder / "cat_sat.txt"), merges=10), str(folder / "cat_sat-10.json"))
    dataset = tmp_path / "ner.jsonl"
    dataset.write_text(json.dumps({"tokens": ["I", "am", "present"], "split": "train", "present": 1}) + "\n", encoding="utf-8")
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("a b\nab c\n", encoding="utf-8")
    for corpus in (folder, dataset, pairs):
        args, _, _ = explore_checked([str(corpus)])
        assert args.corpus == [str(corpus)]

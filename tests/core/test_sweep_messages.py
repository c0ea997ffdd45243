"""File names and file content that would drive the terminal, through every command of the CLI.

The inputs are made here, at test time: files whose names hold ``ESC[2J`` (clear the screen), an
OSC title sequence (``ESC]0;...BEL``), a newline, a right-to-left override, and a byte that is
not UTF-8; files whose content is not what they claim. The real CLI runs on each, as a user
runs it; every case must end in exactly one line on stderr, every character of it printable
(the name shown escaped, ``\\x1b``, ``\\n``), the exit status 2, no traceback, and the output
an earlier run left exactly as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import bpe_tui

#: A name that clears the screen, retitles the terminal and breaks the line, as it is shown.
EVIL = "clear\x1b[2J title\x1b]0;PWNED\x07 line\nbreak \u202eevil"
SHOWN = "clear\\x1b[2J title\\x1b]0;PWNED\\x07 line\\nbreak \\u202eevil"


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bpe_tui", *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=300,
        errors="surrogateescape",
    )


def printable(text: str) -> bool:
    return all(c.isprintable() for c in text)


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> dict[str, str]:
    """The hostile files, a good table, and an earlier run's outputs."""
    root = tmp_path_factory.mktemp("hostile")
    files: dict[str, str] = {"root": str(root)}
    bad_text = root / f"{EVIL}.txt"
    bad_text.write_bytes(b"\xff\xfe not UTF-8\n")
    files["not_utf8"] = str(bad_text)
    good_text = root / f"{EVIL} good.txt"
    good_text.write_text("low lower lowest newer newest wider widest\n" * 50)
    files["good_text"] = str(good_text)
    files["missing"] = str(root / f"{EVIL} missing.txt")
    files["picture"] = str(root / f"{EVIL}.png")
    files["no_table"] = str(bad_text)
    raw_name = os.fsencode(str(root)) + b"/latin1 caf\xe9.txt"  # a name that is not UTF-8
    with open(raw_name, "wb") as f:
        f.write(b"\xff\n")
    files["raw_name"] = os.fsdecode(raw_name)
    table = root / "t.json"
    bpe_tui.save(bpe_tui.train(str(good_text), preset="gpt2", merges=20), str(table))
    files["table"] = str(table)
    evil_table = root / f"{EVIL} table.json"
    evil_table.write_bytes(table.read_bytes())
    files["evil_table"] = str(evil_table)
    records = root / "records.jsonl"
    records.write_text('{"text": "fine"}\n{"body\\u001b[2J": "no text field"}\n')
    files["records"] = str(records)
    out = root / "out"
    out.mkdir()
    for name in ("counts.tsv", "table.json", "converted.json", "plot.txt"):
        (out / name).write_text("what an earlier run wrote\n")
    files["out"] = str(out)
    return files


def outputs(place) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(Path(place["out"]).iterdir())}


#: (case, command line with {placeholders}): each must fail in one printable line, exit 2.
CASES = [
    ("count a file that is not UTF-8", "count {not_utf8} -o {out}/counts.tsv --force"),
    ("count a missing file", "count {missing} -o {out}/counts.tsv --force"),
    ("count a name that is not UTF-8", "count {raw_name} -o {out}/counts.tsv --force"),
    ("count records without the field", "count {records} -o {out}/counts.tsv --force"),
    ("count into a folder that is not there", "count {good_text} -o {missing}/counts.tsv"),
    ("train on a file that is not UTF-8", "train {not_utf8} -o {out}/table.json --force"),
    ("train --workers 2 on it", "train {not_utf8} -o {out}/table.json --force --workers 2"),
    ("train from a table that is none", "train {good_text} --from {no_table} -o {out}/table.json --force"),
    ("train into the output of another command", "train {good_text} -o {out}/counts.tsv"),
    ("inspect a file that is no table", "inspect {no_table}"),
    ("inspect a missing table", "inspect {missing}"),
    ("encode with it", "encode -t {no_table} hello"),
    ("decode with it", "decode -t {no_table} 1 2"),
    ("trace with it", "trace -t {no_table} hello"),
    ("convert it", "convert {no_table} {out}/converted.json --to hf --force"),
    ("audit it", "audit {no_table}"),
    ("audit on a corpus that is not UTF-8", "audit {table} --corpus {not_utf8} --plot {out}/plot.txt"),
    ("eval on it", "eval {table} --corpus {not_utf8}"),
    ("eval on a name that is not UTF-8", "eval {table} --corpus {raw_name}"),
    ("compare with it", "compare {no_table} {table} hello"),
    ("open it", "open {no_table}"),
    ("explore a missing corpus", "{missing}"),
    ("serve a missing corpus", "serve {missing}"),
    ("a plot path that is neither kind", "audit {table} --plot {picture}"),
]


@pytest.mark.parametrize("case,command", CASES, ids=[c for c, _ in CASES])
def test_one_printable_line_and_exit_2(place, case, command):
    before = outputs(place)
    args = [word.format(**place) for word in command.split(" ")]
    done = run(*args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpe-tui: error: "), done.stderr
    assert printable(lines[0]), repr(lines[0])
    assert "Traceback" not in done.stderr
    if any(f"{{{name}}}" in command for name in ("missing", "not_utf8", "no_table", "picture")):
        assert SHOWN in lines[0]  # the name is there, escaped
    if "{raw_name}" in command:
        assert "latin1 caf\\udce9.txt" in lines[0]  # the byte that is not UTF-8, visible
    assert outputs(place) == before


def test_reports_on_stdout_name_files_escaped(place, tmp_path):
    """A summary naming a file (count's, train's, inspect's, audit's header) shows it escaped;
    a command's data (decoded text) is left as it is."""
    out = tmp_path / f"{EVIL}.tsv"
    done = run("count", place["good_text"], "-o", str(out))
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines()[0].startswith(f"wrote {tmp_path}/{SHOWN}.tsv: ") and printable(done.stdout.strip())
    for command in (["inspect", place["evil_table"]], ["audit", place["evil_table"]]):
        done = run(*command)
        assert done.returncode == 0 and SHOWN in done.stdout.splitlines()[0], done.stdout
        assert all(printable(line) for line in done.stdout.splitlines())
    table = bpe_tui.load(place["table"])
    ids = " ".join(map(str, table.encode("a\x1bb")))
    assert run("decode", "-t", place["table"], *ids.split()).stdout == "a\x1bb"  # data, as it is


def test_notes_on_stderr_are_escaped_too(place):
    """A note (records skipped) names the file and quotes what was wrong: one printable line."""
    done = run("count", place["records"], "-o", os.path.join(place["root"], "skipped.tsv"), "--skip-bad-records")
    assert done.returncode == 0, done.stderr
    notes = done.stderr.splitlines()
    assert len(notes) == 1 and notes[0].startswith("bpe-tui: note: ") and printable(notes[0]), done.stderr

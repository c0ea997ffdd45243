"""``bpe-tui audit`` and ``bpe-tui eval``: the aligned table, --json, --markdown, bad input."""

from __future__ import annotations

import json
import re

import pytest

import bpe_tui
from bpe_tui.cli import main
from bpe_tui.core.analysis.reports import SIDE_ROWS, WHERE_DEFINED, format_legend
from tests.conftest import CORPORA, GPT2_DIR, TINYSHAKESPEARE, need

PARALLEL = CORPORA / "parallel"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpe-tui: error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def small_table(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("audit") / "demo-300.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=300), str(path))
    return str(path)


def test_eval_aligned_table(capsys, small_table):
    code, out, _ = run(capsys, "eval", small_table, "--corpus", f"en={PARALLEL / 'en.txt'}", f"de={PARALLEL / 'de.txt'}")
    assert code == 0
    lines = out.strip().split("\n\n")[0].splitlines()  # the rows; then the side-by-side block, the line saying where they are defined
    assert out.strip().splitlines()[-1] == WHERE_DEFINED
    assert lines[0].split() == ["table", "corpus", "tokens", "bytes/tok", "chars/tok", "fertility", "cont.", "whole", "used", "util.", "rényi", "premium"]
    assert set(lines[1]) <= {"-", " "} and len(lines) == 4
    assert lines[2].split()[:2] == ["demo-300.json", "en"] and lines[2].split()[-1] == "1.000"
    # right-aligned numbers: every row ends at the same column
    assert len({len(line) for line in lines[:4]}) == 1
    table = bpe_tui.load(small_table)
    en = (PARALLEL / "en.txt").read_text(encoding="utf-8")
    assert lines[2].split()[2] == f"{len(table.encode(en)):,}"


def test_eval_json_and_markdown(capsys, small_table):
    code, out, _ = run(capsys, "eval", small_table, small_table, "--corpus", PARALLEL / "en.txt", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 2 and rows[0]["corpus"] == "en" and "premium" not in rows[0]
    table = bpe_tui.load(small_table)
    en = (PARALLEL / "en.txt").read_text(encoding="utf-8")
    assert rows[0]["tokens"] == len(table.encode(en)) and rows[0]["words"] == len(en.split())
    assert rows[0]["bytes_per_token"] == round(len(en.encode()) / rows[0]["tokens"], 6)
    code, out, _ = run(capsys, "eval", small_table, "--corpus", PARALLEL / "en.txt", PARALLEL / "ja.txt", "--markdown")
    lines = out.strip().split("\n\n")[0].splitlines()
    assert code == 0 and lines[0].startswith("| table | corpus | tokens") and lines[1].startswith("|:---|:---|---:")
    assert len(lines) == 4 and lines[3].startswith("| demo-300.json | ja |")
    side = out.strip().split("\n\n")[1].splitlines()
    assert side[:2] == ["| measure | demo-300.json |", "|:---|---:|"] and side[-1].startswith("| superwords | 0.0% (0) |")
    assert out.strip().split("\n\n")[2] == WHERE_DEFINED


def test_audit_text_and_json(capsys, small_table):
    code, out, _ = run(capsys, "audit", small_table, "--corpus", PARALLEL / "en.txt", "--limit", "3")
    assert code == 0
    assert "unreachable" in out and "unused on the corpus" in out and "distinct ids used" in out
    code, out, _ = run(capsys, "audit", small_table, "--corpus", PARALLEL / "en.txt", "--json")
    data = json.loads(out)
    for key in ("unreachable", "partial_utf8", "intermediate", "unused", "summary"):
        assert key in data
    table = bpe_tui.load(small_table)
    en = (PARALLEL / "en.txt").read_text(encoding="utf-8")
    used = set(table.encode(en))
    assert set(data["unused"]) == set(table.vocab) - used - {i for i in table.vocab if table.is_special(i)}
    assert data["summary"]["used"] == len(used) and data["summary"]["vocab_size"] == len(table)
    for i in data["intermediate"]:
        assert str(i) in data["tokens"] and data["tokens"][str(i)]["tree"].startswith("[")
    code, out, _ = run(capsys, "audit", small_table, "--json")
    data = json.loads(out)
    assert data["unused"] is None and data["summary"]["unused"] is None


def test_bad_input_is_one_line_and_exit_2(capsys, small_table, tmp_path):
    assert "no such file" in one_line_error(capsys, "eval", small_table, "--corpus", tmp_path / "missing.txt")
    assert "no such file" in one_line_error(capsys, "eval", tmp_path / "nope.json", "--corpus", PARALLEL / "en.txt")
    assert "give a file" in one_line_error(capsys, "eval", small_table, "--corpus", "en=")
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"ab\0cd")
    assert "binary" in one_line_error(capsys, "eval", small_table, "--corpus", binary)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xff\xfe\n")
    assert "not valid UTF-8 at byte 5" in one_line_error(capsys, "audit", small_table, "--corpus", bad)
    assert "--limit" in one_line_error(capsys, "audit", small_table, "--limit", "-1")
    assert "--workers" in one_line_error(capsys, "eval", small_table, "--corpus", PARALLEL / "en.txt", "--workers", "0")
    assert "required: --corpus" in one_line_error(capsys, "eval", small_table)
    assert "required: TABLE, --corpus" in one_line_error(capsys, "eval")
    assert "not --json" in one_line_error(capsys, "eval", small_table, "--corpus", PARALLEL / "en.txt", "--explain", "--json")


def test_eval_gpt2_on_tinyshakespeare_matches_tiktoken_numbers(capsys):
    need(GPT2_DIR / "vocab.json")
    code, out, _ = run(capsys, "eval", GPT2_DIR, "--corpus", need(TINYSHAKESPEARE), "--json")
    row = json.loads(out)[0]
    assert code == 0 and (row["tokens"], round(row["bytes_per_token"], 4), row["used"]) == (338_025, 3.2997, 11_706)


def test_a_repeated_corpus_option_adds_corpora(capsys, small_table):
    """``--corpus a --corpus b`` is ``--corpus a b`` (it kept only the last one)."""
    code, out, _ = run(capsys, "eval", small_table, "--corpus", f"en={PARALLEL / 'en.txt'}", "--corpus", f"de={PARALLEL / 'de.txt'}")
    assert code == 0
    rows = [line.split()[1] for line in out.strip().split("\n\n")[0].splitlines()[2:]]
    assert rows == ["en", "de"] and out.split()[11] == "premium"  # two corpora: de's premium against en
    code, out, _ = run(capsys, "audit", small_table, "--corpus", PARALLEL / "en.txt", "--corpus", PARALLEL / "de.txt")
    assert code == 0 and f"corpus {PARALLEL / 'en.txt'}, {PARALLEL / 'de.txt'}:" in out


def test_eval_side_by_side_of_two_variants(capsys, tmp_path):
    """Plain BPE and SuperBPE trained here to the same size, then measured side by side; a
    third table of another size gets the line saying so."""
    corpus = [str(CORPORA / "demo.txt"), str(PARALLEL / "en.txt"), str(PARALLEL / "de.txt")]
    plain, superbpe, small = (str(tmp_path / name) for name in ("plain.json", "superbpe.json", "small.json"))
    for args, path in (([], plain), (["--superwords-after", "250"], superbpe), (["--vocab-size", "400"], small)):
        size = [] if args[:1] == ["--vocab-size"] else ["--vocab-size", "600"]
        code, _, _ = run(capsys, "train", *corpus, "--preset", "gpt2", *size, *args, "-o", path, "-q")
        assert code == 0
    code, out, err = run(capsys, "eval", plain, superbpe, "--corpus", f"en={PARALLEL / 'en.txt'}", f"de={PARALLEL / 'de.txt'}", "-q")
    assert code == 0 and err == ""
    rows_block, side_block, where = out.strip().split("\n\n")
    assert where == WHERE_DEFINED
    side = {cells[0]: cells[1:] for cells in (re.split(r"\s{2,}", line) for line in side_block.splitlines()[2:])}
    assert side_block.splitlines()[0].split()[-2:] == ["plain.json", "superbpe.json"]
    assert side["vocabulary"] == ["600", "600"] and "the vocabulary sizes differ" not in out
    assert list(side) == [
        "vocabulary", "bytes/tok en", "bytes/tok de", "bytes/tok all", "premium spread", "worst/best", "gini", "scaffold", "unused", "superwords",
    ]
    # the per-corpus bytes per token agree with the rows above, and SuperBPE holds superwords
    by_row = {(r.split()[0], r.split()[1]): r.split()[3] for r in rows_block.splitlines()[2:]}
    assert side["bytes/tok en"] == [by_row["plain.json", "en"], by_row["superbpe.json", "en"]]
    assert side["superwords"][0] == "0.0% (0)" and side["superwords"][1] != "0.0% (0)"
    table_a, table_b = bpe_tui.load(plain), bpe_tui.load(superbpe)
    en, de = ((PARALLEL / f"{lang}.txt").read_text(encoding="utf-8") for lang in ("en", "de"))
    tokens = [len(table_a.encode(en)), len(table_a.encode(de))]
    assert side["worst/best"][0] == f"{max(tokens) / min(tokens):.3f}"
    # JSON: each row carries its table's numbers across the corpora
    code, out, _ = run(capsys, "eval", plain, superbpe, "--corpus", f"en={PARALLEL / 'en.txt'}", f"de={PARALLEL / 'de.txt'}", "--json", "-q")
    data = json.loads(out)
    assert [r["table"] for r in data] == ["plain.json", "plain.json", "superbpe.json", "superbpe.json"]
    assert data[0]["worst_best"] == round(max(tokens) / min(tokens), 6) and data[0]["superword_tokens"] == 0
    used = set(table_b.encode(en)) | set(table_b.encode(de))
    assert data[2]["unused_tokens"] == len(set(table_b.vocab) - used - {i for i in table_b.vocab if table_b.is_special(i)})
    # sizes that differ: one line under the block (a note on stderr with --json)
    code, out, _ = run(capsys, "eval", plain, small, "--corpus", PARALLEL / "en.txt", "-q")
    assert code == 0 and out.strip().splitlines()[-3] == (
        "the vocabulary sizes differ (plain.json 600, small.json 400): the tables are not compared at the same size"
    )
    code, out, err = run(capsys, "eval", plain, small, "--corpus", PARALLEL / "en.txt", "-q", "--json")
    assert code == 0 and json.loads(out) and err.strip() == "bpe-tui: note: the vocabulary sizes differ (plain.json 600, small.json 400): the tables are not compared at the same size"


def test_explain_says_what_every_column_and_row_is(capsys, small_table):
    """--explain puts the legend where the line naming it was: a line for every column eval
    printed and every side-by-side row (a corpus's own row under the LABEL one); alone, the
    legend only."""
    argv = ["eval", small_table, "--corpus", f"en={PARALLEL / 'en.txt'}", f"de={PARALLEL / 'de.txt'}", "-q"]
    code, plain, _ = run(capsys, *argv)
    code, out, _ = run(capsys, *argv, "--explain")
    assert code == 0 and WHERE_DEFINED not in out and out.startswith(plain.strip().rsplit("\n\n", 1)[0])
    rows_block, side_block, legend = out.strip().split("\n\n", 2)
    explained = {line.split("  ")[1].strip() for line in legend.splitlines() if line.startswith("  ")}
    assert set(rows_block.splitlines()[0].split()) <= explained
    side_labels = {re.split(r"\s{2,}", line)[0] for line in side_block.splitlines()[2:]}
    assert {label.replace(" en", " LABEL").replace(" de", " LABEL") for label in side_labels} <= explained
    assert {row.label for row in SIDE_ROWS} <= explained
    code, alone, _ = run(capsys, "eval", "--explain")
    assert code == 0 and alone.strip() == format_legend() == legend.strip()
    code, markdown, _ = run(capsys, "eval", "--explain", "--markdown")
    assert code == 0 and "| `gini` |" in markdown and "| `premium` |" in markdown

"""``bpe-tui eval ... --plot FILE`` and ``bpe-tui audit ... --plot FILE``: the chart written
headless, as text (.txt) or SVG (.svg), atomically; a bad name is one line and exit 2."""

from __future__ import annotations

import os

import pytest

import bpe_tui
from bpe_tui.cli import main
from bpe_tui.core.analysis.audit import audit
from bpe_tui.core.analysis.evaluate import evaluate, parse_corpus
from tests.conftest import CORPORA

PARALLEL = CORPORA / "parallel"


@pytest.fixture(scope="module")
def small_table(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("plot") / "demo-300.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=300), str(path))
    return str(path)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_plot_as_text_has_bars_axis_and_values(capsys, small_table, tmp_path):
    out_file = tmp_path / "eval.txt"
    code, out, _ = run(capsys, "eval", small_table, "--corpus", f"en={PARALLEL / 'en.txt'}", f"de={PARALLEL / 'de.txt'}", "--plot", out_file, "-q")
    assert code == 0 and "bytes/tok" in out  # the table is printed as before
    text = out_file.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert "bytes per token" in lines[0]
    assert any(line.startswith("en┤█") for line in lines) and any(line.startswith("de┤█") for line in lines)
    assert "0.0" in text  # the value axis
    table = bpe_tui.load(small_table)
    expected = evaluate([table], [parse_corpus(f"en={PARALLEL / 'en.txt'}")], workers=1)
    assert f"demo-300.json  en  {expected.get(0, 0).bytes_per_token:.3f}" in text
    assert "\x1b[" not in text  # no colour codes in a text file
    # the en bar (more bytes per token) is longer than the de bar
    en = next(line for line in lines if line.startswith("en┤"))
    de = next(line for line in lines if line.startswith("de┤"))
    assert en.count("█") > de.count("█")


def test_eval_plot_of_two_tables_as_svg_has_a_legend(capsys, small_table, tmp_path):
    other = tmp_path / "demo-50.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=50), str(other))
    out_file = tmp_path / "eval.svg"
    code, _, _ = run(capsys, "eval", small_table, other, "--corpus", f"en={PARALLEL / 'en.txt'}", f"ja={PARALLEL / 'ja.txt'}", "--plot", out_file, "-q")
    assert code == 0
    svg = out_file.read_text(encoding="utf-8")
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    for text in ("bytes&#160;per&#160;token", "demo-300.json", "demo-50.json", "bpe-tui&#160;eval"):
        assert text in svg, text
    assert sorted(os.listdir(tmp_path)) == ["demo-50.json", "eval.svg"]  # no temporary file left


def test_audit_plot_numbers_the_categories(capsys, small_table, tmp_path):
    out_file = tmp_path / "audit.txt"
    code, _, _ = run(capsys, "audit", small_table, "--plot", out_file, "-q")
    assert code == 0
    text = out_file.read_text(encoding="utf-8")
    assert "demo-300.json: tokens per audit category · 4,5: no corpus" in text
    report = audit(bpe_tui.load(small_table))
    for k, c in enumerate(report.categories, 1):
        shown = f"{len(c):,}" if c.computed else "needs --corpus"
        assert f"{k:>3}  {c.title}: {shown}" in text
    last = str(len(report.categories))
    ticks = [line for line in text.splitlines() if line.strip().startswith("1 ") and line.strip().endswith(last)]
    assert ticks, f"the bars are numbered 1 to {last} on the x axis"


def test_audit_plot_through_a_symlink_replaces_the_target(capsys, small_table, tmp_path):
    target = tmp_path / "real.svg"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.svg"
    link.symlink_to(target)
    code, _, _ = run(capsys, "audit", small_table, "--corpus", PARALLEL / "en.txt", "--plot", link, "-q")
    assert code == 0 and link.is_symlink()
    svg = target.read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "tokens&#160;per&#160;audit&#160;category" in svg and "no&#160;corpus" not in svg


@pytest.mark.parametrize("name", ["chart.png", "chart"])
def test_plot_names_an_svg_or_txt_file(capsys, small_table, tmp_path, name):
    code, out, err = run(capsys, "audit", small_table, "--plot", tmp_path / name, "-q")
    assert code == 2 and not out
    assert err.count("\n") == 1 and "--plot writes .svg or .txt" in err and "Traceback" not in err
    assert not (tmp_path / name).exists()


def test_plot_never_over_a_directory(capsys, small_table, tmp_path):
    (tmp_path / "out.svg").mkdir()
    code, _, err = run(capsys, "eval", small_table, "--corpus", PARALLEL / "en.txt", "--plot", tmp_path / "out.svg", "-q")
    assert code == 2 and err.count("\n") == 1 and "out.svg" in err
    assert (tmp_path / "out.svg").is_dir()


def test_a_chart_is_the_same_whatever_the_hash_seed():
    """plotext removes duplicate ticks and points through a set: left alone, which of two tick
    labels sharing a cell is drawn changed with PYTHONHASHSEED (the Audit view's chart at
    80x24 ended in "9" or in "10"); charts/figure.py keeps them in first-seen order."""
    import subprocess
    import sys

    from tests.conftest import REPO

    program = (
        "from textual_plotext.plot import Plot\n"
        "from bpe_tui.charts.figure import Palette\n"
        "from bpe_tui.charts.vocabulary import category_counts\n"
        "plt = Plot()\n"
        "category_counts(plt, Palette(), counts=[0, 0, 0, 0, 182, 0, 0, 10, 0, 0], title='tokens')\n"
        "plt.plotsize(26, 10)\n"
        "print(plt.uncolorize(plt.build()))\n"
    )
    outputs = set()
    for seed in range(6):
        env = dict(os.environ, PYTHONHASHSEED=str(seed), PYTHONPATH=str(REPO))
        outputs.add(subprocess.run([sys.executable, "-c", program], env=env, check=True, capture_output=True, text=True).stdout)
    assert len(outputs) == 1, "\n\n".join(outputs)


def test_plot_ends_with_the_wrote_line_as_train_does(capsys, small_table, tmp_path):
    """The last line says where the chart went; under --json it goes to stderr, so stdout stays JSON."""
    import json

    chart = tmp_path / "eval.svg"
    code, out, _ = run(capsys, "eval", small_table, "--corpus", f"en={PARALLEL / 'en.txt'}", "--plot", chart, "-q")
    assert code == 0 and out.splitlines()[-1] == f"wrote {chart} (chart)"
    chart = tmp_path / "audit.txt"
    code, out, err = run(capsys, "audit", small_table, "--plot", chart, "--json", "-q")
    assert code == 0 and json.loads(out)["summary"] and err.splitlines()[-1] == f"bpe-tui: wrote {chart} (chart)"
    code, out, _ = run(capsys, "audit", small_table, "--plot", chart, "-q")
    assert code == 0 and out.splitlines()[-1] == f"wrote {chart} (chart)"


def test_decode_says_how_ids_are_separated(capsys, small_table):
    code, _, err = run(capsys, "decode", "-t", small_table, "72,101")
    assert code == 2
    assert err.strip() == (
        "bpe-tui: error: id 1: '72,101' is not a whole number; on the command line ids are separated by spaces (standard input also takes commas)"
    )

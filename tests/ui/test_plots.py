"""Charts with axes (textual-plotext) in the Stats tab, the Evaluate and Audit views; P saves
the screen as SVG. What is checked is what a person reads: each chart's text as drawn at its
size (titles, tick labels, axis labels, legend), before and after a step, an undo and a go to."""

from __future__ import annotations

import os
import shutil

from textual.widgets import Input, TabbedContent

from bpe_tui.charts.figure import MAX_POINTS, marker_glyph
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.screens.dialogs import GotoScreen
from bpe_tui.ui.screens.inspect import InspectScreen
from bpe_tui.ui.views.audit import AuditScreen
from bpe_tui.ui.views.evaluate import EvalScreen
from bpe_tui.ui.widgets.plot import Chart

from .conftest import DEMO, demo_app, said, settle, settle_until, wait_for_screen


def chart(app, name: str) -> Chart:
    return app.screen.query_one(f"#{name}", Chart)


async def stats_tab(app, pilot) -> None:
    app.query_one(TabbedContent).active = "tab-stats"
    await settle(app, pilot)


async def go_to(app, pilot, step: int) -> None:
    await pilot.press("g")
    await pilot.pause()
    assert isinstance(app.screen, GotoScreen)
    app.screen.query_one(Input).value = str(step)
    await pilot.press("enter")
    await settle_until(app, pilot, lambda: app.session.step == step, f"go to {step}")


async def test_stats_charts_have_axes_and_follow_step_undo_and_goto():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await stats_tab(app, pilot)
        stats = app.stats
        compression = chart(app, "compression-plot").text
        assert "chars/token, vocabulary · step 0" in compression
        assert "merges" in compression and "chars/token" in compression and "vocabulary" in compression
        assert "merge counts: no merges yet" in chart(app, "counts-plot").text
        pairs = chart(app, "pairs-plot").text
        assert "pairs occurring k times (log-log)" in pairs and "pairs in all" in pairs

        await pilot.press("space")  # one merge: one point more, the mark at 1
        await settle(app, pilot)
        first = app.session.timeline[0].count
        assert "step 1" in chart(app, "compression-plot").text
        assert f"merge counts: {first:,} → {first:,}" in chart(app, "counts-plot").text
        assert len(stats.totals) == 2 and stats.counts == [first]

        await go_to(app, pilot, 40)
        await settle(app, pilot)
        compression = chart(app, "compression-plot").text
        assert "step 40" in compression and "40" in compression.splitlines()[-2]  # the x ticks reach 40
        last = app.session.timeline[39].count
        assert f"merge counts: {first:,} → {last:,}" in chart(app, "counts-plot").text
        pairs_now = app.session.trainer.pair_count_histogram()
        assert f"{sum(pairs_now.values()):,} pairs in all" in chart(app, "pairs-plot").text

        await pilot.press("b")  # undo: the mark goes back, the undone merge stays drawn (muted)
        await settle(app, pilot)
        compression = chart(app, "compression-plot").text
        assert "step 39" in compression and "undone" in compression
        assert len(stats.totals) == 40 and len(stats.counts) == 39


async def test_watched_words_on_a_merge_axis():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await go_to(app, pilot, 200)
        await stats_tab(app, pilot)
        stats = app.stats
        assert "watch some above" in chart(app, "watch-plot").text
        stats.query_one("#watch-input", Input).value = "the zyzzyva"
        await settle(app, pilot)
        table = app.session.table()
        done = {word: merge for word, merge in stats.watched}
        assert done["·the"] == table.trace(" the")[-1].rank + 1  # 1-based, as the line says
        assert done["zyzzyva"] is None
        text = chart(app, "watch-plot").text
        assert "when each word becomes one token" in text and "merge" in text
        assert "zyzzyva (not yet)" in text and "·the" in text


async def test_charts_with_0_and_1_merges_draw():
    app = demo_app(vocab_size=257)  # one merge to the target
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await stats_tab(app, pilot)
        assert "step 0" in chart(app, "compression-plot").text
        await pilot.press("r")
        await settle_until(app, pilot, lambda: app.session.trainer.finished, "run to one merge")
        assert app.session.step == 1
        assert "step 1" in chart(app, "compression-plot").text
        assert "merge counts:" in chart(app, "counts-plot").text


async def test_gpt2s_50000_merges_draw_sampled(gpt2_table_path):
    app = ExplorerApp(table_path=gpt2_table_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, InspectScreen)
        await settle_until(app, pilot, lambda: app.session.full_table.merges_built, "GPT-2's merge list")
        await stats_tab(app, pilot)
        lengths = chart(app, "lengths-plot")
        text = lengths.text
        assert "token lengths · 50,256 tokens" in text and "bytes" in text and "characters" in text
        assert not chart(app, "counts-plot").display  # GPT-2's files store no counts
        assert not chart(app, "compression-plot").display  # explore only
        # the Zipf plot of token use on a corpus, the unused tail marked
        zipf_box = app.stats.query_one("#zipf-input", Input)
        zipf_box.value = str(DEMO)
        zipf_box.focus()
        await pilot.press("enter")
        await settle_until(app, pilot, lambda: app.stats.usage is not None, "Zipf plot")
        _, _, counts = app.stats.usage
        used = sum(1 for n in counts.values() if n)
        text = chart(app, "zipf-plot").text
        assert f"{50257 - used:,} unused (x)" in text and "rank on demo.txt" in text and "1k" in text


class Recorder:
    """Stands in for a plotext figure: records each call (name, args, kwargs)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))


def test_50000_merges_are_drawn_sampled():
    """A curve of GPT-2's 50,000 merges is fed to plotext as at most MAX_POINTS points, the
    ends and the current step kept; the real figure builds."""
    from textual_plotext.plot import Plot

    from bpe_tui.charts.figure import Palette
    from bpe_tui.charts.training import DOTTED_POINTS, compression

    n = 50_000
    merges = list(range(n + 1))
    args = dict(merges=merges, per_token=[1 + k / n for k in merges], vocab=[256 + k for k in merges], step=30_000)
    rec = Recorder()
    compression(rec, Palette(), **args)
    curves = [call for call in rec.calls if call[0] == "plot"]
    assert len(curves) == 2  # per token: done, undone
    for _, (xs, ys), _ in curves:
        assert len(xs) == len(ys) <= MAX_POINTS
    done_xs = curves[0][1][0]
    assert done_xs[0] == 0 and done_xs[-1] == 30_000 and curves[1][1][0][-1] == n
    (_, (dot_xs, dot_ys), dotted), = [call for call in rec.calls if call[0] == "scatter"]  # the vocabulary, dotted
    assert dotted["marker"] == "braille" and len(dot_xs) == DOTTED_POINTS
    assert (dot_xs[0], dot_xs[-1], dot_ys[-1]) == (0, 30_000, 256 + 30_000)
    plt = Plot()
    compression(plt, Palette(), **args)
    plt.plotsize(80, 20)
    built = plt.uncolorize(plt.build())
    assert "step 30,000" in built and "50k" in built  # the last merge's tick


async def test_no_color_series_differ_by_marker(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        await stats_tab(app, pilot)
        legend = [line for line in chart(app, "compression-plot").text.splitlines() if "chars/token" in line or "vocabulary" in line]
        # both lines are braille dots (the finest a cell draws); the legend says which is dotted
        assert any("⢕⢕" in line and "chars/token" in line for line in legend)
        assert any("⢕⢕" in line and "vocabulary (dotted)" in line for line in legend)


async def test_charts_take_the_themes_colours():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await stats_tab(app, pilot)
        plot = chart(app, "compression-plot")
        before = plot.palette()
        app.theme = "textual-light"
        await settle(app, pilot)
        after = plot.palette()
        assert before.series[0] != after.series[0] and after.series[0] is not None
        # the drawn figure's colours are the new ones
        r, g, b = after.series[0]
        colours = {span.style.color.triplet for span in plot.render().spans if not isinstance(span.style, str) and span.style.color}  # type: ignore[union-attr]
        assert any(c is not None and (c.red, c.green, c.blue) == (r, g, b) for c in colours)


async def test_evaluate_bars_and_curves_have_axes_and_a_legend():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        await pilot.press("v")
        await settle_until(app, pilot, lambda: isinstance(app.screen, EvalScreen) and app.screen.result is not None, "evaluation")
        screen = app.screen
        bars = chart(app, "eval-bars").text
        assert "bytes per token" in bars.splitlines()[0]
        for line in screen.bar_lines:  # each bar's label, with its value
            assert line in bars
        assert "0.00" in bars  # the value axis starts at 0
        curves = chart(app, "eval-curves").text
        assert "bytes per token over merges" in curves and "merges" in curves
        legend = str(screen.query_one("#eval-legend").render()).replace("\u00a0", " ")
        for c, entry in enumerate(screen.curve_lines[1:]):  # a language, first → last value, after its marker
            assert f"{marker_glyph(c)} {entry}" in legend
            assert entry not in curves  # under the chart, not over the curves
        await pilot.press("right")  # the next metric: both charts follow
        await settle(app, pilot)
        assert "characters per token" in chart(app, "eval-bars").text
        assert "characters per token over merges" in chart(app, "eval-curves").text


async def test_audit_charts_follow_the_selected_category():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        await pilot.press("a")
        await settle_until(app, pilot, lambda: isinstance(app.screen, AuditScreen) and app.screen.report is not None, "audit")
        screen = app.screen
        counts = chart(app, "audit-counts").text
        assert "tokens per category" in counts
        n = len(screen.report.categories)
        assert " ".join(str(k) for k in range(1, 4)) in " ".join(counts.splitlines()[-1].split()[:3])
        unused = [c.key for c in screen.report.categories].index("unused")
        await pilot.press(*["down"] * unused)
        await settle(app, pilot)
        category = screen.report.categories[unused]
        lengths = chart(app, "audit-lengths").text
        assert f"{unused + 1}: bytes · {len(category):,} tokens" in lengths
        uses = chart(app, "audit-usage").text
        assert f"{unused + 1}: uses · {len(category):,} tokens" in uses and "0" in uses
        assert n == len(screen.category_lines)


async def test_picture_key_saves_the_screen_beside_the_corpus(tmp_path):
    corpus = tmp_path / "little.txt"
    shutil.copy(DEMO, corpus)
    app = ExplorerApp(paths=[str(corpus)])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle_until(app, pilot, lambda: app.session is not None, "the corpus opened")
        await pilot.press("N")
        await settle(app, pilot)
        await pilot.press("P")
        await settle(app, pilot)
        saved = tmp_path / "little-explore-step10.svg"
        assert saved.is_file()
        svg = saved.read_text(encoding="utf-8")
        assert "little.txt" in svg and "step&#160;10" in svg  # the status line, as drawn
        assert any(str(saved) in str(n.message) for n in said(app))
        await pilot.press("P")  # never over the first
        await settle(app, pilot)
        assert (tmp_path / "little-explore-step10-2.svg").is_file()
        await pilot.press("v")  # a view: its own name
        await settle_until(app, pilot, lambda: isinstance(app.screen, EvalScreen) and app.screen.result is not None, "evaluation")
        await pilot.press("P")
        await settle(app, pilot)
        assert "Evaluate" in (tmp_path / "little-evaluate.svg").read_text(encoding="utf-8")
        assert sorted(os.listdir(tmp_path)) == ["little-evaluate.svg", "little-explore-step10-2.svg", "little-explore-step10.svg", "little.txt"]


async def test_a_picture_leaves_out_the_notifications_on_screen(tmp_path):
    """Toasts would cover the panes in the picture: P clears them first; the toast saying
    where the picture went comes after it is written (so a second picture is clean too)."""
    corpus = tmp_path / "little.txt"
    shutil.copy(DEMO, corpus)
    app = ExplorerApp(paths=[str(corpus)])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # (toasts drawn)
        await settle_until(app, pilot, lambda: app.session is not None, "the corpus opened")
        app.notify("covering-the-panes", title="a-toast-title", timeout=60)
        await settle(app, pilot)
        assert "covering-the-panes" in app.export_screenshot()  # on screen
        await pilot.press("P")
        await settle(app, pilot)
        first = tmp_path / "little-explore-step0.svg"
        svg = first.read_text(encoding="utf-8")
        assert "covering-the-panes" not in svg and "a-toast-title" not in svg
        assert [n.title for n in app._notifications] == ["picture saved"]
        assert "picture saved" in app.export_screenshot().replace("&#160;", " ")  # now on screen
        await pilot.press("P")
        await settle(app, pilot)
        second = (tmp_path / "little-explore-step0-2.svg").read_text(encoding="utf-8")
        assert "picture saved" not in second.replace("&#160;", " ")
        assert [str(n.message) for n in app._notifications] == [str(tmp_path / "little-explore-step0-2.svg")]


async def test_picture_where_it_cannot_be_written_is_a_notification(tmp_path):
    corpus = tmp_path / "gone" / "little.txt"
    corpus.parent.mkdir()
    shutil.copy(DEMO, corpus)
    app = ExplorerApp(paths=[str(corpus)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle_until(app, pilot, lambda: app.session is not None, "the corpus opened")
        shutil.rmtree(corpus.parent)  # the corpus's directory went away meanwhile
        await pilot.press("P")
        await settle(app, pilot)
        problems = [n for n in said(app) if n.severity == "error"]
        assert len(problems) == 1 and problems[0].title == "cannot save the picture"
        assert "\n" not in str(problems[0].message) and "gone" in str(problems[0].message)
        assert not corpus.parent.exists()


async def _evaluate_then_audit(app, pilot) -> tuple[str, str]:
    await pilot.press("v")
    await settle_until(app, pilot, lambda: isinstance(app.screen, EvalScreen) and app.screen.result is not None, "evaluation")
    curves = chart(app, "eval-curves").text
    await pilot.press("escape")
    await settle(app, pilot)
    await pilot.press("a")
    await settle_until(app, pilot, lambda: isinstance(app.screen, AuditScreen) and app.screen.report is not None, "audit")
    return curves, chart(app, "audit-counts").text


async def test_evaluate_and_audit_charts_at_0_merges():
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        curves, counts = await _evaluate_then_audit(app, pilot)
        assert app.screen.report is not None and app.screen.table.num_merges == 0
        assert "bytes per token over merges" in curves and "1.00" in curves  # one point: a byte a token
        assert "tokens per category" in counts


async def test_evaluate_and_audit_charts_of_gpt2s_50000_merges(gpt2_table_path):
    app = ExplorerApp(table_path=gpt2_table_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, InspectScreen)
        await settle_until(app, pilot, lambda: app.session.full_table.merges_built, "GPT-2's merge list")
        curves, counts = await _evaluate_then_audit(app, pilot)
        assert "50k" in curves and "12,500" in curves  # the merge axis up to 50,000
        assert "tokens · 4,5: no corpus" in counts  # no corpus in inspect mode until ctrl+o
        assert not chart(app, "audit-usage").display


def test_a_picture_of_a_shipped_corpus_goes_to_the_current_directory(tmp_path, monkeypatch):
    """The demo corpus lives inside the package: its pictures go where bpe-tui was started."""
    from bpe_tui import demo_corpus_path
    from bpe_tui.ui.picture import picture_place
    from bpe_tui.ui.session.sessions import ExploreSession

    monkeypatch.chdir(tmp_path)
    session = ExploreSession(_demo_trainer(), paths=[demo_corpus_path()])
    assert picture_place(session) == (str(tmp_path), "demo")
    mine = tmp_path / "sub" / "mine.txt"  # a corpus of one's own: beside it
    mine.parent.mkdir()
    shutil.copy(DEMO, mine)
    session.paths = [str(mine)]
    assert picture_place(session) == (str(mine.parent), "mine")


def _demo_trainer():
    from bpe_tui import Trainer, TrainerConfig

    return Trainer.from_files([str(DEMO)], TrainerConfig(preset="gpt2", vocab_size=300))

"""The explorer on real work (issue 10): one numbering, honest deltas, a readable trace, 80x24,
nothing lost silently, no empty charts, no overflowing columns.

Tests that need tinyshakespeare or a shared table skip with a reason when ../shared is absent;
each also runs on the shipped demo corpus.
"""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.geometry import Region
from textual.widgets import Input, TabbedContent
from textual.widgets._footer import FooterKey
from textual.worker import Worker, WorkerState

import bpe_tui
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.cli import main as cli_main
from bpe_tui.core.tables.formats import load
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.panes.encode import LONG_TEXT, TraceView
from bpe_tui.ui.panes.status import forms_of, lay_out
from bpe_tui.ui.screens.dialogs import ConfirmScreen, FindScreen
from bpe_tui.ui.session.sessions import read_preview
from bpe_tui.ui.widgets.plot import Chart

from .conftest import CORPORA, DEMO, SHARED, demo_app, settle, settle_until, text_app

SHAKESPEARE = SHARED / "corpora" / "tinyshakespeare.txt"


def corpus_app(path, vocab_size: int = 5000) -> ExplorerApp:
    trainer = Trainer.from_files([str(path)], TrainerConfig(preset="gpt2", vocab_size=vocab_size))
    return ExplorerApp(trainer=trainer, preview=read_preview([str(path)]))


@pytest.fixture(params=["demo", "tinyshakespeare"])
def corpus(request):
    """The shipped demo corpus, and tinyshakespeare from ../shared (skipped when absent)."""
    if request.param == "demo":
        return DEMO
    if not SHAKESPEARE.is_file():
        pytest.skip(f"tinyshakespeare is not at {SHAKESPEARE} (the shared data directory is absent)")
    return SHAKESPEARE


async def go_to(app, pilot, step: int) -> None:
    await pilot.press("g")
    await pilot.pause()
    app.screen.query_one("#goto-input", Input).value = str(step)
    await pilot.press("enter")
    await settle(app, pilot)


def longest_trace(table, words) -> str:
    return max(words, key=lambda w: len(table.trace(w)))


WORDS = [" everlasting", " understanding", " thereafter", " gentlemen", " themselves", " lowest", " newer"]


# ---------------------------------------------------------------------- 4. one numbering


async def test_every_screen_numbers_merges_from_one(corpus):
    """History, trace, find, the Token tab and its tree all call the merge at rank r "merge r+1"."""
    app = corpus_app(corpus)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await go_to(app, pilot, 200)
        table = app.session.table()
        word = longest_trace(table, WORDS)
        steps = table.trace(word)
        assert len(steps) >= 3
        app.encode.query_one("#encode-input", Input).value = word
        await settle(app, pilot)
        # the trace: one line per merge applied, labelled with the history's number
        assert app.encode.trace_word == word
        for line, step in zip(app.encode.trace_lines[1:], steps):
            assert line.split()[:2] == ["merge", f"{step.rank + 1:,}"], line
            assert app.session.history_row(step.rank).step == step.rank + 1
        # find: the same number beside the token
        last = steps[-1]
        token = table.token_id(last.new_token)
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.screen, FindScreen)
        app.screen.query_one("#search-input", Input).value = str(token)
        await settle(app, pilot)
        results = app.screen.query_one("#search-results")
        assert results.row_text(0).split()[-2:] == ["merge", f"{last.rank + 1:,}"]
        await pilot.press("enter")
        await settle(app, pilot)
        # the Token tab: merge numbers, no 0-based rank anywhere
        assert app.detail.token_id == token
        assert f"merge {last.rank + 1:,}" in app.detail.info and "rank" not in app.detail.info
        labels = app.detail.tree_labels()
        assert labels[0].endswith(f"merge {last.rank + 1:,}") and not any("rank" in label for label in labels)


async def test_inspect_pair_table_and_caption_number_merges_from_one(compare_tables):
    table = load(compare_tables[0])
    app = ExplorerApp(table_path=compare_tables[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.session.cut = 10
        app.main.refresh_all(follow=False)
        app.encode.query_one("#encode-input", Input).value = "the lowest newest books"
        await settle(app, pilot)
        ranks = app.session.rank_index()
        counted = [(pair, rank) for pair, rank in ranks.items() if rank >= 10]
        shown = [int(row[4].replace(",", "")) for row in app.pairs.rows if row[4] != "—"]
        assert shown and min(shown) >= 11
        assert all(n - 1 in {rank for _, rank in counted} for n in shown)
        assert app.pairs.caption_text.startswith(f"next (merge {shown[0]:,}): ")
        assert table.num_merges > 10


def test_cli_inspect_says_merge_numbers(compare_tables, capsys):
    table = load(compare_tables[0])
    token = table.merge_at(5)[2]
    assert cli_main(["inspect", compare_tables[0], "--token", str(token)]) == 0
    out = capsys.readouterr().out
    assert "merge 6)" in out.splitlines()[0] and "rank" not in out
    assert cli_main(["inspect", compare_tables[0]]) == 0
    first = capsys.readouterr().out.split("first merges:\n")[1].splitlines()[0]
    assert first.split()[0] == "1."


# ---------------------------------------------------------------------- 7. deltas


def delta_of(now: int, before: int) -> str:
    """What the change column should say (the number exactly when it is short)."""
    if before == 0:
        return "new"
    d = now - before
    return "" if d == 0 else ("▲" if d > 0 else "▼") + (f"{abs(d):,}" if abs(d) < 1000 else "")


async def test_deltas_start_empty_on_another_corpus():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        assert any(row[5] for row in app.pairs.rows)  # the ten steps changed counts
        app.open_path(str(CORPORA / "cat_sat.txt"))
        await settle(app, pilot)
        assert app.session.name == "cat_sat.txt" and app.session.step == 0
        assert app.pairs.rows and all(row[5] == "" for row in app.pairs.rows)


async def test_deltas_after_a_jump_compare_with_the_state_before_it(corpus, monkeypatch):
    # one merge per batch: the jump reaches the screen in many worker updates
    monkeypatch.setattr("bpe_tui.ui.session.runner.BATCH_SECONDS", 0.0)
    app = corpus_app(corpus)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        before = tr.pair_counts()  # every pair's count at step 0, not only the 50 listed
        await go_to(app, pilot, 300)
        assert app.session.step == 300
        # the pane says what the change column compares with, and every row is exact: a pair
        # that was not among the 50 listed at step 0 has its change too, "new" only when it
        # did not occur at all (one of its tokens was made since)
        assert str(app.pairs.border_title) == "Pairs — change since step 0"
        assert [header.label.plain for header in app.pairs.table.columns.values()][4:] == ["ties", "change"]
        top = app.session.snapshot().top_pairs
        assert len(app.pairs.rows) == len(top)
        for row, (pair, count) in zip(app.pairs.rows, top):
            expected = delta_of(count, before.get(pair, 0))
            assert row[5].startswith(expected), (pair, row, expected)
        assert any(row[5].startswith("▼") for row in app.pairs.rows)
        assert not all(row[5] == "new" for row in app.pairs.rows)
        # an undo compares with step 300, exactly as well
        at_300 = tr.pair_counts()
        await pilot.press("b")
        await settle(app, pilot)
        assert str(app.pairs.border_title) == "Pairs — change since step 300"
        for row, (pair, count) in zip(app.pairs.rows, app.session.snapshot().top_pairs):
            assert row[5].startswith(delta_of(count, at_300.get(pair, 0))), (pair, row)


# ---------------------------------------------------------------------- 8. the trace


async def test_trace_shows_every_step_wrapped_and_five_fit_at_80x24(corpus):
    app = corpus_app(corpus)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await go_to(app, pilot, 400)
        table = app.session.table()
        view = app.encode.query_one(TraceView)
        box = app.encode.query_one("#encode-input", Input)
        # a long word: every step listed, its lines wrap inside the pane
        long_word = " " + "understanding" * 4
        box.value = "the lowest words" + long_word
        await settle(app, pilot)
        steps = table.trace(long_word)
        assert len(steps) >= 6
        assert len(view.lines) == 1 + len(steps)  # every step, none cut off
        width = view.scrollable_content_region.width
        assert all(row.cell_len <= width for row in view.rows)
        assert len(view.rows) > len(view.lines)  # some wrapped
        assert view.max_scroll_y > 0  # and the rest scrolls
        # a word of ordinary length: the head and its first five steps are on screen
        word = longest_trace(table, WORDS)
        box.value = "the lowest" + word
        await settle(app, pilot)
        assert len(table.trace(word)) >= 5
        rows_needed = sum(1 for line in view.row_line if line <= 5)
        assert view.scrollable_content_region.height >= rows_needed, (view.region, rows_needed)
        assert view.region.bottom <= app.screen.region.bottom - 1  # above the footer
        assert view.scroll_offset.y == 0


async def test_long_text_encodes_in_a_worker_and_the_last_keystroke_wins(corpus):
    seen: list[tuple[str, WorkerState]] = []

    def hook(message) -> None:
        if isinstance(message, Worker.StateChanged) and message.worker.group == "encode":
            seen.append((message.worker.name, message.state))

    text = corpus.read_text(encoding="utf-8")[:40_000]
    assert len(text) > LONG_TEXT
    app = corpus_app(corpus, vocab_size=2000)
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await settle(app, pilot)
        await go_to(app, pilot, 100)
        table = app.session.table()
        box = app.encode.query_one("#encode-input", Input)
        box.value = "short"
        await settle(app, pilot)
        assert app.encode.ids == table.encode("short") and not seen  # short: inline
        box.value = text
        box.value = text[: len(text) // 2]  # the next keystroke: the first encoding is dropped
        await settle_until(app, pilot, lambda: any(state == WorkerState.SUCCESS for _, state in seen), "no encode worker finished")
        assert app.encode.ids == table.encode(text[: len(text) // 2])
        assert app.encode.summary.startswith(f"{len(app.encode.ids):,} tokens")


# ---------------------------------------------------------------------- 9. 80x24


def status_lines(app) -> list[str]:
    status = app.status
    strips = status.render_lines(Region(0, 0, status.size.width, status.size.height))
    return [strip.text.strip() for strip in strips if strip.text.strip()]


async def test_80x24_keeps_help_whole_phrases_and_the_change_column(corpus):
    app = corpus_app(corpus)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        # the footer still shows ? Help
        help_keys = [k for k in app.screen.query(FooterKey) if k.action == "app.help"]
        assert help_keys and help_keys[0].region.width and help_keys[0].region.right <= 80
        # the status line is one line of whole phrases (the least important shortened or left out)
        phrases = {form for value, _, _ in app.status.parts for form in forms_of(value)}
        lines = status_lines(app)
        assert len(lines) == 1
        for line in lines:
            for piece in line.split(" │ "):
                assert piece in phrases, (piece, lines)
        # the pair table's columns, change column included, fit the pane
        table = app.pairs.table
        used = sum(column.get_render_width(table) for column in table.columns.values())
        assert used <= table.scrollable_content_region.width


def test_status_layout_drops_low_priority_phrases_first():
    parts = [("corpus.txt", "", 0), ("bytes · gpt2 · lexical-max", "", 2), ("step 10/744", "", 0), ("vocab 266", "", 1)]
    assert lay_out(parts, 80).plain == "corpus.txt │ bytes · gpt2 · lexical-max │ step 10/744 │ vocab 266"
    assert lay_out(parts, 30).plain.split("\n") == ["corpus.txt │ step 10/744", "vocab 266"]
    assert lay_out(parts, 30, max_lines=1).plain == "corpus.txt │ step 10/744"
    assert lay_out([("a" * 40, "", 0)], 20).plain == "a" * 19 + "…"
    # phrases that may not go: the last line holds them all, cut
    kept = [(("step 10/744",), "", 0), (("vocab 266",), "", 0)]
    assert lay_out(kept, 20, max_lines=1).plain == "step 10/744 │ vocab…"


# ---------------------------------------------------------------------- 10. nothing lost silently


async def test_quit_and_open_ask_before_losing_unsaved_merges(tmp_path):
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+q")  # nothing learned yet: nothing to lose, but do not quit the test
        await pilot.pause()
        assert app._exit and not isinstance(app.screen, ConfirmScreen)
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and "10 merges" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert not app._exit
        # o: asks before opening another corpus over the unsaved merges; n keeps them
        await pilot.press("o")
        await pilot.pause()
        app.screen.query_one("#path-input", Input).value = str(CORPORA / "cat_sat.txt")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(app, pilot)
        assert app.session.name == "demo.txt" and app.session.step == 10
        # saved: quitting asks nothing
        assert app.main.save_table(str(tmp_path / "t.json"), "native")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app._exit


async def test_auto_play_runs_at_the_rate_it_shows(corpus, monkeypatch):
    from bpe_tui.ui.session.sessions import ExploreSession

    app = corpus_app(corpus)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("plus", "plus", "plus")  # 32 merges per second
        await settle_until(app, pilot, lambda: app.play_rate == 32, "the rate did not go up to 32")
        rate = app.play_rate
        # The app's clock is the test's: two seconds of it pass in tenths, however slowly the
        # machine runs; the ticks then make exactly the merges due (a backlog is caught up).
        # A tick's merging has a wall-clock deadline, and when the trainer cannot keep up
        # within it, play goes on from where it is (the backlog dropped): on a loaded machine
        # that happened here, and the frozen clock then never let another merge fall due. The
        # trainer is made to keep up: the wall clock has no say in this test.
        real_advance = ExploreSession.advance
        monkeypatch.setattr(ExploreSession, "advance", lambda self, n, *args, deadline=None, **kwargs: real_advance(self, n, *args, **kwargs))
        now = [0.0]
        app.runner.clock = lambda: now[0]
        start_step = app.session.step
        await pilot.press("p")
        for tenth in range(1, 21):
            now[0] = tenth / 10
            await pilot.pause(0.02)
        await settle_until(app, pilot, lambda: app.session.step - start_step >= 2 * rate, "auto-play did not catch up")
        await pilot.press("p")
        assert app.session.step - start_step == 2 * rate


async def test_e_puts_the_cursor_at_the_end_of_the_encode_text():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        box = app.encode.query_one("#encode-input", Input)
        box.value = "the lowest"
        app.pairs.table.focus()
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        assert box.has_focus and box.selection.is_empty and box.cursor_position == len("the lowest")
        await pilot.press("r")
        assert box.value == "the lowestr"


# ---------------------------------------------------------------------- 11. inspect, wide tokens


async def test_inspect_stats_show_only_what_the_table_holds(tmp_path):
    no_counts = tmp_path / "gpt2-dir"
    bpe_tui.save(bpe_tui.train(str(DEMO), preset="gpt2", merges=200), str(no_counts), format="gpt2")
    table = load(str(no_counts))
    assert table.counts is None
    app = ExplorerApp(table_path=str(no_counts))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.query_one(TabbedContent).active = "tab-stats"
        await settle(app, pilot)
        stats = app.stats
        assert not stats.query_one("#counts-plot", Chart).display  # not stored: no chart
        assert not stats.query_one("#compression-plot", Chart).display  # no corpus: no compression
        assert not stats.query_one("#pairs-plot", Chart).display
        lengths = stats.query_one("#lengths-plot", Chart)
        assert lengths.display
        ordinary = sum(1 for i in table.vocab if not table.is_special(i))
        assert f"token lengths · {ordinary:,} tokens" in lengths.text


async def test_wide_and_long_tokens_stay_inside_their_columns():
    text = ("日本語のテキストです。東京都庁舎 " * 30) + ("supercalifragilisticexpialidocious " * 30)
    app = text_app(text, preset="classic", merges=30)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        await _assert_cells_fit(app)
        app.encode.query_one("#encode-input", Input).value = "日本語のテキストです supercalifragilisticexpialidocious"
        await settle(app, pilot)
        view = app.encode.query_one(TraceView)
        assert all(row.cell_len <= view.scrollable_content_region.width for row in view.rows)


async def test_gpt2_table_cells_fit_with_cjk_text(gpt2_table_path):
    app = ExplorerApp(table_path=gpt2_table_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.encode.query_one("#encode-input", Input).value = "日本語のテキストです ---------------- ================ Hello"
        await settle(app, pilot)
        assert app.pairs.rows
        await _assert_cells_fit(app)


async def _assert_cells_fit(app) -> None:
    pairs = app.pairs
    assert pairs.rows
    for row in pairs._cells:
        for cell, width in zip(row, pairs.widths):
            assert cell.cell_len <= width, (cell.plain, width)
    assert any(cell_len(row[1]) > 1 for row in pairs.rows)  # wide or long tokens were there to cut

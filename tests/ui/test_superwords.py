"""Pilot tests: stepping a superword (SuperBPE) trainer across its transition and back."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static, TabbedContent

from bpe_tui.core.engine.superwords import is_superword
from bpe_tui.ui.panes.search import SearchResults
from bpe_tui.ui.screens.dialogs import FindScreen
from bpe_tui.ui.widgets.plot import Chart
from bpe_tui.core.engine.variants.superbpe import SuperBPE

SUPERWORD_MARK = SuperBPE.token_mark

from .conftest import settle, text_app

TEXT = "by the way, in the middle of the night!! by the way, in the middle of it 123\nby the way he said\n" * 4
K = 12


def corpus_rows(app) -> list[str]:
    view = app.corpus.words_view
    return [view.row_text(i) for i in range(view.count)]


async def test_stepping_across_the_transition_and_back():
    app = text_app(TEXT, superwords_after=K, vocab_size=400)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        words = tr.word_count
        assert "superwords after merge 12" in str(app.history.query_one("#history-head").render())
        assert app.corpus.border_title.endswith(f"of {words} words")
        await pilot.press("N")  # ten merges: still ordinary BPE
        await settle(app, pilot)
        assert tr.steps_done == 10 and not tr.in_superword_stage
        await pilot.press("n", "n")  # merge 12, then the transition
        await settle(app, pilot)
        assert tr.steps_done == K and tr.in_superword_stage
        assert app.corpus.chunks and app.corpus.border_title.endswith(f"of {tr.word_count} chunks")
        assert app.corpus.query_one("#corpus-filter", Input).placeholder == "filter chunks…"
        assert any(" " in tr.word_text(w).strip() for w in app.corpus.words_view.words)  # chunks hold spaces
        assert app.corpus.touched == set()  # merge 12's words are not these chunks
        assert app.pairs.why_text.startswith("from here on, pairs may span spaces")
        # the pairs whose merge would make a superword are marked in the pair table
        marked = [row[2].endswith(SUPERWORD_MARK) for row in app.pairs.rows]
        assert marked == [is_superword(a + b) for a, b in app.pairs.pairs] and any(marked)
        head = str(app.history.query_one("#history-head").render())
        assert f"{SUPERWORD_MARK} superwords from merge 13" in head
        await pilot.press("N")
        await settle(app, pilot)
        superwords = [e for e in tr.history if is_superword(e.new_token)]
        assert superwords and all(e.step > K for e in superwords)
        rows = [app.history.view.row_text(i) for i in range(app.history.view.count)]
        assert all((SUPERWORD_MARK in rows[e.step - 1]) for e in superwords)
        assert not any(SUPERWORD_MARK in row for row in rows[:K])
        # the Stats tab says where the merge-count curve's corpus changed
        app.query_one(TabbedContent).active = "tab-stats"
        await settle(app, pilot)
        counts_chart = app.query_one("#counts-plot", Chart).text
        assert "superwords from merge 13" in counts_chart
        app.query_one(TabbedContent).active = "tab-history"
        await settle(app, pilot)
        # the why line of merge 13 explains the transition
        app.history.show_why(K)
        assert app.history.why.startswith(f"merge 13: [{SUPERWORD_MARK}] from here on, pairs may span spaces")
        # the encode box marks a superword's id
        box = app.query_one("#encode-input", Input)
        box.focus()
        await pilot.press(*"by the way")
        await settle(app, pilot)
        table = app.session.table()
        assert app.encode.ids == table.encode("by the way")
        id_line = app.encode.query_one("#encode-view").row_text(1)
        assert (SUPERWORD_MARK in id_line) == any(is_superword(table.surface(i)) for i in app.encode.ids)
        # back across the transition: the words again, exactly as at merge 11
        app.pairs.table.focus()
        for _ in range(tr.steps_done - (K - 1)):
            await pilot.press("b")
        await settle(app, pilot)
        assert tr.steps_done == K - 1 and not tr.in_superword_stage and tr.word_count == words
        assert not app.corpus.chunks and app.corpus.border_title.endswith(f"of {words} words")
        assert not app.pairs.why_text.startswith("from here on")
        # and forward again with goto: the same merges as before
        before = [e.pair for e in app.session.timeline]
        await pilot.press("g")
        await settle(app, pilot)
        await pilot.press(*"30", "enter")
        await settle(app, pilot)
        assert tr.steps_done == 30 and tr.in_superword_stage
        assert len(before) == 22 and [e.pair for e in tr.history][:22] == before


async def test_find_marks_superwords():
    app = text_app(TEXT, superwords_after=K, vocab_size=400)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        table = app.session.table()
        await pilot.press("slash")
        await settle(app, pilot)
        assert isinstance(app.screen, FindScreen)
        await pilot.press(*"the")
        await settle(app, pilot)
        results = app.screen.query_one(SearchResults)
        assert results.ids == table.search("the", limit=500)
        rows = {i: results.row_text(n) for n, i in enumerate(results.ids)}
        marked = {i for i, row in rows.items() if SUPERWORD_MARK in row}
        assert marked and marked == {i for i in results.ids if is_superword(table.surface(i))}
        # choosing a superword shows it in the token tab, marked there too
        index = next(n for n, i in enumerate(results.ids) if i in marked)
        await pilot.press("down", *["down"] * index, "enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, FindScreen)
        assert app.detail.token_id == results.ids[index]
        assert f"{SUPERWORD_MARK} superword: spans a space" in app.detail.info


async def test_evaluate_compares_with_the_plain_table_at_the_same_size():
    from bpe_tui.core.analysis import evaluate as ev
    from bpe_tui.core.engine.trainer import plain_counterpart
    from bpe_tui.ui.views.evaluate import EvalScreen

    text = TEXT + "the way of the world is in the middle of the night\n" * 6
    app = text_app(text, superwords_after=K, vocab_size=400)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N", "N")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.in_superword_stage
        await pilot.press("v")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, EvalScreen) and screen.plain is not None
        table = app.session.table()
        plain = plain_counterpart(tr.corpus_counts()[0], tr.config, len(table))
        corpora = ev.parallel_set()
        expected = ev.evaluate([table, plain], corpora, workers=1)
        lines = screen.bar_lines
        assert len(lines) == 2 * len(corpora)
        for c in range(len(corpora)):
            assert lines[2 * c].split()[0] == corpora[c].label
            assert lines[2 * c].split()[-1] == f"{expected.get(0, c).bytes_per_token:.3f}"
            assert lines[2 * c + 1].split()[-2:] == [f"{expected.get(1, c).bytes_per_token:.3f}", "plain"]
        title = str(screen.query_one("#eval-title", Static).render())
        assert "vs plain BPE at the same size" in title
        # across the corpora: the superword table beside the plain one, the same size, the
        # superwords only on the left
        from bpe_tui.core.analysis.side_by_side import side_by_side

        assert [s.as_dict() for s in screen.summaries] == [s.as_dict() for s in side_by_side([table, plain], expected)]
        side = str(screen.query_one("#eval-side", Static).render()).splitlines()
        assert side[0] == "across the 12 corpora" and side[1].startswith("side by side") and side[1].endswith("  plain BPE")
        rows = {line.split("  ")[0]: line for line in side[3:]}
        assert rows["vocabulary"].split()[-2:] == [f"{len(table):,}"] * 2 and "the vocabulary sizes differ" not in side[-1]
        assert rows["superwords"].endswith("0.0% (0)") and screen.summaries[0].superwords > 0


async def test_a_run_in_the_worker_crosses_the_transition():
    text = "".join(f"by the way {i}, in the middle of the night!! and so on {i % 7}\n" for i in range(400))
    app = text_app(text, superwords_after=K, vocab_size=500)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.finished and tr.in_superword_stage and tr.vocab_size == 500
        assert app.corpus.chunks and app.corpus.words_view.count == tr.word_count
        rows = corpus_rows(app)
        assert all("…" not in row for row in rows[:5])
        assert app.history.view.count == tr.steps_done


CODE = "def f(x):\n    return x + 1\n\n\ndef g(y):\n    return y * 2\n# note: by the way\n" * 6


async def test_the_stage2_options_are_shown_marked_and_switched(tmp_path):
    """The authors' recipe (--preset superbpe): the status names its stage-2 options, the
    history marks the merges the transition dropped and says why, and the settings dialog
    shows the options and retrains under others."""
    from textual.widgets import Select

    from bpe_tui import TrainerConfig
    from bpe_tui.ui.app import ExplorerApp
    from bpe_tui.ui.panes.history import DROPPED_MARK
    from bpe_tui.ui.screens.settings import SettingsScreen
    from bpe_tui.ui.widgets.toggle import Checkbox

    from .test_steer import yes_lose_unsaved

    corpus = tmp_path / "code.txt"
    corpus.write_text(CODE, encoding="utf-8")
    app = ExplorerApp(paths=[str(corpus)], config=TrainerConfig(preset="superbpe", superwords_after=K, vocab_size=400))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "superwords after 12 · digits rule · ≤ 4 words · no ': ' · unused merges dropped" in app.status.text
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"14", "enter")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.in_superword_stage and tr.dropped_merges == (8, 9, 11)
        rows = [app.history.view.row_text(i) for i in range(app.history.view.count)]
        marks = [row.lstrip("● ").split()[1] for row in rows]  # "    8 x ·    + ret → ·ret    12"
        assert [i + 1 for i, m in enumerate(marks) if m == DROPPED_MARK] == [8, 9, 11]
        app.history.show_why(7)
        assert app.history.why == f"merge 8: [{DROPPED_MARK}] dropped at the transition: its pair never occurs in the chunks, so the table leaves it out"
        app.history.show_why(K)
        assert "3 merges never occur there and leave the table" in app.history.why
        assert all(table_merge not in ((b" ", b"ret"),) for table_merge in app.session.table().merges)
        # the settings dialog shows the options, and retrains under the ones chosen
        app.pairs.table.focus()
        await pilot.press("comma")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SettingsScreen)
        assert dialog.query_one("#superword-rule", Select).value == "digits"
        assert dialog.query_one("#superword-max-words", Input).value == "4"
        assert dialog.query_one("#superword-skip-colon-space", Checkbox).value and dialog.query_one("#superwords-drop-unused", Checkbox).value
        dialog.query_one("#superword-rule", Select).value = "regex"
        dialog.query_one("#superword-max-words", Input).value = "2"
        dialog.query_one("#superwords-drop-unused", Checkbox).value = False
        await pilot.click("#ok")
        await yes_lose_unsaved(app, pilot)
        await settle(app, pilot)
        tr = app.session.trainer
        cfg = tr.config
        assert (cfg.superword_rule, cfg.superword_max_words, cfg.superwords_drop_unused) == ("regex", 2, False)
        assert tr.steps_done == 14 and tr.dropped_merges == ()
        assert "superwords after 12 · ≤ 2 words · no ': '" in app.status.text
        assert all(len([w for w in e.new_token.split(b" ") if w]) <= 2 for e in tr.history[K:])


async def test_a_bad_stage2_option_in_the_dialog_is_one_line_there(tmp_path):
    from bpe_tui import TrainerConfig
    from bpe_tui.ui.app import ExplorerApp
    from bpe_tui.ui.screens.settings import SettingsScreen

    corpus = tmp_path / "code.txt"
    corpus.write_text(CODE, encoding="utf-8")
    app = ExplorerApp(paths=[str(corpus)], config=TrainerConfig(preset="superbpe", superwords_after=K, vocab_size=400))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("comma")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SettingsScreen)
        dialog.query_one("#superword-max-words", Input).value = "0"
        await pilot.click("#ok")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        error = str(app.screen.query_one("#settings-error", Static).render())
        assert error == "superword_max_words must be 1 or more, not 0"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_the_authors_recipe_snapshot(snap_compare, size):
    """--preset superbpe past its transition: the head names the stage-2 options and the merges
    dropped, the history marks them with x, the why line says why."""

    async def past_the_transition(pilot):
        app = pilot.app
        await settle(app, pilot)
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"14", "enter")
        await settle(app, pilot)
        app.history.show_why(10)  # merge 11, dropped
        await settle(app, pilot)

    app = text_app(CODE, preset="superbpe", superwords_after=K, vocab_size=400)
    assert snap_compare(app, terminal_size=size, run_before=past_the_transition)

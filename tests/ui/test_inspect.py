"""Pilot tests for inspect mode (a saved table, no corpus)."""

from __future__ import annotations

from textual.widgets import Input, TabbedContent

import bpe_tui
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.panes.corpus import CorpusPane
from bpe_tui.ui.panes.pairs import INSPECT_COLUMNS
from bpe_tui.ui.session.sessions import InspectSession

from .conftest import CORPORA, said, settle


def small_table(tmp_path):
    path = tmp_path / "t.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=300), str(path))
    return str(path)


async def test_inspect_history_encode_cut_and_pairs(tmp_path):
    path = small_table(tmp_path)
    table = bpe_tui.load(path)
    app = ExplorerApp(table_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        session = app.session
        assert isinstance(session, InspectSession)
        assert app.history.view.count == 300
        assert "format native" in app.status.text and "300 merges" in app.status.text
        assert not app.main.query(CorpusPane) and app.search.display  # the inspect screen has no corpus pane
        assert app.focused is app.history.view
        # training keys are off in inspect mode
        await pilot.press("space", "r", "b")
        await settle(app, pilot)
        assert app.history.view.count == 300
        # encode with the whole table
        box = app.query_one("#encode-input", Input)
        box.focus()
        await pilot.press(*"the newest thing")
        await settle(app, pilot)
        assert app.encode.ids == table.encode("the newest thing")
        # the pair table shows the text's pairs; with the whole table none has a rank left
        assert app.pairs.columns == INSPECT_COLUMNS
        assert all(r[4] == "—" for r in app.pairs.rows)
        # g cuts the table: encode with the first 20 merges, pairs now have ranks
        await pilot.press("escape", "g")
        await pilot.pause()
        await pilot.press(*"20", "enter")
        await settle(app, pilot)
        assert session.cut == 20
        assert app.encode.ids == table.truncated(20).encode("the newest thing")
        assert "encoding with the first 20 merges" in app.status.text
        ranks = [int(r[4].replace(",", "")) for r in app.pairs.rows if r[4] != "—"]
        assert ranks and ranks == sorted(ranks) and min(ranks) >= 21  # merge numbers: the first 20 merges are in the cut
        assert app.pairs.caption_text.startswith(f"next (merge {ranks[0]}): ")
        # enter on a history row cuts there too
        app.history.view.focus()
        await pilot.press("home", "down", "down", "enter")
        await settle(app, pilot)
        assert session.cut == 3
        assert app.encode.ids == table.truncated(3).encode("the newest thing")
        # w goes back to the whole table
        await pilot.press("w")
        await settle(app, pilot)
        assert session.cut is None
        assert app.encode.ids == table.encode("the newest thing")


async def test_inspect_search_and_merge_tree(tmp_path):
    path = small_table(tmp_path)
    table = bpe_tui.load(path)
    app = ExplorerApp(table_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        assert app.focused is app.query_one("#search-input", Input)
        await pilot.press(*"the")
        await settle(app, pilot)
        ids = app.search.results.ids
        assert ids == table.search("the", limit=500)
        await pilot.press("enter")
        await settle(app, pilot)
        token = ids[0]
        assert app.detail.token_id == token
        assert app.query_one(TabbedContent).active == "tab-token"
        rank = table.rank_of(token)
        assert f"merge {rank + 1}" in app.detail.info
        assert app.history.view.cursor == rank
        labels = app.detail.tree_labels()
        leaves = table.merge_tree(token).leaves()
        assert len(labels) >= len(leaves)
        # search by id
        box = app.query_one("#search-input", Input)
        box.value = "257"
        await settle(app, pilot)
        assert app.search.results.ids[0] == 257


async def test_inspect_gpt2_table_50k_rows_scroll(gpt2_table_path):
    app = ExplorerApp(table_path=gpt2_table_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.history.view
        assert view.count == 50_000
        assert "format gpt2" in app.status.text and "50,257 tokens" in app.status.text
        view.focus()
        # Smooth means the list draws only the rows on screen: count the lines it renders
        # while jumping to the end and paging back (a 50k-row table would build every row).
        assert view.virtual_size.height == 50_000
        rendered = []
        draw = view.render_line
        view.render_line = lambda y: rendered.append(y) or draw(y)
        await pilot.press("end")
        await pilot.pause()
        for _ in range(20):
            await pilot.press("pageup")
        await pilot.pause()
        assert 0 < len(rendered) < 21 * 40 * 3
        assert view.cursor < 50_000 - 20 * 10
        assert view.row_text(49_999).split()[0] == "50,000"
        app.query_one("#encode-input", Input).value = "Hello world"
        await settle(app, pilot)
        assert app.encode.ids == [15496, 995]


async def test_open_bad_table_notifies(tmp_path):
    bad = tmp_path / "table.json"
    bad.write_text('{"format": "bpe-tui", "version": 999')
    app = ExplorerApp(table_path=str(bad))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.session is None
        assert any("table.json" in n.message for n in said(app))

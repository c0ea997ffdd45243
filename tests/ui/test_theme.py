"""Colours come from the theme: switching it (ctrl+p -> theme) recolours the chips and the cursor."""

from __future__ import annotations

from textual.coordinate import Coordinate

from bpe_tui.ui.encode import EncodeView

from .conftest import demo_app, settle


def chip_style(app):
    """The style of the first token chip of the corpus pane's first word."""
    view = app.corpus.words_view
    text, spans = view.row(0)
    start = spans[0][0]
    return text.get_style_at_offset(app.console, start)


async def test_switching_theme_changes_a_chip_and_the_cursor():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.theme = "textual-dark"
        await settle(app, pilot)
        dark = chip_style(app)
        cursor_dark = app.corpus.words_view.get_component_rich_style("vlist--cursor", partial=True)
        assert dark.bgcolor is not None
        app.theme = "textual-light"
        await settle(app, pilot)
        light = chip_style(app)
        assert light.bgcolor is not None and light.bgcolor != dark.bgcolor
        assert app.corpus.words_view.get_component_rich_style("vlist--cursor", partial=True) != cursor_dark
        # and back: the same colours as before
        app.theme = "textual-dark"
        await settle(app, pilot)
        assert chip_style(app) == dark


def encode_chip_style(app):
    """The style of the first token chip in the encode box."""
    view = app.encode.query_one(EncodeView)
    text, spans = view.lines[0]
    return text.get_style_at_offset(app.console, spans[0][0])


def next_pair_style(app):
    """The style of the pair table's first row's left token (the pair that merges next)."""
    return app.pairs.table.get_cell_at(Coordinate(0, 1)).get_style_at_offset(app.console, 0)


def caption_next_style(app):
    """The style of the next pair's first chip in the pair table's caption."""
    caption = app.pairs.caption
    start = caption.plain.index(": ") + 2
    return caption.get_style_at_offset(app.console, start)


def status_name_style(app):
    """The style of the corpus name at the start of the status line."""
    return app.status.line.get_style_at_offset(app.console, 0)


async def test_switching_theme_changes_the_encode_chips_the_pair_table_and_the_status_line():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.encode.set_text("the lowest newer")
        app.theme = "textual-dark"
        await settle(app, pilot)
        dark = (encode_chip_style(app), next_pair_style(app), caption_next_style(app))
        assert all(style.bgcolor is not None for style in dark)
        name_dark = status_name_style(app)
        assert name_dark.color is not None and name_dark.bold
        app.theme = "textual-light"
        await settle(app, pilot)
        light = (encode_chip_style(app), next_pair_style(app), caption_next_style(app))
        for before, after in zip(dark, light):
            assert after.bgcolor is not None and after != before
        assert status_name_style(app).color != name_dark.color
        app.theme = "textual-dark"
        await settle(app, pilot)
        assert (encode_chip_style(app), next_pair_style(app), caption_next_style(app)) == dark

"""Colours come from the theme: switching it (ctrl+p -> theme) recolours the chips and the cursor."""

from __future__ import annotations

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

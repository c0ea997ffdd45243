"""Colours come from the theme: switching it (ctrl+p -> theme) recolours everything coloured.

Each test draws a screen under one built-in theme, switches to another, reads the style of
what is drawn (the Text a list row, a table cell or a Static holds), and checks the colour
changed, and came back with the first theme. The other theme is solarized-light: textual-light
shares textual-dark's warning, error, success and accent colours, so chips filled with those
look the same in both. A guard test keeps colours out of the Python code from now on.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rich.errors import StyleSyntaxError
from rich.style import Style
from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import Input, Static, TabbedContent

import bpe_tui
import bpe_tui.ui
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.panes.encode import EncodeView
from bpe_tui.ui.views.audit import AuditScreen
from bpe_tui.ui.views.compare import ChipView, CompareScreen
from bpe_tui.ui.views.evaluate import EvalScreen
from bpe_tui.ui.widgets.plot import Chart

from .conftest import CORPORA, classic_app, demo_app, settle, wait_for_screen

DARK, OTHER = "textual-dark", "solarized-light"


#: The dots a curve is drawn with (braille cells).
BRAILLE = "".join(chr(c) for c in range(0x2801, 0x2900))


def chart_style(app, chart: Chart, chars: str) -> Style:
    """The style of the first of ``chars`` in a chart as drawn (a bar's fill, a curve's dots)."""
    text = chart.render()
    assert isinstance(text, Text)
    offset = next(i for i, ch in enumerate(text.plain) if ch in chars)
    return text.get_style_at_offset(app.console, offset)


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
        app.theme = DARK
        await settle(app, pilot)
        dark = chip_style(app)
        cursor_dark = app.corpus.words_view.get_component_rich_style("vlist--cursor", partial=True)
        assert dark.bgcolor is not None
        app.theme = OTHER
        await settle(app, pilot)
        light = chip_style(app)
        assert light.bgcolor is not None and light.bgcolor != dark.bgcolor
        assert app.corpus.words_view.get_component_rich_style("vlist--cursor", partial=True) != cursor_dark
        # and back: the same colours as before
        app.theme = DARK
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
        app.theme = DARK
        await settle(app, pilot)
        dark = (encode_chip_style(app), next_pair_style(app), caption_next_style(app))
        assert all(style.bgcolor is not None for style in dark)
        name_dark = status_name_style(app)
        assert name_dark.color is not None and name_dark.bold
        app.theme = OTHER
        await settle(app, pilot)
        light = (encode_chip_style(app), next_pair_style(app), caption_next_style(app))
        for before, after in zip(dark, light):
            assert after.bgcolor is not None and after != before
        assert status_name_style(app).color != name_dark.color
        app.theme = DARK
        await settle(app, pilot)
        assert (encode_chip_style(app), next_pair_style(app), caption_next_style(app)) == dark


# ---------------------------------------------------------------------------- every other view


def style_at(app, text: Text, part: str, after: str = "") -> Style:
    """The style of the first cell of ``part`` in ``text`` (searched after ``after``)."""
    start = text.plain.index(part, text.plain.index(after) + len(after) if after else 0)
    return text.get_style_at_offset(app.console, start)


def static_text(root, selector: str) -> Text:
    """What a Static shows (the Text it was updated with)."""
    content = root.query_one(selector, Static).content
    assert isinstance(content, Text), f"{selector} holds {content!r}"
    return content


async def under_each_theme(app, pilot, read) -> list[dict[str, Style]]:
    """``read()`` (named styles) under DARK, OTHER and DARK again."""
    out = []
    for theme in (DARK, OTHER, DARK):
        app.theme = theme
        await settle(app, pilot)
        out.append(read())
    return out


def assert_recoloured(seen: list[dict[str, Style]]) -> None:
    """Each named style has a colour, another one under the other theme, the same one back."""
    dark, other, again = seen
    for name, style in dark.items():
        assert style.color is not None or style.bgcolor is not None, f"{name}: no colour: {style}"
        assert (other[name].color, other[name].bgcolor) != (style.color, style.bgcolor), f"{name}: the same under {OTHER}: {style}"
    assert again == dark


async def test_theme_recolours_the_corpus_text_the_pair_filter_the_token_detail_and_watch_a_word():
    app = classic_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.main.go_to_step(4)
        await settle(app, pilot)
        corpus = app.corpus
        corpus.set_text_view(True)
        corpus.set_pair(("l", "o"))  # (this leaves the running text: shown again below)
        corpus.set_text_view(True)
        tr = app.session.trainer
        merged = tr.history[-1].new_id
        app.main.show_token(merged, True)
        app.query_one("#watch-input", Input).value = "low lowest"
        await settle(app, pilot)

        def read() -> dict[str, Style]:
            running = static_text(corpus, "#corpus-text-body")
            pair = static_text(corpus, "#corpus-pair")
            info = static_text(app.detail, "#detail-info")
            root = app.detail.query_one("#detail-tree").root
            leaf = root.children[0]
            while leaf.children:
                leaf = leaf.children[0]
            watch = static_text(app.stats, "#watch-body")
            return {
                "running text, first token": running.get_style_at_offset(app.console, 0),
                "running text, second token": running.get_style_at_offset(app.console, running.spans[1].start),
                "pair filter chip": style_at(app, pair, "l", after="containing "),
                "detail's token chip": info.get_style_at_offset(app.console, 0),
                "merge tree: a merged token": root.label.get_style_at_offset(app.console, 0),
                "merge tree: a base unit": leaf.label.get_style_at_offset(app.console, 0),
                "watch: one token since": style_at(app, watch, "one token since"),
                "watch: tokens now": style_at(app, watch, "tokens now"),
                "watch: a chip": watch.get_style_at_offset(app.console, watch.plain.index("tokens now ") + len("tokens now ")),
            }

        assert "one token since merge" in app.stats.watch_lines[0] and "tokens now" in app.stats.watch_lines[1]
        assert_recoloured(await under_each_theme(app, pilot, read))
        # the words' text is the same as before the theme changes
        assert static_text(corpus, "#corpus-pair").plain.startswith("containing l + o")


async def test_theme_recolours_search_results_and_the_token_length_bars(tmp_path):
    path = tmp_path / "t.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=300), str(path))
    app = ExplorerApp(table_path=str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        await pilot.press(*"the")
        await settle(app, pilot)
        app.query_one(TabbedContent).active = "tab-stats"
        await settle(app, pilot)
        results = app.search.results

        def read() -> dict[str, Style]:
            text, spans = results.row(1)  # (row 0 is under the cursor: the cursor is drawn over it)
            return {
                "a found token": text.get_style_at_offset(app.console, spans[0][0]),
                "a token length bar": chart_style(app, app.stats.query_one("#lengths-plot", Chart), "█"),
                "a characters bar": chart_style(app, app.stats.query_one("#lengths-plot", Chart), "▒"),
            }

        assert results.count > 1
        assert_recoloured(await under_each_theme(app, pilot, read))


async def test_theme_recolours_the_compare_view(compare_tables):
    path_a, path_b = compare_tables
    app = ExplorerApp(table_path=path_a, compare_path=path_b)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, CompareScreen)
        screen = app.screen
        box = screen.query_one("#compare-input", Input)
        box.value = "unbelievably old books"
        await settle(app, pilot)
        assert screen.diff_lines

        def read() -> dict[str, Style]:
            head = static_text(screen.side("B"), ".side-name")
            chips = screen.side("A").query_one(ChipView)
            line, spans = chips.lines[0]
            same = next(s for s in spans if s[2] is None)
            different = [s for s in spans if s[2] is not None]
            row, _ = screen.diff_list.row(0)
            why = static_text(screen, "#diff-why")
            return {
                "side letter": head.get_style_at_offset(app.console, 0),
                "side's table name": style_at(app, head, "multilingual"),
                "a chip both split alike": line.get_style_at_offset(app.console, same[0]),
                "a chip split differently": line.get_style_at_offset(app.console, different[0][0]),
                "differences list: letter": style_at(app, row, "A ", after=" "),
                "differences list: a token": row.get_style_at_offset(app.console, row.plain.index("   A ") + 5),
                "why: a token": why.get_style_at_offset(app.console, 2),
            }

        assert_recoloured(await under_each_theme(app, pilot, read))
        box.value = "the"  # both tables split it alike
        await settle(app, pilot)
        assert static_text(screen, "#diff-head").plain == "both tables split this text at the same places"
        assert_recoloured(await under_each_theme(app, pilot, lambda: {"same places": static_text(screen, "#diff-head").get_style_at_offset(app.console, 0)}))


async def test_theme_recolours_a_special_token_in_the_compare_view(tmp_path):
    paths = []
    for name, corpus in (("a.json", "demo.txt"), ("b.json", "multilingual.txt")):
        bpe_tui.save(bpe_tui.train(str(CORPORA / corpus), preset="gpt2", merges=50, special_tokens=["<|endoftext|>"]), str(tmp_path / name))
        paths.append(str(tmp_path / name))
    app = ExplorerApp(table_path=paths[0], compare_path=paths[1])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, CompareScreen)
        screen = app.screen
        screen.query_one("#compare-input", Input).value = "a<|endoftext|>b"
        await settle(app, pilot)

        def read() -> dict[str, Style]:
            line, _ = screen.side("A").query_one(ChipView).lines[0]
            return {"special token": style_at(app, line, "<|endoftext|>")}

        assert_recoloured(await under_each_theme(app, pilot, read))


async def test_theme_recolours_the_audit_title_and_the_evaluate_view():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        await pilot.press("a")
        await settle(app, pilot)
        audit = app.screen
        assert isinstance(audit, AuditScreen)
        assert_recoloured(await under_each_theme(app, pilot, lambda: {
            "audit title: table name": style_at(app, static_text(audit, "#audit-title"), audit.table_name),
        }))
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("v")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, EvalScreen) and screen.result is not None

        def read() -> dict[str, Style]:
            helped = static_text(screen, "#eval-helped")
            # the first corpus's line after the heading: its label padded to the longest, a space
            first_line = max(len(c) for c in screen.result.corpora) + 1
            return {
                "title: table name": style_at(app, static_text(screen, "#eval-title"), screen.table_name),
                "metric": static_text(screen, "#eval-metric").get_style_at_offset(app.console, 0),
                "a bar": chart_style(app, screen.query_one("#eval-bars", Chart), "█"),
                "the first corpus's curve": chart_style(app, screen.query_one("#eval-curves", Chart), BRAILLE),
                "another corpus's curve": chart_style(app, screen.query_one("#eval-curves", Chart), "•"),
                "the first corpus's legend entry": static_text(screen, "#eval-legend").get_style_at_offset(app.console, 0),
                "a merge that helped": helped.get_style_at_offset(app.console, helped.plain.index(":\n") + 2 + first_line),
            }

        first = read()
        assert first["the first corpus's curve"] != first["another corpus's curve"]
        assert_recoloured(await under_each_theme(app, pilot, read))


async def test_theme_recolours_the_help_screen_while_it_is_open():
    from bpe_tui.ui.screens.dialogs import HelpScreen

    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)

        def read() -> dict[str, Style]:
            # the help is a group: heading, the keys' grid, "Panes", the panes' grid, a note;
            # each grid's first column (the keys, the pane names) carries the theme's style
            group = help_screen.query_one("#help-text", Static).content
            keys, panes = group.renderables[1].renderable, group.renderables[3].renderable
            return {"a key": keys.columns[0].style, "a pane's name": panes.columns[0].style}

        assert_recoloured(await under_each_theme(app, pilot, read))


# ---------------------------------------------------------------------------- readable in every theme


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2's contrast ratio of two colours (1 to 21)."""

    def luminance(rgb: tuple[int, int, int]) -> float:
        def channel(v: int) -> float:
            c = v / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(v) for v in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


async def test_every_chip_note_and_the_cursor_read_well_in_every_builtin_theme():
    """Text on a chip or in a theme colour has a contrast of 3:1 or more (WCAG's least, for
    large text and interface parts) in each of Textual's built-in themes, light ones too."""
    from dataclasses import fields

    from textual.theme import BUILTIN_THEMES

    from bpe_tui.ui.widgets.render import ChipStyles, component_style

    app = demo_app()
    poor = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        themes = [name for name in sorted(BUILTIN_THEMES) if "ansi" not in name]
        assert "textual-light" in themes and len(themes) > 10
        for theme in themes:
            app.theme = theme
            await settle(app, pilot)
            background = app.screen.rich_style.bgcolor.get_truecolor()
            foreground = app.screen.rich_style.color.get_truecolor()
            look = ChipStyles.of(app.status)
            styles = {}
            for field in fields(look):
                value = getattr(look, field.name)
                if isinstance(value, bool):
                    continue  # (a switch of the look, not a colour: whole)
                for k, style in enumerate(value if isinstance(value, tuple) else (value,)):
                    styles[f"{field.name}[{k}]"] = style
            styles["cursor"] = component_style(app.history.view, "vlist--cursor")
            for name, style in styles.items():
                if style.color is None and style.bgcolor is None:
                    continue  # (an undone merge: dim only)
                fg = style.color.get_truecolor() if style.color else foreground
                bg = style.bgcolor.get_truecolor() if style.bgcolor else background
                if contrast(fg, bg) < 3:
                    poor.append(f"{theme} {name}: {contrast(fg, bg):.2f} ({style})")
    assert not poor, "hard to read:\n" + "\n".join(poor)


async def test_list_rows_are_drawn_on_the_themes_background():
    """A list row's unstyled cells (a merge number, the padding) take the list's own colours,
    not the terminal's default ones (black behind dark text in a light theme)."""
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        app.theme = "textual-light"
        await settle(app, pilot)
        view = app.history.view
        assert view.count >= 2 and view.cursor != 0
        strip = view.render_line(0 - view.scroll_offset.y)  # the first merge: not under the cursor
        base = view.rich_style.bgcolor
        for segment in strip:
            assert segment.style is not None and segment.style.bgcolor is not None, f"{segment.text!r} has no background"
        assert any(segment.style.bgcolor == base for segment in strip)


# ---------------------------------------------------------------------------- the rule


UI = Path(bpe_tui.ui.__file__).parent
HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")


def colour_in_style_string(value: str) -> bool:
    """Is ``value`` a rich style string (or does it hold a markup tag) that names a colour?"""
    candidates = [value] + re.findall(r"\[/?([^\[\]]+)\]", value)
    for candidate in candidates:
        words = [w for w in candidate.split() if not w.startswith("chip--")]  # StatusLine's theme roles
        try:
            style = Style.parse(" ".join(words))
        except (StyleSyntaxError, ValueError):
            continue
        if style.color is not None or style.bgcolor is not None:
            return True
    return False


def test_no_colours_in_the_ui_python_code():
    """Colours live in TCSS, from theme variables (chips.tcss); the Python code names roles."""
    assert colour_in_style_string("bold #8ec5ff") and colour_in_style_string("dim red") and colour_in_style_string("[on blue]x[/]")
    assert not colour_in_style_string("bold chip--good") and not colour_in_style_string("unknowns in red, and more")
    found = []
    for path in sorted(UI.rglob("*.py")):
        source = path.read_text()
        for n, line in enumerate(source.splitlines(), 1):
            if "Style(color=" in line.replace(" ", "") or "bgcolor=" in line:
                found.append(f"{path.name}:{n}: {line.strip()}")
        tree = ast.parse(source)
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                if HEX.search(node.value) or colour_in_style_string(node.value):
                    found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    for path in sorted(UI.rglob("*.tcss")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if HEX.search(line):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert not found, "colours outside the theme:\n" + "\n".join(found)

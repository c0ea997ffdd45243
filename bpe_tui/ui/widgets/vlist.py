"""VirtualList: a line-API list that renders only the rows on screen.

A 50,000-row DataTable takes seconds to build; this ScrollView sets its virtual height to
the row count and asks :meth:`render_row` for the visible rows only (with a small cache), so
GPT-2's 50,000 merges scroll smoothly. Rows may report cell spans (start, end, payload) so
a click can be mapped to the token under the mouse.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .render import CHIP_CLASSES, ChipStyles, component_style, redraw_on_theme_change


class VirtualList(ScrollView, can_focus=True):
    """Rows 0..count-1 drawn on demand by :meth:`render_row`; a row cursor; enter chooses.

    The cursor and the chips take their colours from the theme (component classes, styled in
    chips.tcss); a theme change redraws the rows.
    """

    COMPONENT_CLASSES = {"vlist--cursor", "vlist--cursor-blurred"} | CHIP_CLASSES

    # Rows are cut to the list's width, never scrolled sideways: without this, the vertical
    # scrollbar's column made the rows one cell wider than the room left, and Textual drew a
    # horizontal scrollbar (a stray "▏ ▏" under every list).
    DEFAULT_CSS = """
    VirtualList {
        overflow-x: hidden;
    }
    """

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("enter", "choose", "Choose", show=False),
    ]

    class RowMessage(Message):
        """Base of the list's messages: which list, which row."""

        def __init__(self, vlist: "VirtualList", index: int) -> None:
            super().__init__()
            self.vlist = vlist
            self.index = index

        @property
        def control(self) -> "VirtualList":
            return self.vlist

    class Highlighted(RowMessage):
        """The cursor moved to row ``index``."""

    class Chosen(RowMessage):
        """Enter (or a click on the cursor row) chose row ``index``."""

    class Hovered(RowMessage):
        """The mouse moved onto row ``index`` (-1: it left the list)."""

    class ChipClicked(RowMessage):
        """A token chip in row ``index`` was clicked; ``payload`` says which."""

        def __init__(self, vlist: "VirtualList", index: int, payload) -> None:
            super().__init__(vlist, index)
            self.payload = payload

    def __init__(self, *, show_cursor: bool = True, name=None, id=None, classes=None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.count = 0
        self.cursor = 0
        self.show_cursor = show_cursor
        self._cache: LRUCache[int, tuple[Text, list]] = LRUCache(2048)
        self._hovered = -1

    # ------------------------------------------------------------------ subclass API

    def render_row(self, index: int) -> Text | tuple[Text, list]:
        """The Text of row ``index`` (optionally with its cell spans)."""
        raise NotImplementedError

    def set_count(self, count: int, cursor: int | None = None, follow: bool = False) -> None:
        """Set the number of rows (clears the row cache); optionally move the cursor."""
        self.count = count
        self._cache.clear()
        if cursor is not None:
            self.cursor = cursor
        self.cursor = max(0, min(self.cursor, count - 1))
        self.virtual_size = Size(self.size.width, count)
        if follow:
            # now, so the frame that shows the new rows shows the cursor's (a frame later the
            # cursor of a list that grew by ten rows was still out of view); and again once
            # the layout has settled
            self.scroll_to_cursor()
            self.call_after_refresh(self.scroll_to_cursor)
        self.refresh()

    def invalidate(self) -> None:
        """Redraw every row (the data behind them changed)."""
        self._cache.clear()
        self.refresh()

    def row(self, index: int) -> tuple[Text, list]:
        hit = self._cache.get(index)
        if hit is None:
            out = self.render_row(index)
            hit = out if isinstance(out, tuple) else (out, [])
            self._cache[index] = hit
        return hit

    def row_text(self, index: int) -> str:
        """Plain text of a row (for tests and screen readers)."""
        return self.row(index)[0].plain

    # ------------------------------------------------------------------ drawing

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.size.width, self.count)
        if self.show_cursor and self.count:
            # Lines above or below the list came or went (a head that wraps, a why line): the
            # cursor's row, in view before, stays in view.
            self.call_after_refresh(self.scroll_to_cursor)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if index >= self.count or index < 0:
            return Strip.blank(width, base)
        text, _ = self.row(index)
        if self.show_cursor and index == self.cursor:
            text = text.copy()
            cursor = "vlist--cursor" if self.has_focus else "vlist--cursor-blurred"
            text.stylize_before(component_style(self, cursor))
            text.pad_right(max(0, width - text.cell_len))
        # the list's own style (the theme's background and text colour) under the row's styles,
        # or the row's unstyled cells show the terminal's default colours
        strip = Strip(list(text.render(self.app.console))).apply_style(base)
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def on_mount(self) -> None:
        # rows were drawn with the old theme's chip colours: draw them again
        redraw_on_theme_change(self, self.invalidate)

    @property
    def chip_styles(self) -> ChipStyles:
        return ChipStyles.of(self)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # ------------------------------------------------------------------ cursor

    def scroll_to_cursor(self) -> None:
        top = self.scroll_offset.y
        height = max(1, self.scrollable_content_region.height)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def move_cursor(self, index: int, notify: bool = True) -> None:
        if not self.count:
            return
        index = max(0, min(index, self.count - 1))
        changed = index != self.cursor
        self.cursor = index
        self.scroll_to_cursor()
        self.refresh()
        if notify and changed:
            self.post_message(self.Highlighted(self, index))

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor + direction * max(1, self.scrollable_content_region.height - 1))

    def action_jump(self, index: int) -> None:
        self.move_cursor(self.count - 1 if index < 0 else index)

    def action_choose(self) -> None:
        if self.count:
            self.post_message(self.Chosen(self, self.cursor))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        offset = event.get_content_offset(self)
        index = self.scroll_offset.y + offset.y if offset is not None else -1
        index = index if 0 <= index < self.count else -1
        if index != self._hovered:
            self._hovered = index
            self.post_message(self.Hovered(self, index))

    def on_leave(self, event: events.Leave) -> None:
        if self._hovered != -1:
            self._hovered = -1
            self.post_message(self.Hovered(self, -1))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.scroll_offset.y + offset.y
        if not 0 <= index < self.count:
            return
        self.move_cursor(index)
        x = self.scroll_offset.x + offset.x
        for start, end, payload in self.row(index)[1]:
            if start <= x < end:
                self.post_message(self.ChipClicked(self, index, payload))
                break
        if event.chain >= 2:
            self.post_message(self.Chosen(self, index))

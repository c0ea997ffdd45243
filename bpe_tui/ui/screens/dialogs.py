"""Small modal screens: go to step, save, open, find, confirm, help."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.padding import Padding
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult, CSSPathType
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from ...core.errors import BPEError
from ...core.wording import one_line
from ..messages import TokenSelected
from ..panes.search import TokenSearch
from ..widgets.footer import FittingFooter
from ..widgets.render import CHIP_CLASSES, ChipStyles, redraw_on_theme_change


class _Dialog(ModalScreen):
    CSS_PATH: ClassVar[CSSPathType | None] = "dialogs.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def action_cancel(self) -> None:
        self.dismiss(None)


class FormDialog(_Dialog):
    """A dialog of boxes that returns what :meth:`chosen` makes of them (enter in a box, or
    the ``#ok`` button), or None (any other button, escape). A BPEError from ``chosen`` is said
    in the dialog's ``#{ERROR}`` Static, and the dialog stays open."""

    #: The id of the Static that says what is wrong.
    ERROR = "form-error"

    def chosen(self) -> object:
        raise NotImplementedError

    def finished(self, value: object) -> object:
        """What the dialog returns for a ``chosen`` value (the value itself by default)."""
        return value

    def _result(self) -> None:
        try:
            value = self.chosen()
        except BPEError as exc:
            self.query_one(f"#{self.ERROR}", Static).update(Text(one_line(str(exc)), style="bold"))  # (a path in it: escaped)
            return
        self.dismiss(self.finished(value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._result()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._result()
        else:
            self.dismiss(None)


class ConfirmScreen(_Dialog):
    """Yes / no. Returns True or False (escape: False)."""

    BINDINGS = [Binding("escape,n", "cancel", "No"), Binding("y", "yes", "Yes")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.question), classes="question")
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed, "#yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self) -> None:
        self.dismiss(False)


class GotoScreen(_Dialog):
    """Ask for a step number. Returns an int or None."""

    def __init__(self, prompt: str, current: int) -> None:
        super().__init__()
        self.prompt = prompt
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.prompt))
            yield Input(str(self.current), id="goto-input", type="integer", select_on_focus=True)
            yield Static(Text("enter goes, escape cancels", style="dim"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            value = int(event.value)
        except ValueError:
            self.notify("type a whole number", severity="warning")
            return
        self.dismiss(value)


class PathScreen(_Dialog):
    """Ask for a path (and optionally a format). Returns path or (path, format) or None."""

    def __init__(self, title: str, default: str = "", formats: list[str] | None = None, hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.default = default
        self.formats = formats
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text, style="bold"))
            yield Input(self.default, id="path-input", placeholder="path")
            if self.formats:
                yield Select([(f, f) for f in self.formats], value=self.formats[0], allow_blank=False, id="format")
            if self.hint:
                yield Static(Text(self.hint, style="dim"))
            with Horizontal(classes="buttons"):
                yield Button("OK", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#path-input", Input).focus()

    def _result(self):
        path = self.query_one("#path-input", Input).value.strip()
        if not path:
            self.notify("type a path", severity="warning")
            return
        if self.formats:
            self.dismiss((path, str(self.query_one("#format", Select).value)))
        else:
            self.dismiss(path)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._result()

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        self._result()

    @on(Button.Pressed, "#cancel")
    def _cancelled(self) -> None:
        self.dismiss(None)


class FindScreen(_Dialog):
    """Token search in a dialog; returns the chosen token id or None."""

    def __init__(self, table) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog tall"):
            yield TokenSearch(id="find")

    def on_mount(self) -> None:
        self.query_one(TokenSearch).set_table(self.table)
        self.query_one("#search-input", Input).focus()

    def on_token_selected(self, event: TokenSelected) -> None:
        event.stop()
        if event.show:
            self.dismiss(event.token_id)


class HelpScreen(_Dialog):
    """The keys of the screen it was opened on, what each pane shows, how the mouse works.

    Keys and pane names are a column of their own: a description too long for the line
    goes on under itself, never back under the keys.
    """

    COMPONENT_CLASSES = CHIP_CLASSES

    BINDINGS = [Binding("escape,q,question_mark", "cancel", "Close", key_display="esc")]

    def __init__(self, keys: list[tuple[str, str]], panes: list[tuple[str, str]], heading: str = "keys") -> None:
        super().__init__()
        self.keys = keys
        self.panes = panes
        self.heading = heading

    @property
    def text(self) -> str:
        """What the help says, as plain text, a row a line (what tests read)."""
        rows = [f"{key}  {what}" for key, what in self.keys + self.panes]
        return "\n".join([f"bpe-tui — {self.heading}", *rows])

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog tall wide"):
            with VerticalScroll():
                yield Static("", id="help-text", markup=False)
        yield FittingFooter()  # its own: "esc Close" (the screen's below would show its keys)

    def on_mount(self) -> None:
        self._draw()
        redraw_on_theme_change(self, self._draw)  # (ctrl+p works over the help)

    def _draw(self) -> None:
        """The text, its key and pane names in the theme's colours (chips.tcss)."""
        look = ChipStyles.of(self)
        key_style = look.note + Style(bold=True)

        def table(rows: list[tuple[str, str]], style: Style) -> Table:
            grid = Table.grid(padding=(0, 2))
            grid.add_column(style=style, no_wrap=True, width=KEY_WIDTH)
            grid.add_column(ratio=1)
            for name, what in rows:
                grid.add_row(Text(name), Text(what))
            return grid

        help_text = Group(
            Text(f"bpe-tui — {self.heading}\n", "bold"),
            Padding(table(self.keys, key_style), (0, 0, 0, 2)),
            Text("\nPanes\n", "bold"),
            Padding(table(self.panes, look.name), (0, 0, 0, 2)),
            Text("\nctrl+p opens the command palette (every action is there). escape closes this help.", "dim"),
        )
        self.query_one("#help-text", Static).update(help_text)


#: The width of the help's key column ("b / backspace", "tab / shift+tab").
KEY_WIDTH = 15

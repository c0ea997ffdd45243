"""The open dialog (``o``): a path, and for a dataset the field holding each record's text.

A path names a corpus or a merge table (which one is found out when it is read). A corpus may
be text, compressed or not, JSON lines or Parquet (:mod:`bpe_tui.core.text.kinds`); for the
last two the dialog also takes the text field (a dotted path for a nested one: ``meta.body``)
and whether bad records are skipped: what ``--text-field`` and ``--skip-bad-records`` say on
the command line. A bad field name is said in the dialog, which stays open; a field the file
does not have is said when it is read, with the fields it does have.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from ...core.errors import BPEError
from ...core.text.datasets.records import RecordOptions
from ..widgets.toggle import Checkbox
from .dialogs import FormDialog

HINT = (
    "a corpus (a text file, also .gz .bz2 .xz .zst; JSON lines or Parquet, read by the text field; a directory or a glob) "
    "or a merge table (native JSON, GPT-2 directory, tokenizer.json, …)"
)


@dataclass(frozen=True)
class OpenChoice:
    """What the open dialog returns: the path, and how records become documents."""

    path: str
    records: RecordOptions


class OpenScreen(FormDialog):
    """Ask for a corpus or table to open. Returns an :class:`OpenChoice`, or None."""

    CSS_PATH = ["dialogs.tcss", "opening.tcss"]
    ERROR = "open-error"

    def __init__(self, records: RecordOptions, path: str = "") -> None:
        super().__init__()
        self.records = records
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="open"):
            yield Label(Text("Open a corpus or a merge table", style="bold"))
            yield Input(self.path, id="path-input", placeholder="path")
            with Horizontal(classes="setting"):
                yield Label("text field")
                yield Input(self.records.text_field, id="text-field", placeholder="text", compact=True)
                yield Checkbox("skip bad records", self.records.skip_bad, id="skip-bad", compact=True)
            yield Static(Text(HINT, style="dim"), classes="hint")
            yield Static("", id="open-error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Open", id="ok", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#path-input", Input).focus()

    def chosen(self) -> OpenChoice:
        """What the dialog says now (BPEError: what is wrong)."""
        path = self.query_one("#path-input", Input).value.strip()
        if not path:
            raise BPEError("type a path")
        field = self.query_one("#text-field", Input).value.strip() or "text"
        return OpenChoice(path, RecordOptions(field, self.query_one("#skip-bad", Checkbox).value))


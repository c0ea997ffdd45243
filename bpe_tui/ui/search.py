"""Token search: find tokens by text or id (the / key; the left pane in inspect mode)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from ..core.table import MergeTable
from .messages import TokenSelected
from .render import CHIP_PAIR, chip, fmt_int, merge_number
from .vlist import VirtualList

LIMIT = 500


class SearchResults(VirtualList):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.table: MergeTable | None = None
        self.ids: list[int] = []

    def render_row(self, index: int):
        table = self.table
        token_id = self.ids[index]
        text = Text(f"{token_id:>7} ", style="dim", end="", no_wrap=True)
        start = text.cell_len
        text.append_text(chip(table.surface(token_id), table.end_of_word, CHIP_PAIR[0]))
        end = text.cell_len
        rank = table.rank_of(token_id)
        if rank is not None:
            text.append(f"  merge {merge_number(rank):,}", "dim")
        elif table.is_special(token_id):
            text.append("  special", "dim")
        else:
            text.append("  base", "dim")
        return text, [(start, end, token_id)]


class TokenSearch(Vertical):
    """An input and the matching tokens; choosing one posts TokenSelected."""

    BORDER_TITLE = "Find token"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.table: MergeTable | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="token text or id…", id="search-input", compact=True)
        yield Static("", id="search-summary", markup=False)
        yield SearchResults(id="search-results")

    @property
    def results(self) -> SearchResults:
        return self.query_one(SearchResults)

    def set_table(self, table: MergeTable | None) -> None:
        self.table = table
        self._search()

    def _search(self) -> None:
        results = self.results
        results.table = self.table
        query = self.query_one("#search-input", Input).value
        summary = self.query_one("#search-summary", Static)
        if self.table is None or not query:
            results.ids = []
            results.set_count(0)
            summary.update(Text("type to search the vocabulary by text or id", style="dim", end=""))
            return
        results.ids = self.table.search(query, limit=LIMIT)
        results.set_count(len(results.ids), cursor=0)
        n = len(results.ids)
        more = "+" if n >= LIMIT else ""
        summary.update(Text(f"{fmt_int(n)}{more} tokens match — enter shows one", style="dim", end=""))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._search()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.results.ids:
            self._choose(self.results.cursor)

    def on_key(self, event) -> None:
        if event.key == "down" and self.query_one("#search-input", Input).has_focus and self.results.ids:
            event.stop()
            self.results.focus()

    def _choose(self, index: int) -> None:
        self.post_message(TokenSelected(self.results.ids[index], show=True))

    def on_virtual_list_chosen(self, event: VirtualList.Chosen) -> None:
        event.stop()
        self._choose(event.index)

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        self.post_message(TokenSelected(self.results.ids[event.index]))

    def on_virtual_list_chip_clicked(self, event: VirtualList.ChipClicked) -> None:
        event.stop()
        self.post_message(TokenSelected(event.payload, show=True))

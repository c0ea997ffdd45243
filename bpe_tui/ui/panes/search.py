"""Token search: find tokens by text or id (the / key; the left pane in inspect mode)."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from ...core.tables.table import MergeTable, merge_number
from ...core.wording import plural
from ..messages import TokenSelected
from ..widgets.render import chip, token_mark
from ..widgets.vlist import VirtualList

LIMIT = 500


def matches(n: int) -> str:
    """What the summary says of ``n`` matching tokens (LIMIT: there may be more)."""
    if n >= LIMIT:
        return f"{LIMIT:,}+ tokens match — enter shows one"
    if n == 0:
        return "no token matches"
    return f"{plural(n, 'token')} match — enter shows one" if n > 1 else "1 token matches — enter shows it"


class SearchResults(VirtualList):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.table: MergeTable | None = None
        self.ids: list[int] = []

    def render_row(self, index: int):
        table = self.table
        assert table is not None  # (rows exist once a search has a table)
        token_id = self.ids[index]
        text = Text(f"{token_id:>7} ", style="dim", end="", no_wrap=True)
        start = text.cell_len
        surface = table.surface(token_id)
        text.append_text(chip(surface, table.end_of_word, self.chip_styles.pair[0]))
        end = text.cell_len
        text.append_text(token_mark(surface, self.chip_styles))
        rank = table.rank_of(token_id) if table.merges_built else None  # (a rank file's merge list may be building)
        if rank is not None:
            text.append(f"  merge {merge_number(rank):,}", "dim")
        elif table.is_special(token_id):
            text.append("  special", "dim")
        elif table.merges_built or token_id in table.base_ids():
            text.append("  base", "dim")
        else:
            text.append("  merge …", "dim")  # its number comes with the merge list
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

    def show_merges_state(self) -> None:
        """A rank file's merge list was built: draw the rows again, with merge numbers."""
        self.results.invalidate()

    def _search(self) -> None:
        """Search in a thread worker (a 200,000-token table's first search builds its index);
        the next keystroke cancels a search still running."""
        query = self.query_one("#search-input", Input).value
        summary = self.query_one("#search-summary", Static)
        if self.table is None or not query:
            self.workers.cancel_group(self, "search")
            self._show(query, [])
            summary.update(Text("search the vocabulary: text or id", style="dim", end=""))
            return
        summary.update(Text("searching…", style="dim", end=""))
        self._search_worker(self.table, query)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search_worker(self, table: MergeTable, query: str) -> None:
        worker = get_current_worker()
        ids = table.search(query, limit=LIMIT, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(self.Searched(table, query, ids))

    class Searched(Message):
        """A search finished: ``ids`` match ``query`` in ``table``."""

        def __init__(self, table: MergeTable, query: str, ids: list[int]) -> None:
            super().__init__()
            self.table = table
            self.query = query
            self.ids = ids

    def on_token_search_searched(self, message: "TokenSearch.Searched") -> None:
        message.stop()
        if message.table is self.table and message.query == self.query_one("#search-input", Input).value:
            self._show(message.query, message.ids)

    def _show(self, query: str, ids: list[int]) -> None:
        results = self.results
        results.table = self.table
        results.ids = ids
        results.set_count(len(ids), cursor=0)
        if query:
            self.query_one("#search-summary", Static).update(Text(matches(len(ids)), style="dim", end=""))

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

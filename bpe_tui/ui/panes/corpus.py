"""The corpus pane: words by frequency drawn as token chips, or the corpus as running text.

Each word shows its current segmentation (alternating chip colours, whitespace visible) and
its frequency; the words the last merge touched are marked. In the running text a token that
crossed pre-token boundaries (BoundlessBPE's supermerges) shows each crossing as ``⁀``. Past SuperBPE's transition the
rows are the corpus's chunks (where merges may span spaces), not its words. A filter box narrows the list by
text; choosing a pair in the pair table narrows it to the words containing that pair.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Static

from ...core.engine.units import text_of
from ...core.tables.boundless import crossings
from ..messages import TokenSelected
from ..session.sessions import ExploreSession
from ..session.snapshot import Snapshot
from ..widgets.render import (
    CHIP_CLASSES,
    CUT,
    ChipStyles,
    chip,
    chip_pieces,
    chips,
    fmt_int,
    label,
    piece_label,
    redraw_on_theme_change,
)
from ..widgets.toggle import Checkbox
from ..widgets.vlist import VirtualList

#: Words a text or pair filter looks through (most frequent first).
FILTER_LIMIT = 20_000
#: Drawn between two tokens when boundaries are shown.
BOUNDARY = "|"
#: Drawn inside a token where it crosses a pre-token boundary (BoundlessBPE's supermerges).
CROSSING = "⁀"


def crossing_label(surface: bytes | str, cuts: tuple[int, ...], end_of_word: str | None) -> str:
    """A supermerge's token with :data:`CROSSING` at each pre-token boundary it crosses
    (``·of⁀·the``): the pieces between ``cuts`` (offsets in its bytes) labelled one by one."""
    edges = (0, *cuts, len(surface))
    return CROSSING.join(label(surface[x:y], end_of_word) for x, y in zip(edges, edges[1:]))


class CorpusWords(VirtualList):
    """One word per row: frequency, then its tokens as chips."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.pane: CorpusPane | None = None
        self.words: list[int] = []

    def render_row(self, index: int):
        pane = self.pane
        assert pane is not None and pane.session is not None  # (rows exist once the pane shows a session)
        w = self.words[index]
        session = pane.session
        tr = session.trainer
        look = self.chip_styles
        text = Text(no_wrap=True, end="")
        touched = w in pane.touched
        eow = session.end_of_word
        sep = BOUNDARY if pane.boundaries else ""
        if session.busy:  # the trainer moves meanwhile: only the snapshot is read
            snap = pane.snapshot
            seg = snap.segmentations.get(w) if snap is not None else None
            if seg is None or snap is None:
                return Text("        …", style="dim", end=""), []
            text.append("●" if touched else " ", look.touched)
            text.append(f"{snap.frequencies[w]:>7,} ", look.touched if touched else "dim")
            body, spans = chips(seg, eow, styles=look.pair, sep=sep, whole=look.whole)
            spans = [(s, e, None) for s, e, _ in spans]
        else:
            text.append("●" if touched else " ", look.touched)
            text.append(f"{tr.word_frequency(w):>7,} ", look.touched if touched else "dim")
            ids = tr.segmentation_ids(w)
            body, spans = chips([tr.surface(i) for i in ids], eow, styles=look.pair, payloads=list(ids), sep=sep, whole=look.whole)
        offset = text.cell_len
        text.append_text(body)
        return text, [(s + offset, e + offset, p) for s, e, p in spans]


class CorpusPane(Vertical):
    BORDER_TITLE = "Corpus"
    #: The pair filter's chips and the running text take their colours from the theme.
    COMPONENT_CLASSES = CHIP_CLASSES

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: ExploreSession | None = None
        self.snapshot: Snapshot | None = None
        self.touched: set[int] = set()
        self.pair: tuple | None = None
        self.text_view = False
        #: Whether the rows are SuperBPE's chunks (past the transition), not words.
        self.chunks = False
        #: Draw BOUNDARY between tokens (words and running text); on by default under NO_COLOR.
        self.boundaries = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="corpus-bar"):
            yield Input(placeholder="filter words…", id="corpus-filter")
            yield Checkbox("text", id="corpus-text-toggle", compact=True)
        yield Static("", id="corpus-pair", markup=False)
        words = CorpusWords(id="corpus-words")
        words.pane = self
        yield words
        with VerticalScroll(id="corpus-text"):
            yield Static("", id="corpus-text-body", markup=False)

    @property
    def words_view(self) -> CorpusWords:
        return self.query_one(CorpusWords)

    def on_mount(self) -> None:
        self.boundaries = self.app.no_color
        redraw_on_theme_change(self, self._redraw)

    def _redraw(self) -> None:
        """The pair filter and the running text in the theme's colours (the words redraw themselves)."""
        self._pair_bar()
        if self.text_view:
            self._show_text()

    # ------------------------------------------------------------------ updates

    def show(self, session: ExploreSession, snap: Snapshot) -> None:
        new_session = session is not self.session
        self.session = session
        self.snapshot = snap
        ev = snap.last_event
        transition = snap.transition
        # The last merge's words are words of the corpus it was made on: none of the chunks
        # when it came before SuperBPE's transition.
        same_corpus = ev is not None and (transition is None or ev.step > transition.step)
        self.touched = set(ev.words_touched) if same_corpus and ev is not None else set()
        if snap.recut != self.chunks:  # the corpus changed between words and chunks (a variant's new cut)
            self.chunks = snap.recut
            self.pair = None
            self.words_view.words = []
            self.query_one("#corpus-filter", Input).placeholder = "filter chunks…" if self.chunks else "filter words…"
        if new_session:
            self.pair = None
        self._rows(keep_cursor=not new_session)
        if self.text_view:
            self._show_text()

    def _rows(self, keep_cursor: bool = True) -> None:
        session = self.session
        if session is None:
            return
        tr = session.trainer
        view = self.words_view
        if not session.busy:
            query = self.query_one("#corpus-filter", Input).value
            if self.pair is not None:
                order = tr.words_containing(self.pair)
                order.sort(key=lambda w: -tr.word_frequency(w))
            else:
                order = session.word_order()
            if query:
                q = query.lower()
                order = [w for w in order[:FILTER_LIMIT] if q in tr.word_text(w).lower()]
            view.words = order
        elif not view.words and self.snapshot is not None:
            view.words = list(self.snapshot.segmentations)  # the snapshot's words, most frequent first
        view.set_count(len(view.words), cursor=None if keep_cursor else 0)
        shown = fmt_int(len(view.words))
        units = "chunks" if self.chunks else "words"
        self.border_title = f"Corpus — {shown} of {fmt_int(tr.word_count)} {units}"
        self._pair_bar()

    def _pair_bar(self) -> None:
        """Above the words: the pair they are filtered by, if any."""
        session = self.session
        bar = self.query_one("#corpus-pair", Static)
        if self.pair is not None and session is not None:
            look = ChipStyles.of(self)
            t = Text("containing ", end="")
            t.append_text(chip(self.pair[0], session.end_of_word, look.pair[0]))
            t.append(" + ")
            t.append_text(chip(self.pair[1], session.end_of_word, look.pair[0]))
            t.append("   (x clears)", "dim")
            bar.update(t)
        bar.set_class(self.pair is not None, "-shown")

    def _show_text(self) -> None:
        session = self.session
        body = self.query_one("#corpus-text-body", Static)
        if session is None:
            return
        if not session.preview:
            body.update(Text("(no running text: the corpus was given as word counts or stdin)", style="dim"))
            return
        table = session.table()
        if table is None:
            return
        tokens = table.pieces(session.preview)
        surfaces = [surface for _, surface in tokens]
        text = Text(end="")
        eow = session.end_of_word
        look = ChipStyles.of(self)
        line_start = True
        # A supermerge's token (BoundlessBPE) shows where it crossed pre-token boundaries.
        crossed = crossings(table.merge_ids, table.supermerges, table.surface) if table.is_boundless else {}
        for k, piece in enumerate(chip_pieces(surfaces, look.whole)):
            style = look.unknown if tokens[piece.first][0] < 0 else look.pair[k % 2]
            if self.boundaries and not line_start:
                text.append(BOUNDARY)
            cuts = crossed.get(tokens[piece.first][0]) if crossed and not piece.cut else None
            if cuts:
                text.append(crossing_label(surfaces[piece.first], cuts, eow), style)
                line_start = False
                continue
            text.append(piece_label(surfaces, piece, eow), style + CUT if piece.cut else style)
            line_start = any("\n" in text_of(s) for s in surfaces[piece.first : piece.end])
            if line_start:
                text.append("\n")
        body.update(text)

    def set_pair(self, pair: tuple | None) -> None:
        self.pair = None if pair == self.pair else pair
        if self.text_view:
            self.set_text_view(False)
        self._rows(keep_cursor=False)

    def set_boundaries(self, on: bool) -> None:
        """Show (or hide) BOUNDARY between tokens, in the word list and the running text."""
        self.boundaries = on
        self.words_view.invalidate()
        if self.text_view:
            self._show_text()

    def set_text_view(self, on: bool) -> None:
        self.text_view = on
        self.set_class(on, "-text-view")  # corpus.tcss: the words or the running text
        box = self.query_one("#corpus-text-toggle", Checkbox)
        if box.value != on:
            with box.prevent(Checkbox.Changed):
                box.value = on
        if on:
            self._show_text()

    # ------------------------------------------------------------------ events

    def action_toggle_text(self) -> None:
        self.set_text_view(not self.text_view)

    def action_clear_filters(self) -> None:
        self.pair = None
        self.query_one("#corpus-filter", Input).value = ""
        self._rows(keep_cursor=False)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.set_text_view(event.value)

    @on(Input.Changed, "#corpus-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._rows(keep_cursor=False)

    @on(Input.Submitted, "#corpus-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.words_view.focus()

    def on_virtual_list_chip_clicked(self, event: VirtualList.ChipClicked) -> None:
        event.stop()
        if event.payload is not None:
            self.post_message(TokenSelected(event.payload, show=True))

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()

    def on_virtual_list_chosen(self, event: VirtualList.Chosen) -> None:
        """Enter on a word: show its longest token."""
        event.stop()
        session = self.session
        if session is None or session.busy or not self.words_view.words:
            return
        w = self.words_view.words[event.index]
        ids = session.trainer.segmentation_ids(w)
        best = max(ids, key=lambda i: len(session.trainer.surface(i)))
        self.post_message(TokenSelected(best, show=True))

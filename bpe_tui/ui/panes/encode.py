"""The encode box: type text, see it tokenized by the table as it stands right now.

Tokens are drawn as coloured chips with their ids underneath, unknown characters marked;
a summary gives the token count and characters per token; for a table that records its
model's context window (CLIP's 77 tokens), the pane's title says how much of it the text takes
(``Encode · context 95/77, 18 over``), at any width. Below the chips, in a list of its
own that always keeps room for the first steps, the trace of the word under the cursor (or
the last word): each merge applied, labelled "merge N" (1-based), and the segmentation after
it; long lines wrap. BPE-dropout samples another segmentation with probability p.

Special tokens in the text are recognised (each encodes to its id), encoded as ordinary text,
or refused (the summary names the first one and its character), as ``bpe-tui encode
--specials`` does: ``ctrl+s`` cycles through the three, and the pane's title line says which is
on when the table has special tokens.

A long pasted text (more than :data:`LONG_TEXT` characters) is encoded in a thread worker,
exclusive in its group, so each keystroke cancels the encoding still running and the screen
never freezes; short texts are encoded inline, as you type.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.text import Span, Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input

from ...core.errors import BPEError, DisallowedSpecial
from ...core.tables.context import context_note, context_of
from ...core.tables.special_policy import POLICIES, Policy, policy_arguments
from ...core.tables.table import UNK_ID, MergeTable, merge_number
from ...core.wording import plural
from ..keys import bindings_for
from ..messages import EncodeChanged, TokenSelected
from ..session.sessions import Session
from ..widgets.render import (
    CUT,
    REMOVED_MARK,
    ChipStyles,
    chip_pieces,
    chips,
    label,
    mark_of,
    piece_label,
    redraw_on_theme_change,
)
from ..widgets.toggle import Checkbox
from ..widgets.vlist import VirtualList
from .pairs import text_pairs
from .status import KEEP, USEFUL, Phrases

#: Texts longer than this many characters are encoded in a thread worker.
LONG_TEXT = 2_000
#: Characters either side of the cursor searched for the word to trace (in a text longer
#: than twice this: finding where normalized pieces stand costs more than encoding them).
WORD_WINDOW = 256


#: Between the summary's phrases ("12 tokens · 1.25 chars/token"); a narrow pane leaves the
#: last ones out whole there.
SUMMARY_SEPARATOR = " · "
#: The rows the chips keep at the least (two lines of chips, each with its ids), and the rows
#: the trace keeps below them at the least; the chips take the rest they need (_share_rows).
CHIP_ROWS = 4
TRACE_ROWS = 6


@dataclass
class Encoding:
    """One encoding of the box's text: what the pane shows (computed on any thread)."""

    text: str
    pieces: list = field(default_factory=list)  # (token id, surface)
    chip_lines: list = field(default_factory=list)  # (Text, spans): chips, then their ids
    summary: str = ""
    pairs: Counter | None = None  # with count_pairs: adjacent token pairs of the text
    context: str = ""  # where the text stands against the model's context window, if any


def encode_text(
    table: MergeTable, text: str, dropout: float, seed: int, width: int, pairs: bool, look: ChipStyles,
    specials: Policy = "recognise",
) -> Encoding:
    """Encode ``text`` and lay its chips out in lines of ``width`` cells (pure: any thread).

    ``look``: the chip styles, read from the theme on the UI thread before a worker starts.
    ``specials``: what special tokens' text does (see :mod:`~bpe_tui.core.tables.special_policy`).
    """
    allowed, disallowed = policy_arguments(specials)
    try:
        pieces = table.pieces(text, dropout=dropout, seed=seed, allowed_special=allowed, disallowed_special=disallowed) if text else []
    except DisallowedSpecial as exc:
        return Encoding(text=text, chip_lines=refusal_lines(exc, width, look), summary="refused")
    except BPEError as exc:  # (dropout on a table that replays its events: PickyBPE, BoundlessBPE)
        return Encoding(text=text, chip_lines=refusal_lines(str(exc), width, look), summary="refused")
    ids = [i for i, _ in pieces]
    unknown = sum(1 for i in ids if i == UNK_ID)
    n = len(ids)
    parts = [plural(n, "token")]
    context = context_of(table)
    note = context_note(context, n, short=True) if context is not None and text else ""
    if n:
        parts.append(f"{len(text) / n:.2f} chars/token")
    if unknown:
        parts.append(f"{unknown:,} unknown")
    if dropout:
        parts.append(f"dropout p={dropout:g} seed {seed}")
    return Encoding(
        text=text,
        pieces=pieces,
        chip_lines=chip_lines(pieces, table.end_of_word, width, look),
        summary=SUMMARY_SEPARATOR.join(parts),
        pairs=text_pairs(table, text) if pairs else None,
        context=note,
    )


def refusal_lines(refused: DisallowedSpecial | str, width: int, look: ChipStyles) -> list[tuple[Text, list]]:
    """Where the chips would be: which special token refused the text, and where (or why the
    table cannot encode it so: a sentence); wrapped."""
    import textwrap

    sentence = refused if isinstance(refused, str) else (
        f"the special token {label(refused.token)} at character {refused.offset + 1} is refused "
        "(ctrl+s: recognise it, or encode it as text)"
    )
    lines = textwrap.wrap(sentence, max(10, width), break_long_words=True, break_on_hyphens=False)
    return [(Text(line, style=look.bad, no_wrap=True, end=""), []) for line in lines]


def chip_lines(pieces, eow, width: int, look: ChipStyles) -> list[tuple[Text, list]]:
    """Wrap chips into lines of ``width`` cells, each followed by a line of their ids.

    Tokens that cut a character between them (a byte-level table's pieces of ``न``) are one
    chip: the character drawn once, underlined, over the ids of all its tokens (the bytes
    themselves with ``ChipStyles.whole`` off: the u key). Each line's text and style spans
    are gathered first and made into one Text at the end (appending to a Text chip by chip
    cost a 2,000-character text 20 ms a keystroke). A chip spans its cells; a wide character
    (CJK) takes two cells but one character of the text, so the two are counted apart."""
    out: list[tuple[Text, list]] = []
    top: list[str] = []  # the line's pieces of text
    top_styles: list[Span] = []
    top_chars = 0  # characters of the line so far (Text spans count characters)
    bottom: list[str] = []
    bottom_styles: list[Span] = []  # (the ids line holds one-cell characters only)
    cells = 0  # cells of the line so far (where a click lands)
    spans: list = []

    def line_out() -> None:
        out.append((Text("".join(top), no_wrap=True, end="", spans=top_styles), spans))
        out.append((Text("".join(bottom), no_wrap=True, end="", spans=bottom_styles), list(spans)))

    cycle = look.cycle
    surfaces = [surface for _, surface in pieces]
    for n, piece, ids, name, mark in _chip_parts(pieces, surfaces, eow, width, look):
        name_cells = cell_len(name)
        idents = list(map(_ident, ids))
        ident_cells = sum(map(len, idents)) + len(idents) - 1
        mark_cells = cell_len(mark)
        cell = max(name_cells, ident_cells + mark_cells)
        if cells and cells + cell + 1 > width:
            line_out()
            top, top_styles, bottom, bottom_styles, spans = [], [], [], [], []
            top_chars = cells = 0
        style = look.unknown if UNK_ID in ids else cycle[n % len(cycle)]
        if name and style:
            top_styles.append(Span(top_chars, top_chars + len(name), style + CUT if piece.cut else style))
        pad = " " * (cell - name_cells + 1)
        top += (name, pad)
        top_chars += len(name) + len(pad)
        at = cells
        for k, (token_id, ident) in enumerate(zip(ids, idents)):
            if k:
                bottom.append(" ")
                at += 1
            bottom_styles.append(Span(at, at + len(ident), "dim"))
            bottom.append(ident)
            spans.append((at, at + len(ident), token_id) if piece.cut else (cells, cells + cell, token_id))
            at += len(ident)
        if mark:
            bottom_styles.append(Span(at, at + len(mark), look.marked))
            bottom.append(mark)
            at += len(mark)
        rest = " " * (cells + cell + 1 - at)
        if rest:
            bottom_styles.append(Span(at, at + len(rest), "dim"))
            bottom.append(rest)
        cells += cell + 1
    if spans:
        line_out()
    return out


def _ident(token_id: int) -> str:
    """A token id as the chips' id line writes it (``unk`` for an unknown character)."""
    return "unk" if token_id == UNK_ID else str(token_id)


def _chip_parts(pieces, surfaces, eow, width: int, look: ChipStyles):
    """``(n, piece, ids, name, mark)`` for each chip to draw: a piece whose ids are wider
    than the line (👨‍👩‍👧 is 18 byte tokens) goes on in parts under it, each part's ids on
    a line of their own, so no id runs past the pane's edge; the name is the first part's,
    a variant's mark (⁀: spans a space) the last part's."""
    for n, piece in enumerate(chip_pieces(surfaces, look.whole)):
        ids = [token_id for token_id, _ in pieces[piece.first : piece.end]]
        name = piece_label(surfaces, piece, eow)
        mark = "" if piece.cut else mark_of(surfaces[piece.first])
        room = max(1, width - 1 - cell_len(mark))  # (and the gap after the chip)
        runs: list[list[int]] = [[]]
        used = -1
        for token_id in ids:
            need = len(_ident(token_id)) + 1
            if runs[-1] and used + need > room:
                runs.append([])
                used = -1
            runs[-1].append(token_id)
            used += need
        last = len(runs) - 1
        for part, run in enumerate(runs):
            yield n, piece, run, name if part == 0 else "", mark if part == last else ""


def word_at(table: MergeTable, text: str, cursor: int) -> str | None:
    """The pre-tokenized word under ``cursor`` (or the last word before it; else the first),
    as encode sees it (lowercased, normalized), found by where it stands in ``text``.

    A long text is searched only near the cursor, so moving the cursor stays cheap.
    """
    if len(text) > 2 * WORD_WINDOW:
        offset = max(0, cursor - WORD_WINDOW)
        text, cursor = text[offset : cursor + WORD_WINDOW], cursor - offset
    last = None
    for is_special, piece, (start, end) in table.pretoken_spans(text):
        if is_special:
            continue
        if start <= cursor < end or (cursor == end and cursor == len(text)):
            return piece
        if start < cursor or last is None:
            last = piece
    return last


def trace_lines(table: MergeTable, word: str, look: ChipStyles, pending: str | None = None) -> list[tuple[Text, Text, Text]]:
    """The trace of ``word``: the base units, then one line per merge applied.

    Each line is ``(label, body, compact body)``: the body shows the segmentation as chips
    with a space between tokens; the compact body puts them side by side in alternating
    colours (as the corpus pane does), for a pane too narrow for the spaced line.
    ``pending``: the table's merge list is not there yet (a rank file's, being built): this
    note stands where the merges would (a word that is itself a token needs none).
    """
    eow = table.end_of_word

    def bodies(lead: Text, symbols) -> tuple[Text, Text]:
        spaced, compact = lead.copy(), lead.copy()
        spaced.append_text(chips(symbols, eow, look.pair, sep=" ", whole=look.whole)[0])
        compact.append_text(chips(symbols, eow, look.pair, whole=look.whole)[0])
        return spaced, compact

    base = table.initial_symbols(word.lower() if table.lowercase else word)
    lines = [(Text("trace of ", style="bold", end=""), *bodies(Text(f"“{label(word)}”  ", style="bold", end=""), base))]
    whole = table.whole_token(word)
    if whole is not None and len(base) > 1:
        # tiktoken (and HF's ignore_merges): a pre-token that is a token is emitted whole
        note = Text(f"is itself token {whole}: emitted whole, the merges are not applied", style=look.good, end="")
        lines.append((Text("  ", end=""), note, note))
        return lines
    if pending is not None:
        wait = Text(pending, style=look.note, end="")
        lines.append((Text("  ", end=""), wait, wait))
        return lines
    steps = table.trace(word)
    width = max((len(f"merge {merge_number(s.rank):,} ") for s in steps), default=0)
    for step in steps:
        # (a removal comes right after a merge: "after 13" stands where "merge 13" would)
        head = Text(f"{'after' if step.split else 'merge'} {merge_number(step.rank):,} ".rjust(width), style="dim", end="")
        lead = Text(end="")
        if step.split:  # a variant's removal right after that merge, split into its parts
            lead.append(f"{REMOVED_MARK} {label(step.new_token, eow)}", look.note)
        else:
            lead.append("+".join(label(part, eow) for part in step.pair), look.note)
        lead.append(" → ")
        lines.append((head, *bodies(lead, step.symbols)))
    if not steps:
        none = Text("(no merge applies)", style="dim", end="")
        lines.append((Text("  ", end=""), none, none))
    return lines


class EncodeView(VirtualList):
    """Wrapped token chips with ids beneath (laid out again when the width changes)."""

    class WidthChanged(Message):
        """The view is wider or narrower: its chips are to be laid out again."""

    def __init__(self, **kwargs) -> None:
        super().__init__(show_cursor=False, **kwargs)
        self.lines: list[tuple[Text, list]] = []
        self._width = 0

    def on_resize(self, event: events.Resize) -> None:
        # (VirtualList's own on_resize runs too: Textual calls the handler of every class)
        if self.size.width != self._width:
            self._width = self.size.width
            if self.lines:
                self.post_message(self.WidthChanged())

    @property
    def chip_width(self) -> int:
        """The cells a line of chips may take (the last column is the scrollbar's)."""
        return max(20, self.size.width - 1 if self.size.width else 60)

    def render_row(self, index: int):
        return self.lines[index] if index < len(self.lines) else Text("")

    def set_lines(self, lines: list[tuple[Text, list]]) -> None:
        self.lines = lines
        self.set_count(len(lines))


class TraceView(VirtualList):
    """The trace, one merge per line; a line too long for the pane wraps under its body.

    Merge lines are spaced ("·d is c on t ent") when every one fits the pane, else compact
    ("·discontent" in alternating colours); a line still too long wraps.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(show_cursor=False, **kwargs)
        self.lines: list[tuple[Text, Text, Text]] = []
        self.rows: list[Text] = []
        self.row_line: list[int] = []  # row -> the trace line it belongs to (0: the head)
        self._width = 0

    def render_row(self, index: int):
        return self.rows[index] if index < len(self.rows) else Text("")

    def set_lines(self, lines: list[tuple[Text, Text, Text]]) -> None:
        self.lines = lines
        self._wrap()

    def _wrap(self) -> None:
        self._width = width = self.size.width or 40
        spaced = all(head.cell_len + body.cell_len < width for head, body, _ in self.lines[1:])
        rows = []
        self.row_line = []
        for n, (head, body, compact) in enumerate(self.lines):
            body = body if spaced else compact
            indent = head.cell_len
            parts = body.wrap(self.app.console, max(8, width - indent - 1), no_wrap=False, overflow="fold")
            for i, part in enumerate(parts or [Text("")]):
                row = head.copy() if i == 0 else Text(" " * indent, end="")
                row.append_text(part)
                row.end = ""
                rows.append(row)
                self.row_line.append(n)
        self.rows = rows
        self.set_count(len(rows))

    def on_resize(self, event: events.Resize) -> None:
        if self.size.width != self._width:
            self._wrap()
        super().on_resize(event)


class EncodePane(Vertical):
    BORDER_TITLE = "Encode"

    BINDINGS = bindings_for("encode")

    def __init__(self, count_pairs: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        #: Count the text's adjacent token pairs too (for the inspect screen's pair table).
        self.count_pairs = count_pairs
        self.session: Session | None = None
        self.ids: list[int] = []
        self.pieces: list[tuple[int, object]] = []
        self.trace_word: str | None = None
        self._traced_at: tuple | None = None  # (table, text, cursor) the trace was last looked for at
        self.trace_lines: list[str] = []
        self.summary = ""
        self.seed = 0
        #: What special tokens' text does: recognised, ordinary text, or refused (ctrl+s).
        self.specials: Policy = "recognise"
        #: Bumped by every request to encode; a worker's result is shown only if still current.
        self._generation = 0
        #: The encoding on screen and the table it came from (its chips are laid out again
        #: when the view's width changes).
        self._shown: tuple[Encoding, MergeTable | None] | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="type text to encode…", id="encode-input", compact=True, select_on_focus=False)
        with Horizontal(id="encode-bar"):
            yield Checkbox("dropout", id="dropout", compact=True)
            yield Input("0.1", id="dropout-p", compact=True, restrict=r"[0-9.]*", max_length=5)
            # one line (the trace needs the rows): a narrow pane leaves out whole phrases
            yield Phrases(id="encode-summary", separator=SUMMARY_SEPARATOR, max_lines=1)
        yield EncodeView(id="encode-view")
        yield TraceView(id="encode-trace")

    @property
    def text(self) -> str:
        return self.query_one("#encode-input", Input).value

    @property
    def dropout(self) -> float:
        if not self.query_one("#dropout", Checkbox).value:
            return 0.0
        try:
            p = float(self.query_one("#dropout-p", Input).value or 0)
        except ValueError:
            return 0.0
        return min(max(p, 0.0), 1.0)

    def set_text(self, text: str, dropout: float = 0.0) -> None:
        """Put ``text`` in the box, with BPE-dropout on at ``dropout`` (0: off), and encode it."""
        self.query_one("#encode-input", Input).value = text
        if dropout:
            self.query_one("#dropout-p", Input).value = f"{dropout:g}"
        self.query_one("#dropout", Checkbox).value = bool(dropout)
        self._encode()

    # ------------------------------------------------------------------ encoding

    def update_table(self, session: Session) -> None:
        """The table changed (a step, a cut, a new session): encode again."""
        self.session = session
        self._encode()

    def _encode(self) -> None:
        """Encode the box's text: inline when short, in a thread worker when long."""
        self._generation += 1
        session = self.session
        table = session.table() if session is not None else None
        if table is None:
            self._show(self._generation, Encoding(text=self.text), None)
            return
        view = self.query_one(EncodeView)
        args = (table, self.text, self.dropout, self.seed, view.chip_width, self.count_pairs, view.chip_styles, self.specials)
        if len(self.text) > LONG_TEXT:
            self.query_one("#encode-summary", Phrases).show_phrases([(f"encoding {plural(len(self.text), 'character')}…", "", KEEP)])
            self._encode_in_worker(self._generation, args)
        else:
            self.workers.cancel_group(self, "encode")
            self._show(self._generation, encode_text(*args), table)

    @work(thread=True, exclusive=True, group="encode", exit_on_error=False)
    def _encode_in_worker(self, generation: int, args: tuple) -> None:
        result = encode_text(*args)
        if generation == self._generation:
            self.app.call_from_thread(self._show, generation, result, args[0])

    def _show(self, generation: int, result: Encoding, table: MergeTable | None) -> None:
        """Put an encoding on screen (unless a newer request has replaced it)."""
        if generation != self._generation:
            return
        self._shown = (result, table)
        self.pieces = result.pieces
        self.ids = [i for i, _ in result.pieces]
        self.query_one(EncodeView).set_lines(result.chip_lines)
        self._share_rows()
        self.summary = result.summary
        phrases = self.summary.split(SUMMARY_SEPARATOR) if self.summary else []
        self.query_one("#encode-summary", Phrases).show_phrases([(p, "", KEEP if i == 0 else USEFUL) for i, p in enumerate(phrases)])
        title = self._title(table, result.context)
        if self.border_title != title:  # (setting it repaints the pane, on every step of a run)
            self.border_title = title
        self.trace_word = None
        self._trace(table)
        if table is not None:
            self.post_message(EncodeChanged(result.text, result.pairs))

    def _title(self, table: MergeTable | None, context: str) -> str:
        """``Encode``, then what special tokens' text does (for a table that has some) and where
        the text stands against the model's context window (CLIP's); the policy gives way
        first, while it is the default, when the pane is too narrow for both."""
        specials = f"specials: {self.specials}" if table is not None and table.special_tokens else ""
        phrases = [p for p in (self.BORDER_TITLE, specials, context) if p]
        title = " · ".join(phrases)
        if specials and context and self.specials == POLICIES[0] and cell_len(title) > self.size.width - 4:
            title = f"{self.BORDER_TITLE} · {context}"
        return title

    def _trace(self, table: MergeTable | None) -> None:
        """Trace the word under the cursor (again if it changed). The place looked at is
        remembered: typing moves the cursor right after the text changed, and the word there
        was found a moment ago (finding it takes a few milliseconds in a long text)."""
        text = self.text
        cursor = self.query_one("#encode-input", Input).cursor_position
        if self.trace_word is not None and self._traced_at == (table, text, cursor) and self.trace_lines:
            return
        self._traced_at = (table, text, cursor)
        word = word_at(table, text, cursor) if table is not None and text else None
        if word == self.trace_word and self.trace_lines:
            return
        self.trace_word = word
        pending = self.session.merges_note() if self.session is not None else None
        lines = trace_lines(table, word, self.query_one(TraceView).chip_styles, pending) if table is not None and word is not None else []
        self.trace_lines = [head.plain + body.plain for head, body, _ in lines]
        self.query_one(TraceView).set_lines(lines)
        self._share_rows()

    def _share_rows(self) -> None:
        """The chips take the rows they need, up to what the trace leaves: the trace keeps
        its rows (at least TRACE_ROWS), the chips at least CHIP_ROWS (beyond, they scroll).
        A long text's chips no longer stop at two lines above empty rows."""
        free = self.content_size.height - 2  # (the text box and the bar above the chips)
        trace = len(self.query_one(TraceView).rows)
        most = max(CHIP_ROWS, free - max(TRACE_ROWS, trace))
        most -= most % 2  # (a line of chips goes with its line of ids)
        view = self.query_one(EncodeView)
        if view.styles.max_height is None or view.styles.max_height.value != most:
            view.styles.max_height = most

    # ------------------------------------------------------------------ events

    @on(Input.Changed, "#encode-input, #dropout-p")
    @on(Checkbox.Changed, "#dropout")
    def _settings_changed(self, event: Input.Changed | Checkbox.Changed) -> None:
        event.stop()
        self._encode()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter: show the longest token of the word under the cursor in the token detail."""
        event.stop()
        session = self.session
        table = session.table() if session is not None else None
        if table is None or not self.text:
            return
        word = word_at(table, self.text, self.query_one("#encode-input", Input).cursor_position)
        if word is None:
            return
        ids = [i for i in table.encode(word) if i != UNK_ID]
        if ids:
            self.post_message(TokenSelected(max(ids, key=lambda i: len(table.surface(i))), show=True))

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._share_rows)  # (after the trace has wrapped for the new width)

    def on_mount(self) -> None:
        self.watch(self.query_one("#encode-input", Input), "selection", self._cursor_moved, init=False)
        redraw_on_theme_change(self, self._theme_changed)

    def show_merges_state(self) -> None:
        """The merge list's build moved on (or ended): trace the word again."""
        session = self.session
        table = session.table() if session is not None else None
        if table is not None and self.text:
            self.trace_word = None
            self._trace(table)

    def _theme_changed(self) -> None:
        """The chips were drawn in the old theme's colours: encode (and trace) again."""
        self.trace_word = None
        self._encode()

    def _cursor_moved(self, _selection) -> None:
        # the trace follows the word under the cursor
        session = self.session
        table = session.table() if session is not None else None
        if table is not None and self.text:
            self._trace(table)

    def on_encode_view_width_changed(self, event: EncodeView.WidthChanged) -> None:
        """A chip never runs past the edge: the chips are laid out again for the new width
        (a long text, or a refusal's sentence, is encoded again)."""
        event.stop()
        shown = self._shown
        if shown is None:
            return
        result, table = shown
        if result.summary == "refused" or len(result.text) > LONG_TEXT:
            self._encode()
        elif table is not None and result.pieces:
            view = self.query_one(EncodeView)
            result.chip_lines = chip_lines(result.pieces, table.end_of_word, view.chip_width, view.chip_styles)
            view.set_lines(result.chip_lines)
            self._share_rows()

    def on_virtual_list_chip_clicked(self, event: VirtualList.ChipClicked) -> None:
        event.stop()
        if event.payload is not None and event.payload != UNK_ID:
            self.post_message(TokenSelected(event.payload, show=True))

    def action_resample(self) -> None:
        self.seed += 1
        self._encode()

    def action_cycle_specials(self) -> None:
        """Special tokens' text: recognised → ordinary text → refused → recognised."""
        self.specials = POLICIES[(POLICIES.index(self.specials) + 1) % len(POLICIES)]
        self._encode()

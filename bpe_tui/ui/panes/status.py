"""The status line: what is loaded, which rules, where training stands.

The facts are phrases ("step 10/744", "vocab 266") joined by " │ ". A phrase may have shorter
forms ("tokens 911,120 (step 0: 1,115,394)", "tokens 911,120", left out); when the facts do not
fit, the least important phrase takes its next shorter form, one at a time (see
:func:`lay_out`). A line of facts wraps only between phrases, never inside one, onto at most
``max_lines`` lines. :class:`Phrases` is that rule as a widget, for any line of facts (the
encode summary, the compare view's table sizes); :class:`StatusLine` is one that never wraps:
one line at any width, the step and the vocabulary always on it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widgets import Static

from ...core.engine.registry import own_variant
from ...core.tables.context import context_of
from ...core.tables.summary import short_pretokenizer
from ...core.wording import plural
from ..session.sessions import ExploreSession, InspectSession
from ..session.snapshot import Snapshot
from ..widgets.render import CHIP_CLASSES, fit, fmt_int, redraw_on_theme_change

SEPARATOR = " │ "
MAX_LINES = 2
#: How readily a phrase is shortened or left out when the line is short of room (higher: sooner).
KEEP, USEFUL, DETAIL = 0, 1, 2

#: A phrase: its text, or its forms longest first ("" last: it may be left out); its style;
#: its priority (KEEP, USEFUL or DETAIL).
Phrase = tuple["str | Sequence[str]", str, int]


def forms_of(value: str | Sequence[str]) -> tuple[str, ...]:
    """A phrase's forms, longest first. A plain string may be left out; a tuple says itself
    whether it may (an empty string last) or not."""
    return (value, "") if isinstance(value, str) else tuple(value)


def cut_forms(value: str, widths: Sequence[int] = (24, 16, 10)) -> tuple[str, ...]:
    """``value`` and, for each of ``widths`` narrower than it, ``value`` cut to that many
    cells with "…", then left out: a name that gives up room before it goes."""
    full = Text(value).cell_len
    return (value, *(fit(Text(value), w).plain for w in widths if w < full), "")


def lay_out(
    parts: Sequence[Phrase],
    width: int,
    max_lines: int = MAX_LINES,
    style_of: Callable[[str], Style | str] = lambda style: style,
    separator: str = SEPARATOR,
) -> Text:
    """Phrases ``(text or forms, style, priority)`` as at most ``max_lines`` lines of
    ``width`` cells.

    ``style_of`` turns a phrase's style name into the style drawn (the status line's reads
    the theme's colours, e.g. ``"chip--name"``).

    Lines break only between phrases. While the phrases do not fit, the one with the highest
    priority number (the last of them on a tie) takes its next shorter form (see
    :func:`forms_of`; the last phrase shown is never left out); when none can, the last line
    takes the phrases left and is cut with an ellipsis (so is a line wider than ``width``).
    """
    forms = [forms_of(value) for value, _, _ in parts]
    chosen = [0] * len(parts)
    while True:
        shown = [(forms[i][chosen[i]], parts[i][1]) for i in range(len(parts)) if forms[i][chosen[i]]]
        lines = _wrap(shown, width, separator)
        if len(lines) <= max_lines:
            break
        shorter = [
            i
            for i in range(len(parts))
            if chosen[i] + 1 < len(forms[i]) and (forms[i][chosen[i] + 1] or len(shown) > 1)
        ]
        if not shorter:
            break
        chosen[max(shorter, key=lambda i: (parts[i][2], i))] += 1
    if len(lines) > max_lines:  # nothing gives way any more: the last line holds the rest, cut
        lines[max_lines - 1 :] = [[phrase for line in lines[max_lines - 1 :] for phrase in line]]
    text = Text(end="")
    for n, line in enumerate(lines[:max_lines]):
        if n:
            text.append("\n")
        row = Text(end="")
        for i, (value, style) in enumerate(line):
            if i:
                row.append(separator, "dim")
            row.append(value, style_of(style))
        text.append_text(fit(row, width))
    return text


def _wrap(phrases: list[tuple[str, str]], width: int, separator: str) -> list[list[tuple[str, str]]]:
    """The phrases in lines of at most ``width`` cells, broken only between phrases."""
    lines: list[list[tuple[str, str]]] = [[]]
    used = 0
    for phrase in phrases:
        w = Text(phrase[0]).cell_len
        if lines[-1] and used + len(separator) + w > width:
            lines.append([])
            used = 0
        used += (len(separator) if lines[-1] else 0) + w
        lines[-1].append(phrase)
    return lines


def _height(line: Text) -> int:
    """The rows a laid-out line of phrases takes (none when it is empty)."""
    return line.plain.count("\n") + 1 if line.plain else 0
def training_phrases(session: ExploreSession, snap: Snapshot, play_rate: float | None = None, note: str = "") -> list[Phrase]:
    """The status line's phrases for a trainer as of ``snap``: corpus, rules, step/target,
    vocabulary, tokens (what :class:`StatusLine` lays out; docs/explorer.md shows at which
    widths each gives way, computed from these)."""
    parts: list[Phrase] = []
    parts.append((cut_forms(session.shown_name), "chip--name", KEEP))
    rules = session.trainer.config.describe()  # units · pre-tokenizer · tie-break · the rest
    shorter = (" · ".join(rules.split(" · ")[:3]), " · ".join(rules.split(" · ")[1:3]), "")
    parts.append(((rules, *dict.fromkeys(f for f in shorter if f != rules)), "", DETAIL))
    own = own_variant(session.trainer.variant)  # a variant from elsewhere: named, as long as room allows
    if own is not None:
        parts.append(((f"variant {own[0]}", f"variant {own[1]}"), "chip--name", KEEP))
    target = f"/{fmt_int(snap.target)}" if snap.target is not None else ""
    parts.append(((f"step {fmt_int(snap.step)}{target}",), "bold", KEEP))
    parts.append(((f"vocab {fmt_int(snap.vocab_size)}",), "", KEEP))
    tokens = f"tokens {fmt_int(snap.total_tokens)}"
    parts.append(((f"{tokens} (step {fmt_int(session.first_step)}: {fmt_int(snap.initial_tokens)})", tokens, ""), "", DETAIL))
    cpt = snap.corpus_chars / snap.total_tokens if snap.total_tokens else 0.0
    parts.append((f"{cpt:.2f} chars/token", "", USEFUL))
    if snap.finished:
        parts.append((("done: " + (snap.stop_reason or "target reached"), "done"), "chip--note", KEEP))
    if play_rate:
        parts.append(((f"▶ playing {play_rate:g}/s", f"▶ {play_rate:g}/s"), "bold chip--good", KEEP))
    if note:
        parts.append((note, "italic", USEFUL))
    return parts


class Phrases(Static):
    """Phrases on one or two lines, wrapped only between phrases (:func:`lay_out`), laid out
    again when the width changes: a line of facts that never breaks inside a fact.

    A phrase's style is a rich style string whose words may name a chip class (``"bold
    chip--good"``): its colour comes from the theme (chips.tcss), so a theme change re-lays
    the line out in the new colours.
    """

    COMPONENT_CLASSES = CHIP_CLASSES

    def __init__(self, content: str = "", separator: str = SEPARATOR, max_lines: int = MAX_LINES, **kwargs) -> None:
        super().__init__(content, markup=False, **kwargs)
        self.separator = separator
        self.max_lines = max_lines
        self.text = ""
        self.parts: list[Phrase] = []
        self.line = Text(end="")

    def show_phrases(self, parts: list[Phrase]) -> None:
        """Show ``parts``: (text or forms, style, priority: KEEP, USEFUL or DETAIL)."""
        self._set(parts)

    def _set(self, parts: list[Phrase]) -> None:
        self.parts = parts
        #: Every phrase in full (what the line says when there is room).
        self.text = self.separator.join(forms_of(value)[0] for value, _, _ in self.parts)
        self._lay_out()

    def _lay_out(self) -> None:
        width = self.size.width or self.app.size.width // 2
        before = self.line
        self.line = lay_out(self.parts, max(10, width), self.max_lines, self._style, self.separator)  # as drawn
        # Only a new height needs the screen laid out again (the width is the container's): a
        # layout on every keystroke in the encode box, for its summary, took half its frame.
        self.update(self.line, layout=_height(self.line) != _height(before))

    def _style(self, style: str) -> Style:
        """A phrase's style string, its chip class names read from the theme."""
        return Style.combine(
            [Style.null()]
            + [self.get_component_rich_style(word, partial=True) if word.startswith("chip--") else Style.parse(word) for word in style.split()]
        )

    def on_mount(self) -> None:
        # the line was drawn in the old theme's colours: lay it out again
        redraw_on_theme_change(self, self._lay_out)

    def on_resize(self, event: events.Resize) -> None:
        # After the resize is done: a layout asked for while one runs is lost, and the line
        # count (the height) may change with the width.
        self.call_after_refresh(self._lay_out)


class StatusLine(Phrases):
    """The facts of what is open, on one line at any width; rebuilt from each snapshot.

    When they do not fit, they give up room in this order (each phrase through all its forms
    before the next): the corpus tokens ("tokens 911,120 (step 0: 1,115,394)", then "tokens
    911,120", then left out), the rules (all of them, then units · pre-tokenizer · tie-break,
    then pre-tokenizer · tie-break, then left out), characters per token, then auto-play's and the finish's long forms, and
    last the name (cut to 24, 16, 10 cells, then left out). The step and the vocabulary are
    never left out (a saved table's size and merge count likewise).
    """

    def __init__(self, **kwargs) -> None:
        super().__init__("loading…", max_lines=1, **kwargs)

    def show_nothing(self, note: str = "") -> None:
        """Nothing is open yet (``note``: why, e.g. a load failed)."""
        self._set([(note or "no corpus loaded — press o to open a corpus or a table", "bold", KEEP)])

    def show_training(self, session: ExploreSession, snap: Snapshot, play_rate: float | None = None, note: str = "") -> None:
        """A trainer as of ``snap``: corpus, rules, step/target, vocabulary, tokens."""
        self._set(training_phrases(session, snap, play_rate, note))

    def show_table(self, session: InspectSession, note: str = "") -> None:
        """A saved table: format, size, rules, and the cut if one is set."""
        d = session.full_table.describe(build=False)  # a rank file's merge list may be building
        parts: list[Phrase] = []
        parts.append((cut_forms(session.shown_name), "chip--name", KEEP))
        parts.append(((f"format {d['format']}", d["format"], ""), "", USEFUL))
        parts.append(((plural(d["vocab_size"], "token"),), "", KEEP))
        if d["merges"] is None:
            parts.append(((session.build.short(),), "chip--note", KEEP))
        else:
            parts.append(((plural(d["merges"], "merge"),), "", KEEP))
        rules = [d["units"], short_pretokenizer(d["pretokenizer"])]
        basic = " · ".join(rules)
        if d.get("tie_break"):
            rules.append(d["tie_break"])
        if d.get("end_of_word"):
            rules.append(f"eow {d['end_of_word']}")
        if d.get("lowercase"):
            rules.append("lowercase")
        if d.get("prefix_space"):
            rules.append(f"prefix space ({d['prefix_space']})")
        if d.get("special_tokens"):
            rules.append(f"{len(d['special_tokens']):,} special")
        context = context_of(session.full_table)
        if context is not None:
            rules.append(f"{context.length}-token context")
        full = " · ".join(rules)
        parts.append(((full, basic, "") if basic != full else (full, ""), "", DETAIL))
        if session.cut is not None:
            parts.append(((f"encoding with the first {plural(session.cut, 'merge')}", f"cut at merge {session.cut:,}"), "bold chip--note", KEEP))
        if note:
            parts.append((note, "italic", USEFUL))
        self._set(parts)

    def _lay_out(self) -> None:
        width = (self.size.width or self.app.size.width) - 2  # the padding
        self.line = lay_out(self.parts, max(10, width), max_lines=self.max_lines, style_of=self._style)  # as drawn
        self.update(self.line)

"""Every key of the explorer in one table: the bindings, the footer, the help screen and the
command palette are all built from :data:`COMMANDS`, so they cannot disagree.

A :class:`Command` says what an action does (for the help and the palette), which keys run
it, whether the footer shows it, and *where* it lives: on every screen, views included
(``SCREEN``), on every main screen and view but no dialog (``KEYED``: the help), on every
main screen (``MAIN``), on
both session screens (``SESSION``), only on the explore screen (``EXPLORE``, it needs a trainer) or the inspect screen
(``INSPECT``, it needs a saved table), on the explore screen while the guided tour is open
(``TOUR``), or on one pane (``"corpus"``, ``"encode"``: the
pane's own BINDINGS, active while the pane has the focus). The help lists the keys of the
screen it is opened on, and nothing else. A command without an action is
a key Textual or a pane handles by itself (enter, tab), listed so the help is complete.

To add a key: add one row here and an ``action_<name>`` method where it lives (the screen
in :mod:`~bpe_tui.ui.screens`, or the pane). The actions/bindings split follows harlequin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.keys import key_to_character

#: Where a command lives.
MAIN = "main"  # every main screen, also the start screen shown before anything is open
SESSION = "session"  # both session screens
EXPLORE = "explore"  # the explore screen (a trainer)
INSPECT = "inspect"  # the inspect screen (a saved table)
TOUR = "tour"  # the explore screen while the guided tour is open (ui/tour.py)
SCREEN = "screen"  # every screen: the main screens and the views over them
KEYED = "keyed"  # the screens with a help of their own: the main screens and the views
GLOBAL = "global"  # the App itself (Textual's own keys: palette, quit)

#: How a Textual key name is written for a person.
KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "plus": "+",
    "equals_sign": "=",
    "minus": "-",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "comma": ",",
    "vertical_line": "|",
}


@dataclass(frozen=True)
class Command:
    """One thing a key does."""

    #: Textual key names, comma-separated ("space,n"); the first is the one the footer shows.
    keys: str
    #: What it does, for the help screen and (capitalised) the command palette.
    description: str
    #: The action run (may carry arguments: "step(10)"); None: handled by Textual or a pane itself.
    action: str | None = None
    #: The footer's short label; "" keeps it out of the footer.
    footer: str = ""
    #: Where it lives: one of PLACES (SCREEN, KEYED, MAIN, SESSION, EXPLORE, INSPECT, TOUR,
    #: GLOBAL, a view) or a pane's id.
    where: str = SESSION
    #: Offered in the command palette (when it has an action).
    palette: bool = True
    #: Rows with the same group share one label in the footer ("1 2 3 4 Answer").
    group: str = ""
    #: Checked before the focused widget sees the key (Textual's priority binding): for a key
    #: that must act at once even while the screen is busy (escape cancelling a run). The
    #: action raises SkipAction when it has nothing to do, so the key goes on as usual.
    priority: bool = False
    #: A pane's id: the footer shows the key only while the focus is inside that pane (the key
    #: works all over its screen); for a key that acts on what the pane has selected.
    footer_within: str = ""

    @property
    def shown_keys(self) -> str:
        """The keys as the help and the palette write them: "space / n"."""
        return " / ".join(KEY_NAMES.get(k, k) for k in self.keys.split(","))

    @property
    def title(self) -> str:
        """The command palette's title: the description, capitalised."""
        return self.description[0].upper() + self.description[1:]

    def binding(self) -> Binding:
        assert self.action is not None
        group = Binding.Group(self.group, compact=True) if self.group else None
        return Binding(
            self.keys, self.action, self.footer or self.title, show=bool(self.footer), group=group, priority=self.priority
        )


# The order is the footer's (it cuts what does not fit 80 columns: help first) and the help's.
COMMANDS: list[Command] = [
    Command("question_mark,f1", "this help (f1 also inside a text box)", "app.help", "Help", KEYED),
    # The tour's keys (ui/tour.py) are on only while the tour is open, so they come first in its footer.
    Command("right_square_bracket", "tour: next stop", "tour('next')", "Next", TOUR, palette=False),
    Command("left_square_bracket", "tour: previous stop", "tour('back')", "Back", TOUR, palette=False),
    Command("q", "tour: leave the tour", "tour('leave')", "Leave", TOUR, palette=False),
    # 1-4 answer a numbered question while one is open; otherwise 1-3 show the tabs (below).
    *(
        Command(str(n), "tour: answer a numbered question (a pair question: enter in the pair table)", f"answer({n})", "Answer", TOUR, palette=False, group="Answer")
        for n in range(1, 5)
    ),
    Command("space,n", "one merge step", "step", "Step", EXPLORE),
    Command("N", "ten merge steps", "step(10)", where=EXPLORE),
    Command("ctrl+n", "a hundred merge steps", "step(100)", where=EXPLORE),
    Command("r", "run to the target with a progress bar (escape cancels, keeps what was done)", "run", "Run", EXPLORE),
    Command("b,backspace", "undo one merge (backspace: outside text boxes)", "undo", "Undo", EXPLORE),
    Command("g", "go to step k (inspect: cut the table at merge k)", "goto", "Go to"),
    Command("w", "inspect: encode with the whole table again", "whole_table", "Whole table", INSPECT),
    Command("M", "inspect: build a rank file's merge list (after escape stopped it)", "build_merges", where=INSPECT),
    Command("comma", "switch the training rules (tie-break, min frequency, lowercase, pre-tokenizer, constraints) and retrain", "settings", where=EXPLORE),
    Command("s", "save the merge table (choose the format; asks before overwriting)", "save", "Save"),
    Command("o", "open a corpus or a merge table", "open", "Open", MAIN),
    Command("z", "maximize the pane that has the focus, or restore it (escape restores it too)", "maximize_pane", "Zoom"),
    # (after zoom: at 80 columns the footer has room up to zoom)
    Command("m", "pairs: merge the selected pair by hand instead of the leader", "merge_selected", "Merge", EXPLORE, footer_within="pairs"),
    Command("c", "compare the current table with another table on the same text", "compare", "Compare"),
    Command("a", "audit the table: unreachable, partial UTF-8, scaffold, unused tokens (own screen)", "audit"),
    Command("v", "evaluate the table on the parallel text set: bars per language, curves over merges", "evaluate"),
    Command("slash", "find a token by text or id", "find", "Find"),
    Command("e", "type in the encode box (escape leaves it)", "focus_encode"),
    Command("p", "auto-play on / off", "play", "Play", EXPLORE),
    Command("plus,equals_sign", "faster auto-play", "faster", where=EXPLORE),
    Command("minus", "slower auto-play", "slower", where=EXPLORE),
    Command("1", "show the history tab", "show_tab('history')"),
    Command("2", "show the stats tab", "show_tab('stats')"),
    Command("3", "show the token tab", "show_tab('token')"),
    Command("L", "the guided tour of BPE on the worked examples (bpe-tui learn)", "learn", where=MAIN),
    Command("t", "corpus pane: words ↔ running text", "toggle_text", where=EXPLORE),
    Command("x", "corpus pane: clear the word and pair filters", "clear_filters", where=EXPLORE),
    Command("u", "a character cut between tokens: drawn once, underlined, or as each token's bytes (<0xE0><0xA4>)", "app.show_bytes", where=SCREEN),
    Command("vertical_line", "corpus pane: show token boundaries as | between chips (on by default under NO_COLOR)", "boundaries", where=EXPLORE),
    Command("ctrl+r", "encode box: resample BPE-dropout", "resample", where="encode"),
    Command("ctrl+s", "encode box: special tokens recognised, encoded as ordinary text, or refused (cycles; the title says which)", "cycle_specials", "Specials", "encode"),
    Command("enter", "history: go to that step · pairs: filter the corpus · corpus/encode: token detail"),
    Command("tab,shift+tab", "move between panes and boxes"),
    Command("escape", "cancel a run, stop auto-play, leave a text box", "cancel", where=MAIN, palette=False, priority=True),
    Command("ctrl+p", "command palette", where=GLOBAL),
    Command("ctrl+q", "quit", where=GLOBAL),
    # the views pushed over a main screen (each screen's KIND)
    Command("escape", "back to the explorer", "close", "Back", "compare"),
    Command("ctrl+o", "compare with another table B", "other", "Another B", "compare"),
    Command("ctrl+t", "swap tables A and B", "swap", "Swap A/B", "compare"),
    Command("escape", "cancel the audit, or go back", "close", "Back / cancel", "audit", palette=False),
    Command("ctrl+o", "audit on a corpus (a text file or directory)", "corpus", "Audit on a corpus", "audit"),
    Command("escape", "cancel the evaluation, or go back", "close", "Back / cancel", "evaluate", palette=False),
    Command("left", "the previous metric", "metric(-1)", "Metric ←", "evaluate"),
    Command("right", "the next metric", "metric(1)", "Metric →", "evaluate"),
    Command("ctrl+o", "evaluate on another corpus", "corpus", "Another corpus", "evaluate"),
    Command("l", "a variant's own languages, or every shipped one", "languages", where="evaluate"),
    # every screen, last in its footer
    Command("P", "save a picture of the screen (SVG, beside the corpus or the table)", "app.picture", "Picture", SCREEN),
]

_FOOTER_WITHIN = {c.action: c.footer_within for c in COMMANDS if c.action and c.footer_within}

#: The views a main screen pushes (their help lists their own keys and the screen's).
VIEWS = ("compare", "audit", "evaluate")
#: Every place that is a screen (the rest are panes, named by their id).
PLACES = (MAIN, SESSION, EXPLORE, INSPECT, TOUR, GLOBAL, SCREEN, KEYED, *VIEWS)

PANES = [
    ("status line", "corpus, rules, step/target, vocabulary, corpus tokens now vs step 0, chars/token: one line, the least important shortened or left out first"),
    ("corpus", "words by frequency as token chips (● = touched by the last merge); filter box; text view"),
    ("pairs", "top pairs: rank, left, right, count, ties (=), change since the step the title names (▲▼ new); ▶ merges next; why the last merge won (tab opens it whole); inspect: the encode text's pairs, the table's summary until you type"),
    ("history", "every merge as a table: ● here, number, = a tie decided it, h chosen by hand, x dropped at the transition, · undone (enter re-applies), ⁀ spans a space, count; the line below says why"),
    ("stats", "charts: characters per token and vocabulary over merges, merge counts, pairs occurring k times (log-log); inspect: token lengths; watch words become one token"),
    ("token", "the selected token: id, rank, merge tree down to base units"),
    ("encode", "live tokens with ids, count, chars/token, unknowns in red, trace of the word at the cursor"),
    ("compare (c)", "two tables side by side on an editable text: tokens, chars/token, differing spans highlighted"),
    ("audit (a)", "categories of odd tokens with counts (and as bars); the tokens, notes, merge trees, lengths and uses of each"),
    ("evaluate (v)", "bytes/token, fertility, premium ... per language as bars; curves over merges with a legend"),
    ("zoom (z)", "the focused pane fills the screen under the status line; z or escape brings the layout back"),
    ("mouse", "click tokens, rows, tabs, check boxes; double-click a history row to go there"),
]


def commands_for(where: str) -> list[Command]:
    """The commands with an action that live on ``where``: a pane id, or a screen kind (the
    start screen: MAIN; the explore and inspect screens: EXPLORE or INSPECT, with MAIN and
    SESSION)."""
    return [c for c in COMMANDS if c.action is not None and c.where in _places(where)]


def _places(where: str, tour: bool = True) -> set[str]:
    """The places whose keys work on ``where`` (the tour's: on the explore screen, while the
    tour is open)."""
    places = {where, SCREEN}
    if where in (MAIN, SESSION, EXPLORE, INSPECT, *VIEWS):
        places.add(KEYED)
    if where in (MAIN, SESSION, EXPLORE, INSPECT):
        places.add(MAIN)
    if where in (EXPLORE, INSPECT):
        places.add(SESSION)
    if where == EXPLORE and tour:
        places.add(TOUR)
    return places


def typed_in_text_box(key: str) -> bool:
    """True for a key a text box types (a printable character): inside a text box it types,
    so it is no shortcut there. (Textual's own test misses some names: slash, plus, minus.)"""
    character = KEY_NAMES.get(key) or key_to_character(key)
    return character is not None and len(character) == 1 and character.isprintable()


def untyped(bindings: dict[str, Any], focused: Any) -> dict[str, Any]:
    """A screen's active bindings without the keys the focused text box types (``?`` types
    there, f1 still opens the help): what its footer shows."""
    from textual.widgets import Input

    if isinstance(focused, Input):
        return {key: b for key, b in bindings.items() if not typed_in_text_box(key)}
    return bindings


def key_for(action: str) -> str:
    """The keys of ``action`` as a person reads them ("M"), for a sentence that names them."""
    return next(c.shown_keys for c in COMMANDS if c.action == action)


def footer_within(action: str) -> str:
    """The pane whose focus shows ``action``'s key in the footer ("": any focus)."""
    return _FOOTER_WITHIN.get(action, "")


def bindings_for(where: str) -> list[BindingType]:
    """The BINDINGS of a screen kind or a pane, in the footer's order."""
    return [c.binding() for c in commands_for(where)]


def palette_commands(screen: Any) -> Iterator[SystemCommand]:
    """The command palette's entries on ``screen``: its KIND's commands, then those of its
    panes (a pane's command runs on the pane, as its key would)."""
    kind = getattr(screen, "KIND", None)
    if kind is None:
        return
    for command in commands_for(kind):
        if command.palette:
            yield SystemCommand(command.title, f"key: {command.shown_keys}", _runner(screen, command.action))
    for command in COMMANDS:
        if command.palette and command.action and command.where not in PLACES:
            for pane in screen.query(f"#{command.where}"):
                yield SystemCommand(command.title, f"key: {command.shown_keys}", _runner(pane, command.action))


def _runner(node: Any, action: str | None) -> Callable[[], Any]:
    return lambda: node.run_action(action)


def panes_for(kind: str) -> list[tuple[str, str]]:
    """What the help says each pane shows on a screen of ``kind`` (a view: the view's row)."""
    if kind in VIEWS:
        return [row for row in PANES if row[0].startswith(f"{kind} (")]
    return PANES


def help_rows(kind: str, tour: bool = False) -> list[tuple[str, str]]:
    """(keys, what they do) for the help screen on a screen of ``kind``: its keys, those of
    its panes and those Textual handles (enter, tab), in the registry's order; the tour's
    keys only while the ``tour`` is open."""
    places = _places(kind, tour) | {GLOBAL}
    if kind not in VIEWS:  # (a view has no panes of the explorer)
        places |= {c.where for c in COMMANDS if c.where not in PLACES}
    rows: list[tuple[str, str]] = []
    last_group = ""
    for c in COMMANDS:
        if c.where not in places:
            continue
        if c.group and c.group == last_group:  # a group is one row: "1 / 2 / 3 / 4"
            rows[-1] = (f"{rows[-1][0]} / {c.shown_keys}", c.description)
        else:
            rows.append((c.shown_keys, c.description))
        last_group = c.group
    return rows

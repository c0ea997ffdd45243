"""What the explorer's keys do, and what its panes show: the help screen and the command
palette are both built from these lists, so they cannot disagree with each other."""

from __future__ import annotations

#: Actions that need a trainer (explore mode) and actions that need an opened table (inspect).
TRAIN_ACTIONS = {"step", "run", "undo", "play", "faster", "slower", "merge_selected", "settings", "boundaries"}
INSPECT_ACTIONS = {"whole_table"}

#: (keys, what they do, action) -- the help screen and the command palette are built from this.
KEYS: list[tuple[str, str, str | None]] = [
    ("space / n", "one merge step", "step"),
    ("N", "ten merge steps", "step(10)"),
    ("ctrl+n", "a hundred merge steps", "step(100)"),
    ("r", "run to the target with a progress bar (escape cancels, keeps what was done)", "run"),
    ("m", "pairs: merge the selected pair by hand instead of the leader", "merge_selected"),
    ("b / backspace", "undo one merge (backspace: outside text boxes)", "undo"),
    ("g", "go to step k (inspect: cut the table at merge k)", "goto"),
    ("w", "inspect: encode with the whole table again", "whole_table"),
    (",", "switch the training rules (tie-break, min frequency, lowercase, pre-tokenizer, constraints) and retrain", "settings"),
    ("s", "save the merge table (choose the format; asks before overwriting)", "save"),
    ("o", "open a corpus or a merge table", "open"),
    ("c", "compare the current table with another table on the same text", "compare"),
    ("a", "audit the table: unreachable, partial UTF-8, scaffold, unused tokens (own screen)", "audit"),
    ("v", "evaluate the table on the parallel text set: bars per language, curves over merges", "evaluate"),
    ("/", "find a token by text or id", "find"),
    ("e", "type in the encode box (escape leaves it)", "focus_encode"),
    ("p", "auto-play on / off", "play"),
    ("+ / -", "auto-play faster / slower", "faster"),
    ("t", "corpus pane: words ↔ running text", None),
    ("x", "corpus pane: clear the word and pair filters", None),
    ("|", "corpus pane: show token boundaries as | between chips (on by default under NO_COLOR)", "boundaries"),
    ("enter", "history: go to that step · pairs: filter the corpus · corpus/encode: token detail", None),
    ("ctrl+r", "encode box: resample BPE-dropout", None),
    ("tab / shift+tab", "move between panes and boxes", None),
    ("escape", "cancel a run, stop auto-play, leave a text box", "cancel"),
    ("? / f1", "this help (f1 also inside a text box)", "help"),
    ("ctrl+p", "command palette", None),
    ("ctrl+q", "quit", None),
]

PANES = [
    ("status line", "corpus, rules, step/target, vocabulary, corpus tokens now vs step 0, chars/token"),
    ("corpus", "words by frequency as token chips (● = touched by the last merge); filter box; text view"),
    ("pairs", "top pairs: rank, left, right, count, change (▲▼ new), = ties; ▶ merges next; why the last merge won"),
    ("history", "every merge; = a tie decided it, h chosen by hand, · undone (enter re-applies); the line below says why"),
    ("stats", "merge counts (falling), corpus tokens (compression), watch words become one token"),
    ("token", "the selected token: id, rank, merge tree down to base units"),
    ("encode", "live tokens with ids, count, chars/token, unknowns in red, trace of the word at the cursor"),
    ("compare (c)", "two tables side by side on an editable text: tokens, chars/token, differing spans highlighted"),
    ("audit (a)", "categories of odd tokens with counts; the tokens, notes and merge trees of each"),
    ("evaluate (v)", "bytes/token, fertility, premium ... per language as bars; curves over merge steps"),
    ("mouse", "click tokens, rows, tabs, check boxes; double-click a history row to go there"),
]

"""How bpe_tui's values show themselves in a Python session: a short plain ``repr`` for the
console, and HTML for Jupyter (``_repr_html_``), which needs no Jupyter (nor textual, nor rich).

* :func:`table_html`: a MergeTable: size, units, pre-tokenizer, special tokens, the first and
  last merges (a long table is cut in the middle, as ``bpe-tui inspect`` cuts it);
* :func:`show` -> :class:`Shown` (``bpe_tui.show(table, text)``): a text's tokens as chips, each
  with its id under it; hovering a chip says its id, its merge number (1-based) and its bytes;
* :func:`event_html`: one merge (a MergeEvent) and the trainer's sentence on why it won;
* :func:`trainer_html`: where a Trainer stands, its last merge, and the pairs that merge next;
* :func:`table_repr`, :func:`trainer_repr`, :func:`event_repr`: the one-line reprs.

Everything that comes from a token, a text or a file is escaped (``html.escape``): a token
``<script>`` shows as text. Styles are inline (a notebook viewer may drop ``<style>``), the
colours a fixed palette (this is not the explorer, whose theme decides), and nothing depends on
them: every chip has a border and its id, special tokens a dashed border and ``special``,
unknown characters a dotted one and ``unk``, and the pair that merges next is marked ``▶``.

MergeTable, Trainer and MergeEvent delegate to this module; it imports none of them (they
import it), so it reads them through their public attributes.
"""

from __future__ import annotations

from html import escape
from typing import Any

from .engine.tiebreak import show_pair
from .engine.units import visible
from .tables.summary import describe_pretokenizer, special_items, summary_ranks
from .types import UNK_ID
from .wording import merge_number, plural

#: The chips' backgrounds, by token id (the same token has the same colour wherever it is).
PALETTE = ("#cfe8fc", "#fde2c4", "#d7f5d0", "#f6d3f0", "#fff3b0", "#ddd8fb", "#c9f1ec", "#fbd3d3")

#: At most this many chips are drawn for one text; the rest are counted.
MAX_CHIPS = 1000

#: A chip's hover text gives at most this many bytes.
MAX_TITLE_BYTES = 48

#: How many of the pairs a trainer would merge next are listed.
NEXT_PAIRS = 5

_BOX = "font-family:system-ui,sans-serif;font-size:13px;line-height:1.5;color:inherit"
_CHIP = (
    "display:inline-block;margin:2px 1px;padding:0 4px;border:1px solid #666;border-radius:4px;"
    "color:#111;font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre;text-align:center;vertical-align:top"
)
_NOTE = "display:block;font-size:10px;color:#444;line-height:1.2"
_MUTED = "color:#777"
_CELL = "padding:1px 8px;text-align:left"


def _e(value: object) -> str:
    """Any value as HTML text (quotes too: it may go in an attribute)."""
    return escape(str(value), quote=True)


def chip(label: str, note: str | None = None, title: str | None = None, colour: str = "#eee", border: str = "solid") -> str:
    """One chip: ``label`` in a bordered box, ``note`` (an id) under it, ``title`` on hover."""
    hover = f' title="{_e(title)}"' if title else ""
    under = f'<span style="{_NOTE}">{_e(note)}</span>' if note is not None else ""
    return f'<span{hover} style="{_CHIP};background:{colour};border-style:{border}">{_e(label)}{under}</span>'


def _hex(surface: bytes | str) -> str:
    """A surface's bytes (its UTF-8 for text), ``20 74 68 65``, long ones cut."""
    data = surface if isinstance(surface, bytes) else surface.encode("utf-8")
    shown = " ".join(f"{b:02X}" for b in data[:MAX_TITLE_BYTES])
    return shown + (f" … ({len(data):,} bytes)" if len(data) > MAX_TITLE_BYTES else "")


def _merge_label(table: Any, token_id: int) -> str:
    """``merge 57``, ``base byte``, ``special token``; a rank file whose merge list is not
    built is not built for a hover text (it can take seconds): it says how to build it."""
    if table.is_special(token_id):
        return "special token"
    if not table.merges_built:
        return "merge number: table.build_merges() first"
    rank = table.rank_of(token_id)
    if rank is not None:
        return f"merge {merge_number(rank):,}"
    return "base byte" if table.units == "bytes" else "base symbol"


def token_chip(table: Any, token_id: int, surface: bytes | str) -> str:
    """A token of ``table`` as a chip: readable text, its id under it, and on hover its id,
    merge number and bytes. An unknown character (``UNK_ID``) is a dotted chip saying ``unk``."""
    if token_id == UNK_ID:
        return chip(visible(surface), "unk", f"unknown character {surface!r}: the table has no token for it", "#fff", "dotted")
    title = f"id {token_id} · {_merge_label(table, token_id)} · bytes {_hex(table.surface(token_id))}"
    if table.is_special(token_id):
        return chip(table.display(token_id), f"{token_id} special", title, "#eee", "dashed")
    return chip(table.display(token_id), str(token_id), title, PALETTE[token_id % len(PALETTE)])


def _rows(rows: list[list[str] | str], head: list[str] | None = None) -> str:
    """An HTML table of cells that are HTML already; a row given as one string spans the table."""
    width = max([len(head or [])] + [len(r) for r in rows if isinstance(r, list)])
    out = ['<table style="border-collapse:collapse;margin:4px 0">']
    if head:
        out.append("<tr>" + "".join(f'<th style="{_CELL};{_MUTED};font-weight:normal">{_e(h)}</th>' for h in head) + "</tr>")
    for row in rows:
        if isinstance(row, str):
            out.append(f'<tr><td colspan="{width}" style="{_CELL};{_MUTED}">{row}</td></tr>')
        else:
            out.append("<tr>" + "".join(f'<td style="{_CELL}">{cell}</td>' for cell in row) + "</tr>")
    out.append("</table>")
    return "".join(out)


# ------------------------------------------------------------------ tables


def _table_rules(d: dict[str, Any]) -> str:
    """``bytes · gpt2 · lexical-max``: a table's rules in one phrase (``d``: its describe())."""
    parts = [d["units"], describe_pretokenizer(d["pretokenizer"])]
    if d["tie_break"]:
        parts.append(str(d["tie_break"]))
    if d["end_of_word"]:
        parts.append(f"eow {d['end_of_word']}")
    if d["lowercase"]:
        parts.append("lowercase")
    return " · ".join(parts)


def _table_size(d: dict[str, Any]) -> str:
    """``1,000 tokens, 743 merges`` (``d``: a table's describe())."""
    merges = "merge list not built yet" if d["merges"] is None else plural(d["merges"], "merge")
    return f"{plural(d['vocab_size'], 'token')}, {merges}"


def table_repr(table: Any) -> str:
    """``<MergeTable 1,000 tokens, 743 merges · bytes · gpt2 · lexical-max>`` (and its file)."""
    d = table.describe(build=False)
    source = f" from {d['source']!r} ({d['format']})" if d["source"] else ""
    return f"<MergeTable {_table_size(d)} · {_table_rules(d)}{source}>"


def table_html(table: Any) -> str:
    """A MergeTable: its size and rules, its special tokens and notes, its first and last merges."""
    d = table.describe(build=False)
    name = f" · {_e(d['source'])} ({_e(d['format'])})" if d["source"] else ""
    rows = [
        ["units", _e(d["units"])],
        ["pre-tokenizer", _e(describe_pretokenizer(d["pretokenizer"]))],
    ]
    if d["tie_break"]:
        rows.append(["tie-break", _e(d["tie_break"])])
    if d["end_of_word"]:
        rows.append(["end-of-word marker", chip(visible(d["end_of_word"]))])
    if d["lowercase"]:
        rows.append(["lowercase", "yes"])
    if d["prefix_space"]:
        rows.append(["prefix space", _e(d["prefix_space"])])
    if d["special_tokens"]:
        items = special_items(d["special_tokens"])
        rows.append([_e(plural(len(d["special_tokens"]), "special token")), ", ".join(f"<code>{_e(item)}</code>" for item in items)])
    for note in d["notes"]:
        rows.append(["note", _e(note)])
    out = [f'<div style="{_BOX}"><b>MergeTable</b>{name}: {_e(_table_size(d))}', _rows([[_e(k), v] for k, v in rows])]
    if d["merges"]:
        out.append(_merges_html(table, d["merges"]))
    out.append("</div>")
    return "".join(out)


def _merges_html(table: Any, count: int) -> str:
    """The first and last merges, ``merge N: left + right → new``, each token a chip."""
    first, last = summary_ranks(count)
    counts = table.counts

    def row(rank: int) -> list[str]:
        a, b, new = table.merge_at(rank)
        cells = [f"{merge_number(rank):,}"] + [token_chip(table, t, table.surface(t)) for t in (a, b, new)]
        cells.insert(2, "+")
        cells.insert(4, "→")
        return cells + ([f"{counts[rank]:,}"] if counts else [])

    rows: list[list[str] | str] = [row(r) for r in first]
    if last and last.start > len(first):
        rows.append(f"… {_e(plural(last.start - len(first), 'merge'))} not shown …")
    rows += [row(r) for r in last]
    head = ["merge", "left", "", "right", "", "new token"] + (["count"] if counts else [])
    return _rows(rows, head)


# ------------------------------------------------------------------ a text's tokens


class Shown:
    """A text's tokens under a table (``bpe_tui.show(table, text)``): chips with ids in a
    notebook, one line in a console. ``ids`` and ``tokens`` (readable) hold every token."""

    def __init__(self, table: Any, text: str) -> None:
        self.table = table
        self.text = text
        self.pieces: list[tuple[int, bytes | str]] = table.pieces(text)

    @property
    def ids(self) -> list[int]:
        return [i for i, _ in self.pieces]

    @property
    def tokens(self) -> list[str]:
        """Each token as readable text (whitespace visible, bytes that are part of a
        character as ``<0xNN>``, unknown characters as themselves)."""
        return [visible(s) if i == UNK_ID else str(self.table.display(i)) for i, s in self.pieces]

    def __repr__(self) -> str:
        line = " | ".join(self.tokens)
        return f"<{plural(len(self.pieces), 'token')}: {line if len(line) <= 70 else line[:69] + '…'}>"

    def _repr_html_(self) -> str:
        pieces = self.pieces
        chars = len(self.text)
        rate = f" · {chars / len(pieces):.2f} characters per token" if pieces else ""
        head = f"{plural(len(pieces), 'token')} · {plural(chars, 'character')}{rate} · hover a token for its id, merge and bytes"
        chips = "".join(token_chip(self.table, i, s) for i, s in pieces[:MAX_CHIPS])
        more = ""
        if len(pieces) > MAX_CHIPS:
            more = f'<div style="{_MUTED}">… {_e(plural(len(pieces) - MAX_CHIPS, "more token"))} (.ids has them all)</div>'
        return f'<div style="{_BOX}"><div style="{_MUTED}">{_e(head)}</div><div>{chips}</div>{more}</div>'


def show(table: Any, text: str) -> Shown:
    """``text``'s tokens under ``table``, for a notebook: ``bpe_tui.show(table, "the cat")``
    draws them as chips with their ids (hover: id, merge number, bytes)."""
    return Shown(table, text)


# ------------------------------------------------------------------ merges and trainers


def event_repr(event: Any, end_of_word: str | None = None) -> str:
    """``<MergeEvent merge 12: t + h -> th (id 270), 1,382 times>``, and whether a tie or a hand decided."""
    how = ", chosen by hand" if event.manual else (f", tied with {plural(event.tie_count, 'other pair')}" if event.tie_count else "")
    made = visible(event.new_token, end_of_word)
    return f"<MergeEvent merge {event.step:,}: {show_pair(event.pair, end_of_word)} -> {made} (id {event.new_id}), {plural(event.count, 'time')}{how}>"


def event_html(event: Any, end_of_word: str | None = None) -> str:
    """One merge: its number, the pair and the token it made as chips with ids, how often, and
    the trainer's sentence on why this pair."""
    left, right = (chip(visible(s, end_of_word), str(i), f"id {i} · bytes {_hex(s)}", PALETTE[i % len(PALETTE)]) for s, i in zip(event.pair, event.pair_ids))
    made = chip(visible(event.new_token, end_of_word), str(event.new_id), f"id {event.new_id} · merge {event.step:,} · bytes {_hex(event.new_token)}", PALETTE[event.new_id % len(PALETTE)])
    how = " · chosen by hand" if event.manual else (f" · tied with {_e(plural(event.tie_count, 'other pair'))}" if event.tie_count else "")
    after = f"after it: vocabulary {event.vocab_size:,} · corpus {plural(event.total_tokens, 'token')}"
    return (
        f'<div style="{_BOX}"><b>merge {event.step:,}</b>: {left} + {right} → {made} · {_e(plural(event.count, "time"))}{how}'
        f"<div>{_e(event.explanation)}</div>"
        f'<div style="{_MUTED}">{_e(after)}</div></div>'
    )


def _trainer_status(trainer: Any) -> str:
    """``step 12/744 · vocabulary 268 · 51,183 tokens (step 0: 52,799) · 1.03 characters per token``"""
    target = trainer.target_steps
    step = f"step {trainer.steps_done:,}" + (f"/{target:,}" if target is not None else "")
    tokens = f"{trainer.total_tokens:,} tokens (step {trainer.first_step:,}: {trainer.initial_total_tokens:,})"
    rate = trainer.corpus_chars / trainer.total_tokens if trainer.total_tokens else 0.0
    return f"{step} · vocabulary {trainer.vocab_size:,} · {tokens} · {rate:.2f} characters per token"


def trainer_repr(trainer: Any) -> str:
    """``<Trainer 'demo.txt' step 12/744 · vocabulary 268 · ... · bytes · gpt2 · lexical-max>``"""
    return f"<Trainer {trainer.name!r} {_trainer_status(trainer)} · {trainer.config.describe()}>"


def trainer_html(trainer: Any) -> str:
    """Where a trainer stands (the explorer's status line), its last merge and why, and the
    pairs that would merge next (``▶`` the next one)."""
    eow = trainer.config.end_of_word
    out = [
        f'<div style="{_BOX}"><b>Trainer</b> · {_e(trainer.name)} · {_e(trainer.config.describe())}',
        f"<div>{_e(_trainer_status(trainer))}</div>",
    ]
    if trainer.transition is not None and trainer.in_superword_stage:
        out.append(f'<div style="{_MUTED}">{_e(trainer.transition.explanation)}</div>')
    history = trainer.history
    out.append(f'<div style="margin-top:6px;{_MUTED}">last merge</div>')
    out.append(event_html(history[-1], eow) if history else f'<div style="{_MUTED}">no merges yet</div>')
    if trainer.finished:
        out.append(f'<div style="margin-top:6px"><b>finished</b>: {_e(trainer.stop_reason)}</div>')
    else:
        planned = trainer.planned_pair()
        pairs = trainer.top_pairs(NEXT_PAIRS)
        rows: list[list[str] | str] = []
        for k, (pair, count) in enumerate(pairs):
            mark = "▶" if k == 0 and planned is None else ""
            rows.append([f"{mark}{k + 1}", chip(visible(pair[0], eow)), chip(visible(pair[1], eow)), f"{count:,}"])
        caption = f"next: the planned hand merge {show_pair(planned, eow)} (undone, replayed next), then the rules' order" if planned else "next: the pairs by the rules' order"
        out.append(f'<div style="margin-top:6px;{_MUTED}">{_e(caption)}</div>')
        out.append(_rows(rows, ["#", "left", "right", "count"]))
    out.append("</div>")
    return "".join(out)

"""Switching the training rules live: the settings dialog, and what changed in the merges.

The dialog (``,`` or the palette's "Switch the training rules") edits the rules that decide
which merges BPE learns -- tie-break, min frequency, lowercase, pre-tokenizer, the longest
token allowed, the characters a token may not mix with others, and the variants' options that
have a label in their declaration (the registry's ``dialog_options``: one offered to switch its
variant on, the others while their variant is in use) -- and returns a new
:class:`~bpe_tui.core.engine.config.TrainerConfig`, checked by the config itself (a bad value is
shown in the dialog, which stays open). The explorer then retrains to the step it stood at
under the new rules, in the :class:`~bpe_tui.ui.session.loader.Loader`'s worker, and tells where
the two merge lists part (:func:`first_difference`).

Tie-break, min frequency and the constraints reuse the word counts already made; lowercase,
the pre-tokenizer and an option that ``recounts`` change the words themselves, so those count
the corpus files again (:func:`needs_recount`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Select, Static

from ...core.engine.config import TIE_BREAKS, TrainerConfig
from ...core.engine.registry import Option, dialog_options, option_fields
from ...core.errors import BPEError
from ...core.text.pretokenize import short_name
from ...core.types import TieBreak
from ...core.wording import plural
from ..widgets.render import label
from ..widgets.toggle import Checkbox
from .dialogs import FormDialog

#: The named pre-tokenizers the dialog offers (a custom regex in use is offered as well).
PRETOKENIZERS = ("whitespace", "gpt2", "gpt4", "o200k")
#: Config fields whose change alters the words themselves: the corpus must be counted again
#: (and each variant option that ``recounts``: a rule that cuts the corpus anew).
RECOUNT_FIELDS = ("lowercase", "pretokenizer")


def needs_recount(old: TrainerConfig, new: TrainerConfig) -> bool:
    """True when ``new`` cuts or normalises the corpus into other words than ``old`` does."""
    fields = RECOUNT_FIELDS + tuple(key for key, o in option_fields().items() if o.recounts)
    return any(getattr(old, name) != getattr(new, name) for name in fields)


def _box_id(option: Option) -> str:
    """The id of an option's box in the dialog: its key, dashed."""
    return option.key.replace("_", "-")


def _pair(pair: tuple, end_of_word: str | None) -> str:
    return f"({label(pair[0], end_of_word)}, {label(pair[1], end_of_word)})"


def first_difference(old: Sequence[tuple], new: Sequence[tuple], end_of_word: str | None = None, first: int = 1) -> str:
    """Where two merge lists part, in one sentence for the explorer's notification.

    ``old`` and ``new`` are the merged pairs (surfaces) in order; ``first`` is the merge
    number of their first element (1, or after the merges a table started from). Examples:
    ``"from merge 3 on: (o, u) instead of (th, e)"``, ``"the same 12 merges"``.
    """
    for i, (a, b) in enumerate(zip(old, new)):
        if a != b:
            return f"from merge {first + i:,} on: {_pair(b, end_of_word)} instead of {_pair(a, end_of_word)}"
    if len(old) == len(new):
        return f"the same {plural(len(new), 'merge')}"
    if len(new) < len(old):
        return f"the same first {plural(len(new), 'merge')}; then the new rules stop, where the old ones made {len(old):,}"
    return f"the same {plural(len(old), 'merge')}, then {len(new) - len(old):,} more under the new rules"


def _shown(pretokenizer: str) -> str:
    """A pre-tokenizer as the dialog names it: by its short name (``superbpe-stage1``, ``clip``)
    where it has one, else as it is, cut to 40 cells."""
    name = short_name(pretokenizer)
    return name if len(name) < 40 else name[:39] + "…"


def _number(text: str, name: str, parse: type[int] | type[float] = int) -> Any:
    """The number typed in a box, read by ``parse`` (blank: None); BPEError naming the box
    otherwise (the config checks the range)."""
    text = text.strip()
    if not text:
        return None
    try:
        return parse(text)
    except ValueError:
        raise BPEError(f"{name}: {text!r} is not {'a whole number' if parse is int else 'a number'}") from None


class SettingsScreen(FormDialog):
    """Edit the training rules. Returns the new TrainerConfig, or None (cancelled, or unchanged).

    ``recount``: whether the corpus files can be counted again (False for a corpus given as
    word counts or on stdin: lowercase and the pre-tokenizer are then fixed). ``start``: the
    trainer goes on from a table (``--from``), whose lowercase and pre-tokenizer hold.
    """

    CSS_PATH = ["dialogs.tcss", "settings.tcss"]
    ERROR = "settings-error"

    def __init__(self, config: TrainerConfig, recount: bool = True, start: bool = False) -> None:
        super().__init__()
        self.config = config
        self.start = start
        self.recount = recount and not start

    def compose(self) -> ComposeResult:
        cfg = self.config
        pretokenizers = list(PRETOKENIZERS)
        if cfg.pretokenizer not in pretokenizers:
            pretokenizers.append(cfg.pretokenizer)
        with Vertical(classes="dialog wide", id="settings"):
            yield Label(Text("Switch the training rules (retrains to this step)", style="bold"), classes="title")
            with Horizontal(classes="setting"):
                yield Label("tie-break")
                yield Select([(t, t) for t in TIE_BREAKS], value=cfg.tie_break, allow_blank=False, compact=True, id="tie-break")
            with Horizontal(classes="setting"):
                yield Label("min frequency")
                yield Input(str(cfg.min_frequency), id="min-frequency", compact=True)
            with Horizontal(classes="setting"):
                yield Label("lowercase")
                yield Checkbox("lowercase the corpus first", cfg.lowercase, id="lowercase", compact=True, disabled=not self.recount)
            with Horizontal(classes="setting"):
                yield Label("pre-tokenizer")
                yield Select(
                    [(_shown(p), p) for p in pretokenizers],
                    value=cfg.pretokenizer,
                    allow_blank=False,
                    compact=True,
                    id="pretokenizer",
                    disabled=not self.recount,
                )
            with Horizontal(classes="setting"):
                yield Label("max token length")
                yield Input(
                    "" if cfg.max_token_length is None else str(cfg.max_token_length),
                    placeholder=f"no limit ({cfg.units})",
                    id="max-token-length",
                    compact=True,
                )
            with Horizontal(classes="setting"):
                yield Label("no merge across")
                yield Input(cfg.no_merge_across or "", placeholder=r"a class: \d  \s  \p{P}  (blank: none)", id="no-merge-across", compact=True)
            yield from self._variant_rows(cfg)
            if self.start:
                note = "lowercase and the pre-tokenizer are the start table's"
            elif self.recount:
                changes = ["lowercase", "the pre-tokenizer", *(f"the {o.label}" for o in dialog_options(cfg) if o.recounts)]
                note = f"changing {', '.join(changes[:-1])} or {changes[-1]} counts the corpus files again"
            else:
                note = "lowercase and the pre-tokenizer are fixed: this corpus has no files to count again"
            yield Static(Text(note, style="dim"), classes="hint")
            yield Static("", id="settings-error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Retrain", id="ok", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def _variant_rows(self, cfg: TrainerConfig) -> ComposeResult:
        """A row for each variant option the registry offers for ``cfg`` (its declared label,
        a box for its type); one that recounts is fixed where the corpus cannot be counted again."""
        for option in dialog_options(cfg):
            value = getattr(cfg, option.key)
            box = _box_id(option)
            with Horizontal(classes="setting"):
                yield Label(option.label or option.key)
                if option.type is bool:
                    yield Checkbox(option.note or option.key, bool(value), id=box, compact=True)
                elif option.choices:
                    shown = option.choice_labels or tuple(map(str, option.choices))
                    yield Select(list(zip(shown, option.choices)), value=value, allow_blank=False, compact=True, id=box,
                                 disabled=option.recounts and not self.recount)
                else:
                    yield Input("" if value is None else f"{value:g}" if isinstance(value, float) else str(value),
                                placeholder=option.note, id=box, compact=True)

    def on_mount(self) -> None:
        self.query_one("#tie-break", Select).focus()

    def chosen(self) -> TrainerConfig:
        """The config the dialog describes now (BPEError: what is wrong, and in which box)."""
        min_frequency = _number(self.query_one("#min-frequency", Input).value, "min frequency")
        variants: dict[str, Any] = {}
        for option in dialog_options(self.config):
            box = f"#{_box_id(option)}"
            if option.type is bool:
                variants[option.key] = self.query_one(box, Checkbox).value
            elif option.choices:
                variants[option.key] = str(self.query_one(box, Select).value)
            else:
                text = self.query_one(box, Input).value
                variants[option.key] = _number(text, option.label or option.key, option.type) if option.type in (int, float) else (text.strip() or None)
        return dataclasses.replace(
            self.config,
            tie_break=cast(TieBreak, str(self.query_one("#tie-break", Select).value)),  # (a Select of TIE_BREAKS)
            min_frequency=1 if min_frequency is None else min_frequency,
            lowercase=self.query_one("#lowercase", Checkbox).value,
            pretokenizer=str(self.query_one("#pretokenizer", Select).value),
            max_token_length=_number(self.query_one("#max-token-length", Input).value, "max token length"),
            no_merge_across=self.query_one("#no-merge-across", Input).value.strip() or None,
            **variants,
        )

    def finished(self, value: object) -> object:
        return None if value == self.config else value  # (unchanged: nothing to retrain)

"""Switching the training rules live: the settings dialog, and what changed in the merges.

The dialog (``,`` or the palette's "Switch the training rules") edits the rules that decide
which merges BPE learns -- tie-break, min frequency, lowercase, pre-tokenizer, the longest
token allowed, the characters a token may not mix with others, PickyBPE's threshold τ (blank:
plain BPE), and for a SuperBPE run its stage-2 options (rule, most words a token, no ``": "``,
unused merges dropped) -- and returns a new
:class:`~bpe_tui.core.engine.config.TrainerConfig`, checked by the config itself (a bad value is
shown in the dialog, which stays open). The explorer then retrains to the step it stood at
under the new rules, in the :class:`~bpe_tui.ui.session.loader.Loader`'s worker, and tells where
the two merge lists part (:func:`first_difference`).

Tie-break, min frequency and the constraints reuse the word counts already made; lowercase and
the pre-tokenizer change the words themselves, so those count the corpus files again
(:func:`needs_recount`).
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
#: (SuperBPE's stage-2 rule cuts the chunks).
RECOUNT_FIELDS = ("lowercase", "pretokenizer", "superword_rule")
#: SuperBPE's stage-2 rules, as the dialog offers them.
SUPERWORD_RULES = (("regex (the authors' current rule)", "regex"), ("digits (their OLMo2 tokenizers')", "digits"))


def needs_recount(old: TrainerConfig, new: TrainerConfig) -> bool:
    """True when ``new`` cuts or normalises the corpus into other words than ``old`` does."""
    return any(getattr(old, name) != getattr(new, name) for name in RECOUNT_FIELDS)


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
            with Horizontal(classes="setting"):
                yield Label("PickyBPE τ")
                yield Input(
                    "" if cfg.picky is None else f"{cfg.picky:g}", placeholder="0 < τ <= 1 removes tokens (blank: plain BPE)",
                    id="picky", compact=True,
                )
            if cfg.superwords_after is not None:
                yield from self._superword_rows(cfg)
            if self.start:
                note = "lowercase and the pre-tokenizer are the start table's"
            elif self.recount:
                note = "lowercase, the pre-tokenizer" + (" and the superword rule" if cfg.superwords_after is not None else "") + " count the corpus files again"
            else:
                note = "lowercase and the pre-tokenizer are fixed: this corpus has no files to count again"
            yield Static(Text(note, style="dim"), classes="hint")
            yield Static("", id="settings-error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Retrain", id="ok", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def _superword_rows(self, cfg: TrainerConfig) -> ComposeResult:
        """SuperBPE's stage-2 options (see :mod:`~bpe_tui.core.engine.superwords`)."""
        with Horizontal(classes="setting"):
            yield Label("superword rule")
            yield Select(list(SUPERWORD_RULES), value=cfg.superword_rule, allow_blank=False, compact=True, id="superword-rule", disabled=not self.recount)
        with Horizontal(classes="setting"):
            yield Label("superword words")
            yield Input(
                "" if cfg.superword_max_words is None else str(cfg.superword_max_words),
                placeholder="most words in a token (blank: no limit)", id="superword-max-words", compact=True,
            )
        with Horizontal(classes="setting"):
            yield Label("superword limits")
            yield Checkbox("no ': ' in a token", cfg.superword_skip_colon_space, id="superword-colon", compact=True)
            yield Checkbox("drop unused merges", cfg.superwords_drop_unused, id="superwords-drop", compact=True)

    def on_mount(self) -> None:
        self.query_one("#tie-break", Select).focus()

    def chosen(self) -> TrainerConfig:
        """The config the dialog describes now (BPEError: what is wrong, and in which box)."""
        min_frequency = _number(self.query_one("#min-frequency", Input).value, "min frequency")
        stage2: dict[str, Any] = {}
        if self.config.superwords_after is not None:
            stage2 = dict(
                superword_rule=str(self.query_one("#superword-rule", Select).value),
                superword_max_words=_number(self.query_one("#superword-max-words", Input).value, "superword words"),
                superword_skip_colon_space=self.query_one("#superword-colon", Checkbox).value,
                superwords_drop_unused=self.query_one("#superwords-drop", Checkbox).value,
            )
        return dataclasses.replace(
            self.config,
            tie_break=cast(TieBreak, str(self.query_one("#tie-break", Select).value)),  # (a Select of TIE_BREAKS)
            min_frequency=1 if min_frequency is None else min_frequency,
            lowercase=self.query_one("#lowercase", Checkbox).value,
            pretokenizer=str(self.query_one("#pretokenizer", Select).value),
            max_token_length=_number(self.query_one("#max-token-length", Input).value, "max token length"),
            no_merge_across=self.query_one("#no-merge-across", Input).value.strip() or None,
            **stage2,
            picky=_number(self.query_one("#picky", Input).value, "PickyBPE τ", float),
        )

    def finished(self, value: object) -> object:
        return None if value == self.config else value  # (unchanged: nothing to retrain)

"""A check box whose state reads without colour.

Textual's Checkbox always draws ``X`` and tells on from off by the colour of the mark alone,
so under ``NO_COLOR`` (Textual greys every colour out) or on a monochrome terminal every box
looks ticked. This one draws ``X`` when on and a blank when off, in colour as well.
"""

from __future__ import annotations

from textual.widgets import Checkbox as TextualCheckbox


class Checkbox(TextualCheckbox):
    """A Checkbox whose mark is ``X`` when on and blank when off."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 - Textual's name for the mark
        return "X" if self.value else " "

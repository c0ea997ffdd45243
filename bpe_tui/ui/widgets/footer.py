"""The footer: Textual's, left out whole key by whole key where the terminal is too narrow.

Textual's :class:`~textual.widgets.Footer` lays its keys out in one row and cuts the last one
that does not fit in the middle of a word ("c Compa"). This one hides every key that does not
fit whole (they come last in the registry's order, :mod:`~bpe_tui.ui.keys`, so the most used
stay); ``?`` lists them all, and so does the command palette (``ctrl+p``, kept on the right).
"""

from __future__ import annotations

from textual import events
from textual.widgets import Footer


class FittingFooter(Footer):
    """A footer whose keys are shown whole or not at all."""

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self.fit)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.fit)

    def fit(self) -> None:
        """Hide the keys past the room left of the command palette's key (the keys keep their
        places: a hidden key still takes its room, so the measure does not change)."""
        children = list(self.children)
        right = self.region.right
        for child in children:
            if child.has_class("-command-palette"):
                right = min(right, child.region.x)
        for child in children:
            if child.has_class("-command-palette"):
                continue
            box = child.region.grow(child.styles.margin)
            child.visible = box.right <= right

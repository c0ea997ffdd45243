"""A griffe extension for the API reference: the docstrings are written for reading in the
source, with Sphinx roles (:class:`~bpe_tui.core.tables.table.MergeTable`); the site renders
Markdown, where such a role reads as the name in code, the last part only after ``~``."""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|data|meth|attr|mod|obj|exc|const):`(~?)([^`]+)`")


def _name(match: re.Match[str]) -> str:
    tilde, target = match.groups()
    return f"`{target.rsplit('.', 1)[-1] if tilde else target}`"


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(_name, obj.docstring.value)

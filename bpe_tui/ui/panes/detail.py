"""Token detail: id, rank and the merge tree (how the token was built, down to base units);
a token PickyBPE removed says so (its id kept, encoding never gives it)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, Tree

from ...core.engine.registry import token_marks
from ...core.errors import BPEError
from ...core.tables.table import MergeNode, MergeTable, merge_number
from ..widgets.render import (
    CHIP_CLASSES,
    REMOVED_MARK,
    ChipStyles,
    chip,
    label,
    redraw_on_theme_change,
    mark_of,
    token_mark,
)

#: Nodes drawn before the tree is cut short (a deep GPT-2 token has a few dozen).
MAX_NODES = 400


class TokenDetail(Vertical):
    #: The token's chip and the tree's labels take their colours from the theme.
    COMPONENT_CLASSES = CHIP_CLASSES

    #: What the pane says before a token is shown (where tokens are selected on the screen).
    PROMPT = "select a token (history, corpus chip, encode box, or / to find one)"

    def __init__(self, prompt: str = PROMPT, **kwargs) -> None:
        super().__init__(**kwargs)
        self.prompt = prompt
        self.table: MergeTable | None = None
        self.token_id: int | None = None
        self.pending: str | None = None
        self.info = ""

    def compose(self) -> ComposeResult:
        yield Static(self.prompt, id="detail-info", markup=False)
        yield Static("", id="detail-pending", markup=False)
        tree: Tree = Tree(Text("—"), id="detail-tree")
        tree.show_root = True
        yield tree

    def on_mount(self) -> None:
        redraw_on_theme_change(self, self._redraw)

    def _redraw(self) -> None:
        """The token shown again, in the theme's colours."""
        if self.table is not None and self.token_id is not None:
            self.show(self.table, self.token_id, self.pending)

    def show(self, table: MergeTable | None, token_id: int, pending: str | None = None) -> None:
        """The token's id, merge number and merge tree. ``pending``: the table's merge list is
        not there yet (a rank file's, being built): the token's id and text, and this note in
        place of the merge number and the tree."""
        tree = self.query_one("#detail-tree", Tree)
        info = self.query_one("#detail-info", Static)
        self.token_id = token_id
        if table is None:
            return
        self.table = table
        self.pending = pending
        self.set_class(pending is not None, "-pending")
        self.query_one("#detail-pending", Static).update(Text(f"merge tree: {pending}" if pending else "", end=""))
        if pending is not None:
            head = Text(end="")
            head.append_text(chip(table.surface(token_id), table.end_of_word, ChipStyles.of(self).next))
            head.append(f"  id {token_id:,}" + (" · special token" if table.is_special(token_id) else ""))
            head.append(f"\n{table.surface(token_id)!r}", "dim")
            self.info = head.plain + "\n" + f"merge tree: {pending}"
            info.update(head)
            tree.clear()
            return
        try:
            node = table.merge_tree(token_id)
        except BPEError as exc:
            self.info = str(exc)
            info.update(Text(self.info, end=""))
            tree.clear()
            return
        eow = table.end_of_word
        look = ChipStyles.of(self)
        head = Text(end="")
        head.append_text(chip(node.surface, eow, look.next))
        head.append(f"  id {token_id:,}")
        if node.rank is not None:
            head.append(f" · merge {merge_number(node.rank):,}")
            counts = table.counts
            if counts is not None and node.rank < len(counts):
                head.append(f" · count {counts[node.rank]:,}")
            head.append(f" · {len(node.leaves())} base units")
        elif table.is_special(token_id):
            head.append(" · special token")
        else:
            head.append(" · base unit")
        if token_id in table.removed:
            head.append(f" · {REMOVED_MARK} removed (PickyBPE): out of the vocabulary, split into its parts")
        mark = mark_of(node.surface)
        if mark:  # a mark a variant draws beside such tokens, and what it means
            head.append(" · ")
            head.append_text(token_mark(node.surface, look))
            head.append(f" {dict(token_marks())[mark]}")
        raw = node.surface
        head.append(f"\n{raw!r}", "dim")
        self.info = head.plain
        info.update(head)
        tree.clear()
        tree.root.set_label(self._label(node, eow, look))
        tree.root.data = node.id
        budget = [MAX_NODES]
        self._add(tree.root, node, eow, look, budget)
        tree.root.expand_all()

    def _add(self, parent, node: MergeNode, eow, look: ChipStyles, budget: list[int]) -> None:
        for child in (node.left, node.right):
            if child is None:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                parent.add_leaf(Text("…", end=""))
                return
            if child.left is None:
                parent.add_leaf(self._label(child, eow, look), data=child.id)
            else:
                branch = parent.add(self._label(child, eow, look), data=child.id)
                self._add(branch, child, eow, look, budget)

    @staticmethod
    def _label(node: MergeNode, eow, look: ChipStyles) -> Text:
        """A merged token on the first chip colour, a base unit on the second."""
        text = Text(end="")
        text.append(label(node.surface, eow), look.pair[0] if node.rank is not None else look.pair[1])
        if node.rank is None:
            text.append(f"  id {node.id}", "dim")
        else:
            text.append(f"  id {node.id:,} · merge {merge_number(node.rank):,}", "dim")
        return text

    def tree_labels(self) -> list[str]:
        """The tree's labels, depth-first (for tests)."""
        out = []

        def walk(n):
            out.append(n.label.plain)
            for c in n.children:
                walk(c)

        walk(self.query_one("#detail-tree", Tree).root)
        return out

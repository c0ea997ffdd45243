"""A model's context window, where a table records one: how much of it a text takes.

CLIP's text encoder reads 77 tokens, ``<|startoftext|>`` and ``<|endoftext|>`` included, and
a prompt past that is cut (open_clip and transformers truncate; OpenAI's ``clip.tokenize``
refuses it unless told to truncate). A table says so in its config: ``context_length`` (77)
and ``context_tokens`` (the tokens put around every text). Prompt writers want to see where
their text stands against it: ``bpe-tui inspect``, ``bpe-tui encode`` on a terminal and the
explorer's encode box say it in the words of :func:`context_note`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..wording import plural
from .table import MergeTable


@dataclass(frozen=True)
class Context:
    """A context window: ``length`` tokens, ``wrap`` (the tokens around every text) included."""

    length: int
    wrap: tuple[str, ...] = ()

    def used(self, text_tokens: int) -> int:
        """Tokens a text of ``text_tokens`` tokens takes in the window (its wrapping counted)."""
        return text_tokens + len(self.wrap)

    def describe(self) -> str:
        """``77 tokens, <|startoftext|> and <|endoftext|> included``."""
        if not self.wrap:
            return plural(self.length, "token")
        return f"{plural(self.length, 'token')}, {' and '.join(self.wrap)} included"


def context_of(table: MergeTable) -> Context | None:
    """The context window ``table`` records, or None (most tables record none)."""
    length = table.config.get("context_length")
    if not isinstance(length, int) or isinstance(length, bool) or length <= 0:
        return None
    wrap = table.config.get("context_tokens")
    tokens = tuple(t for t in wrap if isinstance(t, str)) if isinstance(wrap, list) else ()
    return Context(length, tokens)


def context_note(context: Context, text_tokens: int, short: bool = False) -> str:
    """Where a text of ``text_tokens`` tokens stands against ``context``, in one phrase:

    ``77-token context: this text is 93 tokens with <|startoftext|> and <|endoftext|>, 16 over``
    (``short``, for a summary line beside a token count: ``context 93/77, 16 over``).
    """
    used = context.used(text_tokens)
    over = used - context.length
    if short:
        return f"context {used:,}/{context.length}" + (f", {over:,} over" if over > 0 else "")
    size = plural(used, "token") + (f" with {' and '.join(context.wrap)}" if context.wrap else "")
    head = f"{context.length}-token context: this text is {size}"
    return f"{head}, {over:,} over" if over > 0 else f"{head}, {-over:,} to spare"

"""Constraints on merges: pairs a config forbids (``max_token_length``, ``no_merge_across``).

``no_merge_across`` names a character class (digits, whitespace, punctuation): a merged token
may not mix characters of the class with others. Each token has a *standing* towards the class
(:func:`class_standing`), worked out once when the token is made; a pair is forbidden when its
two tokens' standings together are MIXED, a bitwise or of two small ints on the hot path.
"""

from __future__ import annotations

__all__ = ["INSIDE", "MIXED", "NEUTRAL", "OUTSIDE", "class_standing"]

#: A token's standing towards ``no_merge_across``'s class: no characters (the end-of-word
#: marker alone), all inside the class, all outside, or both. A pair is forbidden when its
#: two tokens' standings together are MIXED.
NEUTRAL, INSIDE, OUTSIDE, MIXED = 0, 1, 2, 3


def class_standing(surface, pattern, end_of_word: str | None) -> int:
    """Whether a token's characters are inside ``pattern`` (a character class), outside, or
    both. The end-of-word marker is no character; bytes that are only a piece of a UTF-8
    character count as outside."""
    if surface is None:
        return NEUTRAL
    if isinstance(surface, bytes):
        text = surface.decode("utf-8", "surrogateescape")
        if end_of_word is not None and text.endswith(end_of_word):
            text = text[: -len(end_of_word)]
    else:
        text = surface[: -len(end_of_word)] if end_of_word is not None and surface.endswith(end_of_word) else surface
    standing = NEUTRAL
    for ch in text:
        standing |= INSIDE if pattern.fullmatch(ch) else OUTSIDE
        if standing == MIXED:
            break
    return standing

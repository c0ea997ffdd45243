"""BoundlessBPE's rule for which whole pre-tokens may join into one token.

Schmidt, Reddy, Tanner and Pinter, "Boundless Byte Pair Encoding: Breaking the
Pre-tokenization Barrier" (COLM 2025). A *supermerge* joins two adjacent pre-tokens that are
each one whole token; both must match :data:`MERGE_PATTERN`, tried on the token's text (a token
whose bytes are not UTF-8 never joins). The authors' trainer fixes the rule
(``IMPROVED_MERGE_PATTERN`` in their ``regexconstants.py``); their model files do not record
it, and their inference does not need it: it applies the supermerges a model lists. In words: only letters (each with the combining marks after it), spaces,
underscores and straight or curly apostrophes, with a letter somewhere after the first
character: ``·the``, ``don't``, ``_init``, ``'s`` and ``ab`` may join; ``a``, ``a·``, ``a1``
and ``·`` may not (a one-letter word joins only with its space in front: ``·a``). How the
encoder applies supermerges: :mod:`bpe_tui.core.tables.boundless`; what the reference does:
docs/variants/boundless.md.
"""

from __future__ import annotations

import regex

#: The text of a token a supermerge may take (matched with ``regex``'s ``match``, so from its
#: start; ``$`` ends it).
MERGE_PATTERN = r"^(?=.+\p{L})(?:\p{L}\p{M}*|[ _'\u2019])+$"

_MERGEABLE = regex.compile(MERGE_PATTERN)


def may_join(token: bytes) -> bool:
    """Whether a whole pre-token with these bytes may take part in a supermerge."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return _MERGEABLE.match(text) is not None


__all__ = ["MERGE_PATTERN", "may_join"]

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

#: The authors' own pre-tokenizer ("ultimate2", the second version of their paper; their
#: other models use GPT-4o's regex, our ``o200k``), exactly as the models trained with it
#: record it on their second line: contractions (straight or curly apostrophe), ``_snake``
#: words, an upper-case run before a capitalised word (``XML`` of ``XMLHttp``), words with an
#: optional space and capital, upper-case runs, other letters, digits in threes from the right,
#: punctuation and symbols (with an optional space), line breaks with the spaces before them,
#: other whitespace, separators and controls, stray marks, and anything left.
ULTIMATE_PATTERN = (
    r" ?(?:\p{L}\p{M}*)+['’](?:\p{L}\p{M}*)+|_(?:\p{Ll}\p{M}*)+"
    r"| ?(?:\p{Lu}\p{M}*)+(?=(?:\p{Lu}\p{M}*)(?:\p{Ll}\p{M}*))"
    r"| ?(?:\p{Lu}\p{M}*)?(?:\p{Ll}\p{M}*)+| ?(?:\p{Lu}\p{M}*)+"
    r"| ?(?:[\p{Lt}\p{Lm}\p{Lo}]\p{M}*)+"
    r"|(?:\p{N}\p{M}*){1,3}(?=(?:(?:\p{N}\p{M}*){3})*(?:(?:\P{N}\p{M}*)|$))"
    r"| ?(?:[\p{P}\p{S}]\p{M}*)+|[^\S\r\n]*[\n\r]+|[^\S\r\n]+|(?:[\p{Z}\p{C}]\p{M}*)+"
    r"|\p{M}+|.+"
)


def may_join(token: bytes) -> bool:
    """Whether a whole pre-token with these bytes may take part in a supermerge."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return _MERGEABLE.match(text) is not None


__all__ = ["MERGE_PATTERN", "ULTIMATE_PATTERN", "may_join"]

"""Which special tokens a text may hold, in tiktoken's words: ``allowed_special`` and
``disallowed_special``.

Untrusted text must never smuggle in an end-of-text token: tiktoken's ``encode`` refuses text
that holds a special token's text unless told otherwise, and ``encode_ordinary`` encodes such
text as ordinary text. Hugging Face's tokenizers recognise added tokens in any text (unless
``encode_special_tokens`` is set). bpe-tui keeps Hugging Face's default (every special token is
recognised) and takes tiktoken's two arguments with tiktoken's meaning (``tiktoken/core.py``,
``Encoding.encode``):

* ``allowed_special``: ``"all"`` (every special token of the table) or a set of them: these
  are recognised in the text and encode to their ids; the others are ordinary text.
* ``disallowed_special``: ``"all"`` (every special token not allowed) or a collection of
  strings: if the text holds any of them, encoding is refused (:class:`DisallowedSpecial`,
  naming the first one found and its character offset). As in tiktoken, any string given is
  looked for, a special token or not; ``()`` refuses nothing.

Hugging Face also has *added tokens that are not special* (``"special": false`` in
tokenizer.json, GPT-NeoX's runs of spaces): its tokenizer matches them whole in any text, even
with ``split_special_tokens``. They are among a table's ``special_tokens`` here (they are cut
out of the text the same way), and ``always`` names them: recognised whatever the two
arguments say, and never refused by ``"all"``.

So ``encode(text)`` (both "all") recognises every special token; ``encode(text,
allowed_special=set())`` is tiktoken's default (refuse them all); ``encode(text,
disallowed_special=())`` with ``allowed_special=set()`` is ``encode_ordinary``.

The first disallowed text found is the leftmost, the longest where several start there
(tiktoken's regex takes whichever its alternation lists first; the token named may differ
when two disallowed strings start at one place, the refusal does not).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Literal, TypeAlias, get_args

from ..errors import BPEError, DisallowedSpecial
from ..text.specials import SpecialMatcher

#: ``allowed_special``: "all", or the special tokens to recognise.
Allowed: TypeAlias = "Literal['all'] | Collection[str]"
#: ``disallowed_special``: "all" (every special token not allowed), or the texts to refuse.
Disallowed: TypeAlias = "Literal['all'] | Collection[str]"

#: The three policies the command line and the explorer offer, by name.
Policy: TypeAlias = Literal["recognise", "ordinary", "refuse"]
POLICIES: tuple[Policy, ...] = get_args(Policy)


def _strings(value: object, name: str) -> frozenset[str]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise BPEError(f"{name} must be 'all' or a collection of strings, not {value!r}")
    out = frozenset(value)
    bad = next((v for v in out if not isinstance(v, str) or not v), None)
    if bad is not None:
        raise BPEError(f"{name} must hold non-empty strings, not {bad!r}")
    return out


def resolve(
    specials: Collection[str], allowed_special: Allowed, disallowed_special: Disallowed, always: Collection[str] = ()
) -> tuple[frozenset[str], frozenset[str]]:
    """``(recognised, disallowed)``: the table's special tokens to recognise, and the texts to
    refuse, from tiktoken's two arguments; ``always``: the added tokens that are no special
    tokens, recognised whatever the arguments (see the module docstring)."""
    every = frozenset(specials)
    allowed = every if allowed_special == "all" else _strings(allowed_special, "allowed_special") | frozenset(always)
    disallowed = every - allowed if disallowed_special == "all" else _strings(disallowed_special, "disallowed_special")
    return allowed & every, disallowed


def check(text: str, disallowed: frozenset[str]) -> None:
    """Raise :class:`DisallowedSpecial` if ``text`` holds any of ``disallowed``."""
    if disallowed:
        found = next(SpecialMatcher(list(disallowed)).finditer(text), None)
        if found is not None:
            raise DisallowedSpecial(found.group(), found.start())


def checked_stream(chunks: Iterable[str], disallowed: frozenset[str]) -> Iterator[str]:
    """The chunks of a stream as they come, each checked for ``disallowed`` texts first
    (one cut in two by a chunk boundary included): :class:`DisallowedSpecial` names the
    character offset in the whole stream."""
    if not disallowed:
        yield from chunks
        return
    matcher = SpecialMatcher(list(disallowed))
    keep = max(map(len, disallowed)) - 1
    tail = ""  # the end of what came before, for a token cut in two
    start = 0  # where tail begins in the stream
    for chunk in chunks:
        window = tail + chunk
        found = next(matcher.finditer(window), None)
        if found is not None:
            raise DisallowedSpecial(found.group(), start + found.start())
        yield chunk
        cut = max(0, len(window) - keep)
        start += cut
        tail = window[cut:]


def policy_arguments(policy: Policy) -> tuple[Allowed, Disallowed]:
    """tiktoken's arguments for a named policy: ``recognise`` every special token (the
    default), encode them as ``ordinary`` text, or ``refuse`` text that holds one."""
    if policy == "recognise":
        return "all", "all"
    if policy == "ordinary":
        return frozenset(), ()
    if policy == "refuse":
        return frozenset(), "all"
    raise BPEError(f"unknown special-token policy {policy!r}; choose one of {', '.join(POLICIES)}")

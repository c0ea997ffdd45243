"""The engine's vocabulary as types: what a token, a pair or a setting may be, named once.

Each ``Literal`` alias has its runtime tuple beside it, taken from the alias itself
(``typing.get_args``), so the check a reader runs (``units not in UNITS``), the choices the
CLI offers and the type mypy checks come from one list.

>>> UNITS
('chars', 'bytes')
"""

from __future__ import annotations

from typing import Literal, TypeAlias, TypeVar, get_args

#: A token's text. ``bytes`` in bytes mode (a token may hold part of a UTF-8 character, so it
#: is not always text), ``str`` in chars mode. A table or a trainer holds one kind, never both.
Surface: TypeAlias = bytes | str

#: A surface of one kind throughout a call (all bytes or all str), for functions such as
#: ``build_table`` that join surfaces: ``left + right`` is then well-typed.
SurfaceT = TypeVar("SurfaceT", bytes, str)

#: The id given to a character a chars-mode table has never seen (no token stands for it).
UNK_ID = -1

#: Two adjacent tokens, as the trainer counts them and a merge joins them.
Pair: TypeAlias = tuple[Surface, Surface]

#: What the base symbols are: Unicode characters, or UTF-8 bytes (256 base tokens).
Units: TypeAlias = Literal["chars", "bytes"]
UNITS: tuple[Units, ...] = get_args(Units)

#: Which pair wins among pairs with the same count (defined exactly in the trainer).
TieBreak: TypeAlias = Literal["first-seen", "lexical-min", "lexical-max", "hf", "rustbpe", "subword-nmt", "picky"]
TIE_BREAKS: tuple[TieBreak, ...] = get_args(TieBreak)

#: Where a space goes in front of the text between special tokens (see
#: :class:`~bpe_tui.core.text.pretokenize.PreTokenizer`):
#:
#: * ``always``   every segment that does not already start with a space (Metaspace "always")
#: * ``first``    only a segment at the very start of the text (Metaspace "first", sentencepiece)
#: * ``prepend``  every segment, even one that starts with a space (HF's Prepend normalizer)
PrefixScheme: TypeAlias = Literal["always", "first", "prepend"]
PREFIX_SCHEMES: tuple[PrefixScheme, ...] = get_args(PrefixScheme)

#: The merge-table file formats, as ``--format`` and ``save(..., format=...)`` name them
#: (each module in :mod:`bpe_tui.core.tables.formats` declares its own as ``NAME``).
FormatName: TypeAlias = Literal["native", "hf", "gpt2", "minbpe", "sentencepiece", "tiktoken", "subword-nmt", "clip", "transformers", "picky", "boundless"]
FORMAT_NAMES: tuple[FormatName, ...] = get_args(FormatName)

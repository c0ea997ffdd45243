"""TrainerConfig: every rule that decides which merges BPE learns, in one place.

A *preset* fills in a consistent set of rules; any keyword you pass overrides the preset.

=========  ======  ==============  ===========  ===========  =============
preset     units   pre-tokenizer   end of word  tie-break    min frequency
=========  ======  ==============  ===========  ===========  =============
classic    chars   whitespace      ``</w>``     first-seen   1
gpt2       bytes   gpt2            none         lexical-max  1
gpt4       bytes   gpt4 (cl100k)   none         lexical-max  1
o200k      bytes   o200k           none         lexical-max  1
parity     bytes   parity          none         subword-nmt  2
=========  ======  ==============  ===========  ===========  =============

``classic`` is the textbook algorithm of Sennrich et al. (2016) as the tutorials teach it;
``gpt2`` is the byte-level BPE of GPT-2 with CS336's tie-break (the lexically greatest pair);
``parity`` is the setup of parity-aware BPE's reference code (Foroutan et al. 2025, built on
subword-nmt): Hugging Face's Whitespace split with a space in front of every piece, subword-nmt's
order among equal counts, and no pair merged that occurs fewer than 2 times.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import regex

from ..errors import BPEError
from ..text.pretokenize import resolve_pattern, short_name
from ..text.specials import special_token_list
from ..types import TIE_BREAKS, UNITS, TieBreak, Units
from ..wording import plural

PRESETS: dict[str, dict[str, Any]] = {
    "classic": dict(units="chars", pretokenizer="whitespace", end_of_word="</w>", tie_break="first-seen", min_frequency=1),
    "gpt2": dict(units="bytes", pretokenizer="gpt2", end_of_word=None, tie_break="lexical-max", min_frequency=1),
    "gpt4": dict(units="bytes", pretokenizer="gpt4", end_of_word=None, tie_break="lexical-max", min_frequency=1),
    "o200k": dict(units="bytes", pretokenizer="o200k", end_of_word=None, tie_break="lexical-max", min_frequency=1),
    "parity": dict(units="bytes", pretokenizer="parity", end_of_word=None, tie_break="subword-nmt", min_frequency=2),
}

#: parity-aware BPE's variants (TrainerConfig.parity), and its options' fields.
PARITY_VARIANTS = ("base", "window")
PARITY_FIELDS = ("parity", "parity_window", "parity_alpha", "global_merges")

#: The explorer's default max_token_length (the presets have none): a corpus that is one long
#: run of a character must not grow tokens as long as the run while you watch.
EXPLORER_MAX_TOKEN_LENGTH = 32

#: Sentinel meaning "take this setting from the preset" (typed Any: it stands in for a value
#: of the field's own type until __post_init__ replaces it).
_FROM_PRESET: Any = object()


@dataclass
class TrainerConfig:
    r"""The rules of one BPE training run.

    preset:         "classic", "gpt2", "gpt4", "o200k" or "parity" (fills in the defaults below)
    units:          "chars" (Unicode characters) or "bytes" (UTF-8 bytes, 256 base tokens)
    pretokenizer:   "whitespace", "gpt2", "gpt4", "o200k", or a regex (optionally "regex:...")
    end_of_word:    a marker appended to every word as its own symbol ("</w>"), or None
    lowercase:      lowercase the corpus (and text to encode) first
    special_tokens: tokens cut out before pre-tokenization, never merged, each with its own id
    tie_break:      "first-seen", "lexical-min", "lexical-max", "hf", "rustbpe" or "subword-nmt"
                    (see tiebreak.py)
    vocab_size:     stop when the vocabulary (base + specials + merged tokens) reaches this
    merges:         stop after this many merges (instead of vocab_size)
    min_frequency:  stop when the best pair occurs fewer times than this (inclusive bound;
                    1 but under the parity preset, which takes subword-nmt's 2)
    max_token_length: never make a token longer than this many units (bytes in bytes mode,
                    characters in chars mode, an end-of-word marker counting its own length;
                    None = no limit): a corpus of one long run of a character would otherwise
                    grow tokens as long as the run (the explorer sets 32 by default)
    no_merge_across: a regex character class, such as ``\d`` (digits), ``\s`` (whitespace) or
                    ``\p{P}`` (punctuation): a merged token may not mix characters in the class
                    with others, so ``2024`` and ``, `` can form but ``a1`` cannot (the
                    end-of-word marker is no character; a byte that is only a piece of a
                    character counts as outside the class). None = no such rule.
    superwords_after: SuperBPE's curriculum (Liu et al. 2025): merges 1..K are ordinary BPE
                    under ``pretokenizer``; then the corpus is cut again by SuperBPE's stage-2
                    rule (see :data:`~bpe_tui.core.text.pretokenize.SUPERWORD_SPLIT`), the K
                    merges are applied to the new chunks by rank, and training goes on with
                    pairs that may span spaces (see :mod:`~bpe_tui.core.engine.superwords`).
                    Byte-level, no end-of-word marker. None = off.
    parity:         parity-aware BPE (Foroutan et al. 2025, see
                    :mod:`~bpe_tui.core.engine.variants.parity`): "base" (the language whose
                    development text needs the most tokens chooses each merge) or "window"
                    (the same, but a language that chose more than its share of the last
                    ``parity_window`` merges waits); None = plain BPE. It trains on one corpus
                    per language: ``Trainer.from_languages``.
    parity_window:  the window variant's number of recent merges (100, as the reference)
    parity_alpha:   the window variant's share: a language may have chosen at most
                    ``parity_alpha / languages`` of the window (2, as the reference; a whole
                    number, as there)
    global_merges:  the hybrid: the first this many merges are plain BPE on all languages
                    together, parity-aware after (0 = none)
    """

    preset: str = "gpt2"
    units: Units = field(default=_FROM_PRESET)
    pretokenizer: str = field(default=_FROM_PRESET)
    end_of_word: str | None = field(default=_FROM_PRESET)
    lowercase: bool = False
    special_tokens: list[str] = field(default_factory=list)
    tie_break: TieBreak = field(default=_FROM_PRESET)
    vocab_size: int | None = None
    merges: int | None = None
    min_frequency: int = field(default=_FROM_PRESET)
    max_token_length: int | None = None
    no_merge_across: str | None = None
    superwords_after: int | None = None
    parity: str | None = None
    parity_window: int = 100
    parity_alpha: int = 2
    global_merges: int = 0

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise BPEError(f"unknown preset {self.preset!r}; choose one of {', '.join(PRESETS)}")
        for key, value in PRESETS[self.preset].items():
            if getattr(self, key) is _FROM_PRESET:
                setattr(self, key, value)
        if self.units not in UNITS:
            raise BPEError(f"unknown units {self.units!r}; choose chars or bytes")
        if self.tie_break not in TIE_BREAKS:
            raise BPEError(f"unknown tie-break {self.tie_break!r}; choose one of {', '.join(TIE_BREAKS)}")
        if self.pretokenizer is None:
            self.pretokenizer = "whitespace"
        self.pretokenizer = resolve_pattern(self.pretokenizer)[0] if not _is_named(self.pretokenizer) else self.pretokenizer
        if self.end_of_word == "":
            self.end_of_word = None
        self.special_tokens = special_token_list(self.special_tokens)
        if self.end_of_word is not None and not isinstance(self.end_of_word, str):
            raise BPEError(f"end_of_word must be text, not {self.end_of_word!r}")
        if self.vocab_size is not None and self.merges is not None:
            raise BPEError("give either vocab_size or merges, not both")
        _whole_number("vocab_size", self.vocab_size, 1)
        _whole_number("merges", self.merges, 0)
        _whole_number("min_frequency", self.min_frequency, 1)
        _whole_number("max_token_length", self.max_token_length, 1)
        if self.no_merge_across == "":
            self.no_merge_across = None
        check_character_class(self.no_merge_across)
        _whole_number("superwords_after", self.superwords_after, 0)
        if self.superwords_after is not None and (self.units != "bytes" or self.end_of_word is not None):
            raise BPEError("superwords_after needs byte-level units without an end-of-word marker (SuperBPE is byte-level BPE); choose a bytes preset such as gpt2")
        self._check_parity()

    def _check_parity(self) -> None:
        """parity-aware BPE's options: their values, and the options it cannot honour."""
        if self.parity is not None and self.parity not in PARITY_VARIANTS:
            raise BPEError(f"unknown parity-aware variant {self.parity!r}; choose {' or '.join(PARITY_VARIANTS)}")
        _whole_number("parity_window", self.parity_window, 1)
        _whole_number("parity_alpha", self.parity_alpha, 1)
        _whole_number("global_merges", self.global_merges, 0)
        if self.parity is None:
            if self.global_merges:
                raise BPEError("global_merges is an option of parity-aware BPE: set parity to base or window")
            return
        if self.parity == "base" and (self.parity_window, self.parity_alpha) != (100, 2):
            raise BPEError("parity_window and parity_alpha are options of the window variant: set parity to window")
        for name, value in (("superwords_after", self.superwords_after), ("max_token_length", self.max_token_length),
                            ("no_merge_across", self.no_merge_across)):
            if value is not None:
                raise BPEError(f"parity-aware BPE does not take {name} (the reference has no such rule): leave it unset")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (saved inside native merge tables)."""
        return asdict(self)

    def describe(self) -> str:
        """One line for status bars: 'bytes · gpt2 · lexical-max'."""
        pre = short_name(self.pretokenizer)
        parts = [self.units, pre if len(pre) < 24 else "custom regex", self.tie_break]
        if self.end_of_word:
            parts.append(f"eow {self.end_of_word}")
        if self.lowercase:
            parts.append("lowercase")
        if self.no_merge_across is not None:
            parts.append(f"no merge across {self.no_merge_across}")
        if self.superwords_after is not None:
            parts.append(f"superwords after {self.superwords_after:,}")
        if self.parity is not None:
            window = f" {self.parity_window}/{self.parity_alpha}" if self.parity == "window" else ""
            hybrid = f", {self.global_merges:,} global first" if self.global_merges else ""
            parts.append(f"parity-aware {self.parity}{window}{hybrid}")
        return " · ".join(parts)


def check_character_class(pattern: str | None, what: str = "no_merge_across") -> None:
    r"""``pattern`` must be None or a regex (``regex`` syntax, so ``\p{P}`` works) that
    matches single characters: a character class such as ``\d`` or ``[0-9]``."""
    if pattern is None:
        return
    if not isinstance(pattern, str):
        raise BPEError(f"{what} must be a regex character class such as \\d, not {pattern!r}")
    try:
        compiled = regex.compile(pattern)
    except regex.error as exc:
        raise BPEError(f"{what}: {pattern!r} is not a valid regex: {exc}") from None
    if compiled.fullmatch(""):
        raise BPEError(f"{what}: {pattern!r} matches the empty string; give a character class such as \\d, \\s or \\p{{P}}")


def _whole_number(name: str, value: object, least: int) -> None:
    """``value`` must be None or a whole number >= ``least`` (not a bool, float, nan or inf)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise BPEError(f"{name} must be a whole number, not {value!r}")
    if value < least:
        raise BPEError(f"{name} must be {least} or more, not {value}")


def check_vocab_size(vocab_size: int | None, base_count: int, special_count: int, name: str) -> None:
    """BPEError when ``vocab_size`` cannot even hold the base alphabet and the special tokens
    (the first merged token's id is ``base_count + special_count``)."""
    least = base_count + special_count
    if vocab_size is not None and vocab_size < least:
        parts = plural(base_count, "base symbol") + (f" + {plural(special_count, 'special token')}" if special_count else "")
        total = f" = {least:,}" if special_count else ""
        raise BPEError(f"{name}: vocabulary size {vocab_size:,} is smaller than the base alphabet ({parts}{total}); choose {least:,} or more")


def _is_named(pretokenizer: str) -> bool:
    return pretokenizer in ("whitespace", "gpt2", "gpt4", "o200k")

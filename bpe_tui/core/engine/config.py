"""TrainerConfig: every rule that decides which merges BPE learns, in one place.

A *preset* fills in a consistent set of rules; any keyword you pass overrides the preset.

=========  ======  ===============  ===========  ===========  =============
preset     units   pre-tokenizer    end of word  tie-break    min frequency
=========  ======  ===============  ===========  ===========  =============
classic    chars   whitespace       ``</w>``     first-seen   1
gpt2       bytes   gpt2             none         lexical-max  1
gpt4       bytes   gpt4 (cl100k)    none         lexical-max  1
o200k      bytes   o200k            none         lexical-max  1
superbpe   bytes   superbpe-stage1  none         hf           1
picky      chars   whitespace       none         picky        1
parity     bytes   parity           none         subword-nmt  2
boundless  bytes   o200k            none         lexical-min  1
=========  ======  ===============  ===========  ===========  =============

``classic`` is the textbook algorithm of Sennrich et al. (2016) as the tutorials teach it;
``gpt2`` is the byte-level BPE of GPT-2 with CS336's tie-break (the lexically greatest pair).
``superbpe`` is SuperBPE as its authors trained their OLMo2 tokenizers (Liu et al. 2025):
their stage-1 pre-tokenizer and Hugging Face's trainer order, and for stage 2 (from
``superwords_after`` on) their rule of that time, ``digits``, with the three limits their
trainer applies (at most 4 words a token, no ``": "`` inside one, inherited merges that never
occur in the chunks dropped). The transition itself is yours to choose; without one the preset
trains their stage-1 BPE alone. See :mod:`~bpe_tui.core.engine.superwords`.
``picky`` is the setup of PickyBPE's reference code (Chizhov et al. 2024, github
pchizhov/picky_bpe): ``▁`` in front of every word, the special tokens ``<PAD> <UNK> <BOS>
<EOS>`` first, then the characters in order of first appearance, the rarest characters
(0.01% of the text) left to ``<UNK>``, and its order among equal counts. The IoS threshold
itself is ``picky=τ`` (without it, plain BPE on that setup).
``parity`` is the setup of parity-aware BPE's reference code (Foroutan et al. 2025, built on
subword-nmt): Hugging Face's Whitespace split with a space in front of every piece, subword-nmt's
order among equal counts, and no pair merged that occurs fewer than 2 times.
``boundless`` is BoundlessBPE as its authors trained the models of their paper (Schmidt et al.
2025, github kensho-technologies/boundlessbpe): GPT-4o's regex, ties to the smallest pair,
supermerges of whole pre-tokens beside ordinary merges, and deletions at τ 0.9 into bytes
(``boundless=τ``; see :mod:`~bpe_tui.core.engine.variants.boundless`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any

import regex

from ..errors import BPEError
from ..text.pretokenize import resolve_pattern, short_name
from ..text.superword_rules import SUPERWORD_RULES
from ..text.specials import special_token_list
from ..types import TIE_BREAKS, UNITS, TieBreak, Units
from ..wording import plural

PRESETS: dict[str, dict[str, Any]] = {
    "classic": dict(units="chars", pretokenizer="whitespace", end_of_word="</w>", tie_break="first-seen", min_frequency=1),
    "gpt2": dict(units="bytes", pretokenizer="gpt2", end_of_word=None, tie_break="lexical-max", min_frequency=1),
    "gpt4": dict(units="bytes", pretokenizer="gpt4", end_of_word=None, tie_break="lexical-max", min_frequency=1),
    "o200k": dict(units="bytes", pretokenizer="o200k", end_of_word=None, tie_break="lexical-max", min_frequency=1),
    "superbpe": dict(
        units="bytes", pretokenizer="superbpe-stage1", end_of_word=None, tie_break="hf", min_frequency=1,
        superword_rule="digits", superword_max_words=4, superword_skip_colon_space=True, superwords_drop_unused=True,
    ),
    "picky": dict(
        units="chars", pretokenizer="whitespace", end_of_word=None, tie_break="picky", min_frequency=1, word_start="\u2581",
        special_tokens=["<PAD>", "<UNK>", "<BOS>", "<EOS>"], unk_token="<UNK>", character_coverage=0.9999,
        alphabet="first-seen",
    ),
    "parity": dict(units="bytes", pretokenizer="parity", end_of_word=None, tie_break="subword-nmt", min_frequency=2),
    "boundless": dict(units="bytes", pretokenizer="o200k", end_of_word=None, tie_break="lexical-min", min_frequency=1, boundless=0.9),
}

#: What SuperBPE's stage-2 options are where a preset does not set them: the authors' current
#: rule and no limits (the trainer as it was before the options came).
STAGE2_DEFAULTS: dict[str, Any] = dict(
    superword_rule="regex", superword_max_words=None, superword_skip_colon_space=False, superwords_drop_unused=False
)

#: What a preset that does not say takes: the settings only the picky preset uses, off.
PRESET_DEFAULTS: dict[str, Any] = dict(
    word_start=None, special_tokens=[], unk_token=None, character_coverage=None, alphabet="code-point", boundless=None,
)

#: How BoundlessBPE splits a deleted token (TrainerConfig.boundless_deletions).
BOUNDLESS_DELETIONS = ("bytes", "pair")

#: The orders the base symbols take ids in (see TrainerConfig.alphabet).
ALPHABETS = ("code-point", "first-seen")

#: parity-aware BPE's variants (TrainerConfig.parity), and its options' fields.
PARITY_VARIANTS = ("base", "window")
PARITY_FIELDS = ("parity", "parity_window", "parity_alpha", "global_merges")

#: The explorer's default max_token_length (the presets have none): a corpus that is one long
#: run of a character must not grow tokens as long as the run while you watch.
EXPLORER_MAX_TOKEN_LENGTH = 32

#: How messages name a field: as itself (Python), or as the user typed it (the command line
#: names it by its flag, from the registry: see :func:`named_as`).
_NAMING: ContextVar[Callable[[str], str] | None] = ContextVar("config_naming", default=None)


@contextmanager
def named_as(name: Callable[[str], str]) -> Iterator[None]:
    """Within this block, a config's messages name each field as ``name(field)`` (the command
    line passes the registry's ``flag_of``: ``--parity-window``, not ``parity_window``)."""
    token = _NAMING.set(name)
    try:
        yield
    finally:
        _NAMING.reset(token)


def named(field_name: str) -> str:
    """A field as messages name it now (see :func:`named_as`)."""
    naming = _NAMING.get()
    return naming(field_name) if naming is not None else field_name


#: Sentinel meaning "take this setting from the preset" (typed Any: it stands in for a value
#: of the field's own type until __post_init__ replaces it).
_FROM_PRESET: Any = object()


@dataclass
class TrainerConfig:
    r"""The rules of one BPE training run.

    A preset fills in the rules not given (see the module docstring); any field given
    overrides it. Values are checked when the config is made: a bad one is a
    :class:`~bpe_tui.core.errors.BPEError` of one line.

    Attributes:
        preset: The rule set to start from: "classic", "gpt2", "gpt4", "o200k", "superbpe",
            "picky", "parity" or "boundless" (``PRESETS``).
        units: "chars" (Unicode characters) or "bytes" (UTF-8 bytes, 256 base tokens).
        pretokenizer: "whitespace", "gpt2", "gpt4", "o200k", "clip", or a regex (optionally
            written "regex:...").
        end_of_word: A marker appended to every word as its own symbol (``"</w>"``), or None.
        lowercase: Lowercase the corpus (and text to encode) first.
        special_tokens: Tokens cut out before pre-tokenization, never merged, each with its own id.
        tie_break: Which pair wins among pairs of equal count: "first-seen", "lexical-min",
            "lexical-max", "hf", "rustbpe", "subword-nmt" or "picky" (``TIE_BREAKS``; each is
            defined in :mod:`~bpe_tui.core.engine.tiebreak`).
        vocab_size: Stop when the vocabulary (base + specials + merged tokens) reaches this.
        merges: Stop after this many merges (instead of ``vocab_size``).
        min_frequency: Stop when the best pair occurs fewer times than this (inclusive bound;
            1, but 2 under the parity preset, as subword-nmt).
        max_token_length: Never make a token longer than this many units (bytes in bytes mode,
            characters in chars mode, an end-of-word marker counting its own length; None: no
            limit). A corpus of one long run of a character would otherwise grow tokens as
            long as the run (the explorer sets 32 by default).
        no_merge_across: A regex character class, such as ``\d`` (digits), ``\s`` (whitespace)
            or ``\p{P}`` (punctuation): a merged token may not mix characters in the class with
            others, so ``2024`` and ``, `` can form but ``a1`` cannot (the end-of-word marker is
            no character; a byte that is only a piece of a character counts as outside the
            class). None: no such rule.
        superwords_after: SuperBPE's transition K (Liu et al. 2025): merges 1..K are ordinary
            BPE under ``pretokenizer``; then the corpus is cut again by the stage-2 rule
            (``superword_rule``), the K merges are applied to the new chunks by rank, and
            training goes on with pairs that may span spaces (see
            :mod:`~bpe_tui.core.engine.superwords`). Byte-level, no end-of-word marker. None: off.
        superword_rule: SuperBPE's stage-2 rule: "regex" (the authors' current split, the
            default) or "digits" (only digit runs cut, in threes from the right: the rule their
            published OLMo2 tokenizers were trained with).
        superword_max_words: In stage 2, never make a token of more than this many words (runs
            of characters between spaces), as the authors' trainer does with 4. None: no limit.
        superword_skip_colon_space: In stage 2, never make a token holding ``": "`` (a colon
            followed by a space), as the authors' trainer does.
        superwords_drop_unused: At the transition, drop the merges so far whose pair never
            occurs while they are replayed over the chunks, as the authors' trainer does with
            the merges it inherits (they leave the table; the vocabulary shrinks by the tokens
            only they made). The four stage-2 options need ``superwords_after`` (the
            ``superbpe`` preset sets them all and leaves them idle without it).
        picky: PickyBPE's IoS threshold τ, in (0, 1] (Chizhov et al. 2024; see
            :mod:`~bpe_tui.core.engine.variants.picky`): after each merge, a part whose share of
            occurrences inside the new token is above τ is removed from the vocabulary and
            split back into its parts. None: plain BPE.
        word_start: Text put in front of every word before it is split into symbols, its
            characters ordinary ones (PickyBPE's and sentencepiece's ``▁``). None: none.
        character_coverage: Chars only: leave the rarest characters, together less than
            1 - coverage of the text, out of the alphabet; each occurrence becomes
            ``unk_token`` (PickyBPE's rule, after sentencepiece). None: keep them all.
        unk_token: The special token that stands for a character outside the alphabet (one of
            ``special_tokens``); pairs holding it never merge.
        alphabet: The order the base symbols take ids in: "code-point" (the characters sorted,
            then the special tokens) or "first-seen" (the special tokens first, then the
            characters in order of first appearance: PickyBPE's reference).
        parity: Parity-aware BPE (Foroutan et al. 2025, see
            :mod:`~bpe_tui.core.engine.variants.parity`): "base" (the language whose development
            text needs the most tokens chooses each merge) or "window" (the same, but a language
            that chose more than its share of the last ``parity_window`` merges waits). None:
            plain BPE. It trains on one corpus per language: ``Trainer.from_languages``.
        parity_window: The window variant's number of recent merges (100, as the reference).
        parity_alpha: The window variant's share: a language may have chosen at most
            ``parity_alpha / languages`` of the window (2, as the reference; a whole number, as
            there).
        global_merges: The hybrid: the first this many merges are plain BPE on all languages
            together, parity-aware after (0: none).
        boundless: BoundlessBPE's deletion threshold τ (Schmidt et al. 2025, see
            :mod:`~bpe_tui.core.engine.variants.boundless`): merges across pre-tokens
            (*supermerges* of two whole pre-tokens side by side) beside ordinary merges, and
            after each ordinary merge a part whose IoS is at least τ is deleted (τ above 1: no
            deletions; the authors' runs without them use 1.1). None: off (the ``boundless``
            preset sets 0.9). Byte-level, no end-of-word marker, ties to the smallest pair.
        boundless_deletions: What a deleted token is split into: "bytes" (the paper) or
            "pair" (the pair that made it: the paper's ablation).
        boundless_merge_pattern: The regex a whole pre-token must match to take part in a
            supermerge (None: the authors', :data:`~bpe_tui.core.text.boundless_rules.MERGE_PATTERN`).
    """

    preset: str = "gpt2"
    units: Units = field(default=_FROM_PRESET)
    pretokenizer: str = field(default=_FROM_PRESET)
    end_of_word: str | None = field(default=_FROM_PRESET)
    lowercase: bool = False
    special_tokens: list[str] = field(default=_FROM_PRESET)
    tie_break: TieBreak = field(default=_FROM_PRESET)
    vocab_size: int | None = None
    merges: int | None = None
    min_frequency: int = field(default=_FROM_PRESET)
    max_token_length: int | None = None
    no_merge_across: str | None = None
    superwords_after: int | None = None
    superword_rule: str = field(default=_FROM_PRESET)
    superword_max_words: int | None = field(default=_FROM_PRESET)
    superword_skip_colon_space: bool = field(default=_FROM_PRESET)
    superwords_drop_unused: bool = field(default=_FROM_PRESET)
    picky: float | None = None
    word_start: str | None = field(default=_FROM_PRESET)
    character_coverage: float | None = field(default=_FROM_PRESET)
    unk_token: str | None = field(default=_FROM_PRESET)
    alphabet: str = field(default=_FROM_PRESET)
    parity: str | None = None
    parity_window: int = 100
    parity_alpha: int = 2
    global_merges: int = 0
    boundless: float | None = field(default=_FROM_PRESET)
    boundless_deletions: str = "bytes"
    boundless_merge_pattern: str | None = None

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise BPEError(f"unknown preset {self.preset!r}; choose one of {', '.join(PRESETS)}")
        for key, value in {**STAGE2_DEFAULTS, **PRESET_DEFAULTS, **PRESETS[self.preset]}.items():
            if getattr(self, key) is _FROM_PRESET:
                setattr(self, key, list(value) if isinstance(value, list) else value)
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
            raise BPEError(f"give either {named('vocab_size')} or {named('merges')}, not both")
        _whole_number("vocab_size", self.vocab_size, 1)
        _whole_number("merges", self.merges, 0)
        _whole_number("min_frequency", self.min_frequency, 1)
        _whole_number("max_token_length", self.max_token_length, 1)
        if self.no_merge_across == "":
            self.no_merge_across = None
        check_character_class(self.no_merge_across)
        _whole_number("superwords_after", self.superwords_after, 0)
        if self.superwords_after is not None and (self.units != "bytes" or self.end_of_word is not None):
            raise BPEError(f"{named('superwords_after')} needs byte-level units without an end-of-word marker (SuperBPE is byte-level BPE); choose a bytes preset such as gpt2")
        self._check_superwords_in_reach()
        self._check_stage2()
        self._check_picky_setup()
        self._check_parity()
        self._check_boundless()

    def _check_boundless(self) -> None:
        """BoundlessBPE's options: their values, and the setup it needs."""
        tau = self.boundless
        if tau is not None and (isinstance(tau, bool) or not isinstance(tau, (int, float)) or not tau > 0 or tau != tau):
            raise BPEError(f"{named('boundless')}: the deletion threshold must be a number above 0 (above 1: no deletions), not {tau!r}")
        if self.boundless_deletions not in BOUNDLESS_DELETIONS:
            raise BPEError(f"{named('boundless_deletions')} must be bytes or pair, not {self.boundless_deletions!r}")
        join = self.boundless_merge_pattern
        if join is not None:
            if not isinstance(join, str) or not join:
                raise BPEError(f"{named('boundless_merge_pattern')} must be a regex, not {join!r}")
            try:
                regex.compile(join)
            except regex.error as exc:
                raise BPEError(f"{named('boundless_merge_pattern')}: {join!r} does not compile: {exc}") from None
        if tau is None:
            if self.boundless_deletions != "bytes" or join is not None:
                given = "boundless_deletions" if self.boundless_deletions != "bytes" else "boundless_merge_pattern"
                raise BPEError(f"{named(given)} is an option of BoundlessBPE: give {named('boundless')} TAU too (or --preset boundless)")
            return
        if self.units != "bytes" or self.end_of_word is not None:
            raise BPEError(f"{named('boundless')} needs byte-level units without an end-of-word marker (BoundlessBPE is byte-level BPE); choose a bytes preset such as boundless")
        if self.tie_break in ("first-seen", "picky"):
            raise BPEError(
                f"{named('boundless')} breaks ties among the pairs of both its states by one order of pairs, and {self.tie_break}'s "
                "follows the words alone: choose lexical-min (its authors', as --preset boundless does), lexical-max, hf, rustbpe or subword-nmt"
            )
        for name in ("superwords_after", "picky", "parity", "max_token_length", "no_merge_across"):
            if getattr(self, name) is not None:
                raise BPEError(f"{named('boundless')} and {named(name)} do not go together: BoundlessBPE has no such rule (its reference trains without it)")
        if self.word_start is not None or self.character_coverage is not None:
            raise BPEError(f"{named('boundless')} does not take the picky setup (word_start, character_coverage): BoundlessBPE starts from the 256 bytes")

    def _check_superwords_in_reach(self) -> None:
        """SuperBPE's transition after merge K must come before the target's last merge: at or
        past it, training would make no superword and say nothing of it (issue 42)."""
        after = self.superwords_after
        if after is None:
            return
        if self.merges is not None:
            last, why = self.merges, f"merges {self.merges:,}"
        elif self.vocab_size is not None:
            last = self.vocab_size - 256 - len(self.special_tokens)
            specials = f" + {plural(len(self.special_tokens), 'special token')}" if self.special_tokens else ""
            why = f"vocabulary {self.vocab_size:,} = 256 bytes{specials} + {plural(last, 'merge')}"
        else:
            return  # no target: training goes on while pairs are left (the trainer says where it ended)
        if 0 <= last <= after:
            raise BPEError(
                f"{named('superwords_after')} {after:,} is past the last merge: the target ends training at merge {last:,} ({why}), "
                f"so no superword would be made; choose a merge below {last:,}"
            )

    def _check_picky_setup(self) -> None:
        """The PickyBPE options: each a value it can be, and none with an option it cannot honour."""
        tau = self.picky
        if tau is not None and (isinstance(tau, bool) or not isinstance(tau, (int, float)) or not 0 < tau <= 1):
            raise BPEError(f"{named('picky')}: the IoS threshold must be a number above 0 and at most 1 (0 < τ <= 1), not {tau!r}")
        if (self.picky is not None or self.tie_break == "picky") and self.superwords_after is not None:
            what = named("picky") if self.picky is not None else "the picky tie-break (PickyBPE's order)"
            raise BPEError(f"{what} and {named('superwords_after')} do not go together: SuperBPE's transition would cut the corpus that PickyBPE keeps its counts of")
        if self.word_start == "":
            self.word_start = None
        if self.word_start is not None and not isinstance(self.word_start, str):
            raise BPEError(f"word_start must be text, not {self.word_start!r}")
        coverage = self.character_coverage
        if coverage is not None:
            if isinstance(coverage, bool) or not isinstance(coverage, (int, float)) or not 0 < coverage <= 1:
                raise BPEError(f"character_coverage must be a share above 0 and at most 1, not {coverage!r}")
            if self.units != "chars":
                raise BPEError("character_coverage needs chars units (every byte is in a byte-level alphabet)")
            if self.unk_token is None:
                raise BPEError("character_coverage needs an unk_token to stand for the characters it leaves out")
        if self.unk_token is not None and self.unk_token not in self.special_tokens:
            raise BPEError(f"unk_token {self.unk_token!r} must be one of the special tokens ({', '.join(self.special_tokens) or 'none given'})")
        if self.alphabet not in ALPHABETS:
            raise BPEError(f"unknown alphabet order {self.alphabet!r}; choose one of {', '.join(ALPHABETS)}")
        if self.alphabet == "first-seen" and self.units != "chars":
            raise BPEError("alphabet first-seen orders characters: it needs chars units (a byte's id is its value)")

    def _check_parity(self) -> None:
        """parity-aware BPE's options: their values, and the options it cannot honour."""
        if self.parity is not None and self.parity not in PARITY_VARIANTS:
            raise BPEError(f"{named('parity')}: unknown parity-aware variant {self.parity!r}; choose {' or '.join(PARITY_VARIANTS)}")
        _whole_number("parity_window", self.parity_window, 1)
        _whole_number("parity_alpha", self.parity_alpha, 1)
        _whole_number("global_merges", self.global_merges, 0)
        if self.parity is None:
            if self.global_merges:
                raise BPEError(f"{named('global_merges')} is an option of parity-aware BPE: set {named('parity')} to base or window")
            return
        if self.parity == "base" and (self.parity_window, self.parity_alpha) != (100, 2):
            raise BPEError(f"{named('parity_window')} and {named('parity_alpha')} are options of the window variant: set {named('parity')} to window")
        for name, value in (("superwords_after", self.superwords_after), ("max_token_length", self.max_token_length),
                            ("no_merge_across", self.no_merge_across), ("picky", self.picky)):
            if value is not None:
                raise BPEError(f"parity-aware BPE does not take {named(name)} (the reference has no such rule): leave it unset")
        if self.tie_break == "picky":
            raise BPEError("parity-aware BPE does not take the picky tie-break (PickyBPE's pair-counter order): choose another tie-break, e.g. subword-nmt as --preset parity does")

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
            parts += self.stage2_options()
        if self.word_start is not None:
            parts.append(f"{self.word_start} before each word")
        if self.character_coverage is not None:
            parts.append(f"coverage {self.character_coverage:g}")
        if self.picky is not None:
            parts.append(f"PickyBPE τ {self.picky:g}")
        if self.parity is not None:
            window = f" {self.parity_window}/{self.parity_alpha}" if self.parity == "window" else ""
            hybrid = f", {self.global_merges:,} global first" if self.global_merges else ""
            parts.append(f"parity-aware {self.parity}{window}{hybrid}")
        if self.boundless is not None:
            deletions = "no deletions" if self.boundless > 1 else f"τ {self.boundless:g}" + (", deletions into the pair" if self.boundless_deletions == "pair" else "")
            pattern = ", own merge pattern" if self.boundless_merge_pattern is not None else ""
            parts.append(f"BoundlessBPE {deletions}{pattern}")
        return " · ".join(parts)

    def stage2_options(self, dropped: int = 0) -> list[str]:
        """SuperBPE's stage-2 options that differ from the defaults, each as a short phrase
        (see :func:`stage2_phrases`); ``dropped``: how many merges the transition dropped."""
        return stage2_phrases({**{name: getattr(self, name) for name in STAGE2_DEFAULTS}, "superwords_dropped": dropped})

    def _check_stage2(self) -> None:
        """The stage-2 options: valid values, and only with a transition (or the preset's)."""
        if self.superword_rule not in SUPERWORD_RULES:
            raise BPEError(f"unknown superword rule {self.superword_rule!r}; choose {' or '.join(SUPERWORD_RULES)}")
        _whole_number("superword_max_words", self.superword_max_words, 1)
        for name in ("superword_skip_colon_space", "superwords_drop_unused"):
            if not isinstance(getattr(self, name), bool):
                raise BPEError(f"{named(name)} must be true or false, not {getattr(self, name)!r}")
        if self.superwords_after is None and self.preset != "superbpe":
            given = [name for name, default in STAGE2_DEFAULTS.items() if getattr(self, name) != default]
            if given:
                raise BPEError(f"{named(given[0])} is an option of SuperBPE's stage 2: it needs {named('superwords_after')} (the merge after which superwords start)")


def stage2_phrases(values: Mapping[str, Any]) -> list[str]:
    """SuperBPE's stage-2 options among ``values`` (a config's fields, or a saved table's
    config) that differ from the defaults, each as a short phrase: ``digits rule``, ``≤ 4
    words``, ``no ': '``, ``unused merges dropped`` (``3 unused merges dropped`` where a
    table records how many its transition dropped, ``superwords_dropped``)."""
    out = []
    rule = values.get("superword_rule")
    if rule is not None and rule != STAGE2_DEFAULTS["superword_rule"]:
        out.append(f"{rule} rule")
    if isinstance(values.get("superword_max_words"), int):
        out.append(f"≤ {values['superword_max_words']} words")
    if values.get("superword_skip_colon_space"):
        out.append("no ': '")
    if values.get("superwords_drop_unused"):
        dropped = values.get("superwords_dropped")
        out.append(f"{plural(dropped, 'unused merge')} dropped" if isinstance(dropped, int) and dropped else "unused merges dropped")
    return out


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
        raise BPEError(f"{named(name)} must be a whole number, not {value!r}")
    if value < least:
        raise BPEError(f"{named(name)} must be {least} or more, not {value}")


def check_vocab_size(vocab_size: int | None, base_count: int, special_count: int, name: str) -> None:
    """BPEError when ``vocab_size`` cannot even hold the base alphabet and the special tokens
    (the first merged token's id is ``base_count + special_count``)."""
    least = base_count + special_count
    if vocab_size is not None and vocab_size < least:
        parts = plural(base_count, "base symbol") + (f" + {plural(special_count, 'special token')}" if special_count else "")
        total = f" = {least:,}" if special_count else ""
        raise BPEError(f"{name}: vocabulary size {vocab_size:,} is smaller than the base alphabet ({parts}{total}); choose {least:,} or more")


def _is_named(pretokenizer: str) -> bool:
    return pretokenizer in ("whitespace", "gpt2", "gpt4", "o200k", "ultimate2")

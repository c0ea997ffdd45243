"""Parity-aware BPE: the language served worst so far chooses each merge.

Foroutan, Meister, Paul, Niklaus, Ahmadi, Bosselut and Sennrich (2025), "Parity-Aware Byte-Pair
Encoding: Improving Cross-lingual Fairness in Tokenization" (arXiv 2508.04796). A tokenizer
trained on text of many languages learns most merges for the languages it sees most: the same
sentence then costs some languages several times the tokens it costs English. Parity-aware BPE
changes one thing in BPE's step, *whose* most frequent pair is merged:

1. Each language brings its own training corpus and a *development text*; the development
   texts are multi-parallel (line n of each says the same thing), so their lengths in tokens
   compare how well each language is served.
2. Before each merge, every development text is measured in tokens, with the merges so far
   applied (as encoding would). The language whose text needs the most tokens chooses; on a
   tie, the one given first.
3. It merges the most frequent pair *of its own corpus* (ties broken by the config's rule), and
   the merge applies everywhere: to every language's corpus and development text.
4. Training stops when the language whose turn it is has no pair left that occurs
   ``min_frequency`` times, even if the others have.

The reference code (``parity_aware_learn_bpe.py``, built on subword-nmt) offers more, and so does
this module, each exact against it (tests/core/golden/parity holds its outputs):

* **window** (``parity = "window"``): a language that chose more than ``alpha / N`` of the
  last ``window`` merges waits its turn, and the worst of the others chooses (N counts the
  languages, and one more in the hybrid, as in the reference). When every language is over its
  share, training stops (the reference fails there with an error).
* **the hybrid** (``global_merges = M``): the first M merges are plain BPE on all languages
  together; parity decides from merge M + 1 on.
* **the ratio form**, without development texts: each language's *training* corpus is measured
  instead, as its compression (base symbols per token) divided by a target ratio per language
  (normalised by the first language's); the lowest chooses.

The trainer keeps the whole corpus (every language's words, counted over all languages), its
pair counts and its queue: they are what the explorer's pair table shows and what the hybrid's
global merges take. This variant keeps, beside them, each word's count per language, the pair
counts and a queue per language, and the development texts' segmentations, all updated from
the words each merge rewrote and taken back by undo. Its account of each choice (which
language, and every language's measure then) is the event's :attr:`reason`
(:class:`ParityChoice`), which ends the event's explanation.
"""

from __future__ import annotations

import heapq
from operator import countOf
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import BPEError
from ...text.languages import LanguageCorpora
from ...wording import plural
from ..config import PARITY_VARIANTS, TrainerConfig, named
from ..events import TIES_LISTED
from ..rewrite import merge_word
from ..speed import MAX_TOKEN_ID, key_of, pairs_of, surface_pairs, utf8_as_ids
from ..state import Merged
from .options import Option
from .plain import PlainBPE
from .languages import NOWHERE, DevTexts, LanguageQueue
from .seam import Bench, Choice, ChoiceTuple, Series, Variant

if TYPE_CHECKING:
    from ..events import MergeEvent

__all__ = ["ParityAware", "ParityChoice", "choose_language", "language_counts"]


def language_counts(
    corpora: Any, dev: Any = None, ratio: Any = None, config: TrainerConfig | None = None, **count_options: Any,
) -> tuple[dict[str, int], TrainerConfig, "ParityAware", str]:
    """What ``Trainer.from_languages`` builds a trainer from: every language read (see
    :func:`~bpe_tui.core.text.languages.read_languages`), as ``(the words of all languages
    counted together, the config, this variant over them, a name)``. ``config`` None: the
    parity preset, base variant; a config without ``parity``: the base variant.
    ``count_options`` go to each language's counting
    (:func:`~bpe_tui.core.text.distributed.count_words`: errors, workers, progress, ...)."""
    from dataclasses import replace

    from ...text.distributed import count_words
    from ...text.languages import check_languages, read_languages

    if config is None:
        config = TrainerConfig(preset="parity", parity="base")
    elif config.parity is None:
        config = replace(config, parity="base")
    check_languages(corpora, dev, ratio)
    if ratio is not None and config.global_merges:
        raise BPEError(f"the ratio form does not go with {named('global_merges')} (the hybrid): the reference cannot run them together either")
    errors = count_options.get("errors", "strict")
    read = read_languages(corpora, config, dev=dev, ratio=ratio, errors=errors, count=lambda paths, cfg: count_words(paths, cfg, **count_options))
    names = read.languages
    name = ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")
    return read.union(), config, ParityAware(read), name


@dataclass(frozen=True)
class ParityChoice:
    """Why parity-aware BPE merged a pair: the :attr:`MergeEvent.reason
    <bpe_tui.core.engine.events.MergeEvent.reason>` of its steps; ``str()`` says it in a sentence.

    Attributes:
        phase: "parity" (a language chose) or "global" (one of the hybrid's first merges).
        language: The language that chose (None in the global phase).
        languages: Every language, in the order given.
        scores: Every language's measure when it chose: development-text tokens (the most
            chooses), or, in the ratio form, compression over target (the least chooses).
        ratio_form: Whether ``scores`` are the ratio form's.
        count: The pair's count in the choosing language's corpus (the whole corpus's in the
            global phase).
        waiting: Languages passed over because they chose more than their share of the window.
        window: ``(merges, share)`` of the window variant (None for base).
        global_merges: The hybrid's number of global merges (0: none).
    """

    phase: str
    language: str | None
    languages: tuple[str, ...]
    scores: tuple
    ratio_form: bool
    count: int
    waiting: tuple[str, ...] = ()
    window: tuple[int, float] | None = None
    global_merges: int = 0

    def score_of(self, language: str) -> str:
        value = self.scores[self.languages.index(language)]
        return f"{value:,}" if isinstance(value, int) else f"{value:.3f}"

    def __str__(self) -> str:
        if self.phase == "global":
            return (f"one of the first {self.global_merges:,} merges, which the whole corpus chooses (the hybrid), "
                    f"not a language")
        assert self.language is not None
        others = [self.scores[i] for i, name in enumerate(self.languages) if name != self.language]
        low, high = min(others), max(others)
        shown = (lambda v: f"{v:,}") if not self.ratio_form else (lambda v: f"{v:.3f}")
        span = shown(low) if low == high else f"{shown(low)}-{shown(high)}"
        if self.ratio_form:
            why = f"its corpus is compressed least against its target now ({self.score_of(self.language)}; the others {span})"
        else:
            why = f"its development text needs the most tokens now ({self.score_of(self.language)}; the others {span})"
        text = f"{self.language} chose it: {why}; it is {self.language}'s most frequent pair ({plural(self.count, 'time')} there)"
        if self.waiting and self.window is not None:
            merges, share = self.window
            text += (f"; {', '.join(self.waiting)} waited, having chosen more than {share:.0%} "
                     f"of the last {merges:,} merges")
        return text


def choose_language(
    scores: Sequence, most: bool, window: Sequence[int] | None = None, size: int = 0, share: float = 0.0,
) -> tuple[int | None, list[int]]:
    """The language that chooses, by index, and the languages that wait: the one with the
    greatest score (``most``) or the least, the first on a tie. With ``window`` (the languages
    that chose the last ``size`` merges), a language that chose more than ``share`` of them
    waits and the next one is asked; None when every language waits."""
    order = sorted(range(len(scores)), key=(lambda i: (-scores[i], i)) if most else (lambda i: (scores[i], i)))
    if window is None:
        return order[0], []
    waiting: list[int] = []
    for i in order:
        if window.count(i) / size <= share:
            return i, waiting
        waiting.append(i)
    return None, waiting


class ParityAware(Variant):
    """Parity-aware BPE over ``corpora`` (see the module docstring); its options are the
    trainer's config's (``parity``, ``parity_window``, ``parity_alpha``, ``global_merges``).
    Made by :meth:`Trainer.from_languages <bpe_tui.core.engine.trainer.Trainer.from_languages>`."""

    name = "parity-aware"
    title = "parity-aware BPE (one corpus per language; Foroutan et al. 2025)"
    options = (
        Option("parity", str, None, choices=PARITY_VARIANTS, flag="--parity",
               help="base (default with --language) or window (moving-window balancing)"),
        Option("parity_window", int, 100, flag="--parity-window", metavar="N",
               help="window variant: the last N merges are looked at (default 100)"),
        Option("parity_alpha", int, 2, flag="--parity-alpha", metavar="A",
               help="window variant: a language may choose A/languages of them (default 2)"),
        Option("global_merges", int, 0, flag="--global-merges", metavar="M",
               help="the hybrid: the first M merges are plain BPE on all languages together"),
    )
    #: It trains on one corpus per language (``--language LANG=FILE``), under this preset
    #: unless another is given, and takes no length limit (the reference has none).
    takes_languages = True
    takes_length_limit = False
    preset = "parity"
    acts_after_merge = True

    def __init__(self, corpora: LanguageCorpora):
        self.corpora = corpora
        self.languages = corpora.languages
        self._plain = PlainBPE()

    # ------------------------------------------------------------------ the declaration

    @classmethod
    def wanted(cls, config: TrainerConfig) -> bool:
        return config.parity is not None

    @classmethod
    def from_config(cls, config: TrainerConfig, chunk_counts: Mapping[str, int] | None = None) -> "ParityAware":
        raise BPEError(
            "parity-aware BPE trains on one corpus per language: Trainer.from_languages({lang: paths}, dev={lang: path}, config) "
            "(bpe-tui train --language LANG=FILE --dev LANG=FILE ...)"
        )

    @classmethod
    def about_table(cls, config: Mapping[str, Any], merges: int | None = None) -> list[tuple[str, str]]:
        """The languages a parity-aware table was trained on, and how they chose."""
        about = config.get("parity_aware")
        if not isinstance(about, Mapping):
            return []
        languages = [str(lang) for lang in about.get("languages", ())]
        how = str(about.get("variant", "base"))
        if how == "window":
            how += f" (window {about.get('window')}, alpha {about.get('alpha')})"
        if about.get("global_merges"):
            how += f", the first {int(about['global_merges']):,} merges global"
        measured = "target ratios" if "ratio" in about else "development texts"
        return [("parity-aware", f"{len(languages)} languages ({', '.join(languages)}), {how}; measured on their {measured}")]

    @classmethod
    def config_fields(cls, given: Mapping[str, Any], start_merges: int | None, name: Callable[[str], str], requested: bool) -> dict[str, Any]:
        """``parity`` base unless given, and the window and hybrid settings given."""
        if not requested:
            return {}
        if start_merges is not None:
            raise BPEError(f"parity-aware BPE (--language, {name('parity')}) does not go with --from: it starts from the base alphabet")
        fields = {o.key: given[o.key] for o in cls.options if given.get(o.key) is not None}
        fields.setdefault("parity", "base")
        return fields

    def summary(self, bench: Bench) -> list[str]:
        """Each language's measure before training and now, and how many merges it chose."""
        history = self.score_history()
        chose: dict[str, int] = {}
        for event in bench.history:
            reason = event.reason
            if isinstance(reason, ParityChoice) and reason.language is not None:
                chose[reason.language] = chose.get(reason.language, 0) + 1
        what = "compression over target" if self.ratio_form else "development text tokens"
        shown = (lambda v: f"{v:,}") if not self.ratio_form else (lambda v: f"{v:.3f}")
        rows = [
            f"  {lang}: {shown(before)} -> {shown(after)}, chose {plural(chose.get(lang, 0), 'merge')}"
            for lang, before, after in zip(self.languages, history[0], history[-1])
        ]
        return [f"{what} per language, before -> after:", *rows]

    def fresh(self) -> "ParityAware":
        """The same languages, for a trainer built again under other rules."""
        return ParityAware(self.corpora)

    def recount(self, config: TrainerConfig, **count_options: Any) -> "tuple[dict[str, int], Variant]":
        """Every language's corpus and development text read again under ``config``."""
        corpora = self.corpora
        ratio = dict(zip(corpora.languages, corpora.ratio)) if corpora.ratio else None
        words, _, variant, _ = language_counts(corpora.paths, corpora.dev_paths or None, ratio, config, **count_options)
        return words, variant

    def measure_languages(self) -> tuple[str, ...]:
        """Its own languages: those its development texts (or ratios) were given for."""
        return tuple(self.languages)

    # ------------------------------------------------------------------ the seam

    def attach(self, bench: Bench) -> None:
        cfg = bench.config
        st = bench.state
        if cfg.parity is None:
            raise BPEError("parity-aware BPE needs config.parity (base or window)")
        if bench.first_step:
            raise BPEError("parity-aware BPE cannot go on from a table: it starts from the base alphabet")
        n = len(self.languages)
        self._window = cfg.parity == "window"
        self._size = cfg.parity_window
        self._share = cfg.parity_alpha / (n + (1 if cfg.global_merges else 0))  # (the reference counts its global column)
        self._global = cfg.global_merges
        self._min = cfg.min_frequency
        index = {text: w for w, text in enumerate(st.word_text)}
        langs: list[list[tuple[int, int]]] = [[] for _ in st.word_text]
        for lang, counts in enumerate(self.corpora.words):
            for word, count in counts.items():
                w = index.get(word)
                if w is not None:
                    langs[w].append((lang, count))
        self._langs = [tuple(v) for v in langs]
        if any(sum(c for _, c in v) != total for v, total in zip(self._langs, st.counts)):
            raise BPEError("parity-aware BPE: the trainer's words are not the languages' words counted together")
        self._counts: list[dict[str, int]] = [{} for _ in range(n)]
        for word, word_langs in zip(st.words, self._langs):
            for p in pairs_of(word):
                for lang, count in word_langs:
                    pc = self._counts[lang]
                    pc[p] = pc.get(p, 0) + count
        self._entry = bench.queue.make_entry
        self._queues = [LanguageQueue(pc, self._entry) for pc in self._counts]
        self._made: dict[int, object] = {}
        if self.corpora.dev is not None:
            self._dev: DevTexts | None = DevTexts(self.corpora, self._to_ids(bench))
            self._tokens = list(self._dev.lengths)
            self._ratio: tuple[float, ...] | None = None
        else:
            assert self.corpora.ratio is not None
            self._dev = None
            first = self.corpora.ratio[0]
            self._ratio = tuple(r / first for r in self.corpora.ratio)
            self._tokens = [0] * n
            for word, word_langs in zip(st.words, self._langs):
                for lang, count in word_langs:
                    self._tokens[lang] += len(word) * count
        self._initial = tuple(self._tokens)
        self._picks: list[int] = []  # the language of each step a language chose (the window)
        self._steps: list[tuple] = []  # per step: (pick or None, dev touched, dev olds, saved per language)
        self._history: list[tuple] = [self.scores()]
        self._pending: tuple[int | None, ParityChoice] | None = None

    def choose(self, bench: Bench, respect_target: bool) -> ChoiceTuple | str:
        self._pending = None
        if bench.steps_done < self._global:
            choice = self._plain.choose(bench, respect_target)
            if isinstance(choice, str):
                return choice
            reason = self._reason("global", None, (), choice[1])
            self._pending = (None, reason)
            return Choice(*choice[:6], reason=reason)
        lang, waiting = self._language()
        if lang is None:
            return self._stuck()
        queue = self._queues[lang]
        taken = queue.take(1)
        entry = taken[0] if taken else None
        stop = self._cannot(lang, entry) or bench.stop_reason_for(entry, respect_target)
        if stop is not None:
            if entry is not None:
                heapq.heappush(queue.heap, entry)
            return stop
        assert entry is not None
        count = -entry[0]
        tie_count = countOf(self._counts[lang].values(), count) - 1  # (in C: a few µs per 1,000 pairs)
        tied = [e for e in queue.peek(min(tie_count, TIES_LISTED)) if e[0] == entry[0]] if tie_count else []
        reason = self._reason("parity", lang, tuple(self.languages[i] for i in waiting), count)
        self._pending = (lang, reason)
        pair = entry[-1]
        st = bench.state
        return Choice(pair, st.pair_counts.get(pair, count), tie_count, surface_pairs(st.surfaces, tied),
                      entry, tied[0] if tied else None, reason)

    def stop_reason(self, bench: Bench, respect_target: bool) -> str | None:
        if bench.steps_done < self._global:
            return self._plain.stop_reason(bench, respect_target)
        lang, _ = self._language()
        if lang is None:
            return self._stuck()
        best = self._queues[lang].peek(1)
        entry = best[0] if best else None
        return self._cannot(lang, entry) or bench.stop_reason_for(entry, respect_target)

    def _stuck(self) -> str:
        """Why the window variant stops when every language waits."""
        return (f"every language has chosen more than its share ({self._share:.0%}) of the last {self._size:,} merges: "
                "the window variant cannot go on (the reference stops here with an error)")

    def _cannot(self, lang: int, entry: tuple | None) -> str | None:
        """Why language ``lang``, whose turn it is, cannot choose ``entry``, its best queue
        entry (None: it has none), if it cannot."""
        if entry is not None and -entry[0] >= self._min:
            return None
        left = "no pair left" if entry is None else f"its most frequent pair occurs {plural(-entry[0], 'time')}, below min_frequency {self._min}"
        return f"{self.languages[lang]}'s turn, and {left}: parity-aware BPE stops when the language that chooses cannot"

    def peek(self, bench: Bench) -> tuple | None:
        if bench.steps_done < self._global:
            return self._plain.peek(bench)
        lang, _ = self._language()
        if lang is None:
            return None
        best = self._queues[lang].peek(1)
        return best[0] if best else None

    def after_merge(self, bench: Bench, merged: Merged) -> tuple:
        pick, _ = self._pending if self._pending is not None else (None, None)
        self._pending = None
        new = chr(merged.new_id)
        surface = bench.state.surfaces[merged.new_id]
        if merged.created and self._made.setdefault(merged.new_id, surface) != surface:
            self._made[merged.new_id] = surface  # an id made before as another token: keys moved
            self._queues = [LanguageQueue(pc, self._entry) for pc in self._counts]
        words = bench.state.words
        olds = merged.olds or [words[w].replace(new, merged.pair) for w in merged.touched]
        before = tuple(pc.get(merged.pair, 0) for pc in self._counts)  # (its count drops to 0: undo restores it)
        saved = self._recount(merged.touched, olds, merged.pair, new, forward=True)
        dev_touched: list[int] = []
        dev_olds: list[str] = []
        if self._dev is not None:
            dev_touched, dev_olds, saved = self._dev.merge(merged.pair, new)
        for lang, k in enumerate(saved):
            self._tokens[lang] -= k
        if pick is not None:
            self._picks.append(pick)
        self._steps.append((pick, dev_touched, dev_olds, saved, merged.olds, before))
        self._history.append(self.scores())
        return ()

    def undo(self, bench: Bench, event: "MergeEvent") -> None:
        pick, dev_touched, dev_olds, saved, olds, before = self._steps.pop()
        self._history.pop()
        if pick is not None:
            self._picks.pop()
        touched = event.words_touched
        new, pair = chr(event.new_id), key_of(*event.pair_ids)
        if olds is None:
            words = bench.state.words
            olds = [words[w].replace(new, pair) for w in touched]
        self._recount(touched, olds, pair, new, forward=False)
        for lang, count in enumerate(before):
            if count:
                self._counts[lang][pair] = count
                self._queues[lang].push(pair, count)
        if self._dev is not None:
            self._dev.unmerge(dev_touched, dev_olds)
        for lang, k in enumerate(saved):
            self._tokens[lang] += k

    def table_config(self, bench: Bench) -> dict[str, Any]:
        cfg = bench.config
        about: dict[str, Any] = {"variant": cfg.parity, "languages": list(self.languages), "global_merges": cfg.global_merges}
        if cfg.parity == "window":
            about.update(window=cfg.parity_window, alpha=cfg.parity_alpha)
        if self.corpora.ratio is not None:
            about["ratio"] = dict(zip(self.languages, self.corpora.ratio))
        else:
            about["dev"] = dict(self.corpora.dev_paths)
        return {"parity_aware": about}

    def describe(self) -> str:
        return f"parity-aware, {len(self.languages)} languages"

    def plain_words(self, bench: Bench) -> dict[str, int] | None:
        """Every language's words together: plain BPE chooses each merge by the counts of
        all of them (the languages' sizes decide, which is what parity corrects)."""
        return None if bench.first_step else self.corpus_counts(bench)[0]

    # ------------------------------------------------------------------ questions (the explorer's)

    @property
    def ratio_form(self) -> bool:
        return self._ratio is not None

    def scores(self) -> tuple:
        """Every language's measure now: its development text's tokens, or in the ratio form
        its corpus's compression (base symbols per token) over its target."""
        if self._ratio is None:
            return tuple(self._tokens)
        return tuple((self._initial[i] / self._tokens[i]) / self._ratio[i] for i in range(len(self._tokens)))

    def score_history(self) -> list[tuple]:
        """:meth:`scores` before the first merge and after each one since."""
        return list(self._history)

    def dev_tokens(self) -> tuple[int, ...]:
        """Every language's development text in tokens now (the corpus's, in the ratio form)."""
        return tuple(self._tokens)

    def next_pair(self, bench: Bench) -> tuple | None:
        """The pair (surfaces) the next step merges by the rules, or None when it would stop."""
        entry = self.peek(bench)
        if entry is None or -entry[0] < self._min:
            return None
        pair = entry[-1]
        surfaces = bench.state.surfaces
        return surfaces[ord(pair[0])], surfaces[ord(pair[1])]

    def heading(self, bench: Bench) -> str:
        """The variant as the config describes it (its last phrase), and what it does."""
        return f" · {bench.config.describe().rsplit(' · ', 1)[-1]}: the language served worst chooses each merge"

    def series(self) -> Series:
        """Every language's measure over the merges, and whose turn is next."""
        title = "compression/target" if self.ratio_form else "dev tokens"  # (short: plotext drops a title wider than the chart)
        return Series(tuple(self.languages), self.score_history(), title, whole=not self.ratio_form, turn=self.next_language())

    def next_pick(self, bench: Bench) -> tuple | None:
        return self.next_pair(bench)

    def turn(self) -> str | None:
        lang = self.next_language()
        return f"{lang}'s turn: its most frequent pair" if lang is not None else None

    def next_language(self) -> str | None:
        """The language that chooses the next merge (None in the hybrid's global merges, or
        when the window lets none)."""
        lang, _ = self._language()
        return None if lang is None else self.languages[lang]

    # ------------------------------------------------------------------ the work

    def _language(self) -> tuple[int | None, list[int]]:
        window = self._picks[-self._size:] if self._window else None
        return choose_language(self.scores(), self._ratio is None, window, self._size, self._share)

    def _reason(self, phase: str, lang: int | None, waiting: tuple[str, ...], count: int) -> ParityChoice:
        return ParityChoice(
            phase, None if lang is None else self.languages[lang], self.languages, self.scores(), self._ratio is not None,
            count, waiting, (self._size, self._share) if self._window else None, self._global,
        )

    def _recount(self, touched: Sequence[int], olds: Sequence[str], pair: str, new: str, forward: bool) -> list[int]:
        """Each language's pair counts, moved by the merge of ``pair`` into ``new`` in the
        words ``touched`` (their segmentations before it: ``olds``), or back (``forward``
        False); return each language's tokens the merge saved (in its training corpus).

        The changes are :func:`~bpe_tui.core.engine.rewrite.merge_word`'s, the trainer's own,
        run per language over copies of the words with that language's counts as weights. The
        merged pair itself is not among them: it goes to 0 (forward), or back to its count
        before (undo, the caller)."""
        n = len(self.languages)
        copies: list[list[str]] = [[] for _ in range(n)]
        weights: list[list[int]] = [[] for _ in range(n)]
        for w, old in zip(touched, olds):
            for lang, count in self._langs[w]:
                copies[lang].append(old)
                weights[lang].append(count)
        saved = [0] * n
        sign = 1 if forward else -1
        for lang in range(n):
            if not copies[lang]:
                continue
            deltas: dict[str, int] = {}
            _, _, saved[lang], _ = merge_word(copies[lang], range(len(copies[lang])), pair, new, weights[lang], deltas, NOWHERE, keep_old=False)
            deltas.pop(pair, None)  # (with a == b the local changes touch it too)
            pc, queue = self._counts[lang], self._queues[lang]
            for p, delta in deltas.items():
                delta *= sign
                count = pc.get(p, 0) + delta
                if count:
                    pc[p] = count
                    if delta > 0:
                        queue.push(p, count)
                elif delta:
                    del pc[p]
            if forward:
                pc.pop(pair, None)
        return saved

    def _to_ids(self, bench: Bench) -> Any:
        """How a development word becomes an id string as the trainer's words are: its bytes
        (or characters) as ids, the end-of-word marker after; a character the corpus never had
        is an id no pair holds."""
        cfg = bench.config
        to_id = bench.state.surface_to_id
        eow = cfg.end_of_word
        tail = "" if eow is None else chr(to_id[eow.encode("utf-8") if cfg.units == "bytes" else eow])
        unknown = chr(MAX_TOKEN_ID)
        if cfg.units == "bytes":
            return lambda word: utf8_as_ids(word) + tail
        table = {ord(ch): chr(i) for ch, i in to_id.items() if isinstance(ch, str) and len(ch) == 1}
        return lambda word: "".join(table.get(ord(ch), unknown) for ch in word) + tail

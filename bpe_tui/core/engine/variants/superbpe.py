"""SuperBPE: plain BPE in two stages, the second over chunks where a token may span spaces.

Liu, Hayase, Hofmann, Oh, Smith and Choi, "SuperBPE: Space Travel for Language Models"
(COLM 2025, arXiv 2503.13423).

**The problem.** Every pre-tokenizer in use cuts text at spaces before BPE sees it, so no token
ever holds a space inside it: ``by the way`` costs at least three tokens however often it
occurs. A language model then spends its context on word sequences that are, for it, as
predictable as the letters of one word.

**The curriculum.** SuperBPE trains one merge table in two stages:

1. merges 1..K are ordinary BPE under the usual pre-tokenizer (GPT-2's regex, say, or the
   preset's ``superbpe-stage1``: the authors' digit runs in threes, then GPT-2's regex without
   its contractions): they learn the subwords;
2. right after merge K (``superwords_after = K``) the corpus is cut again, far more coarsely,
   by a *stage-2 rule*, and everything between two cuts, spaces included, is one *chunk*. The
   K merges are applied to each chunk (as encoding would apply them, by rank), and BPE goes
   on over the chunks, where a pair such as ``(Ġby, Ġthe)`` now occurs and may be merged: a
   *superword*.

The trained table pre-tokenizes by the stage-2 rule alone: the stage-1 merges apply inside a
chunk exactly as they did inside its words, because encoding by rank reproduces the merges in
their order.

**The options** (the ``superbpe`` preset sets the authors' choices for their published
tokenizers; without it the first is ``regex`` and the others are off):

* ``superword_rule``: the stage-2 rule (:mod:`~bpe_tui.core.text.superword_rules`).
  ``regex`` cuts out numbers of 1-3 digits, runs of two or more punctuation marks and
  trailing spaces (the authors' training scripts since November 2025); ``digits`` cuts out
  only digit runs, in threes from the right, so a chunk runs from one number to the next,
  punctuation and line breaks inside (their published OLMo2 tokenizers, t = 180k).
* ``superword_max_words = N``: stage 2 never makes a token of more than N words (the runs
  between spaces, as their trainer counts them; the preset: 4).
* ``superword_skip_colon_space``: stage 2 never makes a token holding ``": "``.
* ``superwords_drop_unused``: at the transition, the merges are replayed over the chunks in
  order, and a merge whose pair has not occurred by its turn leaves the table (its history
  row stays, marked; its token leaves the vocabulary, and a later merge that makes it again
  gives it a new id, as their trainer does).

The two limits are what the authors' stage-2 trainer (a fork of Hugging Face tokenizers,
``BpeTrainer::do_train_extend``) refuses; here they join the trainer's constraints from the
transition on: a pair whose token they refuse is never merged, and ``forbidden_reason`` says
which limit refused it. A trainer that starts at or past K (``K = 0``, or going on from a table
of K merges or more) starts in stage 2, its corpus the chunks.

**In the trainer** this variant chooses as plain BPE does and acts at one point of the seam
(:mod:`~.seam`), ``after_step``: right after merge K's event is recorded, it keeps the words'
state for undo, installs the chunks as the corpus (``state.install_corpus``), leaves out the
merges that never occurred (``state.drop_merges``) and sets stage 2's limits
(``state.set_limit``); the step's :class:`~bpe_tui.core.engine.events.TransitionEvent` is
``state.transition`` (the trainer's ``transition``). Undoing merge K puts the words back exactly as they stood.

**What it costs.** Chunks repeat far less than words (a chunk is often a whole line), so
there are many more of them, and longer: they are counted when the trainer is built (a second
pass over the text: the words cannot say which words stood side by side, see
:func:`~bpe_tui.core.engine.counting.count_stages`), kept until the transition, and from then on the words' state at K is
kept for undo (benchmarks/superwords.py measures time and memory against plain BPE).

What the table, the views and the stage-2 limits share (which pre-tokenizer a cut table has,
what a superword is) is :mod:`~bpe_tui.core.engine.superwords`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import mul
from typing import TYPE_CHECKING, Any

from ...errors import BPEError
from ...text.superword_rules import SUPERWORD_RULES
from ..checks import check_text, checked_counts
from ..config import TrainerConfig, stage2_phrases
from ..events import TransitionEvent
from ..rewrite import merge_word
from ..speed import pair_index, utf8_as_ids
from ..superwords import is_superword, is_superword_rule, stage2_limit
from ..tiebreak import make_rule
from .options import Option
from .plain import PlainBPE
from .seam import Bench

if TYPE_CHECKING:
    from ..events import MergeEvent

__all__ = ["SuperBPE", "plain_words", "segment_chunks"]


def plain_words(bench: Bench) -> dict[str, int] | None:
    """The words (stage-1 pre-tokens) a superword trainer was built with, or None when it
    has none (it started past its transition, going on from a table)."""
    if bench.config.superwords_after is None or bench.first_step:
        return None
    words, chunks = bench.corpus_counts()
    return words if chunks is not None else None


# ---------------------------------------------------------------------- the merges over the chunks


def segment_chunks(
    chunks: Sequence[str], counts: Sequence[int], merges: Sequence[tuple[int, int, int]], surface_to_id: Mapping, name: str = "corpus",
    unused: list[int] | None = None,
) -> list[str]:
    """Each chunk's bytes with ``merges`` (``(left, right, new)`` in rank order) applied, as
    the trainer's id strings (one character per token id): the chunks' segmentations at the
    transition, equal to encoding each chunk by rank (tested against the table's encoding).

    ``unused``: a list to fill with the (0-based) ranks of the merges whose pair has not
    occurred in the chunks by the time its turn comes, reading the merges in order: neither at
    the start nor after an earlier merge (a pair that occurred and was used up by later merges
    has occurred; one that a merge of ``(a, a)`` forms and takes back at once, as the second
    ``a a`` of ``a a a a`` does, has not). Those are the merges SuperBPE's authors drop
    (``superwords_drop_unused``); their trainer replays the merges in order, so then they are,
    whatever order their parts were made in.

    The merges are replayed in order the way the trainer made them: a pair -> chunks index
    says where each pair stands, and a merge rewrites only those chunks (``str.replace``,
    left to right), filing the pairs it forms. Merging each chunk by rank on its own cost 3.7 s
    of a 4 s transition on tinyshakespeare (26,000 chunks, 1,500 merges). Replaying in order
    equals merging by rank when every merge joins tokens made before it (a trainer's merges
    do); a start table whose merges do not (one rebuilt from a rank file may use a part a later
    merge makes) is merged by rank, chunk by chunk.
    """
    missing = [b for b in range(256) if bytes([b]) not in surface_to_id]
    if missing:
        raise BPEError(f"{name}: SuperBPE's chunks need all 256 single bytes; the table lacks {len(missing)} (byte {missing[0]:#04x} first)")
    byte_ids = [surface_to_id[bytes([b])] for b in range(256)]
    if all(byte_ids[b] == b for b in range(256)):
        words = [utf8_as_ids(chunk) for chunk in chunks]
    else:
        words = ["".join(chr(byte_ids[b]) for b in chunk.encode("utf-8")) for chunk in chunks]
    made: dict[int, int] = {}  # token id -> the rank of the first merge that makes it
    for rank, (_, _, new) in enumerate(merges):
        made.setdefault(new, rank)
    if unused is None and any(made.get(a, -1) >= rank or made.get(b, -1) >= rank for rank, (a, b, _) in enumerate(merges)):
        from ..merging import merge

        ranks: dict[tuple[int, int], int] = {}
        makes: dict[tuple[int, int], int] = {}
        for rank in range(len(merges) - 1, -1, -1):  # the lowest rank of a pair wins
            a, b, new = merges[rank]
            ranks[(a, b)] = rank
            makes[(a, b)] = new
        return ["".join(map(chr, merge(list(map(ord, word)), ranks, makes))) for word in words]
    pair_counts, where, _ = pair_index(words, list(counts))
    weights = list(counts)
    occurred = set(pair_counts) if unused is not None else None  # pairs that have stood in the chunks
    for rank, (a, b, new) in enumerate(merges):
        pair = chr(a) + chr(b)
        members = where.pop(pair, None)
        if occurred is not None and unused is not None:
            if pair not in occurred:
                unused.append(rank)
                continue
            occurred.discard(pair)  # (made again later, it occurs again)
            deltas: dict[str, int] = {}
            merge_word(words, list(members or ()), pair, chr(new), weights, deltas, where, keep_old=False)
            deltas[pair] = -pair_counts.get(pair, 0)  # gone everywhere (as in Trainer._apply)
            for p, d in deltas.items():
                count = pair_counts[p] = pair_counts.get(p, 0) + d
                if count > 0:
                    occurred.add(p)
        elif members:
            merge_word(words, list(members), pair, chr(new), weights, {}, where, keep_old=False)
    return words


# ---------------------------------------------------------------------- the variant


class SuperBPE(PlainBPE):
    """Plain BPE's choice; after merge ``config.superwords_after`` the corpus becomes the
    chunks (``chunk_counts``: the corpus's stage-2 chunks with counts; None for a trainer that
    starts at or past the transition, whose words are the chunks). Made by
    :func:`~bpe_tui.core.engine.registry.variant_for` for a config with ``superwords_after``."""

    name = "superbpe"
    title = "SuperBPE (Liu et al. 2025): superwords, tokens that span spaces"
    options = (
        Option("superwords_after", int, None, flag="--superwords-after", metavar="K",
               help="superword BPE (SuperBPE): after merge K, cut the corpus by SuperBPE's rule instead, so that later merges "
               "may span spaces ('·by·the·way'); bytes, no end-of-word marker"),
        Option("superwords", bool, False, flag="--superwords",
               help="with --from: extend the table with superwords (SuperBPE's stage 2 right after its merges)"),
        Option("superword_rule", str, "regex", choices=tuple(SUPERWORD_RULES), flag="--superword-rule", label="superword rule",
               choice_labels=("regex (the authors' current rule)", "digits (their OLMo2 tokenizers')"), recounts=True,
               help="SuperBPE's stage-2 split: regex (the authors' current rule, default) or digits (only digit runs cut, in "
               "threes from the right: their published OLMo2 tokenizers')"),
        Option("superword_max_words", int, None, flag="--superword-max-words", metavar="N", label="superword words",
               note="most words in a token (blank: no limit)",
               help="stage 2: no token of more than N words (0 = no limit; the authors: 4)"),
        Option("superword_skip_colon_space", bool, False, flag="--superword-skip-colon-space", label="superword limits",
               note="no ': ' in a token",
               help="stage 2: no token holding ': ' (the authors' trainer skips them)"),
        Option("superwords_drop_unused", bool, False, flag="--superwords-drop-unused", label="unused merges",
               note="drop unused merges",
               help="at the transition, drop the merges whose pair never occurs in the chunks (the authors' trainer does)"),
    )
    token_mark = "⁀"
    token_mark_means = "superword: spans a space"
    #: The options that act only from the transition on (stage 2's).
    stage2 = ("superword_rule", "superword_max_words", "superword_skip_colon_space", "superwords_drop_unused")
    acts_after_step = True

    def __init__(self, chunk_counts: Mapping[str, int] | None = None):
        self._chunk_counts = chunk_counts
        self._chunks: tuple[list[str], list[int]] | None = None  # the chunks, until the transition
        self._stage1: tuple | None = None  # the words' state at the transition, for undo
        self._at = -1  # the merge after which to cross to the chunks (-1: none ahead)
        self.k: int | None = None  # the config's superwords_after

    # ------------------------------------------------------------------ the declaration

    @classmethod
    def wanted(cls, config: TrainerConfig) -> bool:
        return config.superwords_after is not None

    @classmethod
    def from_config(cls, config: TrainerConfig, chunk_counts: Mapping[str, int] | None = None) -> "SuperBPE":
        return cls(chunk_counts)

    def summary(self, bench: Bench) -> list[str]:
        """A run that ended at or before the transition says that it made no superwords."""
        if self.k is not None and bench.steps_done <= self.k:
            return [f"no superwords: training ended at merge {bench.steps_done:,}, before the transition after merge {self.k:,}"]
        return []

    @classmethod
    def about_table(cls, config: Mapping[str, Any], merges: int | None = None) -> list[tuple[str, str]]:
        """A superword table's two stages (see :func:`~bpe_tui.core.tables.summary.describe_superwords`)."""
        k = config.get("superwords_after")
        if not isinstance(k, int) or isinstance(k, bool):
            return []
        from ...tables.summary import describe_superwords

        stages = describe_superwords(k, config.get("pretokenizer"), config, merges)
        return [("superwords (SuperBPE)", stages)] if stages else []

    @classmethod
    def config_fields(cls, given: Mapping[str, Any], start_merges: int | None, name: Callable[[str], str], requested: bool) -> dict[str, Any]:
        """The transition (``superwords_after``, or with a start table ``superwords``: right
        after its merges) and stage 2's options, which need a transition."""
        k, extend = given.get("superwords_after"), bool(given.get("superwords"))
        if extend and k is not None:
            raise BPEError(f"{name('superwords')} and {name('superwords_after')} do not go together: give one of them")
        if extend and start_merges is None:
            raise BPEError(f"{name('superwords')} extends a table (--from TABLE); to train superwords from scratch give {name('superwords_after')} K")
        if start_merges is not None and extend:
            k = start_merges
        elif start_merges is not None and k is not None and k < start_merges:
            raise BPEError(
                f"{name('superwords_after')} {k:,} is below the {start_merges:,} merges the start table already has "
                f"(use {name('superwords')} to go on with superwords right after them)"
            )
        stage2 = {key: given[key] for key in cls.stage2 if given.get(key) is not None}
        if stage2 and k is None:
            first = name(next(iter(stage2)))
            raise BPEError(f"{first} is an option of SuperBPE's stage 2: give {name('superwords_after')} K (or {name('superwords')} with --from) as well")
        most = stage2.get("superword_max_words")
        if most is not None:
            if most < 0:
                raise BPEError(f"{name('superword_max_words')} must be 0 (no limit) or more, not {most}")
            stage2["superword_max_words"] = most or None
        fields: dict[str, Any] = {"superwords_after": k} if (k is not None or start_merges is None) else {}
        return {**fields, **stage2}

    @classmethod
    def marks(cls, surface: Any) -> bool:
        return isinstance(surface, (str, bytes)) and is_superword(surface)

    def heading(self, bench: Bench) -> str:
        """Where the transition stands, and stage 2's options that differ from the defaults."""
        cfg = bench.config
        k = cfg.superwords_after
        transition = bench.state.transition
        options = self.stage2_options(cfg, len(bench.state.dropped[0]))
        if transition is not None:
            return f" · {self.token_mark} superwords from merge {transition.step + 1:,}" + (
                f" ({', '.join(options)})" if options else ": pairs may span spaces")
        if k is not None:
            return f" · superwords after merge {k:,}" + (f" ({', '.join(options)})" if options else "")
        return ""

    def recut_step(self) -> int | None:
        return self.k

    @classmethod
    def config_notes(cls, config: TrainerConfig) -> list[str]:
        """The preset without a transition trained stage 1 only: a note, so nobody takes the
        table for SuperBPE's."""
        if config.preset != "superbpe" or config.superwords_after is not None:
            return []
        return [
            "trained SuperBPE's stage 1 only (ordinary BPE under the authors' stage-1 rules, their baseline): "
            "--preset superbpe makes superwords from --superwords-after K on"
        ]

    @classmethod
    def save_needs(cls, config: TrainerConfig) -> dict[str, bool]:
        """A superword table needs a format that stores its pre-tokenizer."""
        return {"superwords": config.superwords_after is not None}

    @classmethod
    def table_save_needs(cls, table: Any) -> dict[str, bool]:
        """A table whose pre-tokenizer is a stage-2 rule is a superword table."""
        return {"superwords": is_superword_rule(table.pretokenizer)}

    @staticmethod
    def stage2_options(config: TrainerConfig, dropped: int = 0) -> list[str]:
        """The stage-2 options that differ from the defaults, each a short phrase."""
        return stage2_phrases({**{name: getattr(config, name) for name in SuperBPE.stage2}, "superwords_dropped": dropped})

    # ------------------------------------------------------------------ the seam

    def attach(self, bench: Bench) -> None:
        cfg = bench.config
        k = self.k = cfg.superwords_after
        if k is None:
            raise BPEError("SuperBPE needs config.superwords_after (the merge after which superwords start)")
        if k <= bench.first_step:  # started past it: the corpus given is the chunks
            self._start_in_stage2(bench, k)
            return
        if self._chunk_counts is None:
            raise BPEError(
                f"{bench.name}: superwords_after needs the corpus's chunks as well as its words "
                "(build the trainer with from_text or from_files, or pass chunk_counts)"
            )
        texts, counts = checked_counts(self._chunk_counts)
        check_text(texts, cfg, bench.name)
        self._chunks, self._chunk_counts = (texts, counts), None
        self._at = k

    def after_step(self, bench: Bench, event: "MergeEvent") -> None:
        if event.step == self._at:
            self._cross_to_chunks(bench)

    def undo(self, bench: Bench, event: "MergeEvent") -> None:
        transition = bench.state.transition
        if self._stage1 is not None and transition is not None and event.step == transition.step:
            self._back_to_words(bench)

    def plain_words(self, bench: Bench) -> dict[str, int] | None:
        """The stage-1 words, once past the transition (before it, the table is plain BPE's)."""
        return plain_words(bench) if bench.state.transition is not None else None

    def corpus_counts(self, bench: Bench) -> tuple[dict[str, int], dict[str, int] | None]:
        st = bench.state
        if self._stage1 is not None:  # past the transition: the words were kept for undo
            words = dict(zip(self._stage1[0], self._stage1[1]))
            return words, dict(zip(st.word_text, st.counts))
        here = dict(zip(st.word_text, st.counts))
        return here, (dict(zip(*self._chunks)) if self._chunks is not None else None)

    # ------------------------------------------------------------------ the transition

    def _start_in_stage2(self, bench: Bench, k: int) -> None:
        """A trainer built at or past the transition: its words are the chunks. Stage 2's
        limits hold from the start, and a start table's merges that never occur in the chunks
        are dropped (``superwords_drop_unused``)."""
        cfg = bench.config
        st = bench.state
        dropped: list[int] = []
        shown: tuple = ()
        words = st.words
        if cfg.superwords_drop_unused and st.inherited:
            segmented = segment_chunks(st.word_text, st.counts, st.inherited, st.surface_to_id, bench.name, dropped)
            shown = st.drop_merges(bench.merge_list(), dropped)
            if dropped:
                words = segmented
        base = st.base_count
        rule = None
        if st.inherited and cfg.tie_break == "hf" and all(len(s) == 1 for s in st.surfaces[:base]):
            # The authors' trainer numbers the tokens of the table it extends afresh, as a
            # fresh run does: the bytes by their characters (Ġ after the letters), then the
            # merged tokens in the table's order. A table whose single bytes come first can
            # be ordered so; any other keeps its own ids.
            rule = make_rule(cfg.tie_break, st.surfaces, cfg.units, None, base, len(st.special_ids), keep_ids=False)
        if rule is not None:
            bench.queue.set_rule(rule)
        if dropped or rule is not None:
            st.install_corpus(st.word_text, st.counts, words)
        st.set_limit(stage2_limit(cfg), "SuperBPE's stage-2 limits")
        st.transition = TransitionEvent(k, 0, len(st.word_text), 0, st.total_tokens, cfg.superword_rule, shown)

    def _cross_to_chunks(self, bench: Bench) -> None:
        """The transition, right after merge K: keep the words' state for undo, cut the corpus
        into chunks, apply the K merges to each by rank (dropping those that never occur, with
        ``superwords_drop_unused``), count their pairs afresh, and let stage 2's limits in."""
        assert self._chunks is not None
        st = bench.state
        texts, counts = self._chunks
        self._stage1 = (st.word_text, st.counts, st.words, st.initial_total_tokens)
        words_before, tokens_before = len(st.word_text), st.total_tokens
        cfg = bench.config
        dropped: list[int] | None = [] if cfg.superwords_drop_unused else None
        merges = bench.merge_list()
        segmented = segment_chunks(texts, counts, merges, st.surface_to_id, bench.name, dropped)
        shown = st.drop_merges(merges, dropped or [])
        st.install_corpus(texts, counts, segmented)
        st.set_limit(stage2_limit(cfg), "SuperBPE's stage-2 limits")
        st.initial_total_tokens = sum(map(mul, map(len, map(str.encode, texts)), counts))
        st.transition = TransitionEvent(
            bench.steps_done, words_before, len(texts), tokens_before, st.total_tokens, cfg.superword_rule, shown
        )
        self._at = -1

    def _back_to_words(self, bench: Bench) -> None:
        """Undo the transition: the words exactly as they stood after merge K, the merges
        dropped there back, stage 2's limits gone."""
        st = bench.state
        assert self._stage1 is not None and st.transition is not None
        texts, counts, words, initial = self._stage1
        self._stage1 = None
        st.restore_dropped()
        st.set_limit(None)
        st.install_corpus(texts, counts, words)
        st.initial_total_tokens = initial
        self._at = st.transition.step
        st.transition = None

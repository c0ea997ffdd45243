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
state for undo, installs the chunks as the corpus (``trainer._install_corpus``), leaves out the
merges that never occurred (``trainer._drop_merges``) and sets stage 2's limits
(``trainer._set_limit``); the step's :class:`~bpe_tui.core.engine.events.TransitionEvent` is
``trainer.transition``. Undoing merge K puts the words back exactly as they stood.

**What it costs.** Chunks repeat far less than words (a chunk is often a whole line), so
there are many more of them, and longer: they are counted when the trainer is built (a second
pass over the text: the words cannot say which words stood side by side, see
:func:`count_stages`), kept until the transition, and from then on the words' state at K is
kept for undo (benchmarks/superwords.py measures time and memory against plain BPE).

What the table, the views and the stage-2 limits share (which pre-tokenizer a cut table has,
what a superword is) is :mod:`~bpe_tui.core.engine.superwords`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import mul
from typing import Any

from ...errors import BPEError
from ..checks import check_text, checked_counts
from ..config import TrainerConfig
from ..events import TransitionEvent
from ..rewrite import merge_word
from ..speed import pair_index, utf8_as_ids
from ..superwords import chunk_config, stage2_limit
from ..tiebreak import make_rule
from .plain import PlainBPE

__all__ = ["SuperBPE", "count_each", "count_stages", "no_chunks_from_counts", "plain_words", "segment_chunks"]


# ---------------------------------------------------------------------- counting both cuts


def count_stages(
    count: Callable[[list[TrainerConfig]], list[dict[str, int]]], config: TrainerConfig, first_step: int,
) -> tuple[dict[str, int], dict[str, int] | None]:
    """``(word counts, chunk counts)`` of a corpus, ``count`` counting it under each of a
    list of configs (one dict each, in one pass or several).

    Without superwords_after: the words, no chunks. With it: the words under the config's
    pre-tokenizer and the chunks under SuperBPE's stage-2 rule, or, for a trainer that starts
    at or past the transition, only the chunks, as its words."""
    k = config.superwords_after
    if k is None:
        return count([config])[0], None
    if k <= first_step:
        return count([chunk_config(config)])[0], None
    words, chunks = count([config, chunk_config(config)])
    return words, chunks


def count_each(count: Callable[[TrainerConfig, bool], dict[str, int]]) -> Callable[[list[TrainerConfig]], list[dict[str, int]]]:
    """Count under several configs by counting once per config (files can be read again):
    ``count(config, first)``, ``first`` true for the first counting only (a read report is
    filled by it alone: the others read the same records)."""
    return lambda configs: [count(c, k == 0) for k, c in enumerate(configs)]


def no_chunks_from_counts(config: TrainerConfig, paths: list[str]) -> None:
    """Refuse SuperBPE on word-count files: they cannot say which words stood side by side."""
    if config.superwords_after is not None:
        from ...text.corpus import corpus_where

        raise BPEError(f"{corpus_where(paths)}: superwords_after needs the text itself: word-count files cannot say which words stood side by side")


def plain_words(trainer: Any) -> dict[str, int] | None:
    """The words (stage-1 pre-tokens) a superword trainer was built with, or None when it
    has none (it started past its transition, going on from a table)."""
    if trainer.config.superwords_after is None or trainer.first_step:
        return None
    words, chunks = trainer.corpus_counts()
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
    :func:`~bpe_tui.core.engine.variants.variant_for` for a config with ``superwords_after``."""

    name = "superbpe"
    acts_after_step = True

    def __init__(self, chunk_counts: Mapping[str, int] | None = None):
        self._chunk_counts = chunk_counts
        self._chunks: tuple[list[str], list[int]] | None = None  # the chunks, until the transition
        self._stage1: tuple | None = None  # the words' state at the transition, for undo
        self._at = -1  # the merge after which to cross to the chunks (-1: none ahead)

    # ------------------------------------------------------------------ the seam

    def attach(self, trainer: Any) -> None:
        cfg = trainer.config
        k = cfg.superwords_after
        if k is None:
            raise BPEError("SuperBPE needs config.superwords_after (the merge after which superwords start)")
        if k <= trainer.first_step:  # started past it: the corpus given is the chunks
            self._start_in_stage2(trainer, k)
            return
        if self._chunk_counts is None:
            raise BPEError(
                f"{trainer.name}: superwords_after needs the corpus's chunks as well as its words "
                "(build the trainer with from_text or from_files, or pass chunk_counts)"
            )
        texts, counts = checked_counts(self._chunk_counts)
        check_text(texts, cfg, trainer.name)
        self._chunks, self._chunk_counts = (texts, counts), None
        self._at = k

    def after_step(self, trainer: Any, event: Any) -> None:
        if event.step == self._at:
            self._cross_to_chunks(trainer)

    def undo(self, trainer: Any, event: Any) -> None:
        transition = trainer.transition
        if self._stage1 is not None and transition is not None and event.step == transition.step:
            self._back_to_words(trainer)

    def plain_words(self, trainer: Any) -> dict[str, int] | None:
        """The stage-1 words, once past the transition (before it, the table is plain BPE's)."""
        return plain_words(trainer) if trainer.in_superword_stage else None

    def corpus_counts(self, trainer: Any) -> tuple[dict[str, int], dict[str, int] | None]:
        if self._stage1 is not None:  # past the transition: the words were kept for undo
            words = dict(zip(self._stage1[0], self._stage1[1]))
            return words, dict(zip(trainer._word_text, trainer._counts))
        here = dict(zip(trainer._word_text, trainer._counts))
        return here, (dict(zip(*self._chunks)) if self._chunks is not None else None)

    # ------------------------------------------------------------------ the transition

    def _start_in_stage2(self, trainer: Any, k: int) -> None:
        """A trainer built at or past the transition: its words are the chunks. Stage 2's
        limits hold from the start, and a start table's merges that never occur in the chunks
        are dropped (``superwords_drop_unused``)."""
        cfg = trainer.config
        dropped: list[int] = []
        shown: tuple = ()
        words = trainer._words
        if cfg.superwords_drop_unused and trainer._inherited:
            segmented = segment_chunks(trainer._word_text, trainer._counts, trainer._inherited, trainer._surface_to_id, trainer.name, dropped)
            shown = trainer._drop_merges(dropped)
            if dropped:
                words = segmented
        base = trainer._base_count
        rule = None
        if trainer._inherited and cfg.tie_break == "hf" and all(len(s) == 1 for s in trainer._surfaces[:base]):
            # The authors' trainer numbers the tokens of the table it extends afresh, as a
            # fresh run does: the bytes by their characters (Ġ after the letters), then the
            # merged tokens in the table's order. A table whose single bytes come first can
            # be ordered so; any other keeps its own ids.
            rule = make_rule(cfg.tie_break, trainer._surfaces, cfg.units, None, base, len(trainer._special_ids), keep_ids=False)
        if dropped or rule is not None:
            trainer._install_corpus(trainer._word_text, trainer._counts, words, rule)
        trainer._set_limit(stage2_limit(cfg))
        trainer.transition = TransitionEvent(k, 0, len(trainer._word_text), 0, trainer._total_tokens, cfg.superword_rule, shown)

    def _cross_to_chunks(self, trainer: Any) -> None:
        """The transition, right after merge K: keep the words' state for undo, cut the corpus
        into chunks, apply the K merges to each by rank (dropping those that never occur, with
        ``superwords_drop_unused``), count their pairs afresh, and let stage 2's limits in."""
        assert self._chunks is not None
        texts, counts = self._chunks
        self._stage1 = (trainer._word_text, trainer._counts, trainer._words, trainer.initial_total_tokens)
        words_before, tokens_before = len(trainer._word_text), trainer._total_tokens
        cfg = trainer.config
        dropped: list[int] | None = [] if cfg.superwords_drop_unused else None
        segmented = segment_chunks(texts, counts, trainer.merge_list(), trainer._surface_to_id, trainer.name, dropped)
        shown = trainer._drop_merges(dropped or [])
        trainer._install_corpus(texts, counts, segmented)
        trainer._set_limit(stage2_limit(cfg))
        trainer.initial_total_tokens = sum(map(mul, map(len, map(str.encode, texts)), counts))
        trainer.transition = TransitionEvent(
            trainer.steps_done, words_before, len(texts), tokens_before, trainer._total_tokens, cfg.superword_rule, shown
        )
        self._at = -1

    def _back_to_words(self, trainer: Any) -> None:
        """Undo the transition: the words exactly as they stood after merge K, the merges
        dropped there back, stage 2's limits gone."""
        assert self._stage1 is not None and trainer.transition is not None
        texts, counts, words, initial = self._stage1
        self._stage1 = None
        trainer._restore_dropped()
        trainer._set_limit(None)
        trainer._install_corpus(texts, counts, words)
        trainer.initial_total_tokens = initial
        self._at = trainer.transition.step
        trainer.transition = None

"""The guided tour (``bpe-tui learn``): its stops as data, and how the learner's answers are checked.

A *stop* is one worked example from ``corpora/`` (a corpus and the rules its tutorial uses),
the merge step the explorer stands at when the stop opens, a few sentences, and usually a
question the learner answers with keys: a :class:`PairQuestion` ("which pair merges next?",
answered by choosing a pair in the pair table) or a :class:`ChoiceQuestion` (press 1, 2, 3 ...).
Answers are checked against the trainer as it stands, never against a stored answer, so the
tour cannot mark a right answer wrong.

The sentences state facts: which pair is merged at which step, how a word encodes. Each stop
lists those facts in ``merges`` / ``encodes`` (and the merges popular tutorials narrate but
BPE does not make in ``not_merges``), and the tests replay every stop with the real
:class:`~bpe_tui.core.engine.trainer.Trainer`: the tour never narrates a merge the trainer does not do.

Nothing here imports the UI; ``bpe_tui.ui.views.tour`` shows the stops and drives the explorer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.config import TrainerConfig
from ..engine.trainer import Trainer
from ..engine.units import visible
from ..errors import BPEError
from ..shipped import shipped


def show_pair(pair: tuple) -> str:
    """A pair as the tour writes it: ``(lowe, s)``."""
    return f"({visible(pair[0])}, {visible(pair[1])})"


# ---------------------------------------------------------------------- worked examples


@dataclass(frozen=True)
class Example:
    """A worked example shipped with bpe-tui (``corpora/``) and the rules (TrainerConfig keywords) to train it with."""

    corpus: str
    rules: Mapping[str, object]

    @property
    def path(self) -> Path:
        return shipped(self.corpus)

    def config(self) -> TrainerConfig:
        return TrainerConfig(**self.rules)  # type: ignore[arg-type]

    def describe(self) -> str:
        """``court.txt · chars · whitespace · first-seen · eow </w>``"""
        return f"{self.corpus} · {self.config().describe()}"

    def trainer(self) -> Trainer:
        """A fresh trainer on this example, at step 0 (BPEError if the corpus is missing)."""
        if not self.path.is_file():
            raise BPEError(f"{self.path}: the worked example is missing from the installed package (reinstall bpe-tui)")
        return Trainer.from_files([str(self.path)], self.config())


CLASSIC_LOW = Example("low_lower_lowest.txt", {"preset": "classic"})
LEXICAL_MAX_LOW = Example("low_lower_lowest.txt", {"preset": "classic", "tie_break": "lexical-max"})
COURT = Example("court.txt", {"preset": "classic"})
CAT_SAT = Example("cat_sat.txt", {"preset": "classic"})
CS336 = Example("cs336_example.txt", {"preset": "gpt2", "pretokenizer": "whitespace"})


# ---------------------------------------------------------------------- checking answers


@dataclass(frozen=True)
class Verdict:
    """The outcome of one answer: right or not, and what to tell the learner."""

    correct: bool
    message: str


@dataclass(frozen=True)
class PairQuestion:
    """"Which pair merges next?", answered by choosing a pair in the pair table.

    ``hint`` is said after a wrong answer, after the true one: what the stop's text taught.
    Why the winner won a tie is the trainer's to say (``MergeEvent.explanation``), once the
    explorer has made the merge.
    """

    prompt: str
    hint: str = ""
    kind: str = field(default="pair", init=False)

    def answer(self, trainer: Trainer) -> tuple | None:
        """The pair the trainer merges next (None when nothing is left to merge)."""
        top = trainer.top_pairs(1)
        return top[0][0] if top else None

    def check(self, trainer: Trainer, pair: tuple) -> Verdict:
        truth = self.answer(trainer)
        if truth is None:
            return Verdict(False, "No pair is left to merge here.")
        count = trainer.pair_count(truth)
        number = trainer.steps_done + 1
        if tuple(pair) == truth:
            return Verdict(True, f"Right: merge {number} is {show_pair(truth)}, {count} times.")
        wrong = f"Not {show_pair(pair)} ({trainer.pair_count(tuple(pair))} times): merge {number} is {show_pair(truth)}, {count} times."
        return Verdict(False, f"{wrong} {self.hint}".rstrip())


@dataclass(frozen=True)
class ChoiceQuestion:
    """A question with numbered choices (keys 1, 2, 3 ...).

    ``truth(trainer)`` works out the right choice's text from the trainer as it stands, so the
    choices are claims the check verifies, not a stored answer key. ``why`` follows the answer.
    """

    prompt: str
    choices: tuple[str, ...]
    truth: Callable[[Trainer], str]
    why: str = ""
    kind: str = field(default="choice", init=False)

    def answer(self, trainer: Trainer) -> int:
        """The 0-based index of the right choice."""
        truth = self.truth(trainer)
        if truth not in self.choices:
            raise BPEError(f"the tour's question {self.prompt!r} has no right choice ({truth!r})")
        return self.choices.index(truth)

    def check(self, trainer: Trainer, index: int) -> Verdict:
        if not 0 <= index < len(self.choices):
            return Verdict(False, f"Choose 1 to {len(self.choices)}.")
        right = self.answer(trainer)
        verdict = "Right" if index == right else f"Not {index + 1}"
        return Verdict(index == right, f"{verdict}: the answer is {right + 1}) {self.choices[right]}. {self.why}".rstrip())


Question = PairQuestion | ChoiceQuestion


# -- what the choice questions ask of the trainer


def first_whole_step(word: str) -> Callable[[Trainer], str]:
    """The merge after which ``word`` is one token (trained on from step 0 on a twin trainer)."""

    def truth(trainer: Trainer) -> str:
        twin = Trainer({trainer.word_text(i): trainer.word_frequency(i) for i in range(trainer.word_count)}, trainer.config)
        while len(twin.segmentation(word)) > 1:
            if twin.step() is None:
                return "never"
        return str(twin.steps_done)

    return truth


def dropout_one(word: str) -> Callable[[Trainer], str]:
    """What ``word`` encodes to when every merge is skipped (BPE-dropout with p = 1)."""

    def truth(trainer: Trainer) -> str:
        return " + ".join(visible(s) for _, s in trainer.table.pieces(word, dropout=1.0, seed=0))

    return truth


def round_trip(word: str) -> Callable[[Trainer], str]:
    """What decoding the ids of ``word`` gives back, quoted."""

    def truth(trainer: Trainer) -> str:
        table = trainer.table
        return repr(table.decode(table.encode(word)))

    return truth


# ---------------------------------------------------------------------- stops


@dataclass(frozen=True)
class Merge:
    """A merge a stop's text states: at ``step`` (1-based) the trainer merges ``pair``, ``count`` times."""

    step: int
    pair: tuple
    count: int


@dataclass(frozen=True)
class Stop:
    """One stop of the tour (see the module docstring)."""

    title: str
    example: Example
    step: int
    text: str
    question: Question | None = None
    #: Merges the text states, checked against the Trainer by the tests.
    merges: tuple[Merge, ...] = ()
    #: (step, pair) that tutorials narrate and BPE does not make: the trainer's merge differs.
    not_merges: tuple[tuple[int, tuple], ...] = ()
    #: (step, pairs) the text or a hint says tied with that step's winner (all of them).
    ties: tuple[tuple[int, tuple], ...] = ()
    #: (text, tokens) the stop says the text encodes to, at the stop's step.
    encodes: tuple[tuple[str, tuple], ...] = ()
    #: Text to put in the explorer's encode box, and the BPE-dropout probability to show it with.
    encode_text: str | None = None
    dropout: float | None = None


STOPS: tuple[Stop, ...] = (
    Stop(
        "Pairs, counted",
        CLASSIC_LOW,
        0,
        "Welcome. BPE starts from characters: each word is spelled out, with </w> marking its end. "
        "The pair table counts each adjacent pair, weighted by its word's count: (l, o) is in low ×5, "
        "lower ×2 and lowest ×3, 10 times, and so is (o, w). Each step merges the most frequent pair "
        "into one new token, then counts again; a rule settles ties.",
        PairQuestion("Which pair merges first?"),
        merges=(Merge(1, ("l", "o"), 10),),
        ties=((1, (("o", "w"),)),),
    ),
    Stop(
        "Watch a word become one token",
        CLASSIC_LOW,
        2,
        "After (l, o) and (lo, w) every word starts with the token low. Press space to step and watch "
        "the corpus: each merge glues two chips into one. (low, </w>) comes next, and low is a single "
        "token; the other words need more merges.",
        ChoiceQuestion(
            "After which merge is lowest one token?",
            ("5", "6", "7", "8"),
            first_whole_step("lowest"),
            "(low, e), (lowe, s), (lowes, t) and (lowest, </w>) are merges 4 to 7.",
        ),
        merges=(
            Merge(1, ("l", "o"), 10), Merge(2, ("lo", "w"), 10), Merge(3, ("low", "</w>"), 5),
            Merge(4, ("low", "e"), 5), Merge(5, ("lowe", "s"), 3), Merge(6, ("lowes", "t"), 3), Merge(7, ("lowest", "</w>"), 3),
        ),
    ),
    Stop(
        "A tutorial's wrong turn",
        CLASSIC_LOW,
        4,
        "A popular tutorial says merge 5 is (e, s). Look at the corpus now: every e sits inside the "
        "token lowe, so the pair (e, s) is gone; the pair table has (lowe, s) at 3 instead. BPE can "
        "only merge pairs that are there after the earlier merges.",
        PairQuestion("Which pair merges next?", "There is no (e, s) any more."),
        merges=(Merge(5, ("lowe", "s"), 3),),
        not_merges=((5, ("e", "s")),),
    ),
    Stop(
        "Ties decide: the court",
        COURT,
        1,
        "the court held that the court found. Merge 1 was (t, h): four pairs tied at 3 "
        "((t, h), (h, e), (o, u), (t, </w>)) and first-seen took the first. A well-known write-up "
        "says merge 2 is (th, e); count it: th e is in 'the' twice, but 'that' has th a, so only 2.",
        PairQuestion("Which pair merges next?", "(th, e) occurs only twice."),
        merges=(Merge(1, ("t", "h"), 3), Merge(2, ("o", "u"), 3), Merge(3, ("t", "</w>"), 3), Merge(4, ("th", "e"), 2)),
        not_merges=((2, ("th", "e")),),
        ties=((1, (("h", "e"), ("o", "u"), ("t", "</w>"))), (2, (("t", "</w>"),))),
    ),
    Stop(
        "The cat sat: count before you guess",
        CAT_SAT,
        0,
        "the cat sat on the mat / the dog sat on the log / a cat and a dog. One guide expects (th, e) "
        "first; it cannot be: there is no token th yet. Count instead: (a, t) is in cat ×2, sat ×2 and "
        "mat, 5 times; (t, h) only in 'the' ×4.",
        PairQuestion("Which pair merges first?"),
        merges=(Merge(1, ("a", "t"), 5), Merge(3, ("t", "h"), 4)),
        not_merges=((1, ("th", "e")),),
    ),
    Stop(
        "Same corpus, another tie-break",
        LEXICAL_MAX_LOW,
        0,
        "low, lower, lowest again, now with lexical-max (GPT-2-style trainers, CS336): on a tie the "
        "greatest pair wins. (l, o) and (o, w) still tie at 10, and o w > l o. Both rules reach low in "
        "two merges, by different routes: here (o, w) then (l, ow).",
        PairQuestion("Which pair merges first under lexical-max?"),
        merges=(Merge(1, ("o", "w"), 10), Merge(2, ("l", "ow"), 10)),
        ties=((1, (("l", "o"),)),),
        not_merges=((1, ("l", "o")),),
    ),
    Stop(
        "Bytes: CS336's example",
        CS336,
        0,
        "Now UTF-8 bytes instead of characters, no end marker, lexical-max, as in Stanford CS336's "
        "handout: low ×5, lower ×2, widest ×3, newest ×6. (s, t) and (e, s) tie at 9; s > e, so "
        "(s, t) goes first. The next five are (e, st), (o, w), (l, ow), (w, est), (n, e): the handout's.",
        PairQuestion("Which pair merges first?"),
        merges=(
            Merge(1, ("s", "t"), 9), Merge(2, ("e", "st"), 9), Merge(3, ("o", "w"), 7),
            Merge(4, ("l", "ow"), 7), Merge(5, ("w", "est"), 6), Merge(6, ("n", "e"), 6),
        ),
        not_merges=((1, ("e", "s")),),
        ties=((1, (("e", "s"),)),),
    ),
    Stop(
        "BPE-dropout on one word",
        CLASSIC_LOW,
        7,
        "BPE-dropout (Provilkov et al., 2020) skips each merge that could apply with probability p "
        "while encoding, so one word gets many segmentations: a model trained on them cannot lean on "
        "one split. The encode box holds lowest with dropout on: e goes there, ctrl+r resamples, escape leaves.",
        ChoiceQuestion(
            "With p = 1 every merge is skipped. What is lowest then?",
            ("lowest</w>", "low + est</w>", "l + o + w + e + s + t + </w>"),
            dropout_one("lowest"),
            "Nothing merges, so the word stays in its base symbols.",
        ),
        encodes=(("lowest", ("lowest</w>",)),),
        encode_text="lowest lowest lowest",
        dropout=0.3,
    ),
    Stop(
        "Round trip with an unseen word",
        CLASSIC_LOW,
        7,
        "slowest is not in the corpus, yet it encodes: s + lowest</w>, pieces the merges built. "
        "Encoding never fails on new words made of known characters; it just uses more tokens. "
        "Decoding joins the tokens' text again.",
        ChoiceQuestion(
            "What does decoding the ids of slowest give back?",
            ("'slowest'", "'slowest '", "'s lowest'"),
            round_trip("slowest"),
            "The end-of-word marker </w> decodes as a space.",
        ),
        encodes=(("slowest", ("s", "lowest</w>")),),
        encode_text="slowest",
        dropout=0.0,
    ),
    Stop(
        "Your turn",
        COURT,
        0,
        "That is the tour. Step on through the court with space, undo with b, jump with g, open any "
        "corpus with o. The whole algorithm fits in one short file: bpe_tui/core/teaching/educational.py "
        "(python -m bpe_tui.core.teaching.educational prints a trace).",
    ),
)


# ---------------------------------------------------------------------- the tour's state


class Tour:
    """Where the learner is in the tour: the current stop and the verdict on its question."""

    def __init__(self, stops: Sequence[Stop] = STOPS, start: int = 0):
        if not stops:
            raise BPEError("the tour has no stops")
        if not 0 <= start < len(stops):
            raise BPEError(f"the tour has stops 1 to {len(stops)}, not {start + 1}")
        self.stops = tuple(stops)
        self.index = start
        #: The verdict on the current stop's question (None: not answered yet).
        self.verdict: Verdict | None = None

    @property
    def stop(self) -> Stop:
        return self.stops[self.index]

    @property
    def waiting(self) -> str | None:
        """The kind of answer the tour waits for ("pair", "choice") or None."""
        question = self.stop.question
        return question.kind if question is not None and self.verdict is None else None

    def go(self, delta: int) -> bool:
        """Move ``delta`` stops on (or back); False at either end."""
        index = self.index + delta
        if not 0 <= index < len(self.stops):
            return False
        self.index = index
        self.verdict = None
        return True

    def answer(self, trainer: Trainer, answer: tuple | int) -> Verdict | None:
        """Check an answer (a pair or a 0-based choice) against the trainer; None when the
        current stop is not waiting for that kind of answer."""
        question = self.stop.question
        kind = "pair" if isinstance(answer, tuple) else "choice"
        if question is None or self.waiting != kind:
            return None
        self.verdict = question.check(trainer, answer)  # type: ignore[arg-type]
        return self.verdict

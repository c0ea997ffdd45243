"""Keeping a variant honest: its errors as one line, and a check mode that recounts.

A variant from outside the package (``--variant module:Class``, ``Trainer(...,
variant=MyVariant())``) is code the trainer has never seen. Two things protect the person
running it:

* **Its errors are one line.** Every hook it runs is called through :func:`guard`: an
  exception other than a :class:`~bpe_tui.core.errors.BPEError` (which is one line already)
  becomes a :class:`~bpe_tui.core.errors.VariantError` naming the variant, the hook and what
  it raised. The trainer takes back whatever the failed step had done (see
  ``Trainer._apply``), so it stays usable. The built-in variants' hooks are called directly:
  plain BPE pays nothing for this.
* **Check mode** (:class:`StateCheck`; ``Trainer(..., check=True)``, ``--check-variant``)
  recounts the whole state after every step and undo, as the property tests do, and names
  the first thing that disagrees: a pair count that is wrong or went negative, a token id no
  surface stands for (or one taken out of the vocabulary) left in a word, a word whose
  tokens no longer spell it, the token total or the pair -> words index off. Slow (a recount
  of the corpus per step), so it is for trying a variant, not for training with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import BPEError, VariantError, one_line
from .speed import pairs_of

if TYPE_CHECKING:
    from .variants.seam import Bench, Variant

__all__ = ["StateCheck", "guard", "guarded", "is_built_in", "variant_label"]

F = TypeVar("F", bound=Callable[..., Any])


def variant_label(variant: "Variant") -> str:
    """How messages name a variant: ``module:Class`` for one from outside the package, its
    name for a built-in."""
    cls = type(variant)
    if is_built_in(variant):
        return variant.name or cls.__name__
    return f"{cls.__module__}:{cls.__qualname__}"


def is_built_in(variant: "Variant") -> bool:
    """Whether the variant's class is one of bpe_tui's own."""
    return type(variant).__module__.startswith("bpe_tui.")


def _failed(variant: "Variant", hook: str, exc: Exception) -> VariantError:
    return VariantError(f"variant {variant_label(variant)}: {hook} raised {one_line(exc)}")


def guard(variant: "Variant", method: F) -> F:
    """``method`` (a hook of ``variant``) as the trainer calls it: itself for a built-in;
    for any other, a function whose errors are one line (see the module docstring)."""
    if is_built_in(variant):
        return method
    hook = getattr(method, "__name__", "hook")

    def guarded_call(*args: Any) -> Any:
        try:
            return method(*args)
        except BPEError:
            raise
        except Exception as exc:
            raise _failed(variant, hook, exc) from exc

    return guarded_call  # type: ignore[return-value]


def guarded(variant: "Variant", hook: str, *args: Any) -> Any:
    """Call ``variant``'s hook named ``hook`` with ``args``, its errors made one line."""
    return guard(variant, getattr(variant, hook))(*args)


class StateCheck:
    """Check mode: after a step or an undo, the incremental state against a recount (see the
    module docstring). Called with what just happened ("step" or "undo")."""

    def __init__(self, trainer: "Bench") -> None:
        self.trainer = trainer
        self.words_seen: list[str] | None = None
        self.spelled: list[Any] = []
        self._spell_anew()

    def _spell(self, word: str) -> Any:
        surfaces = self.trainer.state.surfaces
        parts = [surfaces[ord(ch)] for ch in word]
        return (b"" if self.trainer.config.units == "bytes" else "").join(parts)

    def _spell_anew(self) -> None:
        """What each word spells now: it must spell the same after every step (a new cut of
        the corpus, ``install_corpus``, is spelled anew)."""
        st = self.trainer.state
        self.words_seen = st.words
        self.spelled = [self._spell(w) for w in st.words]

    def __call__(self, what: str) -> None:
        tr = self.trainer
        problem = self.problem()
        if problem is not None:
            variant = getattr(tr, "variant", None)
            who = f"variant {variant_label(variant)}" if variant is not None else "the trainer"
            raise VariantError(f"{who} broke the seam's contract ({what} to step {tr.steps_done:,}): {problem}")

    def problem(self) -> str | None:
        """The first inconsistency found, in words, or None."""
        st = self.trainer.state
        surfaces, vocab_gone = st.surfaces, st.removed | set(st.dropped[1])
        for w, word in enumerate(st.words):
            for ch in word:
                t = ord(ch)
                if t >= len(surfaces) or surfaces[t] is None:
                    return f"word {w} ({st.word_text[w]!r}) holds token id {t}, which no surface stands for"
                if t in vocab_gone:
                    return f"word {w} ({st.word_text[w]!r}) holds token {surfaces[t]!r} (id {t}), which is out of the vocabulary"
        if st.words is not self.words_seen:  # a new cut of the corpus: what it spells now is its spelling
            self._spell_anew()
        for w, word in enumerate(st.words):
            spelled = self._spell(word)
            if spelled != self.spelled[w]:
                return f"word {w} ({st.word_text[w]!r}) now spells {spelled!r}, not {self.spelled[w]!r}"
        recount: dict[str, int] = {}
        total = 0
        where = st.where
        for w, (word, count) in enumerate(zip(st.words, st.counts)):
            total += len(word) * count
            for p in pairs_of(word):
                recount[p] = recount.get(p, 0) + count
                if w not in where.get(p, ()):
                    return f"word {w} ({st.word_text[w]!r}) holds pair {self._shown(p)} but the pair -> words index does not say so"
        for p, count in st.pair_counts.items():
            if count < 0:
                return f"pair {self._shown(p)} has count {count:,}, below zero (a recount finds {recount.get(p, 0):,})"
            if recount.get(p, 0) != count:
                return f"pair {self._shown(p)} has count {count:,}, a recount finds {recount.get(p, 0):,}"
        for p, count in recount.items():
            if p not in st.pair_counts:
                return f"pair {self._shown(p)} occurs {count:,} times but has no count"
        histogram: dict[int, int] = {}
        for count in recount.values():
            histogram[count] = histogram.get(count, 0) + 1
        if histogram != st.count_hist:
            return "the count histogram disagrees with a recount"
        if total != st.total_tokens:
            return f"the corpus holds {total:,} tokens, the state says {st.total_tokens:,}"
        variant = getattr(self.trainer, "variant", None)
        return variant.check(self.trainer) if variant is not None else None

    def _shown(self, pair: str) -> str:
        surfaces = self.trainer.state.surfaces
        a, b = (ord(ch) for ch in pair)
        show = lambda t: repr(surfaces[t]) if 0 <= t < len(surfaces) and surfaces[t] is not None else f"id {t}"  # noqa: E731
        return f"({show(a)}, {show(b)})"

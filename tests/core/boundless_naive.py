"""BoundlessBPE's training, restated as plainly as possible from docs/variants/boundless.md:
everything recounted from scratch at every step (slow, and meant to be). It is the statement
the goldens check (test_boundless_goldens.py: it gives the authors' events), so that the notes
are known to say all there is, and the model bpe-tui's own, fast trainer will be held to.

Written from the notes, not from the authors' code.
"""

from __future__ import annotations

from collections import Counter

import regex

from bpe_tui.core.teaching.educational import merge_word
from bpe_tui.core.text.boundless_rules import may_join


def pair_counts(sequences, weights, counted=lambda token: True) -> Counter:
    """Adjacent pairs of each sequence, times its weight: a run of one token counts its pairs
    without overlap (``a a a``: one ``(a, a)``), and a pair with a token not ``counted``
    counts nothing (and does not start a run)."""
    out: Counter = Counter()
    for seq, weight in zip(sequences, weights):
        previous = None
        for pair in zip(seq, seq[1:]):
            if counted(pair[0]) and counted(pair[1]) and not (pair[0] == pair[1] and pair == previous):
                out[pair] += weight
                previous = pair
            else:
                previous = None
    return out


def token_counts(sequences, weights) -> Counter:
    out: Counter = Counter()
    for seq, weight in zip(sequences, weights):
        for token in seq:
            out[token] += weight
    return out


def merge_all(sequences: list[list[bytes]], a: bytes, b: bytes) -> bool:
    """Every ``a b`` of every sequence joined, left to right, without overlaps (in place);
    whether some sequence of two tokens or more became one token."""
    whole = False
    for k, seq in enumerate(sequences):
        new = merge_word(seq, (a, b))
        whole |= len(seq) > 1 and len(new) == 1
        sequences[k] = new
    return whole


def best(counts: Counter, made: set[bytes]):
    """The pair of the highest count, ties to the smallest (left, right) as bytes, among those
    that would not make a token that exists; None if there is none."""
    found = None
    for pair, n in counts.items():
        if pair[0] + pair[1] in made:
            continue
        if found is None or n > counts[found] or (n == counts[found] and pair < found):
            found = pair
    return found


def train(documents: list[str], pattern: str, vocab_size: int, tau: float, blowup: bool, events_wanted: int | None = None) -> list[tuple]:
    """The events, as the goldens write them: ``("W" | "S", left, right, c_ab, c_a, c_b)`` and
    ``("D", token)``; at most ``events_wanted`` of them."""
    split = regex.compile(pattern)
    docs = [[piece.encode("utf-8") for piece in split.findall(text)] for text in documents]
    word_count = Counter(w for doc in docs for w in doc)
    words = list(word_count)
    weights = [word_count[w] for w in words]
    segs = [[w[i : i + 1] for i in range(len(w))] for w in words]  # the word state
    ones = [1] * len(docs)  # the superword state: each pre-token one unit
    made = {bytes([b]) for b in range(256)}  # every token ever made, deleted ones too
    made_by: dict[bytes, tuple[bytes, bytes]] = {}
    unlocked: set[bytes] = set()
    events: list[tuple] = []
    size = 256
    while size < vocab_size and (events_wanted is None or len(events) < events_wanted):
        word_pairs = pair_counts(segs, weights)
        super_pairs = pair_counts(docs, ones, unlocked.__contains__)
        w, s = best(word_pairs, made), best(super_pairs, made)
        if w is None and s is None:
            break
        if w is not None and (s is None or word_pairs[w] > super_pairs[s]):
            a, b = w
            count = token_counts(segs, weights)
            events.append(("W", a, b, word_pairs[w], count[a], count[b]))
            whole = merge_all(segs, a, b)
            made.add(a + b)
            made_by[a + b] = (a, b)
            size += 1
            for part in (a, b):
                if len(part) > 1 and word_pairs[w] / count[part] >= tau:
                    parts = [part[i : i + 1] for i in range(len(part))] if blowup else list(made_by[part])
                    segs = [[p for t in seg for p in (parts if t == part else [t])] for seg in segs]
                    events.append(("D", part))
            if whole and may_join(a + b):
                unlocked.add(a + b)
        else:
            assert s is not None
            a, b = s
            count = token_counts(docs, ones)
            events.append(("S", a, b, super_pairs[s], count[a], count[b]))
            whole = merge_all(docs, a, b)
            made.add(a + b)
            size += 1
            if a != b or whole:  # (a join of two equal tokens stays locked: see the notes)
                unlocked.add(a + b)
    return events[:events_wanted] if events_wanted is not None else events

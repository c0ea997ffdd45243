"""BPE the way the tutorials write it: the front door to bpe-tui's engine. Read this first.

Training (:func:`train_naive`, :func:`training_steps`). Write every word as a list of base
symbols (characters or UTF-8 bytes, plus an end-of-word marker if the rules have one). Count
every adjacent pair, weighted by how often its word occurs. Merge the most frequent pair
everywhere, left to right, into one new symbol. Recount and repeat. When counts tie, a rule
picks the winner (first-seen, lexical-min, lexical-max, hf, rustbpe or picky; see ``best_pair``).

Encoding (:func:`encode`, :func:`encode_word`). Cut the text into words exactly as training
did, start each word from its base symbols, and apply the learned merges in the order they
were learned: while some adjacent pair is a merge, merge the one learned earliest (all its
occurrences, left to right). An unseen word still encodes: into whatever learned pieces fit.

This module implements exactly the same rules as :class:`~bpe_tui.core.engine.trainer.Trainer` and
:meth:`~bpe_tui.core.tables.table.MergeTable.encode` in the most direct way: after each merge it
recounts all pairs from scratch, and encoding rescans the word after each merge. That makes
it slow — O(corpus) per merge — and obviously right, which is why the tests compare the fast
trainer and encoder against it and the benchmarks use it as the baseline.

Run ``python -m bpe_tui.core.teaching.educational`` for a short printed trace: a few merges on the
low / lower / lowest example, then the encoding of a word the corpus never had.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence

from ..engine.config import TrainerConfig
from ..engine.units import bytes_to_gpt2_str, bytes_to_unicode, visible
from ..text.pretokenize import PreTokenizer
from ..types import Surface


def base_symbols(word: str, config: TrainerConfig) -> list[Surface]:
    """A word as BPE starts it: its bytes or characters, plus the end marker if there is one."""
    symbols: list[Surface]
    if config.units == "bytes":
        symbols = [bytes([b]) for b in word.encode("utf-8")]
        if config.end_of_word is not None:
            symbols.append(config.end_of_word.encode("utf-8"))
    else:
        symbols = list(word)
        if config.end_of_word is not None:
            symbols.append(config.end_of_word)
    return symbols


def initial_words(word_counts: Mapping[str, int], config: TrainerConfig) -> list[tuple[list, int]]:
    """Each word as a list of base symbols (bytes or characters, plus the end marker)."""
    return [(base_symbols(word, config), count) for word, count in word_counts.items()]


def count_pairs(words: list[tuple[list, int]]) -> dict[tuple, int]:
    """Every adjacent pair, weighted by word count, in first-seen order (dicts keep order)."""
    counts: dict[tuple, int] = {}
    for symbols, count in words:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return counts


def merge_word(symbols: list, pair: tuple) -> list:
    """Replace every occurrence of ``pair``, scanning left to right, without overlaps."""
    left, right = pair
    out = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def as_bytes(surface) -> bytes:
    return surface if isinstance(surface, bytes) else surface.encode("utf-8")


def hf_alphabet_rank(surface, units: str) -> str:
    """The string Hugging Face sorts its alphabet by (bytes go through GPT-2's map)."""
    if units == "bytes" and len(surface) == 1:
        return bytes_to_unicode()[surface[0]]
    return surface if isinstance(surface, str) else surface.decode("utf-8", "replace")


def token_ids(alphabet, rule: str, units: str) -> dict:
    """The ids the rules that compare token ids give the base symbols (merged tokens then get
    the next id as they are made, see ``training_steps``).

    hf: the alphabet sorted as Hugging Face sorts it (by code point, bytes through GPT-2's
    map). rustbpe: a byte is its own value, anything else (an end-of-word marker) comes after
    the 256 bytes; in chars mode the alphabet by code point, as hf.
    """
    if rule == "rustbpe" and units == "bytes":
        ids = {s: s[0] for s in alphabet if len(s) == 1}
        ids.update((s, 256 + i) for i, s in enumerate(sorted(s for s in alphabet if len(s) > 1)))
        return ids
    return {s: i for i, s in enumerate(sorted(alphabet, key=lambda s: hf_alphabet_rank(s, units)))}


def best_pair(counts: dict[tuple, int], rule: str, ids: dict) -> tuple:
    """The pair to merge: the highest count, ties broken by ``rule`` (``ids``: the token ids
    the hf and rustbpe rules compare, see ``token_ids``)."""
    top = max(counts.values())
    tied = [p for p, c in counts.items() if c == top]  # in first-seen order
    if rule in ("first-seen", "picky"):  # (picky: ``counts`` is in the pair counter's order)
        return tied[0]
    if rule == "lexical-min":
        return min(tied, key=lambda p: (as_bytes(p[0]), as_bytes(p[1])))
    if rule == "lexical-max":
        return max(tied, key=lambda p: (as_bytes(p[0]), as_bytes(p[1])))
    if rule == "subword-nmt":  # the greatest pair of strings, a byte spelled as GPT-2's character
        return max(tied, key=lambda p: tuple(bytes_to_gpt2_str(s) if isinstance(s, bytes) else s for s in p))
    return min(tied, key=lambda p: (ids[p[0]], ids[p[1]]))  # hf, rustbpe: the smallest pair of ids


def train_naive(word_counts: Mapping[str, int], config: TrainerConfig, num_merges: int) -> list[tuple[tuple, int]]:
    """Up to ``num_merges`` merges as ``((left, right), count)``, recounting every step."""
    return [(pair, count) for pair, count, _ in training_steps(word_counts, config, num_merges)]


def training_steps(word_counts: Mapping[str, int], config: TrainerConfig, num_merges: int) -> Iterator[tuple[tuple, int, list]]:
    """Each merge as ``((left, right), count, words)``: ``words`` is every word's symbols
    and count right after that merge (in the order the words first appeared)."""
    words = initial_words(word_counts, config)
    # Token ids (hf, rustbpe): the alphabet numbered by the rule, then merged tokens as created.
    ids = token_ids({s for symbols, _ in words for s in symbols}, config.tie_break, config.units)
    # picky (PickyBPE's reference): the pairs in the order they entered its pair counter; a pair
    # leaves when its count is zero, and a new one enters after the others (new pairs in the
    # order they first occur)
    order: dict[tuple, None] = {}
    for _ in range(num_merges):
        counts = count_pairs(words)
        limit = getattr(config, "max_token_length", None)
        if limit is not None:  # pairs that would make a token longer than the limit never merge
            counts = {p: c for p, c in counts.items() if len(p[0]) + len(p[1]) <= limit}
        if config.tie_break == "picky":
            order = {p: None for p in order if p in counts} | dict.fromkeys(counts)
            counts = {p: counts[p] for p in order}
        if not counts or max(counts.values()) < config.min_frequency:
            break
        pair = best_pair(counts, config.tie_break, ids)
        ids.setdefault(pair[0] + pair[1], max(ids.values()) + 1)
        words = [(merge_word(symbols, pair), count) for symbols, count in words]
        yield pair, counts[pair], words


# ---------------------------------------------------------------------- encoding


def encode_steps(symbols: Sequence, merges: Sequence[tuple]) -> Iterator[tuple[int, tuple, list]]:
    """Encode one word, merge by merge: yields ``(rank, (left, right), symbols after)``.

    ``merges`` is the learned list of ``(left, right)`` in the order it was learned (rank 0
    first). Each round looks at the word's adjacent pairs, picks the one learned earliest and
    merges all its occurrences, left to right; it stops when no adjacent pair was learned.
    That is the same as replaying the whole merge list in order over the word, without
    trying the merges that cannot apply.
    """
    rank_of: dict[tuple, int] = {}
    for rank, pair in enumerate(merges):
        rank_of.setdefault(pair, rank)
    word = list(symbols)
    while len(word) > 1:
        learned = [pair for pair in zip(word, word[1:]) if pair in rank_of]
        if not learned:
            break
        pair = min(learned, key=rank_of.__getitem__)
        word = merge_word(word, pair)
        yield rank_of[pair], pair, word


def encode_word(symbols: Sequence, merges: Sequence[tuple]) -> list:
    """One word's tokens (surfaces): its base ``symbols`` with the learned ``merges`` applied."""
    word = list(symbols)
    for _, _, word in encode_steps(symbols, merges):
        pass
    return word


def encode(text: str, merges: Sequence[tuple], config: TrainerConfig) -> list:
    """The tokens (surfaces) of ``text``: cut into words as training cut them, each word
    encoded on its own; special tokens stay whole. Same result as ``MergeTable.tokens``."""
    pre = PreTokenizer(config.pretokenizer, config.special_tokens, config.lowercase)
    tokens: list = []
    for is_special, piece in pre.split(text):
        if is_special:
            tokens.append(piece.encode("utf-8") if config.units == "bytes" else piece)
        else:
            tokens.extend(encode_word(base_symbols(piece, config), merges))
    return tokens


# ---------------------------------------------------------------------- the demo

#: The tutorials' first example (corpora/low_lower_lowest.txt), inlined so the demo runs
#: from an installed package too.
DEMO_TEXT = "low low low low low lower lower lowest lowest lowest"
DEMO_MERGES = 7
DEMO_UNSEEN = "slowest"


def _spelled(symbols: Sequence) -> str:
    return " ".join(visible(s) for s in symbols)


def demo(out=None) -> None:
    """Print a short trace: the demo corpus's words, a few merges, an unseen word encoded."""
    from ..text.corpus import count_text

    out = out or sys.stdout
    config = TrainerConfig(preset="classic")
    counts = count_text(DEMO_TEXT, config)
    print(f"corpus: {DEMO_TEXT!r}", file=out)
    print(f"rules:  {config.describe()}\n", file=out)
    for symbols, count in initial_words(counts, config):
        print(f"  {_spelled(symbols):<24} x{count}", file=out)
    merges = []
    for number, (pair, count, words) in enumerate(training_steps(counts, config, DEMO_MERGES), 1):
        merges.append(pair)
        print(f"\nmerge {number}: {visible(pair[0])} + {visible(pair[1])} -> {visible(pair[0] + pair[1])}   ({count} times)", file=out)
        for symbols, n in words:
            print(f"  {_spelled(symbols):<24} x{n}", file=out)
    print(f"\nencode {DEMO_UNSEEN!r}, a word the corpus never had:", file=out)
    symbols = base_symbols(DEMO_UNSEEN, config)
    print(f"  start     {_spelled(symbols)}", file=out)
    for rank, pair, symbols in encode_steps(symbols, merges):
        print(f"  merge {rank + 1:<3} {_spelled(symbols):<24} ({visible(pair[0])} + {visible(pair[1])})", file=out)
    print(f"  tokens    {', '.join(visible(t) for t in symbols)}", file=out)


if __name__ == "__main__":
    try:
        demo()
        # Written here, inside the try: a pipe's output is buffered, and what is left for the
        # interpreter to flush at exit would fail past this handler ("Exception ignored ...
        # Broken pipe", exit status 120) when the reader has gone.
        sys.stdout.flush()
    except BrokenPipeError:  # `| head` stopped reading: stop quietly, as command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

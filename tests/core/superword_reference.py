"""The brute-force reference SuperBPE's tests compare the trainer with (both stage-2 rules,
every stage-2 option), written apart from it: chunks are cut with ``regex.split`` (the digits
rule by arithmetic on each digit run, not by the lookahead), the K merges are replayed over
them one by one in order while every pair is recounted, and stage 2 recounts every pair at
every step."""

from __future__ import annotations

import regex

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.superwords import chunk_config
from bpe_tui.core.teaching.educational import best_pair, count_pairs, initial_words, merge_word, token_ids, train_naive
from bpe_tui.core.text.blocks import split_lines
from bpe_tui.core.text.corpus import count_text
from bpe_tui.core.text.superword_rules import SUPERWORD_SPLIT


def make(text: str, rule: str, k: int, pretokenizer: str = "gpt2", **options) -> Trainer | None:
    """A superword trainer on ``text`` (None when the text has no words or no chunks)."""
    cfg = TrainerConfig(tie_break=rule, superwords_after=k, pretokenizer=pretokenizer, **options)
    if not count_text(text, cfg) or not count_text(text, chunk_config(cfg)):
        return None
    return Trainer.from_text(text, cfg)


def digit_groups(run: str) -> list[str]:
    """A digit run cut in threes from the right: ``12345`` -> ``12``, ``345``."""
    head = len(run) % 3
    return ([run[:head]] if head else []) + [run[i : i + 3] for i in range(head, len(run), 3)]


def reference_chunks(text: str, rule: str = "regex") -> dict[str, int]:
    """SuperBPE's chunks of ``text``, line by line: by ``regex.split`` with the regex rule as a
    capturing group, or each digit run cut in threes by arithmetic; empty pieces dropped."""
    counts: dict[str, int] = {}
    for line in split_lines(text):
        if rule == "regex":
            pieces = regex.split(f"({SUPERWORD_SPLIT})", line)
        else:
            pieces = [g for part in regex.split(r"(\p{N}+)", line) for g in (digit_groups(part) if part.isdigit() else [part])]
        for piece in pieces:
            if piece:
                counts[piece] = counts.get(piece, 0) + 1
    return counts


def allowed(pair: tuple, config: TrainerConfig) -> bool:
    """Whether stage 2's limits let ``pair`` merge."""
    token = pair[0] + pair[1]
    if config.superword_skip_colon_space and b": " in token:
        return False
    most = config.superword_max_words
    return most is None or len([w for w in token.split(b" ") if w]) <= most


def reference_training(text: str, config: TrainerConfig, steps: int) -> tuple[list, list[int]]:
    """Both stages by brute force: ordinary BPE for K merges (recounting every step), then the
    chunks, with the K merges replayed over them in order (recounting to see which pairs ever
    occur), and recounting again at every step, leaving out what the limits refuse. Returns
    ``(merges with counts, 1-based steps dropped at the transition)``."""
    k = config.superwords_after
    assert k is not None
    plain = TrainerConfig(tie_break=config.tie_break, pretokenizer=config.pretokenizer)
    stage1 = train_naive(count_text(text, plain), plain, min(k, steps))
    if len(stage1) < k:
        return stage1, []
    merges = [pair for pair, _ in stage1]
    words = initial_words(reference_chunks(text, config.superword_rule), plain)
    ids = token_ids({bytes([b]) for b in range(256)}, config.tie_break, "bytes")
    for a, b in merges:
        ids.setdefault(a + b, max(ids.values()) + 1)
    dropped: list[int] = []
    occurred = set(count_pairs(words))
    for n, pair in enumerate(merges):
        if config.superwords_drop_unused and pair not in occurred:
            dropped.append(n)
            continue
        occurred.discard(pair)
        words = [(merge_word(symbols, pair), count) for symbols, count in words]
        occurred |= set(count_pairs(words))
    kept_tokens = {a + b for n, (a, b) in enumerate(merges) if n not in dropped}
    for n in dropped:  # a token only dropped merges made: made again, it is a new token
        token = merges[n][0] + merges[n][1]
        if token not in kept_tokens:
            ids.pop(token, None)
    out = list(stage1)
    while len(out) < steps:
        counts = {p: c for p, c in count_pairs(words).items() if allowed(p, config)}
        if not counts:
            break
        pair = best_pair(counts, config.tie_break, ids)
        ids.setdefault(pair[0] + pair[1], max(ids.values()) + 1)
        out.append((pair, counts[pair]))
        words = [(merge_word(symbols, pair), count) for symbols, count in words]
    return out, [n + 1 for n in dropped]


def snapshot(t: Trainer):
    """Everything observable about a trainer's state, its table included."""
    table = t.table
    return (
        t.steps_done, t.vocab_size, t.total_tokens, t.pretokenizer, t.pair_counts(), t.forbidden_pair_count(),
        [(t.word_text(i), t.word_frequency(i), t.segmentation(i)) for i in range(t.word_count)],
        t.top_pairs(8), [(e.pair, e.count, e.new_id) for e in t.history], t.transition, t.dropped_merges,
        table.merges, table.vocab, table.config.get("superwords_dropped"),
    )

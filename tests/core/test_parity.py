"""Parity-aware BPE (core/engine/variants/parity.py): against an obviously-right recount on
generated multilingual corpora, for every variant and tie-break; undo and goto exact across its
steps; its events and what it says; its bad input."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_tui import BPEError, Trainer, TrainerConfig
from bpe_tui.core.engine.variants.parity import ParityAware, ParityChoice, choose_language
from bpe_tui.core.teaching.educational import best_pair, count_pairs, initial_words, merge_word, token_ids
from bpe_tui.core.text.corpus import count_text
from bpe_tui.core.types import TIE_BREAKS
from tests.conftest import CORPORA

PARALLEL = CORPORA / "parallel"
settings.register_profile(
    "parity", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=bool(os.environ.get("CI"))
)
settings.load_profile("parity")


# ---------------------------------------------------------------------- the obviously-right recount


def naive(corpora: dict[str, str], dev: dict[str, str] | None, ratio: dict[str, float] | None, cfg: TrainerConfig, steps: int):
    """Parity-aware BPE recounting everything at every step, from the definition (module
    docstring of variants/parity.py): ``[(pair, language or None)]`` and why it stopped."""
    langs = list(corpora)
    per_lang = [count_text(corpora[lang], cfg) for lang in langs]
    union: dict[str, int] = {}
    for counts in per_lang:
        for word, c in counts.items():
            union[word] = union.get(word, 0) + c
    words = [(symbols, [counts.get(text, 0) for counts in per_lang]) for (symbols, _), text in zip(initial_words(union, cfg), union)]
    devs = None
    if dev is not None:
        dev_counts = [count_text(dev[lang], cfg) for lang in langs]
        dev_union = {w: [c.get(w, 0) for c in dev_counts] for c in dev_counts for w in c}
        devs = [(symbols, dev_union[text]) for (symbols, _), text in zip(initial_words({w: 1 for w in dev_union}, cfg), dev_union)]
    ids = token_ids({s for symbols, _ in words for s in symbols}, cfg.tie_break, cfg.units)

    def tokens(items, lang):
        return sum(len(symbols) * counts[lang] for symbols, counts in items)

    initial = [tokens(words, i) for i in range(len(langs))]
    share = cfg.parity_alpha / (len(langs) + (1 if cfg.global_merges else 0))
    picks: list[int] = []
    out = []
    for step in range(steps):
        everywhere = count_pairs([(s, sum(c)) for s, c in words])
        if step < cfg.global_merges:
            lang = None
            counts = everywhere
        else:
            if devs is not None:
                scores, most = [tokens(devs, i) for i in range(len(langs))], True
            else:
                first = ratio[langs[0]]
                scores = [(initial[i] / tokens(words, i)) / (ratio[lang] / first) for i, lang in enumerate(langs)]
                most = False
            order = sorted(range(len(langs)), key=lambda i: ((-scores[i] if most else scores[i]), i))
            if cfg.parity == "window":
                window = picks[-cfg.parity_window:]
                order = [i for i in order if window.count(i) / cfg.parity_window <= share]
                if not order:
                    return out, "stuck"
            lang = order[0]
            picks.append(lang)
            mine = count_pairs([(s, c[lang]) for s, c in words if c[lang]])
            counts = {p: mine[p] for p in everywhere if mine.get(p)}  # (first-seen: the whole corpus's order)
        if not counts or max(counts.values()) < cfg.min_frequency:
            return out, "exhausted"
        pair = best_pair(counts, cfg.tie_break, ids)
        ids.setdefault(pair[0] + pair[1], max(ids.values()) + 1)
        out.append((pair, None if lang is None else langs[lang]))
        words = [(merge_word(s, pair), c) for s, c in words]
        if devs is not None:
            devs = [(merge_word(s, pair), c) for s, c in devs]
    return out, "target"


def train(corpora, dev, ratio, cfg) -> Trainer:
    """A trainer over texts given as strings (written to files, which from_languages reads)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        def files(texts: dict[str, str], kind: str) -> dict[str, str]:
            out = {}
            for lang, text in texts.items():
                path = Path(folder) / f"{kind}-{lang}.txt"
                path.write_text(text, encoding="utf-8")
                out[lang] = str(path)
            return out

        return Trainer.from_languages(files(corpora, "train"), dev=files(dev, "dev") if dev else None, ratio=ratio, config=cfg)


texts = st.lists(st.text(alphabet="aab bc é\n", min_size=1, max_size=10), min_size=1, max_size=8).map(" ".join)
dev_lines = st.lists(st.text(alphabet="abcé ", min_size=1, max_size=8).filter(str.strip), min_size=2, max_size=2)
setups = st.sampled_from([
    dict(parity="base"),
    dict(parity="window", parity_window=3, parity_alpha=1),
    dict(parity="window", parity_window=5, parity_alpha=2, global_merges=2),
    dict(parity="base", global_merges=3),
    dict(parity="base", ratio=True),
    dict(parity="window", parity_window=4, parity_alpha=1, ratio=True),
])
presets = st.sampled_from([dict(preset="parity", min_frequency=1), dict(preset="parity"), dict(preset="classic"), dict(preset="gpt2")])


def build(a, b, c, devs, setup, preset, rule):
    setup = dict(setup)
    use_ratio = setup.pop("ratio", False)
    corpora = {"xx": a, "yy": b, "zz": c}
    if not all(count_text(t, TrainerConfig(**preset)) for t in corpora.values()):
        return None
    cfg = TrainerConfig(**preset, **setup, tie_break=rule)
    dev = None if use_ratio else {lang: "\n".join(line + lang[0] * k for line in devs) + "\n" for k, lang in enumerate(corpora)}
    ratio = {"xx": 1.0, "yy": 1.25, "zz": 0.8} if use_ratio else None
    return corpora, dev, ratio, cfg


@pytest.mark.parametrize("rule", [rule for rule in TIE_BREAKS if rule != "picky"])  # (picky: refused, below)
@given(a=texts, b=texts, c=texts, devs=dev_lines, setup=setups, preset=presets)
def test_merges_equal_the_recount(rule, a, b, c, devs, setup, preset):
    made = build(a, b, c, devs, setup, preset, rule)
    if made is None:
        return
    corpora, dev, ratio, cfg = made
    expected, ended = naive(corpora, dev, ratio, cfg, 30)
    trainer = train(corpora, dev, ratio, cfg)
    got = []
    for event in trainer.run(max_steps=30):
        reason = event.reason
        assert isinstance(reason, ParityChoice)
        got.append((event.pair, reason.language))
        check_counts(trainer)
    assert got == expected
    if len(got) < 30:
        assert ("every language has chosen more" in trainer.stop_reason) == (ended == "stuck")
        # asked again (finished, a goto that ends there), the variant says the same, not the trainer's own reason
        said = trainer.stop_reason
        assert trainer.finished and trainer.stop_reason == said
        assert trainer.goto(trainer.steps_done) == len(got) and trainer.stop_reason == said


def check_counts(trainer: Trainer) -> None:
    """Each language's pair counts, kept up to date, equal a recount from the words now."""
    variant = trainer.variant
    recount: list[dict] = [{} for _ in variant.languages]
    for w in range(trainer.word_count):
        ids = trainer.segmentation_ids(w)
        for lang, count in variant._langs[w]:
            for p in zip(ids, ids[1:]):
                key = chr(p[0]) + chr(p[1])
                recount[lang][key] = recount[lang].get(key, 0) + count
    assert [dict(c) for c in variant._counts] == recount


def state(trainer: Trainer):
    variant = trainer.variant
    return (
        trainer.steps_done, trainer.pair_counts(), [trainer.segmentation(i) for i in range(trainer.word_count)],
        [(e.pair, e.count, str(e.reason)) for e in trainer.history], variant.scores(), variant.dev_tokens(),
        variant.score_history(), variant.next_language(), [dict(c) for c in variant._counts],
    )


@given(a=texts, b=texts, c=texts, devs=dev_lines, setup=setups, k=st.integers(0, 20), j=st.integers(0, 20))
def test_train_k_undo_j_equals_train_k_minus_j(a, b, c, devs, setup, k, j):
    made = build(a, b, c, devs, setup, dict(preset="parity", min_frequency=1), "subword-nmt")
    if made is None:
        return
    trainer = train(*made)
    list(trainer.run(max_steps=k))
    done = trainer.steps_done
    j = min(j, done)
    for _ in range(j):
        trainer.undo()
    check_counts(trainer)
    fresh = train(*made)
    list(fresh.run(max_steps=done - j))
    assert state(trainer) == state(fresh)
    assert trainer.goto(done) == done  # and forward again, to the same merges
    assert [e.pair for e in trainer.history] == [e.pair for e in train_to(made, done).history]


def train_to(made, steps: int) -> Trainer:
    trainer = train(*made)
    list(trainer.run(max_steps=steps))
    return trainer


def test_a_merge_chosen_by_hand_between_parity_steps_undoes_exactly():
    made = ({"en": (PARALLEL / "en.txt").read_text(encoding="utf-8"), "de": (PARALLEL / "de.txt").read_text(encoding="utf-8")},
            None, {"en": 1.0, "de": 1.0}, TrainerConfig(preset="parity", parity="window", parity_window=4, parity_alpha=1))
    trainer = train(*made)
    list(trainer.run(max_steps=5))
    before = state(trainer)
    pair = trainer.top_pairs(8)[-1][0]  # a pair the rules do not pick next
    event = trainer.step(pair=pair)
    assert event.manual and event.reason is None
    list(trainer.run(max_steps=5))
    trainer.goto(5)
    assert state(trainer) == before


# ---------------------------------------------------------------------- choosing the language


def test_choose_language_breaks_ties_by_the_order_given():
    assert choose_language([5, 7, 7], most=True) == (1, [])
    assert choose_language([0.5, 0.4, 0.4], most=False) == (1, [])
    # window: 1 chose 2 of the last 4 (over 1/3): it waits, and 2 is next in order
    assert choose_language([5, 7, 6], most=True, window=[1, 0, 1, 2], size=4, share=1 / 3) == (2, [1])
    assert choose_language([5, 7, 6], most=True, window=[0, 0, 1, 1, 2, 2], size=6, share=0.3) == (None, [1, 2, 0])


def test_the_event_says_which_language_chose_and_why():
    corpora = {lang: str(PARALLEL / f"{lang}.txt") for lang in ("en", "de", "hi")}
    trainer = Trainer.from_languages(corpora, dev=corpora, config=TrainerConfig(preset="parity", parity="base"))
    event = trainer.step()
    reason = event.reason
    assert reason.language == "hi" and reason.phase == "parity"
    assert reason.scores == trainer.variant.score_history()[0]
    assert reason.scores[2] == max(reason.scores)  # Hindi's development text needs the most tokens
    assert event.explanation.endswith(
        f"; hi chose it: its development text needs the most tokens now ({reason.scores[2]:,}; the others "
        f"{min(reason.scores[:2]):,}-{max(reason.scores[:2]):,}); it is hi's most frequent pair ({reason.count} times there)"
    )
    assert trainer.variant.dev_tokens()[2] < reason.scores[2]


def test_the_hybrid_says_its_first_merges_are_global():
    corpora = {lang: str(PARALLEL / f"{lang}.txt") for lang in ("en", "de")}
    trainer = Trainer.from_languages(corpora, dev=corpora, config=TrainerConfig(preset="parity", parity="base", global_merges=2))
    first, second, third = (trainer.step() for _ in range(3))
    assert first.reason.phase == second.reason.phase == "global" and first.reason.language is None
    assert str(first.reason) == "one of the first 2 merges, which the whole corpus chooses (the hybrid), not a language"
    assert third.reason.phase == "parity"


def test_a_saved_table_says_it_was_trained_parity_aware(tmp_path):
    import bpe_tui

    corpora = {lang: str(PARALLEL / f"{lang}.txt") for lang in ("en", "de")}
    cfg = TrainerConfig(preset="parity", parity="window", parity_window=10, parity_alpha=1, merges=20)
    trainer = Trainer.from_languages(corpora, dev=corpora, config=cfg)
    list(trainer.run())
    path = tmp_path / "t.json"
    bpe_tui.save(trainer.table, str(path))
    about = json.loads(path.read_text(encoding="utf-8"))["config"]
    assert about["parity"] == "window" and about["parity_window"] == 10
    assert about["parity_aware"]["languages"] == ["en", "de"]
    table = bpe_tui.load(str(path))
    assert table.encode("Die Bibliothek") == trainer.table.encode("Die Bibliothek")


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "config, needle",
    [
        (dict(parity="base", max_token_length=8), "does not take max_token_length"),
        (dict(parity="base", superwords_after=5), "does not take superwords_after"),
        (dict(parity="base", parity_window=7), "options of the window variant"),
        (dict(parity=None, global_merges=4), "global_merges is an option of parity-aware BPE"),
        (dict(parity="window", parity_alpha=0), "parity_alpha must be 1 or more"),
        (dict(parity="sliding"), "unknown parity-aware variant 'sliding'"),
        (dict(parity="base", tie_break="picky"), "does not take the picky tie-break"),
    ],
)
def test_options_the_variant_cannot_honour(config, needle):
    with pytest.raises(BPEError, match=needle):
        TrainerConfig(preset="parity", **config)


def test_a_parity_config_without_languages_says_how_to_train():
    with pytest.raises(BPEError, match="from_languages"):
        Trainer.from_files([str(PARALLEL / "en.txt")], TrainerConfig(preset="parity", parity="base"))


def test_the_parity_variant_refuses_a_trainer_of_another_corpus():
    corpora = {lang: str(PARALLEL / f"{lang}.txt") for lang in ("en", "de")}
    from bpe_tui.core.text.languages import read_languages

    read = read_languages(corpora, TrainerConfig(preset="parity"), dev=corpora)
    with pytest.raises(BPEError, match="not the languages' words"):
        Trainer({" other": 3}, TrainerConfig(preset="parity", parity="base"), variant=ParityAware(read))


def test_the_ratio_form_does_not_go_with_the_hybrid():
    corpora = {lang: str(PARALLEL / f"{lang}.txt") for lang in ("en", "de")}
    with pytest.raises(BPEError, match="ratio form does not go with global_merges"):
        Trainer.from_languages(corpora, ratio={"en": 1, "de": 1}, config=TrainerConfig(preset="parity", parity="base", global_merges=5))


def test_a_parity_table_encodes_a_stream_as_a_whole_text():
    """The parity pre-tokenizer's space in front of every piece is put there when text comes
    in pieces too (bpe-tui encode reads a stream): the same ids as the whole text."""
    from tests.parity_texts import texts

    corpora = {lang: str(PARALLEL / f"{lang}.txt") for lang in ("en", "de", "ja")}
    trainer = Trainer.from_languages(corpora, dev=corpora, config=TrainerConfig(preset="parity", parity="base", merges=300))
    list(trainer.run())
    table = trainer.table
    for text in texts():
        whole = table.encode(text)
        assert table.tokens(text)[:1] == [] or table.tokens(text)[0].startswith(b" ") or not text.strip(), text
        cuts = [text[i : i + 7] for i in range(0, len(text), 7)]
        assert list(table.encode_iterable(iter(cuts))) == whole, text

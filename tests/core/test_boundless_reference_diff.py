"""BoundlessBPE tables encode as the authors' inference does (``FasterRegexInference.
encode_ordinary``), run here from their checkout on random texts: the hand-written models of
test_boundless_encoding.py, and the published model kept as test data, on texts made of its own
tokens (whole pre-tokens that supermerges take, tokens deleted early or late, pieces of words,
punctuation, digits, whitespace runs). Skipped, with the reason, where the checkout is absent;
the goldens (test_boundless_published.py) check the same without it."""

from __future__ import annotations

import random

import pytest

import bpe_tui
from bpe_tui.core.tables.formats import boundless as boundless_format
from tests.core.boundless_golden import CHECKOUT, SMALL_MODEL, model_text, reference_inference
from tests.core.test_boundless_encoding import MODELS


def random_texts(table, rng: random.Random, n: int) -> list[str]:
    """Texts made of the table's own tokens, weighted towards the ones supermerges take and
    the ones deletions split, with separators of every kind between some of them."""
    joining = sorted({t for n in table.supermerges for t in table.merge_ids[n - 1][:2]})
    deleted = sorted(table.removed)
    others = sorted(table.vocab)
    pools = [p for p in (joining, deleted, others) if p]
    glue = ["", "", "", " ", ", ", ".\n", "  ", "\t", "'", "’s", "1", "_", "é", "—"]
    texts = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randrange(1, 25)):
            parts.append(table.surface(rng.choice(rng.choice(pools))).decode("utf-8", "ignore"))
            parts.append(rng.choice(glue))
        texts.append("".join(parts))
    return texts


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("deletions", ["bytes", "pair"])
def test_hand_written_models(tmp_path, name, deletions):
    events, pattern = MODELS[name]
    path = tmp_path / f"{name}.model"
    path.write_text(model_text(events, pattern), encoding="utf-8")
    theirs = reference_inference(path)
    ours = boundless_format.read(str(path), deletions=deletions)
    rng = random.Random(name)
    words = [" of", " the", " world", " la", " ab", " cd", "ab", "cd", "abx", "x", "y", " ", ",", "\n"]
    for k in range(220):  # (the last 20 long: runs of 64 pre-tokens and more take the heap)
        pool = words if k < 200 else words[:6]  # (words[:6] all join in some model)
        text = "".join(rng.choice(pool) for _ in range(rng.randrange(1, 12) if k < 200 else rng.randrange(64, 200)))
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text, deletions == "bytes"), repr(text)


@pytest.mark.parametrize("run", ["0.9_1000_gpt4o_1", "0.9_1000_gpt4o_0", "0.9_1000_ultimate2_0", "0.9_1000_ultimate2_1", "1.1_1000_ultimate2_1"])
def test_published_models_on_their_own_tokens(run):
    """The kept model (gpt4o_1), and four more of the 8,192-token ones from the checkout: both
    pre-tokenizers, deletions into bytes and into the pair (the _0 models: their inference
    called with blowup=False, as they were trained), and none (tau 1.1)."""
    path = SMALL_MODEL.with_name(SMALL_MODEL.name.replace("0.9_1000_gpt4o_1", run))
    if not path.exists():
        path = CHECKOUT / "models" / path.name
    theirs = reference_inference(path)
    ours = bpe_tui.load(str(path))
    blowup = boundless_format.deletions_of(str(path)) == "bytes"
    for text in random_texts(ours, random.Random(run), 300):
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text, blowup), repr(text)

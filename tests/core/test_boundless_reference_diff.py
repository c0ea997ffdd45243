"""BoundlessBPE tables encode as the authors' inference does (``FasterRegexInference.
encode_ordinary``), run here from their checkout on random texts: the hand-written models of
test_boundless_encoding.py, and the published model kept as test data, on texts made of its own
tokens (whole pre-tokens that supermerges take, tokens deleted early or late, pieces of words,
punctuation, digits, whitespace runs). Skipped, with the reason, where the checkout is absent;
the goldens (test_boundless_published.py) check the same without it."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys

import pytest

import bpe_tui
from bpe_tui.core.tables.formats import boundless as boundless_format
from bpe_tui.core.text.pretokenize import NAMED_PATTERNS
from tests.core.boundless_golden import CHECKOUT, GOLDEN, SMALL_MODEL, model_text, read_events, reference_inference, need_checkout
from tests.core.boundless_naive import train
from tests.core.test_boundless_encoding import MODELS


def load_recipe():
    """tests/core/golden/boundless/recipe.py, for its ``documents``."""
    spec = importlib.util.spec_from_file_location("boundless_recipe", GOLDEN / "recipe.py")
    recipe = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(recipe)  # type: ignore[union-attr]
    return recipe


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


@pytest.mark.parametrize("seed,tau,blowup", [(1, 0.9, 1), (2, 0.6, 1), (3, 0.7, 0), (4, 1.1, 1), (5, 0.5, 0)])
def test_the_notes_restated_train_as_the_authors_trainer(tmp_path, seed, tau, blowup):
    """On small corpora of a few words that repeat (so that supermerges chain, join two equal
    tokens, and deletions come at IoS 1), the naive restatement of the notes
    (boundless_naive.py) makes the events the authors' trainer makes (run by recipe.py, in a
    process of its own), counts included."""
    checkout = need_checkout()
    rng = random.Random(seed)
    words = [" la", " la", " la", " of", " the", " world", " wor", "x", ",", " ld"]
    text = "\n".join("".join(rng.choice(words) for _ in range(rng.randrange(2, 40))) + "\n" for _ in range(200))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    out = tmp_path / "run.events"
    command = [sys.executable, str(GOLDEN / "recipe.py"), "events", "--ref", str(checkout), "--corpus", str(corpus), "--pattern", "gpt4o",
               "--tau", str(tau), "--blowup", str(blowup), "--vocab", "340", "--recalc", "1", "--out", str(out)]
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    _, expected = read_events(out)
    recipe = load_recipe()
    got = train(recipe.documents(text), NAMED_PATTERNS["o200k"], 340, tau, blowup == 1)
    assert got == expected
    # the odd cases are there: two equal tokens joined (the result stays locked), and a
    # deletion of a part the merge used up entirely (IoS 1)
    assert any(e[0] == "S" and e[1] == e[2] for e in expected)
    used_up = [e for k, e in enumerate(expected) if e[0] == "D" and expected[k - 1][0] == "W" and expected[k - 1][3] == expected[k - 1][4 if e[1] == expected[k - 1][1] else 5]]
    assert used_up or tau > 1


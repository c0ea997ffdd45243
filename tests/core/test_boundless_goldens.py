"""The BoundlessBPE authors' trainer, as its goldens show it (tests/core/golden/boundless/*.events,
made by their FasterHalfDirectRegexTokenizer: see README.md there). bpe-tui's own trainer is
held to them event for event in test_boundless_training.py; here the goldens are checked for
what docs/variants/boundless.md says of the reference, from its own output: each events file is a model bpe-tui opens, that model is the one the trainer saved
(the ids its inference gave match), deletions follow the rule and tau as told, supermerges
join tokens of the merge pattern, nothing is made twice, and the notes restated as a naive
trainer (boundless_naive.py) give the same events."""

from __future__ import annotations

import hashlib
import os

import pytest

from bpe_tui.core.tables.formats import boundless as boundless_format
from bpe_tui.core.text.boundless_rules import ULTIMATE_PATTERN, may_join
from bpe_tui.core.text.pretokenize import NAMED_PATTERNS
from tests.core.boundless_golden import GOLDEN, heldout, model_text, read_events
from tests.core.boundless_naive import train

RUNS = sorted(p.name for p in GOLDEN.glob("*.events"))
PATTERNS = {"GPT4O_SPLIT_PATTERN": NAMED_PATTERNS["o200k"], "ULTIMATE_PATTERN": ULTIMATE_PATTERN}


def settings(header: list[str]) -> dict[str, str]:
    """tau, pattern, blowup and vocab_size of a run, from its header."""
    line = next(h for h in header if h.startswith("pattern: "))
    train = next(h for h in header if h.startswith("train("))
    return {
        "pattern": PATTERNS[line.split("regexconstants.")[1].split(";")[0]],
        "tau": line.split("tau ")[1].split(";")[0],
        "blowup": train.split("blowup=")[1].split(",")[0],
        "vocab": train.split("vocab_size=")[1].split(",")[0],
    }


def table_of(name: str, tmp_path):
    header, events = read_events(GOLDEN / name)
    path = tmp_path / name.replace(".events", ".model")
    path.write_text(model_text(events, settings(header)["pattern"]), encoding="utf-8")
    return boundless_format.read(str(path), deletions="bytes" if settings(header)["blowup"] == "True" else "pair")


@pytest.mark.parametrize("name", RUNS)
def test_each_run_is_a_model_with_the_reference_rules(name, tmp_path):
    header, events = read_events(GOLDEN / name)
    run = settings(header)
    table = table_of(name, tmp_path)
    merges = [e for e in events if e[0] != "D"]
    assert table.num_merges == len(merges) == int(run["vocab"]) - 256  # deleted tokens count in vocab_size
    tau = float(run["tau"])
    made, deleted = set(), set()
    for k, event in enumerate(events):
        if event[0] == "D":
            continue
        kind, left, right, c_ab, c_a, c_b = event
        assert left + right not in made, f"event {k} makes {left + right!r} again"
        made.add(left + right)
        following = []
        for later in events[k + 1 : k + 3]:
            if later[0] != "D":
                break
            following.append(later[1])
        if kind == "S":
            assert may_join(left) and may_join(right), f"event {k}: a supermerge of tokens the merge pattern does not take"
            assert not following, f"event {k}: a deletion after a supermerge"
            continue
        # the deletion rule: right after a word merge, each part of more than one byte whose
        # IoS (c_ab / its own count, before the merge) is at least tau, the left part first
        due = [part for part, count in ((left, c_a), (right, c_b)) if len(part) > 1 and c_ab / count >= tau]
        assert following == due, f"event {k}: {left!r} + {right!r} ({c_ab}, {c_a}, {c_b}) deletes {following}, not {due}"
        deleted.update(following)
    # A token deleted twice (into the pair, which can bring a deleted token back) is deleted
    # at its last deletion only, as the authors' inference reads the file.
    deletions = [e[1] for e in events if e[0] == "D"]
    assert deleted <= made and len(table.removals) == len(set(deletions))


@pytest.mark.parametrize("line", [line for line in (GOLDEN / "trained.ids").read_text().splitlines() if not line.startswith("#")])
def test_the_trained_models_give_their_ids(line, tmp_path):
    """The models the two runs saved (recipe.py events --model), encoded by the authors'
    inference: the events, opened as a model, give the same ids."""
    name, _, _, *digests = line.split("\t")
    table = table_of(name.replace(".model", ".events"), tmp_path)
    for text, expected in zip(heldout(), digests):
        ids = table.encode_ordinary(text)
        assert f"{len(ids)}:{hashlib.sha256(' '.join(map(str, ids)).encode()).hexdigest()[:16]}" == expected, text[:60]


def run_documents(name: str) -> list[str]:
    """The documents a run trained on, made again from ../shared by the recipe (skipped where
    ../shared is absent); checked against the header's sha256 of the JSON lines."""
    import importlib.util
    import json

    from tests.conftest import TAYLORSWIFT, TINYSHAKESPEARE, need

    spec = importlib.util.spec_from_file_location("boundless_recipe", GOLDEN / "recipe.py")
    recipe = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(recipe)  # type: ignore[union-attr]
    header, _ = read_events(GOLDEN / name)
    corpus = need(TAYLORSWIFT if name.startswith("taylorswift") else TINYSHAKESPEARE)
    size = int(next(h for h in header if h.startswith("  python recipe.py events")).split("--bytes ")[1].split()[0])
    docs = recipe.documents(recipe.corpus_slice(str(corpus), size))
    jsonl = "".join(json.dumps({"text": d}) + "\n" for d in docs).encode("utf-8")
    assert hashlib.sha256(jsonl).hexdigest() in next(h for h in header if h.startswith("documents:")), f"{name}: not the documents of the run"
    return docs


#: (run, how many of its first events): both deletion rules, both pre-tokenizers, supermerges
#: among them (BOUNDLESSBPE_FULL_NAIVE=1: every event of every run, which takes many minutes).
PREFIXES = [("taylorswift-gpt4o-t0.6-bytes-v800.events", 110), ("taylorswift-ultimate2-t0.9-pair-v1200.events", 90)]


@pytest.mark.parametrize("name,events", [(n, None) for n in RUNS] if os.environ.get("BOUNDLESSBPE_FULL_NAIVE") else PREFIXES)
def test_the_notes_restated_give_the_authors_events(name, events):
    """tests/core/boundless_naive.py (the notes, recounting everything at every step) gives
    the events the authors' trainer gave, counts included."""
    header, expected = read_events(GOLDEN / name)
    run = settings(header)
    got = train(run_documents(name), run["pattern"], int(run["vocab"]), float(run["tau"]), run["blowup"] == "True", events)
    expected = expected[: len(got)] if events is not None else expected
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"event {k}: {g} != the reference's {e}"
    assert any(e[0] == "S" for e in got) and (run["tau"] == "1.1" or any(e[0] == "D" for e in got))

"""The BoundlessBPE authors' published models encode as their inference does, held to goldens
their code made here (tests/core/golden/boundless, README.md there): the ids of the model kept
as test data, on the held-out texts (checked everywhere), and a digest of the ids of every
published model the snapshot holds (checked where the authors' checkout is present)."""

from __future__ import annotations

import hashlib
import os

import pytest

import bpe_tui
from tests.core.boundless_golden import GOLDEN, SMALL_MODEL, heldout, need_checkout


def golden_ids(path) -> list[list[int]]:
    return [[int(i) for i in line.split()] for line in path.read_text().splitlines() if not line.startswith("#")]


def test_the_kept_model_gives_the_authors_ids():
    table = bpe_tui.load(str(SMALL_MODEL))
    texts = heldout()
    expected = golden_ids(GOLDEN / "gpt4o-t0.9-b1-8192.ids")
    assert len(expected) == len(texts) == 20
    for text, ids in zip(texts, expected):
        assert table.encode_ordinary(text) == ids, text[:60]
        assert table.decode(ids) == text
    assert hashlib.sha256(SMALL_MODEL.read_bytes()).hexdigest() in (GOLDEN / "gpt4o-t0.9-b1-8192.ids").read_text()


def published() -> list[tuple[str, str, list[str]]]:
    """``(model file name, its sha256, per text "n:digest")`` of published.ids."""
    out = []
    for line in (GOLDEN / "published.ids").read_text().splitlines():
        if not line.startswith("#"):
            name, sha, _, *digests = line.split("\t")
            out.append((name, sha, digests))
    return out


#: By default the smallest model of each of the six runs and the largest one of the paper's
#: setup (set BOUNDLESSBPE_ALL_MODELS=1 for all 84: a few minutes, most of it opening them).
CHOSEN = [m for m in published() if os.environ.get("BOUNDLESSBPE_ALL_MODELS") or m[0].endswith(("_8192.model", "0.9_1000_gpt4o_1_114688.model"))]


@pytest.mark.parametrize("name,sha,digests", CHOSEN, ids=[m[0][len("boundless_1000000_1000000000_131072_"):-len(".model")] for m in CHOSEN])
def test_published_models_give_the_authors_ids(name, sha, digests):
    path = need_checkout() / "models" / name
    if not path.exists():
        pytest.skip(f"{path} is absent from the checkout")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha, f"{path} is not the file the golden was made from"
    table = bpe_tui.load(str(path))
    for k, (text, expected) in enumerate(zip(heldout(), digests)):
        ids = table.encode_ordinary(text)
        assert f"{len(ids)}:{hashlib.sha256(' '.join(map(str, ids)).encode()).hexdigest()[:16]}" == expected, f"text {k}: {text[:60]!r}"


def test_the_goldens_name_every_model_of_the_snapshot():
    """Every model file of the checkout has its line in published.ids (the snapshot lacks the
    files of 4 MiB and more: the 122,880- and 131,072-token models and the final ones)."""
    models = need_checkout() / "models"
    assert sorted(p.name for p in models.glob("*.model")) == sorted(m[0] for m in published())

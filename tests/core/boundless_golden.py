"""What the BoundlessBPE tests share: where the goldens and the authors' checkout are, and how
an events file or a list of events becomes a ``word v1`` model.

The goldens (tests/core/golden/boundless, see its README.md) were made by the authors' code,
run by hand with recipe.py there. The checkout of their repository is not part of this one: it
is found at ``$BOUNDLESSBPE_CHECKOUT``, else at ``../refs/boundlessbpe`` beside the repository;
a test that needs it skips, naming where it looked.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import warnings
from pathlib import Path

import pytest

from bpe_tui.core.engine.units import bytes_to_gpt2_str, gpt2_str_to_bytes
from tests.conftest import REPO

GOLDEN = Path(__file__).parent / "golden" / "boundless"
#: The published model kept here as test data (see golden/boundless/model/NOTICE).
SMALL_MODEL = GOLDEN / "model" / "boundless_1000000_1000000000_131072_0.9_1000_gpt4o_1_8192.model"
CHECKOUT = Path(os.environ.get("BOUNDLESSBPE_CHECKOUT") or REPO.parent / "refs" / "boundlessbpe")


def heldout() -> list[str]:
    """The held-out texts every ids golden was made from."""
    return json.loads((GOLDEN / "heldout.json").read_text(encoding="utf-8"))


def need_checkout() -> Path:
    """The authors' checkout, or skip the calling test saying where it was looked for."""
    if not (CHECKOUT / "boundlessbpe" / "boundlessbpeinference.py").exists():
        pytest.skip(f"the BoundlessBPE authors' checkout is absent ({CHECKOUT}; set BOUNDLESSBPE_CHECKOUT)")
    return CHECKOUT


def reference_inference(model: str | Path):
    """The authors' FasterRegexInference with ``model`` loaded (from the checkout)."""
    checkout = str(need_checkout())
    if checkout not in sys.path:
        sys.path.insert(0, checkout)
    with warnings.catch_warnings():  # (their regexconstants has '\p' in plain bytes literals)
        warnings.simplefilter("ignore", DeprecationWarning)
        from boundlessbpe import FasterRegexInference  # type: ignore[import-not-found]
    # Out of sys.modules again: Hypothesis reads the source of the modules a test process has
    # loaded (for constants to try), and their '\p' literals would warn in some other test.
    for name in [m for m in sys.modules if m == "boundlessbpe" or m.startswith("boundlessbpe.")]:
        del sys.modules[name]

    inference = FasterRegexInference()
    with contextlib.redirect_stdout(io.StringIO()):  # (its load prints the special tokens)
        inference.load(str(model))
    return inference


def read_events(path: Path) -> tuple[list[str], list[tuple]]:
    """``(header lines, events)`` of an events golden: ``("W" | "S", left, right, c_ab, c_a,
    c_b)`` with tokens as bytes and counts as ints, ``("D", token)``."""
    header, events = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            header.append(line[2:])
            continue
        kind, *rest = line.split("\t")
        if kind == "D":
            events.append((kind, gpt2_str_to_bytes(rest[0])))
        else:
            events.append((kind, gpt2_str_to_bytes(rest[0]), gpt2_str_to_bytes(rest[1]), *map(int, rest[2:])))
    return header, events


def model_text(events: list[tuple], pattern: str, specials: dict[str, int] | None = None) -> str:
    """A ``word v1`` file of ``events`` (``("W" | "S", left, right, ...)``, ``("D", token)``,
    tokens as bytes): the 256 bytes, then each merge's token in order, as the authors'
    trainer numbers them (the deleted ones kept)."""
    vocab = [bytes([b]) for b in range(256)]
    sections: dict[str, list[str]] = {"W": [], "D": [], "S": []}
    for index, (kind, *tokens) in enumerate(events):
        if kind == "D":
            sections["D"].append(f"{index} {bytes_to_gpt2_str(tokens[0])}")
        else:
            sections[kind].append(f"{index} {bytes_to_gpt2_str(tokens[0])} {bytes_to_gpt2_str(tokens[1])}")
            vocab.append(tokens[0] + tokens[1])
    lines = ["word v1", json.dumps(pattern), str(len(vocab))] + [f"{i} {bytes_to_gpt2_str(t)}" for i, t in enumerate(vocab)]
    lines += [str(len(specials or {}))] + [f"{i} {s}" for s, i in (specials or {}).items()]
    for kind in ("W", "D", "S"):
        lines += [str(len(sections[kind]))] + sections[kind]
    lines += ["0"]
    return "\n".join(lines) + "\n"

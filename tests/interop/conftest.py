"""Helpers for the interop suite: real libraries (tokenizers, tiktoken, sentencepiece) as referees.

Data from ../shared (beside the repository) is located through tests/conftest.py and skipped
with a reason when absent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import bpe_tui
from bpe_tui.core.engine.units import gpt2_str_to_bytes

FIXTURES = Path(__file__).resolve().parent / "fixtures"

#: The varied text set every encoder must agree on.
TEXTS = [
    "Hello world! The quick brown fox jumps over the lazy dog.",
    "It's what they'll say: don't, won't, I'm, we've, you'd.",
    "Größenwahn über die Straße, Fußgänger und Ärger: schön!",
    "日本語のテキストと中文文本，还有한국어.",
    "emoji 😀👍🏽 🇩🇪 family 👨‍👩‍👧 done",
    "def f(x):\n    return x ** 2  # square\n\tif x: print(f'{x!r}')\n",
    "   lots   of\t\tspace  \n\n\n   trailing   ",
    "numbers 1234567 3.14159 and 2024-01-01",
    "a<|endoftext|>b <|endoftext|><|pad|> end<|pad|>",
    "",
    " ",
    "\n",
]


def hf_bytelevel_train(files, vocab_size: int, special_tokens=(), min_frequency: int = 0):
    """Train tokenizers' BpeTrainer byte-level with the GPT-2 regex; return (merges as bytes, json)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(special_tokens),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        min_frequency=min_frequency,
        show_progress=False,
    )
    tok.train([str(f) for f in files], trainer)
    data = json.loads(tok.to_str())
    merges = []
    for m in data["model"]["merges"]:
        a, b = m if isinstance(m, list) else m.split(" ")
        merges.append((gpt2_str_to_bytes(a), gpt2_str_to_bytes(b)))
    return merges, data


def ours_hf_train(files, vocab_size: int, special_tokens=(), min_frequency: int = 1):
    cfg = bpe_tui.TrainerConfig(
        preset="gpt2", tie_break="hf", special_tokens=list(special_tokens), vocab_size=vocab_size, min_frequency=min_frequency
    )
    trainer = bpe_tui.Trainer.from_files([str(f) for f in files], cfg)
    for _ in trainer.run():
        pass
    return trainer.table


@pytest.fixture(scope="session")
def trained_table():
    """A byte-level table trained on the repo's corpora (tie-break hf), with two special tokens."""
    from tests.conftest import CORPORA

    files = [CORPORA / "demo.txt", CORPORA / "multilingual.txt", CORPORA / "code_sample.py"]
    return ours_hf_train(files, 1200, ["<|endoftext|>", "<|pad|>"])


@pytest.fixture(autouse=True)
def _no_tiktoken_cache(monkeypatch):
    """tiktoken caches even local files by path; tests reuse tmp paths, so switch it off."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")


def assert_one_line_error(exc_info, *needles: str) -> str:
    message = str(exc_info.value)
    assert "\n" not in message, message
    for needle in needles:
        assert needle in message, f"{needle!r} not in {message!r}"
    return message


def assert_load_fails(path: Path, content: str | bytes, fmt: str, *needles: str) -> str:
    """Write ``content`` to ``path``: reading it as ``fmt`` fails with one line naming the
    file and every needle."""
    written = write(path, content)
    with pytest.raises(bpe_tui.BPEError) as exc:
        bpe_tui.load(written, format=fmt)
    return assert_one_line_error(exc, written, *needles)


def same_table(a, b) -> None:
    assert a.units == b.units
    assert a.merges == b.merges
    assert a.vocab == b.vocab
    assert a.special_tokens == b.special_tokens
    assert a.pretokenizer == b.pretokenizer
    assert a.end_of_word == b.end_of_word


def write(path: Path, text: str | bytes) -> str:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return os.fspath(path)

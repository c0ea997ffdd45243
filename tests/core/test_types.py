"""Types that document: the Literal aliases are the runtime choices, and every format module
is a TableReader (and, if it writes, a TableWriter). mypy checks the same statically (it runs
in the README's test command); these checks hold at run time, where a module could be added
to FORMATS without mypy having run."""

from __future__ import annotations

import inspect
import typing

import pytest

import bpe_tui
from bpe_tui.core import types
from bpe_tui.core.engine import config
from bpe_tui.core.tables import formats
from bpe_tui.core.text.pretokenize import PreTokenizer


def test_literal_aliases_are_the_runtime_choices():
    assert types.UNITS == typing.get_args(types.Units) == ("chars", "bytes")
    assert config.UNITS is types.UNITS and config.TIE_BREAKS is types.TIE_BREAKS
    assert set(types.TIE_BREAKS) == {"first-seen", "lexical-min", "lexical-max", "hf", "rustbpe", "subword-nmt", "picky"}
    assert set(types.PREFIX_SCHEMES) == {"always", "first", "prepend"}
    for name in types.TIE_BREAKS:
        assert config.TrainerConfig(tie_break=name).tie_break == name


def test_format_names_are_the_modules_names():
    assert sorted(types.FORMAT_NAMES) == sorted({m.NAME for m in formats.FORMATS} | {m.NAME for m in formats.WRITERS})
    assert list(formats.readers()) == [m.NAME for m in formats.FORMATS]
    write_only = [m for m in formats.WRITERS if m not in formats.FORMATS]
    assert [m.NAME for m in write_only] == ["transformers"]  # (its folder is read by the hf reader)


@pytest.mark.parametrize("module", formats.FORMATS, ids=lambda m: m.NAME)
def test_every_format_module_is_a_table_reader(module):
    assert module.NAME in types.FORMAT_NAMES
    for name in ("sniff", "read"):
        params = list(inspect.signature(getattr(module, name)).parameters)
        assert params[:1] == ["path"], (module.NAME, name, params)


@pytest.mark.parametrize("module", formats.FORMATS, ids=lambda m: m.NAME)
def test_a_module_that_writes_is_a_table_writer(module):
    """WRITERS lists exactly the modules with a ``write``, each saying what it loses."""
    assert (module in formats.WRITERS) == hasattr(module, "write")
    if module in formats.WRITERS:
        write = inspect.signature(module.write).parameters
        assert list(write)[:2] == ["table", "path"] and "overwrite" in write
        assert list(inspect.signature(module.losses).parameters) == ["table"]


def test_a_write_only_format_is_a_table_writer():
    for module in formats.WRITERS:
        write = inspect.signature(module.write).parameters
        assert list(write)[:2] == ["table", "path"] and "overwrite" in write, module.NAME
        assert list(inspect.signature(module.losses).parameters) == ["table"], module.NAME


def test_losses_are_sentences():
    trained_table = bpe_tui.train(bpe_tui.demo_corpus_path(), vocab_size=300, special_tokens=["<|endoftext|>"])
    for module in formats.WRITERS:
        notes = module.losses(trained_table)
        assert isinstance(notes, list) and all(isinstance(n, str) and n for n in notes), module.NAME
    assert formats.native.losses(trained_table) == []  # native holds everything
    assert any("counts" in n for n in formats.gpt2.losses(trained_table))


def test_special_tokens_split_out_through_the_public_matcher():
    pre = PreTokenizer("gpt2", ["<|endoftext|>", "<|end|>"])
    text = "a<|end|>b<|endoftext|>c"
    assert pre.special_matcher is not None
    assert pre.special_matcher.split(text) == ["a", "b", "c"]
    assert [m.group() for m in pre.special_matcher.finditer(text)] == ["<|end|>", "<|endoftext|>"]
    assert PreTokenizer("gpt2").special_matcher is None

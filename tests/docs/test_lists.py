"""Where the guide or a docstring lists the values of a setting (the presets, the tie-break
rules, the formats), the list is the code's own: generated from it, or held to it here."""

from __future__ import annotations

import dataclasses
import importlib.util
import re

import bpe_tui.core.engine.tiebreak as tiebreak
from bpe_tui.core.engine.config import PRESETS, TrainerConfig
from bpe_tui.core.tables.formats import save, writers
from bpe_tui.core.types import FORMAT_NAMES, TIE_BREAKS
from tests.conftest import REPO

DOCS = REPO / "docs"


def _generate():
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "hooks" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entry(page: str, heading: str) -> str:
    """The text of a ``### heading`` entry of a page, up to the next heading."""
    text = (DOCS / page).read_text(encoding="utf-8")
    match = re.search(rf"^### {re.escape(heading)}\n(.*?)(?=^#|\Z)", text, re.S | re.M)
    assert match, f"{page} has no entry {heading!r}"
    return match.group(1)


def test_the_glossary_names_every_preset_and_tie_break():
    assert set(re.findall(r"`([\w-]+)`", entry("glossary.md", "Preset"))) >= set(PRESETS)
    assert set(re.findall(r"\*([\w-]+)\*", entry("glossary.md", "Tie-break"))) == set(TIE_BREAKS)


def test_the_glossary_has_the_variants_words():
    text = (DOCS / "glossary.md").read_text(encoding="utf-8")
    for heading in ("IoS (Intersection over Self)", "Removal", "Restore", "Development text", "Parity (parity-aware BPE)",
                    "Supermerge", "Superword stage"):
        assert f"### {heading}\n" in text
    assert "(variants/boundless.md)" in entry("glossary.md", "Supermerge") and "--preset boundless" in entry("glossary.md", "Supermerge")


def test_the_rules_page_defines_every_tie_break_and_shows_every_preset():
    rules = (DOCS / "rules.md").read_text(encoding="utf-8")
    bullet = re.search(r"^- \*\*Tie-break\*\*.*?(?=^- \*\*)", rules, re.S | re.M).group(0)
    assert set(re.findall(r"^\s+`([\w-]+)` ", bullet, re.M)) | set(re.findall(r"; `([\w-]+)` ", bullet)) == set(TIE_BREAKS)
    assert "<!-- generated: presets -->" in rules
    table = _generate().presets_table()
    assert [re.match(r"\| `([\w-]+)`", row).group(1) for row in table.splitlines()[2:]] == list(PRESETS)


def test_tiebreak_docstring_defines_every_rule_once():
    names = re.findall(r"^\* ``([\w-]+)``", tiebreak.__doc__, re.M)
    assert sorted(names) == sorted(TIE_BREAKS) and len(names) == len(set(names))
    import bpe_tui.core

    for doc in (tiebreak.__doc__, bpe_tui.core.__doc__):  # a count in words goes stale as rules come
        assert not re.search(r"\b(four|five|six|seven|eight|nine) (tie-break )?rules\b", doc)


def test_trainer_config_documents_every_field_and_lists_every_value():
    doc = TrainerConfig.__doc__
    section = doc[doc.index("Attributes:"):]
    documented = re.findall(r"^        (\w+): ", section, re.M)
    assert documented == [f.name for f in dataclasses.fields(TrainerConfig)]

    def values(name: str) -> set[str]:
        text = re.search(rf"^        {name}: (.*?)(?=^        \w+: |\Z)", section, re.S | re.M).group(1)
        return set(re.findall(r'"([\w-]+)"', text))

    assert values("preset") == set(PRESETS)
    assert values("tie_break") == set(TIE_BREAKS)


def test_the_command_line_page_lists_every_training_option_from_the_parser():
    cli = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert "<!-- generated: training_options -->" in cli
    generate = _generate()
    block = generate.training_options()
    for value in (*PRESETS, *TIE_BREAKS, *FORMAT_NAMES):
        if value != "sentencepiece":  # read, never written: not a --format choice
            assert f"`{value}`" in block, value
    _, commands = generate._subparsers()
    for action in commands["train"]._actions:
        for option in action.option_strings:
            if option not in ("-h", "--help"):
                assert f"`{option}" in block, option


def test_the_formats_save_writes_are_named_where_they_are_listed():
    doc_line = re.search(r"format: (.*?)(?=\n\s+overwrite:)", save.__doc__, re.S).group(1)
    assert set(re.findall(r"[\w-]+(?=[,.]| or)", doc_line)) >= set(writers())
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    row = next(line for line in api.splitlines() if line.startswith("| `save("))
    assert set(re.findall(r"`([\w-]+)`", row.split("|")[2])) == set(writers())

"""The registry of variants (bpe_tui/core/engine/registry.py): every surface that offers a
variant reads its declaration there, and nothing else names one.

The flags, the rules dialog's rows, plain BPE's config, ``inspect``'s lines about a table and
the encoder's rule all come from the variants' own declarations; messages on the command line
name options by the flags the user typed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.cli.options import OneLineParser, add_training_options
from bpe_tui.core.engine import registry
from bpe_tui.core.engine.registry import BUILT_IN, about_table, dialog_options, flag_of, plain_config, variant_for
from bpe_tui.core.engine.variants.parity import ParityAware
from bpe_tui.core.engine.variants.picky import PickyBPE
from bpe_tui.core.engine.variants.plain import PlainBPE
from bpe_tui.core.engine.variants.superbpe import SuperBPE
from tests.conftest import CORPORA, REPO

from .test_cli import error_of, run
from .test_parity_cli import language_args

PACKAGE = REPO / "bpe_tui"


def test_every_flag_of_a_variant_is_its_declarations():
    """``train --help``'s variant flags are exactly the flags the built-ins declare."""
    parser = OneLineParser(prog="t")
    add_training_options(parser)
    flags = {s for action in parser._actions for s in action.option_strings}
    declared = {o.flag for cls in BUILT_IN for o in cls.options if o.flag}
    assert declared <= flags
    assert {"--variant", "--variant-option", "--check-variant", "--language", "--dev", "--ratio"} <= flags
    assert flag_of("parity_window") == "--parity-window" and flag_of("global_merges") == "--global-merges"
    assert flag_of("max_token_length") == "--max-token-length"


def test_the_cli_and_the_ui_name_no_variant():
    """``grep -n "picky\\|parity\\|superword" bpe_tui/cli bpe_tui/ui`` finds nothing: they read
    the registry (its strings, its declarations) and speak of variants generically."""
    done = subprocess.run(["grep", "-rn", "-I", r"picky\|parity\|superword", "bpe_tui/cli", "bpe_tui/ui"], cwd=REPO, capture_output=True, text=True)
    assert done.stdout == "", done.stdout


def test_the_variant_a_config_asks_for():
    assert isinstance(variant_for(TrainerConfig()), PlainBPE)
    assert isinstance(variant_for(TrainerConfig(preset="classic", picky=0.5)), PickyBPE)
    assert isinstance(variant_for(TrainerConfig(preset="gpt2", superwords_after=5), {"a": 1}), SuperBPE)
    with pytest.raises(Exception, match="one corpus per language"):
        variant_for(TrainerConfig(preset="parity", parity="base"))


def test_plain_config_clears_every_option_the_registry_knows():
    cfg = TrainerConfig(preset="superbpe", superwords_after=10, superword_max_words=3)
    plain = plain_config(cfg, 500)
    for cls in BUILT_IN:
        for option in cls.options:
            if option.key in TrainerConfig.__dataclass_fields__:
                assert getattr(plain, option.key) == option.default, option.key
    assert plain.vocab_size == 500 and plain.merges is None and isinstance(variant_for(plain), PlainBPE)


def test_the_dialog_offers_what_the_config_uses():
    assert [o.key for o in dialog_options(TrainerConfig())] == ["picky"]  # offered: switches PickyBPE on
    keys = [o.key for o in dialog_options(TrainerConfig(superwords_after=4))]
    assert keys == ["picky", "superword_rule", "superword_max_words", "superword_skip_colon_space", "superwords_drop_unused"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--picky", "0.9", "--superwords-after", "5"], "--picky and --superwords-after do not go together"),
        (["--picky", "0"], "--picky: the IoS threshold must be a number above 0"),
        (["--superword-max-words", "4"], "--superword-max-words is an option of SuperBPE's stage 2: give --superwords-after K"),
        (["--global-merges", "3", "--language", "en=x.txt"], ""),  # (checked below: a flag, never a field, is named)
        (["--variant", "plain", "--picky", "0.5"], "--variant plain and --picky do not go together"),
        (["--variant", "picky"], "--variant picky: picky is built in: ask for it with its own options (--picky)"),
        (["--variant-option", "x=1"], "--variant-option needs --variant MODULE:CLASS"),
    ],
)
def test_messages_name_the_flags_typed(capsys, tmp_path, argv, message):
    line = error_of(capsys, "train", str(CORPORA / "demo.txt"), *argv, "-o", str(tmp_path / "t.json"), "-q")
    assert message in line
    for cls in BUILT_IN:  # no Python field name of a variant option in a command-line message
        for option in cls.options:
            if "_" in option.key:
                assert f"{option.key}" not in line.replace(option.flag or "", ""), line


def test_parity_messages_name_flags(capsys, tmp_path):
    line = error_of(capsys, "train", *language_args("en", "de"), "--parity-window", "8", "-o", str(tmp_path / "t.json"), "-q")
    assert line.endswith("--parity-window and --parity-alpha are options of the window variant: set --parity to window")


def test_inspect_says_what_each_variant_made(capsys, tmp_path):
    """``inspect`` of a PickyBPE table gives its τ and removals, of a parity-aware table its
    languages, of a superword table its stages: each variant's ``about_table``."""
    picky = tmp_path / "picky.json"
    assert run(capsys, "train", str(CORPORA / "demo.txt"), "--preset", "picky", "--picky", "0.6", "--merges", "80", "-o", str(picky), "-q")[0] == 0
    code, out, _ = run(capsys, "inspect", str(picky))
    removals = [line for line in out.splitlines() if line.startswith("PickyBPE: ")]
    assert removals and removals[0].startswith("PickyBPE: τ 0.6: ") and "removed" in removals[0]
    parity = tmp_path / "parity.json"
    assert run(capsys, "train", *language_args("en", "de"), "--merges", "30", "-o", str(parity), "-q")[0] == 0
    code, out, _ = run(capsys, "inspect", str(parity))
    assert "parity-aware: 2 languages (en, de), base; measured on their development texts" in out
    assert about_table({"superwords_after": 5, "pretokenizer": "gpt2"})[0][0] == "superwords (SuperBPE)"
    assert about_table({}) == []


def test_the_encoder_asks_the_variants_rule():
    """A PickyBPE table's encoder replays its removals: the rule its class gives the table."""
    t = Trainer.from_files([str(CORPORA / "demo.txt")], TrainerConfig(preset="picky", picky=0.6, merges=60))
    for _ in t.run():
        pass
    table = t.table
    rule = registry.encoding_rule(table.config, table._merges, table._vocab, "t")
    assert rule is not None and rule.entries == table._removals.entries
    assert registry.encoding_rule({}, table._merges, table._vocab, "t") is None


def test_evaluate_measures_a_variants_own_languages_first():
    langs = {lang: str(CORPORA / "parallel" / f"{lang}.txt") for lang in ("en", "ja")}
    t = Trainer.from_languages(langs, dev=langs, config=TrainerConfig(preset="parity", parity="base", merges=5))
    assert isinstance(t.variant, ParityAware) and t.variant.measure_languages() == ("en", "ja")
    assert PlainBPE().measure_languages() == ()

"""Superword (SuperBPE) tables as tokenizer.json: what we write, Hugging Face ``tokenizers``
loads and encodes to exactly our ids; what has that shape, we read and encode like it does."""

from __future__ import annotations

import json

import pytest
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

import bpe_tui
from bpe_tui import BPEError, Trainer, TrainerConfig
from bpe_tui.core.engine.superwords import is_superword
from bpe_tui.core.text.superword_rules import SUPERWORD_PRETOKENIZER, SUPERWORD_SPLIT
from tests.conftest import TINYSHAKESPEARE, need
from tests.parity_texts import texts

from .conftest import same_table


@pytest.fixture(scope="module", params=[200, 2000], ids=["K=200", "K=2000"])
def superword_table(request):
    """tinyshakespeare, SuperBPE with the transition at K, to K + 1,000 merges."""
    k = request.param
    trainer = Trainer.from_files([str(need(TINYSHAKESPEARE))], TrainerConfig(superwords_after=k, merges=k + 1000))
    events = list(trainer.run())
    assert trainer.transition is not None and trainer.transition.step == k
    assert any(is_superword(e.new_token) for e in events[k:])
    return trainer.table


def test_tokenizers_encodes_our_superword_table_to_our_ids(superword_table, tmp_path):
    path = tmp_path / "tokenizer.json"
    bpe_tui.save(superword_table, str(path), format="hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["pre_tokenizer"] == {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": SUPERWORD_SPLIT}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        ],
    }
    assert data["decoder"]["type"] == "ByteLevel"
    hf = Tokenizer.from_file(str(path))
    for text in texts():
        ids = superword_table.encode(text)
        assert hf.encode(text).ids == ids, text
        assert hf.decode(ids) == text
    back = bpe_tui.load(str(path))
    assert back.pretokenizer == SUPERWORD_PRETOKENIZER
    same_table(back, superword_table)
    for text in texts():
        assert back.encode(text) == superword_table.encode(text), text


def test_the_native_format_keeps_the_transition(superword_table, tmp_path):
    path = tmp_path / "table.json"
    bpe_tui.save(superword_table, str(path))
    back = bpe_tui.load(str(path))
    assert back.config["superwords_after"] == superword_table.config["superwords_after"]
    assert back.pretokenizer == SUPERWORD_PRETOKENIZER
    for text in texts()[:40]:
        assert back.encode(text) == superword_table.encode(text), text


@pytest.mark.parametrize("format", ["gpt2", "tiktoken", "minbpe"])
def test_formats_that_cannot_hold_it_refuse_it_by_name(superword_table, tmp_path, format):
    target = tmp_path / "out"
    with pytest.raises(BPEError, match=f"the {format} format cannot hold a superword \\(SuperBPE\\) table"):
        bpe_tui.save(superword_table, str(target), format=format)
    assert not target.exists()


def trained_by_tokenizers(tmp_path, text: str, steps: list, vocab_size: int):
    """``(tokenizer, our table read from its file)``: tokenizers trains a byte-level BPE on
    ``text`` under the pre-tokenizer ``steps`` (then ByteLevel without its regex) and saves it."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([*steps, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train([str(corpus)], trainer)
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    return tok, bpe_tui.load(str(path))


def test_a_tokenizer_json_of_that_shape_made_by_tokenizers_reads_with_parity(tmp_path):
    """tokenizers trains a byte-level BPE under SuperBPE's split itself (stage 2 from the
    start); we read its file and encode every text to its ids."""
    text = need(TINYSHAKESPEARE).read_text(encoding="utf-8")[:200_000]
    tok, table = trained_by_tokenizers(tmp_path, text, [pre_tokenizers.Split(Regex(SUPERWORD_SPLIT), behavior="isolated")], 1200)
    assert table.pretokenizer == SUPERWORD_PRETOKENIZER
    assert any(is_superword(s) for s in table.vocab.values())
    for text in texts():
        assert table.encode(text) == tok.encode(text).ids, text


# ---------------------------------------------------------------------- the stage-2 options

from bpe_tui.core.text.pretokenize import DIGIT_GROUPS, SUPERBPE_STAGE1_SPLIT  # noqa: E402
from bpe_tui.core.text.superword_rules import SUPERWORD_DIGITS_PRETOKENIZER  # noqa: E402

LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
DIGITS_PRE = {
    "type": "Sequence",
    "pretokenizers": [
        {"type": "Digits", "individual_digits": False},
        {"type": "Split", "pattern": {"Regex": DIGIT_GROUPS}, "behavior": "Isolated", "invert": False},
        LEVEL,
    ],
}
OPTION_SETS = {
    "digits": {"superword_rule": "digits"},
    "max-words": {"superword_max_words": 2},
    "colon-space": {"superword_skip_colon_space": True},
    "drop-unused": {"superwords_drop_unused": True},
    "preset": {"preset": "superbpe"},
}


@pytest.fixture(scope="module", params=list(OPTION_SETS), ids=list(OPTION_SETS))
def option_table(request):
    """code_sample.py ten times and tinyshakespeare's first 200,000 characters, SuperBPE after
    300 merges with one stage-2 option (or the whole preset), to 1,300 merges."""
    from tests.conftest import CORPORA

    text = (CORPORA / "code_sample.py").read_text(encoding="utf-8") * 10 + need(TINYSHAKESPEARE).read_text(encoding="utf-8")[:200_000]
    options = OPTION_SETS[request.param]
    trainer = Trainer.from_text(text, TrainerConfig(superwords_after=300, merges=1300, **options))
    list(trainer.run())
    assert trainer.in_superword_stage
    return request.param, trainer.table


def test_tokenizers_encodes_a_table_of_each_option_to_our_ids(option_table, tmp_path):
    name, table = option_table
    path = tmp_path / "tokenizer.json"
    bpe_tui.save(table, str(path), format="hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    if table.config["superword_rule"] == "digits":  # the shape of the authors' OLMo2 tokenizer.json
        assert data["pre_tokenizer"] == DIGITS_PRE
    else:
        assert data["pre_tokenizer"]["pretokenizers"][0]["pattern"] == {"Regex": SUPERWORD_SPLIT}
    if table.config.get("superwords_dropped"):  # the dropped merges' tokens are holes in the ids
        assert len(data["model"]["vocab"]) == len(table) < max(table.vocab) + 1
    hf = Tokenizer.from_file(str(path))
    for text in texts():
        ids = table.encode(text)
        assert hf.encode(text).ids == ids, (name, text)
        assert hf.decode(ids) == text
    back = bpe_tui.load(str(path))
    same_table(back, table)


def test_the_preset_table_really_lost_merges(option_table):
    name, table = option_table
    if name == "preset":  # code_sample.py's indentation: its stage-1 runs of three spaces
        assert table.config["superwords_dropped"] == 3
        assert table.num_merges == 1300 - 3 and len(table) == 256 + 1300 - 3


def test_the_digits_rule_reads_back_from_the_authors_shape(tmp_path):
    """A tokenizer.json with the OLMo2 SuperBPE pre-tokenizer (Digits, Split, ByteLevel), made
    by tokenizers' own trainer, reads as the digits rule and encodes as tokenizers does."""
    text = need(TINYSHAKESPEARE).read_text(encoding="utf-8")[:100_000] + "In 1999, 12,345 people paid $1234567.\n" * 20
    steps = [pre_tokenizers.Digits(individual_digits=False), pre_tokenizers.Split(Regex(DIGIT_GROUPS), behavior="isolated")]
    tok, table = trained_by_tokenizers(tmp_path, text, steps, 900)
    assert table.pretokenizer == SUPERWORD_DIGITS_PRETOKENIZER
    for text in texts():
        assert table.encode(text) == tok.encode(text).ids, text


def test_the_preset_stage1_table_is_the_authors_bpe_shape(tmp_path):
    """Without a transition the preset trains the authors' stage-1 BPE: Digits + their Split."""
    trainer = Trainer.from_files([str(need(TINYSHAKESPEARE))], TrainerConfig(preset="superbpe", merges=500))
    list(trainer.run())
    path = tmp_path / "tokenizer.json"
    bpe_tui.save(trainer.table, str(path), format="hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["pre_tokenizer"]["pretokenizers"][:2] == [
        {"type": "Digits", "individual_digits": False},
        {"type": "Split", "pattern": {"Regex": SUPERBPE_STAGE1_SPLIT}, "behavior": "Isolated", "invert": False},
    ]
    hf = Tokenizer.from_file(str(path))
    for text in texts():
        assert hf.encode(text).ids == trainer.table.encode(text), text

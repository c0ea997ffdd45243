"""tokenizer.json pre-tokenizers as split pipelines: the same pieces as tokenizers' own
pre-tokenizers on generated text, for every Split behavior and the other step types."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex
from tokenizers import pre_tokenizers as P

from bpe_tui import BPEError
from bpe_tui.core.tables.formats.hf import _pretokenizer
from bpe_tui.core.text.pretokenize import PIPELINE, PreTokenizer

ALPHABET = st.sampled_from(list("ab Z1 2\t\n,!$.-'é日ş٣"))

CASES = [
    ({"type": "Split", "pattern": {"Regex": r"\d"}, "behavior": behavior, "invert": invert},
     P.Split(Regex(r"\d"), behavior=snake, invert=invert))
    for behavior, snake in [("Removed", "removed"), ("Isolated", "isolated"), ("MergedWithPrevious", "merged_with_previous"),
                            ("MergedWithNext", "merged_with_next"), ("Contiguous", "contiguous")]
    for invert in (False, True)
] + [
    ({"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithNext", "invert": False},
     P.Split(" ", behavior="merged_with_next")),
    ({"type": "Digits", "individual_digits": True}, P.Digits(individual_digits=True)),
    ({"type": "Digits", "individual_digits": False}, P.Digits(individual_digits=False)),
    ({"type": "Whitespace"}, P.Whitespace()),
    ({"type": "WhitespaceSplit"}, P.WhitespaceSplit()),
    ({"type": "Punctuation", "behavior": "Isolated"}, P.Punctuation()),
    ({"type": "BertPreTokenizer"}, P.BertPreTokenizer()),
    ({"type": "CharDelimiterSplit", "delimiter": ","}, P.CharDelimiterSplit(",")),
]
#: A Sequence the way DeepSeek-style tokenizer.json files compose them (without ByteLevel,
#: whose byte map is the table's business, not the pre-tokenizer's).
SEQUENCE = (
    [{"type": "Split", "pattern": {"Regex": r"\p{N}{1,3}"}, "behavior": "Isolated", "invert": False},
     {"type": "Split", "pattern": {"Regex": r"[^\s\p{L}\p{N}]+"}, "behavior": "MergedWithNext", "invert": False},
     {"type": "Digits", "individual_digits": True}],
    P.Sequence([P.Split(Regex(r"\p{N}{1,3}"), behavior="isolated"),
                P.Split(Regex(r"[^\s\p{L}\p{N}]+"), behavior="merged_with_next"),
                P.Digits(individual_digits=True)]),
)


def ours(parts):
    return PreTokenizer(_pretokenizer("t.json", parts)).pattern.findall


@settings(max_examples=60, deadline=None)
@given(text=st.text(ALPHABET, max_size=24))
@pytest.mark.parametrize("spec, reference", CASES + [SEQUENCE], ids=lambda c: json.dumps(c)[:50] if isinstance(c, (dict, list)) else "")
def test_same_pieces_as_tokenizers(spec, reference, text):
    parts = spec if isinstance(spec, list) else [spec]
    assert ours(parts)(text) == [piece for piece, _ in reference.pre_tokenize_str(text)]


#: ByteLevel's add_prefix_space after another step: a space in front of every piece that step
#: made (a prefix step), before ByteLevel's own regex when it has one.
PREFIXED = [
    ([{"type": "Whitespace"}, {"type": "ByteLevel", "add_prefix_space": True, "use_regex": False}],
     P.Sequence([P.Whitespace(), P.ByteLevel(add_prefix_space=True, use_regex=False)])),
    ([{"type": "Whitespace"}, {"type": "ByteLevel", "add_prefix_space": True, "use_regex": True}],
     P.Sequence([P.Whitespace(), P.ByteLevel(add_prefix_space=True, use_regex=True)])),
    ([{"type": "Punctuation", "behavior": "Isolated"}, {"type": "ByteLevel", "add_prefix_space": True, "use_regex": False}],
     P.Sequence([P.Punctuation(), P.ByteLevel(add_prefix_space=True, use_regex=False)])),
]


@settings(max_examples=60, deadline=None)
@given(text=st.text(ALPHABET, max_size=24))
@pytest.mark.parametrize("spec, reference", PREFIXED, ids=lambda c: json.dumps(c)[:60] if isinstance(c, list) else "")
def test_byte_level_prefix_after_a_split_is_put_before_every_piece(spec, reference, text):
    from bpe_tui.core.engine.units import bytes_to_gpt2_str

    pieces = [bytes_to_gpt2_str(piece.encode("utf-8")) for piece in ours(spec)(text)]
    assert pieces == [piece for piece, _ in reference.pre_tokenize_str(text)]


def test_parity_aware_bpe_pre_tokenizer_reads_back_by_its_name():
    from bpe_tui.core.text.pretokenize import PARITY_PRETOKENIZER, short_name

    authors = [{"type": "Whitespace"}, {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": False}]
    assert _pretokenizer("t.json", authors) == PARITY_PRETOKENIZER
    assert short_name(PARITY_PRETOKENIZER) == "parity"


def test_simple_cases_keep_their_names():
    gpt2 = [{"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}]
    assert _pretokenizer("t.json", gpt2) == "gpt2"
    assert _pretokenizer("t.json", [{"type": "Metaspace", "split": True}]).startswith("regex:")
    assert _pretokenizer("t.json", [{"type": "Digits", "individual_digits": True}]).startswith(PIPELINE)


def test_unknown_pre_tokenizer_is_refused_by_name():
    with pytest.raises(BPEError, match="'UnicodeScripts' is not supported"):
        _pretokenizer("t.json", [{"type": "UnicodeScripts"}])


def test_added_token_flags_match_tokenizers(tmp_path):
    """lstrip, rstrip and single_word decide where an added token matches, as in tokenizers;
    written back, tokenizers reads the same flags."""
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers, trainers

    import bpe_tui

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(["the cat sat on the mat with a hat"] * 20, trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True), AddedToken("<end>", rstrip=True),
                            AddedToken("cat", single_word=True, special=True)])
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    table = bpe_tui.load(str(path))
    samples = ["the <mask> sat", "the   <mask>", "<mask>  <mask>", "a <end>   b", "cat", "a cat b", "concatenate", "cats",
               "_cat", "the cat's hat", "<mask><end>cat"]
    for text in samples:
        assert table.encode(text) == tok.encode(text).ids, text
    bpe_tui.save(table, str(tmp_path / "back.json"), format="hf")
    again = Tokenizer.from_file(str(tmp_path / "back.json"))
    for text in samples:
        assert again.encode(text).ids == tok.encode(text).ids, text

"""Normalizers against the libraries that define them: sentencepiece's own ``normalize`` for
charsmaps of models trained in the test, and ``tokenizers``' normalizers for tokenizer.json
specs (built from the same JSON)."""

from __future__ import annotations

import json

import pytest
import sentencepiece as spm
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_tui import BPEError
from bpe_tui.core.tables.formats.sentencepiece_bpe import parse_message
from bpe_tui.core.text.normalize import (
    Charsmap,
    Precompiled,
    SentencePieceNormalizer,
    from_hf,
)
from tests.conftest import CORPORA
from tests.parity_texts import BASE

#: Text that exercises the rules: compatibility forms, odd whitespace, controls, case, marks.
SAMPLES = [
    "Hello  world ",
    "  ﬁne ｆｕｌｌ Ｗｉｄｔｈ①②③ ㍿ ",
    "tab\there\nnl\r\n",
    "x<sep>y  <sep> z",
    "Ǆemo Å Å é é",
    "\u200b zero\u00a0nbsp\u3000ideo",
    "①⑴⒜ ™ ℃ ½",
    "İstanbul ΣΊΣΥΦΟΣ straße",
    "\x01ctrl\x7f",
    "emoji 👍🏽 👨‍👩‍👧 🇫🇷",
    "한국어 日本語 ｶﾀｶﾅ",
    "",
    "   ",
    "a",
    "\x7f",
    " \x7f ",
    "\x7f\x7f  ",
]

#: An alphabet for generated text: ASCII, spaces of every kind, compatibility characters.
ALPHABET = st.sampled_from(list("ab Z.\t\n\r\u00a0\u3000\u200bﬁｆＷ①⑴㍿½™éÅ\u0301ΣςİßÆ👍🏽한日ｶ\x01\x7f"))


def _normalizer_spec(model_path) -> dict:
    data = open(model_path, "rb").read()
    for field, _, value, _ in parse_message(data):
        if field == 3:
            return {f: v for f, _, v, _ in parse_message(value)}
    return {}


class Trained:
    """Our normalizer, sentencepiece's processor and the charsmap of one trained model."""

    def __init__(self, rule: str, ours: SentencePieceNormalizer, sp, blob: bytes):
        self.rule, self.ours, self.sp, self.blob = rule, ours, sp, blob

    def __iter__(self):
        return iter((self.ours, self.sp, self.blob))

    def __repr__(self) -> str:  # hypothesis prints fixtures on failure: keep the blob out
        return f"<{self.rule} model>"


@pytest.fixture(scope="module", params=["nmt_nfkc", "nfkc_cf", "nmt_nfkc_cf"])
def trained(request, tmp_path_factory):
    """A sentencepiece BPE model trained here with a normalization rule, squeezing whitespace
    or not; yields (our normalizer, sentencepiece, the charsmap blob)."""
    rule = request.param
    d = tmp_path_factory.mktemp(rule)
    corpus = d / "corpus.txt"
    corpus.write_text((CORPORA / "multilingual.txt").read_text(encoding="utf-8") * 3, encoding="utf-8")
    models = {}
    for squeeze in (True, False):
        prefix = str(d / f"m{int(squeeze)}")
        spm.SentencePieceTrainer.train(
            input=str(corpus), model_prefix=prefix, vocab_size=300, model_type="bpe", normalization_rule_name=rule,
            remove_extra_whitespaces=squeeze, user_defined_symbols=["<sep>"], minloglevel=2,
        )
        spec = _normalizer_spec(prefix + ".model")
        ours = SentencePieceNormalizer(
            Charsmap(spec[2]), add_dummy_prefix=bool(spec.get(3, 1)), remove_extra_whitespaces=bool(spec.get(4, 1)),
            user_defined=["<sep>"],
        )
        models[squeeze] = Trained(rule, ours, spm.SentencePieceProcessor(model_file=prefix + ".model"), spec[2])
    return models


def test_sentencepiece_normalize_samples(trained):
    for ours, sp, _ in trained.values():
        for text in SAMPLES:
            assert ours(text, escape=True) == sp.normalize(text), text


@settings(max_examples=150, deadline=None)
@given(text=st.text(ALPHABET, max_size=30))
def test_sentencepiece_normalize_generated(trained, text):
    for ours, sp, _ in trained.values():
        assert ours(text, escape=True) == sp.normalize(text)


@settings(max_examples=150, deadline=None)
@given(text=st.text(ALPHABET, max_size=30))
def test_hf_precompiled_generated(trained, text):
    ours, _, blob = trained[True]
    assert Precompiled(ours.charsmap)(text) == tokenizers.normalizers.Precompiled(blob).normalize_str(text)


def test_hf_and_sentencepiece_differ_where_documented(trained):
    ours, _, blob = trained[False]
    hf = tokenizers.normalizers.Precompiled(blob).normalize_str("a\r\nb")
    if trained[False].rule.startswith("nmt"):
        # "\r\n" is one grapheme cluster: HF replaces it by the rule for "\r" alone.
        assert hf == Precompiled(ours.charsmap)("a\r\nb") == "a b"
        assert ours("a\r\nb", dummy_prefix=False) == "a  b"
    else:  # no rule for "\r": both keep the text
        assert hf == Precompiled(ours.charsmap)("a\r\nb") == ours("a\r\nb", dummy_prefix=False) == "a\r\nb"


def _hf_normalize(spec: dict, text: str) -> str:
    """What tokenizers' normalizer built from ``spec`` (via a whole tokenizer.json) gives."""
    doc = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": spec,
        "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
    }
    return tokenizers.Tokenizer.from_str(json.dumps(doc)).normalizer.normalize_str(text)


HF_SPECS = [
    {"type": "NFC"},
    {"type": "NFKC"},
    {"type": "NFD"},
    {"type": "NFKD"},
    {"type": "Lowercase"},
    {"type": "Nmt"},
    {"type": "Strip", "strip_left": True, "strip_right": False},
    {"type": "Strip", "strip_left": True, "strip_right": True},
    {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]},
    {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
    ]},
    {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
    {"type": "Replace", "pattern": {"Regex": "``|''"}, "content": '"'},
]


@pytest.mark.parametrize("spec", HF_SPECS, ids=lambda s: json.dumps(s)[:60])
def test_hf_normalizers_match_tokenizers(spec):
    normalizer = from_hf(spec)
    for text in SAMPLES + BASE + ["``quoted''  \t text", "ÅNGSTRÖM Ǆ", "नमस्ते दुनिया", "\u0488\u20dd"]:
        assert normalizer(text) == _hf_normalize(spec, text), (spec, text)


@pytest.mark.parametrize(
    "spec, needle",
    [
        ({"type": "BertNormalizer"}, "'BertNormalizer' is not supported"),
        ({"type": "Replace", "pattern": {"Regex": "("}, "content": ""}, "does not compile"),
        ({"type": "Sequence", "normalizers": {"type": "NFC"}}, "normalizers: expected a list"),
        ({"type": "Precompiled", "precompiled_charsmap": "!!"}, "not valid base64"),
        ({"type": "Prepend", "prepend": 3}, "prepend: expected a string"),
        ([{"type": "NFC"}], "expected an object"),
    ],
)
def test_unsupported_or_malformed_specs_name_the_path(spec, needle):
    with pytest.raises(BPEError) as exc:
        from_hf(spec)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_truncated_charsmap_is_refused(trained):
    blob = trained[True].blob
    with pytest.raises(BPEError, match="trie size"):
        Charsmap(blob[:100])


@settings(max_examples=100, deadline=None)
@given(text=st.text(ALPHABET, max_size=40))
def test_streamed_by_lines_equals_whole(trained, text):
    """Normalizing a text line by line (as encode_iterable reads files) gives the same text."""
    for ours, _, _ in trained.values():
        lines = text.splitlines(keepends=True)
        assert "".join(ours.stream(lines)) == ours(text)

"""tokenizer.json: what we write, tokenizers loads and encodes to exactly our ids; what
tokenizers writes, we read and encode like it does."""

from __future__ import annotations

import json

import pytest
from tokenizers import (
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    trainers,
)

import bpe_tui
from bpe_tui import BPEError
from tests.conftest import CORPORA

from .conftest import TEXTS, assert_load_fails, assert_one_line_error, same_table, write


@pytest.mark.parametrize("legacy", [False, True], ids=["pairs", "legacy"])
def test_tokenizers_encodes_our_table_to_our_ids(trained_table, tmp_path, legacy):
    path = tmp_path / "tokenizer.json"
    bpe_tui.save(trained_table, str(path), format="hf", legacy_merges=legacy)
    merges = json.loads(path.read_text(encoding="utf-8"))["model"]["merges"]
    assert isinstance(merges[0], str if legacy else list)
    hf = Tokenizer.from_file(str(path))
    for text in TEXTS:
        assert hf.encode(text).ids == trained_table.encode(text), text
        assert hf.decode(trained_table.encode(text), skip_special_tokens=False) == text
    same_table(bpe_tui.load(str(path)), trained_table)


@pytest.mark.parametrize("pretokenizer", ["gpt4", "o200k", "whitespace"])
def test_split_pretokenizers(tmp_path, pretokenizer):
    """Other regexes go out as Split + ByteLevel(use_regex=False); findall semantics kept
    (the whitespace pattern drops the spaces in both)."""
    table = bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", pretokenizer=pretokenizer, tie_break="hf", vocab_size=500,
                          special_tokens=["<|endoftext|>"])
    path = tmp_path / "tokenizer.json"
    bpe_tui.save(table, str(path), format="hf")
    hf = Tokenizer.from_file(str(path))
    for text in TEXTS:
        assert hf.encode(text).ids == table.encode(text), text
    same_table(bpe_tui.load(str(path)), table)


def test_chars_table_without_marker(tmp_path):
    table = bpe_tui.train(str(CORPORA / "demo.txt"), preset="classic", end_of_word=None, pretokenizer="gpt2", vocab_size=300)
    path = tmp_path / "tokenizer.json"
    bpe_tui.save(table, str(path), format="hf")
    hf = Tokenizer.from_file(str(path))
    text = "The fox and the hound went for a long walk."
    assert hf.encode(text).ids == table.encode(text)
    same_table(bpe_tui.load(str(path)), table)


def _train_hf(tmp_path, model_pre, *, suffix=None, decoder=None, vocab_size=400, alphabet=()):
    tok = Tokenizer(models.BPE(end_of_word_suffix=suffix) if suffix else models.BPE())
    tok.pre_tokenizer = model_pre
    if decoder is not None:
        tok.decoder = decoder
    kw = {"end_of_word_suffix": suffix} if suffix else {}
    if alphabet:
        kw["initial_alphabet"] = list(alphabet)
    tok.train([str(CORPORA / "demo.txt")], trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<unk>", "<s>"], show_progress=False, **kw))
    path = tmp_path / "hf.json"
    tok.save(str(path))
    return tok, str(path)


#: Texts for the sentencepiece-style tables: leading, doubled and trailing spaces, and the
#: added token <s> at the start, in the middle and at the end (every segment may get a ▁).
PREFIX_TEXTS = [
    "The fox ran home.", "a  b   c", "Nobody knew why.", " starts with a space", "ends with one ",
    "<s>The fox", "The fox<s>ran home.", "one<s> two<s>", "<s><s>x", "",
]


@pytest.mark.parametrize("scheme", ["always", "first", "never"])
def test_metaspace_tokenizer(tmp_path, scheme):
    """Metaspace: ▁ read as a space, and the ▁ it puts in front of the text (prepend_scheme)
    put there by our encoder too, before the text or before every segment between added tokens."""
    tok, path = _train_hf(tmp_path, pre_tokenizers.Metaspace(prepend_scheme=scheme), decoder=decoders.Metaspace(prepend_scheme=scheme))
    table = bpe_tui.load(path)
    assert table.units == "chars" and table.prefix_space == (None if scheme == "never" else scheme)
    for text in PREFIX_TEXTS:
        ids = tok.encode(text).ids
        assert ids == table.encode(text), text
        assert ids == list(table.encode_iterable([text[:3], text[3:]])), text
        if "<s>" not in text:
            assert table.decode(ids) == tok.decode(ids), text
    native = tmp_path / "native.json"  # our own format keeps the scheme
    bpe_tui.save(table, str(native))
    assert bpe_tui.load(str(native)).encode("The fox<s>ran") == tok.encode("The fox<s>ran").ids
    assert_written_back_encodes_like(table, tok, tmp_path)


def assert_written_back_encodes_like(table, tok, tmp_path):
    """Our tokenizer.json of a table read from ``tok`` encodes and decodes like ``tok`` in HF."""
    out = tmp_path / "written.json"
    bpe_tui.save(table, str(out), format="hf")
    again = Tokenizer.from_file(str(out))
    for text in PREFIX_TEXTS:
        ids = tok.encode(text).ids
        assert again.encode(text).ids == ids, text
        assert again.decode(ids) == tok.decode(ids), text


def test_llama2_style_prepend_normalizer(tmp_path):
    """No pre-tokenizer; the normalizer prepends ▁ to every segment (even one starting with a
    space) and turns spaces into ▁, as Llama 2's tokenizer.json does."""
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    tok.train([str(CORPORA / "demo.txt")], trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", "<s>"], show_progress=False))
    path = tmp_path / "llama.json"
    tok.save(str(path))
    table = bpe_tui.load(str(path))
    assert table.prefix_space == "prepend" and table.pretokenizer == "regex:(?s).+"
    for text in PREFIX_TEXTS:
        ids = tok.encode(text).ids
        assert ids == table.encode(text), text
        if "<s>" not in text:
            assert table.decode(ids) == tok.decode(ids), text
    assert_written_back_encodes_like(table, tok, tmp_path)


def test_end_of_word_suffix_maps_onto_separate_marker(tmp_path):
    """HF attaches </w> to the last character; we keep it as a symbol with (c, </w>) merges
    in front, and still encode to HF's ids."""
    tok, path = _train_hf(tmp_path, pre_tokenizers.WhitespaceSplit(), suffix="</w>")
    table = bpe_tui.load(path)
    assert table.end_of_word == "</w>" and table.pretokenizer == "whitespace"
    for text in ["The fox ran home.", "lower lowest newer widest", "the the the"]:
        assert tok.encode(text).ids == table.encode(text), text


def test_tokenizers_written_split_bytelevel(tmp_path):
    split = pre_tokenizers.Split(pattern=__import__("tokenizers").Regex(r"\p{L}+|\p{N}{1,3}|\s+|[^\s\p{L}\p{N}]+"), behavior="isolated")
    tok, path = _train_hf(tmp_path, pre_tokenizers.Sequence([split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]),
                          decoder=decoders.ByteLevel(), vocab_size=600, alphabet=pre_tokenizers.ByteLevel.alphabet())
    table = bpe_tui.load(path)
    # an Isolated split keeps the gaps between matches too: a pipeline step, exactly
    assert table.units == "bytes" and table.pretokenizer.startswith("pipeline:")
    for text in TEXTS[:8]:
        assert tok.encode(text).ids == table.encode(text), text
    back = tmp_path / "back.json"
    bpe_tui.save(table, str(back), format="hf")
    again = Tokenizer.from_file(str(back))
    for text in TEXTS[:8]:
        assert again.encode(text).ids == table.encode(text), text


@pytest.mark.parametrize("kind", ["WordPiece", "Unigram", "WordLevel"])
def test_non_bpe_model_is_refused(tmp_path, kind):
    model = {"WordPiece": models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]"),
             "Unigram": models.Unigram([("<unk>", 0.0), ("a", -1.0)], 0, False),
             "WordLevel": models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]")}[kind]
    path = tmp_path / "tokenizer.json"
    Tokenizer(model).save(str(path))
    with pytest.raises(BPEError) as exc:
        bpe_tui.load(str(path))
    assert_one_line_error(exc, str(path), "model.type", kind, "not a BPE model")


def _minimal(**model):
    base = {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}
    base.update(model)
    return {"version": "1.0", "added_tokens": [], "pre_tokenizer": None, "model": base}


@pytest.mark.parametrize(
    "content, needles",
    [
        ('{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0}', ["the JSON ends early", "line 1", "truncated"]),
        (json.dumps(_minimal(merges=[["a", "c"]])), ["model.merges[0]", "'c'", "not in the vocabulary"]),
        (json.dumps(_minimal(merges=["a b c"])), ["model.merges[0]", "legacy merge"]),
        (json.dumps(_minimal(merges=[["a", "b"], ["ab", "b"]])), ["model.merges[1]", "'abb'", "not in the vocabulary"]),
        (json.dumps(_minimal(vocab={"a": 0, "b": "one"})), ["model.vocab['b']", "not an integer"]),
        (json.dumps({"version": "1.0", "added_tokens": []}), ["key 'model'"]),
        (json.dumps(_minimal(merges=None)), ["model.merges"]),
    ],
    ids=["truncated", "missing-token", "bad-legacy", "missing-result", "bad-id", "no-model", "no-merges"],
)
def test_malformed(tmp_path, content, needles):
    assert_load_fails(tmp_path / "tokenizer.json", content, "hf", *needles)


def test_minimal_legacy_and_pairs_read_alike(tmp_path):
    a = bpe_tui.load(write(tmp_path / "a.json", json.dumps(_minimal())))
    b = bpe_tui.load(write(tmp_path / "b.json", json.dumps(_minimal(merges=["a b"]))))
    assert a.merges == b.merges == [("a", "b")]
    assert a.encode("abab") == [2, 2]


def _prefix_tokenizer(tmp_path, prefix="##", unk=True, pre=None, vocab_size=500):
    """A BPE with a continuing_subword_prefix, trained by tokenizers itself on the demo corpus."""
    tok = Tokenizer(models.BPE(continuing_subword_prefix=prefix, unk_token="<unk>" if unk else None))
    tok.pre_tokenizer = pre or pre_tokenizers.Whitespace()
    tok.train(
        [str(CORPORA / "demo.txt")],
        trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<unk>", "<s>"], continuing_subword_prefix=prefix, show_progress=False),
    )
    path = tmp_path / "prefix.json"
    tok.save(str(path))
    return tok, str(path)


PREFIX_WORD_TEXTS = [
    *TEXTS,
    "The fox ran home.", "lower lowest newer widest", "the the the", "a", "ab", "unbelievable foxes",
    "Zebra QUARTZ xylophone #hash ##double", "tea<s>time <s> x", "ünïcödé 中文",
]


@pytest.mark.parametrize("prefix", ["##", "@@"])
def test_continuing_subword_prefix(tmp_path, prefix):
    """tokenizers' continuing_subword_prefix: every character after a word's first starts as
    ##c, a merge (a, ##b) makes a + b. Same ids as tokenizers (unknown characters as its
    <unk>), decoding drops the prefix, and our tokenizer.json of the table encodes alike."""
    tok, path = _prefix_tokenizer(tmp_path, prefix)
    table = bpe_tui.load(path)
    assert table.continuing_prefix == prefix and any(prefix in n for n in table.notes)
    assert any(s.startswith(prefix) and len(s) > len(prefix) + 1 for s in table.vocab.values())
    for text in PREFIX_WORD_TEXTS:
        assert table.encode(text) == tok.encode(text).ids, text
    for word in ["lowest", "foxes", "the"]:
        assert table.decode(table.encode(word)) == word
    steps = table.trace("lowest")
    assert steps and steps[-1].symbols == tuple(table.tokens("lowest"))
    out = tmp_path / "written.json"
    bpe_tui.save(table, str(out), format="hf")
    again = Tokenizer.from_file(str(out))
    unk = tok.token_to_id("<unk>")
    known = [t for t in PREFIX_WORD_TEXTS if unk not in tok.encode(t).ids]  # (the unknown token is not written)
    assert len(known) > 10
    for text in known:
        assert again.encode(text).ids == tok.encode(text).ids, text



NORMALIZED_TEXTS = [
    "hello HELLO Hello world WORLD World", "HelloWORLDhello", "say HELLO, WORLD!", "no tokens here",
    "ＨＥＬＬＯ full width", "the ﬁx is in: FIX fix", "<s>Hello<s>WORLD<s>", "", "hello",
]


@pytest.mark.parametrize("normalizer", ["lowercase", "nfkc+lowercase"])
def test_added_tokens_normalized_flag(tmp_path, normalizer):
    """tokenizers looks for an added token with normalized=true in the normalized text (its
    own text normalized too), one with normalized=false in the raw text; so do we."""
    from tokenizers import AddedToken

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase() if normalizer == "lowercase" else normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train([str(CORPORA / "demo.txt")], trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", "<s>"], show_progress=False))
    tok.add_tokens([AddedToken("Hello", normalized=True), AddedToken("WORLD", normalized=False), AddedToken("FIX", normalized=True)])
    path = tmp_path / "normalized.json"
    tok.save(str(path))
    table = bpe_tui.load(str(path))
    hello, world = tok.token_to_id("Hello"), tok.token_to_id("WORLD")
    assert table.encode("HELLO hello") == [hello, hello]  # matched after lowercasing
    assert world not in table.encode("world World") and table.encode("WORLD") == [world]
    for text in [*NORMALIZED_TEXTS, *TEXTS]:
        assert table.encode(text) == tok.encode(text).ids, text
        assert [table.unk_id if i == -1 else i for i, _ in table.pieces(text)] == table.encode(text), text
    lines = [line + "\n" for text in [*NORMALIZED_TEXTS, *TEXTS] for line in text.split("\n")]
    assert list(table.encode_iterable(iter(lines))) == tok.encode("".join(lines)).ids  # streamed, as bpe-tui encode --ids does
    assert list(table.pieces_iterable(iter(lines))) == table.pieces("".join(lines))
    again = tmp_path / "again.json"  # written back with the flags
    bpe_tui.save(table, str(again), format="hf")
    written = {t["content"]: t["normalized"] for t in json.loads(again.read_text())["added_tokens"]}
    assert written["Hello"] is True and written["WORLD"] is False

"""Counting at scale: block-wise pre-tokenization, parallel workers, progress, count files.

Every fast path must give exactly what the plain line-by-line count gives: the same words,
the same counts, in the same order of first appearance (the first-seen tie-break reads it).
"""

from __future__ import annotations

import multiprocessing
import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.cli import main
from bpe_tui.core.errors import BPEError
from bpe_tui.core.tables.table import MergeTable
from bpe_tui.core.text import blocks, corpus, pretokenize
from bpe_tui.core.text.blocks import iter_text_blocks, plan_ranges, split_lines
from bpe_tui.core.text.corpus import (
    WordCounter,
    count_files,
    count_lines,
    count_text,
    pretokenizer_for,
    resolve_workers,
)
from bpe_tui.core.text.count_files import read_count_files, write_count_file
from tests.conftest import CORPORA, TINYSHAKESPEARE, need

settings.register_profile("scale", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# Every kind of whitespace the patterns treat differently, line breaks, non-ASCII letters
# (final sigma for lowercasing, the Kelvin sign that lowercases to ASCII), digits, quotes.
ALPHABET = "ab Z9'sltvremd.-_\n\n\r\t\x0b\x0c\x1c\x1f\x85\u2028\u3000\xa0 ΣσςK\u212aé中<|>"
# Pieces that make the tricky spots likely: runs of mixed whitespace across line breaks.
PIECES = ["\n", "\n\n", " \n", "  ", " ", "\t", "\r\n", "\x0b", "\x1c", "\x85", "\xa0", "\u3000", "ab", " the", "'s", "'ll",
          "9", " 42", "..", " !", "Σ", "ς", "\u212a", "中", "é", "<|x|>", "Z"]
ASCII_PIECES = [p for p in PIECES if p.isascii()] + ["\x00", "\x1f", "\x7f", "~"]
texts = st.one_of(st.text(alphabet=ALPHABET, max_size=80), st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
ascii_texts = st.one_of(
    st.text(alphabet=[chr(i) for i in range(128)], max_size=80), st.lists(st.sampled_from(ASCII_PIECES), max_size=30).map("".join)
)
CONFIGS = [
    dict(preset="gpt2"),
    dict(preset="gpt2", lowercase=True),
    dict(preset="gpt2", special_tokens=["<|x|>", "<|x|><|x|>", "ab"]),
    dict(preset="gpt2", special_tokens=["Z\n"]),  # a special token holding a line break
    dict(preset="classic"),
    dict(preset="classic", lowercase=True, special_tokens=["<|x|>"]),
    dict(preset="gpt4"),
    dict(preset="o200k"),
    dict(preset="gpt2", pretokenizer=r"regex:\w+|\s+|[^\w\s]+"),
]


def line_by_line(text: str, cfg: TrainerConfig) -> list:
    """The reference: the original pre-tokenizer run on each line, one at a time."""
    return list(count_lines(split_lines(text), pretokenizer_for(cfg)).items())


@settings(settings.get_profile("scale"))
@given(text=st.one_of(texts, ascii_texts), config=st.sampled_from(CONFIGS))
def test_block_counting_equals_line_by_line(text, config):
    cfg = TrainerConfig(**config)
    assert list(WordCounter(cfg).add(text, Counter()).items()) == line_by_line(text, cfg)


@settings(settings.get_profile("scale"))
@given(parts=st.lists(st.one_of(texts, ascii_texts), min_size=1, max_size=8), config=st.sampled_from(CONFIGS[:4]))
def test_mixed_ascii_pieces_equal_line_by_line(monkeypatch, parts, config):
    # Tiny pieces, so blocks mixing ASCII and non-ASCII lines take both patterns.
    monkeypatch.setattr(corpus, "PIECE", 4)
    text = "\n".join(parts)
    cfg = TrainerConfig(**config)
    assert list(WordCounter(cfg).add(text, Counter()).items()) == line_by_line(text, cfg)


def whole(documents: list[str], cfg: TrainerConfig) -> list:
    """The reference for documents: the original pre-tokenizer run on each one, whole."""
    pre = pretokenizer_for(cfg)
    counts: Counter[str] = Counter()
    for document in documents:
        counts.update(pre.words(document))
    return list(counts.items())


@settings(settings.get_profile("scale"))
@given(documents=st.lists(st.one_of(texts, ascii_texts), max_size=6), config=st.sampled_from(CONFIGS))
def test_documents_are_counted_whole_as_the_pre_tokenizer_reads_them(documents, config):
    """A dataset's documents (add_documents) with the shortcuts (special tokens cut first,
    ASCII text by the ASCII pattern) give what PreTokenizer.words gives each document whole."""
    cfg = TrainerConfig(**config)
    assert list(WordCounter(cfg).add_documents(documents, Counter()).items()) == whole(documents, cfg)


EDGES = [
    "a  \x1cb", "a \x1c", "x\x1c\x1d y", "a\n\n\nb", "a \nb", "a\n  b", "a\n b", " \n", "\n", "  \n  \n",
    "\x85\nz", "a\u2028\nb", "tail  ", "tail \r\n\r\n", "ΑΣ\nb", "ΑΣ b", "\u212a\nK", "it's\n'll", "1 2  3\n\t4",
    "<|x|>\n<|x|><|x|>", "Z\nZ\n",
]


@pytest.mark.parametrize("config", CONFIGS)
def test_edge_cases_equal_line_by_line(config):
    cfg = TrainerConfig(**config)
    for edge in EDGES:
        for text in (edge, edge + "\n" + edge, "é" + edge):
            assert list(WordCounter(cfg).add(text, Counter()).items()) == line_by_line(text, cfg), repr(text)


def test_the_fast_paths_are_taken_where_they_are_exact():
    assert WordCounter(TrainerConfig(preset="gpt2")).block_mode
    assert WordCounter(TrainerConfig(preset="classic")).block_mode
    assert not WordCounter(TrainerConfig(preset="gpt4")).block_mode
    assert not WordCounter(TrainerConfig(preset="gpt2", special_tokens=["a\n"])).block_mode
    assert pretokenize._ASCII_OK  # the regex package's classes agree with the ASCII patterns


def test_count_text_is_line_by_line():
    text = "Hello  world \n\n\n  indented\r\n\tΣΑΣ tail  "
    for config in CONFIGS:
        cfg = TrainerConfig(**config)
        assert list(count_text(text, cfg).items()) == line_by_line(text, cfg)


# ---------------------------------------------------------------------- parallel counting


def write_corpus(path, lines: list[str], newline_at_end: bool = True) -> None:
    data = "\n".join(lines) + ("\n" if newline_at_end else "")
    path.write_bytes(data.encode("utf-8"))


LINES = [
    "First Citizen: we are accounted poor citizens, the patricians good.",
    "",
    "   indented   line with trailing spaces   ",
    "\tΣΟΦΙΑ σοφία — naïve café 中文 text",
    "CRLF line\r",
    "<|endoftext|>a special token<|endoftext|>",
    "x" * 300,
    "numbers 12345 67 8 and 'quotes' don't won't",
]


@pytest.fixture
def small_ranges(monkeypatch):
    """Byte ranges of ~100 bytes, so a few KB are cut into many ranges."""
    monkeypatch.setattr(corpus, "MIN_RANGE", 100)
    monkeypatch.setattr(corpus, "RANGES_PER_WORKER", 50)


@pytest.mark.parametrize("preset", ["gpt2", "classic", "gpt4"])
def test_counts_identical_for_1_and_n_workers(tmp_path, small_ranges, preset):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    write_corpus(a, LINES * 7)
    write_corpus(b, list(reversed(LINES)) * 5 + ["no newline at the end"], newline_at_end=False)
    (tmp_path / "empty.txt").write_bytes(b"")
    cfg = TrainerConfig(preset=preset, special_tokens=["<|endoftext|>"])
    sources = [str(a), str(tmp_path / "empty.txt"), str(b)]
    one = list(count_files(sources, cfg, workers=1).items())
    for n in (2, 3, 5):
        assert list(count_files(sources, cfg, workers=n).items()) == one
    whole = (a.read_bytes() + b.read_bytes()).decode("utf-8")
    assert Counter(dict(one)) == Counter(dict(line_by_line(whole, cfg)))


def test_ranges_start_at_line_starts_and_cover_the_file(tmp_path):
    path = tmp_path / "c.txt"
    write_corpus(path, LINES * 20)
    data = path.read_bytes()
    ranges = plan_ranges(str(path), len(data), 97)
    assert len(ranges) > 10
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    for (s1, e1), (s2, e2) in zip(ranges, ranges[1:]):
        assert e1 == s2 and data[s2 - 1 : s2] == b"\n"
    text = "".join(t for s, e in ranges for t in iter_text_blocks(str(path), start=s, end=e))
    assert text == data.decode("utf-8")


def test_a_line_longer_than_64_blocks_is_cut_where_a_whole_read_cuts_it(tmp_path, monkeypatch):
    monkeypatch.setattr(blocks, "BLOCK", 16)
    monkeypatch.setattr(corpus, "MIN_RANGE", 40)
    # the workers must see the small BLOCK: forked, not started by a forkserver (which a test
    # process with a thread left by an earlier test would get, importing BLOCK afresh)
    fork = multiprocessing.get_context("fork")
    monkeypatch.setattr(corpus, "_pool_context", lambda: fork)
    path = tmp_path / "long.txt"
    long_line = ("wörd " * 700).strip()  # ~4 KB without a line break: > 64 blocks of 16 bytes
    write_corpus(path, LINES + [long_line] + LINES)
    cfg = TrainerConfig(preset="gpt2")
    whole = list(iter_text_blocks(str(path)))
    assert max(len(t) for t in whole) < len(long_line)  # the long line was cut
    for n in (1, 2, 4):
        assert count_files([str(path)], cfg, workers=n) == count_files([str(path)], cfg, workers=1)


def test_merges_identical_for_1_and_n_workers(tmp_path, small_ranges):
    path = tmp_path / "m.txt"
    write_corpus(path, [line for _ in range(30) for line in LINES])
    for rule in ("first-seen", "hf"):
        cfg = TrainerConfig(preset="gpt2", tie_break=rule, merges=150)
        runs = []
        for n in (1, 2, 3):
            t = Trainer.from_files([str(path)], cfg, workers=n)
            runs.append(([(e.pair, e.count, e.ties) for e in t.run()], [t.word_text(i) for i in range(t.word_count)]))
        assert runs[0] == runs[1] == runs[2]


def test_merges_identical_for_1_and_2_workers_on_tinyshakespeare():
    path = str(need(TINYSHAKESPEARE))
    cfg = TrainerConfig(preset="gpt2", tie_break="first-seen", merges=300)
    one = Trainer.from_files([path], cfg, workers=1)
    two = Trainer.from_files([path], cfg, workers=2)
    assert [(e.pair, e.count) for e in one.run()] == [(e.pair, e.count) for e in two.run()]


def test_errors_in_workers_are_the_errors_of_one_pass(tmp_path, small_ranges):
    good = "\n".join(LINES * 5).encode("utf-8") + b"\n"
    bad = tmp_path / "bad.txt"
    bad.write_bytes(good + b"caf\xe9 late in the file\n" + good + b"\xff again\n")
    cfg = TrainerConfig(preset="gpt2")
    with pytest.raises(BPEError) as one:
        count_files([str(bad)], cfg, workers=1)
    with pytest.raises(BPEError) as two:
        count_files([str(bad)], cfg, workers=3)
    assert str(one.value) == str(two.value) and f"at byte {len(good) + 3}" in str(one.value)
    assert count_files([str(bad)], cfg, errors="replace", workers=3) == count_files([str(bad)], cfg, errors="replace", workers=1)

    binary = tmp_path / "bin.dat"
    binary.write_bytes(b"text\0" + good)
    with pytest.raises(BPEError, match="binary"):
        count_files([str(binary)], cfg, workers=2)


def test_default_workers_small_inputs_stay_in_process():
    assert resolve_workers(None, 50_000) == 1
    assert resolve_workers(None, corpus.PARALLEL_MIN_BYTES) == (os.cpu_count() or 1)
    assert resolve_workers(3, 10) == 3
    with pytest.raises(BPEError, match="workers"):
        resolve_workers(0, 10)


# ---------------------------------------------------------------------- progress


@pytest.mark.parametrize("workers", [1, 3])
def test_progress_reports_bytes_read_up_to_the_total(tmp_path, small_ranges, workers):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    write_corpus(a, LINES * 9)
    write_corpus(b, LINES * 4)
    total = a.stat().st_size + b.stat().st_size
    seen = []
    t = Trainer.from_files([str(a), str(b)], TrainerConfig(preset="gpt2", merges=20), progress=lambda d, n: seen.append((d, n)), workers=workers)
    assert seen and all(n == total for _, n in seen)
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == total
    if workers > 1:
        assert len(seen) > 5  # one report per range at least
    steps = [e.step for e in t.run()]
    assert steps == list(range(1, 21))


def test_progress_while_reading_a_count_file(tmp_path):
    counts = count_text("the cat sat on the mat " * 50, TrainerConfig(preset="gpt2"))
    path = tmp_path / "c.tsv"
    write_count_file(counts, str(path))
    seen = []
    t = Trainer.from_files([str(path)], TrainerConfig(preset="gpt2", merges=5), counts=True, progress=lambda d, n: seen.append((d, n)))
    assert seen[-1] == (path.stat().st_size, path.stat().st_size)
    assert t.word_count == len(counts)


# ---------------------------------------------------------------------- counts as interchange


def test_count_file_round_trip_keeps_words_counts_and_order(tmp_path):
    counts = {"plain": 3, " tab\there": 2, "new\nline": 1, "cr\r": 4, "back\\slash": 5, "\\t literal": 6, "é中": 7}
    path = tmp_path / "w.tsv"
    write_count_file(counts, str(path))
    assert list(read_count_files([str(path)]).items()) == list(counts.items())
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") == len(counts)  # one line per word: breaks inside words are escaped
    assert " tab\\there\t2\n" in text and "back\\\\slash\t5\n" in text


@pytest.mark.parametrize("workers", ["1", "2"])
def test_count_then_train_counts_equals_training_on_the_corpus(tmp_path, capsys, small_ranges, workers):
    corpus_path = tmp_path / "corpus.txt"
    write_corpus(corpus_path, LINES * 12)
    counts_path, direct, via = tmp_path / "counts.tsv", tmp_path / "direct.json", tmp_path / "via.json"
    common = ["--vocab-size", "320", "--special", "<|endoftext|>", "--tie-break", "first-seen"]
    assert main(["count", str(corpus_path), "-o", str(counts_path), "--workers", workers, *common]) == 0
    assert main(["train", str(corpus_path), "-o", str(direct), "-q", "--workers", workers, *common]) == 0
    assert main(["train", str(counts_path), "--counts", "-o", str(via), "-q", *common]) == 0
    capsys.readouterr()
    import bpe_tui

    a, b = bpe_tui.load(str(direct)), bpe_tui.load(str(via))
    assert a.merges == b.merges and a.counts == b.counts and len(a) == 320


def test_count_files_of_a_shipped_corpus_match_line_by_line():
    path = CORPORA / "demo.txt"
    cfg = TrainerConfig(preset="gpt2")
    text = path.read_text(encoding="utf-8")
    assert list(count_files([str(path)], cfg).items()) == line_by_line(text, cfg)


# ---------------------------------------------------------------------- encoding hot path


def encode_piece_by_piece(table, text: str) -> list[int]:
    """The reference encoding: the table's own pre-tokens, one word at a time."""
    out: list[int] = []
    for is_special, piece in table.pretokenize(text):
        out.extend([table.special_tokens[piece]] if is_special else table._encoder.encode_word(piece))
    return out


@settings(settings.get_profile("scale"))
@given(text=st.one_of(texts, ascii_texts), preset=st.sampled_from(["gpt2", "classic", "gpt4"]), lowercase=st.booleans())
def test_encode_fast_path_equals_encoding_piece_by_piece(text, preset, lowercase):
    cfg = TrainerConfig(preset=preset, lowercase=lowercase, special_tokens=["<|x|>", "<|x|><|x|>"])
    t = Trainer.from_text("the theme of the thesis: it's 42 ΣΑΣ\n\n  done <|x|> é中 " * 3, cfg)
    t.goto(40)
    table = t.table
    reference = encode_piece_by_piece(table, text)
    assert table.encode(text) == reference
    assert table.encode(text) == reference  # warm cache too
    assert table.decode(table.encode(text)) == (text.lower() if lowercase else text) or preset == "classic"


# ---------------------------------------------------------------------- the prefix space

SENTENCEPIECE_PATTERNS = ["regex: ?[^ ]+| ", "regex:(?s).+"]  # Metaspace split, and no split


def with_prefix(table, scheme):
    """The same table with ``prepend_scheme`` set (as the sentencepiece and HF readers set it)."""
    return MergeTable(
        table.units, table.vocab, table.merge_ids, table.special_tokens, table.pretokenizer,
        table.end_of_word, table.lowercase, config={"prepend_scheme": scheme},
    )


@settings(settings.get_profile("scale"))
@given(
    text=st.lists(st.sampled_from(["a", "b", " ", "ab", "  ", "<|x|>", "<|"]), max_size=8).map("".join),
    cut=st.lists(st.integers(min_value=0, max_value=24), max_size=4),
    pattern=st.sampled_from(SENTENCEPIECE_PATTERNS),
    scheme=st.sampled_from(pretokenize.PREFIX_SCHEMES),
)
def test_prefix_space_is_the_same_on_every_encoding_path(text, cut, pattern, scheme):
    cfg = TrainerConfig(preset="classic", end_of_word=None, pretokenizer=pattern, special_tokens=["<|x|>"])
    plain = Trainer.from_text("a ab abb ba b a  a ab " * 3, cfg)
    plain.goto(6)
    table = with_prefix(plain.table, scheme)
    ids = table.encode(text)
    assert ids == encode_piece_by_piece(table, text)
    bounds = sorted({min(c, len(text)) for c in cut})
    chunks = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)])]
    assert list(table.encode_iterable(chunks)) == ids


def test_prefix_space_schemes():
    cfg = TrainerConfig(preset="classic", end_of_word=None, pretokenizer="regex: ?[^ ]+| ", special_tokens=["<s>"])
    plain = Trainer.from_text("the cat sat on the mat " * 4, cfg)
    plain.goto(12)
    base = plain.table
    always, first, prepend = (with_prefix(base, s) for s in pretokenize.PREFIX_SCHEMES)
    assert always.tokens("the cat") == base.tokens(" the cat")
    assert always.tokens(" the cat") == base.tokens(" the cat")  # already starts with a space
    assert always.tokens("the<s>cat") == base.tokens(" the<s> cat")  # every segment
    assert first.tokens("the<s>cat") == base.tokens(" the<s>cat")  # only at the start of the text
    assert first.tokens("<s>cat") == base.tokens("<s>cat")
    assert prepend.tokens(" the") == base.tokens("  the")  # even before a space
    # decoding takes the prefix space off again, as the tokenizers' decoders do
    assert always.decode(always.encode("the cat")) == "the cat"
    assert prepend.decode(prepend.encode(" the")) == " the"
    assert always.describe()["prefix_space"] == "always" and base.prefix_space is None
    with pytest.raises(BPEError, match="prefix-space scheme"):
        with_prefix(base, "sometimes")

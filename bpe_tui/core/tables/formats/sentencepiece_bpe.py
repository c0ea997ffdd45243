"""sentencepiece BPE ``.model`` files (read only), without a protobuf dependency.

A ``.model`` file is one serialized ``ModelProto`` message (sentencepiece_model.proto). The
parts we need, by field number::

    ModelProto      1: repeated SentencePiece pieces   2: TrainerSpec   3: NormalizerSpec
    SentencePiece   1: piece (string)   2: score (float)   3: type (enum; NORMAL=1, UNKNOWN=2,
                    CONTROL=3, USER_DEFINED=4, UNUSED=5, BYTE=6)
    TrainerSpec     3: model_type (UNIGRAM=1, BPE=2, WORD=3, CHAR=4)
                    22: split_by_whitespace (default true)   24: treat_whitespace_as_suffix
                    26: allow_whitespace_only_pieces   35: byte_fallback
    NormalizerSpec  1: name   2: precompiled_charsmap   3: add_dummy_prefix (default true)
                    4: remove_extra_whitespaces (default true)

The protobuf wire format is small: each field is a varint key ``(number << 3) | wire type``
followed by a varint (type 0), 8 bytes (1), a varint length and that many bytes (2), or 4
bytes (5). :func:`parse_message` reads one level of it.

sentencepiece's BPE has no merge list: to encode, it repeatedly joins the adjacent pair whose
concatenation is the piece with the highest score (leftmost on ties). We rebuild an
equivalent merge list: pieces in order of score, and for each piece every split into two
pieces as one merge each (the pair ``(l, r)`` can only ever meet as whole symbols, so listing
all of them gives sentencepiece's result). Splits of one piece are ordered by the ranks of
their parts; sentencepiece prefers the leftmost, which differs only when two different
splits of the same piece overlap in one word (``ab a ba`` for ``aba``).

Pieces are read in chars mode with ``▁`` (U+2581) as a space, so ``▁the`` is the token
`` the``. What sentencepiece does to the text before BPE is kept as the table's normalizer
(``config["normalizer"]``, see ``normalize.py``) and applied exactly: the model's precompiled
charsmap (``nmt_nfkc`` by default: NFKC plus a few mappings), squeezing and stripping
whitespace (``remove_extra_whitespaces``) and the dummy prefix space (``add_dummy_prefix``),
with user-defined pieces left whole. Words are cut before each space (a run of spaces stays
with the next word when ``allow_whitespace_only_pieces`` is on). Characters outside the
vocabulary become their ``<0xNN>`` byte pieces with ``byte_fallback``, else ``<unk>``, one per
run. CONTROL, UNKNOWN, UNUSED and BYTE pieces keep their ids (decoding works) but are never
produced by merges; USER_DEFINED pieces are special tokens.
"""

from __future__ import annotations

import struct
from typing import Any, Final

from ...text.normalize import sentencepiece_spec
from ...text.presets import METASPACE_PATTERN, SPACE_RUNS_PATTERN, SPACE_SUFFIX_PATTERN, WHOLE_TEXT
from ..table import MergeTable
from ._shared import build_table, fail, read_head

NAME: Final = "sentencepiece"
SPACE = "\u2581"
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
MODEL_TYPES = {1: "UNIGRAM", 2: "BPE", 3: "WORD", 4: "CHAR"}


class WireError(Exception):
    """Malformed protobuf bytes (the message says at which byte offset)."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise WireError(f"truncated varint at byte {pos}")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError(f"varint longer than 10 bytes at byte {pos}")


def parse_message(data: bytes, base: int = 0) -> list[tuple[int, int, Any, int]]:
    """``(field number, wire type, value, offset)`` for every field of one message.

    Values: int for varints, bytes for length-delimited fields, the raw 4 or 8 bytes for
    fixed-width ones. ``base`` is added to offsets in error messages.
    """
    out: list[tuple[int, int, Any, int]] = []
    pos = 0
    n = len(data)
    while pos < n:
        start = pos
        key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise WireError(f"field number 0 at byte {base + start}")
        if wire == 0:
            value: int | bytes
            value, pos = _varint(data, pos)
        elif wire == 1:
            if pos + 8 > n:
                raise WireError(f"truncated 64-bit field at byte {base + start}")
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > n:
                raise WireError(f"field {field} at byte {base + start} is {length} bytes long, past the end of the data")
            value, pos = data[pos : pos + length], pos + length
        elif wire == 5:
            if pos + 4 > n:
                raise WireError(f"truncated 32-bit field at byte {base + start}")
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise WireError(f"unsupported wire type {wire} at byte {base + start}")
        out.append((field, wire, value, base + start))
    return out


def sniff(path: str) -> bool:
    head = read_head(path, 64)
    if len(head) < 4 or head[0] != 0x0A:  # field 1, length-delimited: the first piece
        return False
    try:
        length, pos = _varint(head, 1)
        inner = head[pos : pos + length]
        if len(inner) < length:
            return length < 1 << 12 and inner[:1] == b"\x0a"
        fields = parse_message(inner)
    except WireError:
        return False
    return bool(fields) and fields[0][0] == 1 and fields[0][1] == 2


def read(path: str) -> MergeTable:
    with open(path, "rb") as f:
        data = f.read()
    try:
        return _read(path, data)
    except WireError as exc:
        raise fail(path, None, f"not a valid sentencepiece model: {exc}") from None


def _read(path: str, data: bytes) -> MergeTable:
    if not data:
        raise fail(path, None, "empty file")
    top = parse_message(data)
    pieces: list[dict[int, Any]] = []  # field number -> value: 1 text, 2 score, 3 kind
    trainer: dict[int, Any] = {}
    normalizer: dict[int, Any] = {}
    for field, wire, value, offset in top:
        if field == 1 and wire == 2:
            piece: dict[int, Any] = {1: None, 2: 0.0, 3: NORMAL}
            for f2, w2, v2, _ in parse_message(value, offset):
                if f2 == 1 and w2 == 2:
                    try:
                        piece[1] = v2.decode("utf-8")
                    except UnicodeDecodeError:
                        raise fail(path, f"piece {len(pieces)} (byte {offset})", "piece text is not UTF-8") from None
                elif f2 == 2 and w2 == 5:
                    piece[2] = struct.unpack("<f", v2)[0]
                elif f2 == 3 and w2 == 0:
                    piece[3] = v2
            if piece[1] is None:
                raise fail(path, f"piece {len(pieces)} (byte {offset})", "has no text")
            pieces.append(piece)
        elif field == 2 and wire == 2:
            trainer = {f2: v2 for f2, _, v2, _ in parse_message(value, offset)}
        elif field == 3 and wire == 2:
            normalizer = {f2: v2 for f2, _, v2, _ in parse_message(value, offset)}
    if not pieces:
        raise fail(path, None, "no pieces: not a sentencepiece model")
    model_type = trainer.get(3, 1)
    if model_type != 2:
        raise fail(path, "trainer_spec.model_type", f"is {MODEL_TYPES.get(model_type, model_type)}: not a BPE model (bpe-tui reads BPE merge tables only)")

    vocab: dict[int, str] = {}
    specials: dict[str, int] = {}
    normal: dict[str, int] = {}
    scores: dict[int, float] = {}
    for i, piece in enumerate(pieces):
        text = piece[1].replace(SPACE, " ")
        kind = piece[3]
        vocab[i] = text if kind in (NORMAL, USER_DEFINED) else piece[1]
        if kind == NORMAL:
            if text in normal:
                raise fail(path, f"piece {i}", f"{piece[1]!r} is listed twice")
            normal[text] = i
            scores[i] = piece[2]
        elif kind == USER_DEFINED:
            specials[piece[1]] = i

    # Merges: pieces by score (best first), every split into two normal pieces.
    order = sorted((i for i in scores if len(vocab[i]) > 1), key=lambda i: (-scores[i], i))
    rank_of = {i: r for r, i in enumerate(sorted(scores, key=lambda i: (-scores[i], i)))}
    merges = []
    unreachable = []
    for i in order:
        text = vocab[i]
        splits = []
        for k in range(1, len(text)):
            left_id, right_id = normal.get(text[:k]), normal.get(text[k:])
            if left_id is not None and right_id is not None:
                splits.append((rank_of[left_id], rank_of[right_id], text[:k], text[k:]))
        if not splits:
            unreachable.append(text)
        for _, _, left, right in sorted(splits):
            merges.append((left, right, f"piece {i} ({pieces[i][1]!r})"))

    split_ws = bool(trainer.get(22, 1))
    suffix = bool(trainer.get(24, 0))
    whitespace_runs = bool(trainer.get(26, 0))  # allow_whitespace_only_pieces
    if not split_ws:
        pattern = WHOLE_TEXT
    elif suffix:
        pattern = SPACE_SUFFIX_PATTERN
    elif whitespace_runs:
        pattern = SPACE_RUNS_PATTERN  # a run of spaces stays with the word after it
    else:
        pattern = METASPACE_PATTERN
    name = normalizer.get(1, b"nmt_nfkc")
    name = name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)
    charsmap = normalizer.get(2)
    notes: list[str] = []
    # sentencepiece's normalizer, applied as sentencepiece applies it (normalize.py): the
    # charsmap's rules, squeezed whitespace, the dummy prefix space.
    config: dict[str, Any] = {
        "notes": notes,
        "normalizer": sentencepiece_spec(
            charsmap if isinstance(charsmap, bytes) and charsmap else None,
            add_dummy_prefix=bool(normalizer.get(3, 1)),
            remove_extra_whitespaces=bool(normalizer.get(4, 1)),
            treat_whitespace_as_suffix=suffix,
            user_defined=list(specials),
            name=name,
        ),
        "fuse_unk": True,  # a run of unknown characters is one <unk>
    }
    spec = config["normalizer"]
    notes.append(
        f"the model's normalizer applied: {name}"
        + (" (precompiled charsmap)" if spec["precompiled_charsmap"] else "")
        + (", whitespace squeezed" if spec["remove_extra_whitespaces"] else ", whitespace kept")
        + (", dummy prefix space" if spec["add_dummy_prefix"] else "")
    )
    if name not in ("identity", "") and not charsmap:
        notes.append(f"the normalization rule {name!r} has no precompiled charsmap in the model: its rules are not applied")
    unk = next((i for i, piece in enumerate(pieces) if piece[3] == UNKNOWN), None)
    if unk is not None:
        config["unk_id"] = unk  # unknown characters encode as this id, as sentencepiece does
    surface = trainer.get(44, " \u2047 ".encode("utf-8"))  # unk_surface: what <unk> decodes to
    config["unk_surface"] = surface.decode("utf-8", "replace") if isinstance(surface, bytes) else " \u2047 "
    if trainer.get(35, 0):
        config["byte_fallback"] = True  # unknown characters as their <0xNN> byte pieces
        notes.append("byte_fallback: characters outside the vocabulary are spelled as <0xNN> byte pieces")
    if unreachable:
        notes.append(f"{len(unreachable)} pieces cannot be built from two other pieces (never produced): {unreachable[:5]}")
    table = build_table(
        path, "chars", vocab, merges, specials, source_format=NAME, pretokenizer="regex:" + pattern, config=config,
    )
    return table

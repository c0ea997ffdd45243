"""A table as Hugging Face's ``tokenizer.json``: the one place that spells it.

Three callers need the same JSON: the ``hf`` format (a ``tokenizer.json`` file), the
``transformers`` format (a folder around it) and :meth:`MergeTable.to_tokenizers` (a live
``tokenizers.Tokenizer``). The formats may not import each other and the table may not
import a format (the table's module would then import itself back), so the text is made
here, from a table read through its public attributes only.

What is written (the reader, ``formats/hf.py``, reads all of it back):

* the model: ``vocab`` with our ids as they are (so HF encodes to exactly our ids), the
  merges as ``[a, b]`` pairs (``legacy_merges``: ``"a b"`` strings, for tokenizers < 0.20),
  ``ignore_merges`` (tiktoken's whole-pre-token lookup), ``byte_fallback``, ``unk_token`` and
  ``fuse_unk`` (what a chars table does with a character it has never seen);
* byte-level tables: a ``ByteLevel`` pre-tokenizer (GPT-2's regex, with ``add_prefix_space``
  for a table that puts a space before each segment) or a ``Split`` of the table's own regex
  before a ``ByteLevel`` without one, and a ``ByteLevel`` decoder;
* sentencepiece-style chars tables (Metaspace's split, or none, and any prefix space) the way
  they came in: a Metaspace pre-tokenizer and decoder with their ``prepend_scheme``, or Llama
  2's Prepend/Replace normalizers, with spaces in tokens written ``▁``;
* the table's normalizer (read from a tokenizer.json or a transformers folder), ``Lowercase``
  for a lowercasing table, and the special tokens as added tokens with their flags.

:func:`losses` says, one sentence each, what a tokenizer.json cannot hold of a table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..engine.units import bytes_to_gpt2_str
from ..errors import BPEError
from ..text.normalize import SPACE_MARK
from ..text.presets import METASPACE_PATTERN, WHOLE_TEXT  # noqa: F401  (re-exported)
from ..text.pretokenize import HF_WHITESPACE, PIPELINE, pattern_text
from ..types import Surface



class TableView(Protocol):
    """What this module reads of a :class:`~bpe_tui.core.tables.table.MergeTable`."""

    units: str
    special_tokens: dict[str, int]
    pretokenizer: str
    end_of_word: str | None
    lowercase: bool
    counts: list[int] | None
    config: dict[str, Any]
    continuing_prefix: str | None
    ignore_merges: bool
    unk_id: int

    @property
    def vocab(self) -> dict[int, Surface]: ...

    @property
    def merges(self) -> list[tuple[Surface, Surface]]: ...

    @property
    def prefix_space(self) -> str | None: ...


def losses(table: TableView) -> list[str]:
    """What a tokenizer.json cannot hold of ``table``, one sentence each (empty: nothing)."""
    out = []
    spec = table.config.get("normalizer")
    if isinstance(spec, dict) and spec.get("type") == "SentencePiece":
        out.append(f"sentencepiece's normalizer ({spec.get('name')}: charsmap, whitespace, dummy prefix) is not written: HF will encode the raw text")
    if table.counts:
        out.append("per-merge counts are not stored in tokenizer.json")
    if table.config.get("tie_break"):
        out.append("the training config (tie-break, vocab target) is not stored in tokenizer.json")
    if isinstance(table.config.get("superwords_after"), int):
        dropped = table.config.get("superwords_dropped")
        where = f", where {dropped:,} unused merges were dropped" if isinstance(dropped, int) and dropped else ""
        out.append(
            f"SuperBPE's transition (after merge {table.config['superwords_after']:,}{where}) is not stored in tokenizer.json: "
            "the merges and the superword pre-tokenizer are, and encode the same"
        )
    if table.units == "chars" and table.end_of_word:
        out.append(
            f"HF attaches {table.end_of_word!r} to the last character (end_of_word_suffix): merges are rewritten "
            "to that form; segmentations match up to where the marker sits, token ids of word-final pieces differ"
        )
    if unknown_dropped(table):
        out.append("characters the table has never seen: HF drops them (no unk_token), bpe-tui shows them as unknown")
    if table.prefix_space and not prefix_written(table):
        out.append(f"the prefix space ({table.prefix_space}) is not written: HF will encode the text without it")
    prefixes, last = prefix_steps(table.pretokenizer)
    if prefixes and not (last and table.units == "bytes"):
        out.append("the pre-tokenizer's prefix step (text put in front of each piece) is not written: HF will encode the pieces without it")
    return out


def unknown_dropped(table: TableView) -> bool:
    """Whether HF drops characters the table does not know, where we give the unknown id:
    a chars table with neither byte fallback nor an unknown token."""
    return table.units == "chars" and not table.config.get("byte_fallback") and _unk_token(table) is None


def prefix_written(table: TableView) -> bool:
    """Whether the table's prefix space (if any) is written: by Metaspace or Prepend for a
    sentencepiece-style chars table, by ByteLevel's add_prefix_space for a byte-level table
    with GPT-2's regex that puts a space before each segment."""
    if table.prefix_space is None:
        return True
    if table.units == "bytes":
        return table.prefix_space == "always" and table.pretokenizer == "gpt2"
    return sentencepiece_style(table) is not None


def sentencepiece_style(table: TableView) -> str | None:
    """How to write a sentencepiece-style chars table, as HF spells it: ``metaspace`` (a
    Metaspace pre-tokenizer with the table's prepend_scheme, or "never"), ``prepend`` (Llama
    2: Prepend("▁") and Replace(" ", "▁") normalizers, no pre-tokenizer), or None (not one)."""
    if table.units != "chars" or table.end_of_word or table.pretokenizer.startswith(PIPELINE):
        return None
    pattern = pattern_text(table.pretokenizer)
    if table.prefix_space in (None, "always", "first") and pattern in (METASPACE_PATTERN, WHOLE_TEXT):
        return "metaspace"  # Metaspace's own split (or none), so ▁ in tokens decodes to spaces
    if table.prefix_space == "prepend" and pattern == WHOLE_TEXT:
        return "prepend"
    return None


#: Split steps that are Hugging Face's ``Digits`` pre-tokenizer (each digit run a piece, or each
#: digit), written as ``Digits`` (the SuperBPE authors' tokenizer.json has that shape).
_DIGITS = {r"\p{N}+": False, r"\p{N}": True}


def _step_json(step: Mapping[str, Any]) -> dict[str, Any]:
    """One split step of a pipeline as a tokenizer.json pre-tokenizer: Hugging Face's own
    ``Digits`` or ``Whitespace`` where it is that (a ``Split`` would run its regex under
    Oniguruma, whose ``\\w`` leaves out the joiners U+200C and U+200D that ``Whitespace``'s Rust
    regex counts as word characters), else a ``Split``."""
    behavior, invert = step.get("behavior", "Isolated"), bool(step.get("invert"))
    if step["pattern"] in _DIGITS and behavior == "Isolated" and not invert:
        return {"type": "Digits", "individual_digits": _DIGITS[step["pattern"]]}
    if step["pattern"] == HF_WHITESPACE and behavior == "Removed" and invert:
        return {"type": "Whitespace"}
    return {"type": "Split", "pattern": {"Regex": step["pattern"]}, "behavior": behavior, "invert": invert}


def splits_json(pretokenizer: str) -> dict[str, Any]:
    """Our pre-tokenizer as tokenizer.json's: one Split keeping the regex's matches, or a
    Sequence of the pipeline's steps (``Split``, or ``Digits`` where a step is that)."""
    if not pretokenizer.startswith(PIPELINE):
        return {"type": "Split", "pattern": {"Regex": pattern_text(pretokenizer)}, "behavior": "Removed", "invert": True}
    steps = [
        _step_json(st) for st in json.loads(pretokenizer[len(PIPELINE) :])
        if "pattern" in st  # (a prefix step is ByteLevel's add_prefix_space: see prefix_steps)
    ]
    return steps[0] if len(steps) == 1 else {"type": "Sequence", "pretokenizers": steps}


def prefix_steps(pretokenizer: str) -> tuple[int, bool]:
    """How many prefix steps a pipeline pre-tokenizer has, and whether they are exactly one,
    a space, at the end: what a byte-level tokenizer.json writes as its final ``ByteLevel``'s
    ``add_prefix_space`` (parity-aware BPE's pre-tokenizer). Others cannot be written."""
    if not pretokenizer.startswith(PIPELINE):
        return 0, False
    steps = json.loads(pretokenizer[len(PIPELINE) :])
    prefixes = [n for n, st in enumerate(steps) if "pattern" not in st]
    return len(prefixes), prefixes == [len(steps) - 1] and steps[-1].get("prefix") == " "


def _unk_token(table: TableView) -> str | None:
    """The text of the table's own unknown token (sentencepiece's ``<unk>``), if it has one."""
    unk = table.config.get("unk_id")
    if not isinstance(unk, int) or isinstance(unk, bool) or unk != table.unk_id:
        return None
    surface = table.vocab.get(unk)
    return surface if isinstance(surface, str) else None


def added_tokens(table: TableView) -> dict[int, dict[str, Any]]:
    """``id -> entry`` of each special token, in id order, as Hugging Face writes an added
    token: its text, its flags (the table's ``config["special_flags"]``, read from a
    tokenizer.json; false where none was read) and ``special`` (false for the added tokens
    a tokenizer.json marked so, ``config["added_not_special"]``)."""
    flags: Mapping[str, Mapping[str, Any]] = table.config.get("special_flags") or {}
    ordinary = frozenset(table.config.get("added_not_special") or ())
    return {
        i: {"content": s, "single_word": bool(flags.get(s, {}).get("single_word")), "lstrip": bool(flags.get(s, {}).get("lstrip")),
            "rstrip": bool(flags.get(s, {}).get("rstrip")), "normalized": bool(flags.get(s, {}).get("normalized")), "special": s not in ordinary}
        for s, i in sorted(table.special_tokens.items(), key=lambda kv: kv[1])
    }


def dumps(table: TableView, legacy_merges: bool = False, attached: Sequence[tuple[str, str]] | None = None) -> str:
    """The tokenizer.json text for ``table``.

    ``attached``: for a chars table with an end-of-word marker, its merges with the marker
    attached to the last character (``formats/_eow.attach``), as HF's end_of_word_suffix has
    them; the caller works them out (they are a format's business, not this text's).
    """
    bytes_mode = table.units == "bytes"
    vocab = table.vocab
    special_ids = {i for i in table.special_tokens.values()}
    style = sentencepiece_style(table)

    def enc(surface: Surface) -> str:
        if isinstance(surface, bytes):
            return bytes_to_gpt2_str(surface)
        return surface.replace(" ", SPACE_MARK) if style else surface

    model_vocab: dict[str, int] = {}
    for i, surface in sorted(vocab.items()):
        key = surface.decode("utf-8", "replace") if (isinstance(surface, bytes) and i in special_ids) else enc(surface)
        model_vocab.setdefault(key, i)
    eow = table.end_of_word if table.units == "chars" else None
    merges: list[tuple[str, str]]
    if eow:
        if attached is None:
            raise BPEError("a chars table with an end-of-word marker is written with its merges in attached form")
        merges = list(attached)
        next_id = max(vocab, default=-1) + 1
        for a, b in merges:
            for token in (a, b, a + b):
                if token not in model_vocab:
                    model_vocab[token] = next_id
                    next_id += 1
    else:
        merges = [(enc(a), enc(b)) for a, b in table.merges]
    if legacy_merges:
        for a, b in merges:
            if " " in a or " " in b:
                raise BPEError(f"cannot write legacy merges: token {a if ' ' in a else b!r} contains a space (use pairs)")
        merges_json: list[Any] = [f"{a} {b}" for a, b in merges]
    else:
        merges_json = [[a, b] for a, b in merges]

    pattern = None if table.pretokenizer.startswith(PIPELINE) else pattern_text(table.pretokenizer)
    split = splits_json(table.pretokenizer)
    pre: dict[str, Any] | None
    decoder: dict[str, Any] | None
    if bytes_mode:
        level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
        if table.pretokenizer == "gpt2":
            pre = dict(level, add_prefix_space=prefix_written(table) and table.prefix_space is not None)
        else:
            prefix = prefix_steps(table.pretokenizer)[1]
            steps = split["pretokenizers"] if split["type"] == "Sequence" else [split]  # one flat Sequence, as HF writes it
            pre = {"type": "Sequence", "pretokenizers": [*steps, dict(level, use_regex=False, add_prefix_space=prefix)]}
        decoder = dict(level)
    elif style == "metaspace":
        scheme = table.prefix_space or "never"
        pre = {"type": "Metaspace", "replacement": SPACE_MARK, "prepend_scheme": scheme, "split": pattern == METASPACE_PATTERN}
        decoder = dict(pre)
    elif style == "prepend":
        pre = None
        decoder = {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": SPACE_MARK}, "content": " "},
            *([{"type": "ByteFallback"}] if table.config.get("byte_fallback") else []),
            {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0},
        ]}
    else:
        pre = split
        decoder = {"type": "BPEDecoder", "suffix": eow} if eow else None
    if style == "metaspace" and table.config.get("byte_fallback"):
        # ▁ back to spaces, byte tokens to characters, the prefix space off (Mistral's decoder)
        decoder = {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": SPACE_MARK}, "content": " "},
            {"type": "ByteFallback"},
            {"type": "Fuse"},
            *([{"type": "Strip", "content": " ", "start": 1, "stop": 0}] if table.prefix_space in ("always", "first") else []),
        ]}
    normalizer: list[dict[str, Any]] = [{"type": "Lowercase"}] if table.lowercase else []
    spec = table.config.get("normalizer")
    if isinstance(spec, dict) and spec.get("type") != "SentencePiece":
        normalizer.insert(0, spec)  # the table's own (read from a tokenizer.json or a folder)
    if style == "prepend":
        normalizer += [
            {"type": "Prepend", "prepend": SPACE_MARK},
            {"type": "Replace", "pattern": {"String": " "}, "content": SPACE_MARK},
        ]
    added = [{"id": i, **entry} for i, entry in added_tokens(table).items()]
    unk = _unk_token(table)
    data = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": (normalizer[0] if len(normalizer) == 1 else {"type": "Sequence", "normalizers": normalizer}) if normalizer else None,
        "pre_tokenizer": pre,
        "post_processor": None,
        "decoder": decoder,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": enc(unk) if unk is not None else None,
            "continuing_subword_prefix": table.continuing_prefix,
            "end_of_word_suffix": eow,
            "fuse_unk": bool(table.config.get("fuse_unk")),
            "byte_fallback": bool(table.config.get("byte_fallback")) and not bytes_mode,
            "ignore_merges": table.ignore_merges,
            "vocab": model_vocab,
            "merges": merges_json,
        },
    }
    return json.dumps(data, ensure_ascii=False, indent=2)

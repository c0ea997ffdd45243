"""Hugging Face ``tokenizer.json`` with a BPE model (the file ``tokenizers`` saves and loads).

The parts this module reads and writes::

    {
      "version": "1.0",
      "added_tokens": [{"id": 256, "content": "<|endoftext|>", "special": true, ...}],
      "normalizer": null,                        # or {"type": "Lowercase"}, ...
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
      "decoder": {"type": "ByteLevel", ...},
      "model": {
        "type": "BPE",
        "vocab": {"a": 64, "Ġthe": 300, ...},    # token -> id
        "merges": [["Ġ", "t"], ...],             # tokenizers >= 0.20; older: ["Ġ t", ...]
        "end_of_word_suffix": null, "continuing_subword_prefix": null,
        "byte_fallback": false, "ignore_merges": false, ...
      }
    }

Reading:

* byte-level tables (a ``ByteLevel`` pre-tokenizer, alone or after a ``Split``, or a ByteLevel
  decoder): tokens go through GPT-2's byte map (``Ġ`` = space) and become bytes. ``ByteLevel``
  with ``use_regex`` is GPT-2's regex; a ``Split`` regex becomes our pre-tokenizer (named if
  it is gpt2/gpt4/o200k).
* ``Metaspace`` tables (sentencepiece style): chars mode, with ``▁`` read as a space, so
  ``▁the`` is the token `` the``. The space Metaspace puts in front of the text
  (``prepend_scheme`` always/first), or a ``Prepend("▁")`` normalizer (Llama 2) before every
  segment, is kept as ``config["prepend_scheme"]`` and added by our encoder the same way.
  ``<0xNN>`` byte-fallback tokens are kept (for decoding) but never produced.
* ``end_of_word_suffix`` (e.g. ``</w>``) is attached to the word's last character in HF; it is
  mapped exactly onto our separate end-of-word symbol (see ``_eow.py``).
* ``continuing_subword_prefix`` (e.g. ``##``, chars tables): every character of a word but the
  first starts as ``##c``, and a merge ``(a, ##b)`` makes ``a`` + ``b``: kept as the table's
  ``config["continuing_subword_prefix"]`` (see ``table.merged_surface``), so ids are HF's.
* ``added_tokens`` become special tokens (cut out of the text before pre-tokenization, as HF
  does); those marked ``"special": false`` are listed in ``config["added_not_special"]``:
  matched under every special-token policy, as HF matches them (see special_policy). Merges may be ``[a, b]`` pairs or legacy ``"a b"`` strings.
* A model that is not BPE (WordPiece, Unigram, WordLevel) is refused with a clear message.

Writing (the text is made by :mod:`~bpe_tui.core.tables.tokenizer_json`, which the transformers
format and ``MergeTable.to_tokenizers`` share) uses our ids as they are (so HF encodes to
exactly our ids), pairs by default or legacy strings with ``legacy_merges=True`` (readers older
than tokenizers 0.20 need them).
Sentencepiece-style chars tables (Metaspace's split, or none, and any prefix space) go out the
way they came in: a Metaspace pre-tokenizer and decoder with their ``prepend_scheme``, or Llama
2's Prepend/Replace normalizers, with spaces in tokens written ``▁``.
"""

from __future__ import annotations

import json
import os
import re
from typing import Final

from ...atomic import atomic_write_text
from ...engine.units import gpt2_str_to_bytes
from ...errors import BPEError
from ...text.normalize import SPACE_MARK, from_hf
from ...text.pretokenize import HF_WHITESPACE, PIPELINE
from ...text.specials import TOKEN_FLAGS
from ...types import Units
from .. import tokenizer_json
from ..table import MergeTable
from ..tokenizer_json import METASPACE_PATTERN, WHOLE_TEXT
from . import _eow
from ._shared import (
    build_table,
    check_new_id,
    fail,
    mark_not_special,
    pattern_name,
    pattern_text,
    read_head,
    read_json_object,
    short,
)

NAME: Final = "hf"


def locate(path: str) -> str:
    """The tokenizer.json of a path: the file itself, or the one in a directory (a folder
    that transformers saved with a fast tokenizer holds one; it says more than the rest)."""
    if os.path.isdir(path) and os.path.isfile(os.path.join(path, "tokenizer.json")):
        return os.path.join(path, "tokenizer.json")
    return path


def sniff(path: str) -> bool:
    head = read_head(locate(path), 1 << 16)
    if not head.lstrip().startswith(b"{"):
        return False
    # (GPT-2's vocab.json holds a token "model" too, with a number after it, not an object)
    return re.search(rb'"model"\s*:\s*\{', head) is not None or re.search(rb'"added_tokens"\s*:\s*\[', head) is not None


# ---------------------------------------------------------------------- reading


def read(path: str) -> MergeTable:
    path = locate(path)
    return from_json(read_json_object(path, "a tokenizer.json"), path)


def loads(text: str, source: str) -> MergeTable:
    """The table of a tokenizer.json given as text (``source`` names it in messages)."""
    return from_json(read_json_object(source, "a tokenizer.json", text.encode("utf-8")), source)


def from_json(data: dict, path: str) -> MergeTable:
    """The table of a parsed tokenizer.json (``path`` names it in messages and notes)."""
    model = data.get("model")
    if not isinstance(model, dict):
        raise fail(path, "key 'model'", "missing; not a Hugging Face tokenizer.json")
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind != "BPE":
        raise fail(path, "model.type", f"is {kind!r}: not a BPE model (bpe-tui reads BPE merge tables only)")
    prefix = model.get("continuing_subword_prefix")
    if prefix is not None and not isinstance(prefix, str):
        raise fail(path, "model.continuing_subword_prefix", f"expected a string or null, found {short(prefix)}")
    vocab_json = model.get("vocab")
    if not isinstance(vocab_json, dict):
        raise fail(path, "model.vocab", "missing or not an object mapping token -> id")
    merges_json = model.get("merges")
    if not isinstance(merges_json, list):
        raise fail(path, "model.merges", "missing or not a list")

    for key in ("pre_tokenizer", "normalizer", "decoder"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise fail(path, key, f"expected an object or null, found {type(data[key]).__name__}")
    if model.get("end_of_word_suffix") is not None and not isinstance(model["end_of_word_suffix"], str):
        raise fail(path, "model.end_of_word_suffix", f"expected a string or null, found {short(model['end_of_word_suffix'])}")
    notes: list[str] = []
    pre = data.get("pre_tokenizer")
    normalizer = data.get("normalizer")
    decoder = data.get("decoder")
    parts = _flatten(pre)
    byte_level = any(p.get("type") == "ByteLevel" for p in parts) or any(
        p.get("type") == "ByteLevel" for p in _flatten(decoder)
    )
    metaspace = next((p for p in parts if p.get("type") == "Metaspace"), None)
    norm_parts = _flatten(normalizer)
    replaces_space = any(
        p.get("type") == "Replace" and (p.get("pattern") or {}).get("String") == " " for p in norm_parts
    )
    lowercase = False  # HF's Lowercase is kept in the normalizer (it differs from str.lower on Σ)
    if model.get("dropout"):
        notes.append(f"model.dropout = {model['dropout']!r}: HF samples segmentations by default; bpe-tui encodes without dropout unless asked")
    truncation = data.get("truncation")
    if isinstance(truncation, dict) and truncation.get("max_length"):
        notes.append(f"truncation max_length {truncation['max_length']}: HF cuts encodings there when truncation is on; bpe-tui does not")
    post = data.get("post_processor")
    if isinstance(post, dict) and post.get("type") not in (None, "ByteLevel"):
        notes.append(f"post_processor {post.get('type')}: HF adds tokens such as <s> around the text when asked to add special tokens; bpe-tui's encode gives the text's own tokens")

    eow = model.get("end_of_word_suffix") or None
    config: dict = {"notes": notes}
    if prefix:
        if byte_level:
            raise fail(path, "model.continuing_subword_prefix", f"{prefix!r} with a ByteLevel pre-tokenizer is not supported")
        if eow:
            raise fail(path, "model.continuing_subword_prefix", f"{prefix!r} together with end_of_word_suffix {eow!r} is not supported")
        config["continuing_subword_prefix"] = prefix  # see table.merged_surface
        notes.append(f"continuing_subword_prefix {prefix!r}: every character after a word's first starts as {prefix}c; decoding drops the prefix")
    if model.get("ignore_merges"):
        config["ignore_merges"] = True  # a pre-token that is a token is emitted whole
    space_char = None
    units: Units
    if byte_level:
        units = "bytes"
        pretokenizer = _pretokenizer(path, parts)
        level = next((p for p in parts if p.get("type") == "ByteLevel"), None)
        if level is not None and level.get("add_prefix_space") and parts.index(level) == 0:
            config["prepend_scheme"] = "always"  # a space before each segment not starting with one
        # (after another step it is a prefix step of the pipeline: see _steps)
    elif metaspace is not None or replaces_space:
        units = "chars"
        space_char = (metaspace or {}).get("replacement") or (metaspace or {}).get("str_rep") or SPACE_MARK
        pretokenizer = _pretokenizer(path, parts)
        if metaspace is not None:
            scheme = metaspace.get("prepend_scheme")
            if scheme is None:  # tokenizers before 0.14
                scheme = "always" if metaspace.get("add_prefix_space", True) else "never"
        else:
            prepend = next((p for p in norm_parts if p.get("type") == "Prepend"), None)
            scheme = "prepend" if prepend is not None else "never"
            if prepend is not None and prepend.get("prepend") != space_char:
                notes.append(f"normalizer Prepend({prepend.get('prepend')!r}) is applied as a prefix space")
        if scheme in ("always", "first", "prepend"):
            config["prepend_scheme"] = scheme
    else:
        units = "chars"
        pretokenizer = _pretokenizer(path, parts)

    # The normalizer, less what the pre-tokenizer settings above already do (a Replace of
    # spaces with the space mark, a Prepend of it): applied as HF applies it.
    rest = [
        p for p in norm_parts
        if not (space_char and p.get("type") == "Prepend")
        and not (space_char and p.get("type") == "Replace" and (p.get("pattern") or {}).get("String") == " ")
    ]
    if rest:
        spec = rest[0] if len(rest) == 1 else {"type": "Sequence", "normalizers": rest}
        try:
            applied = from_hf(spec)
        except BPEError as exc:
            raise fail(path, None, str(exc)) from None
        config["normalizer"] = spec
        notes.append("normalizer applied: " + applied.name)

    def token(raw, where):
        if not isinstance(raw, str):
            raise fail(path, where, f"token {short(raw)} is not a string")
        if units == "bytes":
            try:
                return gpt2_str_to_bytes(raw)
            except KeyError:
                return None  # not a byte-level token (an added token such as <|endoftext|>)
        return raw.replace(space_char, " ") if space_char else raw

    vocab: dict = {}
    for raw, i in vocab_json.items():
        where = f"model.vocab[{short(raw)}]"
        check_new_id(path, where, i, vocab)
        surface = token(raw, where)
        vocab[i] = surface if surface is not None else raw.encode("utf-8")

    if units == "chars":
        _unknown_handling(path, model, vocab_json, config, notes)

    specials: dict[str, int] = {}
    added = data.get("added_tokens") or []
    if not isinstance(added, list):
        raise fail(path, "added_tokens", "not a list")
    for n, entry in enumerate(added):
        where = f"added_tokens[{n}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str) or not isinstance(entry.get("id"), int) or isinstance(entry.get("id"), bool):
            raise fail(path, where, "expected an object with 'id' (a whole number) and 'content' (a string)")
        if not entry["content"] or entry["id"] < 0:
            raise fail(path, where, "needs a non-empty 'content' and an 'id' of 0 or more")
        content, i = entry["content"], entry["id"]
        specials[content] = i
        mark_not_special(config, content, entry)
        flags = {k: True for k in (*TOKEN_FLAGS, "normalized") if entry.get(k)}
        if flags:
            config.setdefault("special_flags", {})[content] = flags
        key = content.encode("utf-8") if units == "bytes" else content
        if i not in vocab:
            vocab[i] = key
    if config.get("added_not_special"):
        notes.append(
            f"{len(config['added_not_special'])} added tokens are not special (\"special\": false): "
            "matched whole in any text, whatever --specials says, as Hugging Face does"
        )

    merges = []
    for n, entry in enumerate(merges_json):
        where = f"model.merges[{n}]"
        if isinstance(entry, str):
            pieces = entry.split(" ")
            if len(pieces) != 2:
                raise fail(path, where, f"legacy merge {short(entry)} is not two tokens separated by one space")
        elif isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry):
            pieces = entry
        else:
            raise fail(path, where, f"expected [left, right] or \"left right\", not {short(entry)}")
        left, right = token(pieces[0], where), token(pieces[1], where)
        if left is None or right is None:
            bad = pieces[0] if left is None else pieces[1]
            raise fail(path, where, f"token {bad!r} is not in GPT-2's byte alphabet")
        merges.append((left, right, where))

    if eow is not None:
        if units != "chars":
            raise fail(path, "model.end_of_word_suffix", "is only supported without a ByteLevel pre-tokenizer")
        return _eow.build_attached_table(
            path, vocab, merges, specials, eow, source_format=NAME, pretokenizer=pretokenizer, lowercase=lowercase, config=config
        )
    return build_table(
        path, units, vocab, merges, specials, source_format=NAME, pretokenizer=pretokenizer,
        lowercase=lowercase, config=config,
    )


def _unknown_handling(path: str, model: dict, vocab_json: dict, config: dict, notes: list[str]) -> None:
    """What a chars-mode model does with a character it does not know: byte_fallback spells
    it as ``<0xNN>`` tokens, else ``unk_token`` stands for it (runs fused with ``fuse_unk``)."""
    if model.get("byte_fallback"):
        config["byte_fallback"] = True
    unk = model.get("unk_token")
    if unk is not None:
        if not isinstance(unk, str):
            raise fail(path, "model.unk_token", f"expected a string, not {unk!r}")
        if unk in vocab_json:
            config["unk_id"] = vocab_json[unk]
        else:
            notes.append(f"model.unk_token {unk!r} is not in the vocabulary: unknown characters stay unknown")
    if model.get("fuse_unk"):
        config["fuse_unk"] = True


def _flatten(node) -> list[dict]:
    """The steps of a pre-tokenizer / normalizer / decoder, Sequence flattened."""
    if not isinstance(node, dict):
        return []
    if node.get("type") == "Sequence":
        out = []
        for key in ("pretokenizers", "normalizers", "decoders"):
            children = node.get(key) or []
            for child in children if isinstance(children, list) else []:
                out.extend(_flatten(child))
        return out
    return [node]


#: Hugging Face's Punctuation: Unicode punctuation, and every ASCII punctuation character
#: (Rust's ``is_ascii_punctuation`` also counts symbols such as ``$ + < = > ^ ` | ~``).
HF_PUNCTUATION = r"[\p{P}!-/:-@\[-`{-~]"


def _steps(path: str, parts: list[dict]) -> list[dict]:
    """The split steps (see pretokenize.SplitPipeline) of a tokenizer.json pre-tokenizer.

    ``ByteLevel`` contributes GPT-2's regex when ``use_regex`` is on, ``Metaspace`` a split
    before each space (spaces are spaces here, not ``▁``); their prefix spaces are the
    table's prefix scheme, but for ``ByteLevel``'s after another step: Hugging Face puts that
    space in front of every piece the steps before made, a prefix step here. A type with no
    exact equivalent is refused by name.
    """
    import regex

    steps: list[dict] = []
    for n, p in enumerate(parts):
        kind = p.get("type")
        if kind == "Split":
            pattern = p.get("pattern") or {}
            if isinstance(pattern.get("Regex"), str):
                text = pattern["Regex"]
            elif isinstance(pattern.get("String"), str):
                text = regex.escape(pattern["String"])
            else:
                raise fail(path, "pre_tokenizer.pattern", "expected {\"Regex\": ...} or {\"String\": ...}")
            steps.append({"pattern": text, "behavior": p.get("behavior", "Isolated"), "invert": bool(p.get("invert"))})
        elif kind == "ByteLevel":
            if p.get("add_prefix_space") and n:
                steps.append({"prefix": " "})
            if p.get("use_regex", True):
                steps.append({"pattern": pattern_text("gpt2"), "behavior": "Removed", "invert": True})
        elif kind == "Digits":
            steps.append({"pattern": r"\p{N}" if p.get("individual_digits") else r"\p{N}+", "behavior": "Isolated"})
        elif kind == "Whitespace":
            steps.append({"pattern": HF_WHITESPACE, "behavior": "Removed", "invert": True})
        elif kind == "WhitespaceSplit":
            steps.append({"pattern": r"\S+", "behavior": "Removed", "invert": True})
        elif kind == "Punctuation":
            steps.append({"pattern": HF_PUNCTUATION, "behavior": p.get("behavior", "Isolated")})
        elif kind == "BertPreTokenizer":
            steps += [{"pattern": r"\s+", "behavior": "Removed"}, {"pattern": HF_PUNCTUATION, "behavior": "Isolated"}]
        elif kind == "CharDelimiterSplit" and isinstance(p.get("delimiter"), str):
            steps.append({"pattern": regex.escape(p["delimiter"]), "behavior": "Removed"})
        elif kind == "Metaspace":
            if p.get("split", True):
                steps.append({"pattern": " ", "behavior": "MergedWithNext"})
        else:
            raise fail(path, "pre_tokenizer", f"pre-tokenizer {kind!r} is not supported by bpe-tui")
    return steps


def _pretokenizer(path: str, parts: list[dict]) -> str:
    """Our pre-tokenizer for tokenizer.json's: a named one or a regex where one step says
    it all (keep the regex's matches), else a pipeline of steps."""
    steps = _steps(path, parts)
    if not steps:
        return "regex:" + WHOLE_TEXT
    if len(steps) == 1:
        step = steps[0]
        name = pattern_name(step["pattern"])
        keeps_matches = step["behavior"] == "Removed" and step.get("invert", False)
        # Isolated keeps the gaps too: the same when the regex leaves none (named ones do).
        isolates_named = step["behavior"] == "Isolated" and not step.get("invert", False) and not name.startswith("regex:")
        if keeps_matches or isolates_named:
            return name
        if step["pattern"] == " " and step["behavior"] == "MergedWithNext":
            return "regex:" + METASPACE_PATTERN
    try:
        return PIPELINE + json.dumps(steps, ensure_ascii=False)
    except ValueError as exc:  # pragma: no cover - steps are plain JSON
        raise fail(path, "pre_tokenizer", str(exc)) from None


# ---------------------------------------------------------------------- writing


def losses(table: MergeTable) -> list[str]:
    return tokenizer_json.losses(table)


def write(table: MergeTable, path: str, legacy_merges: bool = False, overwrite: bool = True) -> None:
    """Write ``table`` as a tokenizer.json; ``legacy_merges`` writes ``"a b"`` strings."""
    atomic_write_text(path, dumps(table, legacy_merges=legacy_merges) + "\n", overwrite)


def dumps(table: MergeTable, legacy_merges: bool = False) -> str:
    """The tokenizer.json text for ``table`` (see :mod:`~bpe_tui.core.tables.tokenizer_json`)."""
    attached = [(a, b) for a, b, _ in _eow.attach(table)] if table.units == "chars" and table.end_of_word else None
    return tokenizer_json.dumps(table, legacy_merges=legacy_merges, attached=attached)

"""GPT-2's two files: ``vocab.json`` (token -> id) and ``merges.txt`` (one merge per line),
and the folders ``transformers`` saves around them.

Both write tokens through GPT-2's byte -> printable-character map (``Ġ`` is a space, ``Ċ`` a
newline). ``merges.txt`` may start with a ``#version: 0.2`` line. A merge's rank is its line
order; in GPT-2's own files the merged token's id is 256 + its rank, and tokens left over in
the vocabulary (``<|endoftext|>``) are special tokens. OpenAI's original release names the
same two files ``encoder.json`` and ``vocab.bpe``.

A path may name the directory holding both files, or either of the two files. A folder saved
by ``transformers`` adds, beside them:

* ``added_tokens.json`` (token -> id) and ``tokenizer_config.json``'s
  ``added_tokens_decoder``: tokens matched whole in the text, as special tokens here;
* ``tokenizer_config.json``'s ``tokenizer_class``, which decides what the files do not say:
  the pre-tokenizer regex and the normalizer (Qwen2's splits digits one by one and applies
  NFC; GPT-2's, RoBERTa's and BART's use GPT-2's regex), and ``add_prefix_space``.

What was found and assumed is listed in ``config["notes"]``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Final, cast

from ...atomic import atomic_write_dir
from ...engine.units import bytes_to_gpt2_str, gpt2_str_to_bytes
from ...errors import BPEError
from ..table import MergeTable
from . import _eow
from ._shared import build_table, check_new_id, mark_not_special, read_json_object, short
from .tiktoken_known import QWEN_PATTERN

NAME: Final = "gpt2"


#: The two files' names: transformers' and OpenAI's original release.
FILE_NAMES = (("vocab.json", "merges.txt"), ("encoder.json", "vocab.bpe"))


def locate(path: str) -> tuple[str, str]:
    """(vocab file, merges file) paths for a directory or either file."""
    directory = path if os.path.isdir(path) else os.path.dirname(path)
    for vocab_name, merges_name in FILE_NAMES:
        vocab_path, merges_path = os.path.join(directory, vocab_name), os.path.join(directory, merges_name)
        if os.path.isfile(vocab_path) and os.path.isfile(merges_path):
            return vocab_path, merges_path
    return os.path.join(directory, "vocab.json"), os.path.join(directory, "merges.txt")


def sniff(path: str) -> bool:
    vocab_path, merges_path = locate(path)
    if not (os.path.isfile(vocab_path) and os.path.isfile(merges_path)):
        return False
    if os.path.isfile(path) and os.path.basename(path) not in {name for pair in FILE_NAMES for name in pair}:
        return False
    with open(vocab_path, "rb") as f:
        return f.read(64).lstrip().startswith(b"{")


#: What a transformers tokenizer class does that its files do not say: (pre-tokenizer, normalizer).
TOKENIZER_CLASSES = {
    "GPT2Tokenizer": ("gpt2", None),
    "RobertaTokenizer": ("gpt2", None),
    "BartTokenizer": ("gpt2", None),
    "LongformerTokenizer": ("gpt2", None),
    "CodeGenTokenizer": ("gpt2", None),
    "GPTNeoXTokenizer": ("gpt2", {"type": "NFC"}),
    "Qwen2Tokenizer": ("regex:" + QWEN_PATTERN, {"type": "NFC"}),
}


def read(path: str) -> MergeTable:
    """The table in a folder's vocab.json + merges.txt (``path``: the folder or either file).

    The table is named after its folder (``source``): "gpt2", "qwen2", not "merges.txt".
    """
    table = _read_files(path)
    table.source = os.path.dirname(locate(path)[1]) or os.getcwd()
    return table


def _read_files(path: str) -> MergeTable:
    vocab_path, merges_path = locate(path)
    for p in (vocab_path, merges_path):
        if not os.path.isfile(p):
            raise BPEError(f"{p}: missing (a GPT-2 table needs vocab.json and merges.txt side by side)")
    with open(vocab_path, "rb") as f:
        vocab_bytes = f.read()
    raw_vocab = read_json_object(vocab_path, "a GPT-2 vocab.json mapping token -> id", data=vocab_bytes)
    if _marks_word_ends(raw_vocab):
        return _read_attached(vocab_path, merges_path, raw_vocab)
    vocab: dict[int, bytes] = {}
    for token, i in raw_vocab.items():
        check_new_id(vocab_path, f"[{short(token)}]", i, vocab)
        try:
            vocab[i] = gpt2_str_to_bytes(token)
        except KeyError:
            vocab[i] = token.encode("utf-8")  # an added token outside the byte alphabet
    merges = []
    lineno = 0
    ours = False  # (a merges.txt bpe-tui wrote, with vocab.json's fingerprint)
    with open(merges_path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            line = line.rstrip("\r\n")
            if lineno == 1 and line.startswith("#version"):
                ours = check_fingerprint(line, vocab_bytes, vocab_path, merges_path)
                continue
            if not line.strip():
                continue
            parts = line.split(" ")
            if len(parts) != 2:
                raise BPEError(f"{merges_path}:{lineno}: expected 2 tokens separated by one space, found {len(parts)} in {short(line)}")
            try:
                merges.append((gpt2_str_to_bytes(parts[0]), gpt2_str_to_bytes(parts[1]), f"line {lineno}"))
            except KeyError:
                raise BPEError(f"{merges_path}:{lineno}: token outside GPT-2's byte alphabet in {short(line)}") from None
    # Entries that are neither single bytes nor merge results (<|endoftext|>) are special tokens.
    results = {left + right for left, right, _ in merges}
    specials = {s.decode("utf-8", "replace"): i for i, s in vocab.items() if len(s) > 1 and s not in results}
    leftovers = dict(specials)  # (before the folder's files name theirs)
    notes: list[str] = []
    config: dict[str, Any] = {"notes": notes}
    declared: set[str] = set()
    pretokenizer = _folder(os.path.dirname(vocab_path), vocab, specials, config, notes, declared)
    table = build_table(merges_path, "bytes", vocab, merges, specials, source_format=NAME, pretokenizer=pretokenizer, config=config)
    check_pair(table, vocab_path, merges_path)
    if not ours:  # (a pair bpe-tui wrote holds what it meant to: its fingerprint says they belong together)
        undeclared = {token: i for token, i in leftovers.items() if token not in declared}
        check_not_cut_short(vocab, results, undeclared, vocab_path, f"{merges_path}:{lineno}")
    return table


def _folder(
    directory: str, vocab: dict[int, bytes], specials: dict[str, int], config: dict[str, Any], notes: list[str], declared: set[str]
) -> str:
    """Read what a transformers folder adds (see the module docstring); returns the
    pre-tokenizer and fills in ``specials`` (and ``vocab`` for ids it lacks), ``config`` and
    ``declared`` (the added tokens its files name)."""
    added_path = os.path.join(directory, "added_tokens.json")
    if os.path.isfile(added_path):
        added = read_json_object(added_path, "an added_tokens.json mapping token -> id")
        for token, i in added.items():
            # an added token may repeat a vocab.json id with its own text, so only the form is checked
            specials[token] = check_new_id(added_path, f"[{short(token)}]", i, ())
            declared.add(token)
            vocab.setdefault(i, token.encode("utf-8"))
        notes.append(f"{len(added)} added tokens from added_tokens.json, matched whole in the text")
    config_path = os.path.join(directory, "tokenizer_config.json")
    if not os.path.isfile(config_path):
        return "gpt2"
    settings = read_json_object(config_path, "a tokenizer_config.json")
    decoder = settings.get("added_tokens_decoder") or {}
    if not isinstance(decoder, dict):
        raise BPEError(f"{config_path}: added_tokens_decoder: expected an object mapping id -> token")
    for key, entry in decoder.items():
        content = entry.get("content") if isinstance(entry, dict) else None
        if not isinstance(content, str) or not key.isdigit():
            raise BPEError(f"{config_path}: added_tokens_decoder[{key!r}]: expected an id and an object with 'content'")
        specials.setdefault(content, int(key))
        declared.add(content)
        mark_not_special(config, content, entry)
        vocab.setdefault(int(key), content.encode("utf-8"))
    name = settings.get("tokenizer_class")
    known = TOKENIZER_CLASSES.get(name.removesuffix("Fast")) if isinstance(name, str) else None
    if known is None:
        what = f"tokenizer_class {name!r} is not one bpe-tui knows" if name else "tokenizer_config.json names no tokenizer_class"
        notes.append(f"{what}: using GPT-2's regex and no normalizer")
        pretokenizer, normalizer = "gpt2", None
    else:
        pretokenizer, normalizer = known
        notes.append(f"tokenizer_class {name}: its pre-tokenizer ({pretokenizer if len(pretokenizer) < 24 else 'its own regex'})"
                     + (f" and normalizer ({normalizer['type']})" if normalizer else "") + " applied")
    if normalizer is not None:
        config["normalizer"] = normalizer
    if settings.get("add_prefix_space"):
        config["prepend_scheme"] = "always"
        notes.append("add_prefix_space: a space goes before the text, as the tokenizer class does")
    return pretokenizer


#: The marker XLM's, FlauBERT's and OpenAI GPT's folders attach to a word's last character.
WORD_END = "</w>"

#: Tokenizer classes whose vocab.json + merges.txt hold characters with an attached
#: end-of-word marker, and what each does to the text before BPE that the files do not say.
@dataclass(frozen=True)
class AttachedClass:
    """What a tokenizer class does to the text before BPE that its files do not say."""

    steps: tuple[str, ...]  # Hugging Face normalizer types, applied in order
    flag: str  # the tokenizer_config.json setting that switches them on
    default: bool  # the class's default for that setting
    not_applied: str  # what bpe-tui cannot do, said in the notes

    @property
    def normalizer(self) -> dict[str, Any]:
        return {"type": "Sequence", "normalizers": [{"type": step} for step in self.steps]}


ATTACHED_CLASSES = {
    "XLMTokenizer": AttachedClass(
        ("Lowercase", "NFD", "StripAccents"), "do_lowercase_and_remove_accent", True,
        "the Moses tokenizer (punctuation normalisation and splitting, language-specific) is not applied",
    ),
    "FlaubertTokenizer": AttachedClass(
        ("NFC", "Lowercase"), "do_lowercase", False,
        "the Moses tokenizer (punctuation normalisation and splitting) is not applied",
    ),
}


def _marks_word_ends(raw_vocab: dict[str, Any]) -> bool:
    """Does this vocab.json spell word ends with an attached ``</w>`` (XLM, FlauBERT), rather
    than GPT-2's byte alphabet? Such vocabularies end thousands of tokens so; byte-level ones
    none or a handful."""
    ends = sum(1 for token in raw_vocab if isinstance(token, str) and token.endswith(WORD_END) and token != WORD_END)
    return ends > max(10, len(raw_vocab) // 20)


def _read_attached(vocab_path: str, merges_path: str, raw_vocab: dict[str, Any]) -> MergeTable:
    """An XLM / FlauBERT folder: characters (not bytes), ``</w>`` attached to the last one.

    ``merges.txt`` has no version line and may carry fastBPE's count as a third column.
    The text is split on whitespace; what the tokenizer class does before that (Moses) is
    named in the notes, as is the normalizer taken from the class and its config flags.
    """
    vocab: dict[int, str] = {}
    for token, i in raw_vocab.items():
        check_new_id(vocab_path, f"[{short(token)}]", i, vocab)
        vocab[i] = token
    merges = []
    counts: list[int] = []
    with open(merges_path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            line = line.rstrip("\r\n")
            if (lineno == 1 and line.startswith("#version")) or not line.strip():
                continue
            parts = line.split(" ")
            if len(parts) == 3 and parts[2].isdigit():
                counts.append(int(parts[2]))
            elif len(parts) != 2:
                raise BPEError(f"{merges_path}:{lineno}: expected 'left right' (or 'left right count'), found {len(parts)} fields in {short(line)}")
            merges.append((parts[0], parts[1], f"line {lineno}"))
    directory = os.path.dirname(vocab_path)
    notes: list[str] = [f"characters with {WORD_END!r} attached to a word's last one (an XLM-style folder); text is split on whitespace"]
    config: dict[str, Any] = {"notes": notes}
    specials = _folder_specials(directory, raw_vocab)
    unk = specials.get("<unk>")
    if unk is not None:
        config["unk_id"] = unk
        notes.append("characters the vocabulary lacks become <unk>")
    settings_path = os.path.join(directory, "tokenizer_config.json")
    settings = read_json_object(settings_path, "a tokenizer_config.json") if os.path.isfile(settings_path) else {}
    name = settings.get("tokenizer_class")
    known = ATTACHED_CLASSES.get(name) if isinstance(name, str) else None
    if known is None:
        notes.append(f"tokenizer_class {name!r} is not one bpe-tui knows: no normalizer applied" if name
                     else "no tokenizer_config.json names the tokenizer class: no normalizer applied")
    else:
        if settings.get(known.flag, known.default):
            config["normalizer"] = known.normalizer
            notes.append(f"tokenizer_class {name} with {known.flag}: normalizer {' + '.join(known.steps)} applied")
        notes.append(f"{name}: {known.not_applied}; pre-tokenize with sacremoses first for the same ids")
    if specials:
        notes.append(f"{len(specials)} special tokens from the folder's token maps, matched whole in the text")
    return _eow.build_attached_table(
        merges_path, vocab, merges, specials, WORD_END, source_format=NAME, pretokenizer="whitespace", config=config,
    )


def _folder_specials(directory: str, raw_vocab: dict[str, Any]) -> dict[str, int]:
    """Special tokens a transformers folder names (special_tokens_map.json, added_tokens.json,
    tokenizer_config.json), with their vocab.json ids."""
    names: list[str] = []

    def collect(value: object) -> None:
        if isinstance(value, str):
            names.append(value)
        elif isinstance(value, dict) and isinstance(value.get("content"), str):
            names.append(value["content"])
        elif isinstance(value, list):
            for item in value:
                collect(item)

    for file_name in ("special_tokens_map.json", "tokenizer_config.json"):
        file_path = os.path.join(directory, file_name)
        if os.path.isfile(file_path):
            settings = read_json_object(file_path, f"a {file_name}")
            for key, value in settings.items():
                if key.endswith("_token") or key == "additional_special_tokens":
                    collect(value)
            decoder = settings.get("added_tokens_decoder")
            if isinstance(decoder, dict):
                collect(list(decoder.values()))
    added_path = os.path.join(directory, "added_tokens.json")
    if os.path.isfile(added_path):
        names.extend(read_json_object(added_path, "an added_tokens.json mapping token -> id"))
    return {token: raw_vocab[token] for token in names if token in raw_vocab}


def check_fingerprint(version_line: str, vocab_bytes: bytes, vocab_path: str, merges_path: str) -> bool:
    """A merges.txt we wrote names the vocab.json it was written with: refuse another one.
    Whether the line holds our fingerprint (and it is this vocab.json's)."""
    _, key, value = version_line.partition(FINGERPRINT_KEY)
    if key and value.split()[0:1] != [fingerprint(vocab_bytes)]:
        raise BPEError(
            f"{merges_path}: was written with a different vocab.json than {vocab_path} "
            "(the two files do not belong together; write the table again)"
        )
    return bool(key)


def check_pair(table: MergeTable, vocab_path: str, merges_path: str) -> None:
    """Refuse a vocab.json and merges.txt that do not belong together (cheap checks).

    In every GPT-2-style pair we know, a token made by a merge gets its id in merge order
    (GPT-2's own: 256 + rank). Ids that go backwards mean the merges came from another
    table than the vocabulary.
    """
    last = -1
    seen = set()
    for rank, (_, _, new) in enumerate(table.merge_ids):
        if new in seen:
            continue
        seen.add(new)
        if new < last:
            raise BPEError(
                f"{merges_path}: merge {rank + 1} makes token id {new}, "
                f"but an earlier merge made id {last}: {vocab_path} and {merges_path} do not belong together"
            )
        last = new


def check_not_cut_short(vocab: dict[int, bytes], results: set[bytes], leftovers: dict[str, int], vocab_path: str, last_line: str) -> None:
    """Refuse a merges.txt that stops before its vocabulary does (a file cut short).

    Every token of vocab.json is a byte, a merge's result or a special token, and a special
    token (``<|endoftext|>``, ``<s>``) is not two of the table's tokens joined. A left-over
    token that two tokens do join into (``·prosecuted`` = ``·prosecut`` + ``ed``) is a merge
    that is missing; taking it for a special token would match whole words in the text where
    the table's own library merges them. No published table we know has one. Only the
    vocabulary after the last merge's token is looked at (a file cut short leaves the tail),
    and only tokens the folder's files do not name (``leftovers``)."""
    made = [i for i, s in vocab.items() if s in results]
    last = max(made, default=-1)
    tail = [i for i in leftovers.values() if i > last]
    if not tail:
        return
    whole = results | {s for s in vocab.values() if len(s) == 1}
    joined = sorted(i for i in tail if _two_tokens(vocab[i], whole))
    if joined:
        first = joined[0]
        raise BPEError(
            f"{last_line}: the merges end here, but {vocab_path} holds {len(joined):,} tokens that two of its tokens join into "
            f"and no merge makes, from id {first:,} ({short(bytes_to_gpt2_str(vocab[first]))}): "
            "merges.txt looks cut short, or belongs to another vocab.json"
        )


def _two_tokens(token: bytes, whole: set[bytes]) -> bool:
    """Whether ``token`` is two of ``whole`` joined."""
    return any(token[:k] in whole and token[k:] in whole for k in range(1, len(token)))


def losses(table: MergeTable) -> list[str]:
    """What vocab.json + merges.txt cannot hold of ``table`` (a reader assumes GPT-2's rules)."""
    out = []
    if table.counts:
        out.append("per-merge counts are not stored in merges.txt")
    if table.pretokenizer != "gpt2":
        out.append(f"the pre-tokenizer ({table.pretokenizer if len(table.pretokenizer) < 24 else 'a custom regex'}) is not stored; readers assume GPT-2's regex")
    if table.lowercase:
        out.append("lowercasing is not stored: readers will encode the text as it is")
    if table.config.get("tie_break"):
        out.append("the training config (tie-break, vocab target) is not stored in vocab.json + merges.txt")
    return out


def write(table: MergeTable, path: str, overwrite: bool = True) -> None:
    """Write ``path/vocab.json`` and ``path/merges.txt`` (path is a directory, made if needed).

    The two files are replaced together (see :func:`~bpe_tui.core.atomic.atomic_write_dir`),
    and the version line of merges.txt carries a fingerprint of vocab.json, so that a pair
    mixed up later (one file copied over from another table) is refused on load.
    """
    if table.units != "bytes":
        raise BPEError(f"{path}: the gpt2 format holds byte-level tables only; this table is chars (use native)")
    vocab = {}
    for i, surface in sorted(table.vocab.items()):
        assert isinstance(surface, bytes)  # a bytes table (checked above)
        key = surface.decode("utf-8") if table.is_special(i) else bytes_to_gpt2_str(surface)
        vocab[key] = i
    vocab_bytes = (json.dumps(vocab, ensure_ascii=False) + "\n").encode("utf-8")
    lines = [f"{VERSION_LINE} {FINGERPRINT_KEY}{fingerprint(vocab_bytes)}"]
    byte_merges = cast("list[tuple[bytes, bytes]]", table.merges)  # a bytes table (checked above)
    lines += [f"{bytes_to_gpt2_str(a)} {bytes_to_gpt2_str(b)}" for a, b in byte_merges]
    merges_bytes = ("\n".join(lines) + "\n").encode("utf-8")
    atomic_write_dir(path, {"vocab.json": vocab_bytes, "merges.txt": merges_bytes}, overwrite)


#: The first line of merges.txt (readers such as Hugging Face's skip a line starting so).
VERSION_LINE = "#version: 0.2"
#: What follows it in files we write: a fingerprint of the vocab.json written with it.
FINGERPRINT_KEY = "bpe-tui-vocab-sha256="


def fingerprint(vocab_bytes: bytes) -> str:
    """A short hash of vocab.json's bytes (16 hex digits of its SHA-256)."""
    import hashlib

    return hashlib.sha256(vocab_bytes).hexdigest()[:16]

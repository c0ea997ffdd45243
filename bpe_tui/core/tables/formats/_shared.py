"""Helpers shared by the format modules: checked table building and one-line errors.

Readers collect a vocabulary (id -> surface), a merge list (surfaces, in rank order, each with
a *where* label such as ``line 12`` or ``model.merges[3]``) and special tokens, then call
:func:`build_table`, which checks every merge and names the file and the line or key of the
first bad one. Unlike :meth:`MergeTable.from_vocab_merges`, vocabulary entries that are
neither base symbols, merge results nor special tokens stay plain ("inert") entries: they keep
their ids (so decoding works) but are never produced by encoding.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import Any

from ...errors import BPEError
from ...text.pretokenize import pattern_text as pattern_text  # (the format modules import it from here)
from ...types import FormatName, Surface, SurfaceT, Units
from ..table import MergeTable, merged_surface

#: Longest excerpt of an offending value or line quoted in a message.
SHOWN = 60


def short(value: object, limit: int = SHOWN) -> str:
    """``repr(value)`` cut to about ``limit`` characters (an offending line may be megabytes)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 5] + "...(" + f"{len(text):,} chars)"


def check_new_id(path: str, where: str, token_id: object, taken: Container[int]) -> int:
    """A vocabulary id read from a file: a whole number, not negative (-1 is the unknown
    token), not already given to another token in ``taken``."""
    if not isinstance(token_id, int) or isinstance(token_id, bool):
        raise fail(path, where, f"id {short(token_id)} is not an integer")
    if token_id < 0:
        raise fail(path, where, f"id {token_id} is negative")
    if token_id in taken:
        raise fail(path, where, f"id {token_id} is also the id of another token")
    return token_id


def mark_not_special(config: dict[str, Any], content: str, entry: dict[str, Any]) -> None:
    """An added token Hugging Face marks ``"special": false`` (GPT-NeoX's runs of spaces):
    listed in ``config["added_not_special"]``, matched whole under every special-token
    policy, as tokenizers matches it (see :mod:`~bpe_tui.core.tables.special_policy`)."""
    if entry.get("special") is False:
        config.setdefault("added_not_special", []).append(content)


def fail(path: str, where: str | None, message: str) -> BPEError:
    """A one-line BPEError: ``path: where: message``."""
    text = f"{path}: {where}: {message}" if where else f"{path}: {message}"
    return BPEError(" ".join(text.split("\n")))


def read_json_object(path: str, what: str = "a JSON object", data: bytes | None = None) -> dict[str, Any]:
    """Parse a JSON file that must hold an object; one-line errors name the line and column.

    ``data`` is the file's bytes if the caller has read them already.
    """
    import json

    if data is None:
        with open(path, "rb") as f:
            data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(path, None, f"not valid UTF-8 at byte {exc.start}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if _cut_short(text[exc.pos :], exc.msg):
            raise fail(path, None, f"the JSON ends early, at line {exc.lineno}, column {exc.colno} (a truncated file?)") from None
        raise fail(path, None, f"bad JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise fail(path, None, "bad JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise fail(path, None, f"not {what} (expected a JSON object)")
    return data


def _cut_short(rest: str, message: str) -> bool:
    """Whether a JSON error at the text ``rest`` means the file stops early: nothing is left,
    a string is still open, or what is left starts a true, false or null."""
    rest = rest.strip()
    return not rest or message.startswith("Unterminated string") or any(rest != w and w.startswith(rest) for w in ("true", "false", "null"))


def build_table(
    path: str,
    units: Units,
    vocab: dict[int, SurfaceT],
    merges: Iterable[tuple[SurfaceT, SurfaceT, str]],
    special_tokens: dict[str, int] | None = None,
    *,
    source_format: FormatName,
    pretokenizer: str = "gpt2",
    end_of_word: str | None = None,
    lowercase: bool = False,
    counts: list[int] | None = None,
    config: dict[str, Any] | None = None,
    add_missing_results: bool = False,
) -> MergeTable:
    """A MergeTable from id -> surface, ``(left, right, where)`` merges and specials.

    Each merge's parts must be in the vocabulary; its result must be too, unless
    ``add_missing_results`` (then it gets the next free id). A pair listed twice is an error,
    but in a table with removals (PickyBPE's ``config["removals"]``), where a removed token
    made again by the same pair is merged twice.
    """
    specials = dict(special_tokens or {})
    special_ids = set(specials.values())
    surface_to_id: dict[SurfaceT, int] = {}
    for token_id, surface in vocab.items():
        if token_id in special_ids:
            continue
        surface_to_id.setdefault(surface, token_id)
    # An added token may spell a token merges also make (Hugging Face keeps one id for both):
    # merges may then make it too.
    for token_id in special_ids:
        if token_id in vocab:
            surface_to_id.setdefault(vocab[token_id], token_id)
    next_id = max(vocab, default=-1) + 1
    merge_ids = []
    seen = set()
    prefix = (config or {}).get("continuing_subword_prefix") if units == "chars" else None
    again = bool((config or {}).get("removals"))
    for left, right, where in merges:
        if (left, right) in seen and not again:
            raise fail(path, where, f"merge {_show(left)} {_show(right)} is listed twice")
        seen.add((left, right))
        ids = []
        for part in (left, right):
            found = surface_to_id.get(part)
            if found is None:
                raise fail(path, where, f"merge {_show(left)} {_show(right)} names token {_show(part)}, which is not in the vocabulary")
            ids.append(found)
        new = merged_surface(left, right, prefix)
        found = surface_to_id.get(new)
        if found is None:
            if not add_missing_results:
                raise fail(path, where, f"the merged token {_show(new)} is not in the vocabulary")
            found = next_id
            next_id += 1
            vocab[found] = new
            surface_to_id[new] = found
        merge_ids.append((ids[0], ids[1], found))
    return MergeTable(
        units,
        vocab,
        merge_ids,
        specials,
        pretokenizer=pretokenizer,
        end_of_word=end_of_word,
        lowercase=lowercase,
        counts=counts,
        config=config or {},
        source_format=source_format,
        source=path,
    )


def _show(surface: Surface) -> str:
    if isinstance(surface, bytes):
        try:
            return repr(surface.decode("utf-8"))
        except UnicodeDecodeError:
            return repr(surface)
    return repr(surface)


def read_head(path: str, size: int = 4096) -> bytes:
    """The first ``size`` bytes of a file (b'' for a directory or an unreadable path)."""
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except (OSError, IsADirectoryError):
        return b""


def pattern_name(pattern: str) -> str:
    """Our pre-tokenizer name for a regex: a named one if it is (equivalent to) one, else regex:."""
    from ...text.pretokenize import NAMED_PATTERNS

    for name, known in NAMED_PATTERNS.items():
        if pattern == known:
            return name
    if pattern in EQUIVALENT_PATTERNS:
        return EQUIVALENT_PATTERNS[pattern]
    return "regex:" + pattern


#: Spellings of the named patterns used by other tools that split text identically.
EQUIVALENT_PATTERNS = {
    # minbpe's GPT2_SPLIT_PATTERN: the same alternatives, with a non-capturing group.
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""": "gpt2",
}

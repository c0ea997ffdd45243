"""PickyBPE's model file: the JSON the authors' ``bpe_trainer.py`` writes and their
``picky_tokenize.py`` loads (github pchizhov/picky_bpe).

::

    {
      "tokens":  [{"id": 4, "str": "▁", "freq": 0, "special": false, "present": true,
                   "left": null, "right": null, "split": [4]}, ...],
      "id2int":  {"4": 4, ...},          # a token's id -> the number the tokenizer prints
      "int2id":  {"4": "4", ...},
      "merges":  [{"id": 0, "pair": [token, token], "new_token": token}, ...],
      "splits":  [{"id": 7, "token": token, "split": [token, ...]}, ...]
    }

Every token ever made is listed, ``present`` false for one removed for good; ``left`` and
``right`` are the ids of the pair that first made it. Merges and splits (removals) share one
sequence of event ids, the order the tokenizer replays them in; ``id2int`` numbers the tokens
present from 0 without gaps, which is what ``picky_tokenize.py --return_type int`` prints.
Words are split on whitespace and each gets ``▁`` in front; a character the model lacks is
``<UNK>``; a word that is itself a token present is taken whole.

Read as a chars table with our ids the tokenizer's printed numbers (removed tokens after them),
and written from a table of the picky setup (``preset="picky"``): its tokens' ``freq`` is 0,
which this tool's tables do not keep (the tokenizer does not read it).
"""

from __future__ import annotations

import json
from typing import Any, Final

from ...atomic import atomic_write_text
from ...errors import BPEError
from ..table import MergeTable
from ._shared import fail, read_head, read_json_object, short

NAME: Final = "picky"
#: The marker in front of every word, and the reference's special tokens.
SPACE = "\u2581"
UNK = "<UNK>"


def sniff(path: str) -> bool:
    head = read_head(path, 2048)
    return head.lstrip().startswith(b"{") and b'"tokens"' in head and b'"present"' in head and b'"split"' in head


def losses(table: MergeTable) -> list[str]:
    return ["token frequencies are written as 0 (the table does not keep them; the tokenizer does not read them)"]


def write(table: MergeTable, path: str, overwrite: bool = True) -> None:
    if table.units != "chars" or table.word_start != SPACE or not table.ignore_merges:
        raise BPEError(
            f"the {NAME} format holds tables of PickyBPE's setup only (chars, ▁ in front of every word, a word that is a "
            "token taken whole): train with preset picky"
        )
    vocab = table.vocab
    vocab.update({i: table.surface(i) for i in table.removed})
    specials = set(table.special_tokens.values())
    first: dict[int, tuple[int, int]] = {}
    for a, b, new in table.merge_ids:
        first.setdefault(new, (a, b))
    removed = table.removed
    # the reference's own ids: the special tokens and the alphabet as they stand, then the
    # merged tokens in the order they were first made (its loader reads a token's parts first)
    order = [i for i in sorted(vocab) if i not in first] + list(first)
    ref = {t: k for k, t in enumerate(order)}

    def walk(t: int) -> list[int]:
        if t not in removed or t not in first:
            return [ref[t]]
        return walk(first[t][0]) + walk(first[t][1])

    def token(t: int) -> dict[str, Any]:
        left, right = first.get(t, (None, None))
        return {
            "id": ref[t], "str": vocab[t], "freq": 0, "special": t in specials, "present": t not in removed,
            "left": ref[left] if left is not None else None, "right": ref[right] if right is not None else None, "split": walk(t),
        }

    merges, splits = [], []
    after: dict[int, list[list]] = {}
    for k, t, parts in table.removals:
        after.setdefault(k, []).append([t, parts])
    event = 0
    for rank, (a, b, new) in enumerate(table.merge_ids):
        merges.append({"id": event, "pair": [token(a), token(b)], "new_token": token(new)})
        event += 1
        for t, parts in after.get(rank + 1, []):
            splits.append({"id": event, "token": token(t), "split": [token(p) for p in parts]})
            event += 1
    id2int = {ref[t]: n for n, t in enumerate(t for t in order if t not in removed)}
    data = {
        "tokens": [token(t) for t in order],
        "id2int": id2int,
        "int2id": {n: i for i, n in id2int.items()},
        "merges": merges,
        "splits": splits,
    }
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n", overwrite)


def read(path: str) -> MergeTable:
    data = read_json_object(path, "a PickyBPE model")
    for key in ("tokens", "id2int", "merges", "splits"):
        if not isinstance(data.get(key), (list, dict)):
            raise fail(path, None, f"key {key!r} is missing: not a PickyBPE model")
    tokens: dict[int, dict] = {}
    for n, entry in enumerate(data["tokens"]):
        where = f"tokens[{n}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), int) or not isinstance(entry.get("str"), str) or not entry["str"]:
            raise fail(path, where, f"expected a token with an integer id and a string, found {short(entry)}")
        tokens[entry["id"]] = entry
    by_str = {t["str"]: i for i, t in tokens.items()}
    try:
        printed = {int(k): int(v) for k, v in data["id2int"].items()}
    except (TypeError, ValueError, AttributeError):
        raise fail(path, "id2int", "expected token id -> number") from None
    if set(printed) - set(tokens):
        raise fail(path, "id2int", f"names token id {min(set(printed) - set(tokens))}, which is not among the tokens")
    # our ids: the printed numbers, then the tokens the tokenizer never prints
    ours = dict(printed)
    for i in sorted(set(tokens) - set(printed)):
        ours[i] = max(ours.values(), default=-1) + 1
    events = sorted([(e.get("id"), "merge", e) for e in data["merges"]] + [(e.get("id"), "split", e) for e in data["splits"]], key=lambda x: (x[0] is None, x[0] or 0))

    def named(entry: Any, where: str) -> int:
        text = entry.get("str") if isinstance(entry, dict) else None
        if text not in by_str:
            raise fail(path, where, f"token {short(text)} is not among the tokens")
        return ours[by_str[text]]

    merges: list[tuple[int, int, int]] = []
    removals: list[list] = []
    for event_id, kind, entry in events:
        where = f"{kind}s event {event_id}"
        if not isinstance(event_id, int):
            raise fail(path, where, "an event without an integer id")
        if kind == "merge":
            pair = entry.get("pair")
            if not isinstance(pair, list) or len(pair) != 2:
                raise fail(path, where, "expected a pair of two tokens")
            merges.append((named(pair[0], where), named(pair[1], where), named(entry.get("new_token"), where)))
        else:
            if not merges:
                raise fail(path, where, "a split before any merge")
            parts = entry.get("split")
            if not isinstance(parts, list):
                raise fail(path, where, "expected the tokens it split into")
            removals.append([len(merges), named(entry.get("token"), where), [named(p, where) for p in parts]])
    specials = {t["str"]: ours[i] for i, t in tokens.items() if t.get("special")}
    vocab = {ours[i]: t["str"] for i, t in tokens.items() if not t.get("special")}
    vocab.update({i: s for s, i in specials.items()})
    config = {"word_start": SPACE, "ignore_merges": True, "removals": removals, "notes": ["read from a PickyBPE model (pchizhov/picky_bpe)"]}
    if UNK in specials:
        config["unk_token"] = UNK
    try:
        return MergeTable("chars", vocab, merges, specials, pretokenizer="whitespace", config=config, source_format=NAME, source=path)
    except BPEError as exc:
        raise fail(path, None, str(exc)) from None

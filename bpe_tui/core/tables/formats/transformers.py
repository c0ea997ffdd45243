"""A folder Hugging Face ``transformers`` loads: ``AutoTokenizer.from_pretrained(folder)``.

Written (as a whole, like the gpt2 format's folder: see ``atomic_write_dir``)::

    folder/
      tokenizer.json           the table, exactly as the hf format writes it
      tokenizer_config.json    tokenizer_class PreTrainedTokenizerFast, the special tokens'
                               roles (bos/eos/unk/pad), added_tokens_decoder
      special_tokens_map.json  the roles again, for transformers releases that read it

transformers builds its fast tokenizer from tokenizer.json, so it encodes every text to the
table's ids (special tokens recognised; no post-processor, so nothing is added around the
text) and decodes them back. A special token's role comes from its name (:data:`ROLES`:
``<s>`` is bos, ``</s>`` and ``<|endoftext|>`` eos, ...; a table's own unknown token is unk)
unless the caller names it: ``save(table, folder, format="transformers", pad_token="<pad>")``.

Write-only: reading such a folder is reading its tokenizer.json, which the hf format does
(``load(folder)`` finds it; the table's ``source_format`` is then ``hf``).
"""

from __future__ import annotations

import json
from typing import Final

from ...atomic import atomic_write_dir
from ...errors import BPEError
from .. import tokenizer_json
from ..table import MergeTable
from . import _eow

NAME: Final = "transformers"

#: A special token's role by its name, when the caller does not name one (first match wins).
ROLES: dict[str, tuple[str, ...]] = {
    "bos_token": ("<s>", "<|begin_of_text|>", "<|startoftext|>", "<bos>", "<|bos|>", "[CLS]"),
    "eos_token": ("</s>", "<|end_of_text|>", "<|endoftext|>", "<eos>", "<|eos|>", "[SEP]"),
    "unk_token": ("<unk>", "<|unk|>", "[UNK]"),
    "pad_token": ("<pad>", "<|pad|>", "[PAD]"),
}


def roles(table: MergeTable, **chosen: str | None) -> dict[str, str]:
    """``role -> special token`` for the folder: the ones given (each must be one of the
    table's special tokens, or its unknown token), else found by name (:data:`ROLES`)."""
    specials = dict(table.special_tokens)
    unknown = table.vocab.get(table.unk_id) if table.unk_id >= 0 else None
    if isinstance(unknown, str):
        specials.setdefault(unknown, table.unk_id)
    out: dict[str, str] = {}
    for role, names in ROLES.items():
        given = chosen.get(role)
        if given is not None:
            if given not in specials:
                raise BPEError(f"{role} {given!r} is not one of the table's special tokens ({', '.join(sorted(specials)) or 'none'})")
            out[role] = given
        elif role == "unk_token" and isinstance(unknown, str):
            out[role] = unknown
        else:
            found = next((n for n in names if n in specials), None)
            if found is not None:
                out[role] = found
    return out


def losses(table: MergeTable) -> list[str]:
    """What the folder cannot hold of ``table``: what its tokenizer.json cannot."""
    return tokenizer_json.losses(table)


def write(
    table: MergeTable, path: str, overwrite: bool = True, *, bos_token: str | None = None, eos_token: str | None = None,
    unk_token: str | None = None, pad_token: str | None = None,
) -> None:
    """Write the folder ``path`` (see the module docstring); the roles as :func:`roles`."""
    named = roles(table, bos_token=bos_token, eos_token=eos_token, unk_token=unk_token, pad_token=pad_token)
    attached = [(a, b) for a, b, _ in _eow.attach(table)] if table.units == "chars" and table.end_of_word else None
    decoder = {str(i): dict(sorted(entry.items())) for i, entry in tokenizer_json.added_tokens(table).items()}  # (transformers' key order)
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "clean_up_tokenization_spaces": False,
        "added_tokens_decoder": decoder,
        **named,
    }
    files = {
        "tokenizer.json": (tokenizer_json.dumps(table, attached=attached) + "\n").encode("utf-8"),
        "tokenizer_config.json": (json.dumps(config, ensure_ascii=False, indent=2) + "\n").encode("utf-8"),
        "special_tokens_map.json": (json.dumps(named, ensure_ascii=False, indent=2) + "\n").encode("utf-8"),
    }
    atomic_write_dir(path, files, overwrite)

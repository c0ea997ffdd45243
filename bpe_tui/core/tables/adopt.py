"""Tables from the libraries' own objects: a ``tiktoken.Encoding``, a ``tokenizers.Tokenizer``.

``bpe_tui.from_tiktoken(encoding)`` and ``bpe_tui.from_tokenizers(tokenizer)`` are the way back
from :meth:`MergeTable.to_tiktoken` and :meth:`MergeTable.to_tokenizers`, and open what a
program already holds (``tiktoken.get_encoding("cl100k_base")``, a ``transformers`` fast
tokenizer's ``backend_tokenizer``) without a file. Each goes through its file format's reader,
so the table is exactly the one its file would give:

* an Encoding is a rank file with its regex and special tokens: the table encodes by token
  rank, as tiktoken does, and builds its merge list when first asked (cached by the sha256 of
  the ranks written as a ``.tiktoken`` file, so the published encodings share the cache with
  their files);
* a Tokenizer is its ``tokenizer.json`` (``Tokenizer.to_str()``), read by the ``hf`` format.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from ..errors import BPEError
from ..wording import plural
from .formats import hf
from .formats._shared import pattern_name
from .formats.tiktoken_bpe import RankFileMerges
from .table import BY_TOKEN_RANK, MergeTable


def from_tiktoken(encoding: Any) -> MergeTable:
    """The table of a ``tiktoken.Encoding``: its ranks as ids, its regex, its special tokens."""
    try:
        ranks: dict[bytes, int] = dict(encoding._mergeable_ranks)
        pattern: str = encoding._pat_str
        specials: dict[str, int] = dict(encoding._special_tokens)
        name: str = encoding.name
    except AttributeError:
        raise BPEError(f"from_tiktoken takes a tiktoken.Encoding, not {type(encoding).__name__}") from None
    by_rank = {rank: token for token, rank in ranks.items()}
    if len(by_rank) != len(ranks):
        raise BPEError(f"tiktoken encoding {name!r}: two tokens share a rank")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise BPEError(f"tiktoken encoding {name!r}: the single byte {bytes([missing[0]])!r} has no rank ({len(missing)} of 256 missing)")
    clash = next((s for s, i in specials.items() if i in by_rank), None)
    if clash is not None:
        raise BPEError(f"tiktoken encoding {name!r}: special token {clash!r} has id {specials[clash]}, which is a rank")
    as_file = "".join(f"{base64.b64encode(by_rank[r]).decode('ascii')} {r}\n" for r in sorted(by_rank))
    sha = hashlib.sha256(as_file.encode("ascii")).hexdigest()
    vocab: dict[int, bytes] = dict(by_rank)
    vocab.update({i: s.encode("utf-8") for s, i in specials.items()})
    notes = [
        f"from tiktoken's Encoding {name!r}: its regex and {plural(len(specials), 'special token')}",
        "a pre-token that is itself a token is emitted whole, as tiktoken does, even where no merge builds it",
    ]
    return MergeTable(
        "bytes", vocab, RankFileMerges(sha, by_rank), specials, pretokenizer=pattern_name(pattern),
        config={"notes": notes, "ignore_merges": True, "merge_by": BY_TOKEN_RANK, "encoding": name},
        source_format="tiktoken", source=f"tiktoken:{name}",
    )


def from_tokenizers(tokenizer: Any) -> MergeTable:
    """The table of a Hugging Face ``tokenizers.Tokenizer`` (or of a ``transformers`` fast
    tokenizer: its ``backend_tokenizer``), read from its tokenizer.json as the ``hf`` format
    reads a file (a model that is not BPE is refused, by name)."""
    backend = getattr(tokenizer, "backend_tokenizer", tokenizer)
    to_str = getattr(backend, "to_str", None)
    if to_str is None:
        raise BPEError(f"from_tokenizers takes a tokenizers.Tokenizer, not {type(tokenizer).__name__}")
    return hf.loads(to_str(), "tokenizers.Tokenizer")

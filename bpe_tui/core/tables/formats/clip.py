"""OpenAI CLIP's merges: ``bpe_simple_vocab_16e6.txt.gz`` (CLIP, open_clip, and the text
encoder of Stable Diffusion 1.x, through transformers' CLIPTokenizer).

::

    "bpe_simple_vocab_16e6.txt#version: 0.2
    i n
    t h
    ...
    ðŁĴ ĳ</w>

The file is gzip-compressed (``load`` reads it decompressed: see ``_compressed``). Its first
line is a header, a quote, the file's name and ``#version: 0.2``, by which it is recognised.
Then one merge per line in rank order, ``left right``, each token written through GPT-2's byte
-> character map (``Ġ`` is a space) with ``</w>`` attached to a word's last symbol, as in
subword-nmt 0.2 codes. Nothing else is in the file; CLIP's code (``simple_tokenizer.py``)
adds the rest, and so does this reader:

* **merges**: lines 1 to 48,894 after the header (``merges[1:49152-256-2+1]``); the file holds
  262,144, the rest are never used. A shorter file is used whole.
* **ids**: the 256 byte characters in ``bytes_to_unicode`` order (``!`` is 0; the bytes it
  shifts, control characters and the space, come last), ids 0-255; the same with ``</w>``,
  256-511; one token per merge, 512 on; then ``<|startoftext|>`` and ``<|endoftext|>``
  (49,406 and 49,407): 49,408 tokens.
* **text** (transformers' CLIPTokenizer, which builds a ``tokenizers`` pipeline): NFC, every
  run of whitespace one space, lowercased character by character, then CLIP's regex (the
  ``clip`` pre-tokenizer, with GPT-2's regex inside each piece as transformers' ByteLevel
  step does) keeps the special tokens, contractions, runs of letters, single digits and runs
  of other characters, and drops whitespace. CLIP's own code also runs ftfy
  and unescapes HTML entities twice; transformers does neither, nor does this.
* **context**: the text encoder reads 77 tokens, ``<|startoftext|>`` and ``<|endoftext|>``
  included (``config["context_length"]``; ``bpe-tui inspect`` and the explorer's encode box
  say how much of it a text takes).

bpe-tui keeps ``</w>`` as a symbol of its own (see ``_eow.py``): 256 merges ``(c, </w>)``,
one per byte, go in front of the file's, each making CLIP's ``c</w>`` token, so encoding
starts from ``c</w>`` exactly as CLIP does, and CLIP's merge n is our merge 256 + n. The bare
``</w>`` symbol gets the id after ``<|endoftext|>``; it never survives encoding.

Writing (``--to clip``) puts a byte-level table with an end-of-word marker in that form
(merges attached as ``_eow.attach`` does), gzip-compressed when the name ends in ``.gz``, with
no newline after the last merge (CLIP's code would read the empty line after it as a merge).
"""

from __future__ import annotations

import gzip
import os
import re
from typing import Any, Final

from ...atomic import atomic_write_bytes
from ...compression import named_compression, plain_name
from ...engine.units import bytes_to_gpt2_str, bytes_to_unicode, gpt2_str_to_bytes
from ...errors import BPEError
from ...text.pretokenize import CLIP_PRETOKENIZER
from ..table import MergeTable
from . import _eow
from ._shared import build_table, fail, read_head, short

NAME: Final = "clip"
EOW = "</w>"
#: How many lines after the header CLIP's code uses: ``merges[1:49152-256-2+1]``.
USED_MERGES = 49152 - 256 - 2
#: CLIP's special tokens, after the merges.
START, END = "<|startoftext|>", "<|endoftext|>"
#: The text encoder's context, start and end tokens included.
CONTEXT_LENGTH = 77
#: What transformers' CLIPTokenizer does to the text before its regex (a tokenizer.json spec).
NORMALIZER: dict[str, Any] = {
    "type": "Sequence",
    "normalizers": [
        {"type": "NFC"},
        {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
        {"type": "Lowercase"},
    ],
}
_HEADER = re.compile(rb'"[^"\n]*#version: *([^\r\n]*)\r?\n')


def sniff(path: str) -> bool:
    head = read_head(path, 4096)
    found = _HEADER.match(head)
    if found is None:
        return False
    first = head[found.end() :].split(b"\n", 1)[0].decode("utf-8", "ignore").split()
    return not first or (len(first) == 2 and all(_token_bytes(t) is not None for t in first))


def _token_bytes(token: str) -> bytes | None:
    """A token of the file as bytes (``</w>`` kept as the bytes ``</w>``), or None if a
    character is outside GPT-2's byte alphabet."""
    body, end = _eow.split_symbol(token, EOW)
    try:
        data = gpt2_str_to_bytes(body)
    except KeyError:
        return None
    return data + EOW.encode() if end else data


def read(path: str) -> MergeTable:
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    header = _HEADER.match((lines[0] + "\n").encode("utf-8"))
    if header is None:
        raise fail(path, "line 1", f"expected CLIP's header '\"bpe_simple_vocab_16e6.txt#version: 0.2', found {short(lines[0])}")
    version = header.group(1).decode("utf-8", "replace").strip()
    if version != "0.2":
        raise fail(path, "line 1", f"unknown version {version!r} (CLIP's merges are version 0.2)")
    total = len(lines) - 1 - (lines[-1] == "")
    used = lines[1 : USED_MERGES + 1]
    alphabet = list(bytes_to_unicode())  # CLIP's order: printable bytes first
    vocab: dict[int, bytes] = {i: bytes([b]) for i, b in enumerate(alphabet)}
    vocab.update({256 + i: bytes([b]) + EOW.encode() for i, b in enumerate(alphabet)})
    merges: list[tuple[bytes, bytes, str]] = [(bytes([b]), EOW.encode(), "(implied: every byte can end a word)") for b in alphabet]
    made: dict[bytes, int] = {}
    gaps: list[int] = []
    for n, line in enumerate(used, start=2):
        token_id = 512 + n - 2
        parts = line.split()
        if not parts:  # CLIP's code gives an empty line an id (an empty token) all the same
            gaps.append(n)
            continue
        if len(parts) != 2:
            raise fail(path, f"line {n}", f"expected 'left right', found {len(parts)} tokens in {short(line)}")
        left, right = (_token_bytes(t) for t in parts)
        if left is None or right is None:
            bad = parts[0] if left is None else parts[1]
            raise fail(path, f"line {n}", f"token {short(bad)} has a character outside GPT-2's byte alphabet")
        if EOW in parts:
            raise fail(path, f"line {n}", f"a token is {EOW!r} alone, which CLIP's rules cannot tell from the end-of-word marker")
        result = left + right
        if result in made:
            raise fail(path, f"line {n}", f"makes {short(parts[0] + parts[1])}, which line {made[result]} makes already (CLIP would give it two ids)")
        made[result] = n
        vocab[token_id] = result
        merges.append((left, right, f"line {n}"))
    after = 512 + len(used)
    specials = {START: after, END: after + 1}
    vocab[after], vocab[after + 1] = START.encode(), END.encode()
    eow_id = after + 2
    vocab[eow_id] = EOW.encode()
    # A merge may name a token no line makes (a file written attached from a separate-marker
    # table has such merges: see _eow.attach): CLIP's code keeps it, and it never applies.
    # Such a token gets an id outside CLIP's vocabulary, as the bare </w> does.
    known = set(vocab.values())
    unmade = sorted({part for left, right, _ in merges for part in (left, right) if part not in known})
    vocab.update((eow_id + 1 + i, part) for i, part in enumerate(unmade))
    notes = [
        f"OpenAI CLIP's merges: {len(used) - len(gaps):,} of the file's {total:,} used (CLIP's code takes lines 2-{USED_MERGES + 1:,})"
        if total > len(used) else f"OpenAI CLIP's merges: all {len(used) - len(gaps):,} of the file used",
        f"CLIP's vocabulary: 256 bytes (GPT-2's byte order), the same with </w>, the merges, {START} and {END} ({after + 2:,} tokens)",
        "CLIP's text rules (transformers' CLIPTokenizer): NFC, whitespace runs as one space, lowercase, CLIP's regex; no ftfy",
        "256 merges (c, </w>) were added in front: CLIP attaches </w> to a word's last byte (its merge n is merge n + 256 here)",
        f"CLIP's text encoder reads {CONTEXT_LENGTH} tokens, {START} and {END} included",
    ]
    notes += [f"line {n} is empty: CLIP's code gives it id {512 + n - 2} all the same (an empty token), kept as a gap" for n in gaps]
    if unmade:
        notes.append(f"{len(unmade):,} tokens that merges name are made by no merge: those merges never apply (as in CLIP's code)")
    config: dict[str, Any] = {
        "notes": notes,
        "normalizer": NORMALIZER,
        "context_length": CONTEXT_LENGTH,
        "context_tokens": [START, END],
        "implied_merges": 256,
        "outside_vocab_from": eow_id,
    }
    return build_table(
        path, "bytes", vocab, merges, specials, source_format=NAME, pretokenizer=CLIP_PRETOKENIZER, end_of_word=EOW, config=config,
    )


def losses(table: MergeTable) -> list[str]:
    out: list[str] = []
    if table.units != "bytes" or table.end_of_word is None:
        return out  # not written at all: see check_save
    if table.end_of_word != EOW:
        out.append(f"the end-of-word marker {table.end_of_word!r} is written as {EOW!r}")
    out.append("written attached: (x, </w>) merges are implied, not written")
    if table.vocab.get(0) != b"!" or table.vocab.get(256) != b"!" + EOW.encode():
        out.append("token ids become CLIP's: the bytes in GPT-2's order, the same with </w>, then one per merge")
    if table.pretokenizer != CLIP_PRETOKENIZER:
        out.append(f"CLIP's rules split text with CLIP's regex; the table's pre-tokenizer ({short(table.pretokenizer)}) is not stored")
    if table.config.get("normalizer") != NORMALIZER:
        out.append("CLIP's rules lowercase and squeeze whitespace; the table's own text rules are not stored")
    if set(table.special_tokens) - {START, END}:
        out.append(f"special tokens other than {START} and {END} are not stored")
    if table.counts:
        out.append("per-merge counts are not stored")
    return out


def write(table: MergeTable, path: str, overwrite: bool = True) -> None:
    """Write CLIP's merges (gzip-compressed when ``path`` ends in ``.gz``)."""
    if table.units != "bytes" or table.end_of_word is None:
        raise BPEError(f"{path}: a CLIP file holds byte-level tables with an end-of-word marker only (this one is {table.units}"
                       f"{', without one' if table.end_of_word is None else ''})")
    kind = named_compression(path)
    if kind not in (None, "gzip"):
        raise BPEError(f"{path}: CLIP's code reads its merges plain or gzip-compressed; name the file .txt or .txt.gz, not {kind}")
    eow = table.end_of_word.encode("utf-8")
    merges = [(left.encode("latin-1"), right.encode("latin-1")) for left, right, _ in _eow.attach(table)]
    lines = [f'"{os.path.basename(plain_name(path))}#version: 0.2']
    lines += [f"{_clip_token(left, eow)} {_clip_token(right, eow)}" for left, right in _made_parts(merges, eow)]
    data = "\n".join(lines).encode("utf-8")
    atomic_write_bytes(path, gzip.compress(data, mtime=0) if kind == "gzip" else data, overwrite)


def _made_parts(merges: list[tuple[bytes, bytes]], eow: bytes) -> list[tuple[bytes, bytes]]:
    """The merges whose two parts are tokens: a byte, a byte with the marker, or what a merge
    makes. Attaching the marker can derive a merge ``(y, z</w>)`` for a ``z</w>`` that no merge
    makes; it never applies, and transformers refuses a merge naming a token it lacks."""
    base = {bytes([b]) for b in range(256)} | {bytes([b]) + eow for b in range(256)}
    while True:
        made = base | {left + right for left, right in merges}
        kept = [(left, right) for left, right in merges if left in made and right in made]
        if len(kept) == len(merges):
            return kept
        merges = kept


def _clip_token(surface: bytes, eow: bytes) -> str:
    """A token as CLIP's file writes it: its bytes through GPT-2's map, ``</w>`` attached."""
    if surface.endswith(eow) and len(surface) > len(eow):
        return bytes_to_gpt2_str(surface[: -len(eow)]) + EOW
    return bytes_to_gpt2_str(surface)

"""What each character is to the known regexes, as the ``regex`` package says: the table the
compiled split reads.

The compiled core (``core/engine/_merge_core.c``, its split section) splits text by the known
regexes GPT-2's, cl100k's, o200k's, Llama 3's and Qwen's without a regex engine: each pattern's
alternatives are written out there by hand, with the backtracking ``regex`` does. What it never
decides is what a character *is*. That is this table: one 16-bit number per code point, whose
bits say whether ``regex`` matches the character with ``\\p{L}``, ``\\p{N}``, ``\\s``, o200k's two
letter classes, and each letter of the contractions under ``(?i)`` (``ſ`` is an ``s`` there).
Each bit is found by running ``regex`` itself over every character of a plane, so the table is
``regex``'s Unicode, whatever version it ships.

A plane (65,536 code points) is filled the first time a text holds one of its characters: the
Basic Multilingual Plane at the first split (about 10 ms), the emoji's plane 1 at the first
emoji. The table is 2.2 MB, shared by every pattern and table in the process.
"""

from __future__ import annotations

import sys
from array import array

import regex

from .presets import GPT2_PATTERN, GPT4_PATTERN, LLAMA3_PATTERN, O200K_PATTERN, QWEN_PATTERN

PLANES = 17
PLANE = 0x10000

#: Each bit, the class in ``regex``'s syntax it stands for (_merge_core.c's CL_ and CI_ numbers).
BITS = {
    0x01: r"\p{L}",
    0x02: r"\p{N}",
    0x04: r"\s",
    0x08: r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",  # o200k's upper-case letters (marks too)
    0x10: r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",  # o200k's lower-case letters (marks too)
    0x0100: "(?i:s)",  # the letters of the contractions ('s 't 're 've 'm 'll 'd), any case
    0x0200: "(?i:t)",
    0x0400: "(?i:r)",
    0x0800: "(?i:e)",
    0x1000: "(?i:v)",
    0x2000: "(?i:m)",
    0x4000: "(?i:l)",
    0x8000: "(?i:d)",
}

#: The known regexes the compiled core splits, by their text, and each one's number there.
SPLIT_PATTERNS = {GPT2_PATTERN: 1, GPT4_PATTERN: 2, LLAMA3_PATTERN: 3, QWEN_PATTERN: 4, O200K_PATTERN: 5}

#: The table: code point -> its bits (0 until its plane is filled).
CLASSES = array("H", bytes(2 * PLANES * PLANE))
#: One byte per plane: 1 once its part of CLASSES is filled.
READY = bytearray(PLANES)


def plane_bits(plane: int) -> array:
    """The bits of every code point of ``plane``, each class found by ``regex`` itself."""
    first = plane * PLANE
    chars = array("I", range(first, first + PLANE)).tobytes().decode("utf-32-le", "surrogatepass")
    total = 0
    for bit, cls in BITS.items():
        mask = bytearray(2 * PLANE)
        one = bit.to_bytes(2, sys.byteorder)
        for m in regex.finditer(f"(?:{cls})+", chars):
            a, b = m.span()
            mask[2 * a : 2 * b] = one * (b - a)
        total |= int.from_bytes(mask, sys.byteorder)  # (the bits are apart: or-ing them adds them)
    return array("H", total.to_bytes(2 * PLANE, sys.byteorder))


def fill_plane(plane: int) -> None:
    """Fill ``plane``'s part of the table (once; a second call finds it ready)."""
    if not READY[plane]:
        CLASSES[plane * PLANE : (plane + 1) * PLANE] = plane_bits(plane)
        READY[plane] = 1

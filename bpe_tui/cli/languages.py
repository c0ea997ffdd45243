"""Training on one corpus per language, shared by ``train`` and the explorer:
``--language LANG=FILE``, ``--dev LANG=FILE`` or ``--ratio LANG=R``.

A language given twice adds files to its corpus. Giving ``--language`` asks for the variant
that trains on a corpus per language (the registry's ``languages_variant``); its own options
and preset are its declaration's (see :mod:`bpe_tui.cli.variants`).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..core.engine.registry import languages_variant
from ..core.errors import BPEError


def add_language_options(g: Any) -> None:
    """The three options, in an argument group (the variant's)."""
    g.add_argument(
        "--language", action="append", default=[], metavar="LANG=FILE",
        help="a language's training corpus (repeatable, a language once per file; instead of CORPUS): "
        "the language that its development text shows worst served chooses each merge",
    )
    g.add_argument(
        "--dev", action="append", default=[], metavar="LANG=FILE",
        help="a language's development text, one per language, multi-parallel (line n of each says the same thing)",
    )
    g.add_argument(
        "--ratio", action="append", default=[], metavar="LANG=R",
        help="instead of --dev: a target compression ratio per language, measured on its training corpus",
    )


def _pairs(values: list[str], option: str, number: bool = False) -> dict[str, Any]:
    """``LANG=VALUE`` options as a dict (a language repeated: its values in a list, for
    --language; an error for the others)."""
    out: dict[str, Any] = {}
    for value in values:
        lang, sep, rest = value.partition("=")
        if not sep or not lang or not rest:
            raise BPEError(f"{option} {value!r}: expected LANG={'R' if number else 'FILE'}, as in {option} en={'1.0' if number else 'en.txt'}")
        if number:
            try:
                rest_value: Any = float(rest)
            except ValueError:
                raise BPEError(f"{option} {value!r}: {rest!r} is not a number") from None
        else:
            rest_value = rest
        if option == "--language":
            out.setdefault(lang, []).append(rest_value)
        elif lang in out:
            raise BPEError(f"{option} {lang}= is given twice: one per language")
        else:
            out[lang] = rest_value
    return out


def languages_requested(args: argparse.Namespace) -> bool:
    """Whether the command line gives languages (``--language``, ``--dev`` or ``--ratio``)."""
    return bool(getattr(args, "language", None) or getattr(args, "dev", None) or getattr(args, "ratio", None))


def languages_from_args(args: argparse.Namespace) -> tuple[dict[str, list[str]], dict[str, str] | None, dict[str, float] | None]:
    """``(corpora, dev, ratio)`` from the options, checked as far as can be before reading
    (see :func:`~bpe_tui.core.text.languages.check_languages`)."""
    from ..core.text.languages import check_languages

    if not args.language:
        raise BPEError(f"{languages_variant().said()} trains on one corpus per language: give --language LANG=FILE for each (two or more)")
    if getattr(args, "corpus", None):
        raise BPEError(f"{args.corpus[0]}: with --language every corpus belongs to a language (--language LANG={args.corpus[0]})")
    corpora = _pairs(args.language, "--language")
    dev = _pairs(args.dev, "--dev") if args.dev else None
    ratio = _pairs(args.ratio, "--ratio", number=True) if args.ratio else None
    check_languages(corpora, dev, ratio)
    return corpora, dev, ratio

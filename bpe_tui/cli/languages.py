"""The options of training on one corpus per language (parity-aware BPE), shared by ``train``
and the explorer: ``--language LANG=FILE``, ``--dev LANG=FILE`` or ``--ratio LANG=R``,
``--parity base|window`` and its window and hybrid settings.

A language given twice adds files to its corpus. Giving ``--language`` turns parity-aware BPE
on (``base`` unless ``--parity`` says otherwise), and the preset defaults to ``parity``, the
reference code's setup (see :mod:`bpe_tui.core.engine.variants.parity`).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..core.engine.config import PARITY_VARIANTS
from ..core.errors import BPEError


def add_language_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("parity-aware BPE (one corpus per language; Foroutan et al. 2025)")
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
    g.add_argument("--parity", choices=list(PARITY_VARIANTS), help="base (default with --language) or window (moving-window balancing)")
    g.add_argument("--parity-window", type=int, metavar="N", help="window variant: the last N merges are looked at (default 100)")
    g.add_argument("--parity-alpha", type=int, metavar="A", help="window variant: a language may choose A/languages of them (default 2)")
    g.add_argument("--global-merges", type=int, metavar="M", help="the hybrid: the first M merges are plain BPE on all languages together")


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


def parity_requested(args: argparse.Namespace) -> bool:
    """Whether the command line asks for parity-aware BPE (a language or one of its options)."""
    return bool(args.language or args.dev or args.ratio or args.parity or args.parity_window is not None
                or args.parity_alpha is not None or args.global_merges is not None)


def languages_from_args(args: argparse.Namespace) -> tuple[dict[str, list[str]], dict[str, str] | None, dict[str, float] | None]:
    """``(corpora, dev, ratio)`` from the options, checked as far as can be before reading
    (see :func:`~bpe_tui.core.text.languages.check_languages`)."""
    from ..core.text.languages import check_languages

    if not args.language:
        raise BPEError("parity-aware BPE trains on one corpus per language: give --language LANG=FILE for each (two or more)")
    if getattr(args, "corpus", None):
        raise BPEError(f"{args.corpus[0]}: with --language every corpus belongs to a language (--language LANG={args.corpus[0]})")
    corpora = _pairs(args.language, "--language")
    dev = _pairs(args.dev, "--dev") if args.dev else None
    ratio = _pairs(args.ratio, "--ratio", number=True) if args.ratio else None
    check_languages(corpora, dev, ratio)
    return corpora, dev, ratio


def parity_config(args: argparse.Namespace) -> dict[str, Any]:
    """The TrainerConfig fields of the parity options, and the parity preset when no other
    was given."""
    kw: dict[str, Any] = {"parity": args.parity or "base"}
    if args.parity_window is not None:
        kw["parity_window"] = args.parity_window
    if args.parity_alpha is not None:
        kw["parity_alpha"] = args.parity_alpha
    if args.global_merges is not None:
        kw["global_merges"] = args.global_merges
    return kw

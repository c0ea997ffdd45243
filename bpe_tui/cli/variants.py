"""The BPE variants on the command line, read from the registry: each built-in's options as
flags of their own, and ``--variant MODULE:CLASS`` with ``--variant-option KEY=VALUE`` for any
variant, yours included (shared by ``train`` and the explorer).

Nothing here names a variant: the flags, their help and their checks are the variants' own
declarations (:mod:`bpe_tui.core.engine.registry`), and messages name each option by the flag
the user typed.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..core.engine.config import TrainerConfig, named_as
from ..core.engine.registry import (
    BUILT_IN,
    Variant,
    config_fields,
    flag_of,
    load_variant,
    make_variant,
    option_pairs,
    requested,
)
from ..core.errors import BPEError
from .languages import add_language_options, languages_requested

__all__ = ["add_variant_options", "built_in_fields", "checked_config", "own_variant", "preset_asked", "variant_requested"]


def _argparse_kwargs(option: Any) -> dict[str, Any]:
    kw: dict[str, Any] = {"dest": option.key, "default": None, "help": option.help}
    if option.type is bool:
        kw["action"] = argparse.BooleanOptionalAction
        return kw
    kw["type"] = option.type
    if option.choices:
        kw["choices"] = list(option.choices)
    elif option.metavar:
        kw["metavar"] = option.metavar
    return kw


def add_variant_options(p: argparse.ArgumentParser) -> None:
    """Every built-in's flags (a group each, headed by who proposed it), the languages for
    the one that trains on a corpus per language, and ``--variant`` for any other."""
    for cls in BUILT_IN:
        g = p.add_argument_group(cls.title)
        for option in cls.options:
            if option.flag is not None:
                g.add_argument(option.flag, **_argparse_kwargs(option))
        if cls.takes_languages:
            add_language_options(g)
    g = p.add_argument_group("your own variant (see the docs: Write your own variant)")
    g.add_argument(
        "--variant", metavar="MODULE:CLASS",
        help="train with a variant from a module of yours (importable from here), or an installed package's (by name)",
    )
    g.add_argument(
        "--variant-option", action="append", default=[], metavar="KEY=VALUE",
        help="one of --variant's options (repeatable; each variant lists its own)",
    )
    g.add_argument(
        "--check-variant", action="store_true",
        help="recount the whole training state after every step and undo, and stop at the first thing the variant broke (slow)",
    )


def _given(args: argparse.Namespace) -> dict[str, Any]:
    """Built-in option key -> the value given on the command line (None: not given)."""
    return {o.key: getattr(args, o.key, None) for cls in BUILT_IN for o in cls.options if o.flag is not None}


def variant_requested(args: argparse.Namespace) -> list[type[Variant]]:
    """The built-in variants the command line asks for (one of their flags, or the languages)."""
    return requested(_given(args), languages_requested(args))


def preset_asked(args: argparse.Namespace) -> str | None:
    """The preset the variants asked for start from, when no ``--preset`` is given."""
    return next((cls.preset for cls in variant_requested(args) if cls.preset), None)


def preset_takes_no_limit(preset: str) -> bool:
    """Whether ``preset`` is a variant's own setup and that variant takes no length limit
    (``--preset boundless``: the explorer's default limit is not put on it)."""
    return any(cls.preset == preset and not cls.takes_length_limit for cls in BUILT_IN)


def built_in_fields(args: argparse.Namespace, start_merges: int | None = None) -> dict[str, Any]:
    """The TrainerConfig fields the built-ins' flags give (each variant checks its own)."""
    if args.variant:
        flags = [o.flag for cls in BUILT_IN for o in cls.options if o.flag and getattr(args, o.key, None) not in (None, False)]
        flags += ["--language"] if languages_requested(args) else []
        if flags:
            raise BPEError(f"--variant {args.variant} and {flags[0]} do not go together: a run has one variant")
    return config_fields(_given(args), start_merges, languages_requested(args))


def checked_config(values: dict[str, Any]) -> TrainerConfig:
    """A TrainerConfig whose messages name each option by its flag."""
    with named_as(flag_of):
        return TrainerConfig(**values)


def own_variant(args: argparse.Namespace) -> Variant | None:
    """The variant ``--variant`` names, made with the ``--variant-option`` values (one-line
    errors: a module that cannot be imported, an option it does not have); None without it."""
    if not args.variant:
        if args.variant_option:
            raise BPEError("--variant-option needs --variant MODULE:CLASS (the variant whose option it is)")
        return None
    cls = load_variant(args.variant)
    return make_variant(cls, option_pairs(args.variant_option), named=args.variant)

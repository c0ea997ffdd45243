"""The registry of BPE variants: the built-in ones, one line each, and the ways to bring your own.

A variant declares itself once, on its class (see :mod:`~bpe_tui.core.engine.variants.seam`):
its ``name``, its ``title`` (who proposed it), its ``options``
(:class:`~bpe_tui.core.engine.variants.options.Option`: type, default, check, flag, help,
the rules dialog's label), and what it says about a table it made (``about_table``) or how
such a table encodes (``encoding_rule``). Everything that offers variants reads them here:
the command line's flags and ``--variant``, the explorer's rules dialog and status line,
``plain_counterpart`` (every option cleared), ``variant_for`` (the variant a config asks
for), ``inspect`` and the table's encoder. None of those names a variant.

A variant from elsewhere comes in three ways, all ending in :func:`make_variant`:

* ``module:Class`` (:func:`load_variant`): ``bpe-tui train --variant my_module:MyVariant``;
* an installed package's entry point in the group :data:`ENTRY_POINTS` (as ``tiktoken_ext``
  offers encodings): ``[project.entry-points."bpe_tui.variants"] scaffold =
  "my_package.scaffold:ScaffoldBPE"``, then ``--variant scaffold``;
* in Python, simply ``Trainer(..., variant=MyVariant(...))``.

No module outside :mod:`bpe_tui.core.engine` imports a variant module; they import this one
(a contract in pyproject.toml).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..errors import BPEError, VariantError, one_line
from .config import TrainerConfig
from .variants.options import Option, parse_options
from .variants.boundless import BoundlessBPE
from .variants.parity import ParityAware
from .variants.picky import PickyBPE
from .variants.plain import PlainBPE
from .state import Merged
from .variants.seam import Bench, Choice, MergedElsewhere, Series, Variant
from .variants.superbpe import SuperBPE

__all__ = [
    "BUILT_IN", "ENTRY_POINTS", "Bench", "Choice", "Merged", "MergedElsewhere", "Option", "PlainBPE", "Series", "Variant", "about_table", "built_in", "config_fields", "config_notes", "dialog_options", "encoding_rule", "flag_of",
    "installed_variants", "languages_variant", "load_variant", "make_variant", "option_pairs", "plain_config", "requested", "save_needs", "table_save_needs", "token_mark", "token_marks",
    "variant_for", "variant_of_table", "variant_record", "about_variant", "describe_run", "own_variant",
]

#: The built-in variants besides plain BPE: one line each, in the order ``--help`` shows them.
BUILT_IN: tuple[type[Variant], ...] = (
    PickyBPE,
    ParityAware,
    SuperBPE,
    BoundlessBPE,
)

#: The entry-point group an installed package offers its variants in.
ENTRY_POINTS = "bpe_tui.variants"


def built_in(name: str) -> type[Variant] | None:
    """The built-in variant called ``name`` (plain BPE's is ``plain``), or None."""
    known: tuple[type[Variant], ...] = (PlainBPE, *BUILT_IN)
    for cls in known:
        if cls.name == name:
            return cls
    return None


def variant_for(config: TrainerConfig, chunk_counts: Mapping[str, int] | None = None) -> Variant:
    """The variant a config asks for: the first built-in whose options the config sets
    (``wanted``), made by its ``from_config`` (``chunk_counts``: the corpus's other cut, for
    SuperBPE), else plain BPE."""
    for cls in BUILT_IN:
        if cls.wanted(config):
            return cls.from_config(config, chunk_counts)
    return PlainBPE()


def option_fields() -> dict[str, Option]:
    """TrainerConfig field -> the built-in option that fills it."""
    return {o.key: o for cls in BUILT_IN for o in cls.options if o.key in TrainerConfig.__dataclass_fields__}


def plain_config(config: TrainerConfig, vocab_size: int) -> TrainerConfig:
    """``config`` without any variant (every built-in option at its default), to ``vocab_size``:
    what plain BPE is trained under to be measured beside a variant."""
    cleared = {key: option.default for key, option in option_fields().items()}
    return replace(config, **cleared, vocab_size=vocab_size, merges=None)


def dialog_options(config: TrainerConfig) -> list[Option]:
    """The built-in options the rules dialog shows for ``config``: those with a label whose
    variant the config asks for, and those offered to switch a variant on."""
    return [o for cls in BUILT_IN for o in cls.options if o.label is not None and (o.offered or cls.wanted(config))]


def flag_of(key: str) -> str:
    """How the command line names an option or a TrainerConfig field: a built-in option's
    flag, else the flag made from its name (``max_token_length`` -> ``--max-token-length``)."""
    for cls in BUILT_IN:
        for option in cls.options:
            if option.key == key and option.flag is not None:
                return option.flag
    return "--" + key.replace("_", "-")


def config_fields(given: Mapping[str, Any], start_merges: int | None, languages: bool) -> dict[str, Any]:
    """The TrainerConfig fields the command line's built-in options give (``given``: option
    key -> value, None where not given; ``start_merges``: the ``--from`` table's merges, or
    None; ``languages``: whether ``--language`` and its kin were given), each built-in
    checking its own, messages naming flags."""
    fields: dict[str, Any] = {}
    for cls in BUILT_IN:
        asked = any(given.get(o.key) not in (None, False) for o in cls.options) or (languages and cls.takes_languages)
        fields.update(cls.config_fields(given, start_merges, flag_of, asked))
    return fields


def requested(given: Mapping[str, Any], languages: bool = False) -> list[type[Variant]]:
    """The built-in variants whose options are among ``given`` (key -> value given, None for
    not given), or that take the languages given, in registry order."""
    return [cls for cls in BUILT_IN if any(given.get(o.key) not in (None, False) for o in cls.options) or (languages and cls.takes_languages)]


def languages_variant() -> type[Variant]:
    """The built-in variant that trains on one corpus per language."""
    return next(cls for cls in BUILT_IN if cls.takes_languages)


def own_variant(variant: Variant) -> tuple[str, str] | None:
    """A variant from outside the package as a status line names it: ``(module:Class, its
    name)``; None for a built-in (the config's rules say which)."""
    from .verify import is_built_in, variant_label

    return None if is_built_in(variant) else (variant_label(variant), variant.name or type(variant).__name__)


def describe_run(trainer: Any) -> str:
    """The rules a trainer runs under, in one line (a status line's): its config, and a
    variant from outside the package by name (``· variant my_module:MyVariant``)."""
    from .verify import is_built_in, variant_label

    described = trainer.config.describe()
    variant = trainer.variant
    return described if is_built_in(variant) else f"{described} · variant {variant_label(variant)}"


def config_notes(config: TrainerConfig) -> list[str]:
    """What every built-in has to say about ``config`` before a table trained under it is
    saved (:meth:`Variant.config_notes`)."""
    return [note for cls in BUILT_IN for note in cls.config_notes(config)]


def save_needs(config: TrainerConfig) -> dict[str, bool]:
    """What a format must hold to save what ``config`` trains (``check_save``'s keywords),
    from every built-in's ``save_needs``."""
    needs: dict[str, bool] = {}
    for cls in BUILT_IN:
        needs.update(cls.save_needs(config))
    return needs


def table_save_needs(table: Any) -> dict[str, bool]:
    """:func:`save_needs` for a table read from a file (``convert``)."""
    needs: dict[str, bool] = {}
    for cls in BUILT_IN:
        needs.update(cls.table_save_needs(table))
    return needs


def token_mark(surface: Any) -> str:
    """The mark the explorer draws beside a token, from the first built-in that marks it
    (SuperBPE's ``⁀`` beside a superword), or ""."""
    for cls in BUILT_IN:
        if cls.token_mark and cls.marks(surface):
            return cls.token_mark
    return ""


def token_marks() -> list[tuple[str, str]]:
    """Every mark a built-in draws beside tokens, and what it means (the keys' help)."""
    return [(cls.token_mark, cls.token_mark_means) for cls in BUILT_IN if cls.token_mark]


def about_table(config: Mapping[str, Any], merges: int | None = None) -> list[tuple[str, str]]:
    """What each variant says about a saved table's config and merge count (``inspect``):
    ``(label, text)`` rows, from the built-ins' ``about_table`` and a line naming any other
    variant."""
    rows: list[tuple[str, str]] = []
    for cls in BUILT_IN:
        rows += cls.about_table(config, merges)
    other = config.get("variant")
    if isinstance(other, Mapping):
        rows.append(("variant", about_variant(other)))
    return rows


def encoding_rule(config: Mapping[str, Any], merges: Any, vocab: Any, source: str) -> Any:
    """How a finished table encodes when a variant changed it (PickyBPE's removals, replayed
    in order with the merges), or None: plain merges by rank. Each built-in says, from the
    table's config (``encoding_rule``)."""
    for cls in BUILT_IN:
        rule = cls.encoding_rule(config, merges, vocab, source)
        if rule is not None:
            return rule
    record = config.get("variant")
    if isinstance(record, Mapping) and not record.get("replayable", True):  # a variant of elsewhere with a rule of its own
        try:
            own = load_variant(str(record.get("class")))
        except VariantError as exc:
            raise BPEError(f"{source}: {about_variant(record)}, and it cannot be loaded here: {exc}") from None
        return own.encoding_rule(config, merges, vocab, source)
    return None


def variant_record(variant: Variant) -> dict[str, Any] | None:
    """What a table records of a variant from outside the package (None for a built-in,
    whose options are the config's): its name, its class as ``module:Class``, the options it
    was made with, and whether a table it made encodes without the module (``replayable``:
    it declares no ``encoding_rule`` of its own, so plain merges by rank give its tokens)."""
    from .verify import is_built_in, variant_label

    if is_built_in(variant):
        return None
    cls = type(variant)
    replayable = getattr(cls.encoding_rule, "__func__", None) is getattr(Variant.encoding_rule, "__func__", None)
    options = dict(variant.made_with[1]) if variant.made_with is not None else {}
    return {"name": variant.name or cls.__name__, "class": variant_label(variant), "options": options, "replayable": replayable}


def about_variant(record: Mapping[str, Any]) -> str:
    """A table's record of the variant that made it (:func:`variant_record`), in one line."""
    options = record.get("options") or {}
    given = f" with {', '.join(f'{k}={v}' for k, v in options.items())}" if isinstance(options, Mapping) and options else ""
    replay = ("any machine encodes it without the module (plain merges by rank)" if record.get("replayable", True)
              else f"encoding it needs the module {str(record.get('class', '')).partition(':')[0]} (its own encoding rule)")
    return f"made by the variant {record.get('name')} ({record.get('class')}){given}; {replay}"


def variant_of_table(config: Mapping[str, Any]) -> str | None:
    """The name of the variant that made a table, from its config (None: plain BPE)."""
    about = config.get("variant")
    if isinstance(about, Mapping) and about.get("name"):
        return str(about["name"])
    for cls in BUILT_IN:
        if cls.about_table(config):
            return cls.name
    return None


# ---------------------------------------------------------------------- bring your own


def installed_variants() -> dict[str, Any]:
    """name -> entry point, for every variant an installed package offers (group
    :data:`ENTRY_POINTS`)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINTS)}


def load_variant(spec: str) -> type[Variant]:
    """The variant class ``spec`` names: ``module:Class`` (the module importable from the
    current directory or the Python path), an installed entry point's name, or a built-in's
    name. A spec that cannot be loaded is a VariantError of one line."""
    spec = spec.strip()
    if ":" not in spec:
        cls = built_in(spec)
        if cls is PlainBPE:
            return cls
        if cls is not None:
            flags = ", ".join(o.flag for o in cls.options if o.flag) or "no options"
            raise VariantError(f"--variant {spec}: {spec} is built in: ask for it with its own options ({flags})")
        found = installed_variants().get(spec)
        if found is None:
            known = ", ".join([PlainBPE.name] + [c.name for c in BUILT_IN] + sorted(installed_variants()))
            raise VariantError(f"--variant {spec}: no such variant (give module:Class, or one of: {known})")
        try:
            loaded = found.load()
        except Exception as exc:
            raise VariantError(f"--variant {spec}: its entry point {found.value} failed to load: {one_line(exc)}") from None
        return _checked_class(loaded, spec)
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise VariantError(f"--variant {spec}: expected module:Class, as in --variant my_module:MyVariant")
    import os
    import sys

    if os.getcwd() not in sys.path and "" not in sys.path:  # (a module beside the user, as python -m finds it)
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise VariantError(f"--variant {spec}: cannot import {module_name}: {one_line(exc)}") from None
    target: Any = module
    for part in class_name.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise VariantError(f"--variant {spec}: module {module_name} has no {class_name}")
    return _checked_class(target, spec)


def _checked_class(target: Any, spec: str) -> type[Variant]:
    if not (isinstance(target, type) and issubclass(target, Variant)):
        raise VariantError(f"--variant {spec}: {target!r} is not a Variant class (subclass bpe_tui.Variant or PlainBPE)")
    return target


def make_variant(cls: type[Variant], given: Mapping[str, str], named: str | None = None) -> Variant:
    """An instance of ``cls`` with the ``key=value`` options ``given`` (text), each parsed and
    checked against its declared options; errors, the constructor's too, are one line."""
    owner = named or f"{cls.__module__}:{cls.__qualname__}"
    values = parse_options(cls.options, given, owner)
    try:
        made = cls(**values)
    except BPEError:
        raise
    except Exception as exc:
        raise VariantError(f"variant {owner}: making it raised {one_line(exc)}") from None
    made.made_with = (cls, values)
    return made


def option_pairs(texts: Iterable[str]) -> dict[str, str]:
    """``--variant-option key=value`` texts as a dict (a key given twice: one line)."""
    out: dict[str, str] = {}
    for text in texts:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise VariantError(f"--variant-option {text!r}: expected key=value, as in --variant-option max_length=8")
        if key.strip() in out:
            raise VariantError(f"--variant-option {key.strip()} is given twice")
        out[key.strip()] = value
    return out

"""A variant's options, declared once: name, type, default, check, command-line flag, help, and
the label the explorer's rules dialog shows.

A variant lists its options as a tuple of :class:`Option` on its class
(``Variant.options``). Everything that offers them reads that tuple and nothing else:

* ``bpe-tui train`` and the explorer's command line: a built-in's options are flags of their
  own (``--picky TAU``); any variant's are ``--variant-option key=value``, parsed by
  :meth:`Option.parse` and checked by :meth:`Option.problem`;
* the rules dialog shows each option that has a ``label`` as a row;
* ``plain_counterpart`` clears each (a built-in's options are fields of
  :class:`~bpe_tui.core.engine.config.TrainerConfig`, named by ``field``, so that every saved
  table keeps them; their values are checked there, and messages name them as the user gave
  them: a flag on the command line, a field in Python).

This module imports nothing of the engine, so that anything may read a declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import BPEError

__all__ = ["Option", "parse_options", "to_bool"]


def to_bool(text: str) -> bool:
    """``true``/``false`` (also yes/no, on/off, 1/0) as a bool."""
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise ValueError(f"{text!r} is not true or false")


@dataclass(frozen=True)
class Option:
    """One option of a variant.

    key:     its name: the class's keyword argument, ``--variant-option key=value``'s key, and
             (for a built-in) the TrainerConfig field it fills
    type:    the value's type: int, float, str or bool (text is parsed to it)
    default: its value when not given (None: off)
    help:    one line for ``--help`` and the docs
    flag:    its own command-line flag (``--picky``), or None (then only ``--variant-option``)
    label:   its row's label in the explorer's rules dialog, or None (no row)
    choices: the values it may take (empty: any of its type)
    check:   ``check(value)``: what is wrong with a value, in a few words ("must be above 0"),
             or None where it is fine
    metavar: what ``--help`` shows for the value (TAU, N)
    note:    the dialog's text beside its box (a placeholder, a check box's words)
    choice_labels: how the dialog names each of ``choices`` (empty: as they are)
    offered: the dialog shows it even when its variant is not in use (to switch it on)
    recounts: changing it cuts the corpus into other words: the corpus is counted again
    """

    key: str
    type: type = str
    default: Any = None
    help: str = ""
    flag: str | None = None
    label: str | None = None
    choices: tuple = ()
    check: Callable[[Any], str | None] | None = None
    metavar: str | None = None
    note: str = ""
    choice_labels: tuple[str, ...] = ()
    offered: bool = False
    recounts: bool = False

    def parse(self, text: str, named: str | None = None) -> Any:
        """``text`` (from a command line or a dialog's field) as this option's value, checked;
        a BPEError of one line naming the option as ``named`` (its key by default)."""
        name = named or self.key
        try:
            value = to_bool(text) if self.type is bool else self.type(text)
        except ValueError:
            kind = {int: "a whole number", float: "a number", bool: "true or false"}.get(self.type, "text")
            raise BPEError(f"{name} must be {kind}, not {text!r}") from None
        problem = self.problem(value)
        if problem is not None:
            raise BPEError(f"{name} {problem}")
        return value

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` (after ``must``, ``is``...), or None where it is fine."""
        if value is None:
            return None
        if self.choices and value not in self.choices:
            return f"must be one of {', '.join(map(str, self.choices))}, not {value!r}"
        if self.type in (int, float) and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return f"must be a number, not {value!r}"
        if self.type is int and not isinstance(value, int):
            return f"must be a whole number, not {value!r}"
        return self.check(value) if self.check is not None else None


def parse_options(options: Sequence[Option], given: Mapping[str, str], owner: str) -> dict[str, Any]:
    """``key=value`` texts (``--variant-option``) as keyword arguments for a variant whose
    options are ``options``: each parsed and checked; a key it does not declare is a BPEError
    of one line naming the keys it has (``owner``: the variant, as the user named it)."""
    declared = {o.key: o for o in options}
    out: dict[str, Any] = {}
    for key, text in given.items():
        option = declared.get(key)
        if option is None:
            known = ", ".join(declared) or "none"
            raise BPEError(f"--variant-option {key}: {owner} has no option {key!r} (its options: {known})")
        out[key] = option.parse(text, f"--variant-option {key}")
    return out

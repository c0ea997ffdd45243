"""Merge-table file formats: one module per format, each with ``read`` and (most) ``write``.

``load(path)`` detects the format from the content (not only the file name) and returns a
:class:`~bpe_tui.core.tables.table.MergeTable` whose ``source_format`` names what it found.
``save(table, path, format)`` writes atomically: it is the one way in for writing
(``MergeTable.save`` hands over to it).

A format module is a :class:`TableReader` (checked by mypy, and by a test):

* ``NAME``: the format name used by ``save(..., format=NAME)`` and ``--format`` (one of
  :data:`~bpe_tui.core.types.FormatName`, declared ``Final``);
* ``sniff(path) -> bool``: does this path hold this format? (cheap, content-based);
* ``read(path) -> MergeTable``.

A module that writes is a :class:`TableWriter` (most are readers too; ``transformers`` writes a
folder that the ``hf`` reader reads, by its tokenizer.json):

* ``NAME``;
* ``write(table, path, *, overwrite=True, **its own options)``;
* ``losses(table) -> list[str]``: what the file cannot hold of ``table`` (``convert`` prints it).

Format modules build tables; the table module never imports them. To add a format, write
its module, add its name to ``FormatName`` and list it in ``FORMATS`` (detection order
matters: the most specific sniffers first) and, if it writes, in ``WRITERS``.

A compressed table file (gzip, bzip2, xz, Zstandard: known by its first bytes) is detected and
read as the file inside (see ``_compressed``); its notes say it was.
"""

from __future__ import annotations

import os
import stat
from typing import Any, Protocol

from ...compression import file_compression
from ...errors import BPEError
from ...engine.superwords import is_superword_rule
from ...types import FormatName
from ..handoff import listed, tokenizers_problems
from ..table import MergeTable
from . import _compressed, boundless, clip, gpt2, hf, minbpe, native, picky, sentencepiece_bpe, subword_nmt, tiktoken_bpe, transformers


class TableReader(Protocol):
    """What every format module provides (a module satisfies it with top-level names)."""

    @property
    def NAME(self) -> FormatName: ...

    def sniff(self, path: str) -> bool:
        """Does ``path`` hold this format? Cheap and content-based."""
        ...

    def read(self, path: str) -> MergeTable:
        """The table in ``path``; BPEError naming what is wrong and where."""
        ...


class TableWriter(Protocol):
    """A format module that writes."""

    @property
    def NAME(self) -> FormatName: ...

    def write(self, table: MergeTable, path: str, *, overwrite: bool = True) -> None:
        """Write ``table`` to ``path`` atomically (the module may take options of its own)."""
        ...

    def losses(self, table: MergeTable) -> list[str]:
        """What this format cannot hold of ``table``, one sentence each (empty: nothing)."""
        ...


#: Every known format module, in detection order.
FORMATS: list[TableReader] = [native, picky, hf, gpt2, minbpe, boundless, sentencepiece_bpe, clip, tiktoken_bpe, subword_nmt]
#: The ones that write.
WRITERS: list[TableWriter] = [native, hf, gpt2, minbpe, tiktoken_bpe, subword_nmt, clip, transformers, picky, boundless]


def readers() -> dict[str, TableReader]:
    return {m.NAME: m for m in FORMATS}


def writers() -> dict[str, TableWriter]:
    return {m.NAME: m for m in WRITERS}


def check_readable(path: str) -> None:
    """A table path must be a regular file or a directory (gpt2, sentencepiece dirs): opening
    a FIFO would block forever, and a device may never end."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise BPEError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise BPEError(f"{path}: cannot read: {exc.strerror}") from None
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise BPEError(f"{path}: not a regular file (a merge table is a file or a directory)")


class SeveralTables(BPEError):
    """A folder that holds several merge tables and is none itself: which one is meant?"""


def _located(path: str, sniff: bool = True) -> tuple[str, TableReader | None]:
    """The file or folder a table is read from and the format module that reads it (None: no
    format does; not looked for in a file without ``sniff``). A folder no format reads as a whole (not a gpt2 or tokenizer.json folder)
    means the one table file it holds: ``tables/o200k/`` is ``tables/o200k/o200k_base.tiktoken``;
    a folder holding several tables is a one-line BPEError naming them. Each file is sniffed once."""
    check_readable(path)
    if not os.path.isdir(path):
        return path, _detected(path) if sniff else None
    found = _sniffed(path)
    if found is not None:
        return path, found
    names = sorted(n for n in os.listdir(path) if not n.startswith(".") and os.path.isfile(os.path.join(path, n)))
    tables = [(n, module) for n in names if (module := _detected(os.path.join(path, n))) is not None]
    if len(tables) == 1:
        name, module = tables[0]
        return os.path.join(path, name), module
    if tables:
        shown = ", ".join(n for n, _ in tables[:6]) + (f" and {len(tables) - 6} more" if len(tables) > 6 else "")
        raise SeveralTables(f"{path}: a folder of {len(tables)} merge tables; open one of them: {shown}")
    return path, None


def detect(path: str) -> TableReader:
    """The format module that can read ``path``; BPEError if none can. A compressed file is
    told by what it holds (only its head is decompressed for this)."""
    path, found = _located(os.fspath(path))
    if found is None:
        raise _not_a_table(path)
    return found


def table_not_corpus(path: str) -> TableReader | None:
    """The format of ``path`` where it is a merge table and no corpus could be meant: a folder a
    format reads as a whole (GPT-2's two files, a tokenizer.json folder), a folder that holds
    nothing but one table's file (``tables/llama3/``), or a file that reads as a table. A corpus
    folder that also holds a table saved beside its texts is a corpus; so is a text file a
    format's sniff takes for one of its own but that does not read as a table, and any plain
    text subword-nmt could read (two symbols a line: a corpus can look like that)."""
    check_readable(path)
    if os.path.isdir(path):
        found = _sniffed(path)
        if found is not None:
            return found
        names = [n for n in os.listdir(path) if not n.startswith(".") and os.path.isfile(os.path.join(path, n))]
        if len(names) != 1:
            return None
        path = os.path.join(path, names[0])
    found = _detected(path)
    if found is None or found.NAME == "subword-nmt":
        return None
    try:
        load(path, found.NAME)
    except BPEError:
        return None
    return found


def _not_a_table(path: str) -> BPEError:
    kind = file_compression(path)
    what = f"{kind}-compressed, and what it holds is not" if kind is not None else "not"
    return BPEError(f"{path}: {what} a merge table this tool can read (known formats: {', '.join(readers())})")


def _detected(path: str) -> TableReader | None:
    """The format module that reads ``path`` (a compressed file: by what its head holds), or None."""
    kind = file_compression(path)
    if kind is None:
        return _sniffed(path)
    with _compressed.decompressed(path, kind, _compressed.HEAD) as head:
        return _sniffed(head)


def _sniffed(path: str) -> TableReader | None:
    for module in FORMATS:
        try:
            if module.sniff(path):
                return module
        except OSError:
            continue
    return None


def load(path: str | os.PathLike[str], format: str | None = None) -> MergeTable:
    """Read a merge table, detecting its format unless ``format`` is given.

    Anything wrong with the file is a one-line BPEError naming it; a reader's own checks name
    the line or JSON path, and anything they did not foresee is still reported, not raised.

    Args:
        path: A table file, or a directory holding one (GPT-2's vocab.json + merges.txt, a
            transformers folder); compressed files are read too.
        format: The format's name (``FORMAT_NAMES``); None: found from the content.

    Returns:
        The table, with its ids as the file gives them.

    Raises:
        BPEError: The file is missing, unreadable, or not a table of any format bpe-tui reads.
    """
    path, found = _located(os.fspath(path), sniff=format is None)
    if format is not None and format not in readers():
        raise BPEError(f"unknown table format {format!r}; choose one of {', '.join(readers())}")
    module = readers()[format] if format is not None else found
    if module is None:
        raise _not_a_table(path)
    kind = file_compression(path)
    if kind is None:
        _compressed.check_size(path)
        return _read(module, path, path)
    with _compressed.decompressed(path, kind) as plain:
        table = _read(module, plain, path)
        table.source = path
        notes = table.config.setdefault("notes", [])
        if isinstance(notes, list):
            notes.insert(0, _compressed.size_note(path, kind, plain))
    return table


def _read(module: TableReader, path: str, shown: str) -> MergeTable:
    """``module.read(path)``, every failure one line naming ``shown`` (the file as given:
    ``path`` is a decompressed copy of it when the two differ)."""
    try:
        return module.read(path)
    except BPEError as exc:
        message = _compressed.shown(str(exc), path, shown)
        if shown in message or os.path.basename(shown) in message:
            raise (exc if message == str(exc) else BPEError(message)) from None
        raise BPEError(f"{shown}: {message}") from None
    except UnicodeDecodeError as exc:
        raise BPEError(f"{shown}: not valid UTF-8 at byte {exc.start}") from None
    except OSError as exc:
        raise BPEError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        # A well-formed file with a shape the reader did not check: still one line.
        raise BPEError(f"{shown}: not a valid {module.NAME} table ({type(exc).__name__}: {str(exc)[:80]})") from None


#: Formats that hold byte-level tables only, and chars-mode tables only.
BYTES_ONLY = ("gpt2", "tiktoken", "minbpe", "boundless")
CHARS_ONLY = ("subword-nmt",)
#: Formats that hold a superword (SuperBPE) table: the others do not store its pre-tokenizer
#: (a Split in "isolated" mode), and under any other its merges do not apply as trained.
SUPERWORD_FORMATS = ("native", "hf", "transformers")
#: Formats written as a directory of files rather than one file.
DIRECTORY_FORMATS = ("gpt2", "transformers")
#: Formats that hold a byte-level table with an end-of-word marker (CLIP's kind): the others
#: would write its merges as if there were no marker, and encode otherwise.
BYTES_EOW_FORMATS = ("native", "clip")
#: Formats that hold only a byte-level table with an end-of-word marker.
BYTES_EOW_ONLY = ("clip",)
#: Formats that hold a table of PickyBPE's setup (its removals, ▁ in front of every word):
#: the others would encode it otherwise.
PICKY_FORMATS = ("native", "picky")
#: Formats that hold a BoundlessBPE table (supermerges across pre-tokens, deletions replayed in
#: order): the others would encode it otherwise.
BOUNDLESS_FORMATS = ("native", "boundless")


def check_save(
    path: str | os.PathLike[str], format: FormatName, units: str | None = None, overwrite: bool = True,
    superwords: bool = False, end_of_word: bool = False, picky: bool = False, boundless: bool = False, pretokenizer: str | None = None,
    **options: Any,
) -> None:
    """Everything that would stop ``save`` that can be known before there is a table: the
    format and its options, the units it holds, whether it is a superword table or one of
    PickyBPE's setup (``picky``: removals, or ▁ in front of every word), its ``pretokenizer``
    (a pipeline of steps goes only where one is stored), and the target path. The CLI asks
    this before a long training run; ``save`` checks again when it writes."""
    from ...atomic import resolve_target

    path = os.fspath(path)
    module = writers().get(format)
    if module is None:
        raise BPEError(f"unknown output format {format!r}; choose one of {', '.join(writers())}")
    if options.get("legacy_merges") and format != "hf":
        raise BPEError(f"--legacy-merges applies to the hf format, not {format}")
    if units == "chars" and format in BYTES_ONLY:
        raise BPEError(f"the {format} format holds byte-level tables only, and this table is chars (use native or hf)")
    if units == "bytes" and format in CHARS_ONLY:
        raise BPEError(f"the {format} format holds chars-mode tables only, and this table is bytes (use native or hf)")
    if units == "bytes" and end_of_word and format not in BYTES_EOW_FORMATS:
        raise BPEError(
            f"the {format} format cannot hold a byte-level table with an end-of-word marker (CLIP's kind): "
            f"its merges would encode otherwise (use {' or '.join(BYTES_EOW_FORMATS)})"
        )
    if units is not None and format in BYTES_EOW_ONLY and (units != "bytes" or not end_of_word):
        raise BPEError(
            f"the {format} format holds byte-level tables with an end-of-word marker only (CLIP's kind), "
            f"and this table is {units}{'' if end_of_word else ', without one'} (use native or hf)"
        )
    if superwords and format not in SUPERWORD_FORMATS:
        raise BPEError(
            f"the {format} format cannot hold a superword (SuperBPE) table: it does not store the table's pre-tokenizer "
            "(SuperBPE's split), without which its merges do not apply as trained (use hf or native)"
        )
    if picky:
        _check_picky(format, "PickyBPE's setup (removals, ▁ in front of every word)")
    if pretokenizer is not None:
        _check_pipeline(format, pretokenizer)
    if boundless:
        _check_boundless(format)
    resolve_target(path, overwrite, kind="directory" if format in DIRECTORY_FORMATS else "file")


#: Formats that store no pre-tokenizer (gpt2: its readers assume GPT-2's regex) or none with the
#: file (a tiktoken rank file: the caller passes a regex): a table split by a pipeline of steps
#: (parity-aware BPE's Whitespace then a space before each piece) would be split otherwise
#: when read back. (minbpe stores one regex, and refuses a pipeline itself.)
NO_PIPELINE_FORMATS = ("gpt2", "tiktoken")


def _check_pipeline(format: FormatName, pretokenizer: str) -> None:
    from ...text.pretokenize import PIPELINE, short_name

    if format in NO_PIPELINE_FORMATS and pretokenizer.startswith(PIPELINE):
        name = short_name(pretokenizer)
        named = f"{name}, a pipeline of split steps" if name != pretokenizer else "a pipeline of split steps"
        raise BPEError(
            f"the {format} format cannot hold this table's pre-tokenizer ({named}), so the file would encode otherwise: save as native or hf"
        )


def _check_picky(format: FormatName, what: str) -> None:
    if format not in PICKY_FORMATS:
        raise BPEError(f"the {format} format cannot hold {what}, so the file would encode otherwise: save as {' or '.join(PICKY_FORMATS)} (picky: the authors' model, for their picky_tokenize.py)")


def _check_boundless(format: FormatName) -> None:
    if format not in BOUNDLESS_FORMATS:
        raise BPEError(
            f"the {format} format cannot hold BoundlessBPE's supermerges and deletions (they join pre-tokens and replay in order), "
            f"so the file would encode otherwise: save as {' or '.join(BOUNDLESS_FORMATS)} (boundless: the authors' word v1 .model)"
        )


def check_table(table: MergeTable, format: FormatName) -> None:
    """What would stop ``save`` that only the table itself tells (after :func:`check_save`):
    a transformers folder promises the table's own ids from ``AutoTokenizer``, so a table that
    a Hugging Face tokenizer encodes otherwise (sentencepiece's normalizer, an end-of-word
    symbol of its own, ...) is refused; the hf format writes such a table, with notes. A table
    of PickyBPE's setup goes only to the formats that replay its removals in order, a
    BoundlessBPE table only to those that hold its supermerges, and one split by a pipeline of
    steps only to those that store it."""
    _check_pipeline(format, table.pretokenizer)
    if table.is_boundless:
        _check_boundless(format)
    elif table.removals:
        _check_picky(format, "PickyBPE's removals (merges and removals replayed in order)")
    if table.word_start is not None:
        _check_picky(format, f"the {table.word_start} PickyBPE's setup puts in front of every word")
    if format == "transformers":
        problems = tokenizers_problems(table)
        if problems:
            raise BPEError(
                f"transformers would encode this table otherwise: {listed(problems)}; "
                "write a tokenizer.json with the hf format to have the file anyway"
            )


def save(table: MergeTable, path: str | os.PathLike[str], format: FormatName = "native", overwrite: bool = True, **options: Any) -> None:
    """Write ``table`` to ``path`` in ``format``, atomically.

    A symlink is written through; a target that is not a regular file (a FIFO, a device) is
    refused. Nothing is half-written: the file appears whole, or not at all.

    Args:
        table: The table to write.
        path: Where (a directory for the gpt2 and transformers formats).
        format: The format's name: native, hf, gpt2, tiktoken, minbpe, subword-nmt, clip,
            transformers, picky or boundless.
        overwrite: False refuses a target that exists at the moment of writing
            (:class:`~bpe_tui.core.errors.AlreadyExists`).
        **options: The writer's own (``legacy_merges=True`` for hf: merges as "a b" strings).

    Raises:
        BPEError: The format cannot hold this table (said in one line), or the target is refused.
    """
    path = os.fspath(path)
    check_save(path, format, table.units, overwrite, is_superword_rule(table.pretokenizer), table.end_of_word is not None, **options)
    check_table(table, format)
    writers()[format].write(table, path, overwrite=overwrite, **options)

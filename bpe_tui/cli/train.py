"""``bpe-tui train`` and ``bpe-tui count``: from a corpus to a saved merge table, or to word counts."""

from __future__ import annotations

import argparse
import sys

from ..core.engine.config import TrainerConfig
from ..core.errors import BPEError
from ..core.wording import plural
from .languages import languages_from_args, languages_requested
from .options import (
    add_training_options,
    config_from_args,
    dask_from_args,
    record_options,
    refuse_overwrite,
    report_skipped,
    save_options,
    start_from_args,
)
from .terminal import counting_label, progress_bar, say, show, stderr_progress, stop_if_interrupted
from .variants import own_variant, variant_requested


def check_target_before_counting(cfg: TrainerConfig, paths: list[str]) -> None:
    """A vocabulary size below a byte-level alphabet is exit 2 before a corpus is counted
    (a chars alphabet is known only after counting: the trainer checks it then)."""
    if cfg.units == "bytes":
        from ..core.engine.config import check_vocab_size
        from ..core.text.sources import corpus_where

        check_vocab_size(cfg.vocab_size, 256 + (cfg.end_of_word is not None), len(cfg.special_tokens), corpus_where(paths))


def cmd_train(args: argparse.Namespace) -> int:
    """``bpe-tui train``; every message names an option by the flag it has (``--max-token-length``, not ``max_token_length``)."""
    from ..core.engine.config import named_as
    from ..core.engine.registry import flag_of

    with named_as(flag_of):
        return _train(args)


def _train(args: argparse.Namespace) -> int:
    from ..core.engine.trainer import Trainer
    from ..core.text.datasets.records import ReadReport

    from ..core.engine.registry import config_notes, describe_run, save_needs

    start = None
    if args.from_table is not None:
        start, cfg = start_from_args(args)
    else:
        cfg = config_from_args(args)
    variant = own_variant(args)  # (--variant MODULE:CLASS: loaded now, its errors one line)
    languages = languages_from_args(args) if any(cls.takes_languages for cls in variant_requested(args)) else None
    if languages is None and not args.corpus:
        raise BPEError("give the corpus to train on (files, directories, globs or -), or --language LANG=FILE per language")
    from ..core.tables.formats import check_save, save

    # Everything that would stop the save is checked now, not after a long run.
    check_save(
        args.output, args.format, cfg.units, overwrite=args.force, end_of_word=cfg.end_of_word is not None,
        pretokenizer=cfg.pretokenizer, **save_needs(cfg), **save_options(args, args.format),
    )
    if start is None:
        check_target_before_counting(cfg, args.corpus or list(languages[0] if languages is not None else ()))
    dask = dask_from_args(args)
    records = record_options(args)
    report = ReadReport()
    reading = dict(text_field=records.text_field, skip_bad_records=records.skip_bad, report=report, variant=variant)
    with_bar = sys.stderr.isatty() and not args.quiet
    if languages is not None:
        if args.counts or dask:
            raise BPEError(f"{'--counts' if args.counts else '--dask'} does not go with --language: each language's text is read here")
        trainer = train_languages(args, cfg, languages, with_bar)
    elif with_bar:
        with stderr_progress() as bar:
            task = bar.add_task(counting_label(dask), total=None, unit="blocks" if dask else "bytes")
            options = dict(
                errors=args.errors, counts=args.counts, workers=args.workers, client=dask, **reading,
                progress=lambda done, total: bar.update(
                    task, completed=done, total=total or None, description=counting_label(dask, report.records)
                ),
            )
            if start is not None:
                trainer = Trainer.from_table(start, args.corpus, cfg, **options)
            else:
                trainer = Trainer.from_files(args.corpus, cfg, **options)
            if args.check_variant:
                trainer.check_variant()
            target = trainer.target_steps
            bar.update(task, description="merging", completed=trainer.first_step, total=target, unit="merges")
            for event in trainer.run():
                if event.step % 50 == 0:
                    bar.update(task, completed=event.step)
                    stop_if_interrupted()
    else:
        options = dict(errors=args.errors, counts=args.counts, workers=args.workers, client=dask, **reading)
        if start is not None:
            trainer = Trainer.from_table(start, args.corpus, cfg, **options)
        else:
            trainer = Trainer.from_files(args.corpus, cfg, **options)
        if args.check_variant:
            trainer.check_variant()
        for event in trainer.run():
            if event.step % 50 == 0:
                stop_if_interrupted()
    stop_if_interrupted()
    report_skipped(report)
    for note in config_notes(cfg):  # (a preset whose variant the options did not turn on)
        say(f"note: {note}")
    table = trainer.table
    save(table, args.output, format=args.format, overwrite=args.force, **save_options(args, args.format))
    if not args.quiet:
        ratio = trainer.corpus_chars / max(1, trainer.total_tokens)
        units = f"{trainer.word_count:,} distinct words"
        transition = trainer.transition
        if transition is not None:  # SuperBPE: the corpus is chunks now
            before = f"{transition.words:,} distinct words, then " if transition.words else ""
            units = f"{before}{transition.chunks:,} chunks (SuperBPE, from merge {transition.step + 1:,})"
        documents = f" in {plural(report.records, 'record')}" if report.records else ""
        show(f"{trainer.name}: {units}, {trainer.corpus_chars:,} characters{documents}")
        if start is not None:
            show(f"from {args.from_table}: {start.num_merges:,} merges, {len(start):,} tokens kept; " + "; ".join(trainer.table_rules))
            new = trainer.steps_done - trainer.first_step
            print(plural(new, "new merge") + (f" (merges {trainer.first_step + 1:,}-{trainer.steps_done:,})" if new else ""))
        dropped = len(trainer.dropped_merges)
        kept = f" ({dropped:,} dropped at the transition: their pairs never occur in the chunks)" if dropped else ""
        print(f"{trainer.steps_done:,} merges{kept}, vocabulary {trainer.vocab_size:,} ({describe_run(trainer)})")
        for line in trainer.variant.summary(trainer):  # what the variant did, in its words
            print(line)
        print(f"tokens {trainer.initial_total_tokens:,} -> {trainer.total_tokens:,} ({ratio:.2f} characters per token)")
        if trainer.stop_reason and "reached" not in trainer.stop_reason:
            print(f"stopped early: {trainer.stop_reason}")
        show(f"wrote {args.output} ({args.format})")
    return 0


def train_languages(args: argparse.Namespace, cfg: TrainerConfig, languages, with_bar: bool):
    """Parity-aware BPE: a trainer over one corpus per language, trained to its target, with
    a progress bar on a terminal."""
    from ..core.engine.trainer import Trainer

    corpora, dev, ratio = languages
    reading = dict(errors=args.errors, workers=args.workers, text_field=args.text_field, skip_bad_records=args.skip_bad_records)
    if not with_bar:
        trainer = Trainer.from_languages(corpora, dev=dev, ratio=ratio, config=cfg, **reading)
        trainer.check_variant(args.check_variant)
        for event in trainer.run():
            if event.step % 50 == 0:
                stop_if_interrupted()
        return trainer
    with stderr_progress() as bar:
        task = bar.add_task(f"counting {len(corpora)} languages", total=None, unit="bytes")
        trainer = Trainer.from_languages(corpora, dev=dev, ratio=ratio, config=cfg, **reading)
        trainer.check_variant(args.check_variant)
        bar.update(task, description="merging", completed=0, total=trainer.target_steps, unit="merges")
        for event in trainer.run():
            if event.step % 50 == 0:
                bar.update(task, completed=event.step)
                stop_if_interrupted()
    return trainer


def cmd_count(args: argparse.Namespace) -> int:
    from ..core.text.count_files import read_count_files, write_count_file
    from ..core.text.distributed import count_words

    from ..core.text.datasets.records import ReadReport

    if languages_requested(args) or variant_requested(args) or args.variant:
        raise BPEError("count counts one corpus: --language and the variants' options belong to train and the explorer")
    refuse_overwrite(args.output, args.force)
    cfg = config_from_args(args, default_vocab=None)
    dask = dask_from_args(args)
    records = record_options(args)
    report = ReadReport()
    if args.counts:
        counts = read_count_files(args.corpus)
    else:
        with progress_bar(counting_label(dask), quiet=False, unit="blocks" if dask else "bytes") as progress:
            counts = count_words(
                args.corpus, cfg, client=dask, errors=args.errors, workers=args.workers, progress=progress,
                text_field=records.text_field, skip_bad_records=records.skip_bad, report=report,
            )
    stop_if_interrupted()
    report_skipped(report)
    write_count_file(counts, args.output, overwrite=args.force)
    documents = f" from {plural(report.records, 'record')}" if report.records else ""
    show(f"wrote {args.output}: {len(counts):,} distinct words, {sum(counts.values()):,} in all{documents}")
    return 0


def add_train_parser(sub) -> None:
    """``bpe-tui train``: its options."""
    from ..core.tables.formats import writers

    t = sub.add_parser("train", help="train a merge table and save it")
    t.add_argument(
        "corpus", nargs="*",
        help="text files (.gz .bz2 .xz .zst too), JSON lines, Parquet, directories, globs, or - for stdin (or --language LANG=FILE per language)",
    )
    t.add_argument("-o", "--output", required=True, help="where to write the table")
    t.add_argument("--format", default="native", choices=sorted(writers()), help="output format (default native)")
    t.add_argument("--force", action="store_true", help="overwrite OUTPUT if it exists")
    t.add_argument("--legacy-merges", action="store_true", help='hf format: write merges as "a b" strings (tokenizers < 0.20)')
    t.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    add_training_options(t)
    t.set_defaults(run=cmd_train)


def add_count_parser(sub) -> None:
    """``bpe-tui count``: its options."""
    n = sub.add_parser("count", help="count a corpus's words into a word<TAB>count file")
    n.add_argument("corpus", nargs="+")
    n.add_argument("-o", "--output", required=True)
    n.add_argument("--force", action="store_true")
    add_training_options(n)
    n.set_defaults(run=cmd_count)

"""MkDocs hook: the pages and pictures of the site that are generated, never written twice.

* ``reference/cli.md``: every command's ``--help``, from the argument parser itself;
* ``reference/keys.md``: every key of the explorer, from ``bpe_tui.ui.keys.COMMANDS`` (the
  table the bindings, the footer, the help screen and the command palette are built from);
* ``changelog.md``: CHANGELOG.md as it stands;
* ``pictures/*.svg``: the snapshot tests' screens (tests/ui/__snapshots__), so a picture of a
  screen is the screen the tests hold, never an old one. A page shows one as
  ``![...](pictures/main_screen-120x40.svg)``: the test's name without ``test_``, its size
  after a dash.

The same functions give README.md's key table (tests/docs/test_site.py holds it to them).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SNAPSHOTS = REPO / "tests" / "ui" / "__snapshots__"


def picture_name(snapshot: Path) -> str:
    """``test_main_screen[120x40].svg`` -> ``main_screen-120x40.svg``."""
    stem = snapshot.stem.removeprefix("test_")
    stem = re.sub(r"\[(.+)\]$", r"-\1", stem)
    stem = re.sub(r"_(\d+x\d+)$", r"-\1", stem)
    return f"{stem}.svg"


def pictures() -> dict[str, Path]:
    """Every snapshot, by the name a page uses."""
    return {picture_name(p): p for p in sorted(SNAPSHOTS.glob("*/*.svg"))}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _key(keys: str) -> str:
    return " / ".join(f"`{k}`" if k != "|" else "`\\|`" for k in keys.split(" / "))


def keys_table(kind: str, tour: bool = False) -> str:
    """The keys of one screen kind as a Markdown table (what its help screen lists)."""
    from bpe_tui.ui.keys import help_rows

    rows = ["| key | what it does |", "|---|---|"]
    rows += [f"| {_key(keys)} | {_cell(what)} |" for keys, what in help_rows(kind, tour)]
    return "\n".join(rows)


def view_keys_table() -> str:
    """The keys of the full-screen views (compare, audit, evaluate)."""
    from bpe_tui.ui.keys import VIEWS, help_rows

    rows = ["| view | key | what it does |", "|---|---|---|"]
    rows += [f"| {view} | {_key(keys)} | {_cell(what)} |" for view in VIEWS for keys, what in help_rows(view)]
    return "\n".join(rows)


def panes_table() -> str:
    from bpe_tui.ui.keys import PANES

    rows = ["| pane | what it shows |", "|---|---|"]
    rows += [f"| {name} | {_cell(what)} |" for name, what in PANES]
    return "\n".join(rows)


def keys_page() -> str:
    from bpe_tui.ui.keys import EXPLORE, INSPECT

    return "\n\n".join([
        "# Keys",
        "Every key of the explorer, generated from `bpe_tui.ui.keys.COMMANDS`: the same table builds "
        "the bindings, the footer, the help screen (`?`) and the command palette (`ctrl+p`), so this "
        "page cannot disagree with them. See [the explorer](../explorer.md) for what each screen shows.",
        "## The explore screen (a corpus being trained on)", keys_table(EXPLORE),
        "## The inspect screen (a saved table)", keys_table(INSPECT),
        "## The guided tour (while it is open)",
        "The tour's own keys come first while its panel is open; see [the guided tour](../learn/tour.md).",
        keys_table(EXPLORE, tour=True),
        "## The full-screen views", view_keys_table(),
        "## The panes", panes_table(),
    ]) + "\n"


def _subparsers():
    from bpe_tui.cli.main import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return parser, action.choices


def cli_page() -> str:
    """Every command's --help, as argparse prints it at 80 columns (a code block that fits the page)."""
    from bpe_tui.cli.explorer import build_explorer_parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        parser, commands = _subparsers()
        parts = [
            "# Commands",
            "Every command's `--help`, generated from the argument parser when the site is built. "
            "[The command line](../cli.md) shows them at work.",
            "## bpe-tui", "```text\n" + parser.format_help().rstrip() + "\n```",
            "## bpe-tui [CORPUS...] (the explorer)", "```text\n" + build_explorer_parser().format_help().rstrip() + "\n```",
        ]
        for name, sub in commands.items():
            parts += [f"## bpe-tui {name}", "```text\n" + sub.format_help().rstrip() + "\n```"]
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    return "\n\n".join(parts) + "\n"


def _option_rows(parser, actions) -> list[str]:
    """Markdown rows ``| option | what it does |`` for argparse actions, as --help has them:
    each spelling of the option with its metavar, the help text, and the choices spelled out."""
    formatter = parser._get_formatter()
    rows = []
    for action in actions:
        if not action.option_strings or action.help == "==SUPPRESS==" or "-h" in action.option_strings:
            continue
        takes = action.nargs != 0
        metavar = action.metavar or action.dest.upper().replace("_", "-")
        names = ", ".join(f"`{name} {metavar}`" if takes else f"`{name}`" for name in action.option_strings)
        what = _cell(formatter._expand_help(action) if action.help else "").replace("<", "&lt;")
        if action.choices:
            what += ("; " if what else "") + f"{metavar} is one of " + ", ".join(f"`{choice}`" for choice in action.choices)
        rows.append(f"| {names} | {what} |")
    return rows


def training_options() -> str:
    """The options of ``bpe-tui train`` (the explorer takes the training ones too), group by
    group as its --help lists them, as Markdown tables: every preset, tie-break, variant
    option and format the parser offers, so cli.md cannot fall behind it."""
    _, commands = _subparsers()
    train = commands["train"]
    parts = []
    own = [g for g in train._action_groups if g.title == "options"]  # -o, --format ...: train's own
    for group in [g for g in train._action_groups if g not in own] + own:
        rows = _option_rows(train, group._group_actions)
        if rows:
            title = "train only: the output" if group in own else group.title
            parts.append(f"**{title[0].upper()}{title[1:]}**\n\n| option | what it does |\n|---|---|\n" + "\n".join(rows))
    return "\n\n".join(parts)


def presets_table() -> str:
    """Every preset and the rules it sets, from ``PRESETS`` itself (rules.md)."""
    from bpe_tui.core.engine.config import PRESETS

    main = ("units", "pretokenizer", "end_of_word", "tie_break", "min_frequency")
    rows = [
        "| preset | units | [pre-tokenizer](glossary.md#pre-token) | end of word | [tie-break](glossary.md#tie-break) "
        "| min frequency | also |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, rules in PRESETS.items():
        also = ", ".join(f"`{key}={value!r}`" for key, value in rules.items() if key not in main)
        eow = f"`{rules['end_of_word']}`" if rules["end_of_word"] else "none"
        shown = f"`{name}` (default)" if name == "gpt2" else f"`{name}`"
        cells = [shown, rules["units"], f"`{rules['pretokenizer']}`", eow, rules["tie_break"], str(rules["min_frequency"]), also]
        rows.append("| " + " | ".join(_cell(c).replace("<", "&lt;") if not c.startswith("`") else _cell(c) for c in cells) + " |")
    return "\n".join(rows)


def summary_line(docstring: str | None) -> str:
    """A module's docstring as the map shows it: its first sentence (Sphinx roles as names)."""
    if not docstring:
        return ""
    paragraph = " ".join(line.strip() for line in docstring.strip().split("\n\n")[0].splitlines())
    match = re.match(r"(.+?\.)(\s|$)", paragraph)
    sentence = match.group(1) if match else paragraph
    sentence = re.sub(r":(?:py:)?\w+:`~?([^`]+)`", lambda m: f"``{m.group(1).rsplit('.', 1)[-1]}``", sentence)
    return _cell(sentence.replace("``", "`"))


def package_map() -> str:
    """Every package of bpe_tui and every module in it, with the first sentence of its
    docstring, from the files themselves (architecture.md): a module added, moved or removed
    shows here at the next build."""
    import ast

    root = REPO / "bpe_tui"
    out = []
    for init in sorted(root.rglob("__init__.py"), key=lambda p: p.parent.relative_to(REPO).parts):
        folder = init.parent
        modules = sorted(p for p in folder.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
        extra = sorted(p.name for p in folder.glob("*.tcss"))
        rows = [f"| `{m.stem}` | {summary_line(ast.get_docstring(ast.parse(m.read_text(encoding='utf-8'))))} |" for m in modules]
        if extra:
            rows.append(f"| {', '.join(f'`{name}`' for name in extra)} | the styles of the modules of the same name |")
        package = summary_line(ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))).replace('"', "'")
        name = folder.relative_to(REPO).as_posix() + "/"
        body = "\n".join(["| module | what it is |", "|---|---|", *rows]) if rows else "Its `__init__.py` only: the names `import bpe_tui` gives."
        out.append(f'??? note "`{name}` {package}"\n\n' + "\n".join("    " + line for line in body.splitlines()))
    return "\n\n".join(out)


def changelog_page() -> str:
    return (REPO / "CHANGELOG.md").read_text(encoding="utf-8")


def notebook_pictures() -> str:
    """What a notebook draws for a trainer, a merge, a table and ``show``, as the HTML the
    objects give Jupyter (``_repr_html_``), made now on the demo corpus."""
    import bpe_tui

    trainer = bpe_tui.Trainer.from_files([bpe_tui.demo_corpus_path()], bpe_tui.TrainerConfig(vocab_size=400))
    for _ in range(11):
        trainer.step()
    shown = [("trainer", trainer._repr_html_())]
    shown.append(("trainer.step()", trainer.step()._repr_html_()))
    shown.append(("trainer.table", trainer.table._repr_html_()))
    shown.append(('bpe_tui.show(trainer.table, "The baker\'s lowest price")', bpe_tui.show(trainer.table, "The baker's lowest price")._repr_html_()))
    return "\n\n".join(f"`{code}`\n\n<div class=\"notebook-output\" markdown=\"0\">{html}</div>" for code, html in shown)


def tour_keys() -> str:
    """The guided tour's own keys (on only while it is open), from the registry."""
    from bpe_tui.ui.keys import COMMANDS, TOUR

    rows = ["| key | what it does |", "|---|---|"]
    seen: dict[str, list[str]] = {}
    for c in COMMANDS:
        if c.where == TOUR:
            seen.setdefault(c.description, []).append(c.shown_keys)
    rows += [f"| {' '.join(f'`{k}`' for k in keys)} | {_cell(what.removeprefix('tour: '))} |" for what, keys in seen.items()]
    return "\n".join(rows)


def eval_legend() -> str:
    """What every column and side-by-side row of ``bpe-tui eval`` is: the definitions
    ``eval --explain`` prints (``bpe_tui.core.analysis.reports``), as Markdown tables."""
    from bpe_tui.core.analysis.reports import legend_markdown

    return legend_markdown()


def eval_side_rows() -> str:
    """The side-by-side rows of the legend only."""
    from bpe_tui.core.analysis.reports import legend_markdown

    return legend_markdown(kinds=("row",))


#: A page's ``<!-- generated: NAME -->`` line becomes what NAME makes.
IN_PAGE = {
    "notebook": notebook_pictures,
    "tour_keys": tour_keys,
    "eval_legend": eval_legend,
    "eval_side_rows": eval_side_rows,
    "training_options": training_options,
    "presets": presets_table,
    "package_map": package_map,
}


def on_page_markdown(markdown, page, config, files):
    return re.sub(r"<!-- generated: (\w+) -->", lambda m: IN_PAGE[m.group(1)](), markdown)


GENERATED = {"reference/cli.md": cli_page, "reference/keys.md": keys_page, "changelog.md": changelog_page}


def plot_pictures(folder: Path) -> dict[str, Path]:
    """The charts ``--plot`` draws, made now by the real commands on a table trained on the demo
    corpus: ``eval-plot.svg`` (bytes per token of the 12 parallel languages) and
    ``audit-plot.svg`` (tokens per audit category, on the demo corpus)."""
    import contextlib
    import io

    import bpe_tui
    from bpe_tui.cli.main import main

    table = folder / "demo-500.json"
    bpe_tui.save(bpe_tui.train(str(REPO / "corpora" / "demo.txt"), merges=500), str(table))
    parallel = sorted((REPO / "corpora" / "parallel").glob("*.txt"))
    demo = str(REPO / "corpora" / "demo.txt")
    made = {"eval-plot.svg": ["eval", str(table), "--corpus", *map(str, parallel)], "audit-plot.svg": ["audit", str(table), "--corpus", demo]}
    for name, argv in made.items():
        with contextlib.redirect_stdout(io.StringIO()):
            assert main([*argv, "--plot", str(folder / name), "-q"]) == 0
    return {name: folder / name for name in made}


def on_files(files, config):
    import tempfile

    from mkdocs.structure.files import File

    for uri, make in GENERATED.items():
        files.append(File.generated(config, uri, content=make()))
    for name, path in pictures().items():
        files.append(File.generated(config, f"pictures/{name}", abs_src_path=str(path)))
    folder = Path(tempfile.mkdtemp(prefix="bpe-tui-docs-"))
    for name, path in plot_pictures(folder).items():
        files.append(File.generated(config, f"pictures/{name}", content=path.read_bytes()))
    return files


#: README.md's generated key table sits between these lines.
README_KEYS = re.compile(r"(<!-- keys: explore [^\n]*-->\n)(.*?)(\n<!-- /keys -->)", re.S)


def readme_with_keys(readme: str) -> str:
    """README.md's text with its key table made again from the registry."""
    from bpe_tui.ui.keys import EXPLORE

    return README_KEYS.sub(lambda m: m.group(1) + keys_table(EXPLORE) + m.group(3), readme, count=1)


if __name__ == "__main__":  # python docs/hooks/generate.py: write README.md's key table again
    readme = REPO / "README.md"
    readme.write_text(readme_with_keys(readme.read_text(encoding="utf-8")), encoding="utf-8")

"""The tables side by side (core/analysis/side_by_side.py): every measure held to its
definition computed here by brute force, on small tables of each variant trained in the test
and the shipped parallel texts."""

from __future__ import annotations

import unicodedata
from collections import Counter
from itertools import combinations

import pytest

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.analysis.audit import intermediate_tokens
from bpe_tui.core.analysis.evaluate import Corpus, evaluate
from bpe_tui.core.analysis.reports import format_side_by_side, format_side_by_side_markdown
from bpe_tui.core.analysis.side_by_side import gini, parity, rows, side_by_side, size_note
from bpe_tui.core.tables.table import MergeTable
from tests.conftest import CORPORA

PARALLEL = CORPORA / "parallel"
LANGS = ("en", "de", "ru")


def trained(config: TrainerConfig, *paths) -> MergeTable:
    trainer = Trainer.from_files([str(p) for p in paths], config)
    for _ in trainer.run():
        pass
    return trainer.table


@pytest.fixture(scope="module")
def tables() -> dict[str, MergeTable]:
    files = [PARALLEL / f"{lang}.txt" for lang in LANGS]
    demo = CORPORA / "demo.txt"
    return {
        "plain": trained(TrainerConfig(preset="gpt2", vocab_size=700), demo, *files),
        "picky": trained(TrainerConfig(preset="gpt2", picky=0.6, vocab_size=700), demo, *files),
        "superbpe": trained(TrainerConfig(preset="gpt2", superwords_after=250, vocab_size=700), demo, *files),
    }


@pytest.fixture(scope="module")
def corpora() -> list[Corpus]:
    return [Corpus(lang, (str(PARALLEL / f"{lang}.txt"),)) for lang in LANGS]


def texts() -> list[str]:
    return [(PARALLEL / f"{lang}.txt").read_text(encoding="utf-8") for lang in LANGS]


# ---------------------------------------------------------------------- brute force


def brute_gini(xs) -> float:
    n, mean = len(xs), sum(xs) / len(xs)
    return sum(abs(a - b) for a in xs for b in xs) / (2 * n * n * mean)


def brute_inside(table: MergeTable, emitted: Counter) -> Counter:
    """Walk the merge tree of every emitted token occurrence, counting each token inside."""
    made: dict[int, tuple[int, int]] = {}
    for a, b, new in table.merge_ids:
        made.setdefault(new, (a, b))
    inside: Counter = Counter()

    def walk(token: int, times: int) -> None:
        if token in made:
            for part in made[token]:
                inside[part] += times
                walk(part, times)

    for token, n in emitted.items():
        walk(token, n)
    return inside


def brute_intermediate(table: MergeTable, emitted: Counter) -> set[int]:
    """Merge-made tokens of the vocabulary alone in under 10% of their occurrences."""
    inside = brute_inside(table, emitted)
    made = {new for _, _, new in table.merge_ids}
    return {t for t in table.vocab if t in made and inside[t] and emitted[t] / (emitted[t] + inside[t]) < 0.1}


def word_char(c: str) -> bool:
    return unicodedata.category(c)[0] in "LNM"


def brute_superword(text: str) -> bool:
    """Whitespace after a word's letter or digit (nothing but non-space between), or a
    whitespace run with a character before it and a letter or digit after it."""
    for i, c in enumerate(text):
        if not c.isspace():
            continue
        j = i - 1
        while j >= 0 and not text[j].isspace():
            if word_char(text[j]):
                return True
            j -= 1
        k = i
        while k < len(text) and text[k].isspace():
            k += 1
        if i > 0 and not text[i - 1].isspace() and k < len(text) and word_char(text[k]):
            return True
    return False


def token_text(table: MergeTable, i: int) -> str | None:
    surface = table.vocab[i]
    try:
        return surface.decode("utf-8") if isinstance(surface, bytes) else surface
    except UnicodeDecodeError:
        return None


# ---------------------------------------------------------------------- the measures


def test_gini_and_parity_against_their_definitions():
    for xs in ([5, 5, 5], [1, 2, 3, 10], [881, 880, 882], [3809, 1647, 1864, 2]):
        assert gini(xs) == pytest.approx(brute_gini(xs))
        p = parity(xs)
        premiums = [x / xs[0] for x in xs]
        assert p is not None and p.worst_best == pytest.approx(max(xs) / min(xs))
        assert p.premium_spread == pytest.approx(max(premiums) - min(premiums)) and p.gini == pytest.approx(brute_gini(xs))
    assert gini([7, 7]) == 0.0 and gini([]) == 0.0 and gini([0, 0]) == 0.0
    assert gini([0, 0, 0, 9]) == pytest.approx(0.75)  # one of four pays for all: (n - 1) / n
    assert parity([10]) is None and parity([10, 0]) is None


@pytest.mark.parametrize("name", ["plain", "picky", "superbpe"])
def test_every_measure_against_brute_force(tables, corpora, name):
    table = tables[name]
    result = evaluate([table], corpora, [name], workers=1)
    [s] = side_by_side([table], result)
    encoded = [table.encode(text) for text in texts()]
    tokens = [len(ids) for ids in encoded]
    emitted = Counter(i for ids in encoded for i in ids)
    size = len(table.vocab)

    assert s.vocab_size == size and s.corpora == LANGS
    assert s.bytes_per_token == pytest.approx([len(t.encode("utf-8")) / n for t, n in zip(texts(), tokens)])
    assert s.overall_bytes_per_token == pytest.approx(sum(len(t.encode("utf-8")) for t in texts()) / sum(tokens))
    assert s.parity is not None and s.parity.worst_best == pytest.approx(max(tokens) / min(tokens))
    assert s.parity.premium_spread == pytest.approx((max(tokens) - min(tokens)) / tokens[0])
    assert s.parity.gini == pytest.approx(brute_gini(tokens))

    intermediate = brute_intermediate(table, emitted)
    unused = {i for i in table.vocab if not table.is_special(i) and not emitted[i]}
    superwords = {i for i in table.vocab if not table.is_special(i) and (text := token_text(table, i)) and brute_superword(text)}
    assert (s.scaffold, s.unused, s.superwords) == (len(intermediate), len(unused), len(superwords))
    assert s.scaffold_share == pytest.approx(len(intermediate) / size)
    assert s.unused_share == pytest.approx(len(unused) / size)
    assert s.superword_share == pytest.approx(len(superwords) / size)


def test_the_variants_differ_where_they_should(tables, corpora):
    """SuperBPE's table has superwords, the others none; PickyBPE's removed tokens are in
    merge trees but not in its vocabulary, so never scaffold."""
    names = list(tables)
    result = evaluate(list(tables.values()), corpora, names, workers=1)
    by_name = {s.table: s for s in side_by_side(list(tables.values()), result)}
    assert by_name["superbpe"].superwords > 0 and by_name["plain"].superwords == by_name["picky"].superwords == 0
    picky = tables["picky"]
    assert picky.removed, "τ 0.6 removes tokens on this corpus"
    emitted = Counter(i for text in texts() for i in picky.encode(text))
    inside = brute_inside(picky, emitted)
    assert any(inside[t] for t in picky.removed), "a removed token sits inside emitted tokens"
    assert not set(intermediate_tokens(picky, emitted)) & picky.removed
    # every table trained to the same size: no line on sizes
    assert {s.vocab_size for s in by_name.values()} == {700} and size_note(list(by_name.values())) is None


def test_reports_and_rows(tables, corpora):
    chosen = [tables["plain"], tables["superbpe"].truncated(400)]
    result = evaluate(chosen, corpora[:2], ["plain", "cut"], workers=1)
    summaries = side_by_side(chosen, result)
    text = format_side_by_side(summaries).splitlines()
    assert text[0].split() == ["side", "by", "side", "plain", "cut"] and set(text[1]) <= {"-", " "}
    labels = [line.split("  ")[0] for line in text[2:-1]]
    assert labels == [
        "vocabulary", "bytes/tok en", "bytes/tok de", "bytes/tok all", "premium spread", "worst/best", "gini", "scaffold", "unused", "superwords",
    ]
    assert text[-1] == f"the vocabulary sizes differ (plain 700, cut {len(chosen[1]):,}): the tables are not compared at the same size"
    markdown = format_side_by_side_markdown(summaries).splitlines()
    assert markdown[0] == "| measure | plain | cut |" and markdown[1] == "|:---|---:|---:|" and markdown[-1] == text[-1]
    one = side_by_side(chosen[:1], evaluate(chosen[:1], corpora[:1], ["plain"], workers=1))
    lines = format_side_by_side(one).splitlines()
    assert [line.split("  ")[0] for line in lines[2:]] == ["vocabulary", "bytes/tok en", "scaffold", "unused", "superwords"]
    flat = rows(result, summaries)
    assert len(flat) == 4 and [r["table"] for r in flat] == ["plain", "plain", "cut", "cut"]
    assert flat[0]["gini"] == flat[1]["gini"] == round(summaries[0].parity.gini, 6)
    assert flat[2]["superword_tokens"] == summaries[1].superwords and flat[3]["vocab_size"] == len(chosen[1])


def test_pairs_of_the_brute_superword_agree_with_is_superword_on_edge_cases():
    """The brute-force reading of "spans a space" used above, on the docstring's examples."""
    from bpe_tui.core.engine.superwords import is_superword

    for text in ("by the", " in the", ", and", "the ", "Citizen:\n", " the", ".\n", ";\n//", "  ", "a", " é x"):
        assert brute_superword(text) == is_superword(text), text
    assert all(brute_superword(a + " " + b) for a, b in combinations("ab1", 2))


# ---------------------------------------------------------------------- eval's labels (issue 42)


@pytest.fixture
def small_table(tmp_path):
    import bpe_tui

    path = tmp_path / "t.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "demo.txt"), merges=50), str(path))
    return str(path)


def test_corpora_of_the_same_file_name_get_labels_apart(tmp_path, small_table, capsys):
    """eval showed two corpora under one label when their file names matched."""
    import json

    from bpe_tui.cli import main
    from bpe_tui.core.analysis.evaluate import parse_corpora

    for folder in ("en", "de"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "text.txt").write_text(f"{folder} words of {folder}\n", encoding="utf-8")
    en, de = str(tmp_path / "en" / "text.txt"), str(tmp_path / "de" / "text.txt")
    assert [c.label for c in parse_corpora([en, de])] == ["en/text", "de/text"]
    assert [c.label for c in parse_corpora([en, en])] == ["text", "text #2"]
    assert [c.label for c in parse_corpora(["text=" + en, de])] == ["text", "de/text"]
    assert [c.label for c in parse_corpora([en, str(CORPORA / "demo.txt")])] == ["text", "demo"]
    assert main(["eval", small_table, "--corpus", en, "--corpus", de, "--json"]) == 0
    assert [row["corpus"] for row in json.loads(capsys.readouterr().out) if "corpus" in row][:2] == ["en/text", "de/text"]
    assert main(["eval", small_table, "--corpus", f"a={en}", "--corpus", f"a={de}"]) == 2
    assert capsys.readouterr().err == "bpe-tui: error: --corpus: the label 'a' names two corpora; give each its own\n"


def test_the_side_by_side_block_shows_a_label_escaped(tmp_path, small_table, capsys):
    """eval's side-by-side block printed a corpus label holding terminal escapes raw."""
    from bpe_tui.cli import main

    path = tmp_path / "\x1b[2Jred.txt"
    path.write_text("red words\n", encoding="utf-8")
    assert main(["eval", small_table, "--corpus", str(path), "--corpus", str(CORPORA / "demo.txt")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "bytes/tok \\x1b[2Jred" in out

"""End to end: every number the explorer shows beside tokens of every script is the
trainer's, read back from tmux's own capture of the screen.

Tokens of Hindi, Thai, Arabic, Chinese, Korean and emoji with joiners are where a terminal
and Textual can disagree on a width (a vowel sign, a joiner, a right-to-left letter): when
they do, the columns after the token slide and a count of 100 reads ``10``. Here the
installed ``bpe-tui`` runs in tmux on each of the 12 parallel texts, a Thai text and an
emoji text, byte-level (gpt2, the default) and character-level (classic), at 120x40 and
80x24, at step 0 and after 100 merges; each screen is cut back into cells as tmux holds them
(:mod:`tests.terminal_cells`), and every pair count and rank, history count and merge
number, corpus frequency, encode id, the step and the vocabulary size are compared with the
trainer's, each number in its column. The model of tmux's cells is itself checked against
tmux: the drawn form of every token and every word these texts make takes the cells tmux
reports (its cursor), and rich counts the same.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from rich.cells import cell_len

import bpe_tui.ui  # noqa: F401 (rich counts as the explorer does)
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.config import EXPLORER_MAX_TOKEN_LENGTH
from bpe_tui.core.look import look, pieces
from bpe_tui.ui.widgets.render import piece_label
from tests.conftest import CORPORA
from tests.terminal_cells import cells, glibc, measured_widths

from .test_tmux import ENCODE_BOX
from .test_tmux import Tmux, pytestmark as tmux_marks

pytestmark = [*tmux_marks, pytest.mark.skipif(not glibc(), reason="the model of tmux's cells is glibc's wcwidth")]

PARALLEL = CORPORA / "parallel"
LANGUAGES = sorted(p.stem for p in PARALLEL.glob("*.txt"))

#: Thai: vowels and tone marks above and below the consonants (combining marks, no cell of
#: their own), no spaces between words. Written for this test.
THAI = """\
ผู้ใหญ่ที่นี่กินข้าวเหนียวกับส้มตำทุกวัน
น้ำในแม่น้ำไหลช้าๆ ในฤดูหนาว
เด็กๆ เล่นฟุตบอลที่สนามหลังโรงเรียนทุกเย็น
ร้านกาแฟเล็กๆ ข้างตลาดเปิดตั้งแต่เช้าตรู่
คุณยายเล่านิทานให้หลานฟังก่อนนอนทุกคืน
"""
#: Emoji: families, professions and flags joined by zero-width joiners, skin tones,
#: variation selectors, keycaps. Written for this test.
EMOJI = """\
the family 👨‍👩‍👧 went out and the family 👨‍👩‍👦 stayed in
a coder 👩‍💻 and a cook 🧑‍🍳 and a farmer 👨‍🌾 met at the 🏳️‍🌈 parade
I ❤️ tea and I ❤️ cake, 👍🏽 or 👍 or 👌🏿 as you like
press #️⃣ then 1️⃣ then 👁️‍🗨️ to see the 🇩🇪 and 🇯🇵 flags
"""
TEXTS = [*LANGUAGES, "th", "emoji"]
UNITS = (("bytes", "gpt2"), ("chars", "classic"))
#: Scrollbar glyphs at a row's right end.
SCROLL = set("▁▂▃▄▅▆▇█▔▐▌▊▋▍▎▏")


def corpus_path(name: str, tmp_path: Path) -> Path:
    if name in LANGUAGES:
        return PARALLEL / f"{name}.txt"
    path = tmp_path / f"{name}.txt"
    path.write_text(THAI if name == "th" else EMOJI, encoding="utf-8")
    return path


def shown_as(shown: str, expected: str) -> bool:
    """A drawn token as the screen shows it: whole, or cut to its column with "…"."""
    return shown == expected or (shown.endswith("…") and expected.startswith(shown[:-1]))


class Screen:
    """A tmux capture cut into cells, and the panes found in it."""

    def __init__(self, text: str) -> None:
        self.rows = [cells(line) for line in text.splitlines()]
        width = max(map(len, self.rows))
        self.rows = [row + [" "] * (width - len(row)) for row in self.rows]
        self.divider = next(i for i, c in enumerate(self.rows[1]) if c == "▏")

    def text(self, y: int, start: int = 0, end: int | None = None) -> str:
        return "".join(self.rows[y][start:end])

    def right(self, y: int) -> str:
        return self.text(y, self.divider + 1)

    def left(self, y: int) -> str:
        return self.text(y, 0, self.divider)

    def find(self, what: str, side: str) -> int:
        read = self.right if side == "right" else self.left
        return next(y for y in range(len(self.rows)) if what in read(y))


def last_digit(row: list[str], start: int) -> int:
    """The cell of the last digit of the row from ``start`` on (the count's right edge)."""
    return max(i for i in range(start, len(row)) if row[i][:1].isdigit())


def unscrolled(text: str) -> str:
    """A pane's row without the scrollbar glyph at its right end."""
    text = text.rstrip()
    while text and text[-1] in SCROLL:
        text = text[:-1].rstrip()
    return text


def starts(row: list[str]) -> set[int]:
    """The cells where a run of text starts (after a blank cell; a wide character's second
    cell, ``""``, is no blank)."""
    filled = [c == "" or bool(c.strip()) for c in row]
    return {i for i, f in enumerate(filled) if f and (i == 0 or not filled[i - 1])}


def check_status(screen: Screen, trainer: Trainer) -> None:
    status = screen.text(0)
    step = re.search(r"step ([\d,]+)/([\d,]+)", status)
    assert step and int(step.group(1).replace(",", "")) == trainer.steps_done, status
    assert int(step.group(2).replace(",", "")) == trainer.target_steps, status
    vocab = re.search(r"vocab ([\d,]+)", status)
    assert vocab is None or int(vocab.group(1).replace(",", "")) == trainer.vocab_size, status


def check_pairs(screen: Screen, trainer: Trainer) -> int:
    """Every pair row: its rank, its two tokens and its count, the count in its column."""
    eow = trainer.table.end_of_word
    top = trainer.top_pairs(200)
    head = screen.find("count", "right")
    column = screen.divider + 1 + screen.right(head).index("count")
    seen = 0
    for y in range(head + 1, len(screen.rows)):
        parts = screen.right(y).split()
        if len(parts) < 4 or not parts[0].lstrip("▶").isdigit():
            break
        rank = int(parts[0].lstrip("▶"))
        (left, right), count = top[rank - 1]
        assert shown_as(parts[1], look(left, eow)) and shown_as(parts[2], look(right, eow)), (parts, left, right)
        assert int(parts[3].replace(",", "")) == count, (screen.right(y), count)
        assert "".join(screen.rows[y][column : column + len(parts[3])]) == parts[3], f"the count of row {rank} is out of its column: {screen.right(y)!r}"
        seen += 1
    assert seen, "no pair rows"
    return seen


def check_history(screen: Screen, trainer: Trainer) -> int:
    """Every history row: its merge number, tokens and count, the counts right-aligned."""
    eow = trainer.table.end_of_word
    head = screen.find(" merges", "right")
    row_re = re.compile(r"^[●·]?\s*([\d,]+) (.) (?:[a-z]{2} )?(\S+)\s+\+ (\S+)\s+→ (\S+)\s+([\d,]+)$")
    edges = set()
    seen = 0
    for y in range(head + 1, len(screen.rows)):
        text = unscrolled(screen.right(y))
        m = row_re.match(text.strip())
        if not m:
            continue
        event = trainer.history[int(m.group(1).replace(",", "")) - 1]
        assert shown_as(m.group(3), look(event.pair[0], eow)) and shown_as(m.group(4), look(event.pair[1], eow)), text
        assert shown_as(m.group(5), look(event.new_token, eow)), text
        assert int(m.group(6).replace(",", "")) == event.count, (text, event.count)
        edges.add(last_digit(screen.rows[y], screen.divider + 1))
        seen += 1
    assert len(edges) <= 1, f"the counts end in different columns: {sorted(edges)}"
    return seen


def check_corpus(screen: Screen, trainer: Trainer) -> int:
    """Every word row: its frequency (right-aligned) and its tokens, as the trainer has them."""
    eow = trainer.table.end_of_word
    words: dict[str, set[int]] = {}
    for w in range(trainer.word_count):
        surfaces = [trainer.surface(i) for i in trainer.segmentation_ids(w)]
        drawn = "".join(piece_label(surfaces, piece, eow) for piece in pieces(surfaces))
        words.setdefault(drawn, set()).add(trainer.word_frequency(w))
    top = screen.find("filter words", "left")
    end = screen.find("─Encode", "left")
    seen = 0
    for y in range(top + 1, end):
        m = re.match(r"^[●\s]\s*([\d,]+) (\S+)$", unscrolled(screen.left(y)))
        if not m:
            continue
        freq, drawn = int(m.group(1).replace(",", "")), m.group(2)
        assert screen.rows[y][7][:1].isdigit() and not screen.rows[y][8].strip(), f"a frequency out of its column: {screen.left(y)!r}"
        found = [f for d, fs in words.items() if d == drawn or d.startswith(drawn) for f in fs]
        assert freq in found, (screen.left(y), found[:5])
        seen += 1
    assert seen, "no word rows"
    return seen


def check_encode(screen: Screen, ids: list[int]) -> int:
    """The encode box's ids, in order, and each chip over the first id of its tokens."""
    top = screen.find("dropout", "left") + 1
    end = len(screen.rows) - 1
    shown: list[int] = []
    for y in range(top, end - 1, 2):
        # (the list's last column is its scrollbar's)
        chip_row, id_row = screen.rows[y][: screen.divider - 1], screen.rows[y + 1][: screen.divider - 1]
        numbers = "".join(id_row).split()
        if not numbers or not all(n.isdigit() for n in numbers):
            break
        assert starts(chip_row) <= starts(id_row), f"a chip stands over no id: {''.join(chip_row)!r} / {''.join(id_row)!r}"
        shown += map(int, numbers)
    assert shown and shown == ids[: len(shown)], (shown[:20], ids[:20])
    return len(shown)


def check_screen(screen_text: str, trainer: Trainer, history: bool) -> dict[str, int]:
    screen = Screen(screen_text)
    check_status(screen, trainer)
    counts = {"pairs": check_pairs(screen, trainer), "words": check_corpus(screen, trainer)}
    if history:
        counts["merges"] = check_history(screen, trainer)
    return counts


class ScriptTmux(Tmux):
    def paste(self, text: str) -> None:
        """Give ``text`` to the focused box as a bracketed paste (typed, a zero-width joiner is
        no printable key, and a text box leaves it out)."""
        self.tmux("set-buffer", "-b", self.name, "--", text, check=True)
        self.tmux("paste-buffer", "-p", "-d", "-b", self.name, "-t", self.name, check=True)


def resize(tmux: Tmux, width: int, height: int) -> None:
    tmux.tmux("resize-window", "-t", tmux.name, "-x", str(width), "-y", str(height), check=True)


def settled(tmux: Tmux, *texts: str, timeout: float = 20.0) -> str:
    """The screen once it shows ``texts`` and has stopped changing (a resize or a step draws
    in several frames)."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        screen = tmux.screen()
        if screen == last and all(t in screen for t in texts):
            return screen
        assert time.monotonic() < deadline, f"the screen did not settle showing {texts}:\n{screen}"
        last = screen
        time.sleep(0.3)


@pytest.mark.parametrize("name", TEXTS)
def test_every_number_beside_every_script_is_the_trainers(tmp_path, name):
    path = corpus_path(name, tmp_path)
    sentence = path.read_text(encoding="utf-8").splitlines()[0]
    for units, preset in UNITS:
        config = TrainerConfig(preset=preset, vocab_size=1000, max_token_length=EXPLORER_MAX_TOKEN_LENGTH)
        trainer = Trainer.from_files([str(path)], config)
        tmux = ScriptTmux(tmp_path, 120, 40)
        try:
            tmux.start(str(path), "--preset", preset)
            screen = settled(tmux, f"step 0/{trainer.target_steps:,}", "#   left")
            check_screen(screen, trainer, history=False)
            tmux.focus("e", ENCODE_BOX)
            tmux.paste(sentence)
            ids = trainer.table.encode(sentence)
            check_encode(Screen(settled(tmux, f"{len(ids):,} token")), ids)
            tmux.keys("Escape")
            tmux.keys("C-n")
            trainer.goto(100)
            screen = settled(tmux, f"step {trainer.steps_done}/", f"{trainer.steps_done} merges")
            checked = check_screen(screen, trainer, history=True)
            assert checked["merges"] >= 8 and checked["pairs"] >= 8 and checked["words"] >= 8, f"{checked}\n{screen}"
            resize(tmux, 80, 24)
            tmux.wait_until(lambda s: max(len(cells(line)) for line in s.splitlines()) <= 80, "the 80x24 screen")
            screen = settled(tmux, " merges", "#   left")
            checked = check_screen(screen, trainer, history=True)
            assert checked["merges"] >= 4 and checked["pairs"] >= 3 and checked["words"] >= 4, f"{checked}\n{screen}"
        finally:
            tmux.kill()


def test_the_parity_aware_history_of_the_issue(tmp_path):
    """After 10 parity-aware steps on en + hi the history read ``→ ा  10`` for a count of 100."""
    files = {lang: str(PARALLEL / f"{lang}.txt") for lang in ("en", "hi")}
    args = []
    for lang, file in files.items():
        args += ["--language", f"{lang}={file}", "--dev", f"{lang}={file}"]
    trainer = Trainer.from_languages(files, dev=files, config=TrainerConfig(preset="parity", parity="window", merges=300))
    tmux = Tmux(tmp_path, 120, 40)
    try:
        tmux.start(*args, "--parity", "window", "--merges", "300")
        tmux.wait_for("step 0/300")
        tmux.keys("N")
        screen = settled(tmux, "10 merges", "step 10/300")
        trainer.goto(10)
        assert check_history(Screen(screen), trainer) == 10
        assert any("→ ◌ा" in line and line.rstrip().endswith(" 100") for line in screen.splitlines()), screen
    finally:
        tmux.kill()


def test_tmux_draws_every_token_in_the_cells_rich_counts(tmp_path):
    """The drawn form of every token and word piece of these texts, both units, at 0 to 300
    merges: tmux's cursor moves as many cells as rich counts, and as the model says."""
    forms: set[str] = set()
    for name in TEXTS:
        text = corpus_path(name, tmp_path).read_text(encoding="utf-8")
        for _, preset in UNITS:
            trainer = Trainer.from_text(text, TrainerConfig(preset=preset, merges=300), name=name)
            for step in (0, 100, 300):
                trainer.goto(min(step, trainer.target_steps or step))
                eow = trainer.table.end_of_word
                forms.update(look(surface, eow) for surface in trainer.vocab().values())
                for w in range(trainer.word_count):
                    surfaces = [trainer.surface(i) for i in trainer.segmentation_ids(w)]
                    forms.update(piece_label(surfaces, piece, eow) for piece in pieces(surfaces))
    ordered = sorted(forms)
    measured = measured_widths(ordered, tmp_path)
    wrong = [(f, cell_len(f), len(cells(f)), m) for f, m in zip(ordered, measured) if not cell_len(f) == len(cells(f)) == m]
    assert not wrong, f"{len(wrong)} of {len(ordered)} forms: (form, rich, model, tmux) {wrong[:10]}"

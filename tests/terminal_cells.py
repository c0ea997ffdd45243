"""What tmux draws, cell by cell: the widths it gives characters, measured and modelled.

``tmux capture-pane -p`` prints a screen row as text: a wide character once, a combining
character after the character it sits on. To know in which column a number stands, the row
is cut back into cells by the rule tmux itself uses (:func:`cells`): glibc's ``wcwidth``,
a zero-width character joined to the cell before it, and after a zero-width joiner the next
character joined to the cell before too unless it is ASCII (tmux 3.3's emoji sequences:
``👩‍❤`` takes the two cells of ``👩``, ``a‍b`` two cells, measured). :func:`measured_widths` asks tmux directly (a program
inside it writes each string and asks the terminal where its cursor went), which is how
the model is checked.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import locale
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

ZWJ = "\u200d"

_libc = ctypes.CDLL(ctypes.util.find_library("c"))
_libc.wcwidth.restype = ctypes.c_int


def wcwidth(ch: str) -> int:
    """glibc's width of one character (what tmux asks), -1 for a control character."""
    locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    return int(_libc.wcwidth(ctypes.c_wchar(ch)))


def glibc() -> bool:
    """True when the C library is glibc (its ``wcwidth`` is the one tmux uses here)."""
    return bool(ctypes.util.find_library("c")) and "libc.so.6" in (ctypes.util.find_library("c") or "")


def cells(line: str) -> list[str]:
    """``line`` (as capture-pane prints it) as the cells tmux holds: one string per cell, the
    second cell of a wide character ``""``."""
    out: list[str] = []
    joined = False  # the last character was a zero-width joiner
    for ch in line:
        width = wcwidth(ch)
        at = len(out) - 1
        while at > 0 and out[at] == "":  # (a wide character's first cell)
            at -= 1
        if out and (width == 0 or (joined and ord(ch) > 0x7F)):
            out[at] += ch
            joined = ch == ZWJ
            continue
        joined = False
        out.append(ch)
        if width == 2:
            out.append("")
    return out


def text_at(line: str, start: int, end: int | None = None) -> str:
    """The text of cells ``start`` to ``end`` of a captured row."""
    return "".join(cells(line)[start:end])


_PROBE = r'''
import json, os, sys, termios, tty
strings = json.load(open(sys.argv[1], encoding="utf-8"))
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setraw(fd)
widths = []
try:
    for s in strings:
        sys.stdout.write("\x1b[H\x1b[2K" + s + "\x1b[6n")
        sys.stdout.flush()
        answer = b""
        while not answer.endswith(b"R"):
            answer += os.read(fd, 1)
        widths.append(int(answer[2:-1].split(b";")[1]) - 1)
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, old)
tmp = sys.argv[2] + ".tmp"
with open(tmp, "w") as f:
    json.dump(widths, f)
os.replace(tmp, sys.argv[2])
'''


def measured_widths(strings: list[str], workdir: Path, timeout: float = 60.0) -> list[int]:
    """The cells tmux gives each string (drawn alone at the start of a row of a 400-column
    window), asked of tmux itself: the cursor's column after it."""
    probe, given, answer = workdir / "probe.py", workdir / "strings.json", workdir / "widths.json"
    probe.write_text(_PROBE, encoding="utf-8")
    given.write_text(json.dumps(strings), encoding="utf-8")
    answer.unlink(missing_ok=True)
    name = f"bpe-cells-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color")
    command = f"{sys.executable} {probe} {given} {answer}"
    # (a tmux server of its own, its socket in workdir: never one another test is shutting down)
    tmux = ["tmux", "-S", str(workdir / "tmux.sock")]
    subprocess.run([*tmux, "new-session", "-d", "-s", name, "-x", "400", "-y", "5", command], check=True, env=env)
    try:
        deadline = time.monotonic() + timeout
        while not answer.exists():
            assert time.monotonic() < deadline, "the probe inside tmux did not answer"
            time.sleep(0.05)
        return json.loads(answer.read_text())
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)

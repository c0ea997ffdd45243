"""How long until a student sees the explorer? ``bpe-tui serve`` in a headless Chromium, from
the page's load to the first drawn screen, beside the same explorer started in a terminal
(tmux), on the demo corpus (or CORPUS), alternating, RUNS times each.

Browser: a new tab navigates to the served page; times from the navigation to the page's load
event, to the first bytes of the explorer's screen reaching the page (the body's ``-first-byte``
class, when the page swaps its intro for the terminal), and to the first drawn screen: the
terminal's text holding the status line's ``step 0/``. Terminal: from starting the explorer in a
new tmux window to the same line in the pane. Socket: the server and the explorer without a
browser, a websocket opened as the page opens it, to the first bytes and to the status line in
them. Each starts a new explorer process (Python,
Textual, counting the corpus); the CPU column is that process's user + system time when its
first screen is drawn. The median of the runs, and the browser's ratio to the terminal.

    PYTHONPATH=. .venv/bin/python benchmarks/serve_first_screen.py [RUNS] [CORPUS]

Needs chromium, tmux and bpe-tui[web]; the machine is shared, so compare the columns of one run.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tests.web.browser import CHROMIUM, chromium
from tests.web.served import alive, serving, wait_until

STATUS = r"step 0/"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def browser_runs(runs: int, corpus: list[str], profile: Path) -> list[dict]:
    out = []
    with serving(*corpus) as served:
        async with chromium(profile) as tools:
            for _ in range(runs):
                tab = await tools.tab(1090, 740)
                before = set(served.explorers())
                start = time.perf_counter()
                await tab.load(served.url)
                loaded = time.perf_counter() - start
                first_byte = None
                while first_byte is None:
                    if await tab.evaluate("document.body.classList.contains('-first-byte')"):
                        first_byte = time.perf_counter() - start
                    else:
                        await asyncio.sleep(0.01)
                await tab.wait_for_screen(STATUS, every=0.01)
                screen = time.perf_counter() - start
                [explorer] = set(served.explorers()) - before
                cpu = cpu_seconds(explorer)
                size = await tab.evaluate("`${window.__terminal.cols}x${window.__terminal.rows}`")
                await tab.close()
                wait_until(lambda: not alive(explorer), "the tab's explorer ending", 30)
                out.append(dict(load=loaded, first_byte=first_byte, screen=screen, cpu=cpu, size=size))
    return out


async def websocket_runs(runs: int, corpus: list[str]) -> list[dict]:
    """The server and the explorer without a browser: a websocket to /ws, as the page opens it,
    from connecting to the first bytes of the screen and to the status line in them."""
    import aiohttp

    out = []
    with serving(*corpus) as served:
        async with aiohttp.ClientSession() as http:
            for _ in range(runs):
                before = set(served.explorers())
                start = time.perf_counter()
                ws = await http.ws_connect(served.url.replace("http://", "ws://") + "/ws?width=120&height=40")
                seen = b""
                first_byte = None
                while STATUS.encode() not in seen:
                    message = await asyncio.wait_for(ws.receive(), 60)
                    if message.type != aiohttp.WSMsgType.BINARY:
                        raise AssertionError(f"the session ended before its first screen ({message.type})")
                    seen += message.data
                    if first_byte is None and len(seen) > 10:  # what the page counts as its first bytes
                        first_byte = time.perf_counter() - start
                screen = time.perf_counter() - start
                [explorer] = set(served.explorers()) - before
                cpu = cpu_seconds(explorer)
                await ws.close()
                wait_until(lambda: not alive(explorer), "the session's explorer ending", 30)
                out.append(dict(first_byte=first_byte, screen=screen, cpu=cpu, size="120x40"))
    return out


def terminal_runs(runs: int, corpus: list[str]) -> list[dict]:
    out = []
    for _ in range(runs):
        name = f"bpe-bench-{uuid.uuid4().hex[:8]}"
        start = time.perf_counter()
        subprocess.run(
            ["tmux", "-L", name, "new-session", "-d", "-s", name, "-x", "120", "-y", "40", sys.executable, "-m", "bpe_tui", *corpus],
            check=True, env=dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8"),
        )
        try:
            pid = int(subprocess.run(["tmux", "-L", name, "list-panes", "-t", name, "-F", "#{pane_pid}"], capture_output=True, text=True).stdout.split()[0])
            while STATUS not in subprocess.run(["tmux", "-L", name, "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout:
                if time.perf_counter() - start > 60:
                    raise AssertionError("the explorer did not draw within 60 s in tmux")
                time.sleep(0.01)
            screen = time.perf_counter() - start
            out.append(dict(screen=screen, cpu=cpu_seconds(pid), size="120x40"))
        finally:
            subprocess.run(["tmux", "-L", name, "kill-server"], capture_output=True)
    return out


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    corpus = sys.argv[2:]
    if CHROMIUM is None or shutil.which("tmux") is None:
        sys.exit("needs chromium and tmux")
    browser: list[dict] = []
    socket: list[dict] = []
    terminal: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(runs):  # in turns, so that a busy moment of the machine hits all three
            browser += asyncio.run(browser_runs(1, corpus, Path(tmp) / f"profile{k}"))
            socket += asyncio.run(websocket_runs(1, corpus))
            terminal += terminal_runs(1, corpus)

    def med(rows: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    def med_diff(rows: list[dict]) -> float:
        return statistics.median(r["screen"] - r["load"] for r in rows)

    what = " ".join(corpus) or "the demo corpus"
    print(f"first drawn screen of the explorer on {what}, median of {runs} runs (wall seconds; CPU of the explorer process)")
    print(f"  browser  {browser[0]['size']:>8}  page load {med(browser, 'load'):.3f}  first bytes {med(browser, 'first_byte'):.3f}  "
          f"first screen {med(browser, 'screen'):.3f}  cpu {med(browser, 'cpu'):.3f}")
    print(f"  socket   {socket[0]['size']:>8}  {'':>15}first bytes {med(socket, 'first_byte'):.3f}  "
          f"first screen {med(socket, 'screen'):.3f}  cpu {med(socket, 'cpu'):.3f}")
    print(f"  tmux     {terminal[0]['size']:>8}  {'':>36}first screen {med(terminal, 'screen'):.3f}  cpu {med(terminal, 'cpu'):.3f}")
    print(f"  browser / tmux: first screen {med(browser, 'screen') / med(terminal, 'screen'):.2f}x wall, "
          f"{med(browser, 'cpu') / med(terminal, 'cpu'):.2f}x explorer cpu")
    print(f"  browser: page load to first screen {med_diff(browser):.3f}")
    print("  browser runs (first screen): " + ", ".join(f"{r['screen']:.3f}" for r in browser))
    print("  socket runs (first screen):  " + ", ".join(f"{r['screen']:.3f}" for r in socket))
    print("  tmux runs (first screen):    " + ", ".join(f"{r['screen']:.3f}" for r in terminal))


if __name__ == "__main__":
    main()

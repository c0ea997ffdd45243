"""``bpe-tui serve``: its argument errors (one line, exit 2, before anything listens), and the
processes it runs: one explorer per tab, each ended when its tab goes or the server stops.

The process tests speak to the real server as a page does (a websocket to /ws) and read the
explorers from /proc; the browser test (test_browser.py) drives a real Chromium.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
from pathlib import Path

import pytest

from bpe_tui.cli import main
from bpe_tui.cli.serve import explorer_words
from tests.conftest import CORPORA
from tests.web.served import alive, read_line, serving, wait_until

aiohttp = pytest.importorskip("aiohttp", reason="serve needs bpe-tui[web] (textual-serve brings aiohttp)")
pytest.importorskip("textual_serve", reason="serve needs bpe-tui[web]")

linux = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc to see the explorer processes")


def one_line_error(capsys) -> str:
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("bpe-tui: error: ") and err.count("\n") == 1, err
    return err


# ------------------------------------------------------------------ refused before listening


def test_without_textual_serve_serve_is_one_line_naming_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "textual_serve", None)  # what an import of a missing package meets
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    assert main(["serve"]) == 2
    assert "pip install 'bpe-tui[web]'" in one_line_error(capsys)


def test_a_port_in_use_is_one_line_naming_it(capsys):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = one_line_error(capsys)
    assert f"port {port} is in use" in err and "--port" in err


@pytest.mark.parametrize(
    "args, says",
    [
        (["--port", "70000"], "--port 70000: a port is 0 to 65535"),
        (["--host", "192.0.2.1"], "cannot listen on 192.0.2.1 port"),  # TEST-NET-1: no machine's own address
        (["no-such-corpus.txt"], "no-such-corpus.txt"),
        (["-"], "cannot read a corpus from stdin"),
        (["--vocab-size", "10"], "vocab"),
        (["--open", "no-such-table.json"], "no-such-table.json"),
        (["--compare", "b.json"], "--compare goes with --open"),
        (["--open", str(CORPORA / "demo.txt"), str(CORPORA / "demo.txt")], "give a corpus or --open TABLE, not both"),
        (["--open", "t.json", "--preset", "classic"], "--preset does not go with --open"),
        (["--ho", "0.0.0.0"], "unrecognized arguments"),  # serve's options are spelled out
    ],
)
def test_what_an_explorer_would_refuse_is_refused_before_listening(args, says, capsys):
    assert main(["serve", *args]) == 2
    assert says in one_line_error(capsys)


def test_the_explorer_gets_serves_words_without_serves_own_options():
    words = ["a.txt", "--port", "9000", "--host=0.0.0.0", "--preset", "classic", "--", "--port"]
    assert explorer_words(words, None) == ["a.txt", "--preset", "classic", "--", "--port"]
    assert explorer_words(["--open", "t.json", "--special", "<s>"], "t.json") == ["open", "t.json", "--special", "<s>"]
    assert explorer_words(["--max-tabs", "3", "--idle-minutes=5", "a.txt"], None) == ["a.txt"]


# ------------------------------------------------------------------ the processes


async def open_tab(url: str, session):
    """A tab's websocket, once its explorer has drawn its first screen (the status line's step)."""
    ws = await session.ws_connect(url.replace("http://", "ws://") + "/ws?width=100&height=30")
    seen = b""
    while b"step" not in seen:
        msg = await asyncio.wait_for(ws.receive(), 60)
        assert msg.type == aiohttp.WSMsgType.BINARY, f"the tab got {msg.type} before a screen"
        seen += msg.data
    return ws


@linux
def test_ctrl_c_ends_every_explorer():
    with serving() as served:

        async def two_tabs_then_ctrl_c():
            async with aiohttp.ClientSession() as session:
                tabs = [await open_tab(served.url, session) for _ in range(2)]
                explorers = served.explorers()
                assert len(explorers) == 2  # one explorer per tab
                served.proc.send_signal(signal.SIGINT)  # what ctrl+c sends
                for tab in tabs:
                    await asyncio.wait_for(tab.receive(), 30)  # the server closes the tab
                return explorers

        explorers = asyncio.run(two_tabs_then_ctrl_c())
        assert served.proc.wait(30) == 0
        assert "stopped: every explorer has ended" in served.proc.stdout.read()
        assert [pid for pid in explorers if alive(pid)] == []


@linux
def test_served_with_open_each_tab_inspects_the_table(tmp_path):
    table = tmp_path / "court.json"
    assert main(["train", str(CORPORA / "court.txt"), "--preset", "classic", "--merges", "5", "-o", str(table), "-q"]) == 0
    with serving("--open", str(table)) as served:

        async def tab_screen() -> bytes:
            async with aiohttp.ClientSession() as session:
                ws = await session.ws_connect(served.url.replace("http://", "ws://") + "/ws?width=100&height=30")
                seen = b""
                while b"format native" not in seen:  # the inspect screen's status line
                    msg = await asyncio.wait_for(ws.receive(), 60)
                    assert msg.type == aiohttp.WSMsgType.BINARY, f"the tab got {msg.type} before a screen"
                    seen += msg.data
                await ws.close()
                return seen

        screen = asyncio.run(tab_screen())
        assert b"court.json" in screen and b"5 merges" in screen


@linux
def test_closing_a_tab_ends_its_explorer_and_the_server_goes_on():
    with serving(str(CORPORA / "court.txt")) as served:

        async def tab_opened_and_closed():
            async with aiohttp.ClientSession() as session:
                tab = await open_tab(served.url, session)
                explorers = served.explorers()
                await tab.close()
                return explorers

        [explorer] = asyncio.run(tab_opened_and_closed())
        wait_until(lambda: not alive(explorer), "the closed tab's explorer ending")
        assert served.proc.poll() is None


@linux
def test_another_address_than_loopback_is_served_with_a_warning_and_links_to_where_the_browser_came():
    with serving("--host", "0.0.0.0") as served:
        warning = read_line(served.proc.stderr, 10)
        assert warning.startswith(f"bpe-tui: warning: listening on 0.0.0.0:{served.port}, not this machine only") and "read every file" in warning
        assert f"on port {served.port} of every address of this machine" in served.banner

        async def page_as(host: str) -> str:
            async with aiohttp.ClientSession() as session:
                async with session.get(f"http://127.0.0.1:{served.port}/", headers={"Host": host}) as response:
                    assert response.status == 200
                    return await response.text()

        page = asyncio.run(page_as(f"10.1.2.3:{served.port}"))
        assert f'data-session-websocket-url="ws://10.1.2.3:{served.port}/ws"' in page


@linux
def test_pages_of_other_sites_cannot_open_an_explorer():
    with serving() as served:

        async def attempts():
            async with aiohttp.ClientSession() as session:
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await session.ws_connect(served.url.replace("http://", "ws://") + "/ws", headers={"Origin": "http://evil.example"})
                assert refused.value.status == 403
                # a site that points its own name at 127.0.0.1 (DNS rebinding) gets no page either
                async with session.get(served.url + "/", headers={"Host": f"evil.example:{served.port}"}) as response:
                    assert response.status == 403
                async with session.get(served.url + "/", headers={"Host": f"localhost:{served.port}"}) as response:
                    assert response.status == 200

        asyncio.run(attempts())
        assert served.explorers() == []


@linux
def test_an_explorer_that_ignores_quit_and_sigterm_is_killed_with_its_whole_process_group(monkeypatch, tmp_path):
    """The last resort: an explorer that neither quits nor dies on SIGTERM (a stuck one), and a
    process it started, are killed by SIGKILL to its group."""
    from bpe_tui.cli import webserver
    from textual_serve.download_manager import DownloadManager

    monkeypatch.setattr(webserver, "QUIT_GRACE", 0.5)
    monkeypatch.setattr(webserver, "TERM_GRACE", 0.5)
    grandchild_pid = tmp_path / "grandchild"
    stubborn = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)'])\n"
        f"open({str(grandchild_pid)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(120)\n"
    )

    async def nothing(*_args) -> None:
        return None

    async def start_and_end():
        session = webserver.ExplorerSession(
            [sys.executable, "-c", stubborn], write_bytes=nothing, write_str=nothing, close=nothing, download_manager=DownloadManager()
        )
        await session.start(80, 24)
        for _ in range(600):
            if grandchild_pid.exists() and grandchild_pid.read_text():
                break
            await asyncio.sleep(0.05)
        await session.end()
        return session

    session = asyncio.run(start_and_end())
    assert session._process is not None and session._process.returncode == -signal.SIGKILL
    wait_until(lambda: not alive(int(grandchild_pid.read_text())), "the explorer's own child ending", 10)

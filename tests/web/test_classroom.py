"""``bpe-tui serve`` under a class's load and a hostile tab: frames checked, sizes clamped, a cap
on explorers with a page saying the room is full, idle explorers ended, every explorer ending
with its tab, and a log of one line a record (never a traceback).

The tests speak to the real server as pages do (websockets to /ws, raw HTTP for what no browser
sends) and read the explorers from /proc. The load test opens more tabs than the cap, bounded
in count and time, and prints what it measured (memory of the server and of the explorers).
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from bpe_tui.cli.webserver import MAX_COLUMNS, MAX_ROWS, MIN_COLUMNS, MIN_ROWS, BadFrame, parse_frame, screen_size
from tests.web.served import alive, serving, wait_until

aiohttp = pytest.importorskip("aiohttp", reason="serve needs bpe-tui[web] (textual-serve brings aiohttp)")
pytest.importorskip("textual_serve", reason="serve needs bpe-tui[web]")

linux = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc to see the explorer processes")

#: The frames of the issue, each of which printed a traceback in the server's log.
BAD_FRAMES = ["not json", '{"a": 1}', "[]", '["resize", {}]', '["stdin", 5]', '["resize", {"width": true, "height": 3}]']


def rss_mb(pid: int) -> float:
    """Resident memory of a process, in MB (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def environment(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as f:
        pairs = [item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item]
    return {k.decode(): v.decode(errors="replace") for k, v in pairs}


def stop(served) -> str:
    """Ctrl+C the server; its whole log (stderr), once it has ended (exit 0, no traceback)."""
    served.proc.send_signal(signal.SIGINT)
    assert served.proc.wait(30) == 0
    log = served.proc.stderr.read()
    assert "Traceback" not in log
    return log


def ws_url(served, width: int = 80, height: int = 24) -> str:
    return served.url.replace("http://", "ws://") + f"/ws?width={width}&height={height}"


async def screen_until(ws, needle: bytes, seconds: float = 60) -> bytes:
    """The tab's screen bytes until ``needle`` shows."""
    seen = b""
    while needle not in seen:
        msg = await asyncio.wait_for(ws.receive(), seconds)
        assert msg.type == aiohttp.WSMsgType.BINARY, f"the tab got {msg.type} before {needle!r}"
        seen += msg.data
    return seen


async def redrawn(ws, seconds: float = 60) -> bytes:
    """The screen bytes the explorer sends next (it answers)."""
    while True:
        msg = await asyncio.wait_for(ws.receive(), seconds)
        if msg.type == aiohttp.WSMsgType.BINARY:
            return msg.data


async def closed(ws, seconds: float = 30) -> None:
    """Wait for the server to close the tab (whatever it still sends first)."""
    while True:
        msg = await asyncio.wait_for(ws.receive(), seconds)
        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
            return


# ------------------------------------------------------------------ frames and sizes, as values


def test_the_pages_frames_are_read_and_sizes_clamped():
    assert parse_frame('["stdin", "q"]') == ("stdin", "q")
    assert parse_frame('["ping", "1732580000000"]') == ("ping", "1732580000000")
    assert parse_frame('["focus"]') == ("focus", None) and parse_frame('["blur"]') == ("blur", None)
    assert parse_frame('["resize", {"width": 100, "height": 30}]') == ("resize", (100, 30))
    assert parse_frame('["resize", {"width": 20000, "height": -5}]') == ("resize", (MAX_COLUMNS, MIN_ROWS))
    assert screen_size(0, 10**9) == (MIN_COLUMNS, MAX_ROWS)


@pytest.mark.parametrize("frame", BAD_FRAMES + ['["ping", "' + "9" * 100 + '"]', '["focus", 1, 2]', '["run", "rm"]', "[5]"])
def test_a_frame_the_page_never_sends_is_refused_in_words(frame):
    with pytest.raises(BadFrame) as refused:
        parse_frame(frame)
    assert str(refused.value).startswith("a ")


# ------------------------------------------------------------------ the server


@linux
def test_a_bad_frame_is_one_log_line_and_closes_its_tab():
    with serving() as served:

        async def send_each():
            async with aiohttp.ClientSession() as session:
                for frame in BAD_FRAMES:
                    ws = await session.ws_connect(ws_url(served))
                    await ws.send_str(frame)
                    await closed(ws)

        asyncio.run(send_each())
        wait_until(lambda: served.explorers() == [], "the explorers of the closed tabs ending")
        lines = stop(served).splitlines()
        assert len(lines) == len(BAD_FRAMES), lines  # one line a frame, and nothing else
        assert all(line.startswith("bpe-tui: serve: the tab from 127.0.0.1 sent a") for line in lines), lines
        assert all(line.endswith("its explorer is ended") for line in lines), lines


@linux
def test_a_huge_screen_is_clamped_on_the_address_and_in_a_resize():
    with serving() as served:

        async def huge_tab():
            async with aiohttp.ClientSession() as session:
                ws = await session.ws_connect(ws_url(served, 20000, 20000), max_msg_size=0)
                await screen_until(ws, b"step")
                [explorer] = served.explorers()
                env = environment(explorer)
                await ws.send_str('["resize", {"width": 20000, "height": 20000}]')
                await redrawn(ws)  # drawn again, at the clamped size
                memory = rss_mb(explorer)
                await ws.close()
                return explorer, env, memory

        explorer, env, memory = asyncio.run(huge_tab())
        assert (env["COLUMNS"], env["ROWS"]) == (str(MAX_COLUMNS), str(MAX_ROWS))
        assert memory < 400, f"the explorer took {memory:.0f} MB"  # (2.1 GB unclamped)
        wait_until(lambda: not alive(explorer), "the tab's explorer ending")


@linux
def test_twenty_tabs_opened_and_closed_at_once_leave_no_explorer():
    with serving() as served:

        async def twenty():
            async with aiohttp.ClientSession() as session:
                tabs = await asyncio.gather(*(session.ws_connect(ws_url(served)) for _ in range(20)))
                await asyncio.sleep(0.2)
                served.explorers()
                await asyncio.gather(*(tab.close() for tab in tabs))

        asyncio.run(twenty())
        wait_until(lambda: served.explorers() == [] and not any(alive(p) for p in served.seen), "every explorer ending", 60)
        assert served.proc.poll() is None


@linux
@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 0), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_with_five_tabs_open_ends_them_all_without_a_traceback(signum, status):
    with serving() as served:

        async def five_then_signal():
            async with aiohttp.ClientSession() as session:
                tabs = [await session.ws_connect(ws_url(served)) for _ in range(5)]
                for tab in tabs:
                    await screen_until(tab, b"step")
                explorers = served.explorers()
                assert len(explorers) == 5
                served.proc.send_signal(signum)
                for tab in tabs:
                    await closed(tab)
                return explorers

        explorers = asyncio.run(five_then_signal())
        assert served.proc.wait(30) == status
        out, err = served.proc.stdout.read(), served.proc.stderr.read()
        assert "Traceback" not in err
        # both: every explorer ended, and said (issue 42: SIGTERM left the line out)
        assert out.splitlines()[-1] == "stopped: every explorer has ended"
        if signum == signal.SIGINT:  # ctrl+c: serve's normal end
            assert err == ""
        else:  # then the ending of every command on SIGTERM
            assert err.splitlines() == ["bpe-tui: terminated"]
        assert [pid for pid in explorers if alive(pid)] == []


@linux
def test_two_host_headers_are_a_400_and_one_log_line():
    with serving() as served:

        async def two_hosts() -> bytes:
            reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n")
            await writer.drain()
            answer = await asyncio.wait_for(reader.read(), 30)
            writer.close()
            return answer

        assert asyncio.run(two_hosts()).startswith(b"HTTP/1.0 400")
        [line] = stop(served).splitlines()
        assert line.startswith("bpe-tui: serve: ") and "Duplicate 'Host' header" in line


@linux
def test_the_tab_after_the_cap_is_told_the_room_is_full_and_gets_no_explorer():
    with serving("--max-tabs", "2") as served:

        async def three_tabs():
            async with aiohttp.ClientSession() as session:
                first = [await session.ws_connect(ws_url(served)) for _ in range(2)]
                for tab in first:
                    await screen_until(tab, b"step")
                third = await session.ws_connect(ws_url(served))
                told = await screen_until(third, b"Reload the page")
                assert b"The room is full: 2 explorers open already" in told
                async with session.get(served.url + "/") as page:
                    assert page.status == 503 and "The room is full" in await page.text()
                assert len(served.explorers()) == 2
                await first[0].close()  # a seat frees up: the next tab gets an explorer
                wait_until(lambda: len(served.explorers()) == 1, "the closed tab's explorer ending")
                async with session.get(served.url + "/") as page:
                    assert page.status == 200
                again = await session.ws_connect(ws_url(served))
                await screen_until(again, b"step")
                assert len(served.explorers()) == 2

        asyncio.run(three_tabs())


@linux
def test_an_idle_explorer_ends_and_its_tab_is_told():
    with serving("--idle-minutes", "0.03") as served:  # 1.8 s

        async def idle_tab() -> bytes:
            async with aiohttp.ClientSession() as session:
                ws = await session.ws_connect(ws_url(served))
                await screen_until(ws, b"step")
                [explorer] = served.explorers()
                told = await screen_until(ws, b"Reload the page")  # the tab stays, saying so
                wait_until(lambda: not alive(explorer), "the idle explorer ending")
                await ws.close()
                return explorer, told

        explorer, told = asyncio.run(idle_tab())
        assert b"This explorer has ended: 2 seconds without a key or a click" in told
        wait_until(lambda: not alive(explorer), "the idle explorer ending")
        [line] = stop(served).splitlines()
        assert line.startswith("bpe-tui: serve: 1 explorer ended: their tabs were idle for 2 seconds")


@linux
def test_load_more_tabs_than_the_cap_memory_stays_bounded_and_the_first_tabs_answer():
    """Twelve tabs on a room of four, opened together: four explorers, eight pages told the
    room is full; the first four still step when a key comes. Bounded: 12 tabs, a minute."""
    cap, tabs_opened = 4, 12
    with serving("--max-tabs", str(cap)) as served:

        async def load():
            async with aiohttp.ClientSession() as session:
                tabs = await asyncio.gather(*(session.ws_connect(ws_url(served)) for _ in range(tabs_opened)))
                screens = await asyncio.gather(*(_first_screen(t) for t in tabs))
                seated = [t for t, s in zip(tabs, screens) if b"room is full" not in s]
                assert len(seated) == cap and len(served.explorers()) == cap
                explorers = served.explorers()
                memory = {pid: rss_mb(pid) for pid in explorers}
                server_memory = rss_mb(served.proc.pid)
                for tab in seated:  # each of the first tabs still answers: a key steps its explorer
                    await tab.send_str('["stdin", " "]')
                    await redrawn(tab)
                    await tab.send_str('["ping", "1"]')
                    while (msg := await asyncio.wait_for(tab.receive(), 30)).type != aiohttp.WSMsgType.TEXT:
                        pass
                    assert msg.json() == ["pong", "1"]
                await asyncio.gather(*(t.close() for t in tabs))
                return memory, server_memory

        memory, server_memory = asyncio.run(load())
        print(f"\nload test: {tabs_opened} tabs on --max-tabs {cap}: explorers {sorted(round(m) for m in memory.values())} MB, server {server_memory:.0f} MB")
        assert len(memory) == cap
        assert all(m < 250 for m in memory.values()) and server_memory < 250
        wait_until(lambda: served.explorers() == [], "every explorer ending")


async def _first_screen(ws, seconds: float = 60) -> bytes:
    """What a tab shows first: its explorer's screen (up to the status line), or the line
    saying the room is full."""
    seen = b""
    while b"step" not in seen and b"Reload the page" not in seen:
        msg = await asyncio.wait_for(ws.receive(), seconds)
        assert msg.type == aiohttp.WSMsgType.BINARY
        seen += msg.data
    return seen

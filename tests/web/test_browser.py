"""The explorer in a real browser: ``bpe-tui serve`` on a free loopback port, a headless Chromium
loads the page, the terminal draws the explorer, space pressed in the page steps it, and the
step counter the page shows moves from 0 to 1.

Marked ``serial``: a browser and an explorer drawing at 60 frames a second cannot share the
machine's cores with a parallel run. Every wait is bounded; the browser's process group, the
server and its explorers are killed at the end whatever happened (see browser.py, served.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.web.served import alive, serving, wait_until

pytest.importorskip("textual_serve", reason="serve needs bpe-tui[web]")
from tests.web.browser import CHROMIUM, chromium  # noqa: E402  (aiohttp comes with textual-serve)

pytestmark = [
    pytest.mark.serial,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs Debian's chromium)"),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc to see the explorer processes"),
]


def test_space_pressed_in_the_page_steps_the_served_explorer(tmp_path):
    with serving() as served:

        async def in_the_browser() -> list[int]:
            async with chromium(tmp_path / "profile") as tools:
                tab = await tools.tab(1200, 800)
                await tab.load(served.url)
                first = await tab.wait_for_screen(r"demo\.txt .* step (\d+)/(\d+)")
                assert first.group(1) == "0"
                # the page took the explorer's output: the intro dialog gave way to the terminal
                assert await tab.evaluate("document.body.classList.contains('-first-byte')")
                before = await tab.screenshot()
                explorers = served.explorers()
                assert len(explorers) == 1

                await tab.press(" ", "Space", 32, text=" ")
                moved = await tab.wait_for_screen(r"step (\d+)/(\d+)[\s\S]*1 merge\b")
                assert moved.group(1) == "1" and moved.group(2) == first.group(2)
                after = await tab.screenshot()
                assert before.startswith(b"\x89PNG") and after.startswith(b"\x89PNG")
                assert before != after  # the canvas was drawn again with the new state

                await tab.close()
                return explorers

        [explorer] = asyncio.run(asyncio.wait_for(in_the_browser(), 240))
        wait_until(lambda: not alive(explorer), "the closed tab's explorer ending", 30)


def test_a_tab_beyond_the_cap_shows_the_room_is_full_and_a_reload_gets_the_freed_seat(tmp_path):
    """What a student sees: with --max-tabs 1 taken, the page says the room is full (and no
    explorer starts); once the first tab closes, reloading gives an explorer."""
    with serving("--max-tabs", "1") as served:

        async def two_students() -> list[int]:
            async with chromium(tmp_path / "profile") as tools:
                first = await tools.tab(1000, 640)
                await first.load(served.url)
                await first.wait_for_screen(r"step (\d+)/(\d+)")
                second = await tools.tab(1000, 640)
                await second.load(served.url)
                said = await second.evaluate("document.body.innerText")
                assert "The room is full" in said and "runs 1 explorer at once, and every one is in use" in said
                (tmp_path / "room-full.png").write_bytes(await second.screenshot())
                explorers = served.explorers()
                assert len(explorers) == 1  # the second tab started none
                await first.close()
                wait_until(lambda: served.explorers() == [], "the first tab's explorer ending", 30)
                await second.load(served.url)  # a reload: the seat is free
                await second.wait_for_screen(r"step (\d+)/(\d+)")
                explorers += served.explorers()
                await second.close()
                return explorers

        explorers = asyncio.run(asyncio.wait_for(two_students(), 240))
        wait_until(lambda: not any(alive(p) for p in explorers), "every explorer ending", 30)

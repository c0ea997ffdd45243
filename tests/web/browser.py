"""A headless Chromium driven over the Chrome DevTools Protocol (CDP), for the browser test and
the benchmark: open a tab, load a page, read the served explorer's screen, press keys.

The protocol is JSON over a websocket (aiohttp's client, which textual-serve brings): commands
with an id and their answers, and events. The page textual-serve serves draws the terminal with
xterm.js on a canvas, so the text is not in the DOM; the terminal object is, in the page's heap:
:meth:`Tab.terminal` finds it with ``Runtime.queryObjects`` (what DevTools' console calls
``queryObjects``) and reads its buffer, the text xterm.js draws, row by row.

Chromium runs as root here (CI containers), hence ``--no-sandbox``; every run has a fresh
profile, and its process group is killed when the block ends, whatever happened.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
)

#: The page's terminal object: the one holding both xterm's ``terminal`` and the session's websocket URL.
FIND_TERMINAL = """function () {
    const session = this.find(o => o && o.terminal && o.websocket_url);
    if (!session) return false;
    window.__terminal = session.terminal;
    return true;
}"""

SCREEN = """(() => {
    const t = window.__terminal, rows = [];
    for (let y = 0; y < t.rows; y++) rows.push(t.buffer.active.getLine(y).translateToString(true));
    return rows.join("\\n");
})()"""


class DevToolsError(RuntimeError):
    pass


class DevTools:
    """The browser's DevTools websocket: :meth:`send` a command (to a tab's session or the
    browser), :meth:`event` waits for an event."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.answers: dict[int, asyncio.Future] = {}
        self.events: asyncio.Queue = asyncio.Queue()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            data = json.loads(message.data)
            if "id" in data:
                answer = self.answers.pop(data["id"], None)
                if answer is not None and not answer.done():
                    answer.set_result(data)
            else:
                self.events.put_nowait(data)
        for answer in self.answers.values():
            if not answer.done():
                answer.set_exception(DevToolsError("the browser closed its DevTools connection"))

    async def send(self, method: str, session: str | None = None, timeout: float = 30, **params: Any) -> dict:
        number = next(self.ids)
        answer = asyncio.get_running_loop().create_future()
        self.answers[number] = answer
        message: dict[str, Any] = {"id": number, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        await self.ws.send_str(json.dumps(message))
        data = await asyncio.wait_for(answer, timeout)
        if "error" in data:
            raise DevToolsError(f"{method}: {data['error'].get('message')}")
        return data["result"]

    async def event(self, method: str, timeout: float = 30) -> dict:
        """The next event named ``method`` (others before it are dropped)."""
        return await asyncio.wait_for(self._next(method), timeout)

    async def _next(self, method: str) -> dict:
        while True:
            event = await self.events.get()
            if event.get("method") == method:
                return event

    async def tab(self, width: int = 1200, height: int = 800) -> Tab:
        """A new tab of ``width`` x ``height`` CSS pixels, its page and runtime events on."""
        target = (await self.send("Target.createTarget", url="about:blank"))["targetId"]
        session = (await self.send("Target.attachToTarget", targetId=target, flatten=True))["sessionId"]
        tab = Tab(self, session, target)
        await tab.send("Page.enable")
        await tab.send("Runtime.enable")
        await tab.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        return tab


class Tab:
    """One tab, through its DevTools session."""

    def __init__(self, tools: DevTools, session: str, target: str) -> None:
        self.tools = tools
        self.session = session
        self.target = target

    async def close(self) -> None:
        await self.tools.send("Target.closeTarget", targetId=self.target)

    async def send(self, method: str, **params: Any) -> dict:
        return await self.tools.send(method, self.session, **params)

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise DevToolsError(f"{expression[:60]!r}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    async def load(self, url: str, timeout: float = 60) -> None:
        """Go to ``url`` and wait for its load event."""
        await self.send("Page.navigate", url=url)
        await self.tools.event("Page.loadEventFired", timeout)

    async def terminal(self) -> bool:
        """Find the page's terminal object (once the page has made it); True when found."""
        proto = (await self.send("Runtime.evaluate", expression="Object.prototype"))["result"]["objectId"]
        objects = (await self.send("Runtime.queryObjects", prototypeObjectId=proto))["objects"]["objectId"]
        try:
            found = await self.send("Runtime.callFunctionOn", objectId=objects, functionDeclaration=FIND_TERMINAL, returnByValue=True)
        finally:
            await self.send("Runtime.releaseObject", objectId=objects)
        return bool(found["result"].get("value"))

    async def screen(self) -> str:
        """The terminal's rows as text (found by :meth:`terminal` first)."""
        return await self.evaluate(SCREEN)

    async def wait_for_screen(self, pattern: str, timeout: float = 60, every: float = 0.02) -> re.Match:
        """Poll the terminal until its text matches ``pattern``; the match."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        text = ""
        while loop.time() < deadline:
            if await self.evaluate("!!window.__terminal") or await self.terminal():
                text = await self.screen()
                if found := re.search(pattern, text):
                    return found
            await asyncio.sleep(every)
        raise AssertionError(f"{pattern!r} did not appear on the page's terminal within {timeout}s; it showed:\n{text}")

    async def press(self, key: str, code: str, key_code: int, text: str | None = None) -> None:
        """A key pressed and released in the page, as a keyboard does it (focus on the terminal)."""
        await self.evaluate("window.__terminal.focus()")
        down: dict[str, Any] = dict(type="keyDown", key=key, code=code, windowsVirtualKeyCode=key_code)
        if text is not None:
            down["text"] = text
        await self.send("Input.dispatchKeyEvent", **down)
        await self.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=key_code)

    async def screenshot(self) -> bytes:
        return base64.b64decode((await self.send("Page.captureScreenshot", format="png"))["data"])


@contextlib.asynccontextmanager
async def chromium(profile: Path, timeout: float = 60) -> AsyncIterator[DevTools]:
    """A headless Chromium with a fresh profile in ``profile``, until the block ends (then its
    process group is killed)."""
    assert CHROMIUM is not None, "no chromium on PATH"
    proc = await asyncio.create_subprocess_exec(
        CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    drain = None
    try:
        assert proc.stderr is not None
        url = await asyncio.wait_for(_devtools_url(proc.stderr), timeout)
        drain = asyncio.create_task(_drain(proc.stderr))  # a full pipe would stall the browser
        async with aiohttp.ClientSession() as http, http.ws_connect(url, max_msg_size=0) as ws:
            tools = DevTools(ws)
            try:
                yield tools
            finally:
                tools.reader.cancel()
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        if drain is not None:
            drain.cancel()


async def _devtools_url(stderr: asyncio.StreamReader) -> str:
    """The browser's DevTools websocket, from the line Chromium prints when it listens."""
    lines = []
    while line := (await stderr.readline()).decode(errors="replace"):
        if found := re.search(r"DevTools listening on (ws://\S+)", line):
            return found.group(1)
        lines.append(line)
    raise DevToolsError("chromium exited before listening:\n" + "".join(lines[-10:]))


async def _drain(stderr: asyncio.StreamReader) -> None:
    while await stderr.read(65536):
        pass

"""The server behind ``bpe-tui serve``: textual-serve's, with explorers that always end.

textual-serve (Textualize's server, the optional extra ``bpe-tui[web]``) serves a page holding a
terminal (xterm.js) and, for each websocket a page opens, starts the app's command with Textual's
web driver and relays the screen and the keys. It is imported only by ``serve``, after checking
that it is installed. What this module changes, and why:

* **Each tab's explorer is a process group of its own**, started without a shell from an argument
  list (a corpus path with spaces or quotes is one argument, never shell text), and
  :meth:`ExplorerSession.end` ends it for certain: the web driver's "quit" first, then SIGTERM to
  the whole group (worker processes too), then SIGKILL. textual-serve only sends "quit" and waits.
* **Stopping the server ends every explorer**: ``on_shutdown`` ends the sessions before the
  server waits for its handlers, and :meth:`ExplorerServer.kill_sessions` kills what is left if
  the event loop itself dies first.
* **The page's links use the address the browser used** (textual-serve writes the bound host into
  them, which a student cannot reach when it is ``0.0.0.0``).
* **Only pages from this server drive an explorer**: a websocket whose Origin is another site is
  refused (any web page a teacher visits could otherwise open one to ``localhost`` and read files
  through the explorer), and a server on loopback answers only to a loopback host name (a site
  that points its own name at 127.0.0.1, "DNS rebinding", is refused too).
* **A room holds so many tabs** (``max_tabs``): the next one gets a page saying the room is full
  (:data:`ROOM_FULL`), and no explorer (``serve``'s ``--max-tabs``: its default is a class on a
  2-CPU, 24 GB machine).
* **What a tab sends is checked** (:func:`parse_frame`): a frame that is not one of the page's
  (textual-serve's own code met a frame that was not JSON, or ``["stdin", 5]``, with a
  traceback) is logged in one line and the tab closed; a screen size (on the page's address or
  in a resize) is clamped to what a screen can be (:func:`screen_size`: 20000 x 20000 grew an
  explorer to 2.1 GB).
* **An idle explorer ends** after ``idle_minutes`` without a key, a click or a resize from its
  tab; the tab says so, and reloading it starts a new one.
* **The log is one line a record** (:class:`OneLineLog`): a request with two Host headers, a
  tab gone mid-start, a stop while tabs are open, whatever aiohttp or asyncio has to say, never
  a traceback, names escaped.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import ipaddress
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager
from textual_serve.server import Server, to_int

from ..core.wording import one_line, plural

#: Seconds an explorer has to quit when asked, and then to die after SIGTERM.
QUIT_GRACE = 3.0
TERM_GRACE = 2.0
#: How often (seconds) idle explorers are looked for.
IDLE_CHECK_SECONDS = 30.0
#: The screen sizes a tab may ask for, in cells: the largest is an 8K display (7680 x 4320
#: pixels) in 6 x 12-pixel cells; an explorer's memory grows with them (75 MB at 1280 x 400).
MIN_COLUMNS, MAX_COLUMNS = 10, 1280
MIN_ROWS, MAX_ROWS = 5, 360
#: The longest ping a tab may send (the page sends a time in milliseconds).
MAX_PING = 64

#: The page a tab gets when the room is full (its fields escaped: see room_full_page).
ROOM_FULL = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}: the room is full</title>
<style>body {{ background: #0c181f; color: #eee; font-family: "Roboto Mono", menlo, monospace;
display: flex; align-items: center; justify-content: center; height: 90vh; }}
main {{ max-width: 40em; background: #12232d; padding: 2em 3em; }}</style></head>
<body><main><h1>The room is full</h1>
<p>{title} runs {tabs} at once, and every one is in use.</p>
<p>Try again in a while (reload this page), or ask whoever runs the server: <code>bpe-tui serve --max-tabs N</code>
sets how many.</p></main></body></html>
"""

log = logging.getLogger("bpe_tui.serve")


def terminal_lines(text: str) -> bytes:
    """``text`` as a tab's terminal shows it, on a line of its own."""
    return ("\r\n  " + one_line(text) + "\r\n").encode("utf-8")


def screen_size(width: int, height: int) -> tuple[int, int]:
    """A tab's screen size, in cells, clamped to what a screen can be."""
    return min(max(width, MIN_COLUMNS), MAX_COLUMNS), min(max(height, MIN_ROWS), MAX_ROWS)


class BadFrame(ValueError):
    """A websocket frame that is not one the page sends: what is wrong with it, in words."""


def parse_frame(text: str) -> tuple[str, Any]:
    """``(kind, data)`` of a frame from a tab, or :class:`BadFrame`.

    The page (textual-serve's textual.js) sends JSON lists: ``["stdin", text]``, ``["resize",
    {"width": w, "height": h}]``, ``["ping", text]``, ``["focus"]`` and ``["blur"]``. A resize's
    size comes back clamped (:func:`screen_size`).
    """
    try:
        frame = json.loads(text)
    except ValueError:
        raise BadFrame("a frame that is not JSON") from None
    if not isinstance(frame, list) or not frame or not isinstance(frame[0], str):
        raise BadFrame("a frame that is not a list [kind, data]")
    kind, data = frame[0], frame[1:]
    if kind in ("focus", "blur") and not data:
        return kind, None
    if len(data) != 1:
        raise BadFrame(f"a {kind!r} frame with {len(data)} values")
    value = data[0]
    if kind == "stdin" and isinstance(value, str):
        return kind, value
    if kind == "ping" and isinstance(value, str) and len(value) <= MAX_PING:
        return kind, value
    if kind == "resize" and isinstance(value, dict):
        width, height = value.get("width"), value.get("height")
        if type(width) is int and type(height) is int:  # (not a bool, not a float)
            return kind, screen_size(width, height)
    raise BadFrame(f"a {kind!r} frame that is not one the page sends")


class OneLineLog(logging.Formatter):
    """A log record as one line, escaped: its message, and the exception it carries, if any,
    as ``Type: what it says``, in place of a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            said = " ".join(str(exc).split())
            message = f"{message}: {type(exc).__name__}" + (f": {said}" if said else "")
        return "bpe-tui: serve: " + one_line(message)


def one_line_log() -> logging.Handler:
    """Every log record of the server (aiohttp's, asyncio's, textual-serve's, ours) as one line
    on stderr, warnings and above."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineLog())
    handler.setLevel(logging.WARNING)
    return handler


def is_loopback(address: str) -> bool:
    """Is ``address`` (an IP literal, maybe with an IPv6 scope) a loopback address?"""
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def is_unspecified(address: str) -> bool:
    """Is ``address`` 0.0.0.0 or ``::`` (every address of the machine)?"""
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_unspecified
    except ValueError:
        return False


def _host_name(host: str) -> str:
    """The name part of a Host header (``[::1]:8000`` -> ``::1``, ``localhost:8000`` -> ``localhost``)."""
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class ExplorerSession(AppService):
    """One browser tab's explorer: textual-serve's app service, run from an argument list in a
    process group of its own, and ended for certain by :meth:`end`."""

    def __init__(
        self,
        argv: list[str],
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        write_str: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[Any]],
        download_manager: DownloadManager,
    ) -> None:
        super().__init__(" ".join(argv), write_bytes=write_bytes, write_str=write_str, close=close, download_manager=download_manager)
        self.argv = argv
        #: When its tab last sent a key, a click or a resize (the event loop's clock).
        self.last_active = asyncio.get_running_loop().time()

    @property
    def pid(self) -> int | None:
        """The explorer's process id (also its process group's), once started."""
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,  # its own process group: ending it ends its workers too
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def end(self) -> None:
        """Quit the explorer: ask it (the web driver's quit), and if it has not gone within
        QUIT_GRACE seconds, SIGTERM its process group, then SIGKILL. Then close the tab's
        websocket. Safe to call more than once."""
        process = self._process
        if process is None:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stop(), QUIT_GRACE)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)  # the group: whatever the explorer started goes too
            try:
                await asyncio.wait_for(process.wait(), TERM_GRACE)
                break
            except asyncio.TimeoutError:
                continue
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.remote_close(), TERM_GRACE)

    async def retire(self, farewell: str) -> None:
        """End the explorer but leave its tab open, saying ``farewell`` (after the explorer has
        given the terminal back, so the line stays on the tab's screen); the tab's keys go
        nowhere from then on, and reloading the page starts a new explorer."""

        async def keep_open() -> None:
            return None

        self.remote_close = keep_open
        await self.end()
        with contextlib.suppress(Exception):  # (a tab already gone)
            await self.remote_write_bytes(terminal_lines(farewell))

    def kill(self) -> None:
        """SIGKILL the explorer's process group now (no event loop needed)."""
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)


class ExplorerServer(Server):
    """textual-serve's server, serving ``argv`` (the explorer's command line) on a socket that is
    already listening (``serve`` binds it, to say in one line when the port is taken), to at
    most ``max_tabs`` tabs at once, each explorer ending after ``idle_minutes`` idle (0: never)."""

    def __init__(self, argv: list[str], sock: socket.socket, title: str, max_tabs: int, idle_minutes: float) -> None:
        host, port = sock.getsockname()[:2]
        super().__init__(" ".join(argv), host=host, port=port, title=one_line(title))
        self.argv = argv
        self.sock = sock
        self.loopback = is_loopback(host)
        self.max_tabs = max_tabs
        self.idle_minutes = idle_minutes
        self.sessions: set[ExplorerSession] = set()
        self.started: Callable[[], None] | None = None  # called once the server answers
        self.stopped_by: int | None = None  # the signal that stopped it
        self._watch: asyncio.Task[None] | None = None

    def run(self) -> None:
        """Serve until SIGINT or SIGTERM (ctrl+c; :attr:`stopped_by` says which), then end every
        explorer (a second signal while they are asked to quit kills them at once)."""
        loop = asyncio.new_event_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self._stop, signum)
        root = logging.getLogger()
        handler = one_line_log()
        root.addHandler(handler)
        try:
            web.run_app(
                self._make_app(),
                sock=self.sock,
                handle_signals=False,  # (ours, above: they say which signal it was)
                shutdown_timeout=QUIT_GRACE + 2 * TERM_GRACE,
                access_log=None,
                print=None,
                loop=loop,
            )
        except GracefulExit:  # the second signal, raised while the first one's shutdown ran
            pass
        finally:
            self.kill_sessions()
            root.removeHandler(handler)

    def _stop(self, signum: int) -> None:
        """A signal: stop serving (the first), or stop waiting for the explorers (a second)."""
        if self.stopped_by is None:
            self.stopped_by = signum
        raise GracefulExit()

    def kill_sessions(self) -> int:
        """SIGKILL every explorer still running (the loop is gone: nothing can ask them)."""
        left = [s for s in self.sessions if s.running]
        for session in left:
            session.kill()
        return len(left)

    @property
    def full(self) -> bool:
        return len(self.sessions) >= self.max_tabs

    async def on_startup(self, app: web.Application) -> None:
        if self.idle_minutes:
            self._watch = asyncio.create_task(self._end_idle_explorers())
        if self.started is not None:
            self.started()

    async def on_shutdown(self, app: web.Application) -> None:
        if self._watch is not None:
            self._watch.cancel()
        await asyncio.gather(*(session.end() for session in list(self.sessions)), return_exceptions=True)

    async def _end_idle_explorers(self) -> None:
        """Every IDLE_CHECK_SECONDS, end the explorers whose tabs have been idle too long."""
        loop = asyncio.get_running_loop()
        limit = self.idle_minutes * 60
        while True:
            await asyncio.sleep(min(IDLE_CHECK_SECONDS, limit))
            now = loop.time()
            idle = [s for s in self.sessions if now - s.last_active >= limit]
            if not idle:
                continue
            quiet = plural(round(self.idle_minutes), "minute") if self.idle_minutes >= 1 else f"{limit:.0f} seconds"
            log.warning(f"{plural(len(idle), 'explorer')} ended: their tabs were idle for {quiet} (--idle-minutes)")
            for session in idle:
                self.sessions.discard(session)  # (its seat is free)
            farewell = f"This explorer has ended: {quiet} without a key or a click. Reload the page for a new one."
            await asyncio.gather(*(s.retire(farewell) for s in idle), return_exceptions=True)

    def refusal(self, request: web.Request) -> str | None:
        """Why this request may not have a page or an explorer, if it may not (see the module's
        docstring: other sites' pages, and other names for a loopback server)."""
        if self.loopback and not (_host_name(request.host) == "localhost" or is_loopback(_host_name(request.host))):
            return f"this server answers to localhost only, not {request.host!r}"
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            return f"a page from {origin!r} may not open an explorer here"
        return None

    def room_full_page(self) -> web.Response:
        """The page a tab gets when :attr:`max_tabs` explorers are open (status 503)."""
        body = ROOM_FULL.format(title=html.escape(self.title), tabs=html.escape(plural(self.max_tabs, "explorer")))
        return web.Response(status=503, text=body, content_type="text/html", headers={"Retry-After": "60"})

    async def handle_index(self, request: web.Request) -> Any:
        if (why := self.refusal(request)) is not None:
            raise web.HTTPForbidden(text=why)
        if self.full:
            return self.room_full_page()
        # The page's links (static files, the websocket) point where the browser came from.
        self.public_url = f"{request.scheme}://{request.host}"
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: its explorer, started when the page connects and ended when it goes (or
        when the room is full, a line saying so and no explorer)."""
        if (why := self.refusal(request)) is not None:
            raise web.HTTPForbidden(text=why)
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        if self.full:
            await websocket.send_bytes(terminal_lines(
                f"The room is full: {plural(self.max_tabs, 'explorer')} open already, as many as this server runs. "
                "Reload the page in a while."
            ))
            async for _ in websocket:  # the tab shows the line until it goes
                pass
            return websocket
        session = ExplorerSession(
            self.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        self.sessions.add(session)  # (counted at once: no await since `full` was asked)
        width, height = screen_size(to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24))
        try:
            # shielded: a tab gone while its explorer starts must not leave a process unrecorded
            await asyncio.shield(session.start(width, height))
            await self._process_messages(websocket, session, request.remote or "a tab")
        finally:
            await asyncio.shield(session.end())
            self.sessions.discard(session)
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, session: AppService, peer: str = "a tab") -> None:
        """Hand the tab's frames to its explorer (see :func:`parse_frame`); a bad frame is
        logged in one line and ends the tab."""
        assert isinstance(session, ExplorerSession)
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                log.warning(f"the tab from {peer} sent a frame that is not text ({message.type.name}); its explorer is ended")
                return
            try:
                kind, data = parse_frame(message.data)
            except BadFrame as exc:
                log.warning(f"the tab from {peer} sent {exc}; its explorer is ended")
                return
            if kind == "ping":
                await websocket.send_json(["pong", data])
            elif not session.running:
                continue  # (an explorer ended for idleness: its tab's keys go nowhere)
            elif kind == "stdin":
                session.last_active = asyncio.get_running_loop().time()
                await session.send_bytes(data.encode("utf-8"))
            elif kind == "resize":
                session.last_active = asyncio.get_running_loop().time()
                await session.set_terminal_size(*data)
            elif kind == "blur":
                await session.blur()
            elif kind == "focus":
                await session.focus()

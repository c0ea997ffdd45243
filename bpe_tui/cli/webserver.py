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
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import signal
import socket
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager
from textual_serve.server import Server, to_int

#: Seconds an explorer has to quit when asked, and then to die after SIGTERM.
QUIT_GRACE = 3.0
TERM_GRACE = 2.0


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

    def kill(self) -> None:
        """SIGKILL the explorer's process group now (no event loop needed)."""
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)


class ExplorerServer(Server):
    """textual-serve's server, serving ``argv`` (the explorer's command line) on a socket that is
    already listening (``serve`` binds it, to say in one line when the port is taken)."""

    def __init__(self, argv: list[str], sock: socket.socket, title: str) -> None:
        host, port = sock.getsockname()[:2]
        super().__init__(" ".join(argv), host=host, port=port, title=title)
        self.argv = argv
        self.sock = sock
        self.loopback = is_loopback(host)
        self.sessions: set[ExplorerSession] = set()
        self.started: Callable[[], None] | None = None  # called once the server answers

    def run(self) -> None:
        """Serve until SIGINT or SIGTERM (ctrl+c), then end every explorer (a second ctrl+c
        while they are asked to quit kills them at once)."""
        try:
            web.run_app(
                self._make_app(),
                sock=self.sock,
                handle_signals=True,  # SIGINT, SIGTERM: a graceful exit, on_shutdown first
                shutdown_timeout=QUIT_GRACE + 2 * TERM_GRACE,
                access_log=None,
                print=None,
                loop=asyncio.new_event_loop(),
            )
        except GracefulExit:  # the second signal, raised while the first one's shutdown ran
            pass
        finally:
            self.kill_sessions()

    def kill_sessions(self) -> int:
        """SIGKILL every explorer still running (the loop is gone: nothing can ask them)."""
        left = [s for s in self.sessions if s.running]
        for session in left:
            session.kill()
        return len(left)

    async def on_startup(self, app: web.Application) -> None:
        if self.started is not None:
            self.started()

    async def on_shutdown(self, app: web.Application) -> None:
        await asyncio.gather(*(session.end() for session in list(self.sessions)), return_exceptions=True)

    def refusal(self, request: web.Request) -> str | None:
        """Why this request may not have a page or an explorer, if it may not (see the module's
        docstring: other sites' pages, and other names for a loopback server)."""
        if self.loopback and not (_host_name(request.host) == "localhost" or is_loopback(_host_name(request.host))):
            return f"this server answers to localhost only, not {request.host!r}"
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            return f"a page from {origin!r} may not open an explorer here"
        return None

    async def handle_index(self, request: web.Request) -> Any:
        if (why := self.refusal(request)) is not None:
            raise web.HTTPForbidden(text=why)
        # The page's links (static files, the websocket) point where the browser came from.
        self.public_url = f"{request.scheme}://{request.host}"
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: its explorer, started when the page connects and ended when it goes."""
        if (why := self.refusal(request)) is not None:
            raise web.HTTPForbidden(text=why)
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        session = ExplorerSession(
            self.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        self.sessions.add(session)
        try:
            await session.start(to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24))
            await self._process_messages(websocket, session)
        finally:
            await session.end()
            self.sessions.discard(session)
        return websocket

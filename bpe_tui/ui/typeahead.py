"""Keys typed ahead: each key is done before the next one is read, and keys typed while the
first screen is loading are held for the screen that takes them.

A person who presses ``e`` and types ``zebra`` means the word for the encode box. Textual
reads keys as they come and hands each to the widget that has the focus *now*; ``e`` moves
the focus only once its way up the screen is over (a binding runs when the key comes back up
to the App, and the new focus is set a message later). Keys that arrived together (typed
fast, pasted by tmux, read in one go from a busy terminal) went to the old focus: ``z``
zoomed, ``b`` undid, ``r`` ran, ``a`` opened the audit. And while the explorer reads the
corpus the command line named, the start screen has no encode box at all.

:class:`TypeAhead` (the App calls it from ``on_event``) keeps the order people mean:

* one key at a time: a key goes where the focus is, followed by a :class:`KeyDone` marker on
  the same path; the marker bubbles back up to the App behind the key, and only then is the
  next key let through (a binding's new focus set by then). A marker whose widget went away
  (a screen closed) is given up once the widget is no longer in the DOM, or after
  :data:`GIVE_UP_SECONDS`, so keys are never stuck;
* while the first corpus or table loads (:meth:`TypeAhead.hold_until_ready`), every key is
  held, except the keys that act on the loading itself, which go at once whatever is held:
  escape cancels it (a long read must not wait for its own end to be stopped), ctrl+q quits;
  once the session's screen is up (:meth:`TypeAhead.ready`), the held keys are delivered to
  it, one at a time. If the loading stops instead (cancelled, failed, or asking a question),
  the keys typed before it are dropped: they were meant for a screen that did not come, and
  cannot have been meant as the question's answer.
"""

from __future__ import annotations

import time
from collections import deque

from textual import events
from textual.app import App
from textual.timer import Timer
from textual.widget import Widget

#: Keys that act on a loading screen itself, let through at once while the first screen loads.
LOADING_KEYS = frozenset({"escape", "ctrl+q", "ctrl+c"})
#: A marker not back after this long is given up (its widget swallowed it): the next key goes.
GIVE_UP_SECONDS = 5.0
#: How often a marker on its way is checked for a widget that went away.
CHECK_SECONDS = 0.1


class KeyDone(events.Key):
    """Follows a key on its way (same widget, same queue, behind it): when it reaches the App
    the key before it is done. Its handler name is its own (``on_key_done``), so no widget
    reads it as a key press; it only bubbles."""

    def __init__(self) -> None:
        super().__init__("bpe-tui-key-done", None)


class TypeAhead:
    """The App's keys, one at a time, and held while the first screen loads (module docstring)."""

    def __init__(self, app: App) -> None:
        self.app = app
        self._held: deque[tuple[str, str | None]] = deque()
        self._loading = False
        #: The marker on its way, the widget it was sent to, and when.
        self._marker: KeyDone | None = None
        self._target: Widget | None = None
        self._sent_at = 0.0
        self._timer: Timer | None = None
        #: The held key let go last: it goes on when it comes round (it waited its turn).
        self._released: events.Key | None = None

    # ------------------------------------------------------------------ what the App asks

    def takes(self, event: events.Key) -> bool:
        """Whether ``event`` (a key from the terminal) waits here; False: dispatch it now and
        call :meth:`sent` after."""
        if event is self._released:
            self._released = None
            return False
        if self._loading and event.key in LOADING_KEYS:
            return False
        if self._loading or self._marker is not None or self._held:
            self._held.append((event.key, event.character))
            return True
        return False

    def sent(self, target: Widget) -> None:
        """A key was just dispatched towards ``target`` (the focused widget or the screen):
        send the marker after it."""
        marker = KeyDone()
        self._marker, self._target, self._sent_at = marker, target, time.monotonic()
        target.post_message(marker)  # (behind the key in the same queue, as the App forwards it)
        if self._timer is None:
            self._timer = self.app.set_interval(CHECK_SECONDS, self._check, name="type-ahead")
        else:
            self._timer.resume()

    def arrived(self, marker: KeyDone) -> None:
        """A marker came back up to the App: its key is done; let the next one go."""
        if marker is self._marker:
            self._next()

    # ------------------------------------------------------------------ the first screen

    def hold_until_ready(self) -> None:
        """The first corpus or table is loading: hold every key (see :meth:`takes`)."""
        self._loading = True

    def ready(self) -> None:
        """The session's screen is up and has its focus: deliver what was typed meanwhile."""
        if self._loading:
            self._loading = False
            if self._marker is None:
                self._next()

    def drop(self) -> None:
        """The first loading stopped (cancelled, failed, or asking a question): what was typed
        for its screen goes. (Any later load's end changes nothing here.)"""
        if self._loading:
            self._loading = False
            self._held.clear()

    # ------------------------------------------------------------------ the queue

    def _next(self) -> None:
        self._marker = self._target = None
        if self._timer is not None:
            self._timer.pause()
        if self._held and not self._loading:
            key, character = self._held.popleft()
            self._released = events.Key(key, character)
            self.app.post_message(self._released)

    def _check(self) -> None:
        """A marker on its way: give it up if its widget has gone, or after GIVE_UP_SECONDS."""
        if self._marker is None:
            return
        target = self._target
        gone = target is None or not target.is_attached
        if gone or time.monotonic() - self._sent_at > GIVE_UP_SECONDS:
            self._next()

"""Textual apps inside a front process, each drawing on a terminal at the far end of an SSH channel or a
browser page's socket.

``ChannelTerminal`` is one session's terminal as the server sees it: the client's TERM and size,
the bytes it types, rate-limited, and what is drawn, in the colours that terminal has.
``ChannelDriver`` is the Textual driver that draws by writing to it and turns its bytes into key
and mouse events with Textual's own parser. ``adapt_app_to_terminal`` makes an ``App`` fit to share
the process with other sessions.

Colour: every session app renders in 24-bit colour and each terminal converts what is drawn to its
client's depth. Rendering at each client's depth would not work in one process: Textual and Rich
keep rendered escape codes on shared style and strip objects (``Style._ansi``,
``Strip._render_cache``), so one session's depth would leak into the others' screens.

Parts of this lean on Textual internals (the input parser's cache, the stdout redirection in
``App._process_messages``, ``App.console``, ``Stylesheet._parse_rules``); pyproject pins Textual's
minor version and tests/test_ssh.py fails loudly when they change.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import re
from collections import deque
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO, Literal, TextIO, cast

import textual.app as textual_app
from rich.color import Color, ColorSystem
from rich.console import Console
from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.driver import Driver
from textual.filter import Monochrome, NoColor
from textual.geometry import Size
from textual.message import Message
from textual.message_pump import MessagePump

from ..i18n import gettext as _

if TYPE_CHECKING:
    from textual.app import App

log = logging.getLogger("ono99.ssh")

DEFAULT_SIZE = (80, 24)
MAX_COLUMNS = 500  # a claimed terminal of 100000 columns would make Textual allocate for all of them
MAX_ROWS = 250
INPUT_HIGH_WATER = 64 * 1024  # typed bytes waiting for the rate limit before the channel stops reading
INPUT_LOW_WATER = 16 * 1024
INPUT_CHUNK = 64  # with the bucket empty, wait for this many bytes: a key's escape sequence stays whole
OUTPUT_BACKLOG = 4 * 1024 * 1024  # bytes the client has not taken before the session counts as stuck
ESCAPE_TICK = constants.ESCAPE_DELAY + 0.01  # after this, a lone Esc in the parser is the Escape key

# Sequences written when the app takes the terminal and when it gives it back.
ENTER_SEQUENCE = "".join((
    "\x1b[?1049h",  # the alternate screen
    "\x1b[?25l",  # hide the cursor
    "\x1b[?2004h",  # bracketed paste
    "\x1b[?7l",  # no line wrap
    "\x1b[?2026$p",  # ask whether the terminal has synchronized output
))
LEAVE_SEQUENCE = "\x1b[?2004l\x1b[?7h\x1b[?1049l\x1b[?25h"
# Clicks and wheel with SGR coordinates; no motion reports, which would be most of the input.
MOUSE_ON = "\x1b[?1000h\x1b[?1006h"
MOUSE_OFF = "\x1b[?1000l\x1b[?1006l"


def clamp_size(width: int, height: int) -> tuple[int, int]:
    if width <= 0 or height <= 0:
        return DEFAULT_SIZE
    return min(width, MAX_COLUMNS), min(height, MAX_ROWS)


class ChannelTerminal:
    """The terminal of one SSH session: what the client types, rate-limited, and a way to draw.

    Bytes wait in a queue and reach the driver at ``bytes_per_second`` (bursts of ``burst``), so a
    paste flood in one session is spread out instead of holding the event loop every session shares;
    past ``INPUT_HIGH_WATER`` waiting bytes the channel stops reading and SSH flow control holds the
    client back.
    """

    def __init__(self, send: Callable[[bytes], None], *, term: str, size: tuple[int, int],
                 env: Mapping[str, str], bytes_per_second: float, burst: int,
                 pause_reading: Callable[[], None], resume_reading: Callable[[], None]) -> None:
        self.send = send
        self.term = term
        self.size = clamp_size(*size)
        self.env = dict(env)
        self.color_system = client_color_system(term, env)  # "truecolor", "256", "standard" or None
        self._system = COLOR_SYSTEMS.get(self.color_system or "")
        self.rate = bytes_per_second
        self.burst = float(burst)
        self._pause_reading = pause_reading
        self._resume_reading = resume_reading
        self._driver: ChannelDriver | None = None
        self._pending: deque[bytes] = deque()
        self.pending_bytes = 0
        self.delivered_bytes = 0
        self._level = float(burst)
        self._stamp = 0.0
        self._paused = False
        self._pump_handle: asyncio.TimerHandle | None = None
        self.muted = False  # what the app draws is not sent: a shared app draws this terminal (sharing.py)

    # --- from the client ---------------------------------------------------------------------------
    def receive(self, data: bytes) -> None:
        if not data:
            return
        self._pending.append(data)
        self.pending_bytes += len(data)
        if self.pending_bytes > INPUT_HIGH_WATER and not self._paused:
            self._paused = True
            self._pause_reading()
        if self._pump_handle is None:
            self._pump()

    def resize(self, width: int, height: int) -> None:
        self.size = clamp_size(width, height)
        if self._driver is not None:
            self._driver.resize(*self.size)

    # --- to the driver -----------------------------------------------------------------------------
    def attach(self, driver: ChannelDriver) -> None:
        self._driver = driver
        self._stamp = asyncio.get_running_loop().time()
        self._pump()

    def detach(self) -> None:
        self._driver = None
        self._pending.clear()
        self.pending_bytes = 0
        if self._pump_handle is not None:
            self._pump_handle.cancel()
            self._pump_handle = None

    def write(self, text: str) -> None:
        if not self.muted:
            self.send(self.encode(text))

    def encode(self, text: str) -> bytes:
        """What is drawn, as bytes in the colours this terminal has."""
        if self._system is not ColorSystem.TRUECOLOR:
            text = _SGR.sub(lambda m: _downgrade_sgr(m.group(1), self._system), text)
        return text.encode("utf-8", "replace")

    def _pump(self) -> None:
        self._pump_handle = None
        driver = self._driver
        if driver is None:
            return  # keys typed before the app started wait for it
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._level = min(self.burst, self._level + (now - self._stamp) * self.rate)
        self._stamp = now
        while self._pending and self._level >= 1:
            chunk = self._pending.popleft()
            allowed = int(self._level)
            if len(chunk) > allowed:
                self._pending.appendleft(chunk[allowed:])
                chunk = chunk[:allowed]
            self._level -= len(chunk)
            self.pending_bytes -= len(chunk)
            self.delivered_bytes += len(chunk)
            driver.feed(chunk)
            if self._driver is not driver:  # the app stopped while handling that input
                return
        if self._paused and self.pending_bytes < INPUT_LOW_WATER:
            self._paused = False
            self._resume_reading()
        if self._pending:
            wanted = min(self.pending_bytes, INPUT_CHUNK) - self._level
            self._pump_handle = loop.call_later(max(wanted, 1) / self.rate, self._pump)


class SessionParser(XTermParser):
    """Textual's input parser without its process-wide cache of parsed key sequences: the cache
    keeps the parser and the key events it made, and each event, once sent, its App; so every
    session that ever received such a key would stay in memory, and two sessions would share
    event objects."""

    def _parse_extended_key(self, sequence: str) -> list[events.Key] | None:  # type: ignore[override]  # cached there
        return _parse_extended_key_uncached(self, sequence)


_parse_extended_key_uncached: Callable[[XTermParser, str], list[events.Key] | None] = \
    XTermParser._parse_extended_key.__wrapped__


class ChannelDriver(Driver):
    """A Textual driver for a ``ChannelTerminal``; the app must have it as ``terminal``.

    Everything runs on the event loop: no input thread, no signals, no tty of the server's.
    """

    def __init__(self, app: App[Any], *, debug: bool = False, mouse: bool = True,
                 size: tuple[int, int] | None = None) -> None:
        terminal = getattr(app, "terminal", None)
        if not isinstance(terminal, ChannelTerminal):
            raise TypeError("ChannelDriver needs an app with a ChannelTerminal as its terminal")
        super().__init__(app, debug=False, mouse=mouse, size=size or terminal.size)
        self.terminal = terminal
        self._parser = SessionParser()
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self._tick_handle: asyncio.TimerHandle | None = None
        self._started = False
        self._backlog: deque[Message] = deque()  # parsed input waiting for a key's binding to run
        self._settling = False

    def write(self, data: str) -> None:
        self.terminal.write(data)

    def start_application_mode(self) -> None:
        self._started = True
        self.write(ENTER_SEQUENCE + (MOUSE_ON if self._mouse else ""))
        # The app starts at the size it was given and lays itself out at that size; a Resize of the
        # same size would only make it lay out its screens again.
        if self._size != self.terminal.size:
            self.resize(*self.terminal.size)
        self.terminal.attach(self)

    def stop_application_mode(self) -> None:
        self.disable_input()
        if self._started:
            self._started = False
            self.write((MOUSE_OFF if self._mouse else "") + LEAVE_SEQUENCE)

    def disable_input(self) -> None:
        self.terminal.detach()
        self._backlog.clear()
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None

    # --- input -------------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        text = self._decode(data)
        if text:
            self._backlog.extend(self._parser.feed(text))
            self._deliver()
        # A lone Esc stays in the parser until its timeout passes: something must look again then
        # (Textual's own drivers poll from an input thread; here a timer runs only after input).
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        self._tick_handle = self._loop.call_later(ESCAPE_TICK, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        self._backlog.extend(self._parser.tick())
        self._deliver()
        if getattr(self._parser, "_timeout_time", None) is not None:
            self._tick_handle = self._loop.call_later(ESCAPE_TICK, self._tick)

    def _deliver(self) -> None:
        """Hand the parsed input to the app in order. A key that is not text may run a binding, and
        Textual runs a focused widget's binding (ctrl+u, Enter in an input) only once the key has
        bubbled from that widget back up to the app, while the keys after it are forwarded at once:
        typed in one burst, as SSH input often arrives, ``ctrl+u xyzzy Enter`` put xyzzy in the box,
        then wiped it, then sent the empty box. So after such a key the rest waits until every
        node on its way up has processed what it held."""
        while self._backlog and not self._settling:
            message = self._backlog.popleft()
            self.process_message(message)
            if isinstance(message, events.Key) and not message.is_printable and self._backlog:
                self._settle_key()

    def _settle_key(self) -> None:
        app = self._app
        focused = app.focused
        # The app forwards the key to the focused widget (or the screen), which passes it up its
        # ancestors to the app again: a callback queued behind it at each node in turn.
        path: list[MessagePump] = [app, *([focused, *focused.ancestors] if focused is not None
                                          else [app.screen, app])]
        self._settling = True

        def step(rest: list[MessagePump]) -> None:
            if not rest:
                self._settling = False
                self._deliver()
                return
            if not rest[0].call_later(step, rest[1:]):  # closing: nothing more will come of the key
                step(rest[1:])

        step(path)

    def send_message(self, message: Message) -> None:
        self._app.post_message(message)  # already on the event loop: no thread hop needed

    def resize(self, width: int, height: int) -> None:
        self._size = (width, height)
        self._post_resize(width, height)

    def _post_resize(self, width: int, height: int) -> None:
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    # --- nothing reaches the server machine --------------------------------------------------------
    def open_url(self, url: str, new_tab: bool = True) -> None:
        """Refused: it would open a browser on the server."""
        log.info("refused to open a URL for an SSH session")
        self._app.notify(_("Open this link on your own machine: {url}").format(url=url), title=_("Link"), markup=False,
                         timeout=15)

    def deliver_binary(self, binary: BinaryIO | TextIO, *, delivery_key: str, save_path: Path,
                       open_method: Literal["browser", "download"] = "download", encoding: str | None = None,
                       mime_type: str | None = None, name: str | None = None) -> None:
        """Refused: Textual's default writes the file to the server's disk."""
        log.warning("refused to save a file for an SSH session (%s)", save_path.name)
        with contextlib.suppress(Exception):
            binary.close()
        self._app.post_message(events.DeliveryFailed(
            delivery_key, PermissionError(_("files are not saved on the server for an SSH session")), name))


# --- sharing the process ---------------------------------------------------------------------------
class _NoPrintCapture:
    """Where Textual keeps an app's print capture, for an in-process session app: the guard below
    keeps Textual from pointing the whole process's sys.stdout and sys.stderr at it."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def _guard(redirect: Callable[[IO[str]], contextlib.AbstractContextManager[Any]]) -> Any:
    def redirect_unless_session(target: Any) -> contextlib.AbstractContextManager[Any]:
        # App._process_messages redirects sys.stdout to the app for the app's whole run; with many
        # apps running at once their exits restore each other's captures out of order, leaving
        # sys.stdout pointing into a finished app (keeping it alive) and prints going astray.
        if isinstance(target, _NoPrintCapture):
            return contextlib.nullcontext(target)
        return redirect(target)

    redirect_unless_session.ono99_guard = True  # type: ignore[attr-defined]  # a mark on the function
    return redirect_unless_session


_parse_rules = Stylesheet._parse_rules
_PARSED: dict[tuple[Any, ...], list[RuleSet]] = {}
PARSED_LIMIT = 4096  # parsed sources kept: about 60 per theme in use


def _parse_rules_once(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                      tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
    # Every app parses the same CSS again (a tenth of a session's start); the result depends only on
    # these arguments and the theme's variables, and rules are only read once parsed.
    key = (css, read_from, is_default_rules, tie_breaker, scope, frozenset(self._variables.items()))
    rules = _PARSED.get(key)
    if rules is None:
        rules = _parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        if len(_PARSED) >= PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[key] = rules
    return rules


def install_shared_css_parsing() -> None:
    """Idempotent; the same parsed rules for the same CSS and theme, process-wide."""
    Stylesheet._parse_rules = _parse_rules_once  # type: ignore[method-assign]  # Textual's, replaced


def install_redirect_guard() -> None:
    """Idempotent; affects only apps whose captures are ``_NoPrintCapture``."""
    for name in ("redirect_stdout", "redirect_stderr"):
        current = getattr(textual_app, name)
        if not getattr(current, "ono99_guard", False):
            setattr(textual_app, name, _guard(current))


COLOR_SYSTEMS = {"truecolor": ColorSystem.TRUECOLOR, "256": ColorSystem.EIGHT_BIT,
                 "standard": ColorSystem.STANDARD}
_SGR = re.compile(r"\x1b\[([0-9;]*)m")


def client_color_system(term: str, env: Mapping[str, str]) -> str | None:
    """The colour depth of the client's terminal from its TERM and COLORTERM, as Rich reads them
    (and not from the server's environment)."""
    environ = {"TERM": term} | ({"COLORTERM": env["COLORTERM"]} if "COLORTERM" in env else {})
    console = Console(color_system="auto", force_terminal=True, _environ=environ, file=cast(IO[str], _NoPrintCapture()))
    return console.color_system


@lru_cache(maxsize=8192)
def _downgrade_sgr(params: str, system: ColorSystem | None) -> str:
    """One SGR sequence's parameters with 24-bit and 256 colours brought down to ``system``
    (colours dropped for None)."""
    if "8;2;" not in params and "8;5;" not in params:
        return f"\x1b[{params}m"
    codes = params.split(";")
    out: list[str] = []
    i = 0
    while i < len(codes):
        code = codes[i]
        if code in ("38", "48", "58") and i + 2 < len(codes) and codes[i + 1] in ("2", "5"):
            if codes[i + 1] == "2" and i + 4 < len(codes):
                color = Color.from_rgb(*(int(c or 0) for c in codes[i + 2:i + 5]))
                i += 5
            else:
                color = Color.from_ansi(int(codes[i + 2] or 0) & 0xFF)
                i += 3
            if system is not None and not (code == "58" and system is ColorSystem.STANDARD):
                downgraded = color.downgrade(system).get_ansi_codes(foreground=code != "48")
                out.extend(("58", *downgraded[1:]) if code == "58" else downgraded)
            continue
        out.append(code)
        i += 1
    return f"\x1b[{';'.join(out)}m" if out else ""


def adapt_app_to_terminal(app: App[Any], terminal: ChannelTerminal) -> None:
    """Call in the app's ``__init__``, after ``App.__init__``."""
    install_redirect_guard()
    app._capture_stdout = _NoPrintCapture()  # type: ignore[assignment]  # Textual's, replaced
    app._capture_stderr = _NoPrintCapture()  # type: ignore[assignment]  # Textual's, replaced
    # One colour depth for every session app's rendering (see the module's doc); the server's own
    # TERM, COLORTERM and TEXTUAL_COLOR_SYSTEM play no part.
    console = app.console
    app.console = Console(color_system="truecolor", file=console.file, markup=True, highlight=False, emoji=False,
                          legacy_windows=False, _environ={}, force_terminal=True, safe_box=False, soft_wrap=False)
    app.no_color = "NO_COLOR" in terminal.env
    filters = [f for f in app._filters if not isinstance(f, NoColor | Monochrome)]
    if app.no_color:
        filters.append(NoColor() if app.native_ansi_color else Monochrome())
    app._filters = filters


def keep_task_factory(loop: asyncio.AbstractEventLoop, factory: Any) -> None:
    """``App.run_async`` makes the loop's task factory eager (Python 3.12+) for the whole loop, which
    the server shares: call just before it, with the server's own factory, to put that back as soon
    as the starting app first waits."""
    loop.call_soon(loop.set_task_factory, factory)


install_redirect_guard()  # before any session app runs
install_shared_css_parsing()

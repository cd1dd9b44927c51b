"""The terminal app of one front session (an SSH session or a browser tab): the ordinary ONO 99 app with
the lobby first, run in a front process on a TCP link to the game server, drawing on the session's
channel (the SSH channel or the page's socket)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.app import ComposeResult, ScreenStackError
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.timer import Timer
from textual.widgets import Static

from ono99_kernel.wire.requests import Request
from ono99_kernel.wire.server import (
    Notice,
    ServerMessage,
    State,
)

from ..client.front_link import LinkChannel
from ..client.session import CodeNotUsed, Effect, End, EnteredByCode
from ..i18n import N_, language_from_ssh_env, using
from ..i18n import gettext as _
from ..links import Link
from ..tui.app import Ono99App, StartScreen
from ..tui.model_screen import ModelScreen
from ..tui.names import KEY_HELP, NameScreen
from ..tui.themes import CSS_FILE, MONO_THEME
from . import ssh_words
from .door import Door, Entered, TurnedAway, enter_lobby, front_session
from .pacing import ANSWER_WINDOW, HELD_FRAME, PACER
from .textual_driver import ChannelDriver, ChannelTerminal, adapt_app_to_terminal

SSH_NAME_HELP = N_("Enter to go to the lobby · Esc to leave. Connect with an SSH key to keep your name and your "
                   "seat between sessions.")
# --auth password: no key is taken, so none can keep a name
PASSWORD_NAME_HELP = N_("Enter to go to the lobby · Esc to leave. Everyone here plays as a guest: your name and "
                        "seat last as long as this session.")
# the notices a table sends all its members (server/ono99_server/table_room.py)
NOTICES_TO_ALL = frozenset({"clock_ran_out"})
__all__ = ["NameScreen", "OpeningScreen", "SessionApp"]


class OpeningScreen(StartScreen):
    """The start screen without its footer, behind the name screen."""

    def compose(self) -> ComposeResult:
        yield Static(Text(self.text), id="start-text", markup=False)


class SessionApp(Ono99App):
    """One front session's app. ``farewell`` is the line printed after it gives the terminal back."""

    CSS_PATH = CSS_FILE  # a relative path would be looked up next to this module

    def __init__(self, terminal: ChannelTerminal, door: Door) -> None:
        self.terminal = terminal
        self.door = door
        language = language_from_ssh_env(terminal.env)  # the player's, as their SSH client sent it
        with using(language):
            self.farewell = _("Bye.") if door.fingerprint is None else \
                _("Bye. Come back with the same key to keep your seat.")
        self.last_game_update = 0.0  # loop time of the last state of a running game (not idle then)
        self._last_frame = 0.0  # loop time of the last batch of the server's messages drawn
        self._answer_until = 0.0  # until then, the answer to a request just sent is not held back for a frame
        # called once, when the first screen that needs the player (the name screen or the lobby) is up
        self.on_first_screen: Callable[[], None] | None = None
        self.after_batch: Callable[[], None] | None = None  # called after each batch of the server's messages
        # A shared app draws this session's terminal (ono99_tui/front/sharing.py): this one takes in
        # what the server sends, seldom, and neither paints nor writes until it is given the screen back.
        self.screen_held = False
        self._given_back: asyncio.Event | None = None
        self._renamed: Notice | None = None  # an operator's rename, which closes the session next
        self._paused_timers: list[Timer] = []  # its screens' timers paused while a shared app draws
        self.own_notice_until = 0.0  # loop time until which a notification for this session alone is up
        self.on_own_notice: Callable[[], None] | None = None  # called when one comes while the screen is held
        self._notice_to_all = False  # handling a notice every member of the table gets
        super().__init__(local=False, host=door.server_name, name=door.name_hint or "", open_link=self._enter,
                         language=language, client=front_session(door))
        adapt_app_to_terminal(self, terminal)

    def get_driver_class(self) -> type[Driver]:
        return ChannelDriver

    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]  # it stops Ono99App's own
        # Ono99App's handler without its start screen: the link to the game server opens at once, and the
        # lobby replaces the blank default screen before anything is drawn (a screen composed only
        # to be replaced costs every session's start its styling and layout).
        event.prevent_default()
        self.register_theme(MONO_THEME)
        self.run_worker(self._network(), exclusive=True, group="network", name="network")

    def _show(self, screen_type: type[ModelScreen]) -> None:
        if self._exit or not self.screen_stack:  # ended while a batch was on its way (a late login told to go)
            return
        if len(self.screen_stack) == 1 and self.screen.id == "_default":
            self.push_screen(screen_type())  # the first screen; Textual's default screen stays under it
            self._first_screen()
            return
        super()._show(screen_type)

    def _first_screen(self) -> None:
        told, self.on_first_screen = self.on_first_screen, None
        if told is not None:
            told()

    async def pace(self) -> None:
        """Wait for this session's next frame (ono99_tui/front/pacing.py): what the server sends
        meanwhile is drawn with it, as its newest state."""
        loop = asyncio.get_running_loop()
        if self.screen_held:  # nothing is drawn: what came is taken in once in a while, or when given back
            given_back = self._given_back = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(given_back.wait(), HELD_FRAME)
            self._given_back = None
            self._last_frame = loop.time()
            return
        model = self.model
        seated = model.table is not None and model.table.you is not None
        frame = PACER.frame(watching=model.table is not None and not seated, seated=seated, my_turn=model.my_turn)
        wait = 0.0 if loop.time() < self._answer_until else self._last_frame + frame - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._last_frame = loop.time()

    def merges_states(self) -> bool:
        table = self.model.table
        return table is not None and table.you is None  # a spectator: its screen shows the newest state

    async def _receive_batch(self, link: Link) -> bool:
        going = await super()._receive_batch(link)
        if isinstance(link, LinkChannel):  # its welcome and what came with it are in: redraws wait their turn
            link.settled()
        if self.after_batch is not None:
            self.after_batch()
        return going

    # --- a screen drawn by a shared app -------------------------------------------------------------
    def hold_screen(self) -> None:
        """From now on a shared app draws this session's terminal: this app writes nothing, paints
        nothing (Textual's batch holds its screen updates) and refreshes no widget."""
        if self.screen_held:
            return
        self.screen_held = True
        self.terminal.muted = True
        self._begin_batch()
        self._screen_timers(running=False)

    def give_screen_back(self, repaint: bool = True) -> None:
        """This app draws its terminal again: what it took in meanwhile goes to its widgets, and
        (``repaint``) its whole screen is drawn over what the shared app left there."""
        if not self.screen_held:
            return
        self.screen_held = False
        self.terminal.muted = False
        self._end_batch()
        self._screen_timers(running=True)
        if self._given_back is not None:
            self._given_back.set()
        if not repaint or self.return_code is not None or not self.is_running:
            return
        if self._refresh_wanted:
            self._refresh()
        with contextlib.suppress(ScreenStackError):
            self.screen.refresh()  # the whole screen: the terminal shows another app's picture

    def _screen_timers(self, running: bool) -> None:
        """Pause (or resume) the timers of this app's screens: the table screen's turn clock ticks
        every second, and a held app's tick would paint its table top for nobody, while the shared
        app draws the clock on the member's terminal (``_timers`` is Textual's own set of them)."""
        if running:
            for timer in self._paused_timers:
                timer.resume()
            self._paused_timers = []
            return
        self._pause_running_timers()
        for screen in self.screen_stack:  # a screen just pushed starts its timers once mounted: after that
            screen.call_later(self._pause_running_timers)

    def _pause_running_timers(self) -> None:
        if not self.screen_held:
            return
        # only those running now are paused, and so resumed: Textual pauses some of its own at times
        running = [timer for screen in self.screen_stack for timer in list(screen._timers)
                   if timer._active.is_set() and timer not in self._paused_timers]
        for timer in running:
            timer.pause()
        self._paused_timers += running

    def _refresh(self) -> None:
        if self.screen_held:  # given back later, with everything taken in meanwhile
            self._refresh_wanted = True
            return
        super()._refresh()

    def send_message(self, message: Request) -> None:
        # the answer (a table, then the seat in it, ...) is drawn as soon as it comes
        self._answer_until = asyncio.get_running_loop().time() + ANSWER_WINDOW
        super().send_message(message)

    async def _enter(self) -> Link:
        """Say hello to the lobby (``front/door.py``), asking for a name on the name screen."""
        entered = await enter_lobby(self.door, self.player_name, self.model.resume, self._ask_name)
        if isinstance(entered, Entered):
            self.player_name = entered.name
            return entered.link
        if isinstance(entered, TurnedAway):
            self.farewell = (_("The server closed the session: {reason}").format(reason=entered.reason)
                             if entered.reason is not None else
                             _("The game server cannot be reached just now; try again in a moment."))
        return await self._leave()

    async def _ask_name(self, problem: str) -> str | None:
        door = self.door
        if not isinstance(self.screen, OpeningScreen):
            await self.push_screen(OpeningScreen(_("Opening the lobby of {host}…").format(host=self.host)))
        help_text = door.name_help or (KEY_HELP if door.fingerprint is not None else
                                       SSH_NAME_HELP if door.keys_kept else PASSWORD_NAME_HELP)
        shown = self.push_screen(NameScreen(door.default_name, problem, help_text), wait_for_dismiss=True)
        self._first_screen()
        name = await shown
        return None if name is None else name or ""

    async def _leave(self) -> Link:
        """End the session from the network worker, which ends with the app."""
        self.exit()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        if not self._notice_to_all:  # for this session alone: a shared screen would not show it
            shown_for = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
            self.own_notice_until = max(self.own_notice_until, asyncio.get_running_loop().time() + shown_for)
            if self.screen_held and self.on_own_notice is not None:
                self.on_own_notice()
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def handle(self, message: ServerMessage) -> None:
        self._notice_to_all = isinstance(message, Notice) and message.code in NOTICES_TO_ALL
        if isinstance(message, Notice) and message.code == "renamed":
            self._renamed = message
        try:
            super().handle(message)
        finally:
            self._notice_to_all = False
        if isinstance(message, State) and message.view.winner is None:
            self.last_game_update = asyncio.get_running_loop().time()

    def show_effect(self, effect: Effect) -> None:
        if isinstance(effect, EnteredByCode):
            self.notify((_("Watching the table of invite code {code}. Press l for the lobby, ? for help, q to leave.")
                         if effect.watching else
                         _("Playing at the table of invite code {code}. Press l for the lobby, ? for help, q to "
                           "leave.")).format(code=effect.code), timeout=20)
        elif isinstance(effect, CodeNotUsed):
            self.notify(_("You are back at your own table; the invite code {code} was not used.").format(
                code=effect.code), timeout=10)
        elif isinstance(effect, End):
            # The link is closed for good (the same key connected elsewhere, flooding): end the
            # session rather than reconnect. A game server shutting down is reconnected to.
            renamed = self._renamed
            if renamed is not None:  # with the way to play on under the new name
                self.farewell = ssh_words.renamed_closed(renamed)
            else:
                self.farewell = _("The server closed the session: {reason}").format(reason=effect.reason)
            self.exit()
        else:
            super().show_effect(effect)

    # --- nothing reaches the server machine --------------------------------------------------------
    def save_screenshot(self, filename: str | None = None, path: str | None = None,
                        time_format: str | None = None) -> str:
        self._refuse_file()
        return ""

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        self._refuse_file()
        return None

    def _refuse_file(self) -> None:
        self.notify(_("Screenshots are not saved from an SSH session; use your terminal's own."), severity="warning")

"""The ONO 99 terminal app: a local game against bots, or any server's lobby and tables."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import random
import socket
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual._path import CSSPathType
from textual.app import App, ComposeResult, ScreenStackError
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from ono99_kernel.identity import Identity, remember_name
from ono99_kernel.protocol import DEFAULT_PORT, PROTOCOL_VERSION, ProtocolError
from ono99_kernel.wire.requests import Act, CreateTable, Hello, Join, Leave, Request
from ono99_kernel.wire.server import ServerMessage, State, Welcome

from ..client.connection import Dialer
from ..client.decoding import decode_shared
from ..client.errors import ConnectionLost, ServerError
from ..client.raw import merged_states
from ..client.session import (
    AskName,
    AskTakeBack,
    AskToWatch,
    AskTrust,
    ClientSession,
    Closed,
    ConnectStep,
    Effect,
    GiveUp,
    Reaction,
    Refusal,
    RetryIn,
    ShowLobby,
    ShowTable,
    WaitingToPlay,
)
from ..i18n import N_, set_language
from ..i18n import gettext as _
from ..known_servers import (
    AnnouncementMismatch,
    ServerKeyChanged,
    ServerTrust,
    UnknownServer,
    server_key,
    untrusted_words,
)
from ..links import Link, LocalServer
from ..reasons import said
from . import arena as arena_screen
from . import player_menu
from .cells import match_terminal_widths
from .help import HelpScreen
from .host import ScreenHost, ShowsModel
from .lobby import LobbyScreen
from .model_screen import ModelScreen
from .names import NameScreen
from .new_game import NewGameScreen
from .profile import ProfileScreen, after_message
from .replay import analysis_screen
from .seats import ConfirmScreen, UnaskedQuestion, seated_in_running_game
from .settings import Settings
from .settings_screen import SettingsScreen
from .table import TableScreen
from .themes import MONO_THEME
from .unbidden import OpensByItself
from .widgets import KeysFooter

match_terminal_widths()  # Nepali lines measured as the terminal draws them (cells.py)
LOCAL_BOT_DELAY = 0.8  # seconds a bot of a local game waits before it plays
LOCAL_DRAW_WINDOW = 8.0  # at least this long before a bot plays while your manual draw is open (counted down)

# Makes a local game's server from (bot delay, draw window): the CLI passes
# ono99_tui.local_game.open_local_game, so the app itself never imports the server.
LocalGame = Callable[[float, float], LocalServer]


class StartScreen(Screen[None]):
    """Shown while the app connects or starts a local server."""

    BINDINGS = [Binding("q", "app.quit", N_("Quit")), Binding("escape", "app.quit", N_("Quit"), show=False)]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(Text(_("ONO 99") + "\n\n" + self.text), id="start-text", markup=False)
        yield KeysFooter()

    def say(self, text: str) -> None:
        self.query_one("#start-text", Static).update(Text(_("ONO 99") + "\n\n" + text))


class ReplacedScreen(OpensByItself[bool]):
    """The same player connected again elsewhere and the server closed this connection: this
    window does not connect again by itself (it would take the seat back from the newer one), only
    when asked. Dismissed with True to take the seat back here, False to quit."""

    BINDINGS = [Binding("t", "answer(True)", N_("Take it back")), Binding("q", "answer(False)", N_("Quit"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="confirm"):
            yield Static(Text(_("You connected again from elsewhere; this window is closed.")), id="question",
                         markup=False)  # wraps: a long language's sentence
            yield Static(Text(_("Press t to take your seat back here (the other window closes), or q to quit.")),
                         markup=False)
            with Horizontal(id="buttons"):
                yield Button(_("Take it back") + " (t)", id="take", variant="primary")
                yield Button(_("Quit") + " (q)", id="quit")
        yield KeysFooter()

    def action_answer(self, take: bool) -> None:
        self.dismiss(take)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "take")


class Ono99App(App[int]):
    CSS_PATH: ClassVar[CSSPathType | None] = "ono99.tcss"
    TITLE = "ONO 99"
    # Textual's command palette speaks English only (its search, its commands and their help); every
    # one of its commands the game needs has a key of its own (F2: the theme, ?: the keys, q: quit)
    ENABLE_COMMAND_PALETTE = False
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (90, "-wide")]  # under 90 columns the chat column folds away
    BINDINGS = [
        Binding("ctrl+q", "quit", N_("Quit"), priority=True, show=False),
        Binding("f2", "settings", N_("Settings")),
        Binding("question_mark", "help", N_("Help"), show=False),
        Binding("w", "players", N_("Players"), show=False),  # the player menu (player_menu.py)
    ]

    def __init__(self, *, local: bool = True, host: str = "", port: int = DEFAULT_PORT, name: str = "Player",
                 open_link: Callable[[], Awaitable[Link]] | None = None, first_table: CreateTable | None = None,
                 bot_delay: float | None = None, discover: bool = False,
                 browse_interfaces: Sequence[str] | None = None, identity: Identity | None = None,
                 password: str | None = None, draw_window: float | None = None,
                 settings: Settings | None = None, local_game: LocalGame | None = None,
                 language: str | None = None, trust: ServerTrust | None = None,
                 retry_random: random.Random | None = None, client: ClientSession | None = None) -> None:
        super().__init__()
        self.retry_random = retry_random or random.Random()  # the reconnect waits' jitter (tests seed it)
        # Which servers' certificates this app trusts (ono99_tui/known_servers.py); None pins nothing
        # (tests against a server they just started).
        self.trust = trust
        self.language = language  # this app's own language (an SSH session's); None: the process's
        self.password = password  # for a server that asks for one (ono99 connect --password)
        # Settings passed in are the player's own, saved when they change; without, nothing is
        # read or written (tests, SSH sessions) and the first-run hint is not shown.
        self.keep_settings = settings is not None
        self.settings = settings if settings is not None else Settings(hint_seen=True)
        self.draw_window = LOCAL_DRAW_WINDOW if draw_window is None else draw_window
        self._paused = False
        self._terminal_title = ""
        self.local = local
        self.host = host
        self.port = port
        self.player_name = name
        # every reaction to the server, decided once (ono99_tui/client/session.py; ``client``: a front's, with
        # its entry); its model is the app's
        self.client = client or ClientSession(local=local, first_table=first_table,
                                              asks_names=not local and open_link is None, rng=self.retry_random)
        self.model = self.client.model
        self.link: Link | None = None
        self.bell_on_turn = self.settings.bell
        if self.settings.reduced_motion:  # the table's motion (tabletop.py) follows Textual's animation level
            self.animation_level = "none"
        self.bot_delay = bot_delay
        self._open_link = open_link
        self._dialer = Dialer(client_name="ono99-tui", identity=identity, password=password)
        self._local_game = local_game
        self._embedded: LocalServer | None = None
        self._was_my_turn = False
        self.exit_code = 0
        self.fatal_words = ""  # why the session could not go on (a changed certificate…), or nothing
        self.discover = discover  # no address given: pick a server found on the network first
        self.browse_interfaces = browse_interfaces
        self.identity = identity  # the player's key, proven to the server; None: a guest
        self.play_now_wish = ("2022", 4)  # the edition and table size play now asks for
        self._leave_on_exit = False  # quit at a server's table: the seat is given up, not held for a return
        self._refresh_held = False  # messages are being handled in a batch: the screens refresh after it
        self._refresh_wanted = False

    @property
    def first_table(self) -> CreateTable | None:
        """The local game's first table (None: the usual one), which the client session asks for."""
        return self.client.first_table

    @first_table.setter
    def first_table(self, table: CreateTable | None) -> None:
        self.client.first_table = table

    async def run_async(self, *args: Any, **kwargs: Any) -> int | None:
        """Run the app in its own language, if it has one: the task that runs it, and every task
        it starts, speak it."""
        if self.language is not None:
            set_language(self.language)
        return await super().run_async(*args, **kwargs)

    def on_mount(self) -> None:
        self.register_theme(MONO_THEME)
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        if self.discover:
            self._pick_server()
        else:
            self._start_network()

    def _pick_server(self) -> None:
        from .servers import ServersScreen

        def chosen(choice: tuple[str, int, str | None] | None) -> None:
            if choice is not None:
                self.host, self.port, announced = choice
                if self.trust is not None:  # what it announced must be what it shows
                    self.trust = ServerTrust(known=self.trust.known, given=self.trust.given, announced=announced)
                self._start_network()

        self.push_screen(ServersScreen(self.browse_interfaces), chosen)

    def _start_network(self) -> None:
        self.push_screen(StartScreen(self._starting_text()))
        self.run_worker(self._network(), exclusive=True, group="network", name="network")

    def _starting_text(self) -> str:
        return _("Starting a local game…") if self.local else _("Connecting to {host}…").format(host=self.host)

    # --- the network worker -----------------------------------------------------------------------
    async def _connect(self) -> Link:
        if self._open_link is not None:
            return await self._open_link()
        if self.local:
            if self._local_game is None:
                raise RuntimeError("a local game needs local_game= (ono99_tui.local_game.open_local_game)")
            self._embedded = self._local_game(LOCAL_BOT_DELAY if self.bot_delay is None else self.bot_delay,
                                              self.draw_window)
            link = self._embedded.link()
            await link.send(Hello(version=PROTOCOL_VERSION, name=self.player_name, client="ono99-tui"))
            return link
        return await self._dialer.connect(self.host, self.port, self.player_name, self.model, self.trust)

    async def _network(self) -> None:
        while True:
            try:
                self.link = await self._connect()
            except (ServerError, UnknownServer, ServerKeyChanged, AnnouncementMismatch, OSError, TimeoutError,
                    ConnectionLost) as exc:
                if not await self._after_failure(self.client.connect_failed(exc)):
                    return
                continue
            client_welcome = getattr(self.link, "welcome", None)
            if client_welcome:
                welcome = self.receive(client_welcome)
                if isinstance(welcome, Welcome) and self.identity is not None and self.identity.path is not None:
                    remember_name(self.identity.path.parent, welcome.name)
            while await self._receive_batch(self.link):
                pass
            if self.return_code is not None and not self.local:  # ending (an SSH session ends on any bye)
                self.model.connected = False
                self._refresh()
                return
            step = self.client.link_lost()
            self._refresh()
            if not await self._after_failure(step):
                return

    async def _after_failure(self, step: ConnectStep) -> bool:
        """Carry out the client session's next step after a connection failed or ended: whether to
        connect again."""
        if isinstance(step, AskName):
            # nothing is being connected to while the player chooses a name: the screen behind says so
            start = next((screen for screen in self.screen_stack if isinstance(screen, StartScreen)), None)
            if start is not None:
                start.say("")
            name = await self.push_screen(NameScreen(self.player_name, said(step.refusal)), wait_for_dismiss=True)
            if start is not None:
                start.say(self._starting_text())
            if name is None:
                self.exit()
                return False
            self.player_name = name  # and try again with it
            return True
        if isinstance(step, AskTrust):
            if await self._first_visit(step.server):
                return True
            self.exit_code = 2
            self.exit()
            return False
        if isinstance(step, AskTakeBack):
            if await self.push_screen(ReplacedScreen(), wait_for_dismiss=True):
                return True  # taken back on purpose
            self.exit()
            return False
        if isinstance(step, RetryIn):
            await self._wait_to_retry(step)
            return True
        if isinstance(step, GiveUp):
            cause = step.cause
            if isinstance(cause, ServerError):
                self._fatal(_("The server refused: {reason}").format(reason=said(cause.error)))
            elif isinstance(cause, ServerKeyChanged | AnnouncementMismatch):
                self._fatal(untrusted_words(cause))
            elif self.discover:  # back to the list, to pick another
                self.notify(unreachable_words(self.host, self.port, cause), severity="error", timeout=10)
                self.pop_screen()
                self._pick_server()
            else:
                self._fatal(unreachable_words(self.host, self.port, cause))
        return False

    async def _first_visit(self, unknown: UnknownServer) -> bool:
        """Ask whether to trust a server met for the first time; remembered if so."""
        question = first_visit_words(unknown)
        trusted = await self.push_screen(ConfirmScreen(question, yes=_("Trust it and connect")), wait_for_dismiss=True)
        if trusted and self.trust is not None:
            self.trust = self.trust.accept(unknown.host, unknown.port, unknown.fingerprint)
        return bool(trusted)

    async def _wait_to_retry(self, retry: RetryIn) -> None:
        delay = retry.seconds
        seconds = f"{delay:g}"
        text = (_("{reason}; trying again in {seconds} s").format(reason=self.model.farewell_said(), seconds=seconds)
                if retry.farewell else _("Connection lost; trying again in {seconds} s").format(seconds=seconds))
        self.notify(text, severity="warning", timeout=delay)
        await asyncio.sleep(delay)

    def _fatal(self, text: str) -> None:
        """The session is over: say why on a screen of its own, which stays until the player quits (a
        notice over a table that no longer moves would go away and leave it looking alive)."""
        self.exit_code = 2
        self.fatal_words = text  # said again on the terminal once the screen is gone (cli.py)
        words = text + "\n\n" + _("Press q to quit.")
        screen = self.screen
        if isinstance(screen, StartScreen):
            screen.say(words)
        else:
            self.push_screen(StartScreen(words))

    # --- messages from the server ------------------------------------------------------------------
    async def pace(self) -> None:
        """Called before the messages that arrived are handled; an app that draws for many (an SSH
        front) waits here for its next frame, and what arrives meanwhile is handled at once."""

    async def _receive_batch(self, link: Link) -> bool:
        """The next message and every one queued behind it, with the screens refreshed once after
        them: a burst of states is drawn as its last one (its log lines all shown). False when the
        link has ended."""
        message = await link.inbox.get()
        if message is None:
            return False
        await self.pace()
        batch = [message]
        ended = False
        while not link.inbox.empty():
            queued = link.inbox.get_nowait()
            if queued is None:
                ended = True
                break
            batch.append(queued)
        if len(batch) > 1 and self.merges_states():
            batch = merged_states(batch)
        self._refresh_held = True
        try:
            for message in batch:
                self.receive(message)
        finally:
            self._refresh_held = False
            if self._refresh_wanted:
                self._refresh()
        return not ended

    def merges_states(self) -> bool:
        """Whether a batch's consecutive states of one game may be taken in as their last one with
        all their events (nothing of this app depends on the states between)."""
        return False

    def receive(self, message: Mapping[str, Any]) -> ServerMessage | None:
        """A message as it arrived: decoded once, here, into typed values (ono99_kernel.wire.server; once
        in the process for the sessions of a front's link it was handed to) and handled. One this
        version cannot read is skipped, with a notice; the session goes on."""
        try:
            decoded = decode_shared(message)
        except ProtocolError as exc:
            self.notify(_("The server sent a message this version cannot read: {reason}").format(reason=exc.reason),
                        severity="warning", timeout=10, markup=False)
            return None
        self.handle(decoded)
        return decoded

    def handle(self, message: ServerMessage) -> None:
        reaction = self.client.receive(message)
        self.carry_out(reaction)
        kind = reaction.changed
        if kind in ("notice", "away"):
            self.notify(self.model.notice, timeout=5 if kind == "notice" else 15)
        turn_came = isinstance(message, State) and self._ring_on_turn()
        self._refresh()
        if turn_came and not isinstance(self.screen, ModelScreen | StartScreen):
            # a dialog covers the hand: say it, or the turn clock runs out unseen
            self.notify(_("Your turn"), severity="warning", timeout=10)
        self.show_terminal_title()
        after_message(self, kind, message)  # play now and ratings (profile.py)
        player_menu.after_message(self, message)  # an operator's command done from the app
        arena_screen.after_message(self, message)  # the standings when you join an arena, your next game's start

    def carry_out(self, reaction: Reaction) -> None:
        """Send what the client session's reaction asks for, and show what it says."""
        self.send_all(reaction.requests)
        for effect in reaction.effects:
            self.show_effect(effect)

    def send_all(self, requests: Sequence[Request]) -> None:
        """The requests the client session's reaction asks for."""
        for request in requests:
            self.send_message(request)

    def show_effect(self, effect: Effect) -> None:
        """What the client session's reaction asks to show."""
        if isinstance(effect, ShowLobby):
            self._show(LobbyScreen)
        elif isinstance(effect, ShowTable):
            self._show(TableScreen)
        elif isinstance(effect, AskToWatch):
            self._ask_to_watch(effect)
        elif isinstance(effect, Refusal):
            self.notify(Text(self.model.notice).plain, severity="error", timeout=6)
            if effect.error.ref == "chat" and isinstance(self.screen, LobbyScreen):  # a Say refused
                self.screen.chat_refused()  # the typed line is kept, not lost
        elif isinstance(effect, WaitingToPlay):
            self.play_now_wish = effect.wish
        elif isinstance(effect, Closed):
            self.notify(_("The server closed the connection: {reason}").format(reason=self.model.farewell_said()),
                        severity="warning")

    def _ring_on_turn(self) -> bool:
        """Ring when the reader's turn comes; whether it just came."""
        mine = self.model.my_turn
        came = mine and not self._was_my_turn
        if came:
            self.bell_if_wanted()
        self._was_my_turn = mine
        return came

    def show_terminal_title(self) -> None:
        """The terminal's (or tab's) title: the game's name, and when it is your turn."""
        title = _("ONO 99 — your turn") if self.model.my_turn else "ONO 99"
        if title != self._terminal_title and self._driver is not None:
            self._terminal_title = title
            self._driver.write(f"\x1b]2;{title}\x07")

    def save_settings(self) -> None:
        if self.keep_settings:
            self.settings.save()

    # --- a local game's bots ---------------------------------------------------------------------
    def pause_bots(self, paused: bool) -> None:
        """Hold a local game's bots while a dialog covers the table (a server's table plays on)."""
        if self._embedded is not None and paused != self._paused:
            self._paused = paused
            self._embedded.pause(paused)

    def hold_bots_unless_table_shown(self) -> None:
        """Hold the bots while anything covers the table; let them play when it is on top."""
        try:
            top = self.screen
        except ScreenStackError:  # closing
            return
        self.pause_bots(not isinstance(top, TableScreen))

    def fast_forward(self, on: bool = True) -> None:
        """A local game with no person left in it: bots play without waiting (until the next game)."""
        if self._embedded is not None:
            self._embedded.set_bot_delay(0.0 if on else (LOCAL_BOT_DELAY if self.bot_delay is None
                                                           else self.bot_delay))

    def analyse_finished_game(self) -> bool:
        table, seat = self.model.table, self.model.my_seat
        record = self._embedded.finished_record(table.id) if self._embedded is not None and table is not None else None
        if record is None:
            return False
        self.push_screen(analysis_screen(record, _("Analysis of the game just played"), seat or 0))
        return True

    def bell_if_wanted(self, end: bool = False) -> None:
        if self.bell_on_turn and not end:
            self.bell()

    def _show(self, screen_type: type[ModelScreen]) -> None:
        """Show a screen of ``screen_type``. One shown already stays, and so do the dialogs over it: a
        table update must not close the game-over dialog and open another, nor send a key pressed
        meanwhile to a screen that does not know it."""
        shown = next((s for s in reversed(self.screen_stack) if isinstance(s, ModelScreen | StartScreen)), None)
        if isinstance(shown, screen_type):
            return
        while len(self.screen_stack) > 1 and not isinstance(self.screen, ModelScreen | StartScreen):
            self.pop_screen()
        self.switch_screen(screen_type())

    def show_table(self) -> None:
        self._show(TableScreen)

    def show_profile(self, name: str | None = None) -> None:
        self.push_screen(ProfileScreen(name))

    def action_players(self) -> None:
        player_menu.open_players(self)

    def _refresh(self) -> None:
        if self._refresh_held:  # handling a batch of messages: once, after the last
            self._refresh_wanted = True
            return
        self._refresh_wanted = False
        # ending (by exit, or shut down from outside while a message still arrives): the screens'
        # widgets are being removed
        if self.return_code is not None or not self.is_running:
            return
        for screen in self.screen_stack:
            if isinstance(screen, ShowsModel) and screen.is_mounted:
                screen.refresh_model(self.model)

    # --- to the server -----------------------------------------------------------------------------
    def send_message(self, message: Request) -> None:
        """Send a request to the server."""
        self.client.asked(message)
        link = self.link
        if link is None:
            self.notify(_("Not connected yet."), severity="warning")
            return

        async def send() -> None:
            try:
                await link.send(message)
            except Exception as exc:  # the connection is gone; the network worker reconnects
                self.notify(_("Could not send: {error}").format(error=exc), severity="warning")

        self.run_worker(send(), group="send")

    def join_by_code(self, code: str) -> None:
        self.send_message(Join(code=code))

    def _ask_to_watch(self, question: AskToWatch) -> None:
        """A join by invite code refused because the game runs or every seat is taken: a private table is
        listed nowhere, so the code is the way to watch it too."""
        def answered(watch: bool | None) -> None:
            self.send_all(self.client.watch_answer(question, bool(watch)))

        words = (_("The game at the table of invite code {code} has already started. Watch it?") if question.started
                 else _("Every seat at the table of invite code {code} is taken. Watch it?")).format(code=question.code)
        self.push_screen(UnaskedQuestion(words, yes=_("Watch")), answered)

    def send_action(self, code: str) -> None:
        view = self.model.view
        if view is not None:
            self.send_message(Act(action=code, version=view.version))

    # --- app actions -------------------------------------------------------------------------------
    def confirm_leaving(self, then: Callable[[], Any], doing: str, *, local_too: bool = False,
                        question: str | None = None) -> None:
        """Do ``then`` at once, or, when that would give up a seat in a running game on a server
        (``local_too``: in a local game too), only once the player says yes to ``question``."""
        if ((self.local and not local_too) or not seated_in_running_game(self.model)
                or isinstance(self.screen, ConfirmScreen)):
            then()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        if question is None:
            question = _("{doing}? The game is running: a bot plays your seat until it ends, "
                         "and you may take the seat back between games.").format(doing=doing)
        self.push_screen(ConfirmScreen(question, yes=doing), answered)

    async def action_quit(self) -> None:
        # a local game lives in this process: quitting it mid-game ends it
        self.confirm_leaving(self._quit, _("Quit"), local_too=True, question=_(
            "Quit? This game is not over: it ends here.") if self.local else None)

    def _quit(self) -> None:
        self._leave_on_exit = self.model.table is not None and not self.local
        self.exit()

    def action_new_game(self) -> None:
        def chosen(message: CreateTable | None) -> None:
            if message is not None:
                self.fast_forward(False)
                self.send_message(message)

        self.confirm_leaving(lambda: self.push_screen(NewGameScreen(self.local), chosen), _("Leave for a new game"))

    def action_lobby(self) -> None:
        if self.model.table is not None:
            self.confirm_leaving(lambda: self.send_message(Leave()), _("Leave the table"), local_too=True)
        else:
            self._show(LobbyScreen)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def relabel(self) -> None:
        """Show the lobby or the table again in the language just chosen (dialogs opened from now
        on are in it too)."""
        top = self.screen
        if type(top) in (LobbyScreen, TableScreen):
            fresh = type(top)()
            if isinstance(top, TableScreen) and isinstance(fresh, TableScreen):
                fresh._shown_game_over = top._shown_game_over  # a result closed stays closed
            self.switch_screen(fresh)

    def action_settings(self) -> None:
        self.push_screen(SettingsScreen())

    def action_help_quit(self) -> None:
        """Ctrl+C copies and does not quit (Textual's choice): say what quits, in the player's language."""
        for active in self.active_bindings.values():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(_("Press {key} to quit.").format(key=self.get_key_display(active.binding)), markup=False)
                return

    async def on_unmount(self) -> None:
        if self.link is not None:
            if self._leave_on_exit:
                with contextlib.suppress(Exception):
                    await self.link.send(Leave())
            # In a context of its own: a TLS link's close leaves a timer (cancelled, but kept by asyncio
            # until its time, 30 s) holding the context it was made in, which names this app.
            await asyncio.create_task(self.link.close(), context=contextvars.Context())
        if self._embedded is not None:
            await self._embedded.close()


def unreachable_words(host: str, port: int, exc: BaseException) -> str:
    """Why a server cannot be reached, in words (not the system's errno text)."""
    if isinstance(exc, socket.gaierror):
        return _("Cannot find the host {host}: check the address.").format(host=host)
    if isinstance(exc, ConnectionRefusedError):
        return _("Nothing answers at {host}:{port}: check the address and that 'ono99 serve' runs there.").format(
            host=host, port=port)
    if isinstance(exc, TimeoutError):
        return _("{host}:{port} did not answer: check the address and that 'ono99 serve' runs there.").format(
            host=host, port=port)
    error = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
    return _("Cannot reach {host}:{port} ({error}). Check the address and that 'ono99 serve' runs there.").format(
        host=host, port=port, error=error)


def first_visit_words(unknown: UnknownServer) -> str:
    """The question of a first visit: the fingerprint to compare, and where the host finds theirs."""
    words = _("This is your first visit to {server}. Its certificate's fingerprint is\n\n  {fingerprint}\n\n"
              "Compare it with the one the host's 'ono99 serve' printed (tls: certificate …). If they are the "
              "same, trust it: this computer remembers it and will refuse any other.").format(
        server=server_key(unknown.host, unknown.port), fingerprint=unknown.fingerprint)
    if unknown.announced:
        words += "\n\n" + _("It is the fingerprint the server announced on your network (anyone there could "
                             "announce a server, so compare it all the same).")
    return words


def make_app(*, local: bool = True, host: str = "", port: int = DEFAULT_PORT, name: str = "Player",
             **kwargs: Any) -> Ono99App:
    """The app, as the CLI and the tests build it."""
    return Ono99App(local=local, host=host, port=port, name=name, **kwargs)


if TYPE_CHECKING:  # the app is what its screens take it for (host.py)
    _SCREEN_HOST: type[ScreenHost] = Ono99App

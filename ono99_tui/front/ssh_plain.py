"""The plain mode over SSH: ``ssh -p 2222 plain@HOST`` plays in lines of text, for a screen reader
or a braille display at the far end, at the same tables as everyone else.

The user name chooses it: ``plain``, or ``plain-`` before any other user name the front knows
(``plain-K7QX2M``, ``plain-watch-K7QX2M``, ``plain-play-1980``, ``plain-ada``). The session runs a
``PlainClient`` (ono99_tui/plain) in place of the Textual app, on its own TCP link to the game
server as the app's sessions have, entering the lobby through the same ``Door``. A session without
a PTY (``ssh -T``) works too: the client's terminal then edits each line and sends it with Enter.
"""

from __future__ import annotations

import asyncio
import codecs
from typing import TYPE_CHECKING, Any, cast

from ..i18n import gettext as _
from ..i18n import language_from_ssh_env, set_language, using
from ..links import Link
from ..plain import words
from ..plain.console import Console, plain_text
from ..plain.run import PlainClient, Refused
from ..client.model import SHUTTING_DOWN
from ono99_kernel.wire.common import as_edition
from ono99_kernel.wire.requests import PlayNow, Spectate
from ono99_kernel.wire.server import Bye, State, Welcome
from .textual_driver import ChannelDriver, ChannelTerminal

if TYPE_CHECKING:
    from ..client.model import Model
    from .session_app import Door

PLAIN = "plain"


def plain_user(username: str) -> tuple[bool, str]:
    """Whether an SSH user name asks for the plain mode, and the user name it leaves for the other
    shortcuts: ``plain`` → (True, ""), ``plain-K7QX2M`` → (True, "K7QX2M"), ``ada`` → (False, "ada")."""
    lowered = username.strip().lower()
    if lowered == PLAIN:
        return True, ""
    if lowered.startswith(PLAIN + "-") and len(lowered) > len(PLAIN) + 1:
        return True, username.strip()[len(PLAIN) + 1:]
    return False, username


class PlainSessionApp:
    """One SSH session in the plain mode: what ``SshSession`` runs in place of the app (``run_async``,
    ``exit``, ``farewell``, ``model``, ``last_game_update``). ``line_at_a_time``: no PTY, the client
    sends whole lines."""

    def __init__(self, terminal: ChannelTerminal, door: Door, *, line_at_a_time: bool = False) -> None:
        self.terminal = terminal
        self.door = door
        self.language = language_from_ssh_env(terminal.env)  # the player's, as their SSH client sent it
        with using(self.language):
            self.farewell = _("Bye.") if door.fingerprint is None else \
                _("Bye. Come back with the same key to keep your seat.")
        self.last_game_update = 0.0  # loop time of the last state of a running game (not idle then)
        self.player_name = door.name_hint or ""
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        # Without a PTY the client's own terminal is in its usual mode: it turns "\n" into a line's end
        self.console = Console(terminal.write, newline="\n" if line_at_a_time else "\r\n", keys=not line_at_a_time)
        self.client = _SshPlainClient(self, self.console, self._enter)

    @property
    def model(self) -> Model:
        return self.client.model

    async def run_async(self, **_options: Any) -> None:
        """Play until the player quits or the session ends (``_options``: the app's, of no use here)."""
        set_language(self.language)  # this task, and what it starts, speaks the player's language
        self.terminal.attach(cast(ChannelDriver, self))  # the terminal hands its keys to ``feed``
        try:
            await self.client.run()
        finally:
            self.terminal.detach()

    def feed(self, data: bytes) -> None:
        """Keys from the terminal (rate-limited there); said to in the player's language."""
        with using(self.language):
            self.console.feed(self._decode(data))

    def resize(self, width: int, height: int) -> None:
        """Lines do not care about the terminal's size."""

    def exit(self) -> None:
        self.client.quit()

    async def _enter(self, client: PlainClient) -> Link:
        """Say hello to the lobby, as the app's session does: as a returning key, under the user
        name, or under a name asked for; after a lost link, as the same player again."""
        door = self.door
        if client.model.resume:  # reconnecting: OSError goes to the client, which tries again
            result = await door.enter(self.player_name, client.model.resume)
            if isinstance(result, tuple):
                raise Refused(_("The server closed the session: {reason}").format(reason=words.clause(result[0])), 0)
            return result
        name = door.name_hint
        problem = ""
        while True:
            if name is None:
                typed = await self._ask_name(problem)
                if typed is None:
                    raise Refused("", 0)
                name = typed
            try:
                result = await door.enter(name)
            except (OSError, TimeoutError):
                raise Refused(_("The game server cannot be reached just now; try again in a moment."), 0) from None
            if not isinstance(result, tuple):
                self.player_name = str(result.welcome.get("name", name))
                return result
            reason, final = result
            if final:  # no other name would change the answer
                raise Refused(_("The server closed the session: {reason}").format(reason=words.clause(reason)), 0)
            problem = "" if name == "" else reason  # "": this key has no name here yet
            name = None

    async def _ask_name(self, problem: str) -> str | None:
        client = self.client
        door = self.door
        if problem:
            client.say(words.sentence(plain_text(problem)))
        if door.default_name:
            client.say(_("Type your name for the tables and press Enter; Enter alone keeps {name}.").format(
                name=plain_text(door.default_name)))
        else:
            client.say(_("Type your name for the tables and press Enter."))
        if door.fingerprint is None and door.keys_kept and not problem:
            client.say(_("Connect with an SSH key to keep your name and your seat between sessions."))
        while True:
            typed = await client.ask_line(_("Your name: "))
            if typed is None:
                return None
            typed = typed.strip() or door.default_name
            if typed:
                return typed


class _SshPlainClient(PlainClient):
    """A plain client whose session is an SSH session's: the user name's shortcuts after the welcome,
    a link closed for good ends the session."""

    def __init__(self, app: PlainSessionApp, console: Console, opener: Any) -> None:
        super().__init__(console, opener)
        self.app = app
        self.farewell = app.farewell

    def handle(self, message: Any) -> None:
        app = self.app
        if isinstance(message, Bye) and message.reason != SHUTTING_DOWN:
            # closed for good (the same player connected elsewhere, flooding): the session ends; a game
            # server shutting down is connected to again
            app.farewell = _("The server closed the session: {reason}").format(
                reason=words.clause(plain_text(message.reason)))
            self.quit()
            return
        super().handle(message)
        if isinstance(message, Welcome):
            self._shortcut(message)
        elif isinstance(message, State) and message.view.winner is None:
            app.last_game_update = asyncio.get_running_loop().time()

    def _shortcut(self, welcome: Welcome) -> None:
        door = self.app.door
        session = self.session
        if door.code is not None:
            if welcome.table is not None:
                self.say(_("You are back at your own table; the invite code {code} was not used.").format(
                    code=door.code))
            elif door.watch:
                self.send(Spectate(code=door.code))
            else:
                session.join_by_code(door.code)
            door.code = None  # used: a reconnection goes back to where the player is
        elif door.play_now is not None:
            if welcome.table is None:
                session.play_now_wish = door.play_now
                self.send(PlayNow(edition=as_edition(door.play_now[0]), seats=door.play_now[1]))
            door.play_now = None

    async def run(self) -> int:
        code = await super().run()
        self.farewell = self.app.farewell
        return code

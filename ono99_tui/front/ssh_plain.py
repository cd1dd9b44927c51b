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

from ono99_kernel.wire.server import Notice, State

from ..i18n import gettext as _
from ..i18n import language_from_ssh_env, set_language, using
from ..links import Link
from ..plain import sentences as words
from ..plain.console import Console, plain_text
from ..plain.run import PlainClient, Refused
from . import ssh_words
from .door import Entered, enter_lobby, front_session
from .textual_driver import ChannelDriver, ChannelTerminal

if TYPE_CHECKING:
    from ..client.model import Model
    from .door import Door

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
        """Say hello to the lobby (``front/door.py``), as the app's session does, asking for a name in lines."""
        entered = await enter_lobby(self.door, self.player_name, client.model.resume, self._ask_name)
        if isinstance(entered, Entered):
            self.player_name = entered.name
            return entered.link
        if entered is None:
            raise Refused("", 0)
        raise Refused(_("The server closed the session: {reason}").format(reason=words.clause(entered.reason))
                      if entered.reason is not None else
                      _("The game server cannot be reached just now; try again in a moment."), 0)

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
    """A plain client whose session is an SSH session's: the user name's shortcuts after the welcome
    (the door's entry), a link closed for good ends the session."""

    def __init__(self, app: PlainSessionApp, console: Console, opener: Any) -> None:
        super().__init__(console, opener, client=front_session(app.door))
        self.app = app
        self.farewell = app.farewell
        self._renamed: Notice | None = None  # an operator's rename, which closes the session next

    def handle(self, message: Any) -> None:
        super().handle(message)
        app = self.app
        if isinstance(message, Notice) and message.code == "renamed":
            self._renamed = message
        if self.session.ended is not None and self._renamed is not None:
            app.farewell = ssh_words.renamed_closed(self._renamed)  # with the way to play on
        elif self.session.ended is not None:
            # closed for good (the same player connected elsewhere, flooding): the session ends; a game
            # server shutting down is connected to again
            app.farewell = _("The server closed the session: {reason}").format(
                reason=words.clause(plain_text(self.session.ended)))
        elif isinstance(message, State) and message.view.winner is None:
            app.last_game_update = asyncio.get_running_loop().time()

    async def run(self) -> int:
        code = await super().run()
        self.farewell = self.app.farewell
        return code

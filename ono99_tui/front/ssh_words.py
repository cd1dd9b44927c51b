"""What the SSH front says to a session outside its app, in the language the player's SSH client
asked for (``LANG``/``LC_*``, ``ono99_tui.i18n.language_from_ssh_env``)."""

from __future__ import annotations

from collections.abc import Mapping

from ono99_kernel.wire.server import Notice
from ono99_tui.i18n import N_, language_from_ssh_env, ngettext, using
from ono99_tui.i18n import gettext as _
from ono99_tui.plain.console import plain_text
from ono99_tui.reasons import render


def no_commands(env: Mapping[str, str], port: int) -> str:
    with using(language_from_ssh_env(env)):
        return _("ONO 99 runs no commands, it is a game: play with 'ssh -t -p {port} HOST'.").format(port=port)


def no_terminal(env: Mapping[str, str], port: int) -> str:
    with using(language_from_ssh_env(env)):
        return _("ONO 99 is played in a terminal: connect from one with 'ssh -t -p {port} HOST' ('ssh -tt' when "
                 "your input is not a terminal).").format(port=port)


def game_failed(env: Mapping[str, str]) -> str:
    with using(language_from_ssh_env(env)):
        return _("Sorry: the game failed on the server. Connect again to carry on.")


def idle_closed(env: Mapping[str, str], minutes: float) -> str:
    with using(language_from_ssh_env(env)):
        count = int(minutes) if minutes == int(minutes) else 2  # a fraction takes the plural (1.5 minutes)
        return ngettext("Closed after {minutes} minute without a key pressed.",
                        "Closed after {minutes} minutes without a key pressed.", count).format(minutes=f"{minutes:g}")


def server_closed(env: Mapping[str, str], reason: str | None = None) -> str:
    """The farewell when the front closes; ``reason`` None: the server is shutting down."""
    with using(language_from_ssh_env(env)):
        return _("The server closed the session: {reason}").format(reason=reason or shutting_down())


def renamed_closed(renamed: Notice) -> str:
    """The farewell after an operator renamed a key's player (a guest is never renamed), in the current
    language: why the session ended, and how to play on under the new name."""
    reason = render(renamed.code, renamed.params, renamed.text)
    name = plain_text(str(renamed.params.get("name", "")))
    return " ".join((_("The server closed the session: {reason}").format(reason=reason),
                     _("Connect again with ssh to play on as {name}.").format(name=name)))


def server_lost(env: Mapping[str, str], keyed: bool, seated: bool = True) -> str:
    """The farewell when the game server stopped without closing (killed, crashed): nothing was shut
    down in order, but every table and seat was saved; ``keyed``: the player came with an SSH key,
    which brings them back to their seat (a guest's new session is a new guest); ``seated``: they had
    a seat (a spectator or a player in the lobby has none to keep)."""
    with using(language_from_ssh_env(env)):
        if not seated:
            return _("The game server stopped unexpectedly. Connect again with ssh in a moment.")
        if keyed:
            return _("The game server stopped unexpectedly. Your seat is kept: connect again with ssh in a "
                     "moment, with the same key.")
        return _("The game server stopped unexpectedly. Connect again with ssh in a moment (a guest's seat "
                 "cannot be taken back: connect with an SSH key to keep yours).")


def bye(env: Mapping[str, str]) -> str:
    with using(language_from_ssh_env(env)):
        return _("Bye.")


def shutting_down() -> str:
    """Why the sessions end when the front closes (in the current language: each session's own)."""
    return _("the server is shutting down")


def admission(why: str, address: str, seconds: int = 0) -> str:
    """Why a connection is refused before its login (the SSH client's language is not known yet: the host's)."""
    return _(ADMISSION[why]).format(address=address, seconds=seconds)


ADMISSION = {
    "closing": N_("the server is shutting down"),
    "full": N_("the server is full; try again later"),
    "address": N_("too many sessions from {address}"),
    "busy": N_("the server is busy, try again in {seconds} s"),
}

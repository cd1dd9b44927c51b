"""What the web front says outside a session's app, in the current language (a session's own: the
browser's ``Accept-Language``)."""

from __future__ import annotations

from ono99_tui.i18n import gettext as _


def too_slow() -> str:
    return _("Closed: this browser did not take the game's updates.")


def server_lost(seated: bool) -> str:
    """The farewell when the game server stopped without closing; ``seated``: the player had a seat,
    which the token this browser keeps brings them back to."""
    if seated:
        return _("The game server stopped unexpectedly. Your seat is kept: connect again in a moment.")
    return _("The game server stopped unexpectedly. Connect again in a moment.")


def page_words() -> dict[str, str]:
    """The page's own words, for its script."""
    return {
        "lost": _("The connection was lost."),
        "reconnect": _("Connect again"),
        "password": _("This server asks for a password."),
        "password_label": _("Password"),
        "enter": _("Enter"),
        "no_script": _("ONO 99 plays in this page with JavaScript turned on."),
    }

"""What a player may do with a table's seats, in words and as the message to send: read by the seat
menu of the app and by the plain mode (ono99_tui/plain). No Textual here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ono99_kernel.protocol import PLAY_NOW_TABLE
from ono99_kernel.wire.requests import AddBot, GiveSeat, Kick, RemoveBot, SetTableOptions, Sit, Stand

from ..i18n import gettext as _
from .labels import seat_name

if TYPE_CHECKING:
    from .model import Model


def seated_in_running_game(model: Model) -> bool:
    """True while the player sits at a table whose game is running: leaving then gives the seat to
    a bot for the rest of that game."""
    table = model.table
    return table is not None and table.status == "playing" and table.you is not None


MAX_CHOICES = 16
SeatRequest = Sit | Stand | GiveSeat | RemoveBot | AddBot | Kick | SetTableOptions


def seat_choices(model: Model, local: bool = False) -> list[tuple[str, SeatRequest]]:
    """What the player may do with the table's seats now, as (label, message to send); ``local``: in a
    local game, which always allows hints."""
    table = model.table
    choices: list[tuple[str, SeatRequest]] = []
    if table is None:
        return choices
    seats = table.seats
    me = table.you
    playing = table.status == "playing"
    host = bool(table.host) and table.host == model.my_name
    replace_bots = table.replace_bots

    if me is None and playing:
        choices.append((_("Sit down when the next game starts"), Sit()))
    elif me is None:
        for i, seat in enumerate(seats):
            if seat.kind == "empty" or (replace_bots and seat.kind == "bot"):
                choices.append((_("Sit down in seat {n}").format(n=i + 1), Sit(seat=i)))
    elif not playing:
        choices.append((_("Stand up (watch the table)"), Stand()))
    if host and not playing:
        watchers = [w for w in table.waiting or table.watchers if w != model.my_name]
        for i, seat in enumerate(seats):
            if seat.kind == "bot":
                choices += [(_("Give seat {n} ({bot}) to {name}").format(n=i + 1, bot=seat_name(seat), name=w),
                             GiveSeat(seat=i, name=w)) for w in watchers]
                choices.append((_("Remove {bot} from seat {n}").format(bot=seat_name(seat), n=i + 1),
                                RemoveBot(seat=i)))
            elif seat.kind == "empty":
                choices += [(_("Give seat {n} to {name}").format(n=i + 1, name=w),
                             GiveSeat(seat=i, name=w)) for w in watchers]
                choices.append((_("Add a bot in seat {n}").format(n=i + 1), AddBot(seat=i)))
            elif i != me:
                choices.append((_("Remove {name} from the table").format(name=seat.name), Kick(seat=i)))
    if host:
        choices.append((_("Late joiners take bots' seats: on, turn off") if replace_bots
                        else _("Late joiners take bots' seats: off, turn on"),
                        SetTableOptions(replace_bots=not replace_bots)))
    if host and not playing and not local and table.name_code != PLAY_NOW_TABLE:  # a play-now table is rated
        choices.append((_("Hints: allowed, turn off (games are rated again)") if table.hints
                        else _("Hints: off, allow them (games here are then not rated)"),
                        SetTableOptions(hints=not table.hints)))
    return choices[:MAX_CHOICES]

"""The server's errors, notices and ``away`` lines in the player's language.

The server sends a ``code`` and ``params`` (docs/protocol.md, section 9) beside an English text;
this module says them in the current language (``ono99_tui.i18n``). A code or parameters it does
not know (a newer server) show the server's English text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ono99_kernel.bots.levels import BOT_LEVELS
from ono99_kernel.core.actions import DISCARD_FOUR_CODE, DRAW_CODE
from ono99_kernel.core.errors import ILLEGAL_PROBLEMS, OPTION_PROBLEMS, english_card
from ono99_kernel.protocol import TABLE_NAMES
from ono99_kernel.wire.server import AdminResult, Away, ErrorMessage, Notice, Unplayable

from .i18n import N_, gettext, ngettext
from .numbers import decimal, signed

# (code, params' "why" or None) → message; {names} are params.
MESSAGES: dict[tuple[str, str | None], str] = {
    ("game_running", "started"): N_("the game has started; spectate it or wait for the rematch"),
    ("game_running", "change_seats"): N_("you cannot change seats during a game"),
    ("game_running", "give_seat"): N_("seats can be given between games"),
    ("game_running", "add_bot"): N_("bots can be added before the game starts"),
    ("game_running", "remove_bot"): N_("bots can be removed between games"),
    ("game_running", "running"): N_("the game is already running"),
    ("game_running", "rematch"): N_("a rematch can start once the game is over"),
    ("game_running", "play_now"): N_("you are playing a game; leave the table first"),
    ("not_finished", "rematch"): N_("a rematch can start once the game is over"),
    ("game_running", "series"): N_("a series can start between games"),
    ("game_running", "hints"): N_("hints can be turned on or off between games"),
    ("rated_table", "play_now"): N_("a play-now table is rated: hints are for tables of your own"),
    ("bad_series", "private"): N_("a series is played at a private table"),
    ("bad_series", "both"): N_("a series is a number of games or a number of points, not both"),
    ("table_full", "spectate"): N_("every seat is taken; you can spectate"),
    ("table_full", "bot"): N_("every seat is taken"),
    ("bad_seat", "range"): N_("this table has seats 0 to {last}"),
    ("bad_seat", "not_free"): N_("seat {seat} is not empty and has no bot"),
    ("bad_seat", "no_bot"): N_("there is no bot in seat {seat}"),
    ("bad_seat", "no_player"): N_("there is no player in seat {seat}"),
    ("bad_seat", "self"): N_("you cannot kick yourself; leave instead"),
    ("seat_taken", None): N_("seat {seat} is taken"),
    ("bad_name", "control"): N_("the name may not contain control characters"),
    ("bad_name", "length"): N_("the name must be 1 to {limit} characters long"),
    ("bad_name", "table_control"): N_("the table name may not contain control characters"),
    ("bad_name", "table_length"): N_("the table name must be 1 to {limit} characters long"),
    ("not_watching", "wait"): N_("only a spectator of this table can wait for a seat"),
    ("not_watching", "name"): N_("{name} is not watching this table"),
    ("not_seated", "stand"): N_("you are not sitting at this table"),
    ("not_seated", "play"): N_("only seated players can play"),
    ("not_host", None): N_("only the table's host ({host}) can do that"),
    ("no_game", None): N_("no game is running at this table"),
    ("stale_action", None): N_("that action was for state {version}, the table is at {current}; it was not applied"),
    ("version_mismatch", None): N_("this server speaks protocol version {server}, the client {client}; "
                                   "update the client"),
    ("bad_field", "bots"): N_("a table of {seats} seats has room for at most {bots} bots"),
    ("no_table", "code"): N_("no table has the invite code {code}"),
    ("no_table", "id"): N_("there is no open table with that number; list the tables again"),
    ("no_table", "none"): N_("you are not at a table; join one first"),
    ("seated", None): N_("you are sitting at this table; stand up to watch"),
    ("empty_chat", None): N_("the message is empty"),
    ("chat_too_long", None): N_("chat messages are at most {max} characters"),
    ("rate_limited", None): N_("slow down: that was not carried out; wait a moment"),
    ("name_taken", "taken"): N_("the name {name} is taken on this server; choose another"),
    ("name_taken", "same"): N_("the name {name} is the same as {existing}, which is taken on this server; "
                               "choose another"),
    ("name_taken", "looks_like"): N_("the name {name} looks like {existing}, which is taken on this server; "
                                     "choose another"),
    ("name_taken", "taken_keyed"): N_("the name {name} belongs to a player with a key; choose another"),
    ("name_taken", "same_keyed"): N_("the name {name} is the same as {existing}, which belongs to a player with a "
                                     "key; choose another"),
    ("name_taken", "looks_like_keyed"): N_("the name {name} looks like {existing}, which belongs to a player with a "
                                           "key; choose another"),
    ("server_error", None): N_("the server failed to handle that message; it was not applied"),
    ("bad_action", None): N_("the server does not know that move; it was not applied"),
    ("not_queued", None): N_("you are not waiting to play now"),
    ("no_identity", None): N_("a guest has no profile: connect with a key to be rated"),
    ("no_player", None): N_("no player with a key is called {name}"),
    ("no_record", None): N_("there is no finished game {game}"),
    ("no_database", None): N_("this server keeps no games or ratings"),
    ("access_denied", "password"): N_("this server asks for a password: connect with --password"),
    ("access_denied", "wrong_password"): N_("wrong password"),
    ("access_denied", "no_key"): N_("this server lets in only the keys its host listed, and this connection proved "
                                    "no key: play with {ssh}, and if your key is refused, send the host your public "
                                    "key line (the one line of ~/.ssh/id_ed25519.pub, or of id_ed25519.pub in "
                                    "ono99's data directory) for the server's authorized_keys file"),
    ("access_denied", "key_not_listed"): N_("your key {fingerprint} is not on this server's list: send the "
                                            "server's host this line for its authorized_keys file, then connect "
                                            "again: {key}"),
    ("access_denied", "key_not_from"): N_("your key {fingerprint} is listed, but not for connections from {address}"),
    ("access_denied", "fronts_only"): N_("this port takes only the server's SSH fronts: play with {ssh}"),
    ("access_denied", "locked"): N_("too many wrong passwords from your address: wait {seconds} s before trying "
                                    "again"),
    ("access_denied", "busy"): N_("too many wrong passwords on this server just now: wait {seconds} s before "
                                  "trying again"),
    ("too_many_connections", "closing"): N_("the server is shutting down"),
    ("too_many_connections", "full"): N_("the server is full"),
    ("too_many_connections", "address"): N_("too many connections from {address}"),
    ("too_many_connections", "waiting_address"): N_("too many connections from {address} are waiting to say hello"),
    ("too_many_connections", "waiting"): N_("too many connections are waiting to say hello; try again in a moment"),
    ("not_trusted", None): N_("this server does not trust that front"),
    ("unavailable", "bus"): N_("the server cannot open new tables now: its lobby service does not answer; games in "
                              "progress go on"),
    ("unavailable", "database"): N_("the server cannot open new tables now: its database does not answer; games in "
                                    "progress go on"),
    ("unavailable", "chat"): N_("your message was not sent: the server's database does not answer; try again in a "
                                "moment"),
    ("unavailable", "moving"): N_("your table is moving to another node of this server: connect again in a few "
                                  "seconds"),
    ("unavailable", "code_lookup"): N_("the server cannot look up invite codes now: its database does not answer"),
    ("unavailable", "code_moving"): N_("the table of that invite code is moving to another node of this server: try "
                                       "again in a few seconds"),
    ("elsewhere", None): N_("your seat is at a table of another node of this server: connect to {host}:{port}"),
    ("bad_field", "missing"): N_("the message {message} lacks its field {field}"),
    ("bad_field", "type"): N_("the field {field} of the message {message} has the wrong type"),
    ("bad_field", "value"): N_("the field {field} of the message {message} is out of range"),
    ("bad_field", "front"): N_("a front's connection speaks for one player only"),
    ("bad_key", "type"): N_("the key must be an OpenSSH public key of type {types}"),
    ("bad_key", "invalid"): N_("the key is not a valid public key"),
    ("no_challenge", None): N_("there is no challenge to answer"),
    ("bad_signature", None): N_("the signature does not prove that you hold the key; try again"),
    ("hello_first", None): N_("the first message must be hello"),
    ("already_hello", None): N_("hello was already received on this connection"),
    ("unknown_type", None): N_("the server does not know that kind of message"),
    ("bad_message", None): N_("a message needs a text field 't' naming its type"),
    ("bad_frame", None): N_("the server could not read a message of this client"),
    ("frame_too_large", None): N_("a message of this client was too large"),
    ("too_large", None): N_("the answer was too large to send"),
    # running a public host (docs/protocol.md section 5b)
    ("banned", "identity"): N_("your key is banned from this server: {reason}"),
    ("banned", "identity_until"): N_("your key is banned from this server until {until}: {reason}"),
    ("banned", "address"): N_("connections from your address are banned from this server: {reason}"),
    ("banned", "address_until"): N_("connections from your address are banned from this server until {until}: "
                                    "{reason}"),
    ("kicked", None): N_("an operator removed you from this server: {reason}; you may come back in {seconds} s"),
    ("not_operator", "key"): N_("your key {fingerprint} is not an operator's key on this server (operators are "
                                "listed in the file of ono99 serve --admins)"),
    ("not_operator", "no_key"): N_("an operator's session needs a key"),
    ("not_operator", "member"): N_("only the server's operators can do that"),
    # arenas (docs/protocol.md section 6b)
    ("not_operator", "arena"): N_("only the server's operators can open a public arena; open a private one"),
    ("bad_arena", "ahead"): N_("an arena starts within a week"),
    ("bad_arena", "one_private"): N_("you have a private arena open already; it must end first"),
    ("no_arena", "code"): N_("no arena has that invite code"),
    ("no_arena", "id"): N_("there is no such arena"),
    ("no_arena", "none"): N_("no arena is running or coming"),
    ("no_arena", "not_in"): N_("you are in no arena"),
    ("arena_over", "over"): N_("that arena is over"),
    ("game_running", "arena"): N_("you are playing a game; leave the table first"),
    ("bad_name", "denied"): N_("the name {name} is not allowed on this server; choose another"),
    ("muted", "lobby"): N_("an operator muted you in the lobby's chat: {reason}"),
    ("muted", "lobby_until"): N_("an operator muted you in the lobby's chat until {until}: {reason}"),
    ("no_player", "name"): N_("nobody called {name} is on this server"),
    ("no_player", "identity"): N_("no player has the key {name}"),
    ("no_player", "offline"): N_("{name} is not connected"),
    ("bad_target", "self"): N_("that is you"),
    ("bad_target", "guest"): N_("{name} is a guest, who has no key: ban their address"),
    ("bad_target", "guest_rename"): N_("{name} is a guest, who has no key: kick or ban them"),
    ("bad_target", "guest_release"): N_("{name} is a guest, whose name is free once they leave"),
    ("bad_target", "own_address"): N_("that would ban your own address"),
    ("not_banned", None): N_("{name} is not banned"),
    ("not_muted", None): N_("{name} is not muted"),
    ("no_report", None): N_("there is no report {id}"),
    ("blocked", None): N_("the host of this table does not let you join it"),
    ("rate_limited", "report"): N_("you sent too many reports; you can send another in {seconds} s"),
    ("rate_limited", "records"): N_("you fetched too many game records; you can fetch another in {seconds} s"),
    # not "or come in as a guest": an `ono99 connect` or SSH player cannot
    ("rate_limited", "new_names"): N_("too many new players' names from your address just now: wait {seconds} s "
                                      "before trying again"),
    ("rate_limited", "code_locked"): N_("too many wrong invite codes: wait {seconds} s before trying again"),
    ("rate_limited", "code_busy"): N_("too many wrong invite codes on this server just now: wait {seconds} s before "
                                      "trying again"),
    # notices
    ("motd", None): N_("Message of the day: {text}"),
    ("host_notice", None): N_("Notice from the host: {text}"),
    ("reported", None): N_("Your report on {name} was sent to the operators."),
    ("operator_kick", None): N_("An operator removed you from this server: {reason}"),
    ("operator_ban", None): N_("An operator banned you from this server: {reason}"),
    ("chat_muted", None): N_("An operator muted you in the lobby's chat: {reason}"),
    ("renamed", None): N_("An operator renamed you to {name}."),
    ("table_closed", None): N_("An operator closed your table: {reason}"),
    ("waiting_for_seat", None): N_("You will sit down when the next game starts, if a seat is free then."),
    ("removed", None): N_("You were removed from the table: {table}."),
    ("no_seat_free", None): N_("No seat was free when the game started: you watch it, and sit down at the next "
                               "game if a seat is free then."),
    ("seat_wanted", None): N_("Waiting for a seat: {names}. Between games, give one with the seat menu (m), or let "
                              "late joiners replace bots."),
    ("clock_ran_out", None): N_("{name}'s clock ran out: the {bot} bot played {card} for them"),
    ("clock_ran_out", "you"): N_("Your clock ran out: the {bot} bot played {card} for you"),  # said to {name}
    # refused table options, as the rules engine says them
    **{("bad_options", why): template for why, template in OPTION_PROBLEMS.items()},
}


# Why the rules refused an action (an illegal_action error's why): the engine's words (ILLEGAL_PROBLEMS), but
# a player is told about their own turn and draw without seat numbers.
ILLEGAL: dict[str, str] = {
    **ILLEGAL_PROBLEMS,
    "not_your_turn": N_("it is not your turn"),
    "seat_turn": N_("it is not your turn"),
    "no_draw": N_("you have no card to draw"),
}
MESSAGES.update({("illegal_action", why): template for why, template in ILLEGAL.items()})


def unplayable_reason(entry: Unplayable) -> str:
    """Why a card cannot be played (an entry of a view's ``unplayable``) in the current language: by its key
    and params, as the refusal of that card would be said; the server's English words for a key this
    version does not know."""
    return render("illegal_action", {**entry.params, "why": entry.why}, entry.reason)


QUOTED = {"name_taken": ("name", "existing"), "bad_name": ("name",), "not_watching": ("name",), "no_table": ("code",),
          "no_player": ("name",),
          "bad_options": ("option", "other")}


def render(code: Any, params: Any, fallback: str) -> str:
    """The text of ``code`` with ``params`` in the current language, else ``fallback`` (the server's
    English text)."""
    if not isinstance(code, str) or not isinstance(params, Mapping):
        return fallback
    if code == "too_many_tables":
        try:
            hosted, limit = int(params["hosted"]), int(params["limit"])
        except (KeyError, TypeError, ValueError):
            return fallback
        return ngettext("you already host {hosted} table (the limit is {limit}); close one first",
                        "you already host {hosted} tables (the limit is {limit}); close one first",
                        hosted).format(hosted=hosted, limit=limit)
    if code == "stood_in":
        return _stood_in(params, fallback)
    if code == "rating":
        return _rating(params, fallback)
    why = params.get("why")
    if code == "name_taken" and params.get("keyed") and isinstance(why, str):
        why += "_keyed"  # the name is a keyed player's: a guest is told so
    template = MESSAGES.get((code, why if isinstance(why, str) else None)) or MESSAGES.get((code, None))
    if template is None:
        return fallback
    values = {k: v for k, v in params.items() if isinstance(k, str)}
    for quoted in QUOTED.get(code, ()):  # names in quotes, as the server says them: 'Аda' looks like 'Ada'
        if quoted in values:
            values[quoted] = repr(str(values[quoted]))
    if (code == "illegal_action" and why == "not_in_hand") or code == "clock_ran_out":
        values["card"] = card_words(str(values.get("card", "")), str(values.get("edition", "")))
    if code == "removed" and "table" in values:  # a name the server gave, in the reader's language
        values["table"] = table_name_words(str(values["table"]))
    level = BOT_LEVELS.get(str(values.get("bot"))) if code == "clock_ran_out" else None
    if level is not None:  # the bot's level by its name in the reader's language
        values["bot"] = gettext(level.title)
    try:
        return gettext(template).format(**values)
    except (KeyError, IndexError, ValueError):
        return fallback


# the English of the names the server gives tables, to say one that came only as its English name (a
# notice, a LAN advertisement)
_ENGLISH_TABLE_NAMES = {code: re.compile(re.escape(template).replace(r"\{host\}", "(?P<host>.+)")
                                         .replace(r"\{number\}", r"(?P<number>[0-9]+)"))
                        for code, template in TABLE_NAMES.items()}


def table_name_words(name: str) -> str:
    """A table's name as the server wrote it, in the reader's language when it is one the server gives
    (``Ada's table``, ``Play now #3``; docs/protocol.md, section 6), else as it came."""
    for code, english in _ENGLISH_TABLE_NAMES.items():
        match = english.fullmatch(name)
        if match is not None:
            return gettext(TABLE_NAMES[code]).format(**match.groupdict())
    return name


def card_words(code: str, edition: str) -> str:
    """A card code of a notice (a card, ``ONO99x4`` or ``draw``) as the player reads it: its label on the
    table's edition (``"−10"``, not ``"-10"``; ``"Play 2"``, not ``"PLAY2"``)."""
    if code == DISCARD_FOUR_CODE:
        return gettext("four ONO 99")
    if code == DRAW_CODE:
        return gettext("a draw")
    return gettext(english_card(code, edition))


def _stood_in(params: Mapping[str, Any], fallback: str) -> str:
    try:
        name, plays, out = str(params["name"]), int(params["plays"]), bool(params["out"])
        cards = [c for c in str(params["cards"]).split(",") if c]
    except (KeyError, TypeError, ValueError):
        return fallback
    shown = ", ".join(card_words(c, str(params.get("edition", ""))) for c in cards)
    if plays and out:
        text = ngettext("While you were away, a bot played for {name}: {n} card ({cards}); the seat went out.",
                        "While you were away, a bot played for {name}: {n} cards ({cards}); the seat went out.",
                        plays)
    elif plays:
        text = ngettext("While you were away, a bot played for {name}: {n} card ({cards}).",
                        "While you were away, a bot played for {name}: {n} cards ({cards}).", plays)
    else:
        text = gettext("While you were away, a bot played for {name}; the seat went out.")
    return text.format(name=name, n=plays, cards=shown)


def _rating(params: Mapping[str, Any], fallback: str) -> str:
    try:
        edition, provisional = str(params["edition"]), bool(params["provisional"])
        before, after = decimal(float(params["before"])), decimal(float(params["after"]))  # "3.10": 3,10 in German
        change = signed(float(params["change"]))
        games, limit = int(params["games"]), int(params["limit"])
    except (KeyError, TypeError, ValueError):
        return fallback
    text = gettext("Your {edition} rating: {before} → {after} ({change})").format(
        edition=edition, before=before, after=after, change=change)
    if provisional:
        text += ngettext(", provisional ({games} of {limit} game)", ", provisional ({games} of {limit} games)",
                         limit).format(games=games, limit=limit)
    return text


def said(message: ErrorMessage | Notice | Away, me: str | None = None) -> str:
    """An ``error``'s reason, a ``notice`` or ``away``'s text, as the player reads it: by its code and
    params in the current language; the server's English words for a code this version does not know.
    ``me``: the reader's name, to say a notice about the reader to them ("Your clock ran out")."""
    params = message.params
    if message.code == "clock_ran_out" and me is not None and params.get("name") == me:
        params = {**params, "why": "you"}
    return render(message.code, params, message.reason if isinstance(message, ErrorMessage) else message.text)


def admin_said(result: AdminResult) -> str:
    """What an operator's command did (its ``admin_result``, docs/protocol.md section 5b) in the current
    language; the server's English words for a command or params this version does not know."""
    command, params = result.command, result.params
    try:
        if command == "kick":
            text = gettext("removed {name}: they may come back in {seconds} s (ban to keep them out)")
        elif command == "ban":
            text = gettext("banned {target} until {until}") if params.get("until") else \
                gettext("banned {target} for good")
        elif command == "unban":
            text = gettext("lifted the ban on {target}")
        elif command == "mute":
            text = gettext("muted {name} in the lobby's chat until {until}") if params.get("until") else \
                gettext("muted {name} in the lobby's chat")
        elif command == "unmute":
            text = gettext("{name} may chat in the lobby again")
        elif command == "rename":
            text = gettext("renamed {old} to {new}; the name is locked to their key")
        elif command == "release":
            text = gettext("released the name {name}; {name} is online and keeps it until they leave, then "
                           "anyone may take it") if params.get("online") else \
                gettext("released the name {name}; anyone may take it now")
        elif command == "close":
            text = gettext("closed table {table}")
        elif command == "motd":
            text = gettext("message of the day: {text}") if params.get("text") else gettext("no message of the day")
        elif command == "notice":
            sent = int(params["sent"])
            return ngettext("told {n} player", "told {n} players", sent).format(n=sent)
        elif command == "resolve":
            text = gettext("report {id} is closed")
        else:
            return result.text
        return text.format(**params)
    except (KeyError, IndexError, TypeError, ValueError):
        return result.text

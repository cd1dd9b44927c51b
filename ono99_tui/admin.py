"""``ono99 admin``: an operator's commands against a running server (docs/server.md, "Running a
public host"; docs/protocol.md, section 5b).

It connects as ``ono99 connect`` does: TLS, the server's certificate checked against the servers this
data directory knows (or ``--server-fingerprint``), and the key of the data directory proven to the
server, which must list it in its ``--admins`` file. The hello asks for an operator's session
(``hello.admin``): the connection never enters the lobby, so an operator can run commands while
playing with the same key.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime
import re
import sys
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ono99_kernel.protocol import DEFAULT_PORT, MAX_BAN_SECONDS, clean_text
from ono99_kernel.wire.requests import Admin, CreateArena

from .i18n import gettext as _
from .i18n import ngettext
from .reasons import admin_said

if TYPE_CHECKING:
    from ono99_kernel.wire.server import AdminResult, ArenaMessage

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
TIMEOUT = 15.0
DURATION = re.compile(r"(\d+)\s*([smhdw])")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def duration(text: str) -> int:
    """An argparse type: ``30m``, ``12h``, ``7d``, ``2w``, ``1d12h`` as seconds; ``forever`` is 0."""
    cleaned = text.strip().lower()
    if cleaned in ("forever", "permanent", "0"):
        return 0
    parts = DURATION.findall(cleaned)
    if not parts or DURATION.sub("", cleaned).strip():
        raise argparse.ArgumentTypeError(_("{text} is not a duration such as 30m, 12h, 7d or forever").format(
            text=repr(text)))
    seconds = sum(int(n) * UNITS[unit] for n, unit in parts)
    if not 0 < seconds <= MAX_BAN_SECONDS:
        raise argparse.ArgumentTypeError(_("{text} is not from 1 second to 10 years").format(text=repr(text)))
    return seconds


class _Commands:
    """The admin commands' subparsers, each taking the connection's options too."""

    def __init__(self, subparsers: Any, connection: argparse.ArgumentParser) -> None:
        self.subparsers = subparsers
        self.connection = connection

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self.subparsers.add_parser(name, parents=[self.connection], **kwargs)
        return parser


def add_admin_parser(sub: Any) -> argparse.ArgumentParser:
    """``ono99 admin`` and its commands, on the subparsers of the ``ono99`` command."""
    admin: argparse.ArgumentParser = sub.add_parser("admin", help=_("an operator's commands against a running server"),
                           description=_("Run an operator's command on a running ONO 99 server: your key (as "
                                         "for 'ono99 connect') must be in the file of its 'ono99 serve --admins'."))
    # the connection's options go before the command or after it (``ono99 admin who --server HOST``): after
    # it they are the command's, given only when typed (SUPPRESS), so the ones before it stay otherwise
    connection = argparse.ArgumentParser(add_help=False)
    for parser, default in ((admin, None), (connection, argparse.SUPPRESS)):
        parser.add_argument("--server", default=f"127.0.0.1:{DEFAULT_PORT}" if default is None else default,
                            metavar="HOST[:PORT]",
                            help=_("the server (default: 127.0.0.1:{port})").format(port=DEFAULT_PORT))
        parser.add_argument("--data-dir", type=Path, default=default,
                            help=_("where your key is (as for 'ono99 connect')"))
        parser.add_argument("--server-fingerprint", default=default, metavar="SHA256:…",
                            help=_("the fingerprint the server must show (as 'ono99 serve' prints it)"))
    commands = _Commands(admin.add_subparsers(dest="admin_command", metavar="COMMAND"), connection)
    commands.add_parser("who", help=_("who is online: name, key, address, how they came in, table"))
    target = _("a player's name, or their key's fingerprint (SHA256:…)")
    reason = _("why (the player is told)")
    kick = commands.add_parser("kick", help=_("end a player's session (they may come back after a minute)"))
    kick.add_argument("target", help=target)
    kick.add_argument("--reason", required=True, help=reason)
    kick.add_argument("--address", action="store_true",
                      help=_("a guest: keep their address out too for that minute (other guests there too)"))
    ban = commands.add_parser("ban", help=_("keep a key or an address out, at every listener"))
    ban.add_argument("target", nargs="?", default=None, help=target)
    ban.add_argument("--address", default=None, help=_("an address or network (CIDR) instead of a player"))
    ban.add_argument("--reason", required=True, help=reason)
    ban.add_argument("--for", dest="seconds", type=duration, default=0, metavar="DURATION",
                     help=_("how long: 30m, 12h, 7d, 2w (default: for good)"))
    unban = commands.add_parser("unban", help=_("lift a ban"))
    unban.add_argument("target", nargs="?", default=None, help=target)
    unban.add_argument("--address", default=None, help=_("the banned address or network"))
    commands.add_parser("bans", help=_("the bans in force"))
    mute = commands.add_parser("mute", help=_("stop a player chatting in the lobby"))
    mute.add_argument("target", help=target)
    mute.add_argument("--reason", required=True, help=reason)
    mute.add_argument("--for", dest="seconds", type=duration, default=0, metavar="DURATION",
                      help=_("how long: 30m, 12h, 7d, 2w (default: for good)"))
    unmute = commands.add_parser("unmute", help=_("let a muted player chat in the lobby again"))
    unmute.add_argument("target", help=target)
    rename = commands.add_parser("rename", help=_("give a player with a key another name, and lock it"))
    rename.add_argument("target", help=target)
    rename.add_argument("name", help=_("the new name"))
    release = commands.add_parser("release", help=_("free the name a key owns: anyone may take it"))
    release.add_argument("target", help=target)
    close = commands.add_parser("close", help=_("close a table (its game is not recorded)"))
    close.add_argument("table", type=int, help=_("the table's number"))
    close.add_argument("--reason", required=True, help=_("why (the players are told)"))
    motd = commands.add_parser("motd", help=_("show or set the message of the day"))
    motd.add_argument("text", nargs="?", default=None, help=_("the new message (\"\" clears it)"))
    notice = commands.add_parser("notice", help=_("tell every player now"))
    notice.add_argument("text", help=_("what to say"))
    reports = commands.add_parser("reports", help=_("the report queue, or one report whole"))
    reports.add_argument("id", nargs="?", type=int, default=None, help=_("a report's number: show it whole"))
    reports.add_argument("--all", action="store_true", help=_("closed reports too"))
    reports.add_argument("--resolve", action="store_true", help=_("close the report (with its number)"))
    reports.add_argument("--game", type=Path, default=None, metavar="FILE.jsonl",
                         help=_("write the report's game to this file, for 'ono99 replay'"))
    commands.add_parser("log", help=_("the operators' actions, newest last"))
    tournament = commands.add_parser("tournament", help=_("schedule a public arena (docs/server.md, \"Arenas\")"))
    tournament.add_argument("action", choices=["create"], help=_("what to do: create"))
    tournament.add_argument("--edition", choices=["2022", "1980"], default="2022", help=_("the edition played"))
    tournament.add_argument("--seats", type=int, default=4, help=_("players at each of its tables (2 to 8)"))
    tournament.add_argument("--start", default="now", type=start_time,
                            help=_("when it starts: now, HH:MM (today, or tomorrow once past) or YYYY-MM-DD HH:MM"))
    tournament.add_argument("--minutes", type=int, required=True, help=_("how long it seats players (5 to 1440)"))
    tournament.add_argument("--name", default=None, help=_("its name in the lobby (default: Arena and its edition)"))
    return admin


def start_time(text: str, now: float | None = None) -> int:
    """``--start``: "now", "HH:MM" (the next such time of day, local) or "YYYY-MM-DD HH:MM" (local), as
    Unix time."""
    moment = time.time() if now is None else now
    text = text.strip()
    if text.lower() == "now":
        return int(moment)
    try:
        if re.fullmatch(r"\d{1,2}:\d{2}", text):
            hours, minutes = (int(part) for part in text.split(":"))
            day = datetime.datetime.fromtimestamp(moment)
            at = day.replace(hour=hours, minute=minutes, second=0, microsecond=0)
            if at.timestamp() < moment:
                at += datetime.timedelta(days=1)
            return int(at.timestamp())
        return int(datetime.datetime.fromisoformat(text).timestamp())
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text!r} is no time: say now, HH:MM or YYYY-MM-DD HH:MM").format(text=text)) from None


def request_of(args: argparse.Namespace) -> Admin | CreateArena | str:
    """The ``admin`` request of the command line (an arena's creation for ``tournament``), or what is
    wrong with it."""
    command = args.admin_command
    if command == "tournament":
        if not 2 <= args.seats <= 8 or not 5 <= args.minutes <= 1440:
            return _("--seats is from 2 to 8 and --minutes from 5 to 1440")
        return CreateArena(minutes=args.minutes, edition=args.edition, seats=args.seats, start=args.start,
                           name=args.name)
    fields: dict[str, Any] = {}
    if command in ("ban", "unban"):
        if (args.target is None) == (args.address is None):
            return _("name a player or give --address, not both")
        if args.address is not None:
            fields["address"] = args.address
        else:
            fields["target"] = args.target
    elif command in ("kick", "mute", "unmute", "rename", "release"):
        fields["target"] = args.target
        if command == "kick" and args.address:
            fields["all"] = True
    for field in ("reason", "seconds", "name", "table", "text"):
        value = getattr(args, field, None)
        if value is not None:
            fields[field] = value
    if command == "reports":
        if args.resolve:
            if args.id is None:
                return _("--resolve needs a report's number")
            return Admin(command="resolve", id=args.id)
        if args.game is not None and args.id is None:
            return _("--game needs a report's number")
        if args.id is not None:
            fields["id"] = args.id
        if args.all:
            fields["all"] = True
    return Admin(command=command, **fields)


def run_admin(args: argparse.Namespace) -> int:
    from .client.connection import parse_address

    if args.admin_command is None:
        print("ono99 admin: " + _("say which command: 'ono99 admin --help' lists them"), file=sys.stderr)
        return EXIT_USAGE
    request = request_of(args)
    if isinstance(request, str):
        print(f"ono99 admin {args.admin_command}: {request}", file=sys.stderr)
        return EXIT_USAGE
    try:
        host, port = parse_address(args.server)
    except ValueError as exc:
        print("ono99 admin: " + _("{address} is not HOST or HOST:PORT: {error}").format(
            address=repr(args.server), error=exc), file=sys.stderr)
        return EXIT_USAGE
    return asyncio.run(_run(args, host, port, request))


async def _run(args: argparse.Namespace, host: str, port: int, request: Admin | CreateArena) -> int:
    from ono99_kernel.fingerprints import FingerprintError, normal_fingerprint
    from ono99_kernel.identity import Identity, data_dir
    from ono99_kernel.wire.server import AdminResult, ArenaMessage

    from .client.connection import Client
    from .client.errors import ServerError
    from .known_servers import (
        FINGERPRINT_PLACEHOLDER,
        KnownServers,
        ServerKeyChanged,
        ServerTrust,
        UnknownServer,
        data_dir_option,
        how_to_accept,
        not_a_fingerprint,
        server_key,
    )
    from .reasons import said

    directory = data_dir(args.data_dir)
    try:
        given = normal_fingerprint(args.server_fingerprint) if args.server_fingerprint else None
    except FingerprintError as exc:
        print("ono99 admin: --server-fingerprint: " + not_a_fingerprint(exc), file=sys.stderr)
        return EXIT_USAGE
    if not (directory / "id_ed25519").exists():
        print("ono99 admin: " + _("no key in {path}: run 'ono99 connect' once, or give --data-dir").format(
            path=directory), file=sys.stderr)
        return EXIT_USAGE
    try:
        identity = Identity.load_or_create(directory)
    except (OSError, ValueError) as exc:
        print("ono99 admin: " + _("cannot use the key in {path}: {error}").format(path=directory, error=exc),
              file=sys.stderr)
        return EXIT_USAGE
    trust = ServerTrust(known=KnownServers.in_directory(directory), given=given)
    try:
        client = await Client.connect(host, port, "", identity=identity, trust=trust, client_name="ono99-admin",
                                      timeout=TIMEOUT, admin=True)
    except UnknownServer as exc:
        print("ono99 admin: " + _("{host}:{port} is not a server this data directory knows; it shows the "
                                  "certificate {fingerprint}: compare it with what 'ono99 serve' printed, then "
                                  "give it with --server-fingerprint").format(
            host=host, port=port, fingerprint=exc.fingerprint), file=sys.stderr)
        return EXIT_REFUSED
    except ServerKeyChanged as exc:
        print("ono99 admin: " + _("{host}:{port} shows the certificate {fingerprint}, not the one this data "
                                  "directory knows: not sending anything").format(
            host=host, port=port, fingerprint=exc.fingerprint) + ". " + how_to_accept(
            host, port, command=f"ono99 admin --server {server_key(host, port)}{data_dir_option(exc.directory)} "
                                f"--server-fingerprint {FINGERPRINT_PLACEHOLDER} who"),
            file=sys.stderr)
        return EXIT_REFUSED
    except ServerError as exc:
        print("ono99 admin: " + said(exc.error), file=sys.stderr)
        return EXIT_REFUSED
    except (OSError, TimeoutError) as exc:
        print("ono99 admin: " + _("cannot reach {host}:{port}: {error}").format(
            host=host, port=port, error=exc.strerror if isinstance(exc, OSError) and exc.strerror else
            type(exc).__name__), file=sys.stderr)
        return EXIT_REFUSED
    try:
        if isinstance(request, CreateArena):
            return show_arena(await client.ask(request, ArenaMessage, TIMEOUT))
        return show(args, await client.ask(request, AdminResult, TIMEOUT))
    except ServerError as exc:
        print(f"ono99 admin {args.admin_command}: " + said(exc.error), file=sys.stderr)
        return EXIT_REFUSED
    except (OSError, TimeoutError, ConnectionError) as exc:
        print("ono99 admin: " + _("the server closed the connection ({error})").format(error=type(exc).__name__),
              file=sys.stderr)
        return EXIT_REFUSED
    finally:
        await client.close()


def _at(seconds: int | str) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(int(seconds)))


def columns(header: list[str], rows: list[list[str]]) -> str:
    """Rows under a header, each column as wide as its widest cell (names and reasons as plain text)."""
    cells = [[clean_text(str(c)) for c in row] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells)


def show(args: argparse.Namespace, result: AdminResult) -> int:
    """Print an ``admin_result`` in the operator's language; the exit code."""
    command, rows = result.command, result.rows
    if command == "who":
        print(columns([_("name"), _("key"), _("address"), _("via"), _("table")],
                      [[str(r["name"]), str(r["identity"] or _("guest")), str(r["address"] or "-"),
                        str(r["listener"] or _("away")), str(r["table"] or "-")] for r in rows]))
        print(ngettext("{n} player", "{n} players", len(rows)).format(n=len(rows)))
    elif command == "bans":
        print(columns([_("banned"), _("name"), _("until"), _("reason")],
                      [[str(r["value"]), str(r["name"] or "-"), str(r["until"]), str(r["reason"])] for r in rows]))
        print(ngettext("{n} ban in force", "{n} bans in force", len(rows)).format(n=len(rows)))
    elif command == "reports":
        return _show_reports(args, rows)
    elif command == "log":
        print(columns([_("when"), _("operator"), _("key"), _("action"), _("whom"), _("what")],
                      [[_at(r["at"]), str(r["operator_name"]), str(r["operator"]), str(r["action"]), str(r["target"]),
                        str(r["detail"])] for r in rows]))
    else:
        print(clean_text(admin_said(result)))
    return EXIT_OK


def show_arena(message: ArenaMessage) -> int:
    """The arena just opened."""
    arena = message.arena
    starts = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() + arena.starts_in))
    print(_("arena {id} opened: {name}, {edition}, {seats} seats, from {start} for {minutes} minutes").format(
        id=arena.id, name=clean_text(arena.name), edition=arena.edition, seats=arena.seats, start=starts,
        minutes=arena.minutes))
    return EXIT_OK


def _show_reports(args: argparse.Namespace, rows: Any) -> int:
    if args.id is None:
        print(columns([_("number"), _("when"), _("by"), _("about"), _("reason"), _("game")],
                      [[str(r["id"]) + ("" if not r["resolved"] else " ✓"), _at(r["at"]), str(r["reporter"]),
                        str(r["target"]), str(r["reason"]), str(r["game"]) or "-"] for r in rows]))
        print(ngettext("{n} report", "{n} reports", len(rows)).format(n=len(rows)))
        return EXIT_OK
    (row,) = rows
    print(_("report {id}, {when}: {reporter} about {target} ({key})").format(
        id=row["id"], when=_at(row["at"]), reporter=clean_text(str(row["reporter"])),
        target=clean_text(str(row["target"])), key=row["target_identity"]))
    print(_("reason: {reason}").format(reason=clean_text(str(row["reason"]))))
    if row["game"]:
        print(_("game: {game}").format(game=row["game"]))
    for line in str(row.get("chat", "")).splitlines():
        print("  " + clean_text(line))
    if args.game is not None:
        if not row.get("record"):
            print("ono99 admin: " + _("report {id} has no game to write").format(id=row["id"]), file=sys.stderr)
            return EXIT_REFUSED
        record = zlib.decompress(base64.b64decode(str(row["record"])), bufsize=4 << 20)
        try:
            args.game.write_bytes(record + b"\n")
        except OSError as exc:
            print("ono99 admin: " + _("cannot write {path}: {error}").format(path=args.game, error=exc.strerror),
                  file=sys.stderr)
            return EXIT_REFUSED
        print(_("wrote the game to {path}: 'ono99 replay {path}' steps through it").format(path=args.game))
    return EXIT_OK

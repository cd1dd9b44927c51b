"""The ``ono99`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ono99_kernel.bots import BOT_LEVELS
from ono99_kernel.core.arena import BOT_WAIT
from ono99_kernel.core.errors import OptionError
from ono99_kernel.core.options import TableOptions, parse_option_text
from ono99_kernel.core.record import check_lines
from ono99_kernel.protocol import DEFAULT_PORT, ProtocolError, check_name

from . import text as words
from .admin import add_admin_parser, run_admin
from .analyse_command import add_analyse_parser, run_analyse
from .argparse_words import speaking
from .i18n import LANGUAGES, choose_language, set_default_language
from .i18n import gettext as _
from .reasons import render

DEFAULT_SSH_PORT = 2222  # as server.config.DEFAULT_SSH_PORT; the CLI imports the server only to serve
DEFAULT_WEB_PORT = 8443  # as ono99_tui.front.config.DEFAULT_WEB_PORT

EXIT_OK = 0
EXIT_FAULTY = 1
EXIT_USAGE = 2
MAX_BOT_DELAY = 10.0  # seconds; longer would look like a hang
MAX_DRAW_WINDOW = 60.0
DEFAULT_DRAW_WINDOW = 8.0  # tui/app.py's LOCAL_DRAW_WINDOW, said in --help (which does not import the app)


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error said in one line (and exit code 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} " + _("(see '{prog} --help')").format(prog=self.prog) + "\n")


def version() -> str:
    from importlib import metadata  # slow to load: only for --version

    try:
        return metadata.version("ono99")
    except metadata.PackageNotFoundError:
        return "unknown"


class ShowVersion(argparse.Action):
    """``--version``: the installed version, looked up only when asked (every ``ono99`` command, a server
    among them, builds this parser)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"ono99 {version()}")
        parser.exit()


def port_number(low: int) -> Callable[[str], int]:
    """An argparse type: a TCP port from ``low`` to 65535."""

    def parse(text: str) -> int:
        try:
            port = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(_("{text} is not a port number").format(text=repr(text))) from None
        if not low <= port <= 65535:
            raise argparse.ArgumentTypeError(_("{port} is not a port (use {low} to 65535)").format(port=port, low=low))
        return port

    return parse


def seconds(high: float) -> Callable[[str], float]:
    """An argparse type: seconds from 0 to ``high``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(_("{text} is not a number of seconds").format(text=repr(text))) from None
        if not 0 <= value <= high:  # also refuses nan
            raise argparse.ArgumentTypeError(_("{text} is not from 0 to {high} seconds").format(text=text,
                                                                                              high=f"{high:g}"))
        return value

    return parse


def record_number(text: str) -> int:
    """An argparse type: a record's number in a file, counting from 1."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(
            _("{text} is not a record's number: the records of a file count from 1").format(text=repr(text)))
    return number


def player_name(text: str) -> str:
    """An argparse type: a name the server accepts."""
    try:
        return check_name(text)
    except ProtocolError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {render(exc.code, exc.params, exc.reason)}") from None


def build_parser() -> argparse.ArgumentParser:
    """The ``ono99`` command's parser: its own options, then each subcommand's (in the order ``--help`` lists them)."""
    parser = Parser(
        prog="ono99",
        description=_("ONO 99, the card game: keep the running total at 98 or below."),
    )
    parser.add_argument("--version", action=ShowVersion,
                        help=_("show the program's version number and exit"))
    parser.add_argument("--lang", metavar="LANG", default=None,
                        help=_("the language of the game: {languages} (default: the one chosen in the settings, "
                               "else your environment's LANGUAGE, LC_ALL, LC_MESSAGES or LANG, else English)").format(
                            languages=", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())))
    parser.add_argument("--plain", action="store_true",
                        help=_("plain lines of text for screen readers and braille displays: one sentence per "
                               "line, nothing redrawn (with play or connect)"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    for add in (_add_play_parser, _add_connect_parser, _add_replay_parser, add_analyse_parser, _add_simulate_parser,
                _add_records_parser, _add_serve_parser, add_admin_parser, _add_front_parser):
        add(sub)
    return parser


def _add_play_parser(sub: Any) -> None:
    """``ono99 play``: a local game against bots."""
    play = sub.add_parser("play", help=_("play a local game against bots (the default with no command)"),
                          description=_("Play against bots in this terminal; an embedded server runs in "
                                      "this process, no port is opened."))
    play.add_argument("--name", type=player_name, default=None,
                      help=_("your name at the table, 1 to 20 characters (default: the last one used, or your "
                           "login name); it is remembered"))
    play.add_argument("--bot-delay", type=seconds(MAX_BOT_DELAY), default=None,
                      help=_("seconds a bot waits before it plays (0 to {max}, default 0.8)").format(
                          max=f"{MAX_BOT_DELAY:g}"))
    play.add_argument("--draw-window", type=seconds(MAX_DRAW_WINDOW), default=None,
                      help=_("at a manual_draw table, the least seconds a bot waits to play while your draw is "
                             "open (0 to {max}, default {default})").format(max=f"{MAX_DRAW_WINDOW:g}",
                                                                           default=f"{DEFAULT_DRAW_WINDOW:g}"))
    play.add_argument("--plain", action="store_true", default=argparse.SUPPRESS,
                      help=_("play in plain lines of text, for screen readers and braille displays"))


def _add_connect_parser(sub: Any) -> None:
    """``ono99 connect``: join a server's lobby."""
    connect = sub.add_parser("connect", help=_("join a server's lobby: ono99 connect [HOST[:PORT]]"),
                             description=_("Join an ONO 99 server started with 'ono99 serve'. Without an "
                                         "address, lists the servers found on the local network."))
    connect.add_argument("address", metavar="HOST[:PORT]", nargs="?", default=None,
                         help=_("the server (default port {port}); leave out to pick one on the network").format(
                             port=DEFAULT_PORT))
    connect.add_argument("--name", type=player_name, default=None,
                         help=_("your name on the server (default: the name you used last, else your login name)"))
    connect.add_argument("--data-dir", type=Path, default=None,
                         help=_("where your key (id_ed25519, your identity on every server) is kept "
                              "(default: $ONO99_DATA_DIR, else the user data directory)"))
    connect.add_argument("--server-fingerprint", default=None, metavar="SHA256:…",
                         help=_("the fingerprint the server must show (as 'ono99 serve' prints it): trusted without "
                                "asking, and remembered in place of the one known before"))
    connect.add_argument("--password", nargs="?", const="", default=None, metavar="PASSWORD",
                         help=_("for a server that asks for a password: --password alone asks for it (or set "
                              "$ONO99_PASSWORD), which keeps it out of the process list"))
    connect.add_argument("--plain", action="store_true", default=argparse.SUPPRESS,
                         help=_("play in plain lines of text, for screen readers and braille displays (give the "
                                "server's address)"))


def _add_replay_parser(sub: Any) -> None:
    """``ono99 replay``: step through a recorded game."""
    replay_cmd = sub.add_parser("replay", help=_("step through a recorded game: ono99 replay FILE.jsonl"),
                                description=_("Step through a game record with the table screen."))
    replay_cmd.add_argument("file", type=Path, metavar="FILE.jsonl")
    replay_cmd.add_argument("--line", type=record_number, default=1,
                            help=_("which record of the file, counting from 1 (default 1)"))


def _add_simulate_parser(sub: Any) -> None:
    """``ono99 simulate``: many headless bot games."""
    sim = sub.add_parser("simulate", help=_("play many headless bot games and report win rates"),
                         description=_("Play many headless bot games (seats rotate between games) and "
                                     "report wins per bot and per seat with confidence intervals (95%)."))
    sim.add_argument("--games", type=int, default=1000, help=_("number of games (default 1000)"))
    sim.add_argument("--players", type=int, default=None,
                     help=_("players per game (default: the number of --bots, or 4)"))
    sim.add_argument("--bots", default="greedy,random,random,random",
                     help=_("comma-separated bot levels, one per seat ({levels}); the last one fills the remaining "
                            "seats (default greedy,random,random,random)").format(levels=", ".join(BOT_LEVELS)))
    sim.add_argument("--edition", choices=["2022", "1980"], default="2022", help=_("rules edition (default 2022)"))
    sim.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                     help=_("a table option by its name ({names}), e.g. manual_draw=true or scoring=points "
                            "(repeatable)").format(names=", ".join(TableOptions.option_names())))
    sim.add_argument("--seed", type=int, default=0, help=_("base seed; the same seed gives the same games"))
    sim.add_argument("--record", type=Path, metavar="FILE.jsonl", help=_("write every game as a record here"))
    sim.add_argument("--workers", type=int, default=1, help=_("worker processes (default 1)"))
    sim.add_argument("--json", action="store_true", help=_("print the summary as one JSON object"))


def _add_records_parser(sub: Any) -> None:
    """``ono99 records``: check record files, export a server's records."""
    rec = sub.add_parser("records", help=_("check game record files, export a server's records"),
                         description=_("Work with ono99-record/1 game record files (JSON Lines)."))
    rec.set_defaults(records_parser=rec)
    rec_sub = rec.add_subparsers(dest="records_command", metavar="ACTION")
    check = rec_sub.add_parser("check", help=_("validate every record of a file by replaying it"))
    check.add_argument("file", type=Path, metavar="FILE.jsonl")
    export = rec_sub.add_parser("export", help=_("write a server database's finished games as JSON Lines"))
    export.add_argument("--db", default=None, metavar="PATH|URL",
                        help=_("the server's database: an SQLite file (default: its usual place) or a "
                               "postgresql:// URL"))
    export.add_argument("--out", type=Path, default=None, metavar="FILE.jsonl", help=_("output file (default: stdout)"))


def _add_serve_parser(sub: Any) -> None:
    """``ono99 serve``: host a server; its options in groups, each by what it sets."""
    serve = sub.add_parser("serve", help=_("host a server for LAN or internet play"),
                           description=_("Host an ONO 99 server: a lobby with tables that clients join "
                                       "with 'ono99 connect HOST', or with plain 'ssh -p 2222 HOST'."))
    for add in (_serve_listeners, _serve_access_and_ssh, _serve_storage_and_cluster, _serve_game, _serve_limits,
                _serve_operations):
        add(serve)


def _serve_listeners(serve: argparse.ArgumentParser) -> None:
    """Where ``ono99 serve`` listens: the game's TCP port, SSH and the web, and the web's certificate."""
    serve.add_argument("--host", default="0.0.0.0", help=_("address to listen on (default: all interfaces)"))
    serve.add_argument("--port", type=port_number(0), default=DEFAULT_PORT,
                       help=_("TCP port for 'ono99 connect' (default {port}; 0 turns TCP off)").format(
                           port=DEFAULT_PORT))
    serve.add_argument("--ssh-port", type=port_number(0), default=None,
                       help=_("SSH port: players join with 'ssh -p PORT HOST', nothing to install "
                              "(default {port}; 0 turns SSH off)").format(port=DEFAULT_SSH_PORT))
    serve.add_argument("--web-port", type=port_number(0), default=None,
                       help=_("HTTPS port: players join in a browser at https://HOST:PORT/, nothing to install "
                              "(default {port}; 0 turns the web front off)").format(port=DEFAULT_WEB_PORT))
    serve.add_argument("--web-host", default=None, help=_("address to listen on for the web (default: --host)"))
    serve.add_argument("--web-cert", type=Path, default=None, metavar="PEM",
                       help=_("the TLS certificate of the web port, e.g. one from a certificate authority "
                              "(default: the game port's); with --web-key"))
    serve.add_argument("--web-key", type=Path, default=None, metavar="PEM", help=_("the private key of --web-cert"))


def _serve_access_and_ssh(serve: argparse.ArgumentParser) -> None:
    """Who may come in (over every listener), and the SSH front's sessions."""
    serve.add_argument("--auth", "--ssh-auth", dest="ssh_auth", nargs="+", default=["any-key"],
                       metavar=("MODE", "PATH"),
                       help=_("who may come in, over TCP and SSH alike: 'any-key' (default: anyone; over SSH a key's "
                            "fingerprint is the player's identity, without a key a guest), 'authorized-keys PATH' "
                            "(only the keys of that authorized_keys file: SSH players with a listed key), or "
                            "'password' (a shared password)"))
    serve.add_argument("--password", "--ssh-password", dest="ssh_password", default=None,
                       help=_("the shared password of --auth password (default: $ONO99_PASSWORD, or "
                            "$ONO99_SSH_PASSWORD; the environment keeps it out of the process list)"))
    serve.add_argument("--ssh-login-timeout", type=float, default=30.0,
                       help=_("seconds an SSH client has to log in (default 30)"))
    serve.add_argument("--ssh-idle-timeout", type=float, default=900.0,
                       help=_("seconds without a key pressed (or a running game's move on the screen) before an "
                            "SSH session is closed (default 900)"))
    serve.add_argument("--ssh-keepalive", type=float, default=30.0,
                       help=_("seconds between SSH keepalives; 3 unanswered close the connection (default 30)"))
    serve.add_argument("--ssh-max-sessions", type=int, default=300, help=_("SSH sessions at once (default 300)"))
    serve.add_argument("--ssh-private-screens", action="store_true",
                       help=_("draw every SSH spectator's screen in its own app (by default spectators of a table "
                              "with the same terminal size, language and theme share one)"))
    serve.add_argument("--ssh-motion", action="store_true",
                       help=_("show each move's brief motion on SSH and browser screens too (by default they show "
                              "moves at once, which costs the fronts less CPU)"))
    serve.add_argument("--ssh-max-per-address", type=int, default=8,
                       help=_("SSH sessions at once from one address (default 8)"))


def _serve_storage_and_cluster(serve: argparse.ArgumentParser) -> None:
    """Where games are kept, and one node of several (``--cluster``)."""
    serve.add_argument("--db", default=None, metavar="PATH|URL",
                       help=_("where games, stats and tables in progress are kept: an SQLite file (default: "
                            "ono99.db in the user's data directory) or a PostgreSQL database "
                            "(postgresql://USER:PASSWORD@HOST/DATABASE)"))
    serve.add_argument("--cluster", default=None, metavar="redis://HOST:PORT",
                       help=_("run as one node of several on one PostgreSQL --db: the Redis they share for the "
                              "lobby; every node takes any player and every table (see docs/server.md)"))
    serve.add_argument("--lease-seconds", type=seconds(3600), default=10.0, metavar="SECONDS",
                       help=_("with --cluster: how long a node that stops answering keeps its tables before "
                              "another node takes them over (default 10)"))
    serve.add_argument("--node-id", default=None, help=_("with --cluster: this node's name (default: "
                                                        "HOSTNAME-PID-RANDOM)"))
    serve.add_argument("--node-address", default=None, metavar="HOST:PORT",
                       help=_("with --cluster: where players reach this node's TCP port (default: --host and "
                              "--port)"))


def _serve_game(serve: argparse.ArgumentParser) -> None:
    """The server's name and the game's clocks and waits."""
    serve.add_argument("--name", default="ONO 99", help=_("the server's name shown to players"))
    serve.add_argument("--no-advertise", dest="advertise", action="store_false",
                       help=_("do not announce the server on the local network (mDNS/DNS-SD, '_ono99._tcp'); "
                            "by default 'ono99 connect' without an address lists it"))
    serve.add_argument("--grace", type=float, default=120.0,
                       help=_("seconds a dropped player's seat waits for them (default 120)"))
    serve.add_argument("--turn-seconds", type=int, default=30, help=_("default turn clock of new tables (default 30)"))
    serve.add_argument("--bot-delay", type=seconds(MAX_BOT_DELAY), default=0.8,
                       help=_("seconds a bot waits before it plays (0 to {max}, default 0.8)").format(
                          max=f"{MAX_BOT_DELAY:g}"))
    serve.add_argument("--play-now-wait", type=seconds(600), default=20.0, metavar="SECONDS",
                       help=_("seconds the first player in a play-now queue waits before bots fill the table "
                              "(default 20)"))
    serve.add_argument("--arena-bot-wait", type=seconds(600), default=BOT_WAIT, metavar="SECONDS",
                       help=_("seconds the arena player free the longest waits for others before bots fill "
                              "their table (default 20)"))
    serve.add_argument("--arena-starts-in", type=seconds(60), default=3.0, metavar="SECONDS",
                       help=_("seconds from an arena table's seating to its game's start (default 3)"))


def _serve_limits(serve: argparse.ArgumentParser) -> None:
    """How much one player, address or connection may take."""
    serve.add_argument("--max-connections", type=int, default=2000,
                       help=_("players connected at once, TCP and SSH (default 2000; connections that have not "
                            "said hello yet have a budget of their own)"))
    serve.add_argument("--max-per-address", type=int, default=32,
                       help=_("TCP connections at once from one address (default 32)"))
    serve.add_argument("--max-waiting-per-address", type=int, default=None,
                       help=_("TCP connections from one address that have not said hello yet (default 8; they have "
                            "a budget of their own, 256 in all, apart from the players' places)"))
    serve.add_argument("--max-tables-per-player", type=int, default=3,
                       help=_("tables one player may host at once (default 3)"))
    serve.add_argument("--messages-per-second", type=float, default=None,
                       help=_("messages one connection may send each second, in bursts of twice as many "
                            "(default 50); over it messages are refused, a flood is dropped"))


def _serve_operations(serve: argparse.ArgumentParser) -> None:
    """Logging, the SSH workers, TLS files, the fronts' credential, operators and metrics."""
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"],
                       help=_("how much the server logs on stderr (default info)"))
    serve.add_argument("--ssh-workers", type=int, default=None,
                       help=_("SSH front processes sharing the SSH port, each reaching the game over loopback; one "
                              "that dies is started again (default: the number of cores; 0: the front runs "
                              "inside the server process)"))
    serve.add_argument("--tls-cert", type=Path, default=None, metavar="PEM",
                       help=_("the TLS certificate of the game port (default: made at the first start next to the "
                              "database, and kept); with --tls-key"))
    serve.add_argument("--tls-key", type=Path, default=None, metavar="PEM",
                       help=_("the private key of --tls-cert"))
    serve.add_argument("--front-credential-file", type=Path, default=None,
                       help=_("a file holding the credential of SSH fronts on other machines ('ono99 front'); "
                              "made (mode 0600) if missing"))
    serve.add_argument("--admins", type=Path, default=None, metavar="FILE",
                       help=_("the operators' keys, an OpenSSH authorized_keys file: they run 'ono99 admin'"))
    serve.add_argument("--names-deny", type=Path, default=None, metavar="FILE",
                       help=_("words no player name may contain, one a line (lookalike letters count)"))
    serve.add_argument("--metrics-port", type=port_number(0), default=None,
                       help=_("serve Prometheus metrics (/metrics) and /health on this port (default: none)"))
    serve.add_argument("--metrics-host", default="127.0.0.1",
                       help=_("the address of --metrics-port (default 127.0.0.1)"))
    serve.add_argument("--log-format", choices=["text", "json"], default="text",
                       help=_("log lines as text (default) or as JSON objects, one a line"))


def _add_front_parser(sub: Any) -> None:
    """``ono99 front``: an SSH (and web) front for a game server elsewhere."""
    front = sub.add_parser("front", help=_("run an SSH front for a game server elsewhere"),
                           description=_("An SSH front on this machine for the game server at --server: players "
                                         "'ssh -p PORT' here and play on that server. The server trusts the front "
                                         "by the credential of its --front-credential-file."))
    front.add_argument("--server", required=True, help=_("the game server's TCP address, HOST:PORT"))
    front.add_argument("--server-fingerprint", required=True, metavar="SHA256:…",
                       help=_("the fingerprint of the game server's TLS certificate, as 'ono99 serve' prints it "
                              "(tls: certificate …): the front speaks to no other server"))
    front.add_argument("--credential-file", type=Path, required=True,
                       help=_("a copy of the game server's --front-credential-file"))
    front.add_argument("--ssh-host", default="0.0.0.0", help=_("address to listen on for SSH (default: all)"))
    front.add_argument("--ssh-port", type=int, default=DEFAULT_SSH_PORT,
                       help=_("SSH port (default {port})").format(port=DEFAULT_SSH_PORT))
    front.add_argument("--host-key", type=Path, default=None,
                       help=_("the SSH host key file (default: ssh_host_ed25519_key in the user's data directory; "
                              "made if missing). Give every front of one server the same key"))
    front.add_argument("--web-host", default="0.0.0.0", help=_("address to listen on for the web (default: all)"))
    front.add_argument("--web-port", type=port_number(0), default=DEFAULT_WEB_PORT,
                       help=_("HTTPS port for browsers (default {port}; 0 turns the web front off)").format(
                           port=DEFAULT_WEB_PORT))
    front.add_argument("--web-cert", type=Path, default=None, metavar="PEM",
                       help=_("the TLS certificate of the web port (default: web_tls_cert.pem in the user's data "
                              "directory, made if missing); with --web-key"))
    front.add_argument("--web-key", type=Path, default=None, metavar="PEM", help=_("the private key of --web-cert"))
    front.add_argument("--auth", "--ssh-auth", dest="ssh_auth", nargs="+", default=["any-key"],
                       metavar=("MODE", "PATH"), help=_("as for 'ono99 serve': the game server's access policy"))
    front.add_argument("--password", "--ssh-password", dest="ssh_password", default=None,
                       help=_("the shared password of --auth password (default: $ONO99_PASSWORD)"))
    front.add_argument("--name", default="ONO 99", help=_("the server's name, shown while a session opens"))
    front.add_argument("--reuse-port", action="store_true",
                       help=_("share the SSH port with other fronts on this machine (SO_REUSEPORT)"))
    front.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"],
                       help=_("how much the front logs on stderr (default info)"))


def lang_flag(argv: Sequence[str]) -> str | None:
    """The value of ``--lang`` before the subcommand, read before the parser (whose help it translates) is built."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--lang", default=None)
    known, _rest = early.parse_known_args(list(argv))
    return known.lang if isinstance(known.lang, str) else None


def lang_removed(argv: Sequence[str]) -> list[str]:
    """``argv`` without its ``--lang VALUE`` / ``--lang=VALUE``."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--lang":
            skip = True
        elif not arg.startswith("--lang="):
            out.append(arg)
    return out


def pick_language(argv: Sequence[str]) -> str:
    """``--lang``, else the saved setting, else the environment, else English."""
    from .tui.settings import Settings

    flag = lang_flag(argv)
    saved = Settings.load().language if flag is None else None
    return choose_language(flag, saved, os.environ)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    flag = lang_flag(argv)
    if flag is not None and flag not in LANGUAGES:
        print("ono99: " + _("unknown language {lang}; choose one of {languages}").format(
            lang=repr(flag), languages=", ".join(LANGUAGES)), file=sys.stderr)
        return EXIT_USAGE
    set_default_language(pick_language(argv))
    if flag is not None:  # --lang may come after the command too: the parser takes it before
        argv = ["--lang", flag, *lang_removed(argv)]
    with speaking():  # argparse's own words ("usage:", "options"...) in the player's language too
        parser = build_parser()
        args = parser.parse_args(argv)
    if args.command in (None, "play"):
        return run_play(getattr(args, "name", None), getattr(args, "bot_delay", None),
                        getattr(args, "draw_window", None), plain=args.plain)
    if args.command == "connect":
        return run_connect(args.address, args.name, args.data_dir, args.password, args.server_fingerprint,
                           plain=args.plain)
    if args.command == "replay":
        return run_replay(args.file, args.line)
    if args.command in ("analyse", "analyze"):
        return run_analyse(args)
    if args.command == "simulate":
        return run_simulate(args)
    if args.command == "records":
        if args.records_command == "check":
            return run_records_check(args.file)
        if args.records_command == "export":
            return run_records_export(args.db, args.out)
        args.records_parser.error(_("say what to do: 'ono99 records check FILE.jsonl' or 'ono99 records export'"))
    if args.command == "front":
        from .serve import run_front_command

        return run_front_command(args)
    if args.command == "serve":
        from .serve import run_serve

        return run_serve(args)
    if args.command == "admin":
        return run_admin(args)
    parser.print_help()
    return EXIT_OK


def login_name() -> str:
    """The user's login name if it makes a valid player name, else "Player"."""
    import getpass

    try:
        return check_name(getpass.getuser()[:20])
    except Exception:  # no login name, or one the server would refuse
        return "Player"


def _settings_and_name(name: str | None) -> tuple[Any, str]:
    """The saved settings, and the name to play under (remembered when given)."""
    from .tui.settings import Settings

    settings = Settings.load()
    if name is not None:
        if name != settings.name:
            settings.name = name
            settings.save()
        return settings, name
    try:
        return settings, check_name(settings.name)
    except ProtocolError:
        return settings, login_name()


def keys_from_a_terminal(command: str) -> bool:
    """Whether stdin is a terminal, as the full-screen app needs for its keys; if not, one line says so
    and what to use instead. (The app's key reader would find an input that ended, /dev/null or a file,
    readable at every turn and spin on it.)"""
    if sys.stdin.isatty():
        return True
    print(f"{command}: " + _("the full-screen app takes its keys from a terminal, and the input is not one: run it "
                             "in a terminal, or give --plain to read commands from a pipe or a file"), file=sys.stderr)
    return False


def run_play(name: str | None, bot_delay: float | None, draw_window: float | None = None, plain: bool = False) -> int:
    from .local_game import open_local_game

    settings, name = _settings_and_name(name)
    if plain:
        from .plain.run import run_local

        return run_local(open_local_game, name, bot_delay=bot_delay, draw_window=draw_window,
                         full=settings.plain_full, on_verbosity=_keep_verbosity(settings))
    if not keys_from_a_terminal("ono99"):
        return EXIT_USAGE
    from .tui.app import make_app

    app = make_app(local=True, name=name, bot_delay=bot_delay, draw_window=draw_window, settings=settings,
                   local_game=open_local_game)
    app.run()
    return app.exit_code


def _keep_verbosity(settings: Any) -> Callable[[bool], None]:
    """Keep the plain mode's verbosity (v) in the settings."""
    def keep(full: bool) -> None:
        settings.plain_full = full
        settings.save()
    return keep


def run_connect(address: str | None, name: str | None, data_dir: Path | None = None,
                password: str | None = None, server_fingerprint: str | None = None, plain: bool = False) -> int:
    import getpass
    import os

    from ono99_kernel.fingerprints import FingerprintError, normal_fingerprint
    from ono99_kernel.identity import Identity, remember_name, remembered_name
    from ono99_kernel.identity import data_dir as identity_dir

    from .client.connection import parse_address, probe
    from .known_servers import KnownServers, ServerTrust, not_a_fingerprint

    host, port = "", DEFAULT_PORT
    if plain and address is None:
        print("ono99 connect: " + _("--plain needs the server's address: ono99 connect --plain HOST[:PORT]"),
              file=sys.stderr)
        return EXIT_USAGE
    if address is not None:
        try:
            host, port = parse_address(address)
        except ValueError as exc:
            print("ono99 connect: " + _("{address} is not HOST or HOST:PORT: {error}").format(
                address=repr(address), error=exc), file=sys.stderr)
            return EXIT_USAGE
    given: str | None = None
    if server_fingerprint is not None:
        try:
            given = normal_fingerprint(server_fingerprint)
        except FingerprintError as exc:
            print("ono99 connect: --server-fingerprint: " + not_a_fingerprint(exc), file=sys.stderr)
            return EXIT_USAGE
    directory = identity_dir(data_dir)
    try:
        identity = Identity.load_or_create(directory)
    except (OSError, ValueError) as exc:  # unreadable, or not a key
        print("ono99 connect: " + _("cannot use the key in {path}: {error}").format(path=directory, error=exc),
              file=sys.stderr)
        return EXIT_USAGE
    settings, default_name = _settings_and_name(None)
    if name is not None:
        remember_name(directory, name)
    else:
        name = remembered_name(directory) or default_name
    if address is not None:  # an unknown host or a closed port is one line, before any screen opens
        try:
            probe(host, port)
        except OSError as exc:
            from .tui.app import unreachable_words

            print("ono99 connect: " + unreachable_words(host, port, exc), file=sys.stderr)
            return EXIT_USAGE
    if password == "":  # --password without a value
        password = os.environ.get("ONO99_PASSWORD") or getpass.getpass(_("password for the server: "))
    trust = ServerTrust(known=KnownServers.in_directory(directory), given=given)
    if plain:
        from .plain.run import run_connect as run_plain

        def remember(welcome: Any) -> None:
            remember_name(directory, welcome.name)

        return run_plain(host, port, name, identity=identity, password=password, trust=trust,
                         full=settings.plain_full, on_verbosity=_keep_verbosity(settings), on_welcome=remember)
    if not keys_from_a_terminal("ono99 connect"):
        return EXIT_USAGE
    from .tui.app import make_app

    app = make_app(local=False, host=host, port=port, name=name, discover=address is None, identity=identity,
                   password=password, settings=settings, trust=trust)
    app.run()
    if app.fatal_words:  # what stopped it (a changed certificate and the command to run), kept on the terminal
        print("ono99 connect: " + app.fatal_words, file=sys.stderr)
    return app.exit_code


def run_replay(path: Path, line: int) -> int:
    from ono99_kernel.core.errors import RecordError

    from .tui.replay import load_replay, make_replay_app

    try:
        steps = load_replay(path, line)
    except OSError as exc:
        print("ono99 replay: " + _("cannot read {path}: {error}").format(path=path, error=exc.strerror),
              file=sys.stderr)
        return EXIT_USAGE
    except RecordError as exc:
        if exc.why == "no_record":  # a --line past the end: the file is not at fault
            count = exc.params["count"]
            print("ono99 replay: " + (_("{path} holds only {records}; --line takes 1 to {last}").format(
                path=path, records=exc.params["records"], last=count) if count else _("{path} holds no records").format(
                path=path)), file=sys.stderr)
            return EXIT_USAGE
        print("ono99 replay: " + _("{path}: {error}; check it with 'ono99 records check'").format(
            path=path, error=exc.describe(_)), file=sys.stderr)
        return EXIT_FAULTY
    if not keys_from_a_terminal("ono99 replay"):
        return EXIT_USAGE
    make_replay_app(steps, path, line).run()
    return EXIT_OK


def _options_from_args(edition: str, texts: Sequence[str]) -> TableOptions:
    values: dict[str, Any] = {}
    for text in texts:
        name, value = parse_option_text(text)
        values[name] = value
    return TableOptions.from_mapping(edition, values)


PROGRESS_INTERVAL = 0.25  # seconds between refreshes of a long command's progress line
progress_clock: Callable[[], float] = time.monotonic  # what the progress line's refreshes are paced by


def run_simulate(args: argparse.Namespace) -> int:
    from rich.console import Console  # rich: loaded by the commands that draw with it only
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.table import Table

    from .numbers import decimal, percent, whole
    from .simulate import ProgressPacer, SimulationPlan, parse_bots, result_rows, simulate

    err = Console(stderr=True)
    try:
        options = _options_from_args(args.edition, args.option)
        if args.players is not None:
            options.check_players(args.players)
        bots = parse_bots(args.bots, args.players)
        options.check_players(len(bots))
        if args.games < 1:
            raise ValueError(_("{flag} must be at least 1").format(flag="--games"))
        if args.workers < 1:
            raise ValueError(_("{flag} must be at least 1").format(flag="--workers"))
    except (OptionError, ValueError) as exc:
        problem = exc.say(_) if isinstance(exc, OptionError) else str(exc)
        err.print(f"ono99 simulate: {problem}", markup=False, highlight=False)
        err.print(_("Run 'ono99 simulate --help' for the options."), markup=False, highlight=False)
        return EXIT_USAGE
    plan = SimulationPlan(args.games, bots, options, args.seed, record=args.record is not None)
    record_file = None
    try:
        if args.record is not None:
            record_file = args.record.open("w", encoding="utf-8")
        with Progress(TextColumn(_("simulating")), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                      console=err, transient=True, disable=not err.is_terminal,
                      refresh_per_second=4) as progress:  # its drawing thread takes the GIL from the games
            task = progress.add_task("games", total=plan.games, rate="")
            pacer = ProgressPacer(plan.games, PROGRESS_INTERVAL, progress_clock)
            showing = not progress.disable

            def on_result(result: Any) -> None:
                # Per game: a count and a clock read. The line is refreshed a few times a second, with
                # the rate over the whole run (Rich's own speed sums its samples at every call).
                if record_file is not None and result.record_line is not None:
                    record_file.write(result.record_line + "\n")
                if pacer.count() and showing:
                    rate = pacer.rate()
                    progress.update(task, completed=pacer.done,
                                    rate=_("{rate} games/s").format(rate=whole(rate)) if rate else "")

            summary = simulate(plan, args.workers, on_result)
    except OSError as exc:
        err.print("ono99 simulate: " + _("cannot write {path}: {error}").format(path=args.record, error=exc.strerror),
                  markup=False, highlight=False)
        return EXIT_USAGE
    finally:
        if record_file is not None:
            record_file.close()
    data = summary.to_json()
    if args.json:
        print(json.dumps(data))
        return EXIT_OK
    out = Console()
    table = Table(title=" · ".join((words.count(summary.games, "{n} game", "{n} games"), words.players(len(bots)),
                                    options.summary(_), _("seed {seed}").format(seed=args.seed))))
    table.add_column(_("who"))
    table.add_column(_("wins"), justify="right")
    table.add_column(_("win rate  [{level} interval]").format(level=percent(0.95, 0)), justify="right")
    for row in result_rows(summary):
        table.add_row(*row)
    out.print(table)
    out.print(" · ".join((_("fair share {share}").format(share=percent(1 / len(bots))),
                          _("{turns} turns per game").format(turns=decimal(data["average_turns"], 1)),
                          _("{rate} games/s").format(rate=whole(data["games_per_second"])))),
              markup=False, highlight=False)
    if args.record is not None:
        out.print(_("records written to {path}").format(path=args.record), markup=False, highlight=False)
    return EXIT_OK


def run_records_check(path: Path) -> int:
    try:
        with path.open(encoding="utf-8") as handle:
            faulty = valid = 0
            for checked in check_lines(handle):
                if checked.error is None:
                    valid += 1
                    continue
                faulty += 1
                print(f"{path}: {checked.error.describe(_)}")
    except OSError as exc:
        print("ono99 records check: " + _("cannot read {path}: {error}").format(path=path, error=exc.strerror),
              file=sys.stderr)
        return EXIT_USAGE
    except UnicodeDecodeError as exc:
        print("ono99 records check: " + _("{path} is not UTF-8 text ({reason} at byte {byte})").format(
            path=path, reason=exc.reason, byte=exc.start), file=sys.stderr)
        return EXIT_USAGE
    total = valid + faulty
    if total == 0:
        print("ono99 records check: " + _("{path} holds no records").format(path=path), file=sys.stderr)
        return EXIT_FAULTY
    print(_("{records} checked: {valid} valid, {faulty} faulty").format(records=words.records(total), valid=valid,
                                                                         faulty=faulty))
    return EXIT_FAULTY if faulty else EXIT_OK


def run_records_export(db: str | None, out: Path | None) -> int:
    from ono99_server.storage import database_location, default_db_path, shown_url
    from ono99_server.stores import export_records

    location = database_location(db) if db else default_db_path()
    path = shown_url(location) if isinstance(location, str) else location  # never a password on the screen
    try:
        lines = export_records(location)
    except FileNotFoundError:
        print("ono99 records export: " + _("no database at {path}; pass the server's --db PATH").format(path=path),
              file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # sqlite3 or psycopg errors: not a database, locked, unreachable...
        print("ono99 records export: " + _("cannot read {path}: {error}").format(path=path, error=exc),
              file=sys.stderr)
        return EXIT_USAGE
    text = "".join(line + "\n" for line in lines)
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        print(_("{records} written to {path}").format(records=words.records(len(lines)), path=out), file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())

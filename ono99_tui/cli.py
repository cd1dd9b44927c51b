"""The ``ono99`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from .bots import BOT_LEVELS
from .core.errors import OptionError
from .core.options import TableOptions, parse_option_text
from .core.record import check_lines
from .protocol import DEFAULT_PORT

DEFAULT_SSH_PORT = 2222  # as server.config.DEFAULT_SSH_PORT; the CLI imports the server only to serve

EXIT_OK = 0
EXIT_FAULTY = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ono99",
        description="ONO 99, the card game: keep the running total under 99.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="play a local game against bots (the default with no command)",
                          description="Play against bots in this terminal; an embedded server runs in "
                                      "this process, no port is opened.")
    play.add_argument("--name", default="You", help="your name at the table")
    play.add_argument("--bot-delay", type=float, default=0.8, help="seconds a bot waits before it plays")

    connect = sub.add_parser("connect", help="join a server's lobby: ono99 connect [HOST[:PORT]]",
                             description="Join an ONO 99 server started with 'ono99 serve'. Without an "
                                         "address, lists the servers found on the local network.")
    connect.add_argument("address", metavar="HOST[:PORT]", nargs="?", default=None,
                         help=f"the server (default port {DEFAULT_PORT}); leave out to pick one on the network")
    connect.add_argument("--name", default=None,
                         help="your name on the server (default: the name you used last, else your login name)")
    connect.add_argument("--data-dir", type=Path, default=None,
                         help="where your key (id_ed25519, your identity on every server) is kept "
                              "(default: $ONO99_DATA_DIR, else the user data directory)")

    replay_cmd = sub.add_parser("replay", help="step through a recorded game: ono99 replay FILE.jsonl",
                                description="Step through a game record with the table screen.")
    replay_cmd.add_argument("file", type=Path, metavar="FILE.jsonl")
    replay_cmd.add_argument("--line", type=int, default=1, help="which record of the file (default 1)")

    sim = sub.add_parser("simulate", help="play many headless bot games and report win rates",
                         description="Play many headless bot games (seats rotate between games) and "
                                     "report wins per bot and per seat with 95%% confidence intervals.")
    sim.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    sim.add_argument("--players", type=int, default=None,
                     help="players per game (default: the number of --bots, or 4)")
    sim.add_argument("--bots", default="greedy,random,random,random",
                     help=f"comma-separated bot levels, one per seat ({', '.join(BOT_LEVELS)}); "
                          "the last one fills the remaining seats (default greedy,random,random,random)")
    sim.add_argument("--edition", choices=["2022", "1980"], default="2022", help="rules edition (default 2022)")
    sim.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                     help="a table option by its name, e.g. manual_draw=true or scoring=points (repeatable)")
    sim.add_argument("--seed", type=int, default=0, help="base seed; the same seed gives the same games")
    sim.add_argument("--record", type=Path, metavar="FILE.jsonl", help="write every game as a record here")
    sim.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    sim.add_argument("--json", action="store_true", help="print the summary as one JSON object")

    rec = sub.add_parser("records", help="check game record files, export a server's records",
                         description="Work with ono99-record/1 game record files (JSON Lines).")
    rec_sub = rec.add_subparsers(dest="records_command", metavar="ACTION")
    check = rec_sub.add_parser("check", help="validate every record of a file by replaying it")
    check.add_argument("file", type=Path, metavar="FILE.jsonl")
    export = rec_sub.add_parser("export", help="write a server database's finished games as JSON Lines")
    export.add_argument("--db", type=Path, default=None, help="the server's database (default: its usual place)")
    export.add_argument("--out", type=Path, default=None, metavar="FILE.jsonl", help="output file (default: stdout)")

    serve = sub.add_parser("serve", help="host a server for LAN or internet play",
                           description="Host an ONO 99 server: a lobby with tables that clients join "
                                       "with 'ono99 connect HOST', or with plain 'ssh -p 2222 HOST'.")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all interfaces)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    serve.add_argument("--ssh-port", type=int, default=None,
                       help=f"SSH port: players join with 'ssh -p PORT HOST', nothing to install "
                            f"(default {DEFAULT_SSH_PORT}; 0 turns SSH off)")
    serve.add_argument("--ssh-auth", nargs="+", default=["any-key"], metavar=("MODE", "PATH"),
                       help="who may come in over SSH: 'any-key' (default: any key, whose fingerprint is the "
                            "player's identity; without a key, a guest), 'authorized-keys PATH' (only the keys "
                            "of that authorized_keys file), or 'password' (a shared password)")
    serve.add_argument("--ssh-password", default=None,
                       help="the shared password of --ssh-auth password (default: $ONO99_SSH_PASSWORD)")
    serve.add_argument("--ssh-login-timeout", type=float, default=30.0,
                       help="seconds an SSH client has to log in (default 30)")
    serve.add_argument("--ssh-idle-timeout", type=float, default=900.0,
                       help="seconds without a key pressed before an SSH session is closed (default 900)")
    serve.add_argument("--ssh-keepalive", type=float, default=30.0,
                       help="seconds between SSH keepalives; 3 unanswered close the connection (default 30)")
    serve.add_argument("--ssh-max-sessions", type=int, default=300, help="SSH sessions at once (default 300)")
    serve.add_argument("--ssh-max-per-address", type=int, default=8,
                       help="SSH sessions at once from one address (default 8)")
    serve.add_argument("--db", type=Path, default=None,
                       help="SQLite database for games, stats and tables in progress "
                            "(default: ono99.db in the user's data directory)")
    serve.add_argument("--name", default="ONO 99", help="the server's name shown to players")
    serve.add_argument("--no-advertise", dest="advertise", action="store_false",
                       help="do not announce the server on the local network (mDNS/DNS-SD, '_ono99._tcp'); "
                            "by default 'ono99 connect' without an address lists it")
    serve.add_argument("--grace", type=float, default=120.0,
                       help="seconds a dropped player's seat waits for them (default 120)")
    serve.add_argument("--turn-seconds", type=int, default=30, help="default turn clock of new tables (default 30)")
    serve.add_argument("--bot-delay", type=float, default=0.8, help="seconds a bot waits before it plays")
    serve.add_argument("--play-now-wait", type=float, default=20.0, metavar="SECONDS",
                       help="seconds the first player in a play-now queue waits before bots fill the table")
    serve.add_argument("--max-connections", type=int, default=2000)
    serve.add_argument("--max-per-address", type=int, default=32, help="connections allowed from one address")
    serve.add_argument("--max-tables-per-player", type=int, default=3)
    serve.add_argument("--messages-per-second", type=float, default=20.0)
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in (None, "play"):
        return run_play(getattr(args, "name", "You"), getattr(args, "bot_delay", 0.8))
    if args.command == "connect":
        return run_connect(args.address, args.name, args.data_dir)
    if args.command == "replay":
        return run_replay(args.file, args.line)
    if args.command == "simulate":
        return run_simulate(args)
    if args.command == "records":
        if args.records_command == "check":
            return run_records_check(args.file)
        if args.records_command == "export":
            return run_records_export(args.db, args.out)
        parser.parse_args(["records", "--help"])
    if args.command == "serve":
        from .serve import run_serve

        return run_serve(args)
    parser.print_help()
    return EXIT_OK


def run_play(name: str, bot_delay: float) -> int:
    from .tui.app import make_app

    app = make_app(local=True, name=name, bot_delay=bot_delay)
    app.run()
    return app.exit_code


def run_connect(address: str | None, name: str | None, data_dir: Path | None = None) -> int:
    import getpass

    from .client import parse_address
    from .identity import Identity, remember_name, remembered_name
    from .identity import data_dir as identity_dir
    from .tui.app import make_app

    host, port = "", DEFAULT_PORT
    if address is not None:
        try:
            host, port = parse_address(address)
        except ValueError:
            print(f"ono99 connect: {address!r} is not HOST or HOST:PORT", file=sys.stderr)
            return EXIT_USAGE
    directory = identity_dir(data_dir)
    try:
        identity = Identity.load_or_create(directory)
    except (OSError, ValueError) as exc:  # unreadable, or not a key
        print(f"ono99 connect: cannot use the key in {directory}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if name is not None:
        remember_name(directory, name)
    else:
        name = remembered_name(directory)
    if name is None:
        try:
            name = getpass.getuser()[:20] or "Player"
        except Exception:
            name = "Player"
    app = make_app(local=False, host=host, port=port, name=name, discover=address is None, identity=identity)
    app.run()
    return app.exit_code


def run_replay(path: Path, line: int) -> int:
    from .core.record import RecordError
    from .tui.replay import load_replay, make_replay_app

    try:
        steps = load_replay(path, line)
    except OSError as exc:
        print(f"ono99 replay: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except RecordError as exc:
        print(f"ono99 replay: {path}: {exc.describe()}; check it with 'ono99 records check'", file=sys.stderr)
        return EXIT_FAULTY
    make_replay_app(steps).run()
    return EXIT_OK


def _options_from_args(edition: str, texts: Sequence[str]) -> TableOptions:
    values: dict[str, Any] = {}
    for text in texts:
        name, value = parse_option_text(text)
        values[name] = value
    return TableOptions.from_mapping(edition, values)


def run_simulate(args: argparse.Namespace) -> int:
    from .simulate import SimulationPlan, parse_bots, result_rows, simulate

    err = Console(stderr=True)
    try:
        options = _options_from_args(args.edition, args.option)
        bots = parse_bots(args.bots, args.players)
        options.check_players(len(bots))
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        if args.workers < 1:
            raise ValueError("--workers must be at least 1")
    except (OptionError, ValueError) as exc:
        err.print(f"ono99 simulate: {exc}", markup=False, highlight=False)
        err.print("Run 'ono99 simulate --help' for the options.", markup=False, highlight=False)
        return EXIT_USAGE
    plan = SimulationPlan(args.games, bots, options, args.seed, record=args.record is not None)
    record_file = None
    try:
        if args.record is not None:
            record_file = args.record.open("w", encoding="utf-8")
        with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                      console=err, transient=True, disable=not err.is_terminal) as progress:
            task = progress.add_task("games", total=plan.games, rate="")

            def on_result(result: Any) -> None:
                if record_file is not None and result.record_line is not None:
                    record_file.write(result.record_line + "\n")
                speed = progress.tasks[0].speed
                progress.update(task, advance=1, rate=f"{speed:,.0f} games/s" if speed else "")

            summary = simulate(plan, args.workers, on_result)
    except OSError as exc:
        err.print(f"ono99 simulate: cannot write {args.record}: {exc.strerror}", markup=False, highlight=False)
        return EXIT_USAGE
    finally:
        if record_file is not None:
            record_file.close()
    data = summary.to_json()
    if args.json:
        print(json.dumps(data))
        return EXIT_OK
    out = Console()
    table = Table(title=f"{summary.games} games · {len(bots)} players · {options.summary()} · seed {args.seed}")
    table.add_column("who")
    table.add_column("wins", justify="right")
    table.add_column("win rate  [95% interval]", justify="right")
    for row in result_rows(summary):
        table.add_row(*row)
    out.print(table)
    out.print(f"fair share {1 / len(bots):.1%} · {data['average_turns']:.1f} turns per game · "
              f"{data['games_per_second']:,.0f} games/s")
    if args.record is not None:
        out.print(f"records written to {args.record}", markup=False, highlight=False)
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
                print(f"{path}: {checked.error.describe()}")
    except OSError as exc:
        print(f"ono99 records check: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except UnicodeDecodeError as exc:
        print(f"ono99 records check: {path} is not UTF-8 text ({exc.reason} at byte {exc.start})",
              file=sys.stderr)
        return EXIT_USAGE
    total = valid + faulty
    print(f"{total} record{'s' if total != 1 else ''} checked: {valid} valid, {faulty} faulty")
    return EXIT_FAULTY if faulty else EXIT_OK


def run_records_export(db: Path | None, out: Path | None) -> int:
    from server.storage import default_db_path, export_records

    path = db or default_db_path()
    try:
        lines = export_records(path)
    except FileNotFoundError:
        print(f"ono99 records export: no database at {path}; pass the server's --db PATH", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # sqlite3 errors: not a database, locked...
        print(f"ono99 records export: cannot read {path}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    text = "".join(line + "\n" for line in lines)
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        print(f"{len(lines)} records written to {out}", file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())

"""Screenshots of the ONO 99 terminal app, taken from the real app driven by Textual's Pilot.

What it makes, in this folder (``screenshots/``), each as ``.svg`` (Textual's own export) and ``.png``:

* ``lobby``        the lobby of a real in-process server holding a few real tables (made by protocol
                   clients), with the app connected over TCP (``make_app(local=False, ...)``);
* ``servers``      ``ono99 connect`` without an address: two real servers advertised with mDNS on the
                   loopback interface, one with tables, listed by the app's browser;
* ``help``         the help screen (``?``) over a local game;
* ``table-play2``  a local game against 3 bots where a Play 2 obligation is pending on you, reached by
                   playing legal cards with the number keys;
* ``game-over``    the same game played on (keys only) until the game-over dialog shows;
* ``lobby-de``     the lobby as ``lobby``, in German;
* ``table-vi``     a local game's first turn, in Vietnamese;
* ``table-2``, ``table-4``, ``table-8``  the table of a seeded bot game of 2, 4 and 8 players a few moves in
                   (a replay of a game ``ono99 simulate`` plays), at 100×32 (8 players: at 80×24);
* ``table-1980``   the same for the 1980 edition (tokens);
* ``table-mono``   the high-contrast theme (no colour: the cards' kinds told by their shapes);
* ``table-de``, ``table-ne``  the 4-player table in German and in Nepali;
* ``table-moves``  frames of a few moves one after another (``table-moves-N``), and one animated SVG
                   showing them in turn (``table-moves.svg``).

Install what it needs (Debian; as root):

    apt-get update && apt-get install -y chromium fonts-firacode
    python -m venv .venv && .venv/bin/pip install -e '.[test]'   # the project itself (Textual 8.2)

Run it from the repository root:

    .venv/bin/python screenshots/make_screenshots.py             # all five
    .venv/bin/python screenshots/make_screenshots.py --only lobby,help --scale 2 --seed 7
    .venv/bin/python screenshots/make_screenshots.py --svg-only  # no chromium needed

PNGs are rendered by headless Chromium from a tiny HTML page that embeds the SVG inline and forces the
'Fira Code' font (fonts-firacode), so the terminal grid keeps its spacing. The local game's deal is made
repeatable by feeding the server's per-game seed from ``--seed`` (patched in this script only); the play
itself always takes the first legal card, so a given seed reaches the same states every time.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from textual.app import App  # noqa: E402
from textual.pilot import Pilot  # noqa: E402

import ono99_server.table_room as server_table  # noqa: E402
from ono99_kernel.wire.requests import CreateTable, Join, Spectate  # noqa: E402
from ono99_kernel.wire.server import View  # noqa: E402
from ono99_server import Server, ServerConfig  # noqa: E402
from ono99_tui.client.connection import Client  # noqa: E402
from ono99_tui.i18n import using  # noqa: E402
from ono99_tui.local_game import open_local_game  # noqa: E402
from ono99_tui.tui.app import Ono99App, make_app  # noqa: E402
from ono99_tui.tui.game_over import GameOverScreen, KnockOutScreen  # noqa: E402
from ono99_tui.tui.help import HelpScreen  # noqa: E402
from ono99_tui.tui.lobby import LobbyScreen  # noqa: E402
from ono99_tui.tui.table import TableScreen  # noqa: E402

SIZE = (100, 32)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_HINT = "apt-get update && apt-get install -y chromium fonts-firacode"
ALL_SHOTS = ("lobby", "servers", "help", "table-play2", "game-over", "lobby-de", "table-vi", "table-2", "table-4",
             "table-8", "table-1980", "table-mono", "table-de", "table-ne", "table-moves")
# the tables of replayed bot games: (players, edition, language, theme, size)
REPLAY_SHOTS: dict[str, tuple[int, str, str, str, tuple[int, int]]] = {
    "table-2": (2, "2022", "en", "textual-dark", SIZE),
    "table-4": (4, "2022", "en", "textual-dark", SIZE),
    "table-8": (8, "2022", "en", "textual-dark", (80, 24)),
    "table-1980": (4, "1980", "en", "textual-dark", SIZE),
    "table-mono": (4, "2022", "en", "ono99-mono", SIZE),
    "table-de": (4, "2022", "de", "textual-dark", SIZE),
    "table-ne": (4, "2022", "ne", "textual-dark", SIZE),
}


class ScreenshotError(RuntimeError):
    """A wanted state did not show up in time, or a tool is missing."""


# --- waiting on the app ------------------------------------------------------------------------------------
async def wait_until(pilot: Pilot[Any], condition: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise ScreenshotError(f"timed out after {timeout:g} s waiting for {what}")
        await pilot.pause(0.05)


async def settle(pilot: Pilot[Any]) -> None:
    """Let pending messages, refreshes and layout finish before a screenshot."""
    for _ in range(4):
        await pilot.pause(0.1)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause(0.1)


def save_svg(app: App[Any], out_dir: Path, name: str, title: str) -> Path:
    path = out_dir / f"{name}.svg"
    path.write_text(app.export_screenshot(title=title), encoding="utf-8")
    print(f"  wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return path


# --- (1b) the servers found on the network --------------------------------------------------------------
async def shoot_servers(out_dir: Path) -> list[Path]:
    from ono99_server.advertiser import Advertiser

    servers = [Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=0, default_turn_seconds=0, name=name))
               for name in ("Friday night", "Dev room")]
    advertisers: list[Advertiser] = []
    clients: list[Client] = []
    try:
        for server in servers:
            await server.start()
            advertisers.append(Advertiser(server, ssh_port=2222 if server is servers[0] else None, debounce=0.1))
            await advertisers[-1].start()
        tables: tuple[tuple[str, dict[str, Any]], ...] = (
            ("Ada", {"edition": "2022", "seats": 4, "bots": 1, "name": "Ada's table"}),
            ("Grace", {"edition": "1980", "options": {"scoring": "tokens"}, "seats": 3, "bots": 0,
                       "name": "Classic 1980"}))
        for name, table in tables:
            client = await Client.connect("127.0.0.1", servers[0].port, name)
            clients.append(client)
            await client.send(CreateTable(turn_seconds=30, **table))
            await client.expect("table")
        app = make_app(local=False, name="Joan", discover=True, browse_interfaces=["127.0.0.1"])
        async with app.run_test(size=SIZE) as pilot:
            def listed() -> bool:
                screen = app.screen
                found = getattr(screen, "servers", [])
                return len(found) == 2 and sum(len(f.advert.tables) for f in found) == 2
            await wait_until(pilot, listed, "both servers and their tables")
            await settle(pilot)
            return [save_svg(app, out_dir, "servers", "ONO 99 — servers on the network")]
    finally:
        for client in clients:
            await client.close()
        for advertiser in advertisers:
            await advertiser.close()
        for server in servers:
            await server.close()


# --- (1) the lobby of a real server -------------------------------------------------------------------
async def shoot_lobby(out_dir: Path, lang: str = "en", name: str = "lobby") -> list[Path]:
    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=0, default_turn_seconds=0))
    await server.start()
    clients: list[Client] = []

    async def client(name: str) -> Client:
        c = await Client.connect("127.0.0.1", server.port, name)
        clients.append(c)
        return c

    try:
        ada = await client("Ada")
        await ada.send(CreateTable(edition="2022", seats=4, bots=1, bot_level="greedy", turn_seconds=30,
                                   name="Friday night"))
        friday = (await ada.expect("table"))["table"]["id"]
        ken = await client("Ken")
        await ken.send(Join(table=friday))
        await ken.expect("table")

        grace = await client("Grace")
        await grace.send(CreateTable(edition="1980", options={"scoring": "tokens"}, seats=3, bots=2,
                                     bot_level="greedy", turn_seconds=0, start=True, name="Classic 1980"))
        classic = (await grace.expect("table"))["table"]["id"]
        margaret = await client("Margaret")
        await margaret.send(Spectate(table=classic))
        await margaret.expect("table")

        linus = await client("Linus")
        await linus.send(CreateTable(edition="2022", options={"eight_players": True}, seats=6, bots=0,
                                     turn_seconds=45, name="Six of us"))
        await linus.expect("table")

        barbara = await client("Barbara")
        await barbara.send(CreateTable(edition="2022", seats=2, bots=1, bot_level="random", turn_seconds=0,
                                       start=True, name="Bot practice"))
        await barbara.expect("table")
        expected = 4

        app = make_app(local=False, host="127.0.0.1", port=server.port, name="Joan")
        with using(lang):
            async with app.run_test(size=SIZE) as pilot:
                await wait_until(pilot,
                                 lambda: isinstance(app.screen, LobbyScreen) and len(app.model.tables) >= expected,
                                 f"the lobby with {expected} tables")
                await settle(pilot)
                return [save_svg(app, out_dir, name, "ONO 99 — lobby")]
    finally:
        for c in clients:
            await c.close()
        await server.close()


async def shoot_table_in(out_dir: Path, lang: str, seed: int) -> list[Path]:
    """A local game's table at its first state, in ``lang``."""
    original_secrets = getattr(server_table, "secrets")  # noqa: B009
    setattr(server_table, "secrets", SeededSecrets(seed))  # noqa: B010
    try:
        app = make_app(local=True, bot_delay=5, name="Joan", local_game=open_local_game)
        with using(lang):
            async with app.run_test(size=SIZE) as pilot:
                await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                                 "the local table")
                await settle(pilot)
                return [save_svg(app, out_dir, f"table-{lang}", "ONO 99")]
    finally:
        setattr(server_table, "secrets", original_secrets)  # noqa: B010


# --- (2)-(4) a local game against bots ------------------------------------------------------------------
class SeededSecrets:
    """Stands in for ``secrets`` inside ``server.table`` so each game's seed comes from ``--seed``."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def randbits(self, k: int) -> int:
        return self._rng.getrandbits(k)

    def choice(self, seq: Any) -> Any:
        return self._rng.choice(seq)


def key_for_turn(view: View) -> str | None:
    """The key a player would press now: the first card of the hand that is legal, else four ONO 99
    (f) or an open draw (d)."""
    for index, code in enumerate(view.hand[:4]):
        if code in view.legal:
            return str(index + 1)
    if "ONO99x4" in view.legal:
        return "f"
    if "draw" in view.legal:
        return "d"
    return None


def rematch_started(app: Ono99App, old_game: int) -> bool:
    return app.model.game_no != old_game and isinstance(app.screen, TableScreen)


def view_moved_on(app: Ono99App, version: int) -> bool:
    view = app.model.view
    return view is None or view.version != version


async def shoot_local_game(out_dir: Path, wanted: set[str], seed: int, max_games: int = 8,
                           max_moves: int = 600) -> list[Path]:
    saved: list[Path] = []
    original_secrets = getattr(server_table, "secrets")  # noqa: B009 (the module the server draws seeds from)
    setattr(server_table, "secrets", SeededSecrets(seed))  # noqa: B010
    try:
        app = make_app(local=True, bot_delay=0, name="Joan", local_game=open_local_game)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                             "the local table")
            await settle(pilot)

            if "help" in wanted:
                await pilot.press("question_mark")
                await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
                await settle(pilot)
                saved.append(save_svg(app, out_dir, "help", "ONO 99 — help"))
                await pilot.press("escape")
                await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table after help")

            need_play2 = "table-play2" in wanted
            need_over = "game-over" in wanted
            games = 1
            moves = 0
            while need_play2 or need_over:
                await pilot.pause(0.05)
                screen = app.screen
                model = app.model
                view = model.view
                if isinstance(screen, KnockOutScreen):
                    await pilot.press("enter")  # the summary of my knock-out: the bots play on
                    continue
                if isinstance(screen, GameOverScreen):
                    if need_over:
                        await settle(pilot)
                        saved.append(save_svg(app, out_dir, "game-over", "ONO 99 — game over"))
                        need_over = False
                    if not need_play2:
                        break
                    if games >= max_games:
                        raise ScreenshotError(f"no Play 2 reached me in {games} games (seed {seed})")
                    games += 1
                    old_game = model.game_no
                    await pilot.press("r")  # rematch: a new game at the same table
                    await wait_until(pilot, partial(rematch_started, app, old_game), "the rematch")
                    continue
                if not isinstance(screen, TableScreen) or view is None or view.winner is not None:
                    continue
                if not model.my_turn:
                    continue
                if need_play2 and view.obligation is not None:
                    await settle(pilot)
                    if app.model.view is not view:
                        continue  # something moved while settling: look again
                    saved.append(save_svg(app, out_dir, "table-play2", "ONO 99 — Play 2 pending"))
                    need_play2 = False
                    if not need_over:
                        break
                key = key_for_turn(view)
                if key is None:
                    continue  # the server decides (e.g. I am out); wait for the next state
                moves += 1
                if moves > max_moves:
                    raise ScreenshotError(f"gave up after {max_moves} moves (seed {seed})")
                version = view.version
                await pilot.press(key)
                await wait_until(pilot, partial(view_moved_on, app, version), f"the server to take key {key!r}",
                                 timeout=10)
            print(f"  local game: {games} game(s), {moves} of my moves, seed {seed}")
    finally:
        setattr(server_table, "secrets", original_secrets)  # noqa: B010
    return saved


# --- (3) the tables of replayed bot games --------------------------------------------------------------------
def bot_game(players: int, edition: str, seed: int) -> Path:
    """A record file of one seeded bot game (as ``ono99 simulate`` plays it)."""
    from ono99_kernel.core import TableOptions
    from ono99_tui.simulate import SimulationPlan, simulate

    options = TableOptions.from_mapping(edition, {"eight_players": True} if players > 6 and edition == "2022" else {})
    lines: list[str] = []
    simulate(SimulationPlan(1, ("greedy",) * players, options, seed=seed, record=True),
             on_result=lambda result: lines.append(result.record_line or ""))
    path = Path(tempfile.mkdtemp(prefix="ono99-shot-")) / f"{edition}-{players}.jsonl"
    path.write_text(lines[0] + "\n", encoding="utf-8")
    return path


async def shoot_replay_table(out_dir: Path, name: str, seed: int) -> list[Path]:
    from ono99_tui.tui.replay import load_replay, make_replay_app

    players, edition, lang, theme, size = REPLAY_SHOTS[name]
    with using(lang):
        app = make_replay_app(load_replay(bot_game(players, edition, seed)))
        app.animation_level = "none"  # the move, not a frame of its motion
        async with app.run_test(size=size) as pilot:
            app.theme = theme
            for _ in range(7):
                await pilot.press("right")
            await settle(pilot)
            return [save_svg(app, out_dir, name, f"ONO 99 — {players} players")]


async def shoot_moves(out_dir: Path, seed: int, frames: int = 6) -> list[Path]:
    """A few moves one after another, a frame each (the table as each move left it)."""
    from ono99_tui.tui.replay import load_replay, make_replay_app

    app = make_replay_app(load_replay(bot_game(4, "2022", seed)))
    app.animation_level = "none"  # each move as it ends
    saved = []
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(4):
            await pilot.press("right")
        for frame in range(1, frames + 1):
            await pilot.press("right")
            await settle(pilot)
            saved.append(save_svg(app, out_dir, f"table-moves-{frame}", "ONO 99 — a few moves"))
    return saved


def animate_frames(frames: list[Path], out: Path, seconds: float = 1.5) -> Path:
    """One animated SVG of the frames, each shown ``seconds`` in turn (CSS keyframes: it plays wherever
    an SVG is shown, a README's picture included)."""
    bodies = []
    width = height = "0"
    for svg in frames:
        text = svg.read_text(encoding="utf-8")
        text = re.sub(r"<\?xml[^>]*>", "", text)
        match = re.search(r'viewBox="\s*[-\d.]+\s+[-\d.]+\s+([\d.]+)\s+([\d.]+)\s*"', text)
        if match is not None:
            width, height = match.groups()
        bodies.append(text)
    share = 100 / len(frames)
    groups = "\n".join(f'<g class="frame" style="animation-delay: {i * seconds:g}s">{body}</g>'
                       for i, body in enumerate(bodies))
    out.write_text(f"""<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}"
 height="{height}"><style>
.frame {{ opacity: 0; animation: shown {seconds * len(frames):g}s step-end infinite; }}
@keyframes shown {{ 0% {{ opacity: 1; }} {share:.3f}% {{ opacity: 0; }} 100% {{ opacity: 0; }} }}
</style>
{groups}
</svg>
""", encoding="utf-8")
    print(f"  wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return out


# --- SVG -> PNG with headless Chromium ------------------------------------------------------------------
def find_chromium() -> str:
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    raise ScreenshotError(f"Chromium is needed to turn the SVGs into PNGs and none was found "
                          f"(looked for {', '.join(CHROMIUM_NAMES)}). Install it with:\n    {INSTALL_HINT}\n"
                          "or run with --svg-only.")


def check_font() -> None:
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return
    fonts = subprocess.run([fc_list, "Fira Code"], capture_output=True, text=True, check=False).stdout
    if not fonts.strip():
        print(f"warning: the 'Fira Code' font is not installed; the PNGs fall back to another monospace "
              f"font. Install it with: {INSTALL_HINT}", file=sys.stderr)


WRAPPER = """<!doctype html>
<html><head><meta charset="utf-8"><style>
html, body {{ margin: 0; padding: 0; background: #1e1e1e; overflow: hidden; }}
svg {{ display: block; width: {width}px; height: {height}px; }}
/* Rich's SVG asks for "Fira Code" with web fallbacks we cannot fetch: use the installed one. */
svg, svg text, svg tspan {{ font-family: 'Fira Code', 'DejaVu Sans Mono', 'DejaVu Sans', monospace !important;
    font-variant-ligatures: none; font-feature-settings: "liga" 0, "calt" 0; }}
</style></head><body>{svg}</body></html>
"""


def svg_to_png(chromium: str, svg_path: Path, scale: float) -> Path:
    svg = svg_path.read_text(encoding="utf-8")
    match = re.search(r'viewBox="\s*[-\d.]+\s+[-\d.]+\s+([\d.]+)\s+([\d.]+)\s*"', svg)
    if match is None:
        raise ScreenshotError(f"{svg_path}: no viewBox in the SVG")
    width, height = (round(float(v)) for v in match.groups())
    png_path = svg_path.with_suffix(".png")
    with tempfile.TemporaryDirectory(prefix="ono99-shot-") as tmp:
        page = Path(tmp) / "page.html"
        page.write_text(WRAPPER.format(width=width, height=height, svg=svg), encoding="utf-8")
        profile = Path(tmp) / "profile"
        command = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-extensions", "--hide-scrollbars", "--mute-audio",
            f"--user-data-dir={profile}", f"--force-device-scale-factor={scale:g}",
            f"--window-size={width},{height}", f"--screenshot={png_path}", page.as_uri(),
        ]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        except subprocess.TimeoutExpired as exc:
            raise ScreenshotError(f"chromium took too long on {svg_path.name}") from exc
    if result.returncode != 0 or not png_path.exists():
        raise ScreenshotError(f"chromium failed on {svg_path.name} (exit {result.returncode}):\n"
                              f"{html.unescape(result.stderr[-2000:])}")
    print(f"  wrote {png_path.relative_to(ROOT) if png_path.is_relative_to(ROOT) else png_path} "
          f"({width}x{height} CSS px, scale {scale:g})")
    return png_path


# --- main ---------------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--only", default=",".join(ALL_SHOTS),
                        help=f"comma-separated subset of: {', '.join(ALL_SHOTS)}")
    parser.add_argument("--out", type=Path, default=HERE, help="output folder (default: this script's folder)")
    parser.add_argument("--seed", type=int, default=99, help="seed for the local game's deals (default 99)")
    parser.add_argument("--scale", type=float, default=1.0, help="device scale factor of the PNGs (default 1)")
    parser.add_argument("--svg-only", action="store_true", help="skip the PNGs (no chromium needed)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    wanted = {name.strip() for name in args.only.split(",") if name.strip()}
    unknown = wanted - set(ALL_SHOTS)
    if unknown:
        print(f"unknown screenshot(s): {', '.join(sorted(unknown))}; choose from {', '.join(ALL_SHOTS)}",
              file=sys.stderr)
        return 2
    try:
        chromium = None if args.svg_only else find_chromium()  # fail before the slow part
        if chromium is not None:
            check_font()
        args.out.mkdir(parents=True, exist_ok=True)
        svgs: list[Path] = []
        if "lobby" in wanted:
            print("lobby: a server with tables, the app connected over TCP")
            svgs += asyncio.run(shoot_lobby(args.out))
        if "servers" in wanted:
            print("servers: two servers advertised on loopback, the app's server list")
            svgs += asyncio.run(shoot_servers(args.out))
        if "lobby-de" in wanted:
            print("lobby-de: the lobby in German")
            svgs += asyncio.run(shoot_lobby(args.out, "de", "lobby-de"))
        if "table-vi" in wanted:
            print("table-vi: a local table in Vietnamese")
            svgs += asyncio.run(shoot_table_in(args.out, "vi", args.seed))
        for name in REPLAY_SHOTS:
            if name in wanted:
                print(f"{name}: a replayed bot game")
                svgs += asyncio.run(shoot_replay_table(args.out, name, args.seed))
        moves: list[Path] = []
        if "table-moves" in wanted:
            print("table-moves: a few moves, frame by frame")
            moves = asyncio.run(shoot_moves(args.out, args.seed))
            svgs += moves
            animate_frames(moves, args.out / "table-moves.svg")
        local = wanted & {"help", "table-play2", "game-over"}
        if local:
            print(f"local game: {', '.join(sorted(local))}")
            svgs += asyncio.run(shoot_local_game(args.out, local, args.seed))
        if chromium is not None:
            print("PNG: headless chromium")
            for svg in svgs:
                svg_to_png(chromium, svg, args.scale)
    except ScreenshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

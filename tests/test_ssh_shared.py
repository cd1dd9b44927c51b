"""Spectators' screens drawn once for many (ono99_tui/front/sharing.py): real asyncssh clients with a
PTY watch a table two TCP players play, against an in-process server and SSH front. Tried: who
shares a group's app and who does not (another size and language), that every member's terminal
shows the table, that a key or a resize takes a member back to an app of its own that goes on
watching, that the idle timeout still ends a member's session, and that what other users wrote
reaches the members as plain text. Waits are for conditions, never measurements."""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.requests import Act, CreateTable, Join, Say, Start
from ono99_tui.client.connection import Client
from ono99_tui.front.session_app import SessionApp
from ono99_tui.front.sharing import Group, TapInbox
from ono99_tui.front.ssh import SshSession
from ono99_tui.i18n import gettext, using
from ono99_tui.tui.help import HelpScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from tests.test_ssh import PATIENCE, Player, Rig, rig, run, start_rig, until  # noqa: F401  (rig is a fixture)
from tests.test_ssh_pace import cursor_cells, named_key

MOVE_PAUSE = 0.3  # seconds a TCP player waits before each move: the game lasts while the test looks


async def play_slowly(client: Client) -> None:
    """Play the first legal action whenever it is this client's move, a little after it comes."""
    while True:
        message = await client.recv(PATIENCE)
        if message["t"] != "state":
            continue
        view = message["view"]
        if view["winner"] is not None:
            return
        if view["legal"] and (view["turn"] == view["seat"] or "draw" in view["legal"]):
            await asyncio.sleep(MOVE_PAUSE)
            await client.send(Act(action=view["legal"][0], version=view["version"]))


async def watch_from_the_lobby(rig: Rig, name: str, size: tuple[int, int] = (100, 30),  # noqa: F811
                               env: dict[str, str] | None = None) -> Player:
    """An SSH spectator whose key owns ``name``: in the lobby, s watches the one table listed."""
    player = await Player.connect(rig, name, key=await named_key(rig, name), size=size, env=env)
    await player.until(lambda a: isinstance(a.screen, LobbyScreen) and bool(a.model.tables), f"{name}'s lobby")
    await player.press("s")
    await player.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None
                       and a.model.table.you is None, f"{name} watching")
    return player


def without_moves(output: bytearray) -> bytes:
    """The output without its control sequences: a line drawn in pieces (each after a cursor move) whole."""
    return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", bytes(output))


def group_of(rig: Rig, player: Player) -> Group | None:  # noqa: F811
    return rig.front.sharing.group_of.get(player.session)


@pytest.mark.long
async def test_spectators_with_the_same_terminal_share_one_app_and_a_key_or_a_resize_takes_one_back(
        rig: Rig) -> None:  # noqa: F811
    """Bea and Cy watch on 100×30 terminals in English, Dan on 80×24 in Vietnamese, while Tess and
    Gus play over TCP. Tried: Bea and Cy share one group's app (their own apps held), Dan is in a
    group of his own; every terminal receives the table after joining (the title's "spectating" in
    its language, Dan's drawn within 80×24); Bea's ? opens help in her own app, which goes on
    watching the game while Cy stays in the group; Cy's resize takes him out of the group (his own app
    at the new size, or a group of that size), and the group's app, with no member left, closes."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    guest = await Client.connect("127.0.0.1", rig.server.port, "gus")
    game: asyncio.Future[tuple[None, None]] | None = None
    try:
        await host.send(CreateTable(name="watched", seats=2, turn_seconds=0))
        table_id = (await host.expect("table"))["table"]["id"]
        await guest.send(Join(table=table_id))
        await guest.expect("table")
        bea = await watch_from_the_lobby(rig, "bea")
        cy = await watch_from_the_lobby(rig, "cy")
        dan = await watch_from_the_lobby(rig, "dan", size=(80, 24), env={"LANG": "vi_VN.UTF-8"})
        await host.send(Start())
        game = asyncio.gather(play_slowly(host), play_slowly(guest))
        sharing = rig.front.sharing
        await until(lambda: group_of(rig, bea) is not None and group_of(rig, bea) is group_of(rig, cy),
                    "Bea and Cy in one group")
        shared = group_of(rig, bea)
        assert shared is not None and sorted(m.app.model.my_name for m in shared.members) == ["bea", "cy"]
        assert shared.app is not bea.app and shared.app is not cy.app
        assert bea.app.screen_held and cy.app.screen_held and bea.app.terminal.muted
        await until(lambda: group_of(rig, dan) is not None, "Dan in a group")
        assert group_of(rig, dan) is not shared and len(sharing.groups) == 2
        with using("vi"):
            spectating_vi = gettext("spectating").encode()
        marks = {p: len(p.output) for p in (bea, cy, dan)}
        # the picture each gets once in the group: the group's first frame, or a whole one for itself
        await until(lambda: all(b"spectating" in p.output[marks[p]:] or b"spectating" in p.output
                                for p in (bea, cy)), "the English table on Bea's and Cy's terminals")
        await dan.until_shown(spectating_vi, "the Vietnamese table on Dan's terminal")
        assert spectating_vi not in bea.output and spectating_vi not in cy.output
        dan_rows, dan_columns = cursor_cells(bytes(dan.output))
        assert dan_rows <= 24 and dan_columns <= 80
        dans = group_of(rig, dan)
        assert dans is not None and dans.app.size == (80, 24)
        # moves drawn by the group's app reach both members' terminals
        seen = shared.app.model.seq
        marks = {p: len(p.output) for p in (bea, cy)}
        await until(lambda: shared.app.model.seq > seen, "a move in the group's app")
        await until(lambda: len(bea.output) > marks[bea] and len(cy.output) > marks[cy], "the move on both terminals")
        # a key: Bea's own app takes it, draws again and keeps watching
        await bea.press("?")
        await bea.until_screen(HelpScreen, "help in Bea's own app")
        assert group_of(rig, bea) is None and not bea.app.screen_held and not bea.app.terminal.muted
        assert group_of(rig, cy) is shared and shared.members == [cy.session]
        await bea.press("escape")
        await bea.until_screen(TableScreen, "Bea back at the table")
        seq = bea.app.model.seq
        mark = len(bea.output)
        await bea.until(lambda a: a.model.seq > seq, "Bea's own app taking in moves")
        await until(lambda: len(bea.output) > mark, "Bea's own app drawing them")
        assert group_of(rig, bea) is None  # typed on this table screen: its own app stays
        # a resize: Cy's own app, at the new size; the group's app closes
        cy.stdin.channel.change_terminal_size(90, 28)
        await cy.until(lambda a: a.size == (90, 28), "Cy's own app at 90×28")
        assert group_of(rig, cy) is not shared
        await asyncio.wait_for(shared.task, PATIENCE)
        assert shared.key not in sharing.groups or sharing.groups[shared.key] is not shared
        regrouped = group_of(rig, cy)  # nothing typed: at its new size it may share again
        assert regrouped is None or regrouped.key.size == (90, 28)
        seq = cy.app.model.seq
        await cy.until(lambda a: a.model.seq > seq, "Cy's own app still watching")
        for player in (bea, cy, dan):
            await player.close()
    finally:
        if game is not None:
            game.cancel()
            with contextlib.suppress(BaseException):
                await game
        await host.close()
        await guest.close()


async def test_a_members_own_app_leaves_the_turn_clock_to_the_groups_app(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Tess and Gus sit at a table with a 30 s turn clock and do not move, so the clock runs, while Bea
    and Cy watch on the same terminals. Tried: in their group, the group's app redraws the clock every
    second while Bea's and Cy's own apps, held, do not draw their table tops for it at all (each tick
    painted a table top nobody saw); Bea's key gives her own app the screen back, and its clock
    ticks again."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    guest = await Client.connect("127.0.0.1", rig.server.port, "gus")
    try:
        await host.send(CreateTable(name="clocked", seats=2, turn_seconds=30))
        table_id = (await host.expect("table"))["table"]["id"]
        await guest.send(Join(table=table_id))
        await guest.expect("table")
        bea = await watch_from_the_lobby(rig, "bea")
        cy = await watch_from_the_lobby(rig, "cy")
        await host.send(Start())
        await until(lambda: group_of(rig, bea) is not None and group_of(rig, bea) is group_of(rig, cy),
                    "Bea and Cy in one group")
        shared = group_of(rig, bea)
        assert shared is not None
        await until(lambda: shared.app.model.clock is not None and isinstance(shared.app.screen, TableScreen),
                    "the group's app showing the running clock")
        # a held app takes in what came every few seconds: then its model has the clock too
        await until(lambda: bea.app.model.clock is not None and cy.app.model.clock is not None,
                    "Bea's and Cy's own apps knowing of the running clock")
        drawn = {"group": 0, "bea": 0, "cy": 0}
        for who, app in (("group", shared.app), ("bea", bea.app), ("cy", cy.app)):
            top = app.screen.query_one(TableTop)
            show = top.show

            def counting(model: Any, who: str = who, show: Any = show) -> None:
                drawn[who] += 1
                show(model)

            monkeypatch.setattr(top, "show", counting)  # counts the table top's redraws
        await until(lambda: drawn["group"] >= 3, "three ticks of the group's clock")
        assert drawn["bea"] == 0 and drawn["cy"] == 0, drawn
        assert bea.app.screen_held and cy.app.screen_held
        await bea.press("right")  # a key: Bea's own app draws her screen again
        await until(lambda: group_of(rig, bea) is None and not bea.app.screen_held, "Bea's own app back")
        ticks = drawn["bea"]
        await until(lambda: drawn["bea"] >= ticks + 2, "Bea's own clock ticking again")
        for player in (bea, cy):
            await player.close()
    finally:
        await host.close()
        await guest.close()


async def test_chat_reaches_the_members_as_plain_text(rig: Rig) -> None:  # noqa: F811
    """Tess says a line at the table with an escape sequence and markup in it while Bea and Cy share
    a group's app. Tried: the line reaches both terminals (drawn by the group's app), its markup as
    written and no escape sequence of it (the server keeps none, the app draws text as text); then a
    notification for Bea alone takes her out of the group, shown on her terminal only."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    try:
        await host.send(CreateTable(name="talk", seats=2, turn_seconds=0))
        await host.expect("table")
        bea = await watch_from_the_lobby(rig, "bea")
        cy = await watch_from_the_lobby(rig, "cy")
        await until(lambda: group_of(rig, bea) is not None and group_of(rig, bea) is group_of(rig, cy),
                    "Bea and Cy in one group")
        await host.send(Say(text="look \x1b]2;owned\x07 [b]here[/b]", scope="table"))
        for player in (bea, cy):
            await player.until_shown(b"[b]here[/b]", "the line with its markup as written")
            assert b"owned\x07" not in player.output and b"\x1b]2;owned" not in player.output
        assert group_of(rig, bea) is not None and group_of(rig, cy) is not None  # a chat line is everyone's
        # a notification for Bea alone (as the front's own words would be): her own app shows it
        bea.app.notify("only for Bea")
        assert group_of(rig, bea) is None and group_of(rig, cy) is not None
        await until(lambda: b"only for Bea" in without_moves(bea.output), "Bea's own notification on her terminal")
        assert b"only for Bea" not in without_moves(cy.output)
        for player in (bea, cy):
            await player.close()
    finally:
        await host.close()


async def test_the_idle_timeout_ends_a_members_session(tmp_path: Path) -> None:
    """A spectator of a table with no game running joins a group and types nothing. Tried: the idle
    timeout ends its session as any other's, with the line saying why after its own app gave the
    terminal back; the group's app closes with its last member."""
    rig = await start_rig(tmp_path, ssh=SshSettings(idle_timeout=3.0))  # noqa: F811
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    try:
        await host.send(CreateTable(name="quiet", seats=2, turn_seconds=0))
        await host.expect("table")
        bea = await watch_from_the_lobby(rig, "bea")
        await until(lambda: group_of(rig, bea) is not None, "Bea in a group")
        group = group_of(rig, bea)
        assert group is not None
        await asyncio.wait_for(bea.ended.wait(), PATIENCE)
        assert b"without a key pressed" in bea.output
        assert bea.output.rfind(b"\x1b[?1049l") < bea.output.rfind(b"without a key pressed")
        await asyncio.wait_for(group.task, PATIENCE)
        assert not rig.front.sharing.groups and not rig.front.sharing.group_of
        await bea.close()
    finally:
        await host.close()
        await rig.close()


async def test_with_sharing_off_every_spectator_draws_its_own_screen(tmp_path: Path) -> None:
    """The front's setting off: two spectators of one table with the same terminal. Tried: no
    group is made and both own apps draw."""
    rig = await start_rig(tmp_path, ssh=SshSettings(shared_screens=False))  # noqa: F811
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    try:
        await host.send(CreateTable(name="plain", seats=2, turn_seconds=0))
        await host.expect("table")
        bea = await watch_from_the_lobby(rig, "bea")
        cy = await watch_from_the_lobby(rig, "cy")
        await host.send(Say(text="hello", scope="table"))
        for player in (bea, cy):
            await player.until_shown(b"hello", "the chat line")
        assert not rig.front.sharing.groups and not bea.app.screen_held and not cy.app.screen_held
        for player in (bea, cy):
            await player.close()
    finally:
        await host.close()
        await rig.close()


async def test_a_links_inbox_keeps_a_spectators_table_and_says_what_is_its_own() -> None:
    """The inbox a shared app is started and fed from. Tried: a spectator's table and its run of
    states kept as one (every event), a seated player's not; the table's messages fed on while it
    feeds, lobby lists neither fed nor its own, a notice, an error or the link's end its own."""
    inbox = TapInbox()
    fed: list[dict[str, Any]] = []
    own: list[int] = []
    inbox.on_own = lambda: own.append(1)
    table = {"t": "table", "table": {"id": 7, "you": None}}
    inbox.put_nowait(table)
    for seq, count in ((1, 1), (2, 1), (4, 2)):  # each state's events follow the last's
        inbox.put_nowait({"t": "state", "table": 7, "game_no": 1, "seq": seq, "events": [{"e": "play"}] * count,
                          "view": {}})
    assert inbox.table is table and [m["seq"] for m in inbox.since_table] == [4]
    assert len(inbox.since_table[0]["events"]) == 4
    inbox.feeds = fed.append
    inbox.put_nowait({"t": "chat", "scope": "table", "table": 7, "text": "hi"})
    inbox.put_nowait({"t": "tables", "tables": []})
    assert [m["t"] for m in fed] == ["chat"] and not own
    inbox.put_nowait({"t": "notice", "table": 7, "code": "clock_ran_out", "params": {}})
    assert not own and fed[-1]["t"] == "notice"
    inbox.put_nowait({"t": "notice", "table": 7, "code": "waiting_for_seat", "params": {}})
    inbox.put_nowait({"t": "error", "code": "x"})
    assert len(own) == 2 and fed[-1]["code"] == "clock_ran_out"
    inbox.put_nowait(None)
    assert len(own) == 3 and inbox.table is None and not inbox.since_table
    seated = TapInbox()
    seated.put_nowait({"t": "table", "table": {"id": 7, "you": 0}})
    seated.put_nowait({"t": "state", "table": 7, "game_no": 1, "seq": 1, "events": [{}], "view": {}})
    assert not seated.since_table


@pytest.mark.system
async def test_two_openssh_spectators_sharing_a_screen_see_the_same_picture(rig: Rig, tmp_path: Path) -> None:  # noqa: F811
    """The real OpenSSH client in two tmux windows of 100×30, both watching a table two TCP players
    play. Tried: the two sessions share one group's app, moves are made after both joined (the second
    got the group's whole picture for itself, then the updates), and once the players stop, tmux
    shows the same screen in both windows, the table's; a key in one gives it its own app, whose
    screen, repainted over the group's, is the table again."""
    assert shutil.which("ssh") and shutil.which("tmux"), "ssh and tmux are part of the test machine"
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    guest = await Client.connect("127.0.0.1", rig.server.port, "gus")
    socket_name = f"ono99-test-{uuid.uuid4().hex[:8]}"
    tmux = ("tmux", "-L", socket_name, "-f", "/dev/null")
    game: asyncio.Future[tuple[None, None]] | None = None
    try:
        await host.send(CreateTable(name="framed", seats=2, turn_seconds=0))
        table_id = (await host.expect("table"))["table"]["id"]
        await guest.send(Join(table=table_id))
        await guest.expect("table")
        windows = ("bea", "cy")
        for name in windows:
            key_path = tmp_path / f"id_{name}"
            key_path.write_bytes((await named_key(rig, name)).export_private_key())
            key_path.chmod(0o600)
            ssh = (f"ssh -F /dev/null -p {rig.front.port} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
                   f"-o LogLevel=ERROR -o IdentitiesOnly=yes -o BatchMode=yes -i {key_path} {name}@127.0.0.1")
            await run(*tmux, "new-session", "-d", "-s", name, "-x", "100", "-y", "30", ssh)

        def session_of(name: str) -> SshSession:
            found = next((s for s in rig.front.sessions if isinstance(s.app, SessionApp)
                          and s.app.model.my_name == name), None)
            assert found is not None
            return found

        for name in windows:
            await until(lambda n=name: any(isinstance(s.app, SessionApp) and s.app.model.my_name == n
                                           and s.app.model.tables for s in rig.front.sessions), f"{name}'s lobby")
            await run(*tmux, "send-keys", "-t", name, "s")
        sharing = rig.front.sharing
        await until(lambda: len(sharing.groups) == 1 and len(next(iter(sharing.groups.values())).members) == 2,
                    "both OpenSSH spectators in one group")
        group = next(iter(sharing.groups.values()))
        await host.send(Start())
        game = asyncio.gather(play_slowly(host), play_slowly(guest))
        seq = group.app.model.seq
        await until(lambda: group.app.model.seq >= seq + 3, "moves drawn by the group's app")
        game.cancel()
        with contextlib.suppress(BaseException):
            await game
        game = None

        async def pane(name: str) -> str:
            return await run(*tmux, "capture-pane", "-p", "-t", name)

        shown = ["", ""]
        for _ in range(int(PATIENCE / 0.2)):
            shown = [await pane(name) for name in windows]
            if shown[0] == shown[1] and "spectating" in shown[0]:
                break
            await asyncio.sleep(0.2)
        assert shown[0] == shown[1] and "spectating" in shown[0], f"{shown[0]}\n---\n{shown[1]}"
        assert len(group.members) == 2
        # a key: Cy's own app draws his whole screen over the group's picture
        cy = session_of("cy")
        await run(*tmux, "send-keys", "-t", "cy", "Down")
        await until(lambda: sharing.group_of.get(cy) is None, "Cy out of the group")
        await until(lambda: isinstance(cy.app, SessionApp) and not cy.app.screen_held, "Cy's own app drawing")
        for _ in range(int(PATIENCE / 0.2)):
            mine = await pane("cy")
            if "spectating" in mine and "framed" in mine:
                break
            await asyncio.sleep(0.2)
        assert "spectating" in mine and "framed" in mine, mine
    finally:
        if game is not None:
            game.cancel()
            with contextlib.suppress(BaseException):
                await game
        await host.close()
        await guest.close()
        with contextlib.suppress(Exception):
            await run(*tmux, "kill-server")

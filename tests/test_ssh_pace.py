"""How an SSH front spends its event loop: redraws paced per session (a spectator gets a burst of
moves drawn once, with every log line), logins first, and a front that must refuse a login saying
so in words; and at one table, a spectator and a player in other languages and terminal sizes each
drawn in their own. Real asyncssh clients and TCP players against an in-process server and front;
waits are for conditions, never measurements."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.requests import CreateTable, Join, Start
from ono99_kernel.wire.server import ServerMessage
from ono99_tui.client.connection import Client
from ono99_tui.client.model import Model
from ono99_tui.front import pacing
from ono99_tui.front.pacing import Pacer
from ono99_tui.i18n import gettext, using
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from tests.server_helpers import play_client
from tests.test_ssh import PATIENCE, Player, Rig, rig, start_rig, until  # noqa: F401  (rig is a fixture)


async def test_a_sessions_pace_follows_its_seat_its_turn_and_the_logins() -> None:
    """Tried: a spectator, a player in the lobby, a seated player and a player in their own turn,
    with no login under way and with one; the player in their turn is drawn at once in both."""
    pacer = Pacer()
    assert pacer.frame(watching=True, seated=False, my_turn=False) == pacing.WATCHING_FRAME
    assert pacer.frame(watching=False, seated=False, my_turn=False) == pacing.LOBBY_FRAME
    assert pacer.frame(watching=False, seated=True, my_turn=False) == pacing.SEATED_FRAME
    assert pacer.frame(watching=False, seated=True, my_turn=True) == 0
    pacer.login_started()
    assert pacer.busy
    assert pacer.frame(watching=True, seated=False, my_turn=False) == pacing.LOGIN_WATCHING_FRAME
    assert pacer.frame(watching=False, seated=False, my_turn=False) == pacing.BUSY_FRAME
    assert pacer.frame(watching=False, seated=True, my_turn=False) == pacing.BUSY_SEATED_FRAME
    assert pacer.frame(watching=False, seated=True, my_turn=True) == 0
    pacer.login_ended()
    pacer.login_ended()  # once too often: never below none
    assert pacer.logins == 0
    assert pacer.frame(watching=True, seated=False, my_turn=False) == pacing.WATCHING_FRAME


async def test_a_front_at_its_cpu_limit_slows_its_spectators_first() -> None:
    """Tried: the front's event loop is held (a blocking sleep, as a redraw hogging the CPU would)
    again and again; each time it is found late, a spectator's frames come half as often, while a
    seated player's and the lobby's keep their pace until the spectators are at their slowest; the
    loop on time again, the spectators speed up step by step."""
    pacer = Pacer()
    seated = {"watching": False, "seated": True, "my_turn": False}
    watching = {"watching": True, "seated": False, "my_turn": False}
    assert pacer.frame(**watching) == pacing.WATCHING_FRAME  # starts timing the loop
    for step in range(1, pacing.MAX_STRAIN + 1):
        time.sleep(pacing.STRAIN_STEP + pacing.LATE + 0.05)  # the loop is held: its next look is late
        await until(lambda step=step: pacer.strain >= step, f"strain step {step}")
        assert pacer.strain == step
        assert pacer.frame(**watching) == min(pacing.WATCHING_FRAME * 2 ** step, pacing.SLOWEST_WATCHING_FRAME)
        if step < pacing.MAX_STRAIN:
            assert pacer.frame(**seated) == pacing.SEATED_FRAME
            assert pacer.frame(watching=False, seated=False, my_turn=False) == pacing.LOBBY_FRAME
    assert pacer.frame(**watching) == pacing.SLOWEST_WATCHING_FRAME
    assert pacer.frame(**seated) == pacing.BUSY_SEATED_FRAME  # only now
    assert pacer.frame(watching=False, seated=True, my_turn=True) == 0  # a player's own turn never waits
    await until(lambda: pacer.strain < pacing.MAX_STRAIN, "a step down once the loop is on time")
    assert pacer.frame(**seated) == pacing.SEATED_FRAME
    assert pacer.frame(**watching) < pacing.SLOWEST_WATCHING_FRAME


async def test_a_login_on_a_front_at_its_cpu_limit_sheds_the_spectators_redraws_at_once() -> None:
    """Tried: a login under way while the front's event loop is found late once (a blocking sleep, as
    redraws hogging the CPU would): a spectator's frames go at once to their longest, past the slowest
    strain step, while a seated player's keep the pace of a login and the player in their turn is drawn
    at once; the login over, the spectator is back on the strain's steps."""
    pacer = Pacer()
    watching = {"watching": True, "seated": False, "my_turn": False}
    assert pacer.frame(**watching) == pacing.WATCHING_FRAME  # starts timing the loop
    pacer.login_started()
    assert pacer.frame(**watching) == pacing.LOGIN_WATCHING_FRAME  # the loop on time: a login's pace
    time.sleep(pacing.LAG_CHECK + pacing.LATE + 0.05)  # the loop is held: its next look is late
    await until(lambda: pacer.late_lately, "the loop found late")
    assert pacer.frame(**watching) == pacing.SHEDDING_WATCHING_FRAME > pacing.SLOWEST_WATCHING_FRAME
    assert pacer.frame(watching=False, seated=True, my_turn=False) == pacing.BUSY_SEATED_FRAME
    assert pacer.frame(watching=False, seated=True, my_turn=True) == 0
    pacer.login_ended()
    assert pacer.frame(**watching) == min(pacing.WATCHING_FRAME * 2 ** pacer.strain, pacing.SLOWEST_WATCHING_FRAME)


async def named_key(rig: Rig, name: str) -> asyncssh.SSHKey:  # noqa: F811
    """A key that owns ``name`` on the server (it entered the lobby under it once)."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    player = await Player.connect(rig, name, key=key)
    await player.until_screen(LobbyScreen, f"{name}'s lobby")
    await player.close()
    await until(lambda: not any(s.owner.username == name for s in rig.front.sessions), "the session to end")
    return key


async def test_a_spectator_held_back_draws_a_burst_of_moves_once_with_every_log_line(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Two TCP players play a whole game while an SSH spectator's next frame is held back (its pace
    waits on the test): every state of the game waits in its link. Let go, the spectator takes the
    states in as one, the last with every event of the others, then refreshes its screen, once: the
    last state's total on the screen, every event taken in (the model's event number is the last
    state's) and every line of the game's log written to the log widget."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    guest = await Client.connect("127.0.0.1", rig.server.port, "gus")
    try:
        await host.send(CreateTable(name="watched", seats=2, private=True, turn_seconds=0))
        code = (await host.expect("table"))["table"]["code"]
        await guest.send(Join(code=code))
        await guest.expect("table")
        key = await named_key(rig, "bea")
        spectator = await Player.connect(rig, f"watch-{code}", key=key)
        await spectator.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None,
                              "the spectator at the table")
        app = spectator.app
        gate = asyncio.Event()
        held = asyncio.Event()

        async def held_pace() -> None:
            held.set()
            await gate.wait()

        monkeypatch.setattr(app, "pace", held_pace)  # the test holds this session's frames
        refreshes: list[int] = []
        handled: list[object] = []
        screen = app.screen
        assert isinstance(screen, TableScreen)
        refresh_model, receive = screen.refresh_model, app.receive

        def counted_refresh(model: Model) -> None:
            refreshes.append(len(handled))
            refresh_model(model)

        def counted_receive(message: Mapping[str, Any]) -> ServerMessage | None:
            handled.append(message)
            return receive(message)

        monkeypatch.setattr(screen, "refresh_model", counted_refresh)  # counted by the test
        monkeypatch.setattr(app, "receive", counted_receive)
        log_before = app.model.log_count
        await host.send(Start())
        winners = await asyncio.wait_for(asyncio.gather(play_client(host, PATIENCE), play_client(guest, PATIENCE)),
                                         PATIENCE)
        await asyncio.wait_for(held.wait(), PATIENCE)
        link = app.link
        assert link is not None

        def queued() -> list[dict[str, Any]]:
            return [m for m in link.inbox._queue if m is not None]  # type: ignore[attr-defined]  # its deque, read

        await until(lambda: any(m.get("t") == "state" and m["view"]["winner"] is not None for m in queued()),
                    "the game's last state waiting in the spectator's link")
        waiting = queued()
        last_seq = max(m["seq"] for m in waiting if m.get("t") == "state")
        states = sum(m.get("t") == "state" for m in waiting)
        before = len(handled)  # the game's first messages may have been drawn before the pace held the frames
        gate.set()
        await spectator.until(lambda a: a.model.view is not None and a.model.view.winner == winners[0],
                              "the spectator to see the game's end")
        assert states > 10
        # the states were taken in as one (with every event): fewer messages than were waiting
        assert len(handled) - before < len(waiting)
        assert app.model.seq == last_seq
        # no refresh inside the batch (those before it drew what came before the pace held)
        assert [r for r in refreshes if before < r < len(handled)] == [] and max(refreshes) == len(handled)
        assert screen._log_written == app.model.log_count > log_before
        assert app.model.view is not None
        assert screen.query_one(TableTop).shown_total == app.model.view.total
        await spectator.close()
    finally:
        await host.close()
        await guest.close()


async def test_a_front_whose_logins_are_all_under_way_says_when_to_come_back(tmp_path: Path) -> None:
    """A front that lets one login wait at a time, held by a login under way: a connection from
    127.0.0.1, marked as its login had begun (a silent one, which would make room, test_ssh.py).
    Tried: a login from 127.0.0.2 is refused with words, the front is busy and in how many seconds
    to try again, not dropped or reset; the login under way keeps its place."""
    rig = await start_rig(tmp_path, ssh=SshSettings(max_waiting_logins=1, max_waiting_logins_per_address=1))  # noqa: F811
    silent = socket.create_connection(("127.0.0.1", rig.front.port))
    try:
        await until(lambda: len(rig.front.waiting) == 1, "the first connection to wait for its login")
        under_way = next(iter(rig.front.connections))
        under_way.authenticating = True
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await asyncssh.connect("127.0.0.1", rig.front.port, username="ada", known_hosts=None, agent_path=None,
                                   config=[], client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
                                   local_addr=("127.0.0.2", 0))
        assert re.match(r"the server is busy, try again in \d+ s\b", refused.value.reason), refused.value.reason
        assert under_way in rig.front.waiting  # the login under way still has its place
    finally:
        silent.close()
        await rig.close()


def cursor_cells(output: bytes) -> tuple[int, int]:
    """The furthest row and column an output moved the cursor to (``ESC [ row ; col H``)."""
    moves = [(int(r), int(c)) for r, c in re.findall(rb"\x1b\[(\d+);(\d+)H", output)]
    return max(r for r, _ in moves), max(c for _, c in moves)


async def test_a_spectator_and_a_player_in_other_languages_and_sizes_each_see_their_own_screen(
        rig: Rig) -> None:  # noqa: F811
    """At one table: Ada plays in German on a 100×30 terminal, Bao watches in Vietnamese on 80×24.
    Tried: each app is laid out at its own terminal's size and draws only within it, and each
    terminal received its own language's words (the title's "spectating" for Bao, the turn line
    for Ada) and not the other's."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    try:
        await host.send(CreateTable(name="mixed", seats=3, private=True, turn_seconds=0))
        code = (await host.expect("table"))["table"]["code"]
        ada_key, bao_key = await named_key(rig, "ada"), await named_key(rig, "bao")
        ada = await Player.connect(rig, f"join-{code}", key=ada_key, size=(100, 30), env={"LANG": "de_DE.UTF-8"})
        bao = await Player.connect(rig, f"watch-{code}", key=bao_key, size=(80, 24), env={"LANG": "vi_VN.UTF-8"})
        for player, what in ((ada, "Ada at the table"), (bao, "Bao watching")):
            await player.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None, what)
        assert ada.app.model.table is not None and ada.app.model.table.you is not None
        await host.send(Start())
        game = asyncio.create_task(play_client(host, PATIENCE))
        await ada.until(lambda a: a.model.view is not None, "Ada's game")
        await bao.until(lambda a: a.model.view is not None, "Bao's game")
        with using("vi"):
            spectating_vi = gettext("spectating")
        with using("de"):
            spectating_de = gettext("spectating")
            your_turn_de = gettext("Your turn")
        assert spectating_vi != spectating_de
        await bao.until_shown(spectating_vi.encode(), "Bao's title in Vietnamese")
        await ada.until(lambda a: a.model.my_turn, "Ada's turn")
        await ada.until_shown(your_turn_de.encode(), "Ada's turn line in German")
        assert spectating_vi.encode() not in ada.output and spectating_de.encode() not in ada.output
        assert your_turn_de.encode() not in bao.output
        assert (ada.app.size.width, ada.app.size.height) == (100, 30)
        assert (bao.app.size.width, bao.app.size.height) == (80, 24)
        bao_rows, bao_columns = cursor_cells(bytes(bao.output))
        ada_rows, ada_columns = cursor_cells(bytes(ada.output))
        assert bao_rows <= 24 and bao_columns <= 80
        assert 24 < ada_rows <= 30 and ada_columns <= 100
        game.cancel()
        for player in (ada, bao):
            await player.close()
    finally:
        await host.close()


BUSY = re.compile(r"the server is busy, try again in \d+ s\b")
ESCAPES = re.compile(rb"\x1b\[[0-9;?$<>=]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


async def log_in(rig: Rig, index: int) -> str:  # noqa: F811
    """One login from an address of its own, with a new key and its user name as the player's name:
    "opened" (the lobby's first line on its terminal), "told: WORDS" (a disconnect reason, or words
    on its terminal and no lobby) or "silent: HOW" (closed or reset with no words)."""
    output = bytearray()
    try:
        async with asyncio.timeout(PATIENCE):
            return await _log_in(rig, index, output)
    except TimeoutError:
        return "silent: no answer"


async def _log_in(rig: Rig, index: int, output: bytearray) -> str:  # noqa: F811
    try:
        conn = await asyncssh.connect("127.0.0.1", rig.front.port, username=f"p{index}", known_hosts=None,
                                      agent_path=None, config=[],
                                      client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
                                      local_addr=(f"127.0.3.{1 + index}", 0))
        async with conn:
            _, stdout, _ = await conn.open_session(term_type="xterm-256color", term_size=(100, 30), encoding=None)
            while b"you are" not in output:
                data = await stdout.read(65536)
                if not data:
                    break
                output += data
    except asyncssh.DisconnectError as exc:
        return f"told: {exc.reason}" if exc.reason.strip() and not isinstance(exc, asyncssh.ConnectionLost) \
            else f"silent: {type(exc).__name__}"
    except OSError as exc:
        return f"silent: {type(exc).__name__}"
    if b"you are" in output:
        return "opened"
    words = " ".join(ESCAPES.sub(b" ", bytes(output)).decode(errors="replace").split())
    return f"told: {words}" if words else "silent: closed with nothing on the terminal"


async def test_a_flood_of_logins_each_opens_its_session_or_is_told_to_come_back(tmp_path: Path) -> None:
    """A front that starts 2 logins at once and lets 4 wait for their key exchange (2 per address).
    Tried: 24 SSH clients (asyncssh, each from an address of its own, with a new key) log in all at
    once. Each either gets its lobby or is told in words that the front is busy and when to come
    back; none is closed or reset without a word. At least one opens (the front is not just refusing),
    and once the flood is over a login opens again (the counts of logins under way came back down)."""
    rig = await start_rig(tmp_path, ssh=SshSettings(max_starting_logins=2, max_waiting_logins=4,  # noqa: F811
                                                    max_waiting_logins_per_address=2))
    try:
        outcomes = await asyncio.gather(*(log_in(rig, i) for i in range(24)))
        silent = [o for o in outcomes if o.startswith("silent")]
        assert not silent, outcomes
        told = [o.removeprefix("told: ") for o in outcomes if o.startswith("told")]
        assert all(BUSY.search(words) for words in told), told
        assert "opened" in outcomes, outcomes
        await until(lambda: not rig.front.starting and not rig.front.waiting, "the logins under way to end")
        assert await log_in(rig, 200) == "opened"
    finally:
        await rig.close()


async def test_a_session_whose_first_screen_is_late_is_told_to_come_back(tmp_path: Path) -> None:
    """A front with a 3 s login timeout whose links to the game server are all taken (the test holds
    every place of the front's opening semaphore): a login gets its session, but its app cannot say
    hello to the lobby. Tried: before the timeout, the client's terminal shows that the server is
    busy and when to come back, and the session ends; it is not left waiting silently. Let go, the
    front starts logins again: the next one opens."""
    rig = await start_rig(tmp_path, ssh=SshSettings(login_timeout=3.0))  # noqa: F811
    rig.front.config.shared_link = False  # a connection per player: the semaphore is what they wait for
    held = 0
    try:
        while not rig.front.opening.locked():
            await rig.front.opening.acquire()
            held += 1
        outcome = await log_in(rig, 0)
        assert outcome.startswith("told: "), outcome
        assert BUSY.search(outcome), outcome
        await until(lambda: not rig.front.starting, "the late login to stop counting as starting")
    finally:
        for _ in range(held):
            rig.front.opening.release()
    try:
        assert await log_in(rig, 1) == "opened"
    finally:
        await rig.close()

"""The plain mode, read as a screen reader gets it: the real ``ono99`` in a real terminal (tmux),
and the real OpenSSH client in tmux against the SSH front, each output read from the bytes the
program wrote (``tmux pipe-pane``), split into lines; keys typed with ``tmux send-keys``. A scripted
player reads only those lines and types commands, as a person who cannot see the screen would.

What is checked: the exact sentences of a seeded game, that nothing is ever rewritten (no escape
sequence, no carriage return but a line's end, no backspace), that a whole game can be played to its
end, in each language, locally and over SSH at a table with a sighted player, and what a seated player
needs besides: the lobby, seats, the clock's warnings, the manual draw, watching, chat and coming back
after a dropped connection. Waits are for lines to arrive, never timings.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import CreateTable, Join, Leave, Request, Say, Start
from ono99_kernel.wire.server import decode_server_message
from ono99_server.connection import Connection
from ono99_server.table_room import Table
from ono99_tui.client.connection import Client
from ono99_tui.i18n import LANGUAGES, using
from ono99_tui.i18n import gettext as _
from ono99_tui.plain.console import Console, plain_text
from ono99_tui.plain.lines import PlainSession
from tests.plain_rig import Pane, connect_command, move_for, playable_card, rewrites, seeded_ono99
from tests.server_helpers import ROOT, play_client, running_server, wait_until
from tests.test_architecture import loaded_after_importing, modules_under
from tests.test_ssh import Rig, start_rig

DATA = ROOT / "tests" / "data" / "plain"
SEED = 7  # the deals of the scripted local game (tests/plain_launch.py)
SENTENCE_ENDS = ".!?।…"


def words(lang: str) -> dict[str, str]:
    """The sentences the scripted player looks for, in ``lang``."""
    with using(lang):
        return {
            "hand": _("Your cards: {cards}.").split("{cards}")[0],
            "not playable": _("{n}, {card}, not playable").split("{card}, ")[1],
            "local end": _("Type r to play again, or n and Enter for a new game."),
            "yes or no": _("Type y for yes, n for no."),
            "bye": _("Bye."),
            "discard four": _("Type f to discard four ONO 99 cards."),
        }


async def play_to_the_end(pane: Pane, lang: str, end: str) -> int:
    """Play the first card the hand line does not mark as not playable, at each turn (or, holding four
    ONO 99 cards and nothing else to play, discard them, as the plain mode offers), until the line
    ``end``; the number of moves made."""
    said = words(lang)
    played = 0
    while True:
        line = await pane.wait_line(lambda text: text.startswith(said["hand"]) or text == end, "a turn or the end")
        if line == end:
            return played
        await pane.keys(await move_for(pane, line, said["not playable"], said["discard four"]))
        played += 1


async def local_game(tmp_path: Path, lang: str) -> list[str]:
    """The seeded local game in ``lang``, played to its end and quit: every line the program wrote."""
    said = words(lang)
    pane = Pane(tmp_path)
    await pane.start(seeded_ono99(SEED, "--lang", lang, "play", "--plain", "--bot-delay", "0", "--name", "Kim"),
                     env={"ONO99_CONFIG_DIR": str(tmp_path / "config")})
    try:
        assert await play_to_the_end(pane, lang, said["local end"]) > 0
        await pane.keys("q")
        await pane.wait_line(said["yes or no"])
        await pane.keys("y")
        await pane.wait_line(said["bye"])
        await pane.wait_exit()
        assert rewrites(pane.stream) == [], "nothing is moved back over or redrawn"
        return pane.lines()
    finally:
        await pane.close()


# --- a local game, in lines ----------------------------------------------------------------------------
async def test_a_seeded_local_game_is_said_in_these_sentences_and_never_redrawn(tmp_path: Path) -> None:
    """``ono99 play --plain`` in tmux, a scripted player reading its lines: the whole game, word for word.
    A change meant to alter the words (or the game: the deal, the greedy bot) writes the transcript
    anew with ``python -m tests.test_plain``; read it before committing it."""
    lines = await local_game(tmp_path, "en")
    expected = (DATA / "local-game-en.txt").read_text(encoding="utf-8").splitlines()
    assert lines == expected
    assert all(line[-1] in SENTENCE_ENDS for line in lines), "every line is a whole sentence"


@pytest.mark.parametrize("lang", [code for code in LANGUAGES if code != "en"])
async def test_the_same_game_is_said_in_each_language(tmp_path: Path, lang: str) -> None:
    """The seeded game again, in another language: played to its end by reading that language's
    lines; as many lines as in English (the same game), none of them English, each a sentence."""
    lines = await local_game(tmp_path, lang)
    english = (DATA / "local-game-en.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(english)
    assert [line for line, said in zip(lines, english, strict=True) if line == said] == []
    assert all(line[-1] in SENTENCE_ENDS for line in lines)


async def test_a_manual_draw_is_offered_and_taken_with_d(tmp_path: Path) -> None:
    """n manual_draw starts a local game with the option; after your play the draw is yours to take."""
    pane = Pane(tmp_path)
    await pane.start(seeded_ono99(SEED, "play", "--plain", "--bot-delay", "0", "--draw-window", "60", "--name", "Kim"),
                     env={"ONO99_CONFIG_DIR": str(tmp_path / "config")})
    try:
        await pane.wait_line("The players: you, Bot 2, Bot 3, Bot 4.")
        await pane.keys("literal:n 3 manual_draw", "Enter")
        await pane.wait_line("A local game: 2022, manual draw.")
        hand = await pane.wait_line(lambda line: line.startswith("Your cards: "))
        card = playable_card(hand)
        assert card is not None
        await pane.keys(card)
        await pane.wait_line("Type d to draw your card.")
        await pane.keys("d")
        await pane.wait_line(lambda line: line.startswith("You drew "), "the card drawn")
        await pane.keys("d")
        await pane.wait_line("There is no draw to take.")
        await pane.keys("q")
        await pane.wait_line("Quit? This game is not over: it ends here.")
        await pane.keys("y")
        await pane.wait_exit()
        assert rewrites(pane.stream) == []
    finally:
        await pane.close()


async def test_a_1980_knock_out_is_said_right_after_the_hands_outcome(tmp_path: Path) -> None:
    """Found by playing: the summary of how you lost a hand came after the next hand had begun. Now the
    hand's end, your token, the total you faced, your cards and the tokens left come together."""
    pane = Pane(tmp_path)
    await pane.start(seeded_ono99(5, "play", "--plain", "--bot-delay", "0", "--name", "Kim"),
                     env={"ONO99_CONFIG_DIR": str(tmp_path / "config")})
    try:
        await pane.wait_line("The players: you, Bot 2, Bot 3, Bot 4.")
        await pane.keys("literal:n 1980 3", "Enter")
        await pane.wait_line("A local game: 1980, tokens.")
        while True:
            line = await pane.wait_line(lambda text: text.startswith("Your cards: ") or text == "You lost a token.")
            if line == "You lost a token.":
                break
            card = playable_card(line)
            assert card is not None
            await pane.keys(card)
        lines = pane.lines()
        at = pane.read_upto - 1
        assert lines[at - 2:at] == ["You cannot play and lose the hand.", "Hand 1 is over."]
        assert lines[at + 1].startswith("At a total of ") and lines[at + 2].startswith("You held: ")
        assert lines[at + 3] == "Tokens left: 2."
        assert lines[at + 4] == "Hand 2 begins: you play first."
        await pane.keys("q")
        await pane.wait_line("Quit? This game is not over: it ends here.")
        await pane.keys("y")
        await pane.wait_exit()
    finally:
        await pane.close()


def test_a_new_game_typed_before_the_first_one_opens_takes_its_place() -> None:
    """Found by playing: n typed as the local game started made two tables, one after the other. The
    game asked for is the only one."""
    sent: list[Request] = []
    session = PlainSession(Console(lambda text: None), sent.append, lambda: None, local=True)
    session.command("n 1980 3")
    session.receive(decode_server_message({"t": "welcome", "version": 2, "server": "local", "name": "Kim",
                                           "resume": "r", "resumed": False, "table": None}))
    wire = [m.to_wire() for m in sent]
    assert [(m["t"], m.get("edition"), m.get("seats")) for m in wire] == [("create_table", "1980", 3)]


def finished_game_messages(status: str) -> list[dict[str, object]]:
    """A welcome, a table of two (you in seat 1, its host) whose status is ``status``, and the last state
    of its game: Bot 2 won."""
    seats = [{"kind": "human", "name": "Kim", "level": None, "connected": True},
             {"kind": "bot", "name": "Bot 2", "level": "greedy", "connected": None}]
    table = {"id": 1, "name": "t", "edition": "2022", "options": {}, "summary": "2022", "host": "Kim",
             "status": status, "private": False, "seats": seats, "free": 0, "bots": 1, "spectators": 0,
             "replace_bots": False, "turn_seconds": 0, "bot_level": "greedy", "game_no": 1, "winner": None,
             "code": None, "you": 0, "watchers": [], "waiting": []}
    view = {"edition": "2022", "options": {}, "seats": 2, "seat": 0, "hand": [], "legal": [], "unplayable": [],
            "hand_number": 0, "version": 9, "total": 95, "direction": 1, "turn": None, "obligation": None,
            "hand_sizes": [0, 4], "active": [False, True], "in_hand": [False, True], "open_draws": [False, False],
            "missed_draws": [0, 0], "tokens": None, "scores": None, "draw_pile_size": 80, "discard_size": 20,
            "top_card": "5", "winner": 1, "ranking": [1, 0]}
    return [{"t": "welcome", "version": 2, "server": "S", "name": "Kim", "resume": "r", "resumed": False,
             "table": 1},
            {"t": "table", "table": table},
            {"t": "state", "table": 1, "game_no": 1, "view": view, "events": [{"e": "game_over", "winner": 1}],
             "seq": 30, "clock": None, "controlled_by_bot": [False, False]}]


def test_leaving_as_the_ranking_is_said_is_not_asked_about() -> None:
    """Found by playing: x typed on hearing the ranking asked whether to leave a running game, when the
    table's word that the game is over had not come yet. The game's last state is enough."""
    out: list[str] = []
    sent: list[Request] = []
    session = PlainSession(Console(out.append, newline="\r\n"), sent.append, lambda: None)
    for message in finished_game_messages("playing"):
        session.receive(decode_server_message(message))
    assert out[-2:] == ["Ranking: 1, Bot 2; 2, you.\r\n",
                        "Type r to play again, x to leave the table, or p to play now.\r\n"]
    session.key("x")
    assert sent == [Leave()]


@pytest.mark.parametrize("source", ["pipe", "file"])
async def test_lines_from_a_pipe_or_a_file_are_commands_and_the_answer_is_plain_lines_too(tmp_path: Path,
                                                                                          source: str) -> None:
    """ono99 --plain reading a pipe or a file, not a terminal: each line is a command (typed ahead of
    the game, they wait for it), and what comes out is lines with nothing for a terminal in them."""
    commands = tmp_path / "commands"
    commands.write_bytes(b"h\nq\ny\n")
    with commands.open("rb") as file:
        proc = await asyncio.create_subprocess_exec(  # the seeded deal: Bot 4 plays first, the hand is asked for
            sys.executable, str(ROOT / "tests" / "plain_launch.py"), str(SEED), "--lang", "en", "--plain",
            stdin=asyncio.subprocess.PIPE if source == "pipe" else file,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "ONO99_CONFIG_DIR": str(tmp_path / "config")})
        out, err = await asyncio.wait_for(proc.communicate(commands.read_bytes() if source == "pipe" else None), 60)
    lines = out.decode().split("\n")
    assert proc.returncode == 0, err.decode()
    assert lines[:2] == ["Starting a local game…", "A local game: 2022."]
    hand = lines.index("The game begins: Bot 4 plays first.") + 1
    assert lines[hand] == "Your cards: 1, nine; 2, eight; 3, Reverse; 4, nine."
    assert lines[hand + 1:hand + 5] == ["Quit? This game is not over: it ends here.", "Type y for yes, n for no.",
                                        "Bye.", ""]
    assert rewrites(out) == []


async def test_connect_plain_needs_an_address() -> None:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "ono99_tui.cli", "connect", "--plain",
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    assert err.decode() == ("ono99 connect: --plain needs the server's address: ono99 connect --plain "
                            "HOST[:PORT]\n")


# --- the console ----------------------------------------------------------------------------------------
def test_a_line_half_typed_when_a_sentence_arrives_is_written_again_after_it() -> None:
    """The sentence comes on a line of its own; what was typed is written again below it, and Enter
    sends all of it. Nothing is erased or moved."""
    out: list[str] = []
    lines: list[str] = []
    console = Console(out.append, newline="\r\n")
    console.on_line = lines.append
    console.feed("j K7")
    console.say("Bot 2 played seven, total 7.")
    console.feed("QX2M\r")
    assert "".join(out) == "j K7\r\nBot 2 played seven, total 7.\r\nj K7QX2M\r\n"
    assert lines == ["j K7QX2M"]


def test_arrow_keys_are_skipped_and_escape_cancels_the_line() -> None:
    out: list[str] = []
    keys: list[str] = []
    lines: list[str] = []
    console = Console(out.append, newline="\r\n")

    def on_key(key: str) -> bool:
        keys.append(key)
        return key == "t"

    console.on_key = on_key
    console.on_line = lines.append
    console.feed("\x1b[A\x1bOBt")  # up, down (two forms), then t, a key that acts alone
    console.feed("c hel\x1bt")  # a line cancelled by Esc, then t again
    assert keys == ["t", "c", "t"] and lines == []
    assert "\x1b" not in "".join(out)


def test_another_players_name_and_chat_are_said_as_plain_text() -> None:
    """Escape sequences, carriage returns and bidirectional overrides in a name or a chat line are not
    passed to the terminal; a Devanagari name keeps its joiners."""
    out: list[str] = []

    async def run() -> None:
        session = PlainSession(Console(out.append, newline="\r\n"), lambda message: None, lambda: None)
        for message in ({"t": "welcome", "version": 2, "server": "S", "name": "Kim", "resume": "r", "resumed": False,
                         "table": None},
                        {"t": "chat", "scope": "lobby", "table": None, "id": 1, "from": "Ev\x1b[2Jil\u202e",
                         "text": "hi\r\x1b]0;owned\x07 there", "at": 0.0},
                        {"t": "chat", "scope": "lobby", "table": None, "id": 2, "from": "क्\u200dष", "text": "नमस्ते",
                         "at": 0.0}):
            session.receive(decode_server_message(message))

    asyncio.run(run())
    said = "".join(out)
    assert "Ev[2Jil says: hi]0;owned there\r\n" in said and "\x1b" not in said and "\u202e" not in said
    assert "क्\u200dष says: नमस्ते" in said
    assert plain_text("a\x00b\x7fc\x9bd") == "abcd"


# --- the layers -----------------------------------------------------------------------------------------
def test_the_plain_mode_loads_neither_textual_nor_the_game_server() -> None:
    """A client like the app, and lighter: no Textual, and the game server only through a link."""
    loaded = loaded_after_importing([*modules_under("ono99_tui.plain"), "ono99_tui.local_game"])
    assert "ono99_tui.plain.lines" in loaded
    assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}
    assert not {m for m in loaded if m == "server" or m.startswith("server.")}
    for path in (ROOT / "ono99_tui" / "plain").rglob("*.py"):
        assert "import server" not in path.read_text() and "from server" not in path.read_text()


# --- a server, over TLS -------------------------------------------------------------------------------------

DROP_GAME_SEED = 1  # the deal of the dropped-connection game (a random one once dealt Kim four ONO 99 cards)


@pytest.mark.long
async def test_connect_plain_asks_about_a_first_visit_warns_of_the_clock_and_comes_back_after_a_drop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ono99 connect --plain: the fingerprint question, a table with a bot, the clock's warnings at 10
    and 5 seconds of a 12-second turn, the clock running out said to Kim as Kim's ("Your clock ran out",
    "A bot played … for you", never "Kim's clock" nor "You played"), and after the server cuts the
    connection, the same seat again and the game played to its end. The deal is fixed
    (``DROP_GAME_SEED``), as the scripted games' are: the server draws a table's seed with
    ``secrets.randbits``."""
    monkeypatch.setattr("ono99_server.table_room.secrets.randbits", lambda bits: DROP_GAME_SEED)
    async with running_server(tmp_path, default_turn_seconds=12, grace_seconds=120) as h:
        pane = Pane(tmp_path)
        await pane.connect(h.port, tmp_path)
        try:
            await pane.wait_line(f"This is your first visit to 127.0.0.1:{h.port}.")
            await pane.wait_line(f"Its certificate's fingerprint is {h.server.fingerprint}.")
            await pane.trust_the_server()
            await pane.wait_line("Welcome to ONO 99, Kim.")
            await pane.wait_line("No table is open.")
            await pane.keys("literal:n 2", "Enter")
            await pane.wait_line("You sit at Kim's table, in seat 1 of 2.")
            await pane.wait_line("The game has not started: type s to start it; empty seats get bots.")
            await pane.keys("s")
            await pane.wait_line("The players: you, Bot 2.")
            await pane.wait_line(lambda line: line.startswith("Your cards: "), "Kim's first turn")
            await pane.wait_line("10 seconds left.")
            await pane.wait_line("5 seconds left.")
            # Kim's own clock ran out: it is said to Kim, and the bot's move as the bot's, not "You played"
            await pane.wait_line(lambda line: line.startswith("Your clock ran out: the greedy bot played "))
            await pane.wait_line(lambda line: line.startswith("A bot played ") and line.count(" for you. ") == 1)
            assert not any(line.startswith("You played ") for line in pane.lines()), pane.lines()[-8:]

            member = h.server.lobby.members["Kim"]
            connection, table = member.connection, member.table
            assert isinstance(connection, Connection) and isinstance(table, Table)
            table.set_paused(True)  # the stand-in bot waits too: the game is still on when Kim is back
            connection.writer.transport.abort()  # the network drops; the seat waits for its player
            await pane.wait_line(lambda line: line.startswith("The connection was lost; trying again in 0."))
            await pane.wait_line("Connected again.")
            await wait_until(lambda: member.connection is not None and member.connection is not connection,
                             "Kim back at the server")
            assert member.table is table
            table.set_paused(False)
            played = await play_to_the_end(pane, "en", "Type r to play again, x to leave the table, or p to play now.")
            assert played > 0
            await pane.keys("x")  # the game is over: nothing to ask
            await pane.wait_line("You left the table and are in the lobby.")
            await pane.keys("q")
            await pane.wait_line("Quit ONO 99?")
            await pane.keys("y")
            await pane.wait_exit()
            assert rewrites(pane.stream) == []
        finally:
            await pane.close()


@pytest.mark.parametrize("stdin", ["devnull", "pipe"])
async def test_connect_plain_with_its_input_at_an_end_says_so_and_ends(tmp_path: Path, stdin: str) -> None:
    """Tried: the real ``ono99 connect --plain`` to a real server over TLS, its fingerprint given,
    with /dev/null as its input (which cannot be watched: read at once), and with a pipe that sends
    "l" (the table list) then closes. Before, it waited after the welcome for keys that could never
    come and never exited; now what was typed is read, then it says the input ended, says goodbye,
    leaves the server and exits with 0."""
    async with running_server(tmp_path) as h:
        command = shlex.split(connect_command(h.port, tmp_path / "kim", "--server-fingerprint",
                                              h.server.fingerprint, "--lang", "en"))
        proc = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.DEVNULL if stdin == "devnull" else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            env={**os.environ, "ONO99_CONFIG_DIR": str(tmp_path / "cfg")})
        try:
            out, _err = await asyncio.wait_for(proc.communicate(b"l\n" if stdin == "pipe" else None), 60)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        lines = out.decode().splitlines()
        assert proc.returncode == 0, lines
        assert lines[-1] == "Bye.", lines
        assert lines.index("Welcome to ONO 99, Kim.") < lines.index("Your input has ended, so this session ends.")
        await wait_until(lambda: "Kim" not in h.server.lobby.members, "Kim gone from the server")


async def test_a_second_window_takes_the_seat_and_the_first_takes_it_back_only_when_asked(tmp_path: Path) -> None:
    async with running_server(tmp_path) as h:
        first, second = Pane(tmp_path, "first"), Pane(tmp_path, "second")
        command = connect_command(h.port, tmp_path / "kim", "--server-fingerprint", h.server.fingerprint)
        try:
            await first.start(command, env={"ONO99_CONFIG_DIR": str(tmp_path / "cfg")})
            await first.wait_line("Welcome to ONO 99, Kim.")
            await second.start(command, env={"ONO99_CONFIG_DIR": str(tmp_path / "cfg")})
            await second.wait_line("Welcome to ONO 99, Kim.")
            await first.wait_line("You connected again from elsewhere; this window is closed.")
            await first.wait_line("Type t to take your seat back here, or q to quit.")
            await first.keys("l")
            await first.wait_line("Type t to take your seat back here, or q to quit.")
            await first.keys("t")
            await first.wait_line("Connected again.")
            await second.wait_line("You connected again from elsewhere; this window is closed.")
            await second.keys("q")
            await second.wait_line("Bye.")
            await second.wait_exit()
        finally:
            await first.close()
            await second.close()


# --- ssh plain@HOST, with the real OpenSSH client ----------------------------------------------------------
def ssh_command(rig: Rig, key_path: Path | None, user: str, *options: str) -> str:
    key = ["-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-i", str(key_path)] if key_path else \
        ["-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=keyboard-interactive"]
    return shlex.join(["ssh", "-F", "/dev/null", "-p", str(rig.front.port), "-o", "StrictHostKeyChecking=no",
                       "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", *key, *options,
                       f"{user}@127.0.0.1"])


def new_key(tmp_path: Path, name: str) -> Path:
    key = asyncssh.generate_private_key("ssh-ed25519")
    path = tmp_path / name
    path.write_bytes(key.export_private_key())
    path.chmod(0o600)
    return path


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    assert shutil.which("ssh") and shutil.which("tmux"), "ssh and tmux are part of the test machine"
    rig = await start_rig(tmp_path)
    try:
        yield rig
    finally:
        await rig.close()


async def test_ssh_plain_plays_a_whole_game_at_a_table_with_a_sighted_friend(rig: Rig, tmp_path: Path) -> None:
    """ssh plain@HOST: a name, a table of one's own, a friend with the app's protocol client sits
    down and chats (with an escape sequence in it), the game played to its end by reading lines."""
    pane = Pane(tmp_path)
    friend = None
    try:
        await pane.start(ssh_command(rig, new_key(tmp_path, "ann_key"), "plain"))
        await pane.wait_line("Type your name for the tables and press Enter.")
        await pane.keys("literal:Ann", "Enter")
        await pane.wait_line("Welcome to ONO 99, Ann.")
        await pane.wait_line("You are in the lobby.")
        await pane.keys("literal:n 3", "Enter")
        await pane.wait_line("You sit at Ann's table, in seat 1 of 3.")
        friend = await Client.connect("127.0.0.1", rig.server.port, "tess")
        tables = await friend.expect("tables", where=lambda m: bool(m["tables"]))
        await friend.send(Join(table=tables["tables"][0]["id"]))
        await friend.expect("table")
        await pane.wait_line("tess sat down in seat 2.")
        await friend.send(Say(text="hello \x1b[2J Ann", scope="table"))
        await pane.wait_line(lambda line: line.startswith("tess says: hello") and line.endswith("Ann"))
        await pane.keys("w")
        await pane.wait_line("Seat 1: you, host.")
        await pane.wait_line("Seat 2: tess.")
        await pane.wait_line("Seat 3: empty.")
        await pane.keys("s")
        await pane.wait_line("The players: you, tess, Bot 3.")
        friend_game = asyncio.create_task(play_client(friend))
        played = await play_to_the_end(pane, "en", "Type r to play again, x to leave the table, or p to play now.")
        assert played > 0
        await asyncio.wait_for(friend_game, 60)
        await pane.keys("q")
        await pane.wait_line("Quit ONO 99?")
        await pane.keys("y")
        await pane.wait_line("Bye. Come back with the same key to keep your seat.")
        await until_no_sessions(rig)
        lines = pane.lines()
        assert any(line.startswith("Ranking: ") for line in lines)
        assert rewrites(pane.stream) == []
    finally:
        if friend is not None:
            await friend.close()
        await pane.close()


async def test_ssh_plain_play_sits_at_the_table_play_now_found_and_the_game_starts(tmp_path: Path) -> None:
    """Found by playing: a table found by play now was said to wait for its start, which it does not."""
    assert shutil.which("ssh") and shutil.which("tmux"), "ssh and tmux are part of the test machine"
    rig = await start_rig(tmp_path, play_now_wait=0.2)
    pane = Pane(tmp_path)
    try:
        await pane.start(ssh_command(rig, new_key(tmp_path, "dee_key"), "plain-play-2"))
        await pane.keys("literal:Dee", "Enter")
        await pane.wait_line("You wait to play now: 2022, 2 seats.")
        await pane.wait_line(lambda line: line.startswith("You sit at the table Play now"))
        assert await pane.wait_line(lambda line: True) == "Its rules: 2022."
        assert await pane.wait_line(lambda line: True) == "The players: you, Bot 2."
        await pane.keys("q", "y")
        await pane.wait_line("Bye. Come back with the same key to keep your seat.")
        await until_no_sessions(rig)
    finally:
        await pane.close()
        await rig.close()


async def until_no_sessions(rig: Rig) -> None:
    await wait_until(lambda: not rig.front.sessions, "the SSH session to end", 60)


async def test_ssh_plain_watch_code_follows_a_game_to_its_end(rig: Rig, tmp_path: Path) -> None:
    """plain-watch-CODE@HOST watches a private table: every play said with its player's name, then the
    ranking and what a spectator may do next."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    pane = Pane(tmp_path)
    try:
        await host.send(CreateTable(name="night", seats=2, bots=1, private=True))
        code = (await host.expect("table"))["table"]["code"]
        await pane.start(ssh_command(rig, None, f"plain-watch-{code}"), env={"LANG": "C.UTF-8"})
        await pane.wait_line("Type your name for the tables and press Enter.")
        await pane.wait_line("Connect with an SSH key to keep your name and your seat between sessions.")
        await pane.keys("literal:Ann", "Enter")
        await pane.wait_line("You are watching the table night.")
        await wait_until(lambda: any(m.name == "Ann" and m.table is not None
                                     for m in rig.server.lobby.members.values()), "Ann watching")
        await host.send(Start())
        await pane.wait_line(lambda line: line.startswith("The game begins: "))
        await asyncio.wait_for(play_client(host), 60)
        await pane.wait_line(lambda line: line.startswith("tess played ") or line.startswith("Bot 2 played "))
        await pane.wait_line(lambda line: line.startswith("Ranking: 1, "))
        await pane.wait_line("Type u to sit down at the next game, or x to leave the table.")
        await pane.keys("h")
        await pane.wait_line("You hold no cards: you are watching.")
        await pane.keys("q", "y")
        await pane.wait_line("Bye.")
        await until_no_sessions(rig)
        assert rewrites(pane.stream) == []
    finally:
        await host.close()
        await pane.close()


async def test_ssh_plain_code_sits_down_and_a_session_without_a_terminal_reads_lines(rig: Rig,
                                                                                      tmp_path: Path) -> None:
    """plain-CODE@HOST sits at the table of the code; ssh -T plain@HOST (no PTY: the client's own
    terminal edits and echoes each line) lists the tables, watches one, leaves it, sits down at it by
    its number and quits, a command a line."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    other = await Client.connect("127.0.0.1", rig.server.port, "uma")
    seated, lined = Pane(tmp_path, "seated"), Pane(tmp_path, "lined")
    try:
        await host.send(CreateTable(name="night", seats=3, private=True))
        code = (await host.expect("table"))["table"]["code"]
        await other.send(CreateTable(name="open", seats=3))
        open_id = (await other.expect("table"))["table"]["id"]  # 2: the private table is 1, listed nowhere
        await seated.start(ssh_command(rig, new_key(tmp_path, "bo_key"), f"plain-{code}"))
        await seated.wait_line("Type your name for the tables and press Enter.")
        await seated.keys("literal:Bo", "Enter")
        await seated.wait_line("You sit at the table night, in seat 2 of 3.")
        await seated.wait_line("The game has not started: tess starts it.")

        await lined.start(ssh_command(rig, new_key(tmp_path, "cy_key"), "plain", "-T"))
        await lined.wait_line("Type your name for the tables and press Enter.")
        await lined.keys("literal:Cy", "Enter")
        await lined.wait_line("Welcome to ONO 99, Cy.")
        await lined.keys("l", "Enter")
        await lined.wait_line(f"Table {open_id}: open, 2022, waiting, 2 of 3 seats free, host uma.")
        await lined.keys(f"literal:s {open_id}", "Enter")
        await lined.wait_line("You are watching the table open.")
        await lined.wait_line("The game has not started: uma starts it.")
        await lined.keys("x", "Enter")
        await lined.wait_line("You left the table and are in the lobby.")
        assert await lined.wait_line(lambda line: True) == "1 table is listed."
        await lined.keys(f"literal:{open_id}", "Enter")
        await lined.wait_line("You sit at the table open, in seat 2 of 3.")
        await lined.keys("q", "Enter")
        await lined.wait_line("Quit ONO 99?")
        await lined.keys("y", "Enter")
        await lined.wait_line("Bye. Come back with the same key to keep your seat.")
        await seated.keys("q", "y")
        await seated.wait_line("Bye. Come back with the same key to keep your seat.")
        await until_no_sessions(rig)
        assert rewrites(seated.stream) == []
    finally:
        await host.close()
        await other.close()
        await seated.close()
        await lined.close()


if __name__ == "__main__":  # write tests/data/plain/local-game-en.txt from a game played now
    import tempfile

    played = asyncio.run(local_game(Path(tempfile.mkdtemp()), "en"))
    (DATA / "local-game-en.txt").write_text("\n".join(played) + "\n", encoding="utf-8")
    print(f"{len(played)} lines written to {DATA / 'local-game-en.txt'}")

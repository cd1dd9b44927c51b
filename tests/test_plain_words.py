"""The plain mode's sentences at a game's end and in other languages, read as a screen reader gets
them: the real ``ono99 --plain`` in tmux (tests/plain_rig.py), or the plain session fed the server's
messages where only its words are in question."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from ono99_tui.client.session import RetryIn, reconnect_delay
from ono99_tui.i18n import gettext as _
from ono99_tui.i18n import using
from ono99_tui.plain.console import Console
from ono99_tui.plain.lines import PlainSession
from ono99_tui.plain.run import PlainClient
from tests.plain_rig import Pane, playable_card, seeded_ono99
from tests.server_helpers import running_server
from tests.test_reconnect_jitter import Fixed

POINTS_SEED = 1  # the deals of a 1980 points match in which Kim drops out in the hand that decides it


async def test_a_1980_points_match_decided_by_the_hand_that_knocks_you_out_says_the_ranking(tmp_path: Path) -> None:
    """A local 1980 points match to 30 points. Tried: in its first hand Kim cannot play and goes over
    30 points, and the others but Bot 2 with them. Found by playing: the plain mode then said "The
    others play on (bots only). Type f to let the bots play fast." about a match already decided. Now
    the hand's outcome and how Kim lost are followed by the winner and the ranking, nothing else."""
    pane = Pane(tmp_path)
    await pane.start(seeded_ono99(POINTS_SEED, "play", "--plain", "--bot-delay", "0", "--name", "Kim"),
                     env={"ONO99_CONFIG_DIR": str(tmp_path / "config")})
    try:
        await pane.wait_line("The players: you, Bot 2, Bot 3, Bot 4.")
        await pane.keys("literal:n 1980 3 scoring=points points_target=30", "Enter")
        await pane.wait_line(lambda line: line.startswith("A local game: 1980, points to 30"), "the match")
        end = "Type r to play again, or n and Enter for a new game."
        while True:
            line = await pane.wait_line(lambda text: text.startswith("Your cards: ") or text == end, "a turn")
            if line == end:
                break
            card = playable_card(line)
            assert card is not None, line
            await pane.keys(card)
        lines = pane.lines()
        at = lines.index(end)
        assert lines[at - 5].startswith("At a total of ") and lines[at - 4].startswith("You held: ")
        assert lines[at - 3].startswith("Your score: ")
        assert lines[at - 2] == "Bot 3 wins the game!"
        assert lines[at - 1].startswith("Ranking: 1, Bot 3, ")
        assert not [line for line in lines if "play on" in line or "play fast" in line]
        await pane.keys("q")
        await pane.wait_line("Quit ONO 99?")
        await pane.keys("y")
        await pane.wait_exit()
    finally:
        await pane.close()


async def test_german_connect_plain_answers_ja_and_names_the_table_in_german(tmp_path: Path) -> None:
    """ono99 --lang de connect --plain to a server never visited. Tried: at the fingerprint question
    Kim types j (ja), as a German reader does; then n 2 makes a table of Kim's. Found by playing: j
    answered no (only y was yes) and the table was "Kim's table" in a German sentence; then the
    sentence said "Du sitzt am Tisch Tisch von Kim" (the name already says Tisch). Now j connects,
    and Kim sits "am Tisch von Kim"."""
    async with running_server(tmp_path) as h:
        pane = Pane(tmp_path)
        await pane.start(shlex.join([sys.executable, "-m", "ono99_tui.cli", "--lang", "de", "connect", "--plain",
                                     f"127.0.0.1:{h.port}", "--data-dir", str(tmp_path / "kim"), "--name", "Kim"]),
                         env={"ONO99_CONFIG_DIR": str(tmp_path / "cfg")})
        try:
            with using("de"):
                question = _("Type y for yes, n for no.")
                welcome = _("Welcome to {server}, {name}.").format(server="ONO 99", name="Kim")
                table = _("{host}'s table").format(host="Kim")
            assert table == "Tisch von Kim"
            seated = "Du sitzt am Tisch von Kim, auf Platz 1 von 2."
            await pane.wait_line(question)
            await pane.keys("j")
            await pane.wait_line(welcome)
            await pane.keys("literal:n 2", "Enter")
            await pane.wait_line(seated)
        finally:
            await pane.close()


@pytest.mark.parametrize(("lang", "yes", "no"), [("en", ["y", "Y", "yes"], ["n", "j", "x", "", "yellow"]),
                                                 ("de", ["j", "ja", "Ja", "y", "yes"], ["n", "nein"]),
                                                 ("gl", ["s", "si", "sí", "y"], ["n", "non"]),
                                                 ("vi", ["c", "có", "co", "y"], ["k", "không"]),
                                                 ("ne", ["हो", "y"], ["n", "होइन", "ह"]),
                                                 ("af", ["j", "ja", "y"], ["n", "nee"])])
def test_a_question_is_answered_yes_with_y_yes_or_the_languages_own_word(lang: str, yes: list[str],
                                                                          no: list[str]) -> None:
    """y, yes, each language's yes and its letter for it (German j, Galician s, Vietnamese c; not a
    letter that begins the word for no, as Nepali's ह does), typed as a line or as a single key,
    answer yes; anything else no."""
    with using(lang):
        for typed in yes + no:
            answers: list[bool] = []
            session = PlainSession(Console(lambda text: None), lambda message: None, lambda: None)
            session.question("?", answers.append)
            if len(typed) == 1:
                session.key(typed)
            else:
                session.command(typed)
            assert answers == [typed in yes], (lang, typed)


async def test_the_wait_before_connecting_again_is_said_in_good_grammar() -> None:
    """Found by playing through a server restart: "trying again in 1 seconds". Tried: the waits of the
    attempts that wait 0.5, 2 and 1 seconds, the player quitting meanwhile (so nothing waits)."""
    said: list[str] = []

    async def never(client: PlainClient) -> Any:
        raise AssertionError("not opened here")

    client = PlainClient(Console(said.append), never, retry_random=Fixed(0.0))  # the steps themselves
    client.quit()
    for attempt in (0, 2, 1):
        await client._wait_to_retry(RetryIn(reconnect_delay(attempt, client.session.client.rng), farewell=False))
    assert said == ["The connection was lost; trying again in 0.5 seconds.\n",
                    "The connection was lost; trying again in 2 seconds.\n",
                    "The connection was lost; trying again in 1 second.\n"]

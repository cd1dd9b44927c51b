"""The plain mode's sentences at a game's end and in other languages, read as a screen reader gets
them: the real ``ono99 --plain`` in tmux (tests/plain_rig.py), or the plain session fed the server's
messages where only its words are in question."""

from __future__ import annotations

from pathlib import Path

from tests.plain_rig import Pane, playable_card, seeded_ono99

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

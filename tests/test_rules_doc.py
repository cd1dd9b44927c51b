"""docs/rules.md is the project's rules reference: the in-app help repeats its card tables, and
the project cites it (not a file that is not in the repository)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ono99_kernel.core.cards import Edition, new_deck
from ono99_tui.tui.rules_text import HELP_MARKDOWN

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"


def found(pattern: str, text: str) -> re.Match[str]:
    """Where the rules say ``pattern``; they must say it."""
    match = re.search(pattern, text)
    assert match is not None, f"docs/rules.md no longer says {pattern!r}"
    return match


def card_table(text: str, tag: str) -> list[list[str]]:
    """The rows of the Markdown table between ``<!-- tag -->`` and ``<!-- /tag -->``."""
    match = re.search(rf"<!-- {tag} -->\n(.*?)<!-- /{tag} -->", text, re.S)
    assert match is not None, f"no table marked {tag}"
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in match.group(1).splitlines() if line.strip()]
    assert rows and all(len(row) == len(rows[0]) for row in rows)
    return rows


@pytest.mark.parametrize("tag", ["cards-2022", "cards-1980", "points-1980"])
def test_the_help_shows_the_card_tables_of_docs_rules_md(tag: str) -> None:
    assert card_table(HELP_MARKDOWN, tag) == card_table(RULES.read_text(encoding="utf-8"), tag)


@pytest.mark.parametrize(("tag", "edition", "size"), [("cards-2022", Edition.E2022, 112),
                                                       ("cards-1980", Edition.E1980, 54)])
def test_the_card_tables_count_the_decks_the_engine_deals(tag: str, edition: Edition, size: int) -> None:
    total = 0
    for row in card_table(RULES.read_text(encoding="utf-8"), tag)[2:]:
        match = re.search(r"\((\d+)\)", row[1])
        total += int(match.group(1)) if match else int(row[1])
    assert total == size == len(new_deck(edition))


def test_the_help_gives_the_points_values_and_points_at_no_file() -> None:
    """A player has the help, not the repository: the values of points scoring are in it, and no path."""
    from ono99_tui.i18n import LANGUAGES, using
    from ono99_tui.tui.rules_text import help_markdown

    for value in ("| 20 |", "| 15 |", "| 25, except"):
        assert value in HELP_MARKDOWN
    for language in LANGUAGES:
        with using(language):
            shown = help_markdown()
        assert not re.search(r"\.md\b|docs/", shown), language
        assert "20" in shown and "25" in shown, language


def test_nothing_cites_a_rules_file_that_is_not_in_the_repository() -> None:
    files = subprocess.run(["git", "ls-files", "*.py", "*.md", "*.toml"], capture_output=True, text=True,
                           cwd=ROOT, check=True).stdout.split()
    citing = []
    for name in files:
        text = (ROOT / name).read_text(encoding="utf-8")
        for stale in ("RULES.md", "DEVELOPERS.md"):
            if re.search(rf"(?<![\w/]){stale}", text) and name != "tests/test_rules_doc.py":
                citing.append(f"{name}: {stale}")
    assert citing == []


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_help_states_the_player_counts_tokens_and_defaults_of_docs_rules_md() -> None:
    """The help is the rules a player has: what docs/rules.md says of the number of players, the tokens,
    the points target and how a points match is won by default, the Play 2 duty and the local game's
    draw window, the help says with the same numbers."""
    rules, shown = one_line(RULES.read_text(encoding="utf-8")), one_line(HELP_MARKDOWN)
    low, high, house = found(r"(\d) to (\d) players; the `eight_players` house rule allows up to (\d)",
                             rules).groups()
    assert f"{low} to {high} players, or up to {house} with the house rule" in shown
    (low_1980, high_1980), = re.findall(r"no 0 or 1 cards; (\d) to (\d) players", rules)
    assert f"{low_1980} to {high_1980} players" in shown
    tokens = found(r"Everyone starts with (\d) tokens", rules).group(1)
    assert f"everyone starts with {tokens} tokens" in shown
    target = found(r"`points_target`, default (\d+)", rules).group(1)
    assert f"“Points target”: {target} unless the table sets another" in shown
    assert "`last_standing` (default)" in rules and "*last standing* (the default)" in shown
    assert "Duties never add up" in rules and "Duties never add up" in shown
    assert "cannot play a second is out too" in rules and "cannot play the second is out too" in shown
    seconds = found(r"a bot waits (\d+) seconds", rules).group(1)
    assert f"a bot waits {seconds} seconds" in shown


def test_the_help_names_every_option_of_docs_rules_md_as_the_new_game_dialog_does_in_every_language() -> None:
    from ono99_kernel.core.options import OPTION_WORDS
    from ono99_tui.i18n import LANGUAGES, gettext, using
    from ono99_tui.tui.rules_text import help_markdown

    named = set(re.findall(r"`([a-z0-9_]+)`", RULES.read_text(encoding="utf-8")))
    assert set(OPTION_WORDS) <= named  # every option of the engine is in the rules
    for language in LANGUAGES:
        with using(language):
            shown = one_line(help_markdown())
            missing = [name for name, words in OPTION_WORDS.items() if one_line(gettext(words.title)) not in shown]
        assert missing == [], language

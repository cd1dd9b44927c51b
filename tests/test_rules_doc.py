"""docs/rules.md is the project's rules reference: the in-app help repeats its card tables, and
the project cites it (not a file that is not in the repository)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ono99_tui.core.cards import Edition, new_deck
from ono99_tui.tui.rules_text import HELP_MARKDOWN

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"


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

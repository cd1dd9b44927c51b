"""Why a card cannot be played, said in the player's language from the key and params a view's
``unplayable`` entry carries (docs/protocol.md, section 7); the server's English words for a key the
client does not know."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from ono99_kernel.core.errors import ILLEGAL_PROBLEMS
from ono99_kernel.wire.server import Unplayable
from ono99_tui.client.labels import card_label
from ono99_tui.i18n import LANGUAGES, gettext, using
from ono99_tui.local_game import open_local_game
from ono99_tui.reasons import unplayable_reason
from ono99_tui.tui.app import make_app
from tests.test_tui import play_until_a_card_is_blocked, wait_until

# Every key the engine puts in a view's unplayable entries, with params as it sends them.
VIEW_KEYS: dict[str, dict[str, str | int]] = {
    "draw_first": {}, "would_make": {"card": 7, "total": 101}, "ono99_2022": {}, "ono99_1980": {},
    "ono99_on_zero": {}, "double_first": {},
}


def entry(why: str, params: dict[str, str | int], reason: str = "the server's words") -> Unplayable:
    return Unplayable(card="7", why=why, params=params, reason=reason)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_key_of_a_views_unplayable_cards_renders_in_every_language(lang: str) -> None:
    for why, params in VIEW_KEYS.items():
        english = ILLEGAL_PROBLEMS[why].format(**params)
        with using(lang):
            said = unplayable_reason(entry(why, params, english))
            assert said == gettext(ILLEGAL_PROBLEMS[why]).format(**params), (lang, why)
        assert (said == english) == (lang == "en"), (lang, why, said)


def test_a_number_card_that_would_pass_the_limit_is_said_with_its_numbers_in_german() -> None:
    with using("de"):
        assert unplayable_reason(entry("would_make", {"card": 7, "total": 101})) == "7 würde 101 ergeben"
        assert unplayable_reason(entry("draw_first", {})) == "zieh zuerst deine Karten"


@pytest.mark.parametrize(("why", "params"), [
    ("held_back", {}),  # a key of a newer server
    ("", {}),  # a server that sends the English reason alone
    ("would_make", {"card": 7}),  # a known key without the params its text names
])
def test_an_unknown_key_falls_back_to_the_servers_english_words(why: str, params: dict[str, str | int]) -> None:
    with using("de"):
        assert unplayable_reason(entry(why, params, "7 is held back")) == "7 is held back"


async def test_a_real_servers_view_says_why_a_card_is_blocked_in_german() -> None:
    """Tried: in a German local game (the embedded server), the key of a card the view lists as
    unplayable is pressed. The screen says why in German, from the entry's key and params; the game does
    not move."""
    app = make_app(bot_delay=0, local_game=open_local_game)
    with using("de"):
        async with app.run_test(size=(80, 24)) as pilot:
            view = await play_until_a_card_is_blocked(pilot, app)
            blocked = view.unplayable[0]
            german = gettext(ILLEGAL_PROBLEMS[blocked.why]).format(**blocked.params)
            assert german != blocked.reason
            await pilot.press(str(view.hand.index(blocked.card) + 1))
            expected = gettext("Can't play {card}: {reason}").format(
                card=card_label(blocked.card, app.model.edition), reason=german)
            await wait_until(pilot, lambda: str(app.screen.query_one("#why", Static).render()) == expected,
                             f"the reason {expected!r}")
            assert app.model.view is not None and app.model.view.version == view.version

"""The waits before coming back after a lost connection are spread by a random fraction, so that the
clients a server's restart dropped together do not all come back in step: the plain client and the
real app under Pilot, each with its random numbers given."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from ono99_tui.client.session import RECONNECT_DELAYS, RECONNECT_JITTER, RetryIn, reconnect_delay
from ono99_tui.plain.console import Console
from ono99_tui.plain.run import PlainClient
from ono99_tui.tui.app import make_app


class Fixed(random.Random):
    """Random numbers that are all ``value``."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


async def never(client: PlainClient) -> Any:
    raise AssertionError("not opened here")


async def plain_waits(rng: random.Random) -> list[str]:
    said: list[str] = []
    client = PlainClient(Console(said.append), never, retry_random=rng)
    client.quit()  # nothing waits
    for attempt in range(len(RECONNECT_DELAYS) + 1):
        await client._wait_to_retry(RetryIn(reconnect_delay(attempt, client.session.client.rng), farewell=False))
    return said


async def test_plain_clients_with_other_random_numbers_wait_other_times_within_the_steps() -> None:
    """Tried: three plain clients seeded 1, 2 and 1 again, over every step of the waits. Before, every
    client waited exactly 0.5, 1, 2… s (all of them retried at once after a restart); now each wait is
    its step made longer by up to half, two clients' waits differ, and the same seed waits the same."""
    first, second, again = await plain_waits(random.Random(1)), await plain_waits(random.Random(2)), \
        await plain_waits(random.Random(1))
    assert first == again and first != second
    for seed in (1, 2, 3, 4):
        rng = random.Random(seed)
        for attempt, base in enumerate((*RECONNECT_DELAYS, RECONNECT_DELAYS[-1])):
            delay = reconnect_delay(attempt, rng)
            assert base <= delay <= round(base * (1 + RECONNECT_JITTER), 1), (attempt, delay)
    assert (await plain_waits(Fixed(0.5)))[2] == "The connection was lost; trying again in 2.5 seconds.\n"


async def test_the_app_waits_its_step_and_a_random_fraction_more() -> None:
    """Tried: the app's third wait (a 2-second step) with random numbers all 0.5: it says and waits
    2.5 s (before, 2 s whatever the numbers)."""
    app = make_app(local=False, name="Ada", open_link=lambda: asyncio.sleep(600), retry_random=Fixed(0.5))
    async with app.run_test(size=(80, 24)) as pilot:
        loop = asyncio.get_running_loop()
        start = loop.time()
        waiting = asyncio.create_task(app._wait_to_retry(RetryIn(reconnect_delay(2, app.client.rng), farewell=False)))
        await pilot.pause()
        assert any("trying again in 2.5 s" in str(note.message) for note in app._notifications), \
            [note.message for note in app._notifications]
        await waiting
        assert loop.time() - start >= 2.5

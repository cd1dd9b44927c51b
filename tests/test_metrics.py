"""The metrics endpoint against real parts: an in-process server with ``metrics_port`` 0 and a real
SQLite file, scraped by a real HTTP client (urllib, in a thread) and read with prometheus_client's
own parser; real TLS players join, play and leave while the gauges follow them."""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from ono99_kernel.fronts import FrontAssertion, new_credential
from ono99_kernel.wire.requests import Hello, Sit, Start
from ono99_server.metrics import JsonLines
from tests.server_helpers import (
    TIMEOUT,
    Harness,
    TestClient,
    create_table,
    new_identity,
    play_client,
    running_server,
    wait_until,
)

FRONT = new_credential()


def get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read().decode()


async def scrape(h: Harness) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics, by name and labels."""
    assert h.server.metrics_endpoint is not None
    status, kind, text = await asyncio.to_thread(get, f"http://127.0.0.1:{h.server.metrics_endpoint.port}/metrics")
    assert status == 200 and kind.startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


async def until_sample(h: Harness, name: str, value: float, labels: tuple[tuple[str, str], ...] = ()) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + TIMEOUT
    while (seen := (await scrape(h)).get((name, labels))) != value:
        assert loop.time() < end, f"{name}{dict(labels)} stayed at {seen}, not {value}"
        await asyncio.sleep(0.05)


async def test_the_gauges_follow_players_joining_and_leaving_and_the_counters_count(tmp_path: Path) -> None:
    async with running_server(tmp_path, metrics_port=0, front_credentials=(FRONT,)) as h:
        samples = await scrape(h)
        assert samples[("ono99_players_online", ())] == 0
        assert samples[("ono99_tables", (("status", "waiting"),))] == 0
        ada = await h.connect("ada", identity=new_identity())
        await until_sample(h, "ono99_players_online", 1)
        ssh_player = await TestClient.connect("127.0.0.1", h.port, "sid", timeout=TIMEOUT, trust=h.trust,
                                              client_name="ono99-ssh/4242",
                                              front=FrontAssertion(FRONT, "198.51.100.4", None))
        h.clients.append(ssh_player)
        samples = await scrape(h)
        assert samples[("ono99_players_online", ())] == 2
        assert samples[("ono99_connections", (("listener", "tcp"),))] == 1
        assert samples[("ono99_connections", (("listener", "ssh"),))] == 1
        assert samples[("ono99_front_sessions", (("front", "ssh"), ("worker", "4242")))] == 1
        await ssh_player.close()
        await until_sample(h, "ono99_players_online", 1)
        await until_sample(h, "ono99_connections", 0, (("listener", "ssh"),))
        # a game: its actions are counted, each of ada's acts is timed to the state that shows it
        table_id = await create_table(ada, seats=2, bots=1)
        await until_sample(h, "ono99_tables", 1, (("status", "waiting"),))
        await ada.send(Start())
        await play_client(ada)
        table = h.server.lobby.tables[table_id]
        await wait_until(lambda: table.status == "finished", "the game's end")
        acted = sum(1 for seat, _ in table.actions if seat == 0)  # ada's: she stayed connected throughout
        samples = await scrape(h)
        assert samples[("ono99_tables", (("status", "finished"),))] == 1
        assert samples[("ono99_actions_total", ())] == len(table.actions) > acted > 0
        assert samples[("ono99_act_to_state_seconds_count", ())] == acted
        assert samples[("ono99_db_write_seconds_count", ())] > 0
        # refusals at the door, by code and why; errors answered to players, by code
        await ada.send(Sit(seat=7))
        await ada.error()
        raw = await h.raw()
        await raw.send(Hello(version=1, name='old'))
        await raw.error()
        samples = await scrape(h)
        assert samples[("ono99_refused_logins_total", (("code", "version_mismatch"), ("why", "")))] == 1
        assert sum(v for (name, _), v in samples.items() if name == "ono99_errors_total") >= 1
        await ada.close()
        await until_sample(h, "ono99_players_online", 0)


async def test_health_answers_ok_and_unknown_paths_are_404(tmp_path: Path) -> None:
    async with running_server(tmp_path, metrics_port=0) as h:
        assert h.server.metrics_endpoint is not None
        base = f"http://127.0.0.1:{h.server.metrics_endpoint.port}"
        assert await asyncio.to_thread(get, f"{base}/health") == (200, "text/plain; charset=utf-8", "ok\n")
        assert (await asyncio.to_thread(get, f"{base}/secrets"))[0] == 404
        logging.getLogger("ono99.test").error("something broke")  # an error in the logs is counted
        samples = await scrape(h)
        assert samples[("ono99_logged_errors_total", (("logger", "ono99.test"),))] == 1
        assert h.server.storage is not None
        h.server.storage.close()  # a database that no longer answers
        status, _, text = await asyncio.to_thread(get, f"{base}/health")
        assert status == 503 and "database" in text


def test_json_log_lines_are_one_object_each() -> None:
    record = logging.LogRecord("ono99.server", logging.WARNING, __file__, 1, "refused %s: %s", ("1.2.3.4", "full"),
                               None)
    entry = json.loads(JsonLines().format(record))
    assert entry["level"] == "warning" and entry["logger"] == "ono99.server"
    assert entry["message"] == "refused 1.2.3.4: full" and entry["at"].endswith("Z")

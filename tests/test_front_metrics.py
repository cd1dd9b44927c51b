"""``ono99_front_sessions`` of a real ``ono99 serve`` with front workers, scraped over HTTP and read
with prometheus_client's own parser."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.server_helpers import ServerProcess, free_port
from tests.test_metrics import get


@pytest.mark.system
async def test_idle_front_workers_each_have_a_sessions_series_at_zero(tmp_path: Path) -> None:
    """Tried: ``ono99 serve`` with two workers serving SSH and the web, nobody connected. Found: no
    ``ono99_front_sessions`` series at all, so the documented alert (a worker missing from it while the
    others fill) fired for every idle worker. Now each worker the banner names has its SSH and web series,
    at 0."""
    metrics_port = free_port()
    server = ServerProcess(tmp_path / "x.db", tmp_path / "serve.log", "--ssh-port", str(free_port()),
                           "--web-port", str(free_port()), "--ssh-workers", "2", "--no-advertise",
                           "--metrics-port", str(metrics_port))
    try:
        await server.start()
        pids = re.search(r"ssh workers: 2 \(pids (\d+), (\d+)\)", "".join(server.banner))
        assert pids is not None, server.banner
        status, _kind, text = await asyncio.to_thread(get, f"http://127.0.0.1:{metrics_port}/metrics")
        assert status == 200
        fronts = {(s.labels["front"], s.labels["worker"]): s.value for family in text_string_to_metric_families(text)
                  for s in family.samples if s.name == "ono99_front_sessions"}
        assert fronts == {(front, pid): 0 for pid in pids.groups() for front in ("ssh", "web")}
    finally:
        await server.stop()

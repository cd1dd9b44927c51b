"""The server's health for a dashboard: Prometheus metrics and ``/health`` on ``--metrics-port``, and
JSON lines for logs (``--log-format json``). docs/server.md, "Running a public host", lists them.

Every server has its own registry (several run in one process in tests), filled by counters and
histograms the server's hooks feed, and by gauges read from the server's state at each scrape. The
endpoint is a small HTTP/1.1 responder on the event loop: a scrape reads the server's state on the
loop that owns it, so it needs no lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client import Counter as PromCounter
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from .moderation import listener_of, session_of

if TYPE_CHECKING:
    from .members import Link, Member
    from .moderation import Moderation
    from .player_session import Session
    from .runner import RunnerHost
    from .storage import Storage
    from .table_room import Table

log = logging.getLogger("ono99.metrics")

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
REQUEST_LIMIT = 8 * 1024  # bytes of a request's head: a scrape's is far smaller
REQUEST_TIMEOUT = 5.0
HEALTH_TIMEOUT = 2.0  # seconds the database gets to answer a health check


class MetricsHost(Protocol):
    """What the metrics read of the lobby: who is online, the tables, the operators' sessions, the store."""

    @property
    def members(self) -> dict[str, Member]: ...

    @property
    def tables(self) -> dict[int, Table]: ...

    @property
    def moderation(self) -> Moderation: ...

    @property
    def storage(self) -> Storage | None: ...


class Metrics:
    """The counters and histograms of one server, and the gauges read from its lobby."""

    def __init__(self, lobby: MetricsHost) -> None:
        self.lobby = lobby
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.actions = PromCounter("ono99_actions", "Game actions applied (players, bots and stand-ins)",
                                   registry=registry)
        self.act_to_state = Histogram("ono99_act_to_state_seconds",
                                      "From a player's act arriving to the state that shows it going out",
                                      buckets=LATENCY_BUCKETS, registry=registry)
        self.db_writes = Histogram("ono99_db_write_seconds", "Database write jobs, from queued to done",
                                   buckets=LATENCY_BUCKETS, registry=registry)
        self.refused = PromCounter("ono99_refused_logins", "Connections refused before or at their hello",
                                   ["code", "why"], registry=registry)
        self.errors = PromCounter("ono99_errors", "Errors answered to players' messages", ["code"], registry=registry)
        self.logged_errors = PromCounter("ono99_logged_errors", "Log records at ERROR or above", ["logger"],
                                         registry=registry)
        self.operator_actions = PromCounter("ono99_operator_actions", "Operators' actions", ["action"],
                                            registry=registry)
        # the (front, worker) pairs of this process's front workers that run now: each has a series, 0
        # while idle (``ono99 serve`` sets it; a worker of another host is known by its sessions only)
        self.front_workers: Callable[[], Iterable[tuple[str, str]]] = tuple
        registry.register(_StateCollector(lobby, self))
        self._acted: dict[int, float] = {}  # table id → loop time its player's act arrived
        self._handler = _ErrorCounter(self)
        lobby.moderation.on_action = lambda action: self.operator_actions.labels(action).inc()
        if lobby.storage is not None:
            lobby.storage.write_observer = self.db_writes.observe

    # --- hooks ----------------------------------------------------------------------------------------
    def error_sent(self, connection: Session, code: str, params: Mapping[str, str | int] | None) -> None:
        if connection.member is None:
            self.refused.labels(code, str((params or {}).get("why", ""))[:32]).inc()
        else:
            self.errors.labels(code).inc()

    @contextlib.contextmanager
    def player_acting(self, table: RunnerHost) -> Iterator[None]:
        """A player's act being applied at ``table``: timed until the state that shows it goes out
        (``state_shown``); an act the rules refuse is not timed."""
        self._acted[table.id] = time.perf_counter()
        try:
            yield
        except BaseException:
            self._acted.pop(table.id, None)
            raise

    def action_applied(self) -> None:
        self.actions.inc()

    def state_shown(self, table: RunnerHost) -> None:
        started = self._acted.pop(table.id, None)
        if started is not None:
            self.act_to_state.observe(time.perf_counter() - started)

    def watch_logs(self) -> None:
        logging.getLogger("ono99").addHandler(self._handler)

    def unwatch_logs(self) -> None:
        logging.getLogger("ono99").removeHandler(self._handler)

    def scrape(self) -> bytes:
        return generate_latest(self.registry)


class _ErrorCounter(logging.Handler):
    def __init__(self, metrics: Metrics) -> None:
        super().__init__(logging.ERROR)
        self.metrics = metrics

    def emit(self, record: logging.LogRecord) -> None:
        self.metrics.logged_errors.labels(record.name).inc()


class _StateCollector(Collector):
    """Gauges read from the server's state at each scrape."""

    def __init__(self, lobby: MetricsHost, metrics: Metrics) -> None:
        self.lobby = lobby
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        lobby = self.lobby
        members = list(lobby.members.values())
        online = GaugeMetricFamily("ono99_players_online", "Players connected now")
        online.add_metric([], sum(1 for m in members if m.connection is not None))
        yield online
        away = GaugeMetricFamily("ono99_players_away", "Players holding a seat while disconnected")
        away.add_metric([], sum(1 for m in members if m.connection is None))
        yield away
        connections = GaugeMetricFamily("ono99_connections", "Players' connections now, by listener",
                                        labels=["listener"])
        by_listener = Counter(listener_of(m.connection) for m in members if m.connection is not None)
        for listener in ("tcp", "ssh", "web", "local"):
            connections.add_metric([listener], by_listener[listener])
        yield connections
        tables = GaugeMetricFamily("ono99_tables", "Tables, by status", labels=["status"])
        statuses = Counter(t.status for t in lobby.tables.values())
        for status in ("waiting", "playing", "finished"):
            tables.add_metric([status], statuses[status])
        yield tables
        fronts = GaugeMetricFamily("ono99_front_sessions", "Sessions of each front worker (by its process id), "
                                   "SSH and web", labels=["front", "worker"])
        sessions = Counter((listener_of(m.connection), front_worker(m.connection)) for m in members
                           if listener_of(m.connection) in ("ssh", "web"))
        for worker in self.metrics.front_workers():
            sessions.setdefault(worker, 0)
        for (front, worker_id), count in sorted(sessions.items()):
            fronts.add_metric([front, worker_id], count)
        yield fronts
        operators = GaugeMetricFamily("ono99_operator_sessions", "Operators' `ono99 admin` sessions now")
        operators.add_metric([], sum(1 for c in lobby.moderation.sessions if not c.closed))
        yield operators


def front_worker(link: Link | None) -> str:
    """The worker a front's link is of: the process id its hello's ``client`` names
    (``ono99-ssh/PID``, ``ono99-web/PID``), else ``""``."""
    session = session_of(link)
    client = session.client_name if session is not None else ""
    return client.partition("/")[2][:16]


# --- the endpoint ----------------------------------------------------------------------------------------
class MetricsEndpoint:
    """``GET /metrics`` (Prometheus text format) and ``GET /health`` (200 when the server takes
    players and its database answers, else 503), on one port."""

    def __init__(self, metrics: Metrics, healthy: Any, host: str, port: int) -> None:
        self.metrics = metrics
        self.healthy = healthy  # async () -> str | None: None when healthy, else what is wrong
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.host, self.port, limit=REQUEST_LIMIT)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT)
            method, _, rest = head.decode("latin-1").partition(" ")
            path = rest.partition(" ")[0].partition("?")[0]
            if method not in ("GET", "HEAD"):
                status, kind, body = "405 Method Not Allowed", "text/plain", b"GET only\n"
            elif path == "/metrics":
                status, kind, body = "200 OK", CONTENT_TYPE_LATEST, self.metrics.scrape()
            elif path == "/health":
                problem = await self.healthy()
                status = "200 OK" if problem is None else "503 Service Unavailable"
                kind, body = "text/plain; charset=utf-8", (problem or "ok").encode() + b"\n"
            else:
                status, kind, body = "404 Not Found", "text/plain", b"/metrics or /health\n"
            writer.write(f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
                         "Connection: close\r\n\r\n".encode() + (body if method == "GET" else b""))
            await asyncio.wait_for(writer.drain(), REQUEST_TIMEOUT)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError, OSError):
            pass
        finally:
            writer.close()


# --- logs as JSON lines ----------------------------------------------------------------------------------
class JsonLines(logging.Formatter):
    """One JSON object a line: ``at`` (ISO 8601, UTC), ``level``, ``logger``, ``message`` and, for an
    exception, ``exception``."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "at": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)

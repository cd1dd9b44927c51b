"""What a server advertises on the local network (DNS-SD service ``_ono99._tcp``), sans I/O.

The TXT record carries the server's name, protocol version, SSH port, the fingerprint of its TLS
certificate and its open tables, so a browser can list servers and tables without connecting. The
fingerprint is only what the server says of itself (anyone on the network can announce anything):
the client checks it against the certificate it is shown, and still asks at a first visit. Everything
in a TXT record comes from the network: ``parse_txt`` checks each value, clamps numbers and strips
control characters.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .fingerprints import FingerprintError, normal_fingerprint
from .protocol import MAX_TABLE_NAME, PROTOCOL_VERSION, clean_text
from .wire.server import TableInfo

SERVICE_TYPE = "_ono99._tcp.local."
TXT_VERSION = "1"
MAX_ADVERTISED_TABLES = 6  # keeps the whole record in one small mDNS packet
MAX_SERVER_NAME = 40
MAX_SUMMARY = 120
MAX_TXT_VALUE = 250  # a TXT string is at most 255 bytes, its key and "=" included
TABLE_STATUSES = ("waiting", "playing", "finished")


class AdvertError(ValueError):
    """A TXT record that is not an ONO 99 advertisement."""


@dataclass(frozen=True, slots=True)
class AdvertisedTable:
    id: int
    name: str
    free: int  # empty seats
    seats: int
    status: str  # one of TABLE_STATUSES
    summary: str  # the rules in words, as the lobby shows them


@dataclass(frozen=True, slots=True)
class Advert:
    """One server's advertisement."""

    name: str
    protocol: int
    ssh_port: int | None
    tables_total: int  # public tables on the server; ``tables`` lists the open ones first
    tables: tuple[AdvertisedTable, ...] = ()
    fingerprint: str | None = None  # of the server's TLS certificate, as announced (None: not announced)

    @property
    def compatible(self) -> bool:
        return self.protocol == PROTOCOL_VERSION


def advert_for(name: str, ssh_port: int | None, tables: Iterable[TableInfo],
               fingerprint: str | None = None) -> Advert:
    """The advertisement of a server named ``name`` whose lobby lists ``tables`` (``Table.info()``):
    public tables only, those waiting for players first."""
    public = [t for t in tables if not t.private]
    order = {"waiting": 0, "playing": 1}
    listed = sorted(public, key=lambda t: (order.get(t.status, 2), -t.free, t.id))
    return Advert(
        name=_text(name, MAX_SERVER_NAME) or "ONO 99",
        protocol=PROTOCOL_VERSION,
        ssh_port=ssh_port,
        tables_total=len(public),
        tables=tuple(AdvertisedTable(id=t.id, name=_text(t.name, MAX_TABLE_NAME), free=t.free, seats=len(t.seats),
                                     status=t.status, summary=_text(t.summary, MAX_SUMMARY))
                     for t in listed[:MAX_ADVERTISED_TABLES]),
        fingerprint=fingerprint,
    )


def to_txt(advert: Advert) -> dict[str, str]:
    """The TXT record's key/value pairs."""
    txt = {
        "txtvers": TXT_VERSION,
        "name": advert.name,
        "proto": str(advert.protocol),
        "ssh": str(advert.ssh_port or 0),
        "tables": str(advert.tables_total),
    }
    if advert.fingerprint is not None:
        txt["tls"] = advert.fingerprint
    for i, table in enumerate(advert.tables):
        txt[f"t{i}"] = _encode_table(table)
    return txt


def _encode_table(table: AdvertisedTable) -> str:
    fields: list[Any] = [table.id, table.name, table.free, table.seats, table.status, table.summary]
    text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    while len(text.encode()) > MAX_TXT_VALUE and fields[5]:  # shorten the summary until it fits
        fields[5] = fields[5][: max(0, len(fields[5]) - 10)].rstrip() + "…" if len(fields[5]) > 10 else ""
        text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    return text


def parse_txt(properties: Mapping[bytes, bytes | None]) -> Advert:
    """An advertisement from a TXT record as zeroconf hands it over; ``AdvertError`` if it is not one."""
    txt = {key.decode("utf-8", "replace").lower(): (value or b"").decode("utf-8", "replace")
           for key, value in properties.items()}
    if txt.get("txtvers") != TXT_VERSION:
        raise AdvertError(f"unknown TXT version {txt.get('txtvers')!r}")
    ssh_port = _number(txt.get("ssh", "0"), 0, 65535)
    tables = []
    for i in range(MAX_ADVERTISED_TABLES):
        value = txt.get(f"t{i}")
        if value is None:
            break
        tables.append(_decode_table(value))
    return Advert(
        name=_text(txt.get("name", ""), MAX_SERVER_NAME) or "ONO 99",
        protocol=_number(txt.get("proto", ""), 0, 1_000_000),
        ssh_port=ssh_port or None,
        tables_total=max(_number(txt.get("tables", "0"), 0, 1_000_000), len(tables)),
        tables=tuple(tables),
        fingerprint=_fingerprint(txt.get("tls")),
    )


def _fingerprint(text: str | None) -> str | None:
    """An announced fingerprint; one that is not a fingerprint is announced as none."""
    if text is None:
        return None
    try:
        return normal_fingerprint(text[:MAX_TXT_VALUE])
    except FingerprintError:
        return None


def _decode_table(value: str) -> AdvertisedTable:
    try:
        fields = json.loads(value)
    except ValueError as exc:
        raise AdvertError(f"a table entry is not JSON: {value[:40]!r}") from exc
    if not isinstance(fields, list) or len(fields) != 6:
        raise AdvertError("a table entry is not a list of six fields")
    table_id, name, free, seats, status, summary = fields
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (table_id, free, seats)) \
            or not all(isinstance(v, str) for v in (name, status, summary)):
        raise AdvertError("a table entry has fields of the wrong type")
    if status not in TABLE_STATUSES:
        raise AdvertError(f"unknown table status {status[:20]!r}")
    seats = min(max(seats, 0), 99)
    return AdvertisedTable(id=table_id, name=_text(name, MAX_TABLE_NAME), free=min(max(free, 0), seats),
                           seats=seats, status=status, summary=_text(summary, MAX_SUMMARY))


def _number(text: str, low: int, high: int) -> int:
    if not text.isascii() or not text.isdigit():
        raise AdvertError(f"{text[:20]!r} is not a number")
    return min(max(int(text), low), high)


def _text(text: str, limit: int) -> str:
    return clean_text(text).strip()[:limit]

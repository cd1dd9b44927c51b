"""Password guessing is slow from one address and from many: the failure throttle with a fake
clock, then a real server over sockets, where a locked-out address is refused without its
password being checked while another address gets in at once."""

from __future__ import annotations

import asyncio
import hmac
import time
from pathlib import Path

import pytest

from ono99_kernel.access import AccessPolicy
from ono99_kernel.protocol import PROTOCOL_VERSION
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.throttle import FailureThrottle, Wait, address_group
from ono99_kernel.tls import client_context
from ono99_kernel.wire.requests import Hello
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from ono99_tui.i18n import using
from ono99_tui.reasons import said
from tests.server_helpers import TIMEOUT, running_server


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def fail(throttle: FailureThrottle, address: str, times: int = 1) -> None:
    for _ in range(times):
        assert throttle.wait(address) is None, "a failure is only counted for an attempt that was checked"
        throttle.failed(address)


def test_an_address_is_locked_out_after_its_free_failures_for_longer_and_longer() -> None:
    clock = FakeClock()
    throttle = FailureThrottle(clock, per_second=1000, burst=1000)  # the cap in all is tested below
    fail(throttle, "198.51.100.7", 3)
    assert throttle.wait("198.51.100.7") is None  # three failures are free
    waits = []
    for _ in range(12):
        fail(throttle, "198.51.100.7")
        wait = throttle.wait("198.51.100.7")
        assert wait is not None and wait.why == "locked"
        waits.append(wait.seconds)
        clock.now += wait.seconds - 0.5
        assert throttle.wait("198.51.100.7") == Wait("locked", 1)  # still locked half a second before the end
        clock.now += 0.5
    assert waits == [2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600, 600]  # doubling, up to the cap


def test_failures_are_forgotten_one_per_ten_minutes_without_one() -> None:
    clock = FakeClock()
    throttle = FailureThrottle(clock, per_second=1000, burst=1000)
    fail(throttle, "198.51.100.7", 3)
    clock.now += 2
    fail(throttle, "198.51.100.7", 1)
    clock.now += 2
    fail(throttle, "198.51.100.7", 1)
    assert throttle.failures("198.51.100.7") == 5 and throttle.wait("198.51.100.7") == Wait("locked", 4)
    clock.now += 600
    assert throttle.failures("198.51.100.7") == 4 and throttle.wait("198.51.100.7") is None
    fail(throttle, "198.51.100.7")  # the fifth again: locked for 4 s, not for 8
    assert throttle.wait("198.51.100.7") == Wait("locked", 4)
    clock.now += 5 * 600
    assert throttle.failures("198.51.100.7") == 0
    fail(throttle, "198.51.100.7", 3)  # free again
    assert throttle.wait("198.51.100.7") is None


def test_a_guesser_who_waits_out_each_lockout_stays_at_the_longest() -> None:
    clock = FakeClock()
    throttle = FailureThrottle(clock, per_second=1000, burst=1000)
    guesses = 0
    while clock.now < 1000 + 24 * 3600:
        wait = throttle.wait("198.51.100.7")
        if wait is None:
            throttle.failed("198.51.100.7")
            guesses += 1
        else:
            clock.now += wait.seconds
    assert guesses < 17 + 23 * 6 + 1  # about 17 in the first hour, then 6 an hour


def test_ipv6_addresses_of_one_64_count_together_and_mapped_ipv4_as_ipv4() -> None:
    assert address_group("2001:db8:1:2:aaaa::1") == address_group("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("::ffff:198.51.100.7") == address_group("198.51.100.7") == "198.51.100.7"
    assert address_group("local") == "local"
    clock = FakeClock()
    throttle = FailureThrottle(clock, per_second=1000, burst=1000)
    for host in range(1, 5):
        fail(throttle, f"2001:db8:1:2::{host}")
    assert throttle.wait("2001:db8:1:2::99") is not None and throttle.wait("2001:db8:1:3::1") is None


def test_the_cap_in_all_refuses_recent_failers_unchecked_and_still_checks_a_fresh_address() -> None:
    clock = FakeClock()
    throttle = FailureThrottle(clock, per_second=2, burst=4)
    for n in range(4):  # four addresses, one failure each: the burst is spent
        fail(throttle, f"203.0.113.{n}")
    assert throttle.wait("203.0.113.0") == Wait("busy", 1)  # not locked out, but it failed recently
    assert throttle.wait("192.0.2.1") is None  # never failed: checked, whatever the others did
    throttle.failed("192.0.2.1")
    assert throttle.wait("192.0.2.1") == Wait("busy", 1)  # now it has failed recently too
    clock.now += 0.5  # one failure's worth of tokens comes back
    assert throttle.wait("203.0.113.0") is None
    fail(throttle, "203.0.113.0")
    assert throttle.wait("203.0.113.1") == Wait("busy", 1)
    clock.now += 600  # a failure forgotten: a fresh address again, checked with the bucket still empty
    throttle.failed("198.18.0.1")
    assert throttle.wait("203.0.113.1") is None


def test_the_policy_refuses_unchecked_while_locked_out_and_says_how_long() -> None:
    clock = FakeClock()
    policy = AccessPolicy("password", password="open sesame", clock=clock)
    for _ in range(4):
        assert policy.decide(None, "guess", "198.51.100.7") == "wrong password"
    refusal = policy.decide(None, "open sesame", "198.51.100.7")  # even the right one: not checked
    assert refusal is not None and refusal.params == {"why": "locked", "seconds": 2}
    assert "wait 2 s" in refusal
    assert policy.decide(None, "open sesame", "198.51.100.8") is None  # another address: in at once
    clock.now += 2
    assert policy.decide(None, "open sesame", "198.51.100.7") is None
    assert policy.decide(None, None, "198.51.100.7") == "this server asks for a password: connect with --password"


async def refused(port: int, address: str, password: str) -> ServerError:
    with pytest.raises(ServerError) as caught:
        await connect_from(port, address, "Eve", password)
    return caught.value


async def connect_from(port: int, address: str, name: str, password: str) -> Client:
    """A hello with ``password`` from the loopback address ``address`` (any 127.0.0.x)."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0),
                                                                    ssl=client_context()),
                                            TIMEOUT)
    client = Client(reader, writer)
    await client.send(Hello(version=PROTOCOL_VERSION, name=name, password=password))
    try:
        message = await client.recv(TIMEOUT)
        if message["t"] == "error":
            raise ServerError.from_wire(message)
        assert message["t"] == "welcome"
        return client
    except BaseException:
        await client.close()
        raise


async def test_a_locked_out_address_is_refused_unchecked_and_another_gets_in_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with running_server(tmp_path, ssh=SshSettings(auth="password", password="open sesame")) as h:
        h.server.access.throttle = FailureThrottle(first_lockout=30)  # long enough for a loaded machine
        guesses = await asyncio.gather(*(refused(h.port, "127.0.0.9", f"guess {n}") for n in range(4)))
        assert [e.error.params for e in guesses] == [{"why": "wrong_password"}] * 4
        compared: list[bytes] = []
        compare = hmac.compare_digest

        def counted(a: bytes, b: bytes) -> bool:
            compared.append(a)
            return compare(a, b)

        monkeypatch.setattr(hmac, "compare_digest", counted)  # the module ono99_kernel/access.py calls
        started = time.monotonic()
        locked = await refused(h.port, "127.0.0.9", "open sesame")  # the right password, during the lockout
        assert time.monotonic() - started < 0.9  # at once: no pause of a checked wrong password
        assert compared == []  # the password was not compared
        params = locked.error.params
        assert locked.code == "access_denied" and params["why"] == "locked"
        assert 25 <= int(params["seconds"]) <= 30 and f"wait {params['seconds']} s" in locked.reason
        with using("de"):
            assert said(locked.error) == f"zu viele falsche Passwörter von deiner Adresse: warte {params['seconds']} " \
                                         "s, bevor du es wieder versuchst"
        started = time.monotonic()
        ada = await connect_from(h.port, "127.0.0.10", "Ada", "open sesame")
        assert time.monotonic() - started < 0.9 and compared == [b"open sesame"]
        await ada.close()

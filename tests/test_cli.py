"""The ``ono99`` command line: a bad argument gets one line on stderr and exit code 2, before any
screen opens; ``--version`` answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ono99_tui.cli import version

ROOT = Path(__file__).resolve().parent.parent


def ono99(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ono99_tui.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(("args", "words"), [
    (["connect", "127.0.0.1:99999"], "99999"),
    (["connect", "127.0.0.1:port"], "port"),
    (["serve", "--port", "99999"], "99999"),
    (["serve", "--ssh-port", "70000"], "70000"),
    (["play", "--name", ""], "1 to 20 characters"),
    (["play", "--name", "x" * 21], "1 to 20 characters"),
    (["play", "--bot-delay", "1e9"], "0 to 10"),
    (["play", "--bot-delay", "-1"], "0 to 10"),
    (["play", "--bot-delay", "nan"], "0 to 10"),
    (["play", "--draw-window", "1000"], "0 to 60"),
    (["serve", "--bot-delay", "1e9"], "0 to 10"),
    (["records"], "records check"),
    (["nonsense"], "nonsense"),
])
def test_a_bad_argument_is_one_line_on_stderr_and_exit_code_2(args: list[str], words: str) -> None:
    out = ono99(*args)
    assert out.returncode == 2, out
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_version_prints_the_version() -> None:
    out = ono99("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"ono99 {version()}" and version() != "unknown"


def test_records_check_of_an_empty_file_is_not_a_success(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    out = ono99("records", "check", str(empty))
    assert out.returncode == 1
    assert "holds no records" in out.stderr


def test_simulate_with_one_player_names_the_real_problem() -> None:
    out = ono99("simulate", "--players", "1", "--games", "1")
    assert out.returncode == 2
    assert "seats 2 to 6 players" in " ".join(out.stderr.split())
    assert "for 1 players" not in out.stderr


def test_simulate_help_says_95_percent_once() -> None:
    out = ono99("simulate", "--help")
    assert "95%" in out.stdout and "95%%" not in out.stdout


def test_a_name_over_the_limit_in_simulate_bots_uses_singular_and_plural() -> None:
    out = ono99("simulate", "--players", "2", "--bots", "greedy,random,random", "--games", "1")
    assert out.returncode == 2
    assert "names 3 bots for 2 players" in out.stderr


def test_the_default_name_is_the_login_name_never_you(monkeypatch: pytest.MonkeyPatch) -> None:
    import getpass

    from ono99_tui.cli import _settings_and_name

    monkeypatch.setattr(getpass, "getuser", lambda: "ada")
    assert _settings_and_name(None)[1] == "ada"
    assert _settings_and_name("Bo")[1] == "Bo"
    assert _settings_and_name(None)[1] == "Bo"  # remembered


def closed_port() -> int:
    """A port on this machine where nothing listens (bound, then let go)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(("address", "words"), [
    ("nosuchhost.invalid", "Cannot find the host nosuchhost.invalid"),
    (None, "Nothing answers at 127.0.0.1:"),
])
def test_connect_to_a_server_that_cannot_be_reached_is_one_line_and_exit_code_2(address: str | None, words: str,
                                                                                 tmp_path: Path) -> None:
    """No full-screen app for an address that is wrong: one line on stderr, as other errors are,
    in words (no errno)."""
    target = address or f"127.0.0.1:{closed_port()}"
    out = subprocess.run([sys.executable, "-m", "ono99_tui.cli", "connect", target], capture_output=True, text=True,
                         cwd=ROOT, timeout=60, stdin=subprocess.DEVNULL,
                         env={**os.environ, "ONO99_DATA_DIR": str(tmp_path)})
    assert out.returncode == 2, out
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ono99 connect: ") and words in lines[0], out.stderr
    assert "Errno" not in out.stderr and "\x1b" not in out.stdout + out.stderr

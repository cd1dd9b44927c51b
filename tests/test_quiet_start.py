"""Commands print nothing on stderr but their own words: no library's warnings before the first line.

asyncssh's import made cryptography warn five times ("DSA is deprecated"), ten lines on stderr ahead of
``ono99 --plain``'s first sentence, ``ono99 connect``'s one-line error and ``ono99 serve``'s banner. The
children run with every warning shown (``-W always``), so any warning an import prints fails here, and
only the one asyncssh triggers is silenced (``ono99_kernel/ssh_library.py``).
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def python(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-W", "always", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def test_importing_every_module_that_uses_asyncssh_prints_nothing() -> None:
    """Tried: the client's, the SSH front's and the server's modules that import asyncssh, warnings on."""
    out = python("-c", "import ono99_tui.cli, ono99_kernel.access, ono99_tui.front.ssh, ono99_server.key_proof,"
                       " ono99_kernel.identity, ono99_tui.admin, ono99_tui.serve")
    assert out.returncode == 0 and out.stderr == "", out.stderr


def test_connect_to_a_dead_address_is_one_line_with_warnings_on() -> None:
    """Tried: ``ono99 connect`` to a port nothing listens at; stderr is the command's own line alone."""
    out = python("-m", "ono99_tui.cli", "connect", "127.0.0.1:1")
    assert out.returncode == 2
    assert out.stderr.splitlines() == [line for line in out.stderr.splitlines() if line.startswith("ono99 connect:")]
    assert len(out.stderr.splitlines()) == 1, out.stderr


def test_records_export_of_an_empty_store_says_nothing_else(tmp_path: Path) -> None:
    """Tried: ``ono99 records export`` of a store with no games, warnings on."""
    out = python("-m", "ono99_tui.cli", "records", "export", "--db", str(tmp_path / "games.sqlite"))
    assert "Warning" not in out.stderr and "asyncssh" not in out.stderr, out.stderr


def test_other_warnings_still_show() -> None:
    """Only asyncssh's DSA warning is silenced: the same words from elsewhere still print."""
    from ono99_kernel.ssh_library import asyncssh

    assert asyncssh.__name__ == "asyncssh"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.warn("DSA is deprecated", UserWarning, stacklevel=1)
    assert len(seen) == 1

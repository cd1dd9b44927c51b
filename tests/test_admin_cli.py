"""``ono99`` commands as an operator and a player type them, run as real processes: their errors in the
reader's language, ``ono99 admin`` against a real server with an operators' file (an in-process server,
real TLS, the real command). Each test says what it tried."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from ono99_kernel.identity import Identity
from ono99_tui.i18n import gettext as _
from ono99_tui.i18n import using
from tests.server_helpers import Harness, ono99, running_server


async def test_a_port_out_of_range_is_refused_in_the_readers_language() -> None:
    """Tried: ``ono99 --lang de connect 127.0.0.1:0`` and a port that is not a number. Found: the
    sentence began in German and ended in English ("the port 0 is not from 1 to 65535"). Now the whole
    line is German."""
    for address, reason in (("127.0.0.1:0", "the port {port} is not from 1 to 65535"),
                            ("127.0.0.1:abc", "the port {port} is not a number"), (":99", "the address has no host")):
        result = await ono99("--lang", "de", "connect", address)
        with using("de"):
            why = _(reason).format(port="0" if address.endswith(":0") else "'abc'")
            line = "ono99 connect: " + _("{address} is not HOST or HOST:PORT: {error}").format(
                address=repr(address), error=why)
        assert why != reason.format(port="0" if address.endswith(":0") else "'abc'")
        assert (result.returncode, result.stderr) == (2, line + "\n")


async def test_admin_takes_its_options_after_the_command_and_its_log_names_the_operator(tmp_path: Path) -> None:
    """An operator whose key's line in the --admins file ends in the comment "ada@desk". Tried:
    ``ono99 admin motd TEXT --server … --server-fingerprint … --data-dir …`` (the options after the
    command, as one types them last) and then ``ono99 admin log`` the same way. Found: the options
    after the command were refused, and the log said "operator" for every operator. Now both run;
    the log names the operator by the key's comment and gives the key."""
    operator_dir, ada, admins = operator_ada(tmp_path)
    async with running_server(tmp_path, admins=admins) as h:
        where = admin_options(h, operator_dir)
        result = await ono99("--lang", "en", "admin", "motd", "Be kind.", *where)
        assert (result.returncode, result.stderr) == (0, ""), result
        result = await ono99("--lang", "en", "admin", "log", *where)
        assert result.returncode == 0, result
        header, row = result.stdout.splitlines()
        assert header.split() == ["when", "operator", "key", "action", "whom", "what"]
        assert f" ada@desk  {ada.fingerprint}  motd " in row and row.endswith("Be kind.")
        result = await ono99("--lang", "en", "admin", "--server", f"127.0.0.1:{h.port}", "who",
                             "--server-fingerprint", h.server.fingerprint, "--data-dir", str(operator_dir))
        assert (result.returncode, result.stdout) == (0, "name  key  address  via  table\n0 players\n"), result


async def test_records_check_and_replay_give_one_error_for_a_broken_record_and_line_0_is_refused(
        tmp_path: Path) -> None:
    """Tried: a record cut short in a string (a download that stopped), read by ``ono99 records check``
    and by ``ono99 replay``; and ``replay --line 0`` and ``--line x``. Found: check read the line with its
    end and reported "Invalid control character", replay "Unterminated string"; --line 0 said the file
    "holds only 1 record". Now both commands report the same fault, and a number that is not a record's
    is refused as such, a usage error."""
    sample = (Path(__file__).parent / "data" / "sample_2022.jsonl").read_text(encoding="utf-8")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(sample[:-50] + "\n", encoding="utf-8")
    checked = await ono99("--lang", "en", "records", "check", str(broken))
    replayed = await ono99("--lang", "en", "replay", str(broken))
    assert checked.returncode == replayed.returncode == 1
    fault = checked.stdout.splitlines()[0]
    assert fault.startswith(f"{broken}: line 1: not valid JSON: ")
    assert replayed.stderr == f"ono99 replay: {fault}; check it with 'ono99 records check'\n"
    for line in ("0", "-1", "x"):
        result = await ono99("--lang", "en", "replay", str(broken), "--line", line)
        assert result.returncode == 2
        assert result.stderr == (f"ono99 replay: argument --line: {line!r} is not a record's number: the records of "
                                 "a file count from 1 (see 'ono99 replay --help')\n")


def test_the_full_screen_app_without_a_terminal_for_its_keys_says_so_and_ends() -> None:
    """Tried: ``ono99 connect`` to a listener that never answers, ``ono99 play`` and ``ono99 replay``,
    each with stdin from /dev/null. Found: the app's key reader found the ended input readable at every
    turn and spun at a third of a CPU, with nothing on screen to say why nothing happened. Now each
    says in one line that the app needs a terminal, names --plain for a pipe or a file, and ends (a
    usage error), before any screen opens."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel completes the connection; nothing ever answers it
        port = silent.getsockname()[1]
        sample = Path(__file__).parent / "data" / "sample_2022.jsonl"
        for command, args in (("ono99 connect", ["connect", f"127.0.0.1:{port}"]), ("ono99", ["play"]),
                              ("ono99 replay", ["replay", str(sample)])):
            out = subprocess.run([sys.executable, "-m", "ono99_tui.cli", "--lang", "en", *args], capture_output=True,
                                 text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=Path(__file__).parent.parent)
            assert (out.returncode, out.stdout) == (2, ""), out
            assert out.stderr == (f"{command}: the full-screen app takes its keys from a terminal, and the input is "
                                  "not one: run it in a terminal, or give --plain to read commands from a pipe or a "
                                  "file\n")


async def test_admin_bans_counts_the_bans_in_force_as_who_and_reports_count_theirs(tmp_path: Path) -> None:
    """Tried: ``ono99 admin bans`` on a server without bans, then after ``ban --address``. Found: with
    none it printed only the column names, which reads like an answer cut short. Now a last line
    counts the bans in force, as ``who`` counts players and ``reports`` reports."""
    operator_dir, _ada, admins = operator_ada(tmp_path)
    async with running_server(tmp_path, admins=admins) as h:
        where = admin_options(h, operator_dir)
        result = await ono99("--lang", "en", "admin", "bans", *where)
        assert (result.returncode, result.stdout) == (0, "banned  name  until  reason\n0 bans in force\n"), result
        result = await ono99("--lang", "en", "admin", "ban", "--address", "203.0.113.7", "--reason", "spam", *where)
        assert result.returncode == 0, result
        result = await ono99("--lang", "en", "admin", "bans", *where)
        assert result.returncode == 0, result
        assert result.stdout.splitlines()[1:] == ["203.0.113.7  -     for good  spam", "1 ban in force"]


def operator_ada(tmp_path: Path) -> tuple[Path, Identity, Path]:
    """Ada's data directory with her key, the key, and an --admins file naming it with the comment
    "ada@desk" (the key's type and data only, as OpenSSH writes them)."""
    operator_dir = tmp_path / "ada"
    ada = Identity.load_or_create(operator_dir)
    admins = tmp_path / "admins"
    admins.write_text(" ".join(ada.public_key.split()[:2]) + " ada@desk\n")
    return operator_dir, ada, admins


def admin_options(h: Harness, operator_dir: Path) -> tuple[str, ...]:
    """``ono99 admin``'s options to reach the server ``h`` as the operator whose key is in ``operator_dir``."""
    return ("--server", f"127.0.0.1:{h.port}", "--server-fingerprint", h.server.fingerprint,
            "--data-dir", str(operator_dir))

"""``ono99`` commands as an operator and a player type them, run as real processes: their errors in the
reader's language, ``ono99 admin`` against a real server with an operators' file (an in-process server,
real TLS, the real command). Each test says what it tried."""

from __future__ import annotations

from pathlib import Path

from ono99_tui.i18n import gettext as _
from ono99_tui.i18n import using
from ono99_tui.identity import Identity
from tests.server_helpers import ono99, running_server


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
    operator_dir = tmp_path / "ada"
    ada = Identity.load_or_create(operator_dir)
    admins = tmp_path / "admins"
    admins.write_text(" ".join(ada.public_key.split()[:2]) + " ada@desk\n")
    async with running_server(tmp_path, admins=admins) as h:
        where = ("--server", f"127.0.0.1:{h.port}", "--server-fingerprint", h.server.fingerprint,
                 "--data-dir", str(operator_dir))
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

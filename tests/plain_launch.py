"""``python tests/plain_launch.py SEED ARGS…`` runs ``ono99 ARGS…`` with every deal drawn from SEED
(the game server's ``Table.start`` draws its seed with ``secrets.randbits``), so a scripted game is
the same game at each run."""

from __future__ import annotations

import sys
from unittest import mock

from ono99_tui.cli import main

if __name__ == "__main__":
    with mock.patch("ono99_server.table_room.secrets.randbits", return_value=int(sys.argv[1])):
        raise SystemExit(main(sys.argv[2:]))

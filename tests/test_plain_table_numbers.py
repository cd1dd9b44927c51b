"""The plain mode numbers the lobby's tables by their ids, as the app's # column does, and joins or
watches a table by that number: the plain session fed the server's list of tables."""

from __future__ import annotations

from ono99_kernel.wire.requests import Join, Request, Spectate
from ono99_kernel.wire.server import decode_server_message
from ono99_tui.plain.console import Console
from ono99_tui.plain.lines import PlainSession
from tests.test_plain import finished_game_messages


def listed_table(table_id: int, name: str) -> dict[str, object]:
    table = finished_game_messages("waiting")[1]["table"]
    assert isinstance(table, dict)
    return {**table, "id": table_id, "name": name, "host": "Uma", "you": None,
            "seats": [{"kind": "human", "name": "Uma", "level": None, "connected": True},
                      {"kind": "empty", "name": "", "level": None, "connected": None}],
            "free": 1, "bots": 0}


def test_the_plain_lobby_says_and_takes_the_tables_ids() -> None:
    """Tables 2 and 5 are open (the others closed). Found: they were said as "Table 1" and "Table 2",
    while the app's # column says 2 and 5, and "s 2" watched the second of the list (table 5), "5" said
    "There is no table 5". Now each line says the table's id and a number typed is that id."""
    out: list[str] = []
    sent: list[Request] = []
    session = PlainSession(Console(out.append), sent.append, lambda: None)
    session.receive(decode_server_message(finished_game_messages("waiting")[0] | {"table": None}))
    session.receive(decode_server_message({"t": "tables", "tables": [listed_table(2, "two"), listed_table(5, "five")]}))
    out.clear()
    session.key("l")
    assert [line for line in out if line.startswith("Table ")] == [
        "Table 2: two, 2022, waiting, 1 of 2 seats free, host Uma.\n",
        "Table 5: five, 2022, waiting, 1 of 2 seats free, host Uma.\n"]
    session.command("s 2")
    session.command("5")
    assert sent[-2:] == [Spectate(table=2), Join(table=5)]
    out.clear()
    session.command("1")
    assert out == ["There is no table 1; l lists the tables.\n"]
    assert sent[-2:] == [Spectate(table=2), Join(table=5)]


def test_the_plain_lobby_watches_a_table_typed_without_the_space() -> None:
    """Found by playing: "s1" (as the hint "s, its number and Enter" reads) was "There is no command s1";
    "s 1" watched. Now "s5" and "S5" watch table 5, and "s1" says there is no table 1."""
    out: list[str] = []
    sent: list[Request] = []
    session = PlainSession(Console(out.append), sent.append, lambda: None)
    session.receive(decode_server_message(finished_game_messages("waiting")[0] | {"table": None}))
    session.receive(decode_server_message({"t": "tables", "tables": [listed_table(2, "two"), listed_table(5, "five")]}))
    session.command("s5")
    session.command("S5")
    assert sent == [Spectate(table=5), Spectate(table=5)]
    out.clear()
    session.command("s1")
    assert out == ["There is no table 1; l lists the tables.\n"] and len(sent) == 2

"""The lobby: the tables, the players online and the lobby's chat; an invite code, the leaderboard."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.coordinate import Coordinate
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, RichLog, Static
from textual.widgets.data_table import RowKey

from ono99_kernel.wire.common import as_edition
from ono99_kernel.wire.requests import AskLeaderboard, CreateTable, Join, ListTables, PlayNow, Say, Spectate
from ono99_kernel.wire.server import RatingRow

from ..client.labels import bot_row_name
from ..client.model import Model
from ..i18n import N_
from ..i18n import gettext as _
from ..numbers import decimal
from . import lobby_list
from .arena import PrivateArenaScreen, join_or_show, lobby_arena_line
from .help import HelpScreen
from .host import HidesFooterKeys, ShowsModel, host_of
from .inputs import ChatInput, Input
from .model_screen import ModelScreen
from .playnow import queue_line
from .steady import LineLog, append_lines
from .widgets import KeysFooter, put_up_while_closing


class TableList(DataTable[Any]):
    """The lobby's table list, where a group's label is a row drawn across the whole list rather than
    in a column (DataTable has no cell spanning columns; a label in the name column wrapped beside a
    1980 table's long rules, or pushed the last columns off an 80-column screen)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.labels: dict[RowKey, Text] = {}

    def clear(self, columns: bool = False) -> TableList:
        self.labels.clear()
        super().clear(columns)
        return self

    def add_label(self, key: str, label: Text) -> None:
        lines = label.split("\n")
        row = self.add_row(key=key, height=len(lines))
        self.labels[row] = label

    def _render_line_in_row(self, row_key: RowKey, line_no: int, base_style: Style, cursor_location: Coordinate,
                            hover_location: Coordinate) -> tuple[Any, Any]:
        # DataTable's own (private) drawing of one line of a row, taken over for the labels' rows only;
        # tests/test_lobby_list.py reads the labels off the screen, so a Textual that draws otherwise shows
        label = self.labels.get(row_key)
        if label is None:
            return super()._render_line_in_row(row_key, line_no, base_style, cursor_location, hover_location)
        line = Text(" ") + label.split("\n")[line_no]
        line.stylize(base_style)
        width = max(self.size.width, self.virtual_size.width)
        line.truncate(width, pad=True)
        return [], [list(line.render(self.app.console))]


class LobbyScreen(HidesFooterKeys, ModelScreen):
    BINDINGS = [
        Binding("p", "play_now", N_("Play now")),
        Binding("n", "new_table", N_("New table")),
        Binding("j,enter", "join", N_("Join")),
        Binding("s", "spectate", N_("Watch"), show=False),  # s and i: the hint line under the tables tells them
        Binding("i", "invite", N_("Invite"), show=False),
        Binding("b", "leaderboard", N_("Leaderboard")),
        Binding("a", "arena", N_("Arena"), show=False),  # the arena's line under the tables tells it
        Binding("A", "private_arena", N_("Private arena"), show=False),
        Binding("c", "focus_chat", N_("Chat"), show=False),
        Binding("escape", "focus_tables", N_("Tables")),  # shown while typing in the chat
        Binding("v", "profile", N_("Profile")),
        Binding("r", "refresh", N_("Refresh"), show=False),  # the list updates by itself; r is for doubters
        Binding("question_mark", "help", N_("Help")),
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[lobby_list.Row] | None = None
        self._chat_written = 0
        self._chat_sent = ""  # the last chat line sent: back in the box if the server refuses it
        self._last_row = 0  # the table list's row the cursor was on (to step over a group's label)

    def compose(self) -> ComposeResult:
        # The first content goes in at once: set after mounting, it would be drawn a second time.
        model = self.ono.model
        title, notice = self._title(model), self._notice(model)
        yield Static(title, id="title", markup=False)
        grid = TableList(id="tables", cursor_type="row", zebra_stripes=True)
        grid.add_columns(*self._headers())
        yield grid
        yield Static(notice, id="lobby-notice", markup=False)
        with Horizontal(id="lobby-bottom"):
            with Vertical(id="lobby-chat-box"):
                yield LineLog(id="lobby-chat", wrap=True, markup=False, highlight=False, max_lines=200)
                yield ChatInput(placeholder=_("lobby chat (c)"), id="lobby-chat-input", max_length=300)
            yield Static(self._online(model), id="online", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query_one("#lobby-chat", RichLog).can_focus = False
        self.refresh_model(self.ono.model)
        self.query_one(DataTable).focus()
        self.set_interval(5.0, self._arena_countdown)

    def _arena_countdown(self) -> None:
        """An arena's line counts down between the server's messages."""
        model = self.ono.model
        if model.arenas or model.arena is not None:
            self.show_text("#lobby-notice", self._notice(model), fixed_size=False)

    @staticmethod
    def _online(model: Model) -> Text:
        text = Text(_("Online ({n})").format(n=model.online_total) + "\n", style="bold")
        for player in model.online:
            text.append(Text(player.name))
            if player.away:
                text.append(" · " + _("away"))
            elif player.table is not None:
                text.append(" · " + _("table {n}").format(n=player.table))
            text.append("\n")
        return text

    def footer_shows(self, action: str) -> bool:
        focused = self.focused
        if focused is not None and focused.id == "lobby-chat-input":  # typing: the keys of the line
            return action in ("submit", "focus_tables")
        return action != "focus_tables"

    def action_focus_chat(self) -> None:
        self.query_one("#lobby-chat-input", Input).focus()

    def action_focus_tables(self) -> None:
        self.query_one(DataTable).focus()

    @on(Input.Submitted, "#lobby-chat-input")
    def lobby_chat_sent(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self._chat_sent = event.value
            self.ono.send_message(Say(text=event.value, scope="lobby"))
        event.input.value = ""

    def chat_refused(self) -> None:
        """The server refused the last line sent (muted, too many lines): it goes back in the box, to
        be copied or sent later, unless something new was typed there meanwhile."""
        box = self.query_one("#lobby-chat-input", Input)
        if self._chat_sent and not box.value:
            box.value = self._chat_sent
            box.cursor_position = len(box.value)

    @staticmethod
    def _title(model: Model) -> Text:
        title = Text()
        title.append(_("ONO 99"), style="bold")  # the game's name: ONO 99 in every language
        if model.server_name and model.server_name != "ONO 99":
            title.append("  ·  ")
            title.append(model.server_name)
        title.append("  ·  " + _("you are") + " ")
        title.append(model.my_name or "?", style="bold")
        if not model.connected:
            title.append("  ·  " + model.connection_note(), style="bold reverse")
        return title

    @staticmethod
    def _notice(model: Model) -> Text:
        hint = _("p: play now · Enter or j: join the selected table · s: watch it · n: new table · i: invite code")
        if not model.tables:  # private tables are never listed: their code is the way in
            hint = _("No tables yet: press p to play now, n to create one, i to enter an invite code.")
        text = f"{model.notice}\n{hint}" if model.notice else hint  # i is not in the footer: the hint stays
        queues = queue_line(model)
        arena = lobby_arena_line(model)
        return Text("\n".join(line for line in (text, queues, arena) if line))

    @staticmethod
    def _headers() -> tuple[str, ...]:
        return "#", _("name"), _("rules"), _("seats"), _("bots"), _("status"), _("watching")

    def on_resize(self) -> None:
        self.refresh_model(self.ono.model)  # a group's label and a table's rules wrap to the new width

    def refresh_model(self, model: Model) -> None:
        self.show_text("#title", self._title(model))
        width = self.size.width or self.app.size.width
        rows = lobby_list.table_rows(model.tables, self._headers(), width)
        if rows != self._rows:
            grid = self.query_one("#tables", TableList)
            chosen = self._selected_table()
            keep = grid.cursor_row
            self._rows = rows
            grid.clear()
            for key, cells, table in rows:
                if table is None:
                    grid.add_label(key, cells[0])
                else:
                    grid.add_row(*cells, key=key, height=len(cells[lobby_list.RULES].plain.split("\n")))
            same = next((i for i, row in enumerate(rows) if chosen is not None and row[2] == chosen), None)
            target = same if same is not None else lobby_list.nearest_table_row(rows, min(keep, len(rows) - 1))
            if target is not None:
                self._last_row = target
                grid.move_cursor(row=target)
        self.show_text("#lobby-notice", self._notice(model), fixed_size=False)  # its height follows its text
        self.show_text("#online", self._online(model), fixed_size=False)
        fresh = model.chat_count - self._chat_written
        lines = []
        for entry in list(model.chat)[-fresh:] if fresh > 0 else []:
            if entry.scope == "lobby":
                line = Text()
                line.append(Text(entry.sender, style="bold"))
                line.append(": ")
                line.append(Text(entry.text))
                lines.append(line)
        append_lines(self.query_one("#lobby-chat", RichLog), lines)
        self._chat_written = model.chat_count

    def _selected_table(self) -> int | None:
        grid = self.query_one(DataTable)
        rows = self._rows or []
        return rows[grid.cursor_row][2] if 0 <= grid.cursor_row < len(rows) else None

    @on(DataTable.RowHighlighted, "#tables")
    def step_over_group_label(self, event: DataTable.RowHighlighted) -> None:
        """The cursor never rests on a group's label: it goes on to the next table its way."""
        rows, row = self._rows or [], event.data_table.cursor_row  # where it is now: the event may be stale
        step = -1 if row < self._last_row else 1
        target = lobby_list.nearest_table_row(rows, row, step) if 0 <= row < len(rows) else None
        if target is not None and target != row:
            event.data_table.move_cursor(row=target)
        self._last_row = target if target is not None else row

    def _no_table(self, doing: str) -> None:
        text = (_("There is no table to join yet: press n to create one.") if doing == "join"
                else _("There is no table to watch yet: press n to create one."))
        self.app.notify(text, timeout=5)

    def action_join(self) -> None:
        table = self._selected_table()
        if table is None:
            if not self.ono.model.tables:
                self._no_table("join")
            return
        self.ono.send_message(Join(table=table))

    @on(DataTable.RowSelected)
    def row_chosen(self) -> None:
        self.action_join()

    def action_spectate(self) -> None:
        table = self._selected_table()
        if table is None:
            if not self.ono.model.tables:
                self._no_table("watch")
            return
        self.ono.send_message(Spectate(table=table))

    def action_new_table(self) -> None:
        self.ono.action_new_game()

    def action_invite(self) -> None:
        def joined(code: str | None) -> None:
            if code:
                self.ono.join_by_code(code)

        self.app.push_screen(InviteScreen(), joined)

    def action_leaderboard(self) -> None:
        self.ono.send_message(AskLeaderboard(follow=True))  # updated after each game while open
        self.app.push_screen(LeaderboardScreen())

    def action_refresh(self) -> None:
        self.ono.send_message(ListTables())

    def action_play_now(self) -> None:
        edition, seats = self.ono.play_now_wish
        if self.ono.local:  # nobody else can come to a local game: bots take the other seats at once
            self.ono.send_message(CreateTable(edition=as_edition(edition), seats=seats, bots=seats - 1,
                                              bot_level="greedy", turn_seconds=0, start=True))
            return
        self.ono.send_message(PlayNow(edition=as_edition(edition), seats=seats))

    def action_profile(self) -> None:
        host_of(self).show_profile()

    def action_arena(self) -> None:
        join_or_show(self.app)

    def action_private_arena(self) -> None:
        self.app.push_screen(PrivateArenaScreen())

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())


class InviteScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(_("Join a private table by its invite code"))
            yield Input(placeholder=_("e.g. K7QX2M"), id="code", max_length=16)

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LeaderboardScreen(ShowsModel, ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", N_("Close")),
        Binding("a", "edition('')", N_("All")),
        Binding("2", "edition('2022')", "2022"),
        Binding("1", "edition('1980')", "1980"),
        Binding("enter", "profile", N_("Profile")),
    ]

    # the edition and the rows the list shows, the players' then the bots': redrawn only when they change
    _shown: tuple[str | None, list[RatingRow]] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(_("Leaderboard, by rating (? provisional)"), id="leaders-title")
            yield DataTable(id="leaders", cursor_type="row")
        yield KeysFooter()

    def action_edition(self, edition: str) -> None:
        host_of(self).send_message(AskLeaderboard(edition=as_edition(edition) if edition else None, follow=True))

    async def action_dismiss(self, result: None = None) -> None:
        host_of(self).send_message(AskLeaderboard(follow=False))
        await super().action_dismiss(result)

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        grid = self.query_one(DataTable)
        grid.add_columns(_("player"), _("rating"), _("wins"), _("games"))
        self.refresh_model(host_of(self).model)

    def refresh_model(self, model: Model) -> None:
        which = model.leaderboard_edition or _("all editions")
        self.query_one("#leaders-title", Label).update(
            _("Leaderboard, {which}, by rating (? provisional)").format(which=which))
        shown = (model.leaderboard_edition, [*model.leaderboard, *model.leaderboard_bots])
        if shown == self._shown:  # another message drawn: the cursor stays where the player put it
            return
        grid = self.query_one(DataTable)
        keep = grid.cursor_row
        if self._shown is not None and 0 <= keep < len(self._shown[1]):  # on the same player, wherever the
            before = self._shown[1][keep].name  # new ratings put them
            keep = next((i for i, row in enumerate(shown[1]) if row.name == before), keep)
        self._shown = shown
        grid.clear()
        for row in model.leaderboard:
            rating = f"{decimal(row.rating)}{'?' if row.provisional else ''}"
            grid.add_row(Text(row.name), rating, str(row.wins), str(row.games))
        for bot in model.leaderboard_bots:
            grid.add_row(Text(bot_row_name(bot.name), style="italic"),
                         f"{decimal(bot.rating)}{'?' if bot.provisional else ''}", str(bot.wins),
                         str(bot.games))
        if grid.row_count:
            grid.move_cursor(row=min(max(keep, 0), grid.row_count - 1))

    @on(DataTable.RowSelected)
    def row_chosen(self) -> None:
        self.action_profile()

    def action_profile(self) -> None:
        host = host_of(self)
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(host.model.leaderboard):
            host.show_profile(host.model.leaderboard[row].name)

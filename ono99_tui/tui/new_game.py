"""The new-game dialog: edition, options, seats and bots."""

from __future__ import annotations

import contextlib
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Select, Static, Switch

from ono99_kernel.bots import BOT_LEVELS
from ono99_kernel.core.errors import OptionError
from ono99_kernel.core.options import OPTION_WORDS, PointsWin, TableOptions
from ono99_kernel.wire.common import as_edition
from ono99_kernel.wire.requests import CreateTable

from .. import text as words
from ..client.labels import bot_level_name, option_problem, rules_summary
from ..i18n import N_
from ..i18n import gettext as _
from ..series_text import SERIES_CHOICES, choice_key, choice_of_key, series_fields, series_kind
from .host import host_of
from .inputs import Input
from .widgets import ClockBar, KeysFooter, put_up_while_closing

BOOL_OPTIONS = [  # (option, its switch's label (core/options.py's OPTION_WORDS), the edition it belongs to or "")
    (name, OPTION_WORDS[name].switch or OPTION_WORDS[name].title, only) for name, only in (
        ("manual_draw", ""), ("eight_players", "2022"), ("bust_over_99", "1980"), ("ono99_on_zero", "1980"),
        ("ono99_sets_99", "1980"), ("out_at_zero_tokens", "1980"))
]  # labels translated where shown


class FieldSelect(Select[Any], inherit_bindings=False):
    """A choice of the new-game dialog: Space or an arrow opens it, and Enter, as everywhere in
    the dialog, starts the game."""

    BINDINGS = [Binding("down,space,up", "show_overlay", "Show menu", show=False)]


class FieldSwitch(Switch, inherit_bindings=False):
    """A switch of the new-game dialog: Space toggles it, and Enter starts the game."""

    BINDINGS = [Binding("space", "toggle_switch", "Toggle", show=False)]


class NewGameScreen(ModalScreen[CreateTable | None]):
    """Choose edition, options, seats and bots; returns a create_table message. Focus starts on
    the first choice, and Enter starts the game with the settings shown from any of them; the
    choices are remembered for next time."""

    AUTO_FOCUS = "#edition"
    BINDINGS = [Binding("escape", "cancel", N_("Cancel")), Binding("enter", "start", N_("Start"))]

    def __init__(self, local: bool) -> None:
        super().__init__()
        self.local = local
        self._offered: dict[str | None, range] = {}  # by field: the numbers its list offers now

    def _last(self, name: str, default: Any) -> Any:
        value = host_of(self).settings.new_game.get(name, default)
        return value if isinstance(value, type(default)) else default

    def compose(self) -> ComposeResult:
        edition = self._last("edition", "2022")
        edition = edition if edition in ("2022", "1980") else "2022"
        seats = self._last("seats", 4)
        yield ClockBar(markup=False)
        with Vertical(id="dialog", classes="newgame"):
            yield Label(_("New game"), id="dialog-title")
            with VerticalScroll(id="fields", can_focus=False):  # Tab goes from field to field
                with Horizontal(classes="row"):
                    yield Label(_("Edition"))
                    yield FieldSelect([("2022 (Mattel)", "2022"), ("1980 (O'NO 99)", "1980")], value=edition,
                                 allow_blank=False, id="edition")
                with Horizontal(classes="row"):
                    yield Label(_("Players") if not self.local else _("Players (you and bots)"))
                    yield FieldSelect([(str(n), n) for n in range(2, 9)], value=seats if 2 <= seats <= 8 else 4,
                                 allow_blank=False, id="seats")
                if not self.local:
                    with Horizontal(classes="row"):
                        yield Label(_("Bots"))
                        bots = self._last("bots", 0)
                        yield FieldSelect([(str(n), n) for n in range(0, 8)], value=bots if 0 <= bots <= 7 else 0,
                                     allow_blank=False, id="bots")
                with Horizontal(classes="row"):
                    yield Label(_("Bot level"))
                    level = self._last("bot_level", "greedy")
                    yield FieldSelect([(f"{bot_level_name(lv.name)}: {_(lv.description)}", lv.name)
                                       for lv in BOT_LEVELS.values()],
                                 value=level if level in BOT_LEVELS else "greedy", allow_blank=False, id="bot_level")
                with Horizontal(classes="row only-1980"):
                    yield Label(_(OPTION_WORDS["scoring"].title))
                    scoring = self._last("scoring", "tokens")
                    yield FieldSelect([(_("tokens (3 each)"), "tokens"), (_("points"), "points")],
                                 value=scoring if scoring in ("tokens", "points") else "tokens",
                                 allow_blank=False, id="scoring")
                with Horizontal(classes="row only-1980 only-points"):
                    yield Label(_(OPTION_WORDS["points_target"].title))
                    yield Input(str(self._last("points_target", 100)), id="points_target", type="integer")
                with Horizontal(classes="row only-1980 only-points"):
                    yield Label(_(OPTION_WORDS["points_win"].title))
                    win = self._last("points_win", "last_standing")
                    yield FieldSelect([(_(way.words), way.value) for way in PointsWin],
                                 value=win if win in ("last_standing", "lowest_score") else "last_standing",
                                 allow_blank=False, id="points_win")
                for name, label, only in BOOL_OPTIONS:
                    classes = f"row switch-row only-{only}" if only else "row switch-row"
                    if name == "out_at_zero_tokens":
                        classes += " only-tokens"  # with points scoring nobody has tokens to lose
                    with Horizontal(classes=classes):
                        yield FieldSwitch(bool(self._last(name, False)), id=name)
                        yield Label(_(label), classes="switch-label")
                if not self.local:
                    with Horizontal(classes="row"):
                        yield Label(_("Turn clock (s)"))
                        yield Input(str(self._last("turn_seconds", 30)), id="turn_seconds", type="integer")
                    with Horizontal(classes="row switch-row"):
                        yield FieldSwitch(bool(self._last("private", False)), id="private")
                        yield Label(_("Private (join by invite code)"), classes="switch-label")
                    with Horizontal(classes="row"):  # a league among friends (docs/rules.md, "Series")
                        yield Label(_("Series"))
                        yield FieldSelect([(_("one game"), choice_key(None)), *(
                            (series_kind(*choice), choice_key(choice)) for choice in SERIES_CHOICES)],
                            value=choice_key(None), allow_blank=False, id="series")
            yield Static(id="more", markup=False)
            yield Static(id="summary", markup=False)  # every choice in a line, those scrolled away too
            yield Static(id="problem", markup=False)
            with Horizontal(id="buttons"):
                yield Button(_("Start (enter)"), id="start", variant="primary")
                yield Button(_("Cancel (esc)"), id="cancel")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self._show_rows()
        self._fit_counts()
        self._show_summary()
        self.query_one("#problem", Static).display = False
        self.set_focus(self.query_one("#edition", Select))  # from the first choice on, Enter starts the game
        fields = self.query_one("#fields", VerticalScroll)
        self.watch(fields, "scroll_y", self._say_more, init=False)
        self.watch(fields, "virtual_size", self._say_more, init=False)

    def on_resize(self) -> None:
        self.call_after_refresh(self._say_more)

    def _say_more(self) -> None:
        """Say so when choices go on below what the dialog shows (at 80×24 the 1980 ones do)."""
        fields = self.query_one("#fields", VerticalScroll)
        more = fields.scroll_y < fields.max_scroll_y
        self.query_one("#more", Static).update(_("↓ more choices below (Tab or scroll)") if more else "")

    @on(Select.Changed)
    def _choice_changed(self) -> None:
        self._show_rows()
        self._changed()

    @on(Switch.Changed)
    @on(Input.Changed)
    def _changed(self) -> None:
        """A choice changed: the counts it allows, its line, and no error about the choices before."""
        self._fit_counts()
        self._show_summary()
        self._say_problem("")

    def _say_problem(self, text: str) -> None:
        """Say what keeps the game from starting; no line at all while nothing does."""
        problem = self.query_one("#problem", Static)
        problem.update(Text(text))
        problem.display = bool(text)

    def _fit_counts(self) -> None:
        """Offer only the players the edition (and its eight-player rule) allows, and on a server only
        the bots those seats leave room for beside you."""
        edition = str(self.query_one("#edition", Select).value)
        most = TableOptions.from_mapping(edition, {"eight_players": self.query_one("#eight_players", Switch).value
                                                   and edition == "2022"}).max_players
        seats_field = self.query_one("#seats", Select)
        seats = self._refit(seats_field, range(2, most + 1))
        if not self.local:
            self._refit(self.query_one("#bots", Select), range(0, seats))

    def _refit(self, field: Select[Any], allowed: range) -> int:
        """Give ``field`` the numbers ``allowed``, keeping its value (or the nearest allowed); its value."""
        value = field.value if isinstance(field.value, int) else allowed[0]
        kept = min(max(value, allowed[0]), allowed[-1])
        if self._offered.get(field.id) != allowed:
            self._offered[field.id] = allowed
            field.set_options([(str(n), n) for n in allowed])
        if field.value != kept:
            field.value = kept
        return kept

    def _show_summary(self) -> None:
        """The game Start makes, in a line: the rules (with choices scrolled out of sight), seats, bots."""
        try:
            message = self._message()
            rules = rules_summary(TableOptions.from_mapping(message.edition or "", message.options or {}))
        except (OptionError, ValueError):
            return  # said under it when Start is pressed
        parts = [rules, words.players(message.seats or 0)]
        if not self.local:
            parts.append(words.bots(message.bots or 0))
            if message.private:
                parts.append(_("private"))
        parts.append(bot_level_name(message.bot_level or "greedy"))
        self.query_one("#summary", Static).update(Text(_("Start: {choices}").format(choices=" · ".join(parts))))

    def _show_rows(self) -> None:
        """Only the choices of the edition (and scoring) chosen."""
        edition = self.query_one("#edition", Select).value
        points = self.query_one("#scoring", Select).value == "points"
        for row in self.query(".row"):
            shown = not (row.has_class("only-1980") and edition != "1980") and \
                not (row.has_class("only-2022") and edition != "2022") and \
                not (row.has_class("only-points") and not points) and \
                not (row.has_class("only-tokens") and points)
            if row.display != shown:
                row.display = shown
        self.call_after_refresh(self._say_more)

    def _message(self) -> CreateTable:
        edition = as_edition(str(self.query_one("#edition", Select).value))
        options: dict[str, Any] = {}
        points = self.query_one("#scoring", Select).value == "points"
        for name, _label, only in BOOL_OPTIONS:
            if self.query_one(f"#{name}", Switch).value and only in ("", edition) and \
                    not (name == "out_at_zero_tokens" and points):
                options[name] = True
        if edition == "1980":
            options["scoring"] = self.query_one("#scoring", Select).value
            if options["scoring"] == "points":
                options["points_target"] = int(self.query_one("#points_target", Input).value or 100)
                options["points_win"] = self.query_one("#points_win", Select).value
        seats = self.query_one("#seats", Select).value
        assert isinstance(seats, int)  # the list offers the numbers 2 to 8 and no blank
        bots = seats - 1 if self.local else self.query_one("#bots", Select).value
        assert isinstance(bots, int)  # the list offers the numbers 0 to 7 and no blank
        level = str(self.query_one("#bot_level", Select).value)
        if self.local:  # u after standing up: back at the next game
            return CreateTable(edition=edition, options=options, seats=seats, bots=bots, bot_level=level,
                               turn_seconds=0, start=True, replace_bots=True)
        games, points = series_fields(choice_of_key(str(self.query_one("#series", Select).value)))
        return CreateTable(edition=edition, options=options, seats=seats, bots=bots, bot_level=level,
                           turn_seconds=int(self.query_one("#turn_seconds", Input).value or 0),
                           private=self.query_one("#private", Switch).value,
                           series_games=games, series_points=points)

    def _remember(self, message: CreateTable) -> None:
        app = host_of(self)
        choices: dict[str, Any] = {"edition": message.edition, "seats": message.seats,
                                   "bot_level": message.bot_level}
        if not self.local:
            choices.update(bots=message.bots, turn_seconds=message.turn_seconds, private=message.private)
        for name, _label, _only in BOOL_OPTIONS:
            choices[name] = self.query_one(f"#{name}", Switch).value
        choices["scoring"] = self.query_one("#scoring", Select).value
        choices["points_win"] = self.query_one("#points_win", Select).value
        with contextlib.suppress(ValueError):
            choices["points_target"] = int(self.query_one("#points_target", Input).value or 100)
        app.settings.new_game = choices
        app.save_settings()

    @on(Button.Pressed, "#start")
    @on(Input.Submitted)
    def action_start(self) -> None:
        try:
            message = self._message()
            seats, bots = message.seats or 0, message.bots or 0  # both set by _message
            TableOptions.from_mapping(message.edition or "", message.options or {}).check_players(seats)
            if not self.local and bots > seats - 1:
                raise ValueError(_("{players} leave room for at most {bots}").format(
                    players=words.players(seats), bots=words.bots(seats - 1)))
            if (message.series_games or message.series_points) and not message.private:
                raise ValueError(_("A series is played at a private table: switch on Private."))
        except OptionError as exc:
            self._say_problem(option_problem(exc))
            return
        except ValueError as exc:
            self._say_problem(str(exc))
            return
        self._remember(message)
        self.dismiss(message)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

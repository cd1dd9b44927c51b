"""The end of a game, or of the reader's part in it: the ranking and the next step, or how they went out."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, Label, Static

from ono99_kernel.wire.common import as_edition
from ono99_kernel.wire.requests import Leave, PlayNow

from .. import text as words
from ..client.labels import card_label
from ..client.model import KnockOut, Model
from ..i18n import N_
from ..i18n import gettext as _
from .host import Rewinds, ShowsModel, host_of, table_host_of
from .seats import ConfirmScreen
from .series import SeriesLine
from .tabletop import motion_dropped
from .unbidden import OpensByItself
from .widgets import ButtonRow, CardRow, KeysFooter, key_name, put_up_while_closing

WIN_MOMENT_SECONDS = 1.2  # how long the winner's line is lit up when the dialog opens


class GameOverScreen(ShowsModel, OpensByItself[str | None]):
    """Who won, the ranking, the series' standings (when the table plays one), and the next step:
    play again, a new game, the lobby, or close. Dismissed with the step chosen ("rematch", "new",
    "lobby") or None."""

    BINDINGS = [Binding("escape", "dismiss", N_("Close"))]
    # a screen this short or shorter has one-line buttons: at 60×20 the bordered ones' second row was cut
    SHORT_SCREEN = 23
    DEFAULT_CSS = """
    GameOverScreen #dialog.gameover {
        overflow-y: auto;  /* a long ranking on a short screen scrolls rather than hide the buttons */
    }
    """

    def __init__(self, game: tuple[Any, int] | None = None) -> None:
        super().__init__()
        self.game = game  # (table id, game number) of the game it tells the end of
        self.steps: list[tuple[str, str, str]] = []  # (key, label, choice)

    def compose(self) -> ComposeResult:
        app = table_host_of(self)
        model = app.model
        view = model.view
        winner = view.winner if view is not None else None
        hosted_by = model.table.host if model.table is not None else None
        local = app.local
        replay = model.replay
        arena = model.table is not None and model.table.of_arena
        host = local or (hosted_by == model.my_name and not arena)
        if replay:
            self.steps = [("home", _("Back to the start"), "start")]
        else:
            if host:
                self.steps.append(("r", _("Play again"), "rematch"))
            if not arena:
                self.steps.append(("n", _("New game"), "new"))
            if local:  # the local game's record is at hand (a server's game: the profile's replay)
                self.steps.append(("a", _("Analyse"), "analyse"))
            else:
                self.steps.append(("l", _("Lobby"), "lobby"))
                self.steps.append(("p", _("Play now"), "play_now"))  # a new table with whoever is waiting
        title = _("You win!") if model.is_me(winner) else _("{name} wins!").format(name=model.plain_name(winner))
        with Vertical(id="dialog", classes="gameover"):
            yield Label(Text(title), id="winner")
            lines = Text()
            for place, seat in enumerate(model.ranking(), start=1):
                lines.append(f"{place}. ")
                lines.append(Text(model.seat_name(seat)))
                if view is not None and view.tokens is not None:
                    lines.append(f"  {words.tokens(view.tokens[seat])}")
                if view is not None and view.scores is not None:
                    lines.append(f"  {words.points(view.scores[seat])}")
                lines.append("\n")
            if arena:
                lines.append("\n" + _("The arena seats you at your next game by itself."))
            elif not host and not replay:
                lines.append("\n" + _("{host} hosts this table and starts the next game.").format(
                    host=hosted_by))
            yield Static(lines, id="ranking", markup=False)
            yield SeriesLine(after_game=True, id="series-after")
            with ButtonRow(id="buttons"):
                for index, (key, label, choice) in enumerate(self.steps):
                    yield Button(f"{label} ({key_name(key)})", id=choice,
                                 variant="primary" if index == 0 else "default")
                yield Button(_("Close (esc)"), id="close")
        yield KeysFooter()

    def refresh_model(self, model: Model) -> None:
        for line in self.query(SeriesLine):  # none while the app closes
            line.show(model)  # the standings come with the table, a moment after the ranking

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.refresh_model(table_host_of(self).model)
        if self.app.animation_level != "none" and not motion_dropped():
            # the win's moment: the winner's line lit up, then as it stays (one timer, two frames)
            winner = self.query_one("#winner", Label)
            winner.add_class("-moment")
            self.set_timer(WIN_MOMENT_SECONDS, lambda: winner.remove_class("-moment"))
        for key, label, choice in self.steps:
            self._bindings.bind(key, f"choose('{choice}')", label)
        self.refresh_bindings()
        buttons = self.query("#buttons Button")
        if buttons:  # none while the app is closing
            buttons.first(Button).focus()  # Enter takes the first step
        self._fit_buttons()

    def on_resize(self) -> None:
        self._fit_buttons()

    def _fit_buttons(self) -> None:
        compact = self.app.size.height <= self.SHORT_SCREEN
        for button in self.query("#buttons Button").results(Button):
            button.compact = compact

    def action_choose(self, choice: str) -> None:
        if choice == "play_now":  # leave this table for the play-now queue
            app = host_of(self)
            edition, seats = app.play_now_wish
            app.send_message(Leave())
            app.send_message(PlayNow(edition=as_edition(edition), seats=seats))
            self.dismiss(None)
            return
        if choice == "start":
            if isinstance(self.app, Rewinds):  # ono99 replay
                self.app.go_to(0)
            self.dismiss(None)
            return
        if choice == "lobby":  # leaving the table is asked, as l asks it at the table
            def answered(yes: bool | None) -> None:
                if yes:
                    self.dismiss("lobby")

            self.app.push_screen(ConfirmScreen(_("Leave this table for the lobby?"), yes=_("Leave the table")),
                                 answered)
            return
        self.dismiss(choice)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        choice = event.button.id
        if choice == "close":
            self.dismiss(None)
        elif choice is not None:
            self.action_choose(choice)


class KnockOutScreen(OpensByItself[str | None]):
    """How the reader was knocked out, dismissed before play goes on; with no person left in a
    local game, it offers to fast-forward the bots."""

    BINDINGS = [Binding("escape,enter", "dismiss", N_("Continue"))]

    def __init__(self, knockout: KnockOut) -> None:
        super().__init__()
        self.knockout = knockout

    def compose(self) -> ComposeResult:
        app = table_host_of(self)
        model = app.model
        k = self.knockout
        edition = model.edition
        held = ", ".join(card_label(code, edition) for code in k.cards) or _("no cards")
        if edition == "2022":
            title = _("You are out of this game")
        elif k.final:
            title = _("You are out of the match")
        elif model.points_scoring:
            title = _("You dropped out of hand {n}").format(n=(k.hand or 0) + 1)
        else:
            title = _("You lost hand {n}").format(n=(k.hand or 0) + 1)
        text = Text()
        text.append(_("At a total of {total}, none of your cards could be played.").format(total=k.total) + "\n")
        text.append(_("You held: {cards}.").format(cards=held) + "\n")
        if k.tokens is not None:
            text.append(_("Tokens left: {n}.").format(n=k.tokens) + "\n" if not k.final
                        else _("You have no tokens left.") + "\n")
        if k.score is not None:
            text.append(_("Your score: {points}.").format(points=words.points(k.score)) + "\n")
        humans_left = self._people_left(model)
        self.offer_fast = app.local and k.final and humans_left == 0
        if k.final:
            text.append("\n" + (_("The others play on (bots only).") if humans_left == 0 else _("The others play on.")))
        with Vertical(id="dialog", classes="gameover"):
            yield Label(Text(title), id="winner")
            yield Static(text, id="ranking", markup=False)
            if k.cards:  # the cards listed above, drawn as the table draws them where the dialog has room
                yield CardRow(k.cards, edition, all_or_none=True, id="held")
            with ButtonRow(id="buttons"):
                if self.offer_fast:
                    yield Button(_("Fast-forward (f)"), id="fast", variant="primary")
                yield Button(_("Watch (enter)") if k.final else _("Continue (enter)"), id="continue",
                             variant="default" if self.offer_fast else "primary")
        yield KeysFooter()

    @staticmethod
    def _people_left(model: Model) -> int:
        view = model.view
        seats = model.table.seats if model.table is not None else ()
        active = view.active if view is not None else ()
        me = view.seat if view is not None else None
        return sum(1 for i, seat in enumerate(seats)
                   if seat.kind == "human" and i < len(active) and active[i] and i != me)

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        if self.offer_fast:
            self._bindings.bind("f", "fast", N_("Fast-forward"))
            self.refresh_bindings()
        buttons = self.query("#continue")
        if buttons:  # none when the dialog was replaced as it opened (the game ended at once)
            buttons.first(Button).focus()  # Enter does what its label says

    def action_fast(self) -> None:
        self.dismiss("fast")

    @on(Button.Pressed, "#fast")
    def fast_pressed(self) -> None:
        self.dismiss("fast")

    @on(Button.Pressed, "#continue")
    def continue_pressed(self) -> None:
        self.dismiss(None)

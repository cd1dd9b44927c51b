"""The table: the game shown, the hand, the log and the chat, and the keys that play."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import RichLog, Static
from textual.worker import get_current_worker

from ono99_kernel.core.view import SeatView
from ono99_kernel.wire.requests import Kick, Rematch, Say, Sit, Stand, Start

from ..analysis_hints import Hint, NoHint, hint, seat_view
from ..analysis_words import hint_sentence, no_hint_sentence
from ..client.labels import card_label, is_own_table, rules_summary, table_name
from ..client.model import Model
from ..client.seat_choices import SeatRequest
from ..i18n import N_
from ..i18n import gettext as _
from .game_over import GameOverScreen, KnockOutScreen
from .help import HelpScreen, HintScreen
from .host import HidesFooterKeys, game_app_of
from .inputs import ChatInput, Input
from .model_screen import ModelScreen
from .seats import ConfirmScreen, SeatMenuScreen
from .series import SeriesLine, SeriesScreen
from .steady import LineLog, append_lines
from .tabletop import TableTop
from .widgets import Banner, CardWidget, HandView, KeysFooter, put_up_while_closing

# The local game's table is named in English and shown in the reader's language, which may change
# during the game (F2)
LOCAL_GAME = N_("Local game")
ROOMY = (100, 36)  # columns and lines from which the cards and the pile are drawn big
SLIM_BELOW = 60  # columns under which the hand's cards go in two rows


class TableScreen(HidesFooterKeys, ModelScreen):
    AUTO_FOCUS = None  # keys go to the hand; the chat input takes focus only with c
    BINDINGS = [
        Binding("1", "play(0)", N_("Play card 1"), show=False),
        Binding("2", "play(1)", N_("Play card 2"), show=False),
        Binding("3", "play(2)", N_("Play card 3"), show=False),
        Binding("4", "play(3)", N_("Play card 4"), show=False),
        Binding("left", "select(-1)", N_("Select"), show=False),
        Binding("right", "select(1)", N_("Select"), show=False),
        Binding("enter", "play_selected", N_("Play")),
        Binding("f", "discard_four", N_("Four ONO 99"), show=False),
        Binding("d", "draw", N_("Draw")),
        # said in the help (? and its line about h): the footer is full at 80 columns
        Binding("h", "hint", N_("Hint"), show=False),
        Binding("s", "start", N_("Start")),
        Binding("r", "rematch", N_("Play again")),
        Binding("c", "focus_chat", N_("Chat")),
        Binding("escape", "focus_hand", N_("Back to the cards")),  # shown while chatting
        Binding("n", "new_game", N_("New game")),
        Binding("u", "stand_or_sit", N_("Stand/sit"), show=False),
        Binding("m", "seat_menu", N_("Seats"), show=False),
        Binding("e", "series", N_("Series"), show=False),
        Binding("l", "lobby", N_("Lobby")),
        Binding("question_mark", "help", N_("Help")),
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.selected = 0
        self._log_written = 0
        self._was_my_turn = False
        self._log_epoch = -1
        self._chat_written = 0
        self._shown_game_over: tuple[Any, int] | None = None  # (table id, game number) of the last dialog
        self._bindings_for: tuple[Any, ...] = ()
        self._note_until: tuple[Any, ...] | None = None  # the moment the note under the cards is about

    def compose(self) -> ComposeResult:
        yield Static(id="title", markup=False)
        yield TableTop(id="tabletop")
        yield SeriesLine(id="series")
        yield Banner(id="banner", markup=False)
        yield HandView(id="hand")
        yield Static(id="why", markup=False)
        with Horizontal(id="bottom"):
            yield LineLog(id="log", wrap=True, markup=False, highlight=False, max_lines=200)
            with Vertical(id="chat-box"):
                yield LineLog(id="chat", wrap=True, markup=False, highlight=False, max_lines=200)
                yield ChatInput(placeholder=_("chat (c)"), id="chat-input", max_length=300)
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        for log in self.query(RichLog):
            log.can_focus = False  # arrows and digits belong to the hand
        self.query_one("#chat-input", Input).can_focus = False  # until c is pressed
        self.refresh_model(self.ono.model)
        self.set_focus(None)
        self.set_interval(1.0, self._tick)
        game_app = game_app_of(self)  # None in ono99 replay, which keeps no settings
        if game_app is not None and not game_app.settings.hint_seen:
            self.app.push_screen(HintScreen())

    def on_resize(self, event: events.Resize) -> None:
        """Bigger cards on a big terminal; the cards in two rows on a narrow one (a phone upright)."""
        width, height = event.size
        roomy, slim = width >= ROOMY[0] and height >= ROOMY[1], width < SLIM_BELOW
        if roomy != self.has_class("-roomy") or slim != self.has_class("-slim"):
            self.set_class(roomy, "-roomy")
            self.set_class(slim, "-slim")
            self.query_one(TableTop).refresh(layout=True)
        self.show_text("#title", self._title(self.ono.model), fixed_size=False)  # the keys' line fits the width

    def on_screen_suspend(self) -> None:
        self._hold_bots()  # a dialog (or another screen) covers the table: a local game waits

    def on_screen_resume(self) -> None:
        self._hold_bots()

    def _hold_bots(self) -> None:
        # decided by what is on top now, not by which event came: a screen replaced by a new one
        # (the language changed) may be suspended after its successor was resumed
        game_app = game_app_of(self)  # None in ono99 replay, which has no bots to hold
        if game_app is not None:
            game_app.hold_bots_unless_table_shown()

    def footer_shows(self, action: str) -> bool:
        if self.has_class("-chatting"):  # typing: the keys of the line, not the table's letters
            return action in ("submit", "focus_hand")
        if action == "focus_hand":
            return False
        return self.offers(self.ono.model, self.ono.local, action)

    @staticmethod
    def offers(model: Model, local: bool, action: str) -> bool:
        """Whether the footer shows ``action`` to the player of ``model`` (``local``: in a local game):
        Start and Play again only when they would do something (pressed otherwise, they say why not)."""
        if action in ("start", "rematch"):
            table = model.table
            host = (table is not None and table.host == model.my_name) or local
            return host and table is not None and table.status == ("waiting" if action == "start" else "finished")
        if action in ("play_selected", "draw"):  # a spectator, or a seat that is out, has no cards to play or draw
            view = model.view
            if view is None or view.seat is None or not (view.active[view.seat] and view.in_hand[view.seat]):
                return False
            return action == "play_selected" or view.options.manual_draw  # else draws are taken for you
        return True

    @staticmethod
    def _moment(model: Model, lasts: str) -> tuple[Any, ...]:
        """What must stay the same for a note to stay true: the move (``turn``: a state of the game)
        or the game (``game``: until it ends or another starts)."""
        table, view = model.table, model.view
        game = (table.id if table is not None else None, model.game_no, view is not None and view.winner is None)
        return (*game, view.version if view is not None else None) if lasts == "turn" else game

    def note(self, text: str, lasts: str = "turn") -> None:
        """Say why a key did nothing (or what it did), under the cards, until the moment passes."""
        self.show_text("#why", Text(text), fixed_size=False)  # one line, or two for a long language
        self._note_until = (*self._moment(self.ono.model, lasts), lasts) if text else None

    def _drop_stale_note(self, model: Model) -> None:
        if self._note_until is not None and self._moment(model, self._note_until[-1]) != self._note_until[:-1]:
            self.note("")

    def _tick(self) -> None:
        """Count the turn clock down between server messages."""
        if self.ono.model.clock is not None:
            self.query_one(TableTop).show(self.ono.model)
            self.query_one(Banner).show(model=self.ono.model)  # an open draw's countdown

    def _title(self, model: Model) -> Text:
        """The table's name, rules and what the reader is; a spectator's keys to sit down follow on
        the same line, or on a line of their own when the line would be wider than the screen (at 80
        columns they were cut: "spectating (u: sit")."""
        table = model.table
        title = Text()
        title.append(_("ONO 99"), style="bold")  # the game's name as the language writes it
        title.append("  ·  ")
        if self.ono.local and not model.replay:  # one name for the local table, however it was opened
            name = _(LOCAL_GAME)
        elif table is None:
            name = _("Table")
        else:
            name = _("Your table") if is_own_table(table, model.my_name) else table_name(table)
        title.append(name)
        title.append(f"  ·  {rules_summary(table.options) if table is not None else model.edition}")
        if table is not None and table.hints and not self.ono.local:  # a server's table: its games are not rated
            title.append("  ·  " + _("hints on"))
        watching = model.view.seat is None if model.view is not None else table is not None and table.you is None
        if watching:  # before a game too: its banner reads the same as a seated player's
            title.append("  ·  " + _("spectating"))
            if model.table is not None and model.table.you is None:  # a server's table: say how to sit
                hint = _("(u: sit down, m: seats)")
                room = (self.size.width or self.app.size.width) - 2  # the title's padding
                title.append(("\n" if title.cell_len + 1 + cell_len(hint) > room else " ") + hint)
        if not model.connected:
            title.append("  ·  " + model.connection_note(), style="bold reverse")
        return title

    def refresh_model(self, model: Model) -> None:
        table = model.table
        self.show_text("#title", self._title(model), fixed_size=False)
        self.query_one(SeriesLine).show(model)
        view = model.view
        self.set_class(view is None, "-waiting")  # no hand yet: the banner has its room for the invitation
        self.query_one(TableTop).show(model)
        self.query_one(Banner).show(model)
        self._drop_stale_note(model)
        # the keys the footer shows change with what footer_shows answers (a new 1980 hand deals a seat back in)
        keys = tuple(self.footer_shows(action) for action in ("start", "rematch", "play_selected", "draw"))
        if keys != self._bindings_for:
            self._bindings_for = keys
            self.refresh_bindings()
        hand = view.hand if view else ()
        if hand and view:
            self.selected = min(self.selected, len(hand) - 1)
            if model.my_turn and not self._was_my_turn:  # a new turn: select the first playable card
                self.selected = next((i for i, c in enumerate(hand) if c in view.legal), self.selected)
        self._was_my_turn = model.my_turn
        self.query_one(HandView).show(model, self.selected)
        self._write_new_lines(model)
        game = (table.id if table else None, model.game_no)
        over = view is not None and view.winner is not None
        self._close_results(keep=game if over else None)  # one result at a time, of the game shown
        if model.knockout is not None and view is not None and view.winner is None:
            knockout, model.knockout = model.knockout, None
            self.app.push_screen(KnockOutScreen(knockout), self._after_dialog)
        if over and self._shown_game_over != game:
            self._shown_game_over = game
            model.knockout = None
            if isinstance(self.app.screen, KnockOutScreen):
                self.app.pop_screen()  # the game is over: the ranking says the rest
            self.ono.bell_if_wanted(end=True)
            self.app.push_screen(GameOverScreen(game), self._after_dialog)

    def _close_results(self, keep: tuple[Any, int] | None) -> None:
        """Close every game-over dialog but the one of ``keep`` (the finished game shown), with what
        was opened over it: a result left over a new game hides the hand while its clock runs. An
        update of the same finished game leaves its dialog open (a key pressed in it is not lost)."""
        stack = self.app.screen_stack
        stale = next((s for s in stack if isinstance(s, GameOverScreen) and s.game != keep), None)
        if stale is None:
            return
        while stale in self.app.screen_stack:
            self.app.pop_screen()

    def _after_dialog(self, choice: str | None) -> None:
        """The next step chosen in the game-over or knock-out dialog."""
        if choice == "rematch":
            self.action_rematch()
        elif choice == "new":
            self.action_new_game()
        elif choice == "lobby":
            self.action_lobby()
        elif choice == "analyse":
            game_app = game_app_of(self)
            if game_app is None or not game_app.analyse_finished_game():
                self.note(_("This game's record is not available to analyse."), lasts="game")
        elif choice == "fast":
            game_app = game_app_of(self)
            if game_app is not None:
                game_app.fast_forward()
                self.note(_("Fast-forward: the bots play the game out without waiting."), lasts="game")

    def _write_new_lines(self, model: Model) -> None:
        log = self.query_one("#log", RichLog)
        if model.log_epoch != self._log_epoch:
            log.clear()
            self._log_epoch = model.log_epoch
            self._log_written = model.log_count - len(model.log)
        fresh = model.log_count - self._log_written
        append_lines(log, [Text(line) for line in (list(model.log)[-fresh:] if fresh > 0 else [])])
        self._log_written = model.log_count
        chat = self.query_one("#chat", RichLog)
        fresh = model.chat_count - self._chat_written
        lines = []
        for entry in list(model.chat)[-fresh:] if fresh > 0 else []:
            line = Text()
            if entry.scope == "lobby":  # the lobby's lines reach the table too: say where they were said
                line.append(_("Lobby") + " · ", style="dim")
            line.append(Text(entry.sender, style="bold"))
            line.append(": ")
            line.append(Text(entry.text))
            lines.append(line)
        append_lines(chat, lines)
        if lines and self.has_class("-narrow"):  # no chat column: chat shows in the log
            append_lines(log, [Text.assemble(_("chat") + " · ", line) for line in lines])
        self._chat_written = model.chat_count

    # --- actions -------------------------------------------------------------------------------------
    def action_select(self, step: int) -> None:
        view = self.ono.model.view
        if view and view.hand:
            self.selected = (self.selected + step) % len(view.hand)
            self.refresh_model(self.ono.model)

    def action_play(self, index: int) -> None:
        model = self.ono.model
        view = model.view
        if view is None:
            return
        if view.winner is not None:  # the hand is empty then: say why the key does nothing
            self.note(_("The game is over: r plays again, n starts a new game.") if self.footer_shows("rematch")
                      else _("The game is over."), lasts="game")
            return
        if index >= len(view.hand):
            self.note(self._no_card(index))
            return
        self.selected = index
        code = view.hand[index]
        reason = model.reason_for(code)
        if reason is not None:
            self.note(_("Can't play {card}: {reason}").format(card=card_label(code, model.edition), reason=reason))
            self.refresh_model(model)
            return
        self.note("")
        self.ono.send_action(code)

    def _no_card(self, index: int) -> str:
        view = self.ono.model.view
        held = len(view.hand) if view is not None else 0
        if held == 0:
            return _("You hold no cards now.")
        return _("There is no card {n}: your cards are 1–{last}.").format(n=index + 1, last=held)

    def on_key(self, event: events.Key) -> None:
        """A key that nothing here takes says so, under the cards, as a card that cannot be played does."""
        if (not event.is_printable or not (event.character or "").strip() or self.app.focused is not None
                or event.key in self.app.active_bindings):
            return
        if event.character is not None and event.character.isdigit() and event.character != "0":
            self.note(self._no_card(int(event.character) - 1))
        else:
            self.note(_("{key} does nothing here: ? lists the keys.").format(key=event.character))

    def action_hint(self) -> None:
        """The strong bot's estimate of each card that can be played now, from the player's own view (the
        views and events this client was sent), searched in a worker thread: the screen goes on."""
        model = self.ono.model
        if not hints_allowed(model, self.ono.local):
            self.note(_("Hints are off at this table: its host did not allow them (hinted games are not rated)."),
                      lasts="game")
            return
        view = model.view
        if view is None:
            self.note(_("A hint is for your turn."))
            return
        try:
            position = seat_view(view, model.game_events)
        except NoHint as no:
            self.note(no_hint_sentence(no, model.edition))
            return
        version, edition = view.version, model.edition
        self.note(_("Hint: thinking…"))
        self.run_worker(lambda: self._hint_in_thread(position, version, edition), thread=True, exclusive=True,
                        group="hint")

    def _hint_in_thread(self, position: SeatView, version: int, edition: str) -> None:
        """The search, off the event loop (a second or so of CPU work); progress and the hint go back to it."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise _HintStopped
            bar = "▰" * done + "▱" * (total - done)
            try:
                self.app.call_from_thread(self._hint_said, version, _("Hint: thinking… {bar}").format(bar=bar))
            except RuntimeError:  # the app is closing
                raise _HintStopped from None

        try:
            found: Hint = hint(position, on_progress=progress)
            self.app.call_from_thread(self._hint_said, version, hint_sentence(found, edition))
        except (_HintStopped, RuntimeError):
            return

    def _hint_said(self, version: int, text: str) -> None:
        view = self.ono.model.view
        if view is not None and view.version == version:  # still the moment the hint is for
            self.note(text)

    def action_play_selected(self) -> None:
        self.action_play(self.selected)

    def action_discard_four(self) -> None:
        model = self.ono.model
        if model.view and "ONO99x4" in model.view.legal:
            self.ono.send_action("ONO99x4")
        elif model.view is None or model.edition != "2022":
            self.note(_("f discards four ONO 99 cards, a move of the 2022 edition only."))
        elif not model.my_turn:
            self.note(_("f discards four ONO 99 cards, on your turn."))
        else:
            held = model.view.hand.count("ONO99")
            self.note(_("f discards four ONO 99 cards at once; you hold {held}.").format(held=held))

    def action_draw(self) -> None:
        if self.ono.model.can_draw:
            self.ono.send_action("draw")
        else:
            self.note(_("There is no draw to take."))

    def action_start(self) -> None:
        """The host starts the game (or a rematch); empty seats get bots."""
        model = self.ono.model
        table = model.table
        status, host = (table.status, table.host) if table is not None else (None, None)
        if status == "playing":
            self.note(_("The game is already running."))
            return
        if host != model.my_name and not self.ono.local:
            self.note(_("Only the host, {host}, can start the game.").format(host=host))
            return
        if status == "finished":
            self.action_rematch()
            return
        self.ono.send_message(Start())

    def action_series(self) -> None:
        """The host of a private table chooses a series from the next game on."""
        if self.ono.local:
            self.note(_("A series is played at a private table on a server."))
            return
        model = self.ono.model
        table = model.table
        if table is not None and table.host != model.my_name:  # not a dialog whose every choice is refused
            self.note(_("Only the host, {host}, can choose a series.").format(host=table.host))
            return
        if table is not None and not table.private:
            self.note(_("A series is played at a private table: press n for a new one and switch on Private."))
            return
        self.app.push_screen(SeriesScreen(), lambda chosen: self.ono.send_message(chosen) if chosen else None)

    def action_rematch(self) -> None:
        """Play again at this table, once the game is over."""
        model = self.ono.model
        table = model.table
        if table is None or table.status != "finished":
            self.note(_("r plays again once the game is over."))
            return
        if table.host != model.my_name and not self.ono.local:
            self.note(_("Only the host, {host}, can start the next game.").format(host=table.host))
            return
        game_app = game_app_of(self)
        if game_app is not None:
            game_app.fast_forward(False)
        self.ono.send_message(Rematch())

    def action_focus_chat(self) -> None:
        chat = self.query_one("#chat-input", Input)
        chat.can_focus = True
        self.add_class("-chatting")  # a narrow screen shows the chat in place of the log meanwhile
        chat.focus()

    def action_focus_hand(self) -> None:
        self.query_one("#chat-input", Input).can_focus = False
        self.remove_class("-chatting")
        self.set_focus(None)

    def action_new_game(self) -> None:
        self.ono.action_new_game()

    def action_stand_or_sit(self) -> None:
        """Sit down (at the next game, while one runs) or stand up to watch."""
        table = self.ono.model.table
        if table is None or table.you is None:
            self.ono.send_message(Sit())
        else:
            question = (_("Stand up? A bot plays your cards until this game is over; u sits you down again "
                          "at the next game.") if self.ono.local else None)
            self.ono.confirm_leaving(lambda: self.ono.send_message(Stand()), _("Stand up"), local_too=True,
                                     question=question)

    def action_seat_menu(self) -> None:
        def chosen(message: SeatRequest | None) -> None:
            if message is None:
                return
            if not isinstance(message, Kick):
                self.ono.send_message(message)
                return
            table = self.ono.model.table
            seat = message.seat
            name = table.seats[seat].name if table is not None and seat < len(table.seats) else ""

            def answered(yes: bool | None) -> None:  # removing a person is asked, as leaving is
                if yes:
                    self.ono.send_message(message)

            self.app.push_screen(ConfirmScreen(_("Remove {name} from the table? They are sent back to the lobby.")
                                               .format(name=name), yes=_("Remove")), answered)

        self.app.push_screen(SeatMenuScreen(self.ono.model, self.ono.local), chosen)

    def action_lobby(self) -> None:
        self.ono.action_lobby()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    @on(CardWidget.Chosen)
    def card_clicked(self, message: CardWidget.Chosen) -> None:
        self.action_play(message.index)

    @on(Input.Submitted, "#chat-input")
    def chat_sent(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.ono.send_message(Say(text=event.value, scope="table"))
        event.input.value = ""  # the input keeps the keyboard, for the next line; Esc goes back to the cards


def hints_allowed(model: Model, local: bool) -> bool:
    """Whether the player may ask for hints: in a local game, and at a server's table whose host allows them."""
    table = model.table
    return not model.replay and (local or (table is not None and table.hints))


class _HintStopped(Exception):
    """A hint no longer wanted (the screen closed, another one asked)."""

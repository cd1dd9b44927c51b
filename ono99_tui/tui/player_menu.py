"""The player menu (``w``): the people on the screen — the table's players, who is online, who spoke in
the chat — and, for one of them, what you can do: see their profile, mute their chat (the server stops
sending it to you, across sessions), block them from your private tables, report them to the host's
operators; an operator also kicks, bans, mutes in the lobby's chat and renames (docs/server.md,
"Running a public host")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Select
from textual.widgets.option_list import Option

from ono99_kernel.protocol import MAX_CHAT, MAX_NAME, MAX_TABLE_NAME
from ono99_kernel.wire.requests import Admin, Block, CreateArena, Mute, Report, Request
from ono99_kernel.wire.server import AdminResult, ServerMessage

from ..client.model import Model
from ..i18n import N_
from ..i18n import gettext as _
from ..reasons import admin_said
from .host import ScreenHost, host_of
from .inputs import Input
from .widgets import KeysFooter, put_up_while_closing

# How long an operator's ban or lobby mute lasts: (seconds, label); 0 is for good.
DURATIONS: tuple[tuple[int, str], ...] = ((3600, N_("an hour")), (86400, N_("a day")), (7 * 86400, N_("a week")),
                                          (0, N_("for good")))


def people_in_view(model: Model) -> list[str]:
    """The names on the screen, but yours and the bots': the table's players and watchers, the
    newest chat's speakers, then who is online."""
    names: list[str] = []
    table = model.table
    if table is not None:
        names += [seat.name for seat in table.seats if seat.kind == "human"]
        names += list(table.watchers)
    names += [entry.sender for entry in reversed(model.chat)]
    names += [player.name for player in model.online]
    seen = {model.my_name}
    people = []
    for name in names:
        if name and name not in seen:
            seen.add(name)
            people.append(name)
    return people


def open_players(app: App[Any]) -> None:
    """``w``: the people on the screen, to pick one (a local game has nobody but bots)."""
    if host_of(app).local:
        app.notify(_("Nobody else is here: only bots play a local game."), timeout=5)
        return
    if not people_in_view(host_of(app).model):
        app.notify(_("Nobody else is here yet."), timeout=5)
        return
    app.push_screen(PlayersScreen())


def after_message(app: App[Any], message: ServerMessage) -> None:
    """An operator's command done from the app: say so."""
    if isinstance(message, AdminResult):
        app.notify(Text(admin_said(message)).plain, timeout=6, markup=False)


class PlayersScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", N_("Close"))]

    def compose(self) -> ComposeResult:
        model = host_of(self).model
        safety = model.safety
        options = []
        for name in people_in_view(model):
            text = Text(name)
            if safety is not None and name in safety.muted:
                text.append(" · " + _("muted"), style="italic")
            if safety is not None and name in safety.blocked:
                text.append(" · " + _("blocked"), style="italic")
            options.append(Option(text, id=name))
        with Vertical(id="dialog", classes="players"):
            yield Label(_("Players: Enter opens the menu of one"))
            yield OptionList(*options, id="people")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected, "#people")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        name = event.option.id or ""
        self.dismiss()
        self.app.push_screen(PlayerMenu(name))


class PlayerMenu(ModalScreen[None]):
    """What you can do about one player."""

    BINDINGS = [Binding("escape", "dismiss", N_("Close"))]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.player = name

    def _choices(self) -> list[tuple[str, str]]:
        safety = host_of(self).model.safety
        muted = safety is not None and self.player in safety.muted
        blocked = safety is not None and self.player in safety.blocked
        choices = [("profile", _("Profile")),
                   ("mute", _("Show their chat again") if muted else _("Mute: hide their chat from me")),
                   ("block", _("Let them join my private tables again") if blocked
                    else _("Block them from my private tables")),
                   ("report", _("Report them to the operators…"))]
        if safety is not None and safety.operator:
            choices += [("kick", _("Operator: remove from the server…")),
                        ("ban", _("Operator: ban their key…")),
                        ("lobby_mute", _("Operator: mute in the lobby's chat…")),
                        ("rename", _("Operator: rename and lock the name…")),
                        ("arena", _("Operator: open a public arena now, for an hour…"))]
        return choices

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="players"):
            yield Label(Text(self.player, style="bold"))
            yield OptionList(*[Option(text, id=key) for key, text in self._choices()], id="choices")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected, "#choices")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        choice = event.option.id or ""
        name = self.player
        app = host_of(self)
        safety = app.model.safety
        self.dismiss()
        if choice == "profile":
            app.show_profile(name)
        elif choice in ("mute", "block"):
            kept = (safety.muted if choice == "mute" else safety.blocked) if safety is not None else ()
            on_now = name not in kept
            app.send_message(Mute(name=name, on=on_now) if choice == "mute" else Block(name=name, on=on_now))
            words = {("mute", True): _("{name} is muted: their chat is hidden from you, here and next time."),
                     ("mute", False): _("You see {name}'s chat again."),
                     ("block", True): _("{name} cannot join your private tables."),
                     ("block", False): _("{name} may join your private tables again.")}
            self.app.notify(Text(words[(choice, on_now)].format(name=name)).plain, timeout=5, markup=False)
        elif choice == "report":
            self.app.push_screen(ReasonScreen(_("Report {name}: what happened?").format(name=name),
                                              sending(app, lambda text, _s: Report(name=name, reason=text))))
        elif choice == "kick":
            self.app.push_screen(ReasonScreen(_("Remove {name}: why? (they are told)").format(name=name),
                                              sending(app, lambda text, _s: Admin(command="kick", target=name,
                                                                                      reason=text))))
        elif choice in ("ban", "lobby_mute"):
            prompt = (_("Ban {name}: why? (they are told)") if choice == "ban"
                      else _("Mute {name} in the lobby's chat: why? (they are told)")).format(name=name)
            command = "ban" if choice == "ban" else "mute"
            self.app.push_screen(ReasonScreen(prompt, sending(app, lambda text, seconds: Admin(
                command=command, target=name, reason=text, seconds=seconds)), durations=True))
        elif choice == "arena":  # 2022, four seats; other arenas: ono99 admin tournament create
            self.app.push_screen(ReasonScreen(_("A public arena from now, for an hour (2022, 4 seats): its name?"),
                                              sending(app, lambda text, _s: CreateArena(minutes=60, name=text)),
                                              limit=MAX_TABLE_NAME))
        elif choice == "rename":
            self.app.push_screen(ReasonScreen(_("Rename {name} to:").format(name=name),
                                              sending(app, lambda text, _s: Admin(command="rename", target=name,
                                                                                      name=text)),
                                              limit=MAX_NAME))


def sending(app: ScreenHost, build: Callable[[str, int], Request]) -> Callable[[str, int], None]:
    """What a ``ReasonScreen``'s answer does: send the request ``build`` makes of it."""
    def answered(text: str, seconds: int) -> None:
        app.send_message(build(text, seconds))
    return answered


class ReasonScreen(ModalScreen[None]):
    """A line of text (a reason, a name) and, for a ban or a mute, how long: Enter gives them to
    ``then``, Esc cancels. (It acts itself: the menu that opened it is gone by then.)"""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, prompt: str, then: Callable[[str, int], None], *, durations: bool = False,
                 limit: int = MAX_CHAT) -> None:
        super().__init__()
        self.prompt = prompt
        self.then = then
        self.durations = durations
        self.limit = limit

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="players"):
            yield Label(Text(self.prompt))
            if self.durations:
                yield Select([(_(label), seconds) for seconds, label in DURATIONS], value=DURATIONS[0][0],
                             allow_blank=False, id="duration")
            yield Input(max_length=self.limit, id="reason")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query_one(Input).focus()

    @on(Input.Submitted, "#reason")
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        seconds = self.query_one(Select).value if self.durations else 0
        self.then(text, seconds if isinstance(seconds, int) else 0)
        self.dismiss()

    def action_cancel(self) -> None:
        self.dismiss()

"""Play now in the app: the queue dialog, and the queue as the lobby shows it."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Static

from ono99_kernel.wire.common import as_edition
from ono99_kernel.wire.requests import LeaveQueue, PlayNow

from .. import text as words
from ..client.model import Model
from ..i18n import N_, ngettext
from ..i18n import gettext as _
from .host import ShowsModel, host_of
from .unbidden import OpensByItself
from .widgets import KeysFooter

EDITIONS = ("2022", "1980")


def queue_line(model: Model) -> str:
    """Every queue's size in a line, e.g. "Play now: 3 waiting for 2022 · 4 seats"; "" when empty."""
    if not model.queues:
        return ""
    parts = [ngettext("{n} waiting for {edition}", "{n} waiting for {edition}", q.waiting).format(
        n=q.waiting, edition=q.edition) + " · " + words.count(q.seats, "{n} seat", "{n} seats")
        for q in model.queues]
    return _("Play now: {queues}").format(queues="; ".join(parts))


def queue_text(model: Model) -> str:
    """Where I wait, and how long until bots fill the table."""
    queued = model.queue
    if queued is None:
        return _("You are not waiting.")
    left = max(0.0, queued.fill_in - (time.monotonic() - model.queue_at))
    others = queued.waiting - 1
    who = _("nobody else yet") if others == 0 else words.count(others, "{n} other player", "{n} other players")
    seats = words.count(queued.seats, "{n} seat", "{n} seats")
    return (_("Looking for players: {edition} · {seats}").format(edition=queued.edition, seats=seats) + "\n"
            + _("Waiting with {who}. Bots take the empty seats in {seconds} s.").format(who=who,
                                                                                        seconds=f"{left:.0f}"))


class QueueScreen(ShowsModel, OpensByItself[None]):
    """Shown while waiting to play now: the wait, and keys to change the wish or leave the queue."""

    BINDINGS = [
        Binding("escape", "leave", N_("Leave the queue")),
        Binding("e", "edition", N_("Edition")),
        Binding("plus,equals_sign", "seats(1)", N_("More seats")),
        Binding("minus", "seats(-1)", N_("Fewer seats")),
    ]

    def __init__(self) -> None:
        super().__init__()
        # held, not queried: the screen may be shown the model as it is taken down (seated meanwhile)
        self._wait = Static(id="queue-text", markup=False)
        self._everyone = Static(id="queue-all", markup=False)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(_("Play now"), id="queue-title")
            yield self._wait
            yield self._everyone
        yield KeysFooter()

    def on_mount(self) -> None:
        self.refresh_model(host_of(self).model)
        self.set_interval(1.0, lambda: self.refresh_model(host_of(self).model))

    _gone = False

    def on_screen_resume(self) -> None:
        if self._gone and self.app.screen is self:  # its wait ended while another dialog was over it
            self.dismiss()

    def refresh_model(self, model: Model) -> None:
        if self._gone:
            return
        if model.queue is None:  # seated, or out of the queue
            self._gone = True
            if self.app.screen is self:  # not when the app has taken it down already (a table came)
                self.dismiss()
            return
        self._wait.update(Text(queue_text(model)))
        self._everyone.update(Text(queue_line(model)))

    def _ask(self, edition: str, seats: int) -> None:
        app = host_of(self)
        app.play_now_wish = (edition, seats)
        app.send_message(PlayNow(edition=as_edition(edition), seats=seats))

    # Each key steps from the wish last asked, not from the queue the server last confirmed: two
    # presses quicker than the server's answer make two steps.
    def action_edition(self) -> None:
        app = host_of(self)
        if app.model.queue is not None:
            edition, seats = app.play_now_wish
            self._ask(EDITIONS[(EDITIONS.index(edition) + 1) % len(EDITIONS)], seats)

    def action_seats(self, step: int) -> None:
        app = host_of(self)
        if app.model.queue is not None:
            edition, seats = app.play_now_wish
            self._ask(edition, max(2, min(8, seats + step)))

    def action_leave(self) -> None:
        host_of(self).send_message(LeaveQueue())
        if not self._gone:
            self._gone = True
            self.dismiss()

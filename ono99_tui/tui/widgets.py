"""Widgets of the table screen. Each renders part of the model; user strings are always plain Text."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from .model import CARD_SHORT, Model, card_kind, card_label


def card_face(code: str, edition: str) -> tuple[str, str]:
    """The big text and the small word of a card."""
    big = CARD_SHORT.get(code, code)
    small = {"number": "", "minus": "minus", "action": card_label(code, edition).lower(),
             "ono99": "stuck"}[card_kind(code)]
    if code == "ONO99":
        small = "O'NO 99" if edition == "1980" else "ONO 99"
    return big, small


class CardWidget(Static):
    """One card of the hand: its number key, face and kind, and whether it can be played."""

    class Chosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__("", classes="card", markup=False)
        self.index = index
        self.code = ""

    def show(self, code: str, edition: str, playable: bool, selected: bool) -> None:
        self.code = code
        big, small = card_face(code, edition)
        text = Text()
        text.append(f"{self.index + 1}\n", style="dim")
        text.append(f"{big}\n", style="bold")
        text.append(small or " ")
        text.append("\n")
        text.append("playable" if playable else "blocked", style="" if playable else "dim")
        self.update(text)
        self.set_class(playable, "playable")
        self.set_class(not playable, "blocked")
        self.set_class(selected, "selected")
        for kind in ("number", "minus", "action", "ono99"):
            self.set_class(card_kind(code) == kind, f"kind-{kind}")
        self.display = True

    def on_click(self) -> None:
        self.post_message(self.Chosen(self.index))


class HandView(Horizontal):
    """The player's cards, with the selected one marked."""

    def compose(self) -> ComposeResult:
        for i in range(4):
            yield CardWidget(i)

    def show(self, model: Model, selected: int) -> None:
        view = model.view
        cards = list(view["hand"]) if view else []
        edition = model.edition
        legal = set(view["legal"]) if view else set()
        for widget in self.query(CardWidget):
            if widget.index < len(cards):
                code = cards[widget.index]
                widget.show(code, edition, model.my_turn and code in legal, widget.index == selected)
            else:
                widget.display = False


class SeatsView(Static):
    """Everyone at the table: name, cards, tokens or score, and state."""

    def show(self, model: Model) -> None:
        view = model.view
        table = model.table or {}
        seats = table.get("seats", [])
        text = Text()
        count = view["seats"] if view else len(seats)
        for seat in range(count):
            if seat:
                text.append("   ")
            on_turn = view is not None and view["turn"] == seat
            marker = "▶ " if on_turn else "  "
            text.append(marker, style="bold reverse" if on_turn else "")
            text.append(Text(model.seat_name(seat), style="bold" if on_turn else ""))
            text.append(" ")
            text.append(self._status(model, view, seat, seats))
        self.update(text)

    @staticmethod
    def _status(model: Model, view: dict[str, Any] | None, seat: int, seats: list[dict[str, Any]]) -> str:
        if view is None:
            info = seats[seat] if seat < len(seats) else {}
            return "(empty)" if info.get("kind") == "empty" else f"({info.get('kind', '')})"
        parts = []
        if not view["active"][seat]:
            parts.append("OUT")
        elif not view["in_hand"][seat]:
            parts.append("dropped")
        else:
            parts.append(f"{view['hand_sizes'][seat]} cards")
        if view["tokens"] is not None:
            parts.append(f"{view['tokens'][seat]} tokens")
        if view["scores"] is not None:
            parts.append(f"{view['scores'][seat]} pts")
        info = seats[seat] if seat < len(seats) else {}
        if info.get("kind") == "human" and info.get("connected") is False:
            parts.append("away")
        if model.bot_control and seat < len(model.bot_control) and model.bot_control[seat] \
                and info.get("kind") == "human":
            parts.append("bot playing")
        if view["open_draws"][seat]:
            parts.append("draw open")
        return "[" + " ".join(parts) + "]"


class StatusLine(Static):
    """Direction, top card, piles, clock."""

    def show(self, model: Model) -> None:
        view = model.view
        if view is None:
            self.update(Text("Waiting for the game to start…"))
            return
        arrow = "→ clockwise" if view["direction"] == 1 else "← counter-clockwise"
        top = card_label(view["top_card"], model.edition) if view["top_card"] else "—"
        text = Text()
        text.append(f"direction {arrow}   top card {top}   draw pile {view['draw_pile_size']}")
        left = model.clock_left()
        if left is not None and view["winner"] is None:
            text.append(f"   clock {int(left)}s", style="bold reverse" if left < 10 else "bold")
        if view["hand_number"] and view["edition"] == "1980":
            text.append(f"   hand {view['hand_number'] + 1}")
        if model.last_play is not None:
            text.append("\nlast: ")
            text.append(model.describe(model.last_play), style="bold reverse")  # what just happened
        self.update(text)


class Banner(Static):
    """Loud news: a pending Play 2 / Double Play, an open draw, whose turn it is."""

    def show(self, model: Model) -> None:
        view = model.view
        lines: list[str] = []
        table = model.table or {}
        if view is None and table.get("status") == "waiting":
            free = sum(1 for seat in table.get("seats", []) if seat.get("kind") == "empty")
            if table.get("host") == model.my_name:
                lines.append(f"Waiting for players ({free} free seats). Press s to start: empty seats get bots.")
            else:
                lines.append(f"Waiting for {table.get('host')} to start the game ({free} free seats).")
            if table.get("code"):
                lines.append(f"Invite code: {table['code']}")
        if view is not None and view["winner"] is None:
            ob = view["obligation"]
            if ob is not None:
                name = model.seat_name(ob["seat"])
                card = "PLAY 2" if model.edition == "2022" else "DOUBLE PLAY"
                if ob["plays_left"] == 2:
                    dodge = " (or pass it on)" if ob["can_pass"] else ""
                    lines.append(f"{card}! {name} must play two cards{dodge}")
                else:
                    lines.append(f"{card}: {name} plays the second card")
            if model.can_draw:
                lines.append("Your draw is still open: press d before the next player plays, or it is lost!")
            if model.my_turn:
                lines.append("Your turn")
        self.update(Text("\n".join(lines)))
        self.set_class(bool(lines), "loud")

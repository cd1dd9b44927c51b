"""Widgets of the table screen. Each renders part of the model; user strings are always plain Text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.scalar import Unit
from textual.message import Message
from textual.screen import Screen
from textual.strip import Strip
from textual.visual import visualize
from textual.widget import Widget
from textual.widgets import Button, Static

from .. import text as words
from ..client.labels import card_label
from ..client.model import Model
from ..i18n import N_
from ..i18n import gettext as _
from .cardface import FaceState, card_face, face_lines, palette_for
from .host import HidesFooterKeys, table_host_of

if TYPE_CHECKING:
    from textual.screen import Screen


def same_text(a: Text, b: Text) -> bool:
    """Whether two texts look the same (Text's == ignores the base style)."""
    return a.plain == b.plain and a.spans == b.spans and a.style == b.style


def show_text(widget: Static, text: Text, *, fixed_size: bool) -> bool:
    """Put ``text`` in ``widget`` unless it shows that already; True if it changed. A repaint of
    the widget is all it costs, unless its height follows its text and the text wraps otherwise
    now: then the screen is laid out again too."""
    shown = widget.content
    if isinstance(shown, Text) and same_text(shown, text):
        return False
    layout = not isinstance(shown, Text) or (not fixed_size and _height_changes(widget, text))
    widget.update(text, layout=layout)
    return True


def _height_changes(widget: Static, text: Text) -> bool:
    width = widget.content_region.width
    if width <= 0:
        return True
    styles = widget.styles
    new = visualize(widget, text, markup=False)
    # a widget's RenderStyles, as Textual itself passes them where get_height's type says RulesMap
    return bool(widget.visual.get_height(styles, width) != new.get_height(styles, width))  # type: ignore[arg-type]


CARD_TEXT_WIDTH = 11  # the cells inside a card's border (a hand's card is 13 wide): "double play" fits


class CardWidget(Widget):
    """One card of the hand, drawn as a card (cardface.py): its number key, face and kind, and
    whether it can be played; the selected card stands a line higher than the others."""

    DEFAULT_CSS = """
    CardWidget {
        width: 13;
        height: 6;
        margin: 0 1 0 0;
    }
    """

    class Chosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__(classes="card")
        self.index = index
        self.code = ""
        self.edition = "2022"
        self.state = FaceState()
        self._shown: tuple[Any, ...] | None = None
        self._lines: tuple[Any, ...] = ()
        self._lines_for: tuple[Any, ...] = ()

    def show(self, code: str, edition: str, playable: bool, selected: bool, new: bool = False,
             your_turn: bool = True, keys: bool = True) -> None:
        if not self.display:
            self.display = True
        if (code, edition, playable, selected, new, your_turn, keys) == self._shown:
            return
        self._shown = (code, edition, playable, selected, new, your_turn, keys)
        self.code, self.edition = code, edition
        self.state = FaceState(key=str(self.index + 1) if keys else "", new=new, playable=playable,
                               your_turn=your_turn, selected=selected)
        # the face is painted from the state (cardface.py), not styled by classes: a class changed would
        # have the stylesheet applied to the card again at every change of turn, in every seat's app
        self.refresh()

    def face(self) -> tuple[Strip, ...]:
        """The face's lines at the widget's size (one line less than its height: the raise)."""
        width, height = self.size.width, max(3, self.size.height - 1)
        palette = palette_for(self.app.current_theme)
        key = (self.code, self.edition, self.state, width, height, palette)
        if key != self._lines_for:
            self._lines_for = key
            self._lines = face_lines(self.code, self.edition, width, height, self.state, palette)
        return self._lines

    def render_line(self, y: int) -> Strip:
        if not self.code:
            return Strip.blank(self.size.width, self.rich_style)
        row = y - (0 if self.state.selected else 1)  # the selected card is raised
        lines = self.face()
        if 0 <= row < len(lines):
            return lines[row]
        return Strip.blank(self.size.width, self.rich_style)

    def render(self) -> Text:
        """The face's characters (what the card says without colours)."""
        return Text("\n".join(strip.text for strip in self.face())) if self.code else Text("")

    def on_click(self) -> None:
        self.post_message(self.Chosen(self.index))


class CardRow(Widget):
    """Cards side by side, drawn as the hand draws them: the help's picture of each kind of card."""

    DEFAULT_CSS = """
    CardRow {
        height: 5;
    }
    """

    def __init__(self, codes: Sequence[str], edition: str = "2022", *, all_or_none: bool = False,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.codes, self.edition = tuple(codes), edition
        self.all_or_none = all_or_none  # shown only when every card fits (a list that must not be cut short)

    def _card_width(self) -> int:
        # as wide as the longest name on them needs (a long language)
        return max(11, *(Text(card_face(code, self.edition)[1]).cell_len + 2 for code in self.codes))

    def on_resize(self) -> None:
        if self.all_or_none and self.codes:
            self.display = len(self.codes) * (self._card_width() + 1) - 1 <= self.size.width

    def render_line(self, y: int) -> Strip:
        if not self.codes:
            return Strip.blank(self.size.width, self.rich_style)
        palette = palette_for(self.app.current_theme)
        pieces = []
        width = self._card_width()  # as many as fit
        fitting = max(1, (self.size.width + 1) // (width + 1))
        for code in self.codes[:fitting]:
            pieces.append(face_lines(code, self.edition, width, 5, FaceState(), palette)[y])
            pieces.append(Strip.blank(1, self.rich_style))
        return Strip.join(pieces).adjust_cell_length(self.size.width, self.rich_style)


class HandView(Horizontal):
    """The player's cards, with the selected one marked."""

    def compose(self) -> ComposeResult:
        for i in range(4):
            yield CardWidget(i)

    def show(self, model: Model, selected: int) -> None:
        view = model.view
        cards = list(view.hand) if view else []
        edition = model.edition
        legal = set(view.legal) if view else set()
        new = cards.index(model.new_card) if model.new_card in cards else None
        for widget in self.query(CardWidget):
            if widget.index < len(cards):
                code = cards[widget.index]
                widget.show(code, edition, model.viewer_on_turn and code in legal, widget.index == selected,
                            widget.index == new, model.viewer_on_turn,  # "blocked" only when it matters
                            keys=not model.replay)
            elif widget.display:
                widget.display = False


class Banner(Static):
    """Loud news: a pending Play 2 / Double Play, an open draw, whose turn it is."""

    def show(self, model: Model) -> None:
        lines = self._lines(model, short=False)
        if self._wrapped_height(lines) > self.size.height > 0:  # a long language, a long name: the short words
            lines = self._lines(model, short=True)
        show_text(self, Text("\n".join(lines)), fixed_size=True)
        self.set_class(bool(lines), "loud")

    def _wrapped_height(self, lines: list[str]) -> int:
        width = self.content_region.width
        return sum(len(Text(line).wrap(self.app.console, width)) for line in lines) if width > 0 else 0

    @staticmethod
    def _lines(model: Model, short: bool) -> list[str]:
        view = model.view
        lines: list[str] = []
        table = model.table
        if view is None and table is not None and table.status == "waiting":
            free = words.free_seats(sum(1 for seat in table.seats if seat.kind == "empty"))
            if table.host == model.my_name:
                lines.append(_("Waiting for players ({free}). Press s to start: empty seats get bots.").format(
                    free=free))
            else:
                lines.append(_("Waiting for {host} to start the game ({free}).").format(host=table.host,
                                                                                         free=free))
            if table.code:
                lines.append(_("Invite code: {code}").format(code=table.code))
                if model.invite_links:
                    lines.append(_("Invite friends: {links}").format(
                        links=" · ".join(link.replace("{code}", table.code) for link in model.invite_links)))
        if view is not None and view.winner is None:
            ob = view.obligation
            if ob is not None:
                me = model.is_me(ob.seat)
                name = model.seat_name(ob.seat)
                card = card_label("PLAY2" if model.edition == "2022" else "DOUBLE", model.edition).upper()
                if ob.plays_left == 2:
                    if ob.can_pass and not short:
                        line = (_("{card}! You must play two cards (or pass it on)") if me
                                else _("{card}! {name} must play two cards (or pass it on)"))
                    else:
                        line = _("{card}! You must play two cards") if me else _("{card}! {name} must play two cards")
                else:
                    line = _("{card}: you play the second card") if me else _("{card}: {name} plays the second card")
                lines.append(line.format(card=card, name=name))
            left = model.clock_left()
            if model.can_draw and left is not None and not model.my_turn:  # the next player waits this long
                lines.append((_("Draw with d within {seconds} s!") if short else
                              _("Your draw is still open: press d within {seconds} s, or it is lost!")).format(
                    seconds=int(left)))
            elif model.can_draw:
                lines.append(_("Draw with d before the next player plays!") if short else
                             _("Your draw is still open: press d before the next player plays, or it is lost!"))
            if model.my_turn:
                lines.append(_("Your turn"))
            elif model.replay and view.turn is not None:
                lines.append(_("{name}'s turn").format(name=model.plain_name(view.turn)))
        return lines


class ClockBar(Static):
    """Over a dialog: the table's turn clock, while one runs (the table under the dialog plays on)."""

    def on_mount(self) -> None:
        self._show()
        self.set_interval(1.0, self._show)

    def _show(self) -> None:
        model = table_host_of(self).model
        left = model.clock_left() if model.view is not None else None
        if left is None or model.view is None or model.view.winner is not None:
            self.display = False
            return
        turn = model.plain_name(model.view.turn)
        whose = _("Your turn") if model.my_turn else _("{name}'s turn").format(name=turn)
        self.display = True
        show_text(self, Text(f"{whose} · " + _("clock {seconds}s").format(seconds=int(left))), fixed_size=True)


class ButtonRow(Horizontal):
    """A dialog's buttons in a row, or in two columns when the row would cut them (a long
    language at 80 columns): every button shows its whole label."""

    DEFAULT_CSS = """
    ButtonRow.-two-columns {
        layout: grid;
        grid-size: 2;
        grid-gutter: 0 1;
        grid-rows: auto;
    }
    ButtonRow.-two-columns Button {
        width: 100%;
        margin-right: 0;
    }
    """

    def on_mount(self) -> None:
        # The first frame is drawn before the first resize: fit it to the width the dialog will have
        dialog = self.parent
        width = dialog.styles.width if isinstance(dialog, Widget) else None
        if width is not None and width.unit is Unit.CELLS and isinstance(dialog, Widget):
            self._fit(min(int(width.value), self.app.size.width) - dialog.styles.gutter.width)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        self.set_class(sum(self._width(button) for button in self.query(Button)) > width, "-two-columns")

    @staticmethod
    def _width(button: Button) -> int:
        """The cells a button takes in a row: its label with a cell each side, padding and border, at
        least its min-width, and its margin."""
        styles = button.styles
        least = int(styles.min_width.value) if styles.min_width is not None else 0
        return max(Text(str(button.label)).cell_len + 2 + styles.gutter.width, least) + styles.margin.width


class FooterEntry(NamedTuple):
    key: str
    display: str
    description: str
    enabled: bool
    essential: bool = False  # kept when not all keys fit: help, quit, settings, close


ESSENTIAL_ACTIONS = {"help", "app.help", "quit", "app.quit", "settings", "app.settings", "dismiss", "close"}


def put_up_while_closing(screen: Screen[Any]) -> bool:
    """Whether the app ended while ``screen`` was being put up: its widgets are going (or never
    came), so its ``on_mount`` has nothing to set up."""
    return screen.app.return_code is not None or not screen.children


# Textual's own key descriptions that reach the footer (translated there as the game's are): the
# list a Select opens closes with Esc
TEXTUAL_KEYS = (N_("Dismiss menu"),)
# keys a button names whose caps differ between keyboards (German ones say Pos1)
KEY_NAMES = {"home": N_("Home")}


def key_name(key: str) -> str:
    """A key as a button names it, e.g. "r", or Home in the player's language."""
    return _(KEY_NAMES[key]) if key in KEY_NAMES else key


class KeysFooter(Widget, can_focus=False):
    """The screen's keys on the bottom line, drawn like Textual's ``Footer``.

    One widget drawing one line: Textual's footer mounts and styles a widget per key and builds
    them all again whenever the bindings might have changed, which was a third of the CPU of an SSH
    session's start (all sessions share one event loop). This one repaints only when the keys shown
    change.
    """

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"keys-footer--key", "keys-footer--description", "keys-footer--divider",
                         "keys-footer--hover"}
    DEFAULT_CSS = """
    KeysFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .keys-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .keys-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .keys-footer--divider {
            color: $foreground 20%;
        }
        & > .keys-footer--hover {
            background: $block-hover-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries: tuple[FooterEntry, ...] = ()
        self._palette: FooterEntry | None = None
        self._spans: list[tuple[int, int, FooterEntry]] = []  # cells of each key, for the mouse
        self._hover: str | None = None

    def on_mount(self) -> None:
        self._entries, self._palette = self._read_bindings()
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _read_bindings(self) -> tuple[tuple[FooterEntry, ...], FooterEntry | None]:
        """What Textual's footer shows: the first shown binding of each action, and the palette key."""
        app = self.app
        active = self.screen.active_bindings
        entries: list[FooterEntry] = []
        actions: set[str] = set()
        screen = self.screen
        hides = screen if isinstance(screen, HidesFooterKeys) else None  # a screen may hide keys that do nothing now
        for _key, binding, enabled, _tooltip in active.values():
            if binding.show and binding.action not in actions and (hides is None or hides.footer_shows(binding.action)):
                actions.add(binding.action)
                entries.append(FooterEntry(binding.key, key_name(app.get_key_display(binding)), _(binding.description),
                                           enabled, binding.action in ESSENTIAL_ACTIONS))
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _key, binding, enabled, _tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = FooterEntry(binding.key, app.get_key_display(binding), _(binding.description), enabled)
        return tuple(entries), palette

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        entries, palette = self._read_bindings()
        if (entries, palette) != (self._entries, self._palette):
            self._entries, self._palette = entries, palette
            self.refresh()  # one line, always: no layout

    def _entry_text(self, entry: FooterEntry, compact: bool = False) -> Text:
        key_style = self.get_component_rich_style("keys-footer--key")
        description_style = self.get_component_rich_style("keys-footer--description")
        if compact:  # how Textual's footer draws the palette key
            key, description = entry.display, f" {entry.description}" if entry.description else ""
        else:
            key, description = f" {entry.display} ", f"{entry.description} " if entry.description else ""
        text = Text.assemble((key, key_style), (description, description_style))
        if not entry.enabled:
            text.stylize(Style(dim=True))
        if entry.key == self._hover:
            text.stylize(Style(bgcolor=self.get_component_rich_style("keys-footer--hover").bgcolor))
        return text

    def render(self) -> Text:
        width = self.size.width
        right = Text()
        palette = self._palette
        # Each key with its padding; when they do not all fit (a long language, a narrow terminal),
        # each key close to its label, one space between keys, and the screen's keys before the
        # command palette's.
        compact = sum(self._entry_text(entry).cell_len for entry in self._entries) > width - 14
        if compact and sum(self._entry_text(e, compact=True).cell_len + 1 for e in self._entries) > width - 14:
            palette = None
        if palette is not None:
            right.append("▏", self.get_component_rich_style("keys-footer--divider"))
            right.append_text(self._entry_text(palette, compact=True))
            right.append(" ")
        left_width = max(0, width - right.cell_len)
        left = Text()
        self._spans = []
        for entry in self._fitting(left_width, compact):
            start = left.cell_len
            shown = self._entry_text(entry, compact=compact)
            if compact and start:
                shown = Text.assemble(" ", shown)
            if start + shown.cell_len > left_width:
                break  # a key is shown whole or not at all
            left.append_text(shown)
            self._spans.append((start, left.cell_len, entry))
        left.truncate(left_width, pad=True)
        if palette is not None:
            self._spans.append((left_width + 1, width, palette))
        line = Text.assemble(left, right, no_wrap=True, end="")
        line.stylize_before(self.rich_style)
        return line

    def _fitting(self, width: int, compact: bool) -> list[FooterEntry]:
        """The keys that fit in ``width`` cells, in their order: when not all do, the essential ones
        (help, quit, settings, close) and as many of the others as leave room for them."""
        gap = 1 if compact else 0  # the space before each key but the first
        sizes = [self._entry_text(entry, compact=compact).cell_len + gap for entry in self._entries]
        if sum(sizes) <= width + gap:
            return list(self._entries)
        room = width + gap - sum(size for entry, size in zip(self._entries, sizes, strict=True) if entry.essential)
        kept = []
        for entry, size in zip(self._entries, sizes, strict=True):
            if entry.essential:
                kept.append(entry)
            elif size <= room:
                kept.append(entry)
                room -= size
        return kept

    def _entry_at(self, x: int) -> FooterEntry | None:
        return next((entry for start, end, entry in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        entry = self._entry_at(event.x)
        if entry is None:
            return
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        entry = self._entry_at(event.x)
        self._set_hover(entry.key if entry is not None else None)

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, key: str | None) -> None:
        if key != self._hover:
            self._hover = key
            self.refresh()

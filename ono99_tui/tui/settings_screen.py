"""The settings dialog (F2): theme, language, the turn bell and the player's name."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Label, Select, Static, Switch

from ..i18n import LANGUAGES, N_, change_language, current_language
from ..i18n import gettext as _
from .host import host_of
from .inputs import Input
from .themes import theme_name
from .widgets import ClockBar, KeysFooter


class SettingsScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", N_("Close"))]

    def compose(self) -> ComposeResult:
        app = self.app
        host = host_of(self)
        yield ClockBar(markup=False)
        with Vertical(id="dialog"):
            yield Label(_("Settings"))
            with Horizontal(classes="row"):
                yield Label(_("Theme"))
                themes = [(theme_name("ono99-mono"), "ono99-mono"),
                          *sorted(((theme_name(n), n) for n in app.available_themes if n != "ono99-mono"),
                                  key=lambda pair: pair[0].casefold())]
                yield Select(themes, value=app.theme, allow_blank=False, id="theme")
            with Horizontal(classes="row"):
                yield Label(_("Language"))
                yield Select([(name, code) for code, name in LANGUAGES.items()], value=current_language(),
                             allow_blank=False, id="language")
            with Horizontal(classes="row"):
                yield Switch(host.bell_on_turn, id="bell")
                yield Label(_("Ring the terminal bell on your turn"))
            # one line (the dialog holds its rows at 80×24)
            yield Checkbox(_("Reduce motion: show each move at once"), self.app.animation_level == "none",
                           id="reduced-motion")
            if host.keep_settings:
                with Horizontal(classes="row"):
                    yield Label(_("Your name"))
                    yield Input(host.settings.name or host.player_name, id="name", max_length=20)
                yield Static(_("Your name is used from the next game or connection on."), markup=False)
        yield KeysFooter()  # its own keys, not the table's under it

    def on_mount(self) -> None:
        for choice in self.query(Select):
            choice.styles.width = "1fr"  # a theme's name on one line ("hoher Kontrast (ohne Farbe)")

    @on(Select.Changed, "#theme")
    def theme_changed(self, event: Select.Changed) -> None:
        self.app.theme = str(event.value)
        host = host_of(self)
        host.settings.theme = self.app.theme
        host.save_settings()

    @on(Select.Changed, "#language")
    def language_changed(self, event: Select.Changed) -> None:
        """Speak the language chosen from now on (an SSH session: that session only), and keep it."""
        language = str(event.value)
        if language == current_language():
            return
        change_language(language)
        host = host_of(self)
        host.settings.language = language
        host.save_settings()
        self.dismiss()
        host.relabel()

    @on(Input.Changed, "#name")
    def name_changed(self, event: Input.Changed) -> None:
        host = host_of(self)
        name = event.value.strip()
        if name and name.isprintable():
            host.settings.name = name
            host.save_settings()

    @on(Switch.Changed, "#bell")
    def bell_changed(self, event: Switch.Changed) -> None:
        host = host_of(self)
        host.bell_on_turn = event.value
        host.settings.bell = event.value
        host.save_settings()

    @on(Checkbox.Changed, "#reduced-motion")
    def reduced_motion_changed(self, event: Checkbox.Changed) -> None:
        host = host_of(self)
        self.app.animation_level = "none" if event.value else "full"
        host.settings.reduced_motion = event.value
        host.save_settings()

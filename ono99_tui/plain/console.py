"""The player's terminal as lines: sentences appended at the end, what the player types echoed as
they type it, nothing ever redrawn.

A key pressed at the start of an empty line may be a command on its own (a card's number, ``t``,
``h``…): the session says whether it is, and then nothing is echoed, the answer is the next line.
Any other key starts a typed line, echoed, sent with Enter. A sentence that arrives while a line is
half typed ends that line on the screen, comes on a line of its own, and the half-typed line is
written again after it, so the player reads where they are; nothing is moved or erased but the
character Backspace takes back, as a terminal's own line editing does.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

ENTER = "\r\n"
BACKSPACE = "\x7f\x08"
ESCAPE = "\x1b"
END = "\x03\x04"  # Ctrl+C, Ctrl+D: leave at once
MAX_LINE = 400  # characters of one typed line: a chat line is at most 300
# Bidirectional overrides and isolates would turn the rest of a line around on the player's screen.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def plain_text(text: str) -> str:
    """Another player's words (a name, a chat line) as plain text: no control characters (escape
    sequences, carriage returns, backspaces) and no bidirectional overrides. Joiners stay: Devanagari
    needs them."""
    return "".join(c for c in text if unicodedata.category(c) != "Cc" and c not in BIDI_CONTROLS)


@dataclass(slots=True)
class Typing:
    """A line being typed: what it is for (``None``: a command) and what it is so far."""

    prompt: str
    then: Callable[[str], None] | None
    text: str = ""


class Console:
    """Lines out through ``write`` (which takes text as the terminal should receive it), keys in
    through ``feed``. ``on_key(key)`` is asked about a key pressed at an empty line (True: it was a
    command); ``on_line(text)`` gets a typed command line; ``on_end()`` is Ctrl+C or Ctrl+D;
    ``on_input_end()`` the input's end (``end_input``), after what was typed ahead.
    ``newline`` is what ends a line on this terminal: "\\n" where the terminal adds the carriage
    return (a local tty), "\\r\\n" over SSH. ``keys``: keys come as they are pressed, so what is typed
    is echoed here and a key may act alone; False for input that comes a line at a time (not a
    terminal, or an SSH session without one, whose client edits and shows the line itself): then every
    line is a command, a one-key command too."""

    def __init__(self, write: Callable[[str], None], *, newline: str = "\n", keys: bool = True) -> None:
        self.write = write
        self.newline = newline
        self.keys = keys
        self.echo = keys
        self.on_key: Callable[[str], bool] = lambda key: False
        self.on_line: Callable[[str], None] = lambda text: None
        self.on_end: Callable[[], None] = lambda: None
        # the input ended (a script's, a file's, /dev/null): told once what was typed ahead has been read
        self.on_input_end: Callable[[], None] = lambda: None
        self._input_ended = False
        self.typing: Typing | None = None
        self._shown = False  # a half-typed line is on the screen, not ended
        self._escape = ""  # an escape sequence (an arrow key…) being skipped
        self._after_cr = False
        # Keys typed before there is anything to type them to (the connection opening, the name not
        # asked for yet) wait here, then count as typed once ``hold(False)``; Ctrl+C and Ctrl+D act at once.
        self.holding = False
        self._held = ""

    # --- out ---------------------------------------------------------------------------------------
    def say(self, line: str) -> None:
        """One sentence on a line of its own, at the end."""
        line = line.replace("\r", " ").replace("\n", " ")
        out = self.newline if self._shown else ""
        out += line + self.newline
        self._shown = False
        if self.typing is not None and self.echo and (self.typing.prompt or self.typing.text):
            out += self.typing.prompt + self.typing.text
            self._shown = True
        self.write(out)

    def ask_line(self, prompt: str, then: Callable[[str], None]) -> None:
        """Read the next typed line for ``then`` (a chat line, a name), after ``prompt`` on the screen;
        what was typed ahead is its start."""
        self.typing = Typing(prompt, then)
        if self.echo and prompt:
            self.write(prompt)
            self._shown = True
        self.hold(False)

    def cancel_line(self) -> None:
        """Forget the line being typed (it is ended on the screen)."""
        if self._shown:
            self.write(self.newline)
            self._shown = False
        self.typing = None

    # --- in ----------------------------------------------------------------------------------------
    def hold(self, holding: bool) -> None:
        self.holding = holding
        if not holding and self._held:
            held, self._held = self._held, ""
            self.feed(held)
        if not self.holding and self._input_ended:
            self._input_ended = False
            self.on_input_end()

    def end_input(self) -> None:
        """Nothing more will be typed: ``on_input_end`` is told now, or once the keys held are read."""
        self._input_ended = True
        self.hold(self.holding)

    def feed(self, text: str) -> None:
        for char in text:
            if self.holding and char not in END:
                self._held = (self._held + char)[-MAX_LINE:]
            else:
                self._char(char)

    def _char(self, char: str) -> None:
        after_cr, self._after_cr = self._after_cr, char == "\r"
        if self._escape:
            self._skip_escape(char)
            return
        if char == "\n" and after_cr:
            return  # the second half of a CR LF Enter
        if char in ENTER:
            self._enter()
        elif char in END:
            self.on_end()
        elif char == ESCAPE:
            self._escape = char
            self.cancel_line()
        elif char in BACKSPACE:
            typing = self.typing
            if typing is not None and typing.text:
                typing.text = typing.text[:-1]
                if self.echo:
                    self.write("\b \b")
        elif unicodedata.category(char) == "Cc":
            return  # Tab and other control keys do nothing
        elif self.typing is None:
            if not self.keys or not self.on_key(char):
                self.typing = Typing("", None)
                self._type(char)
        else:
            self._type(char)

    def _type(self, char: str) -> None:
        typing = self.typing
        assert typing is not None
        if len(typing.text) >= MAX_LINE:
            return
        typing.text += char
        if self.echo:
            self.write(char)
            self._shown = True

    def _enter(self) -> None:
        typing, self.typing = self.typing, None
        if self._shown:
            self.write(self.newline)
            self._shown = False
        if typing is None:
            self.on_line("")
        elif typing.then is not None:
            typing.then(typing.text)
        else:
            self.on_line(typing.text)

    def _skip_escape(self, char: str) -> None:
        """The rest of an escape sequence (ESC [ … final, ESC O x); after a lone Esc, a key as any other."""
        sequence = self._escape + char
        if len(sequence) == 2 and char not in "[O":
            self._escape = ""
            self._char(char)
            return
        if len(sequence) > 2 and ("\x40" <= char <= "\x7e" or sequence[1] == "O"):
            self._escape = ""
            return
        self._escape = sequence if len(sequence) < 32 else ""

"""A plain-mode player in a real terminal: a command run in a tmux pane, its output read as a screen
reader gets it (every byte the program wrote, from ``tmux pipe-pane``, split into lines), keys typed
with ``tmux send-keys``. Waits are for a line to arrive, with a generous deadline; never timings.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shlex
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

PATIENCE = 60.0  # seconds a wait may take before the test fails; never a speed requirement
ROOT = Path(__file__).resolve().parent.parent
LAUNCH = ROOT / "tests" / "plain_launch.py"
CARD = re.compile(r"(\d+), ([^;]*?)(, not playable)?(?:;|\.$)")


async def run(*args: str) -> str:
    proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), PATIENCE)
    assert proc.returncode == 0, out.decode(errors="replace")
    return out.decode(errors="replace")


def connect_command(port: int, data_dir: Path, *extra: str, name: str = "Kim") -> str:
    """The shell command of ``ono99 connect --plain`` to a server on loopback, as ``name``, with its own data."""
    return shlex.join([sys.executable, "-m", "ono99_tui.cli", "connect", "--plain", f"127.0.0.1:{port}",
                       "--data-dir", str(data_dir), "--name", name, *extra])


def seeded_ono99(seed: int, *args: str) -> str:
    """The shell command that runs ``ono99 ARGS`` with every deal drawn from ``seed``."""
    return shlex.join([sys.executable, str(LAUNCH), str(seed), *args])


class Pane:
    """A tmux pane running one command, and every byte it wrote."""

    def __init__(self, tmp_path: Path, name: str = "play") -> None:
        self.socket = f"ono99-plain-{uuid.uuid4().hex[:8]}"
        self.tmux = ("tmux", "-L", self.socket, "-f", "/dev/null")
        self.name = name
        self.stream_path = tmp_path / f"{name}-{uuid.uuid4().hex[:6]}.out"
        self.read_upto = 0  # lines before this one were waited for already

    async def start(self, command: str, env: dict[str, str] | None = None, width: int = 100) -> None:
        self.stream_path.write_bytes(b"")
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        # the pane's output is piped from its first byte: the command waits for the pipe to be open
        ready = self.stream_path.with_suffix(".ready")
        script = f"while [ ! -e {shlex.quote(str(ready))} ]; do sleep 0.05; done; cd {shlex.quote(str(ROOT))}; " \
                 f"exec env {exports} {command}"
        await run(*self.tmux, "new-session", "-d", "-s", self.name, "-x", str(width), "-y", "50", "sh", "-c", script)
        await run(*self.tmux, "set-option", "-t", self.name, "remain-on-exit", "on")
        await run(*self.tmux, "pipe-pane", "-t", self.name, "-o", f"cat >> {shlex.quote(str(self.stream_path))}")
        ready.write_text("")

    @property
    def stream(self) -> bytes:
        return self.stream_path.read_bytes()

    def lines(self) -> list[str]:
        """The lines written so far, as text (a line still being written is left out)."""
        text = self.stream.decode("utf-8", errors="replace")
        return text.split("\r\n")[:-1]

    async def keys(self, *keys: str) -> None:
        """Keys as tmux names them ("y", "Enter") or literal text (``literal:TEXT``)."""
        for key in keys:
            if key.startswith("literal:"):
                await run(*self.tmux, "send-keys", "-t", self.name, "-l", key[len("literal:"):])
            else:
                await run(*self.tmux, "send-keys", "-t", self.name, key)

    async def wait_line(self, wanted: str | Callable[[str], bool], what: str = "") -> str:
        """The first line from ``read_upto`` on that is ``wanted`` (or satisfies it); read up to it."""
        test = wanted if callable(wanted) else (lambda line: line == wanted)
        loop = asyncio.get_running_loop()
        end = loop.time() + PATIENCE
        while True:
            lines = self.lines()
            for index in range(self.read_upto, len(lines)):
                if test(lines[index]):
                    self.read_upto = index + 1
                    return lines[index]
            if loop.time() > end:
                tail = "\n".join(lines[-30:])
                raise AssertionError(f"timed out waiting for {what or wanted!r}; the last lines:\n{tail}")
            await asyncio.sleep(0.05)

    async def connect(self, port: int, folder: Path, *extra: str, name: str = "Kim") -> None:
        """Run ``ono99 connect --plain`` as ``name`` to a server on loopback, with its data in ``folder``
        (``kim/`` for Kim) and its settings in ``folder/cfg``."""
        await self.start(connect_command(port, folder / name.lower(), *extra, name=name),
                         env={"ONO99_CONFIG_DIR": str(folder / "cfg")})

    async def trust_the_server(self) -> None:
        """Answer yes to a first visit's question whether to trust the server's certificate."""
        await self.wait_line("Type y for yes, n for no.")
        await self.keys("y")

    async def exited(self) -> bool:
        out = await run(*self.tmux, "list-panes", "-t", self.name, "-F", "#{pane_dead}")
        return out.strip() == "1"

    async def wait_exit(self) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + PATIENCE
        while not await self.exited():
            if loop.time() > end:
                raise AssertionError("the program did not end:\n" + "\n".join(self.lines()[-20:]))
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await run(*self.tmux, "kill-server")


def playable_card(hand_line: str, not_playable: str = "not playable") -> str | None:
    """The number of the first card a "Your cards: 1, ten; 2, zero, not playable; …" line does not
    mark as not playable; None if every card is marked."""
    body = hand_line.split(":", 1)[1].strip()
    for entry in body.rstrip(".").split("; "):
        number, _, rest = entry.partition(", ")
        if number.strip().isdigit() and not rest.endswith(", " + not_playable):
            return number.strip()
    return None


async def move_for(pane: Pane, hand_line: str, not_playable: str = "not playable",
                   discard: str = "Type f to discard four ONO 99 cards.") -> str:
    """The key of a move at a turn whose hand ``hand_line`` says: the first playable card's number, or,
    holding four ONO 99 cards and nothing else to play (a deal a server's random seed can give), ``f``
    for the 2022 edition's discard once the plain mode offers it."""
    card = playable_card(hand_line, not_playable)
    if card is not None:
        return card
    await pane.wait_line(discard, f"a turn with no card to play is the server's to end: {hand_line}")
    return "f"


def rewrites(stream: bytes) -> list[str]:
    """Whatever in a terminal stream moves back over what was written: escape and control sequences
    (cursor movement, clearing, colour), a carriage return not ending a line, backspace, form feed,
    vertical tab."""
    found = []
    if b"\x1b" in stream:
        found.append("an escape sequence")
    if "\x9b" in stream.decode("utf-8", errors="replace"):
        found.append("a C1 control sequence introducer")
    if re.search(rb"\r(?!\n)", stream):
        found.append("a carriage return that does not end a line")
    for byte, name in ((b"\x08", "a backspace"), (b"\x0c", "a form feed"), (b"\x0b", "a vertical tab")):
        if byte in stream:
            found.append(name)
    return found

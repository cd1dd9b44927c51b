"""The app measures every line of Nepali and Vietnamese as a real terminal draws it: each message line is
printed in tmux (which takes its widths from the C library's wcwidth, as xterm and VTE do), the
terminal is asked where its cursor stopped, and that column is compared with the cells Textual lays
the line out in (tui/cells.py). docs/translating.md says which terminal this is and why."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sys
import uuid
from pathlib import Path

from babel.messages.pofile import read_po
from rich.cells import cell_len

from ono99_tui.tui.cells import match_terminal_widths

ROOT = Path(__file__).resolve().parent.parent
PATIENCE = 60.0
# Run inside the terminal: print each line at the start of a cleared row, ask for the cursor (ESC[6n),
# and keep the column the terminal answers.
MEASURE = r"""
import json, os, re, sys, termios, tty
lines = json.load(open(sys.argv[1], encoding="utf-8"))
fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd)
tty.setraw(fd)
columns = []
try:
    for line in lines:
        os.write(1, b"\r\x1b[2K" + line.encode() + b"\x1b[6n")
        answer = b""
        while not answer.endswith(b"R"):
            answer += os.read(fd, 64)
        columns.append(int(re.search(rb"\[\d+;(\d+)R", answer).group(1)) - 1)
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, saved)
json.dump(columns, open(sys.argv[2], "w"))
"""


def message_lines(language: str) -> list[str]:
    """Every line of the language's messages that fits a terminal row."""
    with (ROOT / "ono99_tui" / "locale" / language / "LC_MESSAGES" / "ono99.po").open("rb") as f:
        catalog = read_po(f)
    lines: set[str] = set()
    for message in catalog:
        if message.id:
            texts = message.string if isinstance(message.string, tuple | list) else [message.string]
            lines |= {line.strip() for text in texts for line in (text or "").split("\n") if 0 < len(line.strip()) < 90}
    return sorted(lines)


async def run(*args: str) -> None:
    proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), PATIENCE)
    assert proc.returncode == 0, out.decode(errors="replace")


async def test_tmux_draws_every_nepali_and_vietnamese_line_in_the_cells_the_app_lays_it_out_in(
        tmp_path: Path) -> None:
    assert shutil.which("tmux"), "tmux is part of the test machine"
    match_terminal_widths()
    lines = message_lines("ne") + message_lines("vi")
    (tmp_path / "lines.json").write_text(json.dumps(lines), encoding="utf-8")
    (tmp_path / "measure.py").write_text(MEASURE, encoding="utf-8")
    done = tmp_path / "columns.json"
    tmux = ("tmux", "-L", f"ono99-widths-{uuid.uuid4().hex[:8]}", "-f", "/dev/null")
    try:
        await run(*tmux, "new-session", "-d", "-x", "120", "-y", "10", "env", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
                  sys.executable, str(tmp_path / "measure.py"), str(tmp_path / "lines.json"), str(done))
        for _ in range(int(PATIENCE / 0.1)):
            if done.exists() and done.stat().st_size:
                break
            await asyncio.sleep(0.1)
        columns = json.loads(done.read_text())
    finally:
        with contextlib.suppress(Exception):
            await run(*tmux, "kill-server")
    assert len(columns) == len(lines) > 1000
    differ = [(line, cell_len(line), column) for line, column in zip(lines, columns, strict=True)
              if cell_len(line) != column]
    assert differ == []

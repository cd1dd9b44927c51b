"""The project's layers (README.md, "Layout"): the core, the bots and the protocol never pull in the UI, SSH or I/O."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the protocol and the LAN advertisement's TXT record are sans-I/O too
PURE_PACKAGES = ["ono99_tui.core", "ono99_tui.bots", "ono99_tui.protocol", "ono99_tui.lan"]
FORBIDDEN = ["textual", "asyncssh", "zeroconf", "asyncio", "rich", "sqlite3", "socket"]


def test_core_bots_and_protocol_import_no_ui_ssh_or_io_modules() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {name}\n" for name in PURE_PACKAGES)
        + f"loaded = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        + "print(','.join(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "", f"pure layers loaded: {out.stdout.strip()}"


def test_core_never_imports_the_global_random_functions() -> None:
    """Randomness comes from an injected random.Random: no module-level random.choice & co."""
    offenders = []
    for path in (ROOT / "ono99_tui" / "core").glob("*.py"):
        text = path.read_text()
        for call in ("random.choice(", "random.shuffle(", "random.randint(", "random.random(",
                     "random.randrange(", "random.sample(", "random.seed("):
            if call in text:
                offenders.append(f"{path.name}: {call}")
    assert offenders == []


def test_ruff_is_clean() -> None:
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "."], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_is_clean_on_the_core_and_bots() -> None:
    out = subprocess.run([sys.executable, "-m", "mypy"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr

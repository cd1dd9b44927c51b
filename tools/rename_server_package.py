"""Import the game server as ``ono99_server`` instead of the top-level name ``server``, which other
distributions use too. Run once from the repository's root, on a clean tree, then reinstall:

    python tools/rename_server_package.py && .venv/bin/pip install -e '.[test]'

The folder stays ``server/`` (the layout names it). A link beside it, ``ono99_server -> server``, is
what the package is found, built, installed and type-checked by: setuptools and mypy both take a
package's import name from its folder, and mypy cannot see the import hook that a remapped name
(``package-dir``) gets in an editable install, so the name has to exist as a folder. The script

- makes the link (and adds it to git),
- rewrites every ``from server…`` / ``import server…`` in the tracked Python files, the dotted module
  names in strings (``"server.table.secrets.randbits"``) and the few places the architecture test
  names the package,
- adds a test that nothing imports ``server`` by its old name (run from the repository's root, the
  old name would still import, and only an installed copy would fail),
- changes pyproject.toml (the package found, mypy's files), README.md's layout, and
- sorts the imports it moved (``ruff check --select I --fix``).

It is idempotent: a second run changes nothing. It stops before changing anything when a place it
expects is not there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OLD, NEW = "server", "ono99_server"
FOLDER = ROOT / OLD
LINK = ROOT / NEW
MODULES = sorted(p.stem for p in FOLDER.glob("*.py") if p.stem != "__init__") + sorted(
    p.name for p in FOLDER.iterdir() if p.is_dir() and (p / "__init__.py").exists())

# an import statement of the old name, at the start of a line (also indented, inside functions)
IMPORT = re.compile(rf"^(\s*)(from|import) {OLD}(?=[\s.,]|$)", re.MULTILINE)
# ``import server.config`` (no ``as``): the code then says ``server.config.X``, which cannot be told
# apart from a variable named ``server`` by text alone; such an import is refused, to be written as
# ``from server.config import X`` first
PLAIN_IMPORT = re.compile(rf"^\s*import {OLD}(\.\w+)*\s*$", re.MULTILINE)
# a dotted name of one of the package's modules in a string: "server.table.secrets.randbits"
DOTTED = re.compile(rf"""(["']){OLD}\.({"|".join(MODULES)})\b""")

ARCHITECTURE = ROOT / "tests" / "test_architecture.py"
ARCHITECTURE_EDITS = [
    (f'modules_under("{OLD}")', f'modules_under("{NEW}")'),
    (f'm == "{OLD}" or m.startswith("{OLD}.")', f'm == "{NEW}" or m.startswith("{NEW}.")'),
    (rf"(from|import)\s+{OLD}\b", rf"(from|import)\s+{NEW}\b"),
]
GUARD = f'''

def test_the_server_is_imported_by_its_package_name() -> None:
    """The folder {OLD}/ is the package ``{NEW}`` (found by the link {NEW} -> {OLD}). Run from
    the repository's root, ``import {OLD}`` would still work and only an installed copy would fail:
    no code says it."""
    folders = ("ono99_tui", "{OLD}", "tests", "tools", "bench", "screenshots")
    offenders = [str(path.relative_to(ROOT)) for folder in folders for path in (ROOT / folder).rglob("*.py")
                 if re.search(r"^\\s*(from|import)\\s+{OLD}\\b", path.read_text(encoding="utf-8"), re.MULTILINE)]
    assert offenders == []
    assert (ROOT / "{NEW}").resolve() == (ROOT / "{OLD}").resolve()
'''

PYPROJECT = ROOT / "pyproject.toml"
PYPROJECT_EDITS = [
    (f'include = ["ono99_tui*", "{OLD}*"]', f'include = ["ono99_tui*", "{NEW}*"]'),
    (f'files = ["ono99_tui", "{OLD}", ', f'files = ["ono99_tui", "{NEW}", '),
]
README = ROOT / "README.md"
README_EDITS = [
    (f"`{OLD}/` holds the game server (the lobby,",
     f"`{OLD}/` (the package `{NEW}`) holds the game server (the lobby,"),
]


def tracked_python_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    this = Path(__file__).resolve()
    return [ROOT / line for line in out.stdout.splitlines()
            if not line.startswith(f"{NEW}/") and (ROOT / line).resolve() != this]


def rewrite_python(path: Path, text: str) -> str:
    plain = PLAIN_IMPORT.search(text)
    if plain:
        sys.exit(f"{path.relative_to(ROOT)}: {plain.group(0).strip()!r} has no 'as': write it as a from-import "
                 "(or 'import ... as ...') first; nothing was changed")
    text = IMPORT.sub(rf"\1\2 {NEW}", text)
    return DOTTED.sub(rf"\1{NEW}.\2", text)


def apply_edits(path: Path, edits: list[tuple[str, str]]) -> str:
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        if old not in text and new not in text:
            sys.exit(f"{path.relative_to(ROOT)}: expected {old!r}; nothing was changed")
        text = text.replace(old, new)
    return text


def main() -> None:
    os.chdir(ROOT)
    if LINK.exists() and not LINK.is_symlink():
        sys.exit(f"{NEW} exists and is not the link to {OLD}/")
    # check every expected place first, so that a failure changes nothing
    changes: dict[Path, str] = {}
    for path in tracked_python_files():
        text = path.read_text(encoding="utf-8")
        new = rewrite_python(path, text)
        if new != text:
            changes[path] = new
    architecture = apply_edits(ARCHITECTURE, ARCHITECTURE_EDITS)
    architecture = rewrite_python(ARCHITECTURE, architecture)
    if "def test_the_server_is_imported_by_its_package_name" not in architecture:
        architecture = architecture.rstrip("\n") + "\n" + GUARD
    changes[ARCHITECTURE] = architecture
    changes[PYPROJECT] = apply_edits(PYPROJECT, PYPROJECT_EDITS)
    changes[README] = apply_edits(README, README_EDITS)

    if not LINK.is_symlink():
        LINK.symlink_to(OLD, target_is_directory=True)
        print(f"made the link {NEW} -> {OLD}")
    subprocess.run(["git", "add", NEW], cwd=ROOT, check=True)
    for path, text in changes.items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"rewrote {path.relative_to(ROOT)}")
    ruff = Path(sys.executable).parent / "ruff"
    subprocess.run([str(ruff) if ruff.exists() else "ruff", "check", "--select", "I", "--fix", "--quiet", "."],
                   cwd=ROOT, check=False)
    print(f"done: reinstall (pip install -e '.[test]') so that the installed finder knows {NEW}")


if __name__ == "__main__":
    main()

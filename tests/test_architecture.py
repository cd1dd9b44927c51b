"""The project's layers (README.md, "Layout"): the core, the bots and the protocol never pull in the UI, SSH or I/O."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the protocol and its typed messages both ways (ono99_kernel/wire/), the LAN advertisement's TXT record, a front's
# hello, the limits and a recorded game's analysis are sans-I/O too
PURE_PACKAGES = ["ono99_kernel.core", "ono99_kernel.bots", "ono99_kernel.protocol", "ono99_kernel.lan", "ono99_kernel.fronts",
                 "ono99_kernel.limits", "ono99_kernel.wire.server", "ono99_kernel.wire.requests", "ono99_tui.analysis"]
# the pure layers speak English, marked for the catalogs (ono99_kernel/core/words.py): a language is the UI's business
FORBIDDEN = ["textual", "asyncssh", "zeroconf", "asyncio", "rich", "sqlite3", "socket", "gettext", "ono99_tui.i18n"]


def test_core_bots_and_protocol_import_no_ui_ssh_or_io_modules() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {name}\n" for name in PURE_PACKAGES)
        + f"loaded = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        + "print(','.join(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "", f"pure layers loaded: {out.stdout.strip()}"


def test_the_protocol_names_the_bot_levels_without_loading_the_bots() -> None:
    """The levels a client may ask for come from their declarations (ono99_kernel/bots/levels.py), not
    from the bots: importing the protocol leaves the strong bot's search unloaded."""
    loaded = loaded_after_importing(["ono99_kernel.protocol"])
    assert "ono99_kernel.bots.levels" in loaded  # the import worked
    assert "ono99_kernel.bots.strong" not in loaded and "ono99_kernel.bots.players" not in loaded


def loaded_after_importing(modules: list[str]) -> set[str]:
    """The modules a fresh interpreter holds after importing ``modules``."""
    code = "import sys\n" + "".join(f"import {name}\n" for name in modules) + "print(' '.join(sys.modules))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return set(out.stdout.split())


def modules_under(folder: str) -> list[str]:
    return sorted(".".join(path.relative_to(ROOT).with_suffix("").parts) for path in (ROOT / folder).rglob("*.py")
                  if path.name not in ("__init__.py", "__main__.py"))


def test_the_game_server_never_imports_textual() -> None:
    loaded = loaded_after_importing(modules_under("ono99_server"))
    assert "ono99_server.lobby_state" in loaded  # the import worked
    assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}


def test_the_tui_and_the_ssh_front_never_import_the_game_server() -> None:
    """They are clients: the app takes its link from outside (a TCP client, or the local game's
    embedded server, opened by ono99_tui/local_game.py); the front links over TCP."""
    client_side = ["ono99_tui.client", *modules_under("ono99_tui/tui"), *modules_under("ono99_tui/front")]
    loaded = loaded_after_importing(client_side)
    assert "ono99_tui.front.ssh" in loaded and "ono99_tui.tui.app" in loaded
    assert not {m for m in loaded if m == "ono99_server" or m.startswith("ono99_server.")}
    # nor later, from inside a function: no import of server/ in their text at all
    offenders = [str(path.relative_to(ROOT)) for folder in ("ono99_tui/tui", "ono99_tui/front")
                 for path in (ROOT / folder).rglob("*.py")
                 if re.search(r"^\s*(from|import)\s+ono99_server\b", path.read_text(), re.MULTILINE)]
    assert offenders == []


def package_imports(package: str = "ono99_tui") -> dict[str, set[str]]:
    """Each module of ``package`` (a folder at the top of the project) and the modules of that package it
    imports: when it is loaded, type-checked (``if TYPE_CHECKING:``) or when one of its functions runs."""
    modules: dict[str, tuple[Path, str]] = {}  # module: its file, the package its relative imports start from
    for path in (ROOT / package).rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            modules[".".join(parts)] = (path, ".".join(parts))
        else:
            modules[".".join(parts)] = (path, ".".join(parts[:-1]))
    graph: dict[str, set[str]] = {}
    for name, (path, package) in modules.items():
        # every import: at the top, under TYPE_CHECKING, and inside functions (a circle waiting for its call)
        statements = [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, (ast.Import, ast.ImportFrom))]
        imported: set[str] = set()
        for node in statements:
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    start = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*start, *([node.module] if node.module else [])])
                submodules = {f"{base}.{alias.name}" for alias in node.names}  # from a package import a module
                imported.update(submodules)
                if not submodules <= modules.keys():  # names from the module (``from . import standin`` is not)
                    imported.add(base)
        graph[name] = {m for m in imported if m in modules and m != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or around a circle (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = stack[stack.index(module):]
            del stack[stack.index(module):]
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return cycles


def test_the_package_has_no_import_cycle() -> None:
    """No module of ono99_tui imports, through others, a module that imports it: every arrow points down."""
    graph = package_imports()
    assert "ono99_kernel.protocol" in graph["ono99_tui.tui.app"] and graph["ono99_kernel.core"]  # the walk found them
    assert import_cycles(graph) == []


def test_the_server_has_no_import_cycle() -> None:
    """Nor does the server: each part names what it asks of those above it (a table of its host, the
    lobby's parts of the lobby, a connection of its server) in a protocol of lower-level types."""
    graph = package_imports("ono99_server")  # the link to server/, so modules carry their import names
    assert "ono99_server.members" in graph["ono99_server.table_room"]  # the walk found them
    assert "ono99_server.lobby_state" in graph["ono99_server.app"]
    assert "ono99_server.storage_pg" in graph["ono99_server.stores"]  # imported inside a function: counted too
    assert import_cycles(graph) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]


def test_only_the_entry_points_import_the_app_module() -> None:
    """The modules of the app's package take what they share from below it (themes.py, the screens'
    host protocol in host.py, the links in links.py): only the entry points import tui/app.py: the SSH
    front's app and the CLI (where it runs the app)."""
    importers = {module for module, imported in package_imports().items() if "ono99_tui.tui.app" in imported}
    assert importers == {"ono99_tui.front.session_app", "ono99_tui.cli"}


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


# --- messages are written by the wire model only ------------------------------------------------------------
WIRE_MODEL = ROOT / "ono99_tui" / "wire"
RECORDS = ROOT / "ono99_tui" / "core" / "record.py"  # a game record's events are maps too (docs/records.md)


def message_maps(tree: ast.AST) -> list[tuple[int, str, str | None]]:
    """The dict displays of ``tree`` that are messages (a text key ``t``) or events (``e``): each with the
    value of that key (None when it is not a text constant), by line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in ("t", "e"):
                    text = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
                    found.append((node.lineno, key.value, text))
    return sorted(found)


def test_the_finder_of_message_maps_finds_them() -> None:
    code = 'a = {"t": "join", "code": c}\nb = {"x": {"e": "play"}}\nc = {"t": kind}\nd = {"table": 1, **e}\n'
    assert message_maps(ast.parse(code)) == [(1, "t", "join"), (2, "e", "play"), (3, "t", None)]


def test_no_message_is_written_as_a_map_outside_the_wire_model() -> None:
    """Messages both ways are the typed values of ono99_kernel/wire/ (which alone write their maps): the
    server, the client, the app and its screens, the plain mode, the fronts, replays and the local game
    build values."""
    offenders = []
    for folder in ("ono99_tui", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.is_relative_to(WIRE_MODEL):
                continue
            for line, key, kind in message_maps(ast.parse(path.read_text())):
                if key == "e" and path == RECORDS:
                    continue
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {kind!r}")
    assert offenders == []


def test_ruff_is_clean() -> None:
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "."], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_strict_is_clean_on_the_whole_package_and_the_server() -> None:
    """pyproject's [tool.mypy] files: ono99_tui (every layer), server/, tests/ and bench/, strict."""
    out = subprocess.run([sys.executable, "-m", "mypy"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


MOST_TYPE_IGNORES = 32  # fewer than the 33 the package, the server and the tests once had; lower it as they go
IGNORE = re.compile(r"# type: ignore(\[[a-z-]+(,[a-z-]+)*\])?(  # \S.*)?$")


def type_ignores(text: str) -> list[tuple[int, str, str]]:
    """Each ``type: ignore`` comment in ``text`` (comments only, not strings that mention one): its line,
    the comment, and the line above it."""
    lines = text.splitlines()
    return [(token.start[0], token.string, lines[token.start[0] - 2] if token.start[0] > 1 else "")
            for token in tokenize.generate_tokens(io.StringIO(text).readline)
            if token.type == tokenize.COMMENT and "type: ignore" in token.string]


def unexplained_ignore(comment: str, above: str) -> bool:
    """A ``type: ignore`` names its error codes and says why, after it or in a comment on the line above."""
    match = IGNORE.search(comment)
    if match is None or match.group(1) is None:
        return True
    return match.group(3) is None and not above.lstrip().startswith("# ")


def test_the_finder_of_type_ignores_reads_comments_and_their_reasons() -> None:
    text = ('x = f()  # type: ignore[arg-type]  # a wrong type on purpose\n'
            "# Textual's own, replaced\ny = g()  # type: ignore[method-assign]\n"
            'z = h()  # type: ignore\nw = "# type: ignore[misc]"\nv = k()  # type: ignore[misc]\n')
    found = type_ignores(text)
    assert [line for line, _, _ in found] == [1, 3, 4, 6]
    assert [unexplained_ignore(comment, above) for _, comment, above in found] == [False, False, True, True]


def test_every_type_ignore_says_why_and_they_are_few() -> None:
    """Every ``type: ignore`` in the package, the server, the tests and the benchmarks names its error code
    and says why; mypy --strict (pyproject) checks the rest, and warns of any that is no longer needed. The
    package, the server and the tests have few (the benchmarks patch Textual to time it)."""
    found = [(folder, f"{path.relative_to(ROOT)}:{line}", comment, above)
             for folder in ("ono99_tui", "server", "tests", "bench")
             for path in sorted((ROOT / folder).rglob("*.py"))
             for line, comment, above in type_ignores(path.read_text())]
    assert [f"{where}: {comment}" for _, where, comment, above in found if unexplained_ignore(comment, above)] == []
    counted = [where for folder, where, _, _ in found if folder != "bench"]
    assert len(counted) <= MOST_TYPE_IGNORES, counted


def test_the_screens_reach_the_app_through_its_typed_host() -> None:
    """The modules of tui/ read the app through tui/host.py's protocols, which mypy checks, and never
    ask it for an attribute by name."""
    by_name = re.compile(r"\b(getattr|hasattr|setattr)\(\s*[\w.]*\bapp\b[^)]*\)")
    offenders = [f"{path.relative_to(ROOT)}: {match.group(0)}" for path in sorted((ROOT / "ono99_tui/tui").glob("*.py"))
                 for match in by_name.finditer(path.read_text())]
    assert offenders == []


def test_the_server_is_imported_by_its_package_name() -> None:
    """The folder server/ is the package ``ono99_server`` (found by the link ono99_server -> server). Run from
    the repository's root, ``import server`` would still work and only an installed copy would fail:
    no code says it."""
    folders = ("ono99_tui", "server", "tests", "tools", "bench", "screenshots")
    offenders = [str(path.relative_to(ROOT)) for folder in folders for path in (ROOT / folder).rglob("*.py")
                 if re.search(r"^\s*(from|import)\s+server\b", path.read_text(encoding="utf-8"), re.MULTILINE)]
    assert offenders == []
    assert (ROOT / "ono99_server").resolve() == (ROOT / "server").resolve()

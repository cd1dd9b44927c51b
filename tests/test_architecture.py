"""The project's layers (README.md, "Layout"): the core, the bots and the protocol never pull in the UI, SSH or I/O."""

from __future__ import annotations

import ast
import functools
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path
from typing import get_args

from ono99_kernel.wire.requests import Request
from ono99_kernel.wire.server import SERVER_MESSAGE_TYPES

ROOT = Path(__file__).resolve().parent.parent
# the protocol and its typed messages both ways (ono99_kernel/wire/), the LAN advertisement's TXT record, a front's
# hello, the limits and a recorded game's analysis are sans-I/O too
PURE_PACKAGES = ["ono99_kernel.core", "ono99_kernel.bots", "ono99_kernel.protocol", "ono99_kernel.lan",
                 "ono99_kernel.fronts", "ono99_kernel.limits", "ono99_kernel.wire.server", "ono99_kernel.wire.requests",
                 "ono99_tui.analysis"]
# the pure layers speak English, marked for the catalogs (ono99_kernel/core/words.py): a language is the
# UI's business
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


# each package's folder: the kernel and the app at the top, the game server in server/
PACKAGE_FOLDERS = {"ono99_kernel": ROOT / "ono99_kernel", "ono99_tui": ROOT / "ono99_tui",
                   "ono99_server": ROOT / "server" / "ono99_server"}


@functools.cache  # each file parsed once per test process: several tests walk the same trees
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def folder_of(package: str) -> Path:
    """The folder of a package or subpackage named by its import name (``ono99_tui.tui``)."""
    top, *rest = package.split(".")
    return PACKAGE_FOLDERS[top].joinpath(*rest)


def module_name(path: Path) -> list[str]:
    """The import name's parts of a file of one of the packages."""
    for top, folder in PACKAGE_FOLDERS.items():
        if path.is_relative_to(folder):
            return [top, *path.relative_to(folder).with_suffix("").parts]
    raise ValueError(path)


def modules_under(package: str) -> list[str]:
    return sorted(".".join(module_name(path)) for path in folder_of(package).rglob("*.py")
                  if path.name not in ("__init__.py", "__main__.py"))


def test_the_game_server_never_imports_textual() -> None:
    loaded = loaded_after_importing(modules_under("ono99_server"))
    assert "ono99_server.lobby_state" in loaded  # the import worked
    assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}


def test_ono99_serve_without_ssh_and_the_web_loads_neither_the_app_nor_rich_nor_asyncssh(tmp_path: Path) -> None:
    """A server started with SSH and the web off (as a cluster's nodes and most tests' servers are) runs
    without the app and its SSH front, without rich (the progress bars of simulate and analyse), without
    asyncssh until a key is read (a player's, or an authorized_keys file) and without looking its
    version up: each start takes 0.3 s of CPU instead of 0.9 s. The real ``ono99 serve`` is started
    with ``-X importtime``, which lists every module the process loads on its standard error, and
    stopped once its banner is out."""
    import threading

    from tests.server_helpers import free_port

    imports = tmp_path / "imports.txt"
    with imports.open("w") as said, subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "ono99_tui.cli", "serve", "--host", "127.0.0.1",
             "--port", str(free_port()), "--db", str(tmp_path / "x.db"), "--ssh-port", "0", "--web-port", "0",
             "--no-advertise"], cwd=ROOT, stdout=subprocess.PIPE, stderr=said, text=True) as server:
        safety = threading.Timer(120, server.kill)  # a server that never says its banner fails, not hangs
        safety.start()
        assert server.stdout is not None
        banner: list[str] = []
        while not banner or "stop with" not in banner[-1]:  # the banner's last line
            line = server.stdout.readline()
            if not line:
                break
            banner.append(line)
        server.terminate()
        safety.cancel()
    loaded = {line.rsplit("|", 1)[-1].strip() for line in imports.read_text().splitlines()
              if line.startswith("import time:")}
    assert "ono99_server.game_server" in loaded, banner  # the server ran
    assert sorted(m for m in loaded if m.split(".")[0] in ("textual", "rich", "asyncssh")
                  or m == "ono99_tui.front.ssh") == []
    assert "importlib.metadata" not in loaded  # only ``ono99 --version`` looks the version up


def test_the_tui_and_the_ssh_front_never_import_the_game_server() -> None:
    """They are clients: the app takes its link from outside (a TCP client, or the local game's
    embedded server, opened by ono99_tui/local_game.py); the front links over TCP."""
    client_side = [*modules_under("ono99_tui.client"), *modules_under("ono99_tui.tui"),
                   *modules_under("ono99_tui.front")]
    loaded = loaded_after_importing(client_side)
    assert "ono99_tui.front.ssh" in loaded and "ono99_tui.tui.app" in loaded
    assert not {m for m in loaded if m == "ono99_server" or m.startswith("ono99_server.")}
    # nor later, from inside a function: no import of the server in their text at all
    offenders = [str(path.relative_to(ROOT)) for folder in ("ono99_tui/tui", "ono99_tui/front")
                 for path in (ROOT / folder).rglob("*.py")
                 if re.search(r"^\s*(from|import)\s+ono99_server\b", path.read_text(), re.MULTILINE)]
    assert offenders == []


@functools.cache  # the graph of the same packages, asked by several tests
def package_imports(*packages: str) -> dict[str, set[str]]:
    """Each module of ``packages`` (all three when none is named) and the modules of those packages it
    imports: when it is loaded, type-checked (``if TYPE_CHECKING:``) or when one of its functions runs."""
    modules: dict[str, tuple[Path, str]] = {}  # module: its file, the package its relative imports start from
    for path in (path for package in packages or tuple(PACKAGE_FOLDERS) for path in folder_of(package).rglob("*.py")):
        parts = module_name(path)
        if parts[-1] == "__init__":
            parts.pop()
            modules[".".join(parts)] = (path, ".".join(parts))
        else:
            modules[".".join(parts)] = (path, ".".join(parts[:-1]))
    graph: dict[str, set[str]] = {}
    for name, (path, package) in modules.items():
        # every import: at the top, under TYPE_CHECKING, and inside functions (a circle waiting for its call)
        statements = [n for n in ast.walk(parsed(path)) if isinstance(n, (ast.Import, ast.ImportFrom))]
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
    """No module of the kernel, the server or the app imports, through others, a module that imports it:
    every arrow points down."""
    graph = package_imports()
    assert "ono99_kernel.protocol" in graph["ono99_tui.tui.app"] and graph["ono99_kernel.core"]  # the walk found them
    assert import_cycles(graph) == []


def test_the_kernel_imports_neither_the_app_nor_the_server() -> None:
    """The kernel (the game, bots, wire, TLS, access policy) is what the server and every client share:
    none of its modules names the app's package or the server's, at the top, under TYPE_CHECKING or in
    a function; and importing all of it loads neither."""
    graph = package_imports()
    upward = sorted(f"{module} -> {other}" for module, imported in graph.items() if module.startswith("ono99_kernel")
                    for other in imported if not other.startswith("ono99_kernel"))
    assert graph["ono99_kernel.wire.server"]  # the walk found the kernel's own imports
    assert upward == []
    loaded = loaded_after_importing(modules_under("ono99_kernel"))
    assert "ono99_kernel.access" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("ono99_tui", "ono99_server")}


def test_the_server_imports_only_the_kernel() -> None:
    """The game tier rests on the kernel alone: no module of the server names the app's package."""
    graph = package_imports()
    upward = sorted(f"{module} -> {other}" for module, imported in graph.items() if module.startswith("ono99_server")
                    for other in imported if other.startswith("ono99_tui"))
    assert "ono99_kernel.protocol" in graph["ono99_server.player_session"]  # the walk found the server's imports
    assert upward == []


def test_the_server_has_no_import_cycle() -> None:
    """Nor does the server: each part names what it asks of those above it (a table of its host, the
    lobby's parts of the lobby, a connection of its server) in a protocol of lower-level types."""
    graph = package_imports("ono99_server")
    assert "ono99_server.members" in graph["ono99_server.table_room"]  # the walk found them
    assert "ono99_server.lobby_state" in graph["ono99_server.game_server"]
    assert "ono99_server.storage_pg" in graph["ono99_server.stores"]  # imported inside a function: counted too
    assert import_cycles(graph) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]


# the shared kernel, under the server and every client
KERNEL = ("ono99_kernel.core", "ono99_kernel.bots", "ono99_kernel.wire", "ono99_kernel.protocol", "ono99_kernel.tls",
          "ono99_kernel.access")
# the faces: what draws and reads keys, each on the client layer (ono99_tui/client/)
FACES = ("ono99_tui.tui", "ono99_tui.plain", "ono99_tui.front", "ono99_tui.admin", "ono99_tui.cli")


def is_in(module: str, packages: tuple[str, ...]) -> bool:
    """Whether ``module`` is one of ``packages`` or inside one (``ono99_kernel.fronts`` is not in
    ``ono99_tui.front``)."""
    return any(module == package or module.startswith(package + ".") for package in packages)


def test_the_client_layer_sits_between_the_kernel_and_the_faces() -> None:
    """ono99_tui/client/ (the connection, the model, the client session) imports no face, no server
    and no Textual, not even inside a function or for type checking: every face may use it, and a
    new face (a chat-bot front, say) needs nothing of the others. The kernel does not import it."""
    graph = package_imports()
    client_layer = {module for module in graph if module.startswith("ono99_tui.client.")}
    assert {"ono99_tui.client.connection", "ono99_tui.client.model"} <= client_layer  # the walk found them
    upward = sorted(f"{module} -> {imported}" for module in client_layer for imported in graph[module]
                    if is_in(imported, (*FACES, "ono99_tui.serve", "ono99_tui.local_game")))
    assert upward == []
    loaded = loaded_after_importing(sorted(client_layer))
    assert not {m for m in loaded if m.split(".")[0] in ("textual", "ono99_server", "asyncssh")}
    kernel = {module for module in graph if is_in(module, KERNEL)}
    assert "ono99_kernel.wire.server" in kernel  # the walk found it
    assert sorted(f"{m} -> {i}" for m in kernel for i in graph[m] if is_in(i, ("ono99_tui.client",))) == []


def test_the_plain_mode_does_not_import_the_apps_package() -> None:
    """The plain mode is a face of its own on the client layer: it takes the model and the labels
    from there, and loading it loads none of the Textual app."""
    graph = package_imports()
    plain = {module for module in graph if module.startswith("ono99_tui.plain")}
    assert "ono99_tui.plain.lines" in plain  # the walk found it
    assert sorted(f"{m} -> {i}" for m in plain for i in graph[m] if is_in(i, ("ono99_tui.tui",))) == []
    loaded = loaded_after_importing(sorted(plain))
    assert "ono99_tui.client.model" in loaded  # the import worked
    assert not {m for m in loaded if is_in(m, ("ono99_tui.tui", "textual"))}


def test_the_client_session_is_free_of_io() -> None:
    """The client session (and what it reads of a message before decoding it) runs no event loop and
    opens nothing: tests feed it messages and read its answers, and any face can carry them out."""
    loaded = loaded_after_importing(["ono99_tui.client.session", "ono99_tui.client.raw"])
    assert "ono99_tui.client.model" in loaded  # the import worked
    assert not {m for m in loaded if is_in(m, ("asyncio", "socket", "ssl", "selectors", "textual",
                                               "ono99_tui.client.connection"))}


# --- reactions to the server are the client layer's -----------------------------------------------------------
SERVER_MESSAGES = {kind.__name__ for kind in SERVER_MESSAGE_TYPES} | {"ServerMessage", "TableDetail"}
REQUESTS = {kind.__name__ for kind in get_args(Request)}
SENDING = {"send", "send_message", "join_by_code", "send_all"}  # how the faces send a request
FACE_FOLDERS = ("ono99_tui/tui", "ono99_tui/plain", "ono99_tui/front", "ono99_tui/admin.py")


def reactions(tree: ast.AST) -> list[tuple[int, str]]:
    """The functions of ``tree`` that look at a server message (an ``isinstance`` test against a message
    class, a parameter typed as one, its kind read by name) and send a request themselves (build one, or
    call a face's way of sending): a reaction decided in a face. Each by line and name."""
    def names(node: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
            {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}

    found = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        looked_at = set()
        for node in ast.walk(function):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                    and len(node.args) == 2):
                looked_at |= names(node.args[1]) & SERVER_MESSAGES
        for argument in [*function.args.args, *function.args.kwonlyargs]:
            if argument.annotation is not None:
                looked_at |= names(argument.annotation) & SERVER_MESSAGES
        # a message's kind read by name (``message.t``), or what the model took in (``reaction.changed``)
        looked_at |= {n.attr for n in ast.walk(function) if isinstance(n, ast.Attribute) and n.attr in ("t", "changed")}
        called = {node.func.id if isinstance(node.func, ast.Name) else node.func.attr
                  for node in ast.walk(function)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)}
        if looked_at and called & (REQUESTS | SENDING):
            found.append((function.lineno, function.name))
    return sorted(found)


def test_the_finder_of_reactions_finds_them() -> None:
    code = ("def handle(self, message):\n    if isinstance(message, Welcome):\n        self.send(Spectate(table=1))\n"
            "def _welcome(self, welcome: Welcome) -> None:\n    self.send_message(Leave())\n"
            "def draw(self, message: State) -> None:\n    self.say(message.view)\n"
            "def carry_out(self, reaction):\n    for request in reaction.requests:\n        self.send(request)\n"
            "def key(self, key):\n    self.send(Sit())\n"
            "def after(self, reaction):\n    if reaction.changed == 'left':\n        self.send_message(PlayNow())\n")
    assert reactions(ast.parse(code)) == [(1, "handle"), (4, "_welcome"), (13, "after")]


def test_no_face_reacts_to_a_server_message_on_its_own() -> None:
    """What a client sends because of what the server said (watch again after a reconnection, the local
    game's first table, watch instead of a refused join, a front's invite code) is decided by the client
    session (ono99_tui/client/session.py) and carried out by the faces: no function of a face that looks
    at a server message sends a request. The faces draw the messages, and send what the player asks."""
    offenders = [f"{path.relative_to(ROOT)}:{line} {name}" for folder in FACE_FOLDERS
                 for path in sorted([ROOT / folder] if folder.endswith(".py") else (ROOT / folder).rglob("*.py"))
                 for line, name in reactions(parsed(path))]
    assert offenders == []


RAW_KEYS = {"t", "e", "events", "seq", "game_no", "view", "winner"}  # a message's or event's kind, a state's parts


def raw_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """The reads of a server message's map in ``tree``: ``m["t"]`` or ``m.get("t")`` (by a key of
    ``RAW_KEYS``), or any key of a link's raw ``welcome``. Each by line and key."""
    found = []
    for node in ast.walk(tree):
        read: tuple[ast.expr, ast.expr, int] | None = None  # what is read, by which key, on which line
        if isinstance(node, ast.Subscript):
            read = node.value, node.slice, node.lineno
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args:
            read = node.func.value, node.args[0], node.lineno
        if read is None or not (isinstance(read[1], ast.Constant) and isinstance(read[1].value, str)):
            continue
        target, key, line = read[0], read[1].value, read[2]
        if key in RAW_KEYS or (isinstance(target, ast.Attribute) and target.attr == "welcome"):
            found.append((line, key))
    return sorted(found)


def test_the_finder_of_raw_reads_finds_them() -> None:
    code = 'a = m.get("t")\nb = m["events"]\nc = link.welcome.get("name")\nd = settings["theme"]\ne = m.kind\n'
    assert raw_reads(ast.parse(code)) == [(1, "t"), (2, "events"), (3, "name")]


def test_no_protocol_map_is_read_outside_the_wire_model_and_the_client_layer() -> None:
    """A server message is decoded once, into the typed values of ono99_kernel/wire/server.py; what a client
    reads of one before decoding it (its kind, whether states follow each other) is read by
    ono99_tui/client/raw.py. The faces, the fronts' shared screens and the links read neither maps nor
    a raw welcome. (A game record's events are maps by their format: ono99_kernel/core/record.py.)"""
    allowed = ("ono99_kernel/wire/", "ono99_tui/client/", str(RECORDS.relative_to(ROOT)))
    offenders = [f"{path.relative_to(ROOT)}:{line}: {key!r}" for path in sorted((ROOT / "ono99_tui").rglob("*.py"))
                 if not path.relative_to(ROOT).as_posix().startswith(allowed)
                 for line, key in raw_reads(parsed(path))]
    assert offenders == []


def test_the_server_reads_no_messages_kind_outside_the_wire_model() -> None:
    """The game server takes each client map as a typed request (ono99_kernel/wire/requests.py decodes it,
    and says what type a map claims to be before that): no module of the server or the kernel outside the
    wire reads a message's ``t`` itself. (The server's own saved state and a record's events are maps of
    their formats, not messages.)"""
    offenders = [f"{path.relative_to(ROOT)}:{line}" for folder in ("server/ono99_server", "ono99_kernel")
                 for path in sorted((ROOT / folder).rglob("*.py"))
                 if not path.is_relative_to(WIRE_MODEL)
                 for line, key in raw_reads(parsed(path)) if key == "t"]
    assert offenders == []


def test_only_the_entry_points_import_the_app_module() -> None:
    """The modules of the app's package take what they share from below it (themes.py, the screens'
    host protocol in host.py, the links in links.py): only the entry points import tui/app.py: the SSH
    front's app and the CLI (where it runs the app)."""
    importers = {module for module, imported in package_imports("ono99_tui").items()
                 if "ono99_tui.tui.app" in imported}
    assert importers == {"ono99_tui.front.session_app", "ono99_tui.cli"}


def test_core_never_imports_the_global_random_functions() -> None:
    """Randomness comes from an injected random.Random: no module-level random.choice & co."""
    offenders = []
    for path in (ROOT / "ono99_kernel" / "core").glob("*.py"):
        text = path.read_text()
        for call in ("random.choice(", "random.shuffle(", "random.randint(", "random.random(",
                     "random.randrange(", "random.sample(", "random.seed("):
            if call in text:
                offenders.append(f"{path.name}: {call}")
    assert offenders == []


# --- messages are written by the wire model only ------------------------------------------------------------
WIRE_MODEL = ROOT / "ono99_kernel" / "wire"
RECORDS = ROOT / "ono99_kernel" / "core" / "record.py"  # a game record's events are maps too (docs/records.md)


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
    for folder in ("ono99_kernel", "ono99_tui", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.is_relative_to(WIRE_MODEL):
                continue
            for line, key, kind in message_maps(parsed(path)):
                if key == "e" and path == RECORDS:
                    continue
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {kind!r}")
    assert offenders == []


def test_ruff_is_clean() -> None:
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "."], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_strict_is_clean_on_the_whole_package_and_the_server() -> None:
    """pyproject's [tool.mypy] files: the kernel, the app (every layer), server/, tests/, bench/, screenshots/ and
    tools/, strict."""
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
             for folder in ("ono99_kernel", "ono99_tui", "server", "tests", "bench")
             for path in sorted((ROOT / folder).rglob("*.py"))
             if "type: ignore" in (text := path.read_text())  # no comment to tokenize for without it
             for line, comment, above in type_ignores(text)]
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


def test_the_packages_are_real_folders_found_by_their_import_names() -> None:
    """Each package is the folder of its name (the server's in server/ono99_server/), no link standing in
    for one, so what reads the code's structure sees every import; and no code imports a folder by the
    name it has only from the repository's root (``import server``)."""
    links = [str(path.relative_to(ROOT)) for folder in (ROOT, *PACKAGE_FOLDERS.values(), ROOT / "server")
             for path in folder.iterdir() if path.is_symlink()]
    assert links == []
    for name, folder in PACKAGE_FOLDERS.items():
        assert (folder / "__init__.py").is_file() and folder.name == name
    folders = ("ono99_kernel", "ono99_tui", "server", "tests", "tools", "bench", "screenshots")
    offenders = [str(path.relative_to(ROOT)) for folder in folders for path in (ROOT / folder).rglob("*.py")
                 if re.search(r"^\s*(from|import)\s+server\b", path.read_text(encoding="utf-8"), re.MULTILINE)]
    assert offenders == []

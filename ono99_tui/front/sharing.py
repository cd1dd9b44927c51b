"""Spectators' screens drawn once for many: one app per group of SSH (or browser) spectators who would see the same.

Spectators of one table whose terminals have the same size, language, theme and colours see the same
screen. Such a group shares one ``GroupApp``: an app of its own with no input, fed with what one
member's link to the game server receives of the table (its states, its table, its chat), whose
every write goes to every member's channel. Each member keeps its own app and link (its name at the
table, its chat, its keys), held (``SessionApp.hold_screen``): it takes in what the server sends once
a second, paints nothing and writes nothing.

A member joins when its own app is a spectator at a table (not its host), showing the table with
nothing over it, no notification up, and no key typed on that screen; it gets the group's current
picture for itself alone (a full frame), then the group's updates. It leaves on its first input (a
key, a click), a resize, anything the server sends it alone (an error, a notice, the lobby, a lost
link), or when its session ends: its own app draws again, from the table's current state, its whole
screen repainted. Once a key was typed on the table screen the session keeps its own app there. The
last member to leave closes the group's app.

The group's app does not say hello to the game server itself: it would be a spectator of the table
of its own, counted and listed there, one who could even become the table's host.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from rich.console import RenderableType
from rich.control import Control
from textual import events
from textual.app import ScreenStackError
from textual.driver import Driver
from textual.screen import Screen

from ono99_kernel.wire.requests import Request

from ..client import raw
from ..links import Link
from ..tui.model_screen import ModelScreen
from ..tui.table import TableScreen
from .session_app import NOTICES_TO_ALL, SessionApp
from .textual_driver import ChannelDriver, ChannelTerminal, keep_task_factory

log = logging.getLogger("ono99.ssh")

# What the game server sends every spectator of a table alike: a group's app is fed these.
SHARED_KINDS = frozenset({"table", "state", "history", "chat", "chat_history"})
# Sent to everyone in the lobby and shown on no table screen: neither fed nor a reason to leave.
LOBBY_KINDS = frozenset({"tables", "online", "leaderboard", "queue", "pong"})
KEPT_MESSAGES = 64  # of the table's messages a link keeps (a run of states as one), to start a group's app


class TapInbox(asyncio.Queue[dict[str, Any] | None]):
    """The inbox of a session's link to the game server: keeps the table's last messages (a group's
    app starts from them), hands the table's messages to a group's app while it ``feeds`` one, and
    says when a message meant for this session alone comes (``on_own``)."""

    def __init__(self) -> None:
        super().__init__()
        self.table: dict[str, Any] | None = None  # the last table message
        self.since_table: deque[dict[str, Any]] = deque(maxlen=KEPT_MESSAGES)
        self.feeds: Callable[[dict[str, Any]], None] | None = None
        self.on_own: Callable[[], None] | None = None
        # loop time of the last state of a running game: a held app takes it in seconds later, and
        # the idle timeout must not end a session whose screen the game moves meanwhile
        self.last_game_update = 0.0

    def put_nowait(self, item: dict[str, Any] | None) -> None:
        super().put_nowait(item)
        kind = raw.kind(item)
        if item is not None and (kind in SHARED_KINDS or raw.notice_code(item) in NOTICES_TO_ALL):
            self._keep(item)
            if raw.game_runs(item):
                self.last_game_update = asyncio.get_running_loop().time()
            if self.feeds is not None:
                self.feeds(item)
        elif kind not in LOBBY_KINDS:
            if kind == "left" or item is None:
                self.table = None
                self.since_table.clear()
            if self.on_own is not None:
                self.on_own()

    def _keep(self, message: dict[str, Any]) -> None:
        if raw.kind(message) == "table":
            if raw.table_id(message) is None or raw.table_id(message) != raw.table_id(self.table):
                self.since_table.clear()  # another table: nothing of the last carries over
            self.table = message
            return
        if not raw.watching(self.table):
            return  # kept for a spectator only: a seated player's screen is never shared
        last = self.since_table[-1] if self.since_table else None
        if last is not None and raw.continues(last, message):
            self.since_table[-1] = raw.joined(last, message)  # last's list of events is this inbox's own (below)
        else:
            self.since_table.append(raw.own_events(message))

    def table_id(self) -> int | None:
        return raw.table_id(self.table)


def tap_link(link: Any) -> TapInbox:
    """Give ``link`` (a ``Client``) a ``TapInbox``, with what its old inbox held."""
    tap = TapInbox()
    old: asyncio.Queue[dict[str, Any] | None] = link.inbox
    while not old.empty():
        tap.put_nowait(old.get_nowait())
    link.inbox = tap
    return tap


def screen_typed_on(app: Any) -> weakref.ref[object] | None:
    """The screen a member's own app showed when its client typed: the table's under any dialog (its
    screen may differ from the group's now: the log scrolled, a chat line begun), so the session keeps
    its own app there."""
    if not isinstance(app, SessionApp) or not app.is_running:
        return None
    stack = app.screen_stack
    screen = next((s for s in stack if isinstance(s, ModelScreen)), stack[-1] if stack else None)
    return weakref.ref(screen) if screen is not None else None


class Member(Protocol):
    """A session that may share its screen (``ono99_tui.front.ssh.SshSession``, ``ono99_tui.front.web.WebSession``)."""

    app: Any
    terminal: ChannelTerminal | None
    closed: bool

    @property
    def typed_on(self) -> object | None: ...  # the screen of its app shown when it last typed

    @property
    def tap(self) -> TapInbox | None: ...

    def send_shared(self, data: bytes) -> None: ...


class _Door(Protocol):
    tap: TapInbox | None


class SharingSession:
    """What an SSH and a web session give a shared screen (``Member``), alike for both: the screen their
    own app showed when its client last typed, their link's tap and their terminal's writer."""

    door: _Door | None
    _typed_on: weakref.ref[object] | None

    def _send(self, data: bytes) -> None:
        raise NotImplementedError

    @property
    def typed_on(self) -> object | None:
        return self._typed_on() if self._typed_on is not None else None

    @property
    def tap(self) -> TapInbox | None:
        return self.door.tap if self.door is not None else None

    def send_shared(self, data: bytes) -> None:
        """What a shared screen's app draws for this session's terminal."""
        self._send(data)


@dataclass(frozen=True, slots=True)
class GroupKey:
    table: int
    size: tuple[int, int]
    language: str | None
    theme: str
    colors: str | None
    no_color: bool


class GroupLink:
    """A group app's link: what one member's link receives of the table; nothing goes out."""

    def __init__(self) -> None:
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def send(self, message: Request) -> None:
        pass

    async def close(self) -> None:
        pass


class GroupDoor:
    """A group app enters no lobby: it has its link already."""

    server_name = ""
    fingerprint: str | None = None
    default_name = ""
    name_hint: str | None = None
    code: str | None = None
    play_now: tuple[str, int] | None = None
    arena = False
    watch = False
    maybe_name = False
    keys_kept = False
    name_help = ""

    async def enter(self, name: str, resume: str | None = None) -> Any:
        raise AssertionError("a group's app has its link")


class GroupDriver(ChannelDriver):
    """Draws for the members: no screen modes set (each member's own app set them) and no input."""

    def start_application_mode(self) -> None:
        if self._size != self.terminal.size:
            self.resize(*self.terminal.size)

    def stop_application_mode(self) -> None:
        self.disable_input()


class GroupApp(SessionApp):
    """The app that draws a group's terminals: a spectator of the table, with no input of its own."""

    def __init__(self, terminal: ChannelTerminal, link: GroupLink, theme: str, server_name: str) -> None:
        door = GroupDoor()
        door.server_name = server_name
        super().__init__(terminal, door)
        self._group_link = link
        self._theme_name = theme
        self._table_drawn = False
        self.model.connected = True  # its members' links are

    def get_driver_class(self) -> type[Driver]:
        return GroupDriver

    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]  # as SessionApp.on_mount, with a theme
        super().on_mount(event)
        if self._theme_name in self.available_themes:
            self.theme = self._theme_name

    async def _enter(self) -> Link:
        return self._group_link

    def send_message(self, message: Request) -> None:
        pass  # nobody types here

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        if not self._table_drawn and not isinstance(screen, TableScreen):
            return  # its blank first screen: the members' terminals keep their own pictures until the table's
        if renderable is not None and not self._table_drawn and isinstance(screen, TableScreen):
            # the table's first frame whole: the members' terminals show their own apps' pictures
            self._table_drawn = True
            renderable = screen._compositor.render_update(full=True, screen_stack=self._background_screens)
        super()._display(screen, renderable)

    def full_frame(self) -> str | None:
        """The whole picture the members have now (what is waiting to be drawn left for its update),
        for one that joins; None before the table's first frame (which is whole)."""
        if not self._table_drawn or not self.is_running or self.return_code is not None:
            return None
        try:
            screen = self.screen
        except ScreenStackError:
            return None
        compositor = screen._compositor
        waiting = set(compositor._dirty_regions)
        update = compositor.render_update(full=True, screen_stack=self._background_screens)
        compositor._dirty_regions.update(waiting)
        if update is None or not hasattr(update, "render_segments"):
            return None
        cursor = screen.outer_size.clamp_offset(self.cursor_position)
        return str(update.render_segments(self.console)) + Control.move_to(*cursor).segment.text


class Group:
    """The members sharing one app, and that app."""

    def __init__(self, sharing: ScreenSharing, key: GroupKey, first: Member) -> None:
        assert first.terminal is not None and first.tap is not None
        self.sharing = sharing
        self.key = key
        self.members: list[Member] = []
        self.feeder: Member | None = None
        self.terminal = ChannelTerminal(self._send_all, term=first.terminal.term, size=key.size,
                                        env=first.terminal.env, bytes_per_second=1.0, burst=1,
                                        pause_reading=_nothing, resume_reading=_nothing)
        self.link = GroupLink()
        tap = first.tap
        for message in ([tap.table] if tap.table is not None else []) + list(tap.since_table):
            # a copy of a kept state's events: the inbox goes on adding to its list
            self.link.inbox.put_nowait(raw.own_events(message))
        self.app = GroupApp(self.terminal, self.link, key.theme, first.app.host)
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        try:
            keep_task_factory(asyncio.get_running_loop(), self.sharing.task_factory)
            await self.app.run_async(mouse=False, size=self.key.size)
        except Exception:
            log.exception("ssh: a shared screen's app failed")
        finally:
            self.sharing.ended(self)

    def _send_all(self, data: bytes) -> None:
        for member in list(self.members):
            member.send_shared(data)

    def _feed(self, message: dict[str, Any]) -> None:
        self.link.inbox.put_nowait(message)

    def add(self, member: Member) -> None:
        self.members.append(member)
        member.app.hold_screen()
        if self.feeder is None:
            self._feed_from(member)
        frame = self.app.full_frame()
        if frame is not None:
            member.send_shared(self.terminal.encode(frame))

    def remove(self, member: Member) -> None:
        if member not in self.members:
            return
        self.members.remove(member)
        if self.feeder is member:
            if member.tap is not None:
                member.tap.feeds = None
            self.feeder = None
            if self.members:
                self._feed_from(self.members[0])

    def _feed_from(self, member: Member) -> None:
        assert member.tap is not None
        self.feeder = member
        member.tap.feeds = self._feed


def _nothing() -> None:
    pass


class ScreenSharing:
    """A front's groups of spectators sharing an app (``enabled``: the front's setting; ``front``: its
    kind in the log, ssh or web)."""

    def __init__(self, enabled: bool, front: str = "ssh") -> None:
        self.enabled = enabled
        self.front = front
        self.groups: dict[GroupKey, Group] = {}
        self.group_of: dict[Member, Group] = {}
        self.task_factory: Any = None
        self.started = 0  # groups started, for the figures
        self._tasks: set[asyncio.Task[None]] = set()
        self.joined = 0  # members joined

    def key_for(self, member: Member, joining: bool) -> GroupKey | None:
        """The group ``member``'s screen belongs to, or None when its own app must draw it."""
        app, terminal, tap = member.app, member.terminal, member.tap
        if not isinstance(app, SessionApp) or isinstance(app, GroupApp) or terminal is None or tap is None:
            return None
        if member.closed or app.return_code is not None or not app.is_running:
            return None
        model = app.model
        table = model.table
        if not model.connected or table is None or table.you is not None or table.host == model.my_name:
            return None
        if tap.table_id() != table.id:
            return None
        if joining:  # a member's own app is not refreshed: its screen stays what it was
            try:
                screen = app.screen
            except ScreenStackError:
                return None
            if (not isinstance(screen, TableScreen) or member.typed_on is screen or len(app._notifications)
                    or asyncio.get_running_loop().time() < app.own_notice_until):
                return None
        return GroupKey(table.id, terminal.size, app.language, app.theme, terminal.color_system, app.no_color)

    def consider(self, member: Member) -> None:
        """After ``member``'s app took in a batch: join a group, or leave one it no longer belongs to."""
        if not self.enabled:
            return
        group = self.group_of.get(member)
        key = self.key_for(member, joining=group is None)
        if group is not None:
            if key != group.key:
                self.leave(member)
            return
        if key is None:
            return
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = Group(self, key, member)
            self.started += 1
            self._tasks.add(group.task)
            group.task.add_done_callback(self._tasks.discard)
        self.group_of[member] = group
        self.joined += 1
        group.add(member)
        self._tell()
        assert member.tap is not None
        member.tap.on_own = member.app.on_own_notice = lambda: self.leave(member)

    def leave(self, member: Member, repaint: bool = True) -> None:
        """``member``'s own app draws its terminal again (``repaint``: all of it, at once)."""
        group = self.group_of.pop(member, None)
        if group is None:
            return
        if member.tap is not None:
            member.tap.on_own = None
        with contextlib.suppress(Exception):
            member.app.on_own_notice = None
        group.remove(member)
        with contextlib.suppress(Exception):
            member.app.give_screen_back(repaint=repaint)
        if not group.members:
            self._close(group)
        self._tell()

    def _tell(self) -> None:
        log.info("%s front %d: %d sessions drawn by %d shared screens", self.front, os.getpid(),
                 len(self.group_of), len(self.groups))

    def _close(self, group: Group) -> None:
        if self.groups.get(group.key) is group:
            del self.groups[group.key]
        with contextlib.suppress(Exception):
            group.app.exit()

    def ended(self, group: Group) -> None:
        """A group's app ended (closed, or failed): its members draw their own screens again."""
        if self.groups.get(group.key) is group:
            del self.groups[group.key]
        for member in list(group.members):
            self.leave(member)

    def shared_sessions(self) -> int:
        return len(self.group_of)

    async def close(self, timeout: float) -> None:
        for member in list(self.group_of):
            self.leave(member, repaint=False)
        for group in list(self.groups.values()):
            self._close(group)
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)

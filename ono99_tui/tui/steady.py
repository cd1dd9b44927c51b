"""Widgets whose new content repaints them alone, never the screen around them.

Textual lays out the whole screen again whenever a widget says its size may have changed, and then
paints the changed area, and again what the layout touched: at the table screen that layout and
the second paint were a third of the drawing of a table update, which an SSH front does for every
session watching. Textual's ``RichLog`` and ``Digits`` ask for that layout with every new line or
number, whatever their size. The widgets here ask for it only when their size follows their content; the table
screen's log, chat and total get theirs from the stylesheet (ono99.tcss), so a move repaints them
and lays nothing out.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Self

from rich.style import Style
from rich.text import Text
from textual.events import Resize
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Digits, RichLog


def sized_by_stylesheet(widget: Widget) -> bool:
    """Whether the widget's width and height are set by its styles, whatever it shows (cells,
    fractions or percentages, not ``auto`` or unset)."""
    width, height = widget.styles.width, widget.styles.height
    return width is not None and height is not None and not width.is_auto and not height.is_auto


class LineLog(RichLog):
    """Textual's ``RichLog`` (scrolled back with the mouse wheel or its scrollbar, as before) whose
    growth lays nothing out: a new line repaints the log and its scrollbar.

    A ``RichLog`` sets its scrollable size with every line it is given, which asks for a layout of
    the screen (``Widget.virtual_size``) and, after it, a second paint for the scrollbars the
    layout touched.

    Given ``wrap=True``, it wraps its lines at its own width (``RichLog`` wraps them at 78 columns
    at least, and a narrower log cut them off or showed a horizontal scrollbar). Lines written
    while it is hidden (a narrow table shows the chat in its place) are wrapped once it shows
    again: wrapped at no width, they came out one character a line. A resize wraps them again at
    the new width, and a log that showed its end still shows it.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)  # Widget's asks for a layout
    _paint_style: Style | None = None

    def __init__(self, *, min_width: int = 1, **options: Any) -> None:
        super().__init__(min_width=min_width, **options)
        self._written: deque[object] = deque(maxlen=self.max_lines)  # every line as given, to wrap again
        self._unwrapped = False  # lines written that wait for a width
        self._wrapped_at = 0  # the width the lines shown were wrapped at
        self._height = 0  # the height it was last shown at

    def write(self, content: object, width: int | None = None, expand: bool = False, shrink: bool = True,
              scroll_end: bool | None = None, animate: bool = False) -> Self:
        self._written.append(content)
        if not self._size_known or self.scrollable_content_region.width <= 0:
            self._unwrapped = True  # not laid out yet, or hidden: wrapped when it has a width
            return self
        self._wrapped_at = self.scrollable_content_region.width
        return super().write(content, width, expand, shrink, scroll_end, animate)

    def clear(self) -> Self:
        self._written.clear()
        self._unwrapped = False
        return super().clear()

    def on_resize(self, event: Resize) -> None:
        # runs before RichLog's own handler, which then has nothing left to do
        width, height = self.scrollable_content_region.size
        if width <= 0:
            return
        self._size_known = True
        # at its end before this resize (measured at the height it had: a shorter log keeps its
        # offset, which no longer reaches the end), it stays at its end
        at_end = self._unwrapped or self.scroll_y >= min(len(self.lines) - self._height, self.max_scroll_y)
        self._height = height
        if self._unwrapped or width != self._wrapped_at:
            self._wrap_again(width, at_end)
        elif at_end:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def _wrap_again(self, width: int, at_end: bool) -> None:
        """Wrap every line kept at ``width``; show the end, or about the same place."""
        self._unwrapped = False
        self._wrapped_at = width
        offset = self.scroll_y
        super().clear()
        for content in self._written:
            super().write(content, scroll_end=False)
        if at_end:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        else:
            self.scroll_to(y=offset, animate=False, immediate=True)

    def render_lines(self, crop: Region) -> list[Strip]:
        # RichLog looks its style up twice for each line it paints (a walk over the styles of all
        # its ancestors, a third of the cost of painting the log): once per paint is enough, as a
        # change of style repaints the whole log.
        self._paint_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._paint_style = None

    @property
    def rich_style(self) -> Style:
        return self._paint_style if self._paint_style is not None else super().rich_style

    def watch_virtual_size(self, size: Size) -> None:
        if not sized_by_stylesheet(self):
            self.refresh(layout=True)  # its size follows its lines: the screen is laid out again
        elif self.is_mounted and self.container_size:
            # What a layout does for a scrollable widget whose size stayed: the scrollbars show the
            # new range (and appear or go, with a layout, if the overflow style says so), and the
            # scroll offset stays within it. Textual's own step (Widget._size_updated).
            self._scroll_update(size)


class SteadyDigits(Digits):
    """Textual's ``Digits``, whose new value repaints it alone when its size is set by the
    stylesheet (``Digits`` lays out the screen whenever the value's width changes: 9 to 10)."""

    def update(self, value: str) -> None:
        if not isinstance(value, str) or not sized_by_stylesheet(self):
            super().update(value)
            return
        self._value = value
        self.refresh()


def append_lines(log: RichLog, lines: list[Text]) -> None:
    """Write lines at the end of a log and show them in the same frame: the log's own scrolling
    waits for the next frame, which draws the log twice."""
    if not lines:
        return
    if not log._size_known:  # the log writes them once it has a size, and scrolls then
        for line in lines:
            log.write(line)
        return
    for line in lines:
        log.write(line, scroll_end=False)
    log.scroll_end(animate=False, immediate=True, x_axis=False)  # its height is known: the end is too

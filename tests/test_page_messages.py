"""What the browser page says on the web front's websocket, read as typed values (ono99_kernel/wire/page.py,
docs/web.md "The websocket"): ``open`` and ``resize``, a field of another type counting as absent, texts
cut to their limits, and anything else (too long, no JSON map, another ``t``) not read at all."""

from __future__ import annotations

import json

import pytest

from ono99_kernel.protocol import MAX_NAME
from ono99_kernel.wire.page import MAX_PAGE_TEXT, MAX_PASSWORD, MAX_RESUME, Open, Resize, decode_page_request


def test_an_open_is_read_with_every_field() -> None:
    """Tried: an ``open`` as the page sends it for ``/watch/CODE`` with a kept guest and a password."""
    said = {"t": "open", "cols": 132, "rows": 43, "name": "Ada", "resume": "tok", "password": "open sesame",
            "code": "QX7KD2", "watch": True, "lang": "de"}
    assert decode_page_request(json.dumps(said)) == Open(cols=132, rows=43, name="Ada", resume="tok",
                                                         password="open sesame", code="QX7KD2", watch=True, lang="de")


def test_a_field_of_another_type_counts_as_absent_and_texts_are_cut() -> None:
    """Tried: sizes that are text, a flag, zero and too large; a name that is a number; ``watch`` as a
    string; texts longer than their limits."""
    said = {"t": "open", "cols": "132", "rows": True, "name": 7, "watch": "yes", "resume": "r" * 500,
            "password": "p" * (MAX_PASSWORD + 100), "code": "c" * 40, "lang": "l" * 40}
    opened = decode_page_request(json.dumps(said))
    assert opened == Open(cols=80, rows=24, name="", watch=False, resume="r" * MAX_RESUME,
                          password="p" * MAX_PASSWORD, code="c" * 16, lang="l" * 16)
    assert decode_page_request(json.dumps({"t": "resize", "cols": 0, "rows": 100_000})) == Resize(cols=80, rows=24)
    long_name = decode_page_request(json.dumps({"t": "open", "name": "n" * 99}))
    assert isinstance(long_name, Open) and long_name.name == "n" * MAX_NAME


def test_a_resize_is_read() -> None:
    assert decode_page_request('{"t": "resize", "cols": 100, "rows": 30}') == Resize(cols=100, rows=30)


@pytest.mark.parametrize("text", [
    "{not json", "[1, 2]", '"open"', '{"t": "paste", "text": "x"}', '{"cols": 80}',
    json.dumps({"t": "open", "name": "x" * MAX_PAGE_TEXT}),
])
def test_anything_else_is_not_read(text: str) -> None:
    """Tried: no JSON, JSON that is no map, a map of another or no ``t``, a frame over the limit."""
    assert decode_page_request(text) is None

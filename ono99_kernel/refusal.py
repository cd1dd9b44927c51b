"""A refusal's English text that carries the ``params`` a client says it from (docs/protocol.md, section 9a)."""

from __future__ import annotations


class Refusal(str):
    """The English text of a refusal (it compares and prints as that text), with ``params``: its ``why``
    and the values the text names, which the server sends beside the error's code."""

    params: dict[str, str | int]

    def __new__(cls, text: str, **params: str | int) -> Refusal:
        refusal = super().__new__(cls, text)
        refusal.params = params
        return refusal


def params_of(text: str) -> dict[str, str | int]:
    """The params of ``text`` if it is a ``Refusal``, else none."""
    return dict(text.params) if isinstance(text, Refusal) else {}

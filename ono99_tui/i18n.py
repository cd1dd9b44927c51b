"""The player's language: which one, and the words in it.

Texts are standard gettext messages (domain ``ono99``), kept as PO catalogs in
``ono99_tui/locale/<lang>/LC_MESSAGES/ono99.po`` and shipped compiled (``.mo``) in the package
(docs/translating.md says how to update them).

The language is chosen, first match wins, from ``--lang``, the saved setting (settings screen), the
environment (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: e.g. ``de_DE.UTF-8`` gives German)
and else English. For an SSH player it is the environment their client sends (OpenSSH sends
``LANG`` and ``LC_*``): ``language_from_ssh_env``.

The current language is a context variable, not a process global: one SSH server runs many
players' apps on one event loop, each in its own task (and the tasks it starts), each in its own
language. Outside any app the process default applies (``set_default_language``).
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

# N_ marks a message for extraction without translating it: for texts defined before the language is
# known (key bindings, constants, the core's words), translated with ``gettext`` where they are shown.
from ono99_kernel.core.words import N_

DOMAIN = "ono99"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
ENGLISH = "en"
# code → the language's own name (shown in the settings screen and --lang's help)
LANGUAGES: dict[str, str] = {
    "en": "English",
    "af": "Afrikaans",
    "de": "Deutsch",
    "gl": "Galego",
    "ne": "नेपाली",
    "vi": "Tiếng Việt",
}
ENV_ORDER = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
__all__ = ["N_", "gettext", "ngettext", "pgettext"]



class _Choice:
    """The language of one app (and every task it starts); changed in place by the settings screen."""

    __slots__ = ("language",)

    def __init__(self, language: str) -> None:
        self.language = language


_default = _Choice(ENGLISH)
_current: ContextVar[_Choice | None] = ContextVar("ono99_language", default=None)


@cache
def translations(language: str) -> _gettext.NullTranslations:
    """The compiled catalog of ``language``; English (the messages themselves) has none."""
    if language == ENGLISH or language not in LANGUAGES:
        return _gettext.NullTranslations()
    return _gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[language], fallback=True)


def normalize(value: str) -> str | None:
    """The supported language a locale name means: ``de_DE.UTF-8`` → ``de``, ``pt_BR`` → None.
    ``C`` and ``POSIX`` mean English."""
    value = value.strip()
    if not value:
        return None
    if value in ("C", "POSIX") or value.startswith(("C.", "POSIX.")):
        return ENGLISH
    code = value.split(".", 1)[0].split("@", 1)[0].replace("-", "_").split("_", 1)[0].lower()
    return code if code in LANGUAGES else None


def language_from_env(env: Mapping[str, str]) -> str | None:
    """The language the environment asks for: each entry of ``LANGUAGE`` (a colon-separated list
    of preferences), then ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``; the first supported one."""
    for name in ENV_ORDER:
        raw = env.get(name, "")
        for item in raw.split(":") if name == "LANGUAGE" else [raw]:
            language = normalize(item)
            if language is not None:
                return language
    return None


def language_from_ssh_env(env: Mapping[str, str]) -> str:
    """An SSH session's language from the variables its client sent. Only ``LANG`` and ``LC_*``
    (what OpenSSH's ``SendEnv LANG LC_*`` sends) are read; anything else a client sends is ignored."""
    accepted = {key: value for key, value in env.items() if key == "LANG" or key.startswith("LC_")}
    return language_from_env(accepted) or ENGLISH


def choose_language(flag: str | None, saved: str | None, env: Mapping[str, str]) -> str:
    """``--lang``, else the saved setting, else the environment, else English."""
    for candidate in (flag, saved):
        if candidate:
            language = normalize(candidate)
            if language is not None:
                return language
    return language_from_env(env) or ENGLISH


def _supported(language: str) -> str:
    return language if language in LANGUAGES else ENGLISH


def set_default_language(language: str) -> None:
    """The language of the process (the CLI's app, its messages); contexts may have their own."""
    _default.language = _supported(language)


def set_language(language: str) -> None:
    """Give the current context its own language: an SSH session's task, and the tasks it starts
    from then on (an app's widgets), share it."""
    _current.set(_Choice(_supported(language)))


def change_language(language: str) -> None:
    """Change the current language where it was set (the settings screen): for the whole app whose
    task set it, or for the process."""
    (_current.get() or _default).language = _supported(language)


@contextmanager
def using(language: str) -> Iterator[None]:
    """The current context in ``language`` for a while."""
    token = _current.set(_Choice(_supported(language)))
    try:
        yield
    finally:
        _current.reset(token)


def current_language() -> str:
    return (_current.get() or _default).language


def gettext(message: str) -> str:
    """``message`` in the current language ("" stays "": gettext would give the catalog's header)."""
    if not message:
        return message
    return translations(current_language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message that fits ``n`` in the current language (its catalog's Plural-Forms)."""
    return translations(current_language()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same English words by ``context``."""
    return translations(current_language()).pgettext(context, message)


_ = gettext

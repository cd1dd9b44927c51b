"""Numbers as the player's language writes them (``ono99_tui.i18n``'s current language): German
``50,0 %`` and ``3,10``, English ``50.0%`` and ``3.10``, by Babel's locale data (CLDR). Digits are
Latin in every language, Nepali included (Babel's default numbering system)."""

from __future__ import annotations

from functools import cache

from .i18n import current_language


@cache
def _patterns(language: str) -> tuple[str, str]:
    """The language's (decimal, percent) patterns, their fraction part left out: ``#,##0`` and ``#,##0 %``."""
    from babel import Locale

    locale = Locale.parse(language)
    decimal = locale.decimal_formats[None].pattern.split(";")[0].split(".")[0]
    percent = locale.percent_formats[None].pattern.split(";")[0]
    return decimal, percent


def _fraction(digits: int) -> str:
    return "." + "0" * digits if digits > 0 else ""


def decimal(value: float, digits: int = 2) -> str:
    """``value`` with exactly ``digits`` decimals: ``3.10`` (English), ``3,10`` (German)."""
    from babel.numbers import format_decimal

    language = current_language()
    whole, _percent = _patterns(language)
    return format_decimal(value, format=whole + _fraction(digits), locale=language)


def signed(value: float, digits: int = 2) -> str:
    """``value`` with exactly ``digits`` decimals and its sign, ``+`` included: ``+1.25``, ``-0,50``."""
    from babel.numbers import format_decimal

    language = current_language()
    whole, _percent = _patterns(language)
    pattern = whole + _fraction(digits)
    return format_decimal(value, format=f"+{pattern};-{pattern}", locale=language)


def whole(value: float) -> str:
    """``value`` rounded to a whole number, its thousands grouped: ``12,346`` (English), ``12.346`` (German)."""
    return decimal(value, 0)


def percent(fraction: float, digits: int = 1) -> str:
    """``fraction`` (0.5) as a percentage with exactly ``digits`` decimals: ``50.0%``, ``50,0 %``."""
    from babel.numbers import format_percent

    language = current_language()
    _decimal, pattern = _patterns(language)
    pattern = pattern.replace("0", "0" + _fraction(digits), 1)  # "#,##0%": its one "0" is the last whole digit
    return format_percent(fraction, format=pattern, locale=language)

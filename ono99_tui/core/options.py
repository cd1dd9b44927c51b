"""Table options: one validated value holding the edition and every rule option of docs/rules.md."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from .cards import Edition
from .errors import OptionError


class Scoring(Enum):
    ELIMINATION = "elimination"  # 2022: last player left wins
    TOKENS = "tokens"  # 1980 default
    POINTS = "points"  # 1980 option


class PointsWin(Enum):
    LAST_STANDING = "last_standing"
    LOWEST_SCORE = "lowest_score"


MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_PLAYERS_2022_BOX = 6
POINTS_TARGET_RANGE = (1, 10_000)

OPTIONS_1980_ONLY = ("bust_over_99", "ono99_on_zero", "ono99_sets_99", "out_at_zero_tokens")


@dataclass(frozen=True, slots=True)
class TableOptions:
    """Everything that decides the rules of a table. Invalid combinations raise ``OptionError``."""

    edition: Edition = Edition.E2022
    bust_over_99: bool = False
    ono99_on_zero: bool = False
    ono99_sets_99: bool = False
    manual_draw: bool = False
    scoring: Scoring | None = None  # None: the edition's default
    out_at_zero_tokens: bool = False
    points_target: int = 100
    points_win: PointsWin = PointsWin.LAST_STANDING
    eight_players: bool = False  # 2022 house rule: up to 8 players

    def __post_init__(self) -> None:
        if not isinstance(self.edition, Edition):
            raise OptionError(_allowed("edition", self.edition, [e.value for e in Edition]))
        for name in ("bust_over_99", "ono99_on_zero", "ono99_sets_99", "manual_draw",
                     "out_at_zero_tokens", "eight_players"):
            if not isinstance(getattr(self, name), bool):
                raise OptionError(_allowed(name, getattr(self, name), [True, False]))
        if self.scoring is None:
            default = Scoring.ELIMINATION if self.edition is Edition.E2022 else Scoring.TOKENS
            object.__setattr__(self, "scoring", default)
        if not isinstance(self.scoring, Scoring):
            raise OptionError(_allowed("scoring", self.scoring, [s.value for s in Scoring]))
        if not isinstance(self.points_win, PointsWin):
            raise OptionError(_allowed("points_win", self.points_win, [p.value for p in PointsWin]))
        low, high = POINTS_TARGET_RANGE
        if (not isinstance(self.points_target, int) or isinstance(self.points_target, bool)
                or not low <= self.points_target <= high):
            raise OptionError(
                f"option 'points_target' must be a whole number from {low} to {high}, "
                f"got {self.points_target!r}"
            )
        self._check_combination()

    def _check_combination(self) -> None:
        if self.edition is Edition.E2022:
            if self.scoring is not Scoring.ELIMINATION:
                raise OptionError(
                    f"option 'scoring' must be 'elimination' on a 2022 table, got "
                    f"{self.scoring.value!r} (tokens and points are 1980 options)"  # type: ignore[union-attr]
                )
            for name in OPTIONS_1980_ONLY:
                if getattr(self, name):
                    raise OptionError(
                        f"option {name!r} belongs to the 1980 edition; on a 2022 table it "
                        f"must be false"
                    )
        else:
            if self.scoring is Scoring.ELIMINATION:
                raise OptionError(
                    "option 'scoring' must be 'tokens' or 'points' on a 1980 table, got 'elimination'"
                )
            if self.eight_players:
                raise OptionError(
                    "option 'eight_players' is a 2022 house rule; 1980 tables already seat 2 to 8"
                )
        if self.ono99_sets_99 and not self.bust_over_99:
            raise OptionError(
                "option 'ono99_sets_99' requires 'bust_over_99': true (a total of 99 must be legal)"
            )
        if self.ono99_sets_99 and self.ono99_on_zero:
            raise OptionError(
                "options 'ono99_on_zero' and 'ono99_sets_99' cannot both be true: they are two "
                "readings of the same card"
            )

    # --- derived rules ---------------------------------------------------------------------
    @property
    def limit(self) -> int:
        """The highest legal total."""
        return 99 if self.bust_over_99 else 98

    @property
    def max_players(self) -> int:
        if self.edition is Edition.E2022 and not self.eight_players:
            return MAX_PLAYERS_2022_BOX
        return MAX_PLAYERS

    def check_players(self, count: int) -> None:
        if not isinstance(count, int) or not MIN_PLAYERS <= count <= self.max_players:
            hint = (" (up to 8 with option 'eight_players')"
                    if self.edition is Edition.E2022 and not self.eight_players else "")
            raise OptionError(
                f"a {self.edition.value} table seats {MIN_PLAYERS} to {self.max_players} "
                f"players{hint}, got {count!r}"
            )

    # --- conversion ------------------------------------------------------------------------
    def to_mapping(self) -> dict[str, Any]:
        """The options by their docs/rules.md names, as a record or the protocol carries them."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "edition":
                continue
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, Enum) else value
        return out

    @classmethod
    def from_mapping(
        cls, edition: object, options: Mapping[str, Any] | None = None, *, strict: bool = True
    ) -> TableOptions:
        """Build options from plain values. ``strict`` refuses unknown names; a record reader
        passes ``strict=False`` because unknown fields must be ignored there."""
        try:
            ed = Edition(edition)
        except ValueError:
            raise OptionError(_allowed("edition", edition, [e.value for e in Edition])) from None
        kwargs: dict[str, Any] = {}
        known = {f.name: f for f in fields(cls) if f.name != "edition"}
        for name, value in (options or {}).items():
            if name not in known:
                if strict:
                    raise OptionError(
                        f"unknown option {name!r} (known options: {', '.join(known)})"
                    )
                continue
            kwargs[name] = _convert(name, value)
        return cls(edition=ed, **kwargs)

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls) if f.name != "edition")

    def summary(self) -> str:
        """A short human summary, e.g. ``1980 · points to 100 (last standing) · manual draw``."""
        parts = [self.edition.value]
        assert self.scoring is not None
        if self.scoring is Scoring.POINTS:
            parts.append(f"points to {self.points_target} ({self.points_win.value.replace('_', ' ')})")
        elif self.scoring is Scoring.TOKENS:
            parts.append("tokens" + (" (out at zero)" if self.out_at_zero_tokens else ""))
        for name in ("bust_over_99", "ono99_on_zero", "ono99_sets_99", "manual_draw",
                     "eight_players"):
            if getattr(self, name):
                parts.append(name.replace("_", " "))
        return " · ".join(parts)


def _allowed(name: str, value: object, allowed: list[Any]) -> str:
    shown = ", ".join(repr(a) if isinstance(a, str) else str(a).lower() for a in allowed)
    return f"option {name!r} must be one of {shown}; got {value!r}"


_ENUM_OPTIONS: dict[str, type[Enum]] = {"scoring": Scoring, "points_win": PointsWin}


def _convert(name: str, value: Any) -> Any:
    enum_type = _ENUM_OPTIONS.get(name)
    if enum_type is not None:
        if isinstance(value, enum_type):
            return value
        try:
            return enum_type(value)
        except ValueError:
            raise OptionError(_allowed(name, value, [m.value for m in enum_type])) from None
    return value


def parse_option_text(text: str) -> tuple[str, Any]:
    """Parse a command-line ``name=value`` into a name and a plain value (bool, int or text)."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise OptionError(f"expected NAME=VALUE, got {text!r}")
    raw = raw.strip()
    lowered = raw.lower()
    value: Any
    if lowered in ("true", "yes", "on", "1") and name != "points_target":
        value = True
    elif lowered in ("false", "no", "off", "0") and name != "points_target":
        value = False
    else:
        try:
            value = int(raw)
        except ValueError:
            value = raw
    return name, value

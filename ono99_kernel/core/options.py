"""Table options: one validated value holding the edition and every rule option of docs/rules.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from .cards import Edition
from .errors import OptionError, OptionName
from .words import N_, english


class Scoring(Enum):
    ELIMINATION = "elimination"  # 2022: last player left wins
    TOKENS = "tokens"  # 1980 default
    POINTS = "points"  # 1980 option


class PointsWin(Enum):
    LAST_STANDING = "last_standing"
    LOWEST_SCORE = "lowest_score"

    @property
    def words(self) -> str:
        """In English, translated where shown: ``last standing``, ``lowest score``."""
        return POINTS_WIN_WORDS[self]


POINTS_WIN_WORDS = {PointsWin.LAST_STANDING: N_("last standing"), PointsWin.LOWEST_SCORE: N_("lowest score")}
# the scoring's words in a table's summary
POINTS_SUMMARY = N_("points to {target} ({win})")
TOKENS_SUMMARY = N_("tokens")
TOKENS_OUT_SUMMARY = N_("tokens (out at zero)")
SUMMARY_SEPARATOR = " · "


MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_PLAYERS_2022_BOX = 6
POINTS_TARGET_RANGE = (1, 10_000)

OPTIONS_1980_ONLY = ("bust_over_99", "ono99_on_zero", "ono99_sets_99", "out_at_zero_tokens")


@dataclass(frozen=True, slots=True)
class OptionWords:
    """How people are told an option (in English, translated where shown): its ``title`` (a dialog's row,
    an error), the ``switch`` label of a yes/no option in the new-game dialog, and its words in a table's
    ``summary`` when it is on (None: the summary says it otherwise)."""

    title: str
    switch: str | None = None
    summary: str | None = None


# Every option's words, by its docs/rules.md name (in the order of TableOptions' fields).
OPTION_WORDS: dict[str, OptionWords] = {
    "bust_over_99": OptionWords(N_("Only going over 99 loses"), N_("Only going over 99 loses (99 is a legal total)"),
                                N_("bust over 99")),
    "ono99_on_zero": OptionWords(N_("O'NO 99 when the total ends in 0"),
                                 N_("O'NO 99 playable when the total ends in 0"), N_("ono99 on zero")),
    "ono99_sets_99": OptionWords(N_("O'NO 99 sets the total to 99"),
                                 N_("O'NO 99 sets the total to 99 (needs the rule above it: only over 99 loses)"),
                                 N_("ono99 sets 99")),
    "manual_draw": OptionWords(N_("Manual draw"), N_("Manual draw: you draw yourself after playing; if the next "
                                                     "player plays first, your draw is lost"), N_("manual draw")),
    "scoring": OptionWords(N_("Scoring")),
    "out_at_zero_tokens": OptionWords(N_("Out as soon as the last token is lost"),
                                      N_("Out as soon as the last token is lost")),
    "points_target": OptionWords(N_("Points target")),
    "points_win": OptionWords(N_("Points win")),
    "eight_players": OptionWords(N_("Up to 8 players"), N_("House rule: up to 8 players"), N_("eight players")),
}


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
            raise _allowed("edition", self.edition, [e.value for e in Edition])
        for name in ("bust_over_99", "ono99_on_zero", "ono99_sets_99", "manual_draw",
                     "out_at_zero_tokens", "eight_players"):
            if not isinstance(getattr(self, name), bool):
                raise _allowed(name, getattr(self, name), [True, False])
        if self.scoring is None:
            default = Scoring.ELIMINATION if self.edition is Edition.E2022 else Scoring.TOKENS
            object.__setattr__(self, "scoring", default)
        if not isinstance(self.scoring, Scoring):
            raise _allowed("scoring", self.scoring, [s.value for s in Scoring])
        if not isinstance(self.points_win, PointsWin):
            raise _allowed("points_win", self.points_win, [p.value for p in PointsWin])
        low, high = POINTS_TARGET_RANGE
        if (not isinstance(self.points_target, int) or isinstance(self.points_target, bool)
                or not low <= self.points_target <= high):
            raise OptionError("whole_number", option=OptionName("points_target"), low=low, high=high,
                              value=repr(self.points_target))
        self._check_combination(self.scoring)

    def _check_combination(self, scoring: Scoring) -> None:
        """The options together, ``scoring`` the one ``__post_init__`` settled."""
        if self.edition is Edition.E2022:
            if scoring is not Scoring.ELIMINATION:
                raise OptionError("elimination_2022", option=OptionName("scoring"), value=repr(scoring.value))
            for name in OPTIONS_1980_ONLY:
                if getattr(self, name):
                    raise OptionError("only_1980", option=OptionName(name))
        else:
            if scoring is Scoring.ELIMINATION:
                raise OptionError("not_elimination_1980", option=OptionName("scoring"))
            if self.eight_players:
                raise OptionError("house_rule_2022", option=OptionName("eight_players"))
        if self.ono99_sets_99 and not self.bust_over_99:
            raise OptionError("requires", option=OptionName("ono99_sets_99"), other=OptionName("bust_over_99"))
        if self.ono99_sets_99 and self.ono99_on_zero:
            raise OptionError("exclusive", option=OptionName("ono99_on_zero"), other=OptionName("ono99_sets_99"))

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
            values: dict[str, str | int] = {"edition": self.edition.value, "low": MIN_PLAYERS,
                                            "high": self.max_players, "count": repr(count)}
            if self.edition is Edition.E2022 and not self.eight_players:
                raise OptionError("seats_eight", other=OptionName("eight_players"), **values)
            raise OptionError("seats", **values)

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
            raise _allowed("edition", edition, [e.value for e in Edition]) from None
        kwargs: dict[str, Any] = {}
        known = {f.name: f for f in fields(cls) if f.name != "edition"}
        for name, value in (options or {}).items():
            if name not in known:
                if strict:
                    raise OptionError("unknown", option=OptionName(name),
                                      known=", ".join(known))
                continue
            kwargs[name] = _convert(name, value)
        return cls(edition=ed, **kwargs)

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls) if f.name != "edition")

    def summary(self, say: Callable[[str], str] = english) -> str:
        """A short human summary, e.g. ``1980 · points to 100 (last standing) · manual draw``; in a
        player's language with ``say=gettext``."""
        parts = [self.edition.value]
        assert self.scoring is not None
        if self.scoring is Scoring.POINTS:
            parts.append(say(POINTS_SUMMARY).format(target=self.points_target, win=say(self.points_win.words)))
        elif self.scoring is Scoring.TOKENS:
            parts.append(say(TOKENS_OUT_SUMMARY if self.out_at_zero_tokens else TOKENS_SUMMARY))
        for name, words in OPTION_WORDS.items():
            if words.summary is not None and getattr(self, name):
                parts.append(say(words.summary))
        return SUMMARY_SEPARATOR.join(parts)


def _allowed(name: str, value: object, allowed: list[Any]) -> OptionError:
    shown = ", ".join(repr(a) if isinstance(a, str) else str(a).lower() for a in allowed)
    return OptionError("one_of", option=OptionName(name),
                       allowed=shown, value=repr(value))


_ENUM_OPTIONS: dict[str, type[Enum]] = {"scoring": Scoring, "points_win": PointsWin}


def _convert(name: str, value: Any) -> Any:
    enum_type = _ENUM_OPTIONS.get(name)
    if enum_type is not None:
        if isinstance(value, enum_type):
            return value
        try:
            return enum_type(value)
        except ValueError:
            raise _allowed(name, value, [m.value for m in enum_type]) from None
    return value


def parse_option_text(text: str) -> tuple[str, Any]:
    """Parse a command-line ``name=value`` into a name and a plain value (bool, int or text)."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise OptionError("name_value", value=repr(text))
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

"""A game's analysis (``analysis.py``) in the reader's words: the marks, and each marked move as a
sentence ("Move 12: Ada played 9; 10 was better: 41% against 27%"). ``ono99 analyse`` and the replay
screen say them the same way."""

from __future__ import annotations

from .analysis import Decision, SeatAnalysis
from .analysis_hints import Hint, NoHint
from .i18n import N_, gettext
from .numbers import percent
from .reasons import card_words
from .text import count

MARK_WORDS = {"inaccuracy": N_("inaccuracy"), "mistake": N_("mistake"), "blunder": N_("blunder")}
# What a chance estimates (analysis.VALUES), for a heading
VALUE_WORDS = {
    "game": N_("chances of winning the game"),
    "hand": N_("chances of not losing the hand"),
    "match_share": N_("share of the match: what is left under the target, against the others"),
}


def mark_word(mark: str) -> str:
    return gettext(MARK_WORDS.get(mark, mark))


def chance(value: float) -> str:
    return percent(value, 0)


def decision_sentence(decision: Decision, name: str, edition: str, you: bool = False) -> str:
    """One decision in a sentence: the move, and the better one with both chances when it was not
    the best; ``you``: said to the player who made it ("Move 12: you played 9; …")."""
    played = card_words(decision.played, edition)
    if decision.best == decision.played:
        return (gettext("Move {move}: you played {card}, the best move ({chance}).") if you else
                gettext("Move {move}: {name} played {card}, the best move ({chance}).")).format(
            move=decision.move, name=name, card=played, chance=chance(decision.chance_played))
    said = {"move": decision.move, "name": name, "card": played, "better": card_words(decision.best, edition),
            "best": chance(decision.chance_best), "made": chance(decision.chance_played)}
    if decision.mark is None:
        return (gettext("Move {move}: you played {card}; {better} was better: {best} against {made}.") if you else
                gettext("Move {move}: {name} played {card}; {better} was better: {best} against {made}.")
                ).format(**said)
    return (gettext("Move {move}: you played {card}; {better} was better: {best} against {made} ({mark}).") if you
            else gettext("Move {move}: {name} played {card}; {better} was better: {best} against {made} ({mark}).")
            ).format(mark=mark_word(decision.mark), **said)


def marks_in_words(found: SeatAnalysis, edition: str, you: bool = False) -> list[str]:
    """The seat's summary, then each of its marked moves in a sentence (the plain mode says them so)."""
    marked = [decision_sentence(d, found.name, edition, you) for d in found.decisions if d.mark is not None]
    return [seat_summary(found), *(marked or [gettext("No move is marked: each was the best or near it.")])]


def seat_summary(seat: SeatAnalysis) -> str:
    """``Ada (seat 0): 13 decisions; 2 mistakes, 1 blunder``."""
    marks = seat.marks()
    said = [count(marks["blunder"], "{n} blunder", "{n} blunders"),
            count(marks["mistake"], "{n} mistake", "{n} mistakes"),
            count(marks["inaccuracy"], "{n} inaccuracy", "{n} inaccuracies")]
    return gettext("{name} (seat {seat}): {decisions}; {marks}").format(
        name=seat.name, seat=seat.seat,
        decisions=count(len(seat.decisions), "{n} decision", "{n} decisions"), marks=", ".join(said))


def hint_sentence(found: Hint, edition: str) -> str:
    """``Hint: 7 (41%); also 9 27%, Reverse 12%``: the best card, then the others' chances."""
    best = gettext("Hint: {card} ({chance})").format(card=card_words(found.best, edition),
                                                     chance=chance(found.chances[found.best]))
    others = [gettext("{card} {chance}").format(card=card_words(code, edition), chance=chance(value))
              for code, value in found.chances.items() if code != found.best]
    return best + ("; " + gettext("also {cards}").format(cards=", ".join(others)) if others else "")


NO_HINT_WORDS = {
    "not_your_turn": N_("A hint is for your turn."),
    "draw_first": N_("Draw first (d); then ask for a hint."),
    "no_card": N_("No card can be played now: there is nothing to hint."),
    "one_card": N_("Only {card} can be played now."),
    "unknown_pile": N_("No hint: this client did not see every card played since the deal; "
                       "the next hand or game will have hints."),
}


def no_hint_sentence(no: NoHint, edition: str) -> str:
    return gettext(NO_HINT_WORDS[no.code]).format(card=card_words(no.card, edition) if no.card else "")

"""``ono99 analyse FILE.jsonl``: every decision of a recorded game, valued by the strong bot's search from
the deciding seat's view (``analysis.py``), with the moves that lost chances marked."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ono99_kernel.core.errors import RecordError

from . import record_file
from .analysis import DEFAULT_SEED, THRESHOLDS, analyse
from .analysis_words import VALUE_WORDS, decision_sentence, seat_summary
from .i18n import N_
from .i18n import gettext as _
from .numbers import percent
from .simulate import ProgressPacer

EXIT_OK = 0
EXIT_FAULTY = 1
EXIT_USAGE = 2
PROGRESS_INTERVAL = 0.25  # seconds between refreshes of the progress line
progress_clock: Callable[[], float] = time.monotonic


def add_analyse_parser(sub: Any) -> None:
    """The ``analyse`` command's arguments, on the ``ono99`` parser's subcommands ``sub``."""
    cmd = sub.add_parser("analyse", aliases=["analyze"],
                         help=_("value every move of a recorded game: ono99 analyse FILE.jsonl"),
                         description=_("Value every decision of a seat in a game record with the strong bot's "
                                       "search, from what that seat could see then, and mark the moves that "
                                       "lost chances (docs/analysis.md)."))
    cmd.add_argument("file", type=Path, metavar="FILE.jsonl")
    cmd.add_argument("--line", type=int, default=1, help=_("which record of the file, counting from 1 (default 1)"))
    cmd.add_argument("--seat", default=None, metavar="SEAT",
                     help=_("the seat to analyse, by its number in the record (from 0) or its player's name "
                            "(default: every seat)"))
    cmd.add_argument("--seed", type=int, default=DEFAULT_SEED,
                     help=_("seed of the search; the same seed gives the same analysis (default {seed})").format(
                         seed=DEFAULT_SEED))
    cmd.add_argument("--json", action="store_true", help=_("print the analysis as one JSON object (docs/analysis.md)"))


def _say(problem: str) -> None:
    print("ono99 analyse: " + problem, file=sys.stderr)


def read_record(path: Path, line: int) -> Mapping[str, Any]:
    """Record number ``line`` of a JSON Lines file (raises OSError, UnicodeDecodeError, RecordError)."""
    record, _count = record_file.read_record(path, line)
    if not isinstance(record, Mapping):
        raise RecordError("not_object", line=line)
    return record


def seat_of(record: Mapping[str, Any], text: str) -> int | None:
    """The seat that ``text`` names: its number in the record, or its player's name."""
    players = record.get("players")
    names = [p.get("name") if isinstance(p, Mapping) else None for p in players] if isinstance(players, list) else []
    if text.isdigit() and int(text) < len(names):
        return int(text)
    return names.index(text) if text in names else None


def run_analyse(args: argparse.Namespace) -> int:
    from rich.console import Console  # rich: loaded by the commands that draw with it only
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    path: Path = args.file
    try:
        record = read_record(path, args.line)
    except OSError as exc:
        _say(_("cannot read {path}: {error}").format(path=path, error=exc.strerror))
        return EXIT_USAGE
    except UnicodeDecodeError as exc:
        _say(_("{path} is not UTF-8 text ({reason} at byte {byte})").format(path=path, reason=exc.reason,
                                                                             byte=exc.start))
        return EXIT_USAGE
    except RecordError as exc:
        if exc.why == "no_record":
            count = exc.params["count"]
            _say(_("{path} holds only {records}; --line takes 1 to {last}").format(
                path=path, records=exc.params["records"], last=count) if count else
                _("{path} holds no records").format(path=path))
            return EXIT_USAGE
        _say(_("{path}: {error}; check it with 'ono99 records check'").format(path=path, error=exc.describe(_)))
        return EXIT_FAULTY
    seats: Sequence[int] | None = None
    if args.seat is not None:
        seat = seat_of(record, args.seat)
        if seat is None:
            players = record.get("players")
            last = len(players) - 1 if isinstance(players, list) and players else 0
            _say(_("no seat {seat} in this record: give a number from 0 to {last} or a player's name").format(
                seat=repr(args.seat), last=last))
            return EXIT_USAGE
        seats = [seat]
    err = Console(stderr=True)
    try:
        with Progress(TextColumn(_("analysing")), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err, transient=True, disable=not err.is_terminal, refresh_per_second=4) as progress:
            task = progress.add_task("decisions", total=None)
            pacer: list[ProgressPacer] = []

            def on_progress(done: int, total: int) -> None:
                if not pacer:
                    pacer.append(ProgressPacer(total, PROGRESS_INTERVAL, progress_clock))
                    progress.update(task, total=total, completed=0)
                elif pacer[0].count():
                    progress.update(task, completed=done)

            analysis = analyse(record, seats, seed=args.seed, on_progress=on_progress)
    except RecordError as exc:
        _say(_("{path}: {error}; check it with 'ono99 records check'").format(
            path=path, error=exc.at_line(args.line).describe(_)))
        return EXIT_FAULTY
    if args.json:
        print(json.dumps({**analysis.to_json(), "line": args.line}, ensure_ascii=False))
        return EXIT_OK
    print(_("Analysis of {file}, record {n}: {value}, seed {seed}").format(
        file=path.name, n=args.line, value=_(VALUE_WORDS[analysis.value]), seed=analysis.seed))
    print(_(THRESHOLD_WORDS).format(**{name: percent(threshold, 0) for name, threshold in THRESHOLDS}))
    for analysed in analysis.seats:
        print()
        print(seat_summary(analysed))
        for decision in analysed.decisions:
            if decision.mark is not None:
                print("  " + decision_sentence(decision, analysed.name, analysis.edition))
    return EXIT_OK


THRESHOLD_WORDS = N_("Marked: a move that lost at least {inaccuracy} (inaccuracy), {mistake} (mistake) or "
                     "{blunder} (blunder) against the best one, beyond the search's noise.")

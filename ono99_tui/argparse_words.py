"""argparse's own words ("usage:", "options", "show this help message and exit", its refusals) in
the player's language.

argparse says them through the ``_`` and ``ngettext`` it imported from the standard ``gettext``
module (the ``messages`` domain, in the environment's language, with no catalog of ours).
``speaking()`` points those two names at ono99's catalogs (``ono99_tui.i18n``: the language of
``--lang``, the settings or the environment) while the command line is built and read, and puts
argparse's own back afterwards. The messages below are argparse's, word for word (Python 3.11),
so that the catalogs hold their translations; a message argparse words otherwise stays English.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from .i18n import N_, gettext, ngettext

# the ones a player can meet (argparse's own checks of the parser's definition are for its author)
ARGPARSE_MESSAGES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
)


def expected_arguments(n: int) -> str:
    """argparse's one plural message (an option given too few values), as it says it."""
    return ngettext("expected %s argument", "expected %s arguments", n) % n


@contextmanager
def speaking() -> Iterator[None]:
    """argparse's words in the current language for a while."""
    module = vars(argparse)
    saved = module["_"], module["ngettext"]
    module["_"], module["ngettext"] = gettext, ngettext
    try:
        yield
    finally:
        module["_"], module["ngettext"] = saved

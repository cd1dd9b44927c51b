"""Keep the translation catalogs in step with the code (docs/translating.md).

    python tools/catalogs.py update   # extract the template, merge it into every catalog, compile them
    python tools/catalogs.py compile  # compile the PO catalogs into the .mo files shipped in the package
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.frontend import CommandLineInterface

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "ono99_tui" / "locale"
TEMPLATE = LOCALE / "ono99.pot"
DOMAIN = "ono99"
# gettext, ngettext and pgettext are Babel's defaults; N_ marks texts translated later, and
# text.count(n, singular, plural) is an ngettext.
KEYWORDS = ["-k", "N_", "-k", "count:2,3"]


def extract_args(output: Path) -> list[str]:
    return ["pybabel", "-q", "extract", "-F", str(ROOT / "babel.cfg"), *KEYWORDS, "--no-location",
            "--sort-output", "--project", "ONO 99", "--copyright-holder", "the ONO 99 authors",
            "--msgid-bugs-address", "https://github.com/ono99", "-o", str(output), str(ROOT)]


def run(*args: str) -> None:
    CommandLineInterface().run(list(args))  # type: ignore[no-untyped-call]  # Babel's frontend is untyped


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "update"
    if command == "update":
        run(*extract_args(TEMPLATE))
        run("pybabel", "-q", "update", "-i", str(TEMPLATE), "-d", str(LOCALE), "-D", DOMAIN, "--no-fuzzy-matching",
            "--ignore-obsolete")
    if command in ("update", "compile"):
        run("pybabel", "-q", "compile", "-d", str(LOCALE), "-D", DOMAIN)
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

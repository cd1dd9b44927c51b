"""The documents name files that exist: every path in README.md and docs/*.md (``server/ono99_server/lease.py``,
``tui/table.py``) is a file of the project, read from the repository's root or, for a path inside a package
(``wire/server.py``), from one of the three packages' folders. Tried: a path the documents could keep after
a file moved (the kernel's modules left ``ono99_tui/`` for ``ono99_kernel/``)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASES = [ROOT, ROOT / "ono99_kernel", ROOT / "ono99_tui", ROOT / "server" / "ono99_server",
         ROOT / "ono99_tui" / "front"]
PATH = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)+[\w.-]+\.(?:py|md|tcss|jsonl|js|html|css|toml|po|pot))\b")


def named_paths(text: str) -> list[str]:
    return [match.group(1) for match in PATH.finditer(text)]


def test_the_finder_reads_paths_and_not_addresses() -> None:
    text = "see server/ono99_server/lease.py and `wire/page.py`; https://example.org/a/b.js is not ours"
    assert named_paths(text) == ["server/ono99_server/lease.py", "wire/page.py"]


def test_every_path_the_documents_name_is_a_file_of_the_project() -> None:
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing = [f"{document.relative_to(ROOT)}: {path}" for document in documents
               for path in named_paths(document.read_text(encoding="utf-8"))
               if not any((base / path).exists() for base in BASES)]
    assert missing == []

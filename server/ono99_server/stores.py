"""Which store a ``--db`` names, SQLite (server/ono99_server/storage.py) or PostgreSQL
(server/ono99_server/storage_pg.py): above both,
so the SQLite store never loads the PostgreSQL one."""

from __future__ import annotations

from pathlib import Path

from .storage import SqliteStorage, Storage, export_sqlite_records


def open_storage(location: Path | str) -> Storage:
    """The store of a ``--db``: a PostgreSQL URL, else an SQLite file. Raises StorageError."""
    if isinstance(location, str):
        from .storage_pg import PostgresStorage  # psycopg is loaded only for a PostgreSQL store

        return PostgresStorage(location)
    return SqliteStorage(location)


def export_records(location: Path | str) -> list[str]:
    """Every stored game record of a database (an SQLite file or a PostgreSQL URL), as JSON Lines
    text lines, oldest first."""
    if isinstance(location, str):
        from .storage_pg import export_records as export_from_postgres

        return export_from_postgres(location)
    return export_sqlite_records(location)

"""What a store does with its files: makes them for their owner alone, and says in a person's
words why one cannot be used.

Here, below the stores and the tables beside them (side.py), so that each can say it of its own
file; locate.py, which knows every kind of store and the URLs that name them, says it of a URL.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from ..errors import UsageError

ENV_VAR = "WOUNDLOG_DB"

PRIVATE_FILE = 0o600
PRIVATE_DIRECTORY = 0o700
"""A log holds everything said at the table (and the tables beside it its tokens): files and
directories a store creates are for their owner alone. Ones that exist keep their mode."""

STORE_ERRORS: tuple[type[Exception], ...] = (sqlite3.DatabaseError,)
"""What a store's backend raises when its file is not what it should be (not a database, damaged,
locked for too long): a caller that cannot fix it turns it into a StoreUnusable with `unusable`."""
OPEN_ERRORS: tuple[type[Exception], ...] = (*STORE_ERRORS, OSError)
"""What opening a store's files can raise besides a WoundlogError."""


class StoreUnusable(UsageError):
    """The store `--db` (or `$WOUNDLOG_DB`) names cannot be opened or read as one (exit 2)."""


def make_private_directory(directory: Path) -> None:
    """Create `directory` and its missing parents, each readable only by its owner."""
    missing = []
    for parent in (directory, *directory.parents):
        if parent.exists():
            break
        missing.append(parent)
    for parent in reversed(missing):
        parent.mkdir(mode=PRIVATE_DIRECTORY, exist_ok=True)  # exist_ok: another process won
    directory.mkdir(mode=PRIVATE_DIRECTORY, exist_ok=True)  # FileExistsError if it is a file


def create_private_file(path: Path) -> None:
    """Create `path` empty, readable only by its owner, unless something is already there."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))


def unusable_file(path: Path, error: BaseException) -> StoreUnusable:
    """Say in a person's words why the store's file (or directory) `path` cannot be used; what
    SQLite or the OS said is kept at the end, for whoever must dig further."""
    said = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    if isinstance(error, OSError) and error.filename:
        said = f"{said}: {error.filename}"
    if isinstance(error, sqlite3.OperationalError) and "locked" in said:
        why = "is locked by another program"
    elif isinstance(error, sqlite3.Error) and path.is_dir():
        why = "is a directory, not a database file (a directory is a JSON Lines store: jsonl:DIR)"
    elif isinstance(error, sqlite3.DatabaseError) and path.is_file():
        why = "is not a usable woundlog database (not SQLite, damaged or cut short)"
    elif isinstance(error, FileExistsError | NotADirectoryError):
        why = "cannot be a store: a file stands where a directory should be"
    else:
        why = "cannot be opened or created"
    unusable = StoreUnusable(f"the store {str(path)!r} {why} [{said}]")
    unusable.add_note(f"check --db or ${ENV_VAR}")
    return unusable

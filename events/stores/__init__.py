"""Append-only stores of fight logs: one contract (`Store`), several backends, chosen by a URL,
each with the tables kept beside its fights (`Side`: import cursors, tokens, kept answers, stream
tickets).

`JsonlStore` is imported on first use, not with the package: every command that opens a SQLite
store imports this package, and should not pay for the JSON Lines store it never opens (issue
16), as replays/__init__.py does for its own names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .base import HearingLost, Store, Stored
from .files import create_private_file, make_private_directory
from .locate import Hearing, appends_heard, default_db_path, is_postgres, open_store
from .side import Side
from .sqlite import SQLiteStore

if TYPE_CHECKING:
    from .jsonl import JsonlStore


__getattr__, __dir__ = lazy_names(__name__, globals(), {"JsonlStore": "jsonl"})


__all__ = [
    "Hearing",
    "HearingLost",
    "JsonlStore",
    "SQLiteStore",
    "Side",
    "Store",
    "Stored",
    "appends_heard",
    "create_private_file",
    "default_db_path",
    "is_postgres",
    "make_private_directory",
    "open_store",
]

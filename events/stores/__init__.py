"""Append-only stores of fight logs: one contract (`Store`), several backends, chosen by a URL."""

from .base import Store, Stored
from .jsonl import JsonlStore
from .locate import default_db_path, open_store
from .sqlite import SQLiteStore

__all__ = [
    "JsonlStore",
    "SQLiteStore",
    "Store",
    "Stored",
    "default_db_path",
    "open_store",
]

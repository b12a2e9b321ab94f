"""Append-only stores of fight logs: one contract (`Store`), several backends, chosen by a URL."""

from .base import Store, Stored, create_private_file, make_private_directory
from .jsonl import JsonlStore
from .locate import default_db_path, is_postgres, open_store
from .sqlite import SQLiteStore

__all__ = [
    "JsonlStore",
    "SQLiteStore",
    "Store",
    "Stored",
    "create_private_file",
    "default_db_path",
    "is_postgres",
    "make_private_directory",
    "open_store",
]

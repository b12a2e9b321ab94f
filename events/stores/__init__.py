"""Append-only stores of fight logs: one contract (`Store`), several backends, chosen by a URL.

`JsonlStore` is imported on first use, not with the package: every command that opens a SQLite
store imports this package, and should not pay for the JSON Lines store it never opens (issue
16), as replays/__init__.py does for its own names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Store, Stored, create_private_file, make_private_directory
from .locate import default_db_path, is_postgres, open_store
from .sqlite import SQLiteStore

if TYPE_CHECKING:
    from .jsonl import JsonlStore


def __getattr__(name: str) -> Any:
    if name != "JsonlStore":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .jsonl import JsonlStore

    globals()[name] = JsonlStore  # found once: later reads do not come back here
    return JsonlStore


def __dir__() -> list[str]:
    return sorted([*globals(), "JsonlStore"])


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

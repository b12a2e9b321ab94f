"""Choosing a store by one URL (DESIGN.md section 7): the only place that knows every kind.

A new kind of store (PostgreSQL) is one more entry in `_SCHEMES`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import platformdirs

from ..errors import UsageError
from .base import Store
from .jsonl import JsonlStore
from .sqlite import SQLiteStore

ENV_VAR = "WOUNDLOG_DB"
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
ACCEPTED = (
    "sqlite:///ABSOLUTE/PATH.db, sqlite:RELATIVE/PATH.db, a path ending in "
    f"{', '.join(SQLITE_SUFFIXES)} (SQLite); jsonl:DIR, jsonl:///ABSOLUTE/DIR or an existing "
    "directory (JSON Lines)"
)

_SCHEMES: dict[str, Callable[[Path], Store]] = {
    "sqlite": SQLiteStore,
    "jsonl": JsonlStore,
}


def default_db_path() -> Path:
    """Where the default SQLite store lives: `$WOUNDLOG_DB`, else the user's data directory."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        return Path(configured).expanduser()
    # appauthor=False: no extra vendor folder on Windows, one `woundlog` folder everywhere.
    return Path(platformdirs.user_data_dir("woundlog", appauthor=False)) / "woundlog.db"


def open_store(url: str | None = None) -> Store:
    """Open the store `url` names; None opens the default SQLite store (`default_db_path()`).

    Accepted: `sqlite:///ABSOLUTE/PATH.db` or `sqlite:RELATIVE/PATH.db`, or a plain path ending in
    `.db`, `.sqlite` or `.sqlite3`; `jsonl:DIR` or `jsonl:///ABSOLUTE/DIR`, or the path of an
    existing directory. Anything else is a UsageError that lists these forms.
    """
    if url is None:
        return SQLiteStore(default_db_path())
    scheme, colon, rest = url.partition(":")
    if colon and scheme.lower() in _SCHEMES:
        return _SCHEMES[scheme.lower()](_url_path(url, rest))
    if "://" in url:
        raise UsageError(f"unknown kind of store {scheme!r} in {url!r}; accepted: {ACCEPTED}")
    return _open_path(url)


def _url_path(url: str, rest: str) -> Path:
    """The local path in what follows `scheme:`, either `//[localhost]/PATH` or a bare PATH."""
    if rest.startswith("//"):
        host, _, path = rest[2:].partition("/")
        if host not in ("", "localhost"):
            raise UsageError(
                f"{url!r} names a host ({host!r}); these stores are local files: "
                f"write three slashes for an absolute path. Accepted: {ACCEPTED}"
            )
        rest = "/" + unquote(path)
    if rest in ("", "/"):
        raise UsageError(f"{url!r} names no file or directory; accepted: {ACCEPTED}")
    return Path(rest).expanduser()


def _open_path(text: str) -> Store:
    path = Path(text).expanduser()
    if path.suffix.lower() in SQLITE_SUFFIXES:
        return SQLiteStore(path)
    if path.is_dir():
        return JsonlStore(path)
    raise UsageError(
        f"cannot tell what kind of store {text!r} is (not an existing directory, and no SQLite "
        f"suffix); accepted: {ACCEPTED}"
    )

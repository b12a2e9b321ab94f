"""Choosing a store by one URL (`--db`, `$WOUNDLOG_DB`): the only place that knows every kind.

Local stores (SQLite, JSON Lines) are named by a path; PostgreSQL by its own connection URL
(`postgresql://USER@HOST/DB`), handed to psycopg whole.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Callable
from functools import partial
from pathlib import Path
from urllib.parse import unquote

from ..errors import UsageError
from .base import Store
from .files import ENV_VAR as ENV_VAR  # these four are named by callers through locate too
from .files import OPEN_ERRORS as OPEN_ERRORS
from .files import STORE_ERRORS as STORE_ERRORS
from .files import StoreUnusable as StoreUnusable
from .files import unusable_file
from .sqlite import SQLiteStore

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
ACCEPTED = (
    "sqlite:///ABSOLUTE/PATH.db, sqlite:RELATIVE/PATH.db, a path ending in "
    f"{', '.join(SQLITE_SUFFIXES)} (SQLite); jsonl:DIR, jsonl:///ABSOLUTE/DIR or a directory "
    "that already holds a JSON Lines store (JSON Lines); "
    "postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE (PostgreSQL)"
)
POSTGRES_SCHEMES = ("postgresql", "postgres")


def _jsonl_store(path: Path) -> Store:
    """A JSON Lines store; its module loads only for one (a SQLite store is the usual)."""
    from .jsonl import JsonlStore

    return JsonlStore(path)


_SCHEMES: dict[str, Callable[[Path], Store]] = {
    "sqlite": SQLiteStore,
    "jsonl": _jsonl_store,
}


def default_db_path() -> Path:
    """Where the default SQLite store lives: `$WOUNDLOG_DB`, else the user's data directory."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        return Path(configured).expanduser()
    import platformdirs  # only when no store is named: a command given --db never needs it

    # appauthor=False: no extra vendor folder on Windows, one `woundlog` folder everywhere.
    return Path(platformdirs.user_data_dir("woundlog", appauthor=False)) / "woundlog.db"


def open_store(url: str | None = None, *, create: bool = True) -> Store:
    """Open the store `url` names; None opens the default SQLite store (`default_db_path()`).

    Accepted: `sqlite:///ABSOLUTE/PATH.db` or `sqlite:RELATIVE/PATH.db`, or a plain path ending in
    `.db`, `.sqlite` or `.sqlite3`; `jsonl:DIR` or `jsonl:///ABSOLUTE/DIR`, or the path of a
    directory that already holds a JSON Lines store (a bare path to any directory, `.` or an
    empty `--db` among them, would silently become one); `postgresql://...` (or
    `postgres://...`), a PostgreSQL database. None also takes a PostgreSQL URL from
    `$WOUNDLOG_DB`. Anything else is a UsageError that lists these forms.

    Without `create` (a command that only reads), a local store that is not there yet reads as
    the empty store it would be, and nothing is made: no file, no directory.
    """
    if url is None:
        configured = os.environ.get(ENV_VAR, "")
        if not is_postgres(configured):
            return _opened(SQLiteStore, default_db_path(), create, named=bool(configured))
        url = configured
    if not url.strip():
        raise UsageError(f"--db (or ${ENV_VAR}) is empty: name a store; accepted: {ACCEPTED}")
    if is_postgres(url):
        from .postgres import PostgresStore  # psycopg loads only for a PostgreSQL store

        _check_postgres_url(url)
        return PostgresStore(url)
    scheme, colon, rest = url.partition(":")
    if colon and scheme.lower() in _SCHEMES:
        return _opened(_SCHEMES[scheme.lower()], _url_path(url, rest), create)
    if "://" in url:
        raise UsageError(f"unknown kind of store {scheme!r} in {url!r}; accepted: {ACCEPTED}")
    return _open_path(url, create)


def _check_postgres_url(url: str) -> None:
    """A URL libpq cannot parse (`postgresql://%%%`, `postgresql://[::1`) is a usage error, not
    a traceback; the password it may hold is not repeated."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        conninfo_to_dict(url)
    except psycopg.ProgrammingError as error:
        said = str(error).strip().splitlines()[0] if str(error).strip() else "unreadable"
        said = re.sub(r'"[^"]{2,}"', '"..."', said)  # libpq quotes the part: a password?
        raise UsageError(
            f"--db (or ${ENV_VAR}) is not a PostgreSQL connection URL that can be read "
            f"({said}); accepted: postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE, with "
            "any `%`, `@`, `/` or `:` in a part written %XX"
        ) from None


def is_postgres(url: str | None) -> bool:
    """Whether `url` names a PostgreSQL database (`postgresql://...` or `postgres://...`)."""
    scheme, colon, _ = (url or "").partition(":")
    return bool(colon) and scheme.lower() in POSTGRES_SCHEMES


Hearing = Callable[[], AsyncIterator[str | None]]
"""Hears the appends other processes commit to a store: None once listening, then each fight
appended to; raises HearingLost when the connection is lost (postgres.hear_appends)."""


def appends_heard(url: str | None) -> Hearing | None:
    """How a server hears, as they commit, the appends that other processes make to the store
    at `url` (the `--db` given, else `$WOUNDLOG_DB`): PostgreSQL tells them; a store of one
    machine (SQLite, JSON Lines) tells nothing, and its readers look again now and then."""
    shared = url or os.environ.get(ENV_VAR)
    if shared is None or not is_postgres(shared):
        return None
    from .postgres import hear_appends

    return partial(hear_appends, shared)


def unusable(where: Path | str | None, error: BaseException) -> StoreUnusable:
    """Say in a person's words why the store `where` (a path or a store URL; None: the default
    store) cannot be used (files.py's `unusable_file`, of the file or directory it names)."""
    return unusable_file(where if isinstance(where, Path) else _store_path(where), error)


def _store_path(url: str | None) -> Path:
    """The file or directory a store URL names, without opening it."""
    if url is None:
        return default_db_path()
    scheme, colon, rest = url.partition(":")
    if colon and scheme.lower() in _SCHEMES:
        try:
            return _url_path(url, rest)
        except UsageError:
            pass
    return Path(url).expanduser()


def _opened(
    kind: Callable[[Path], Store], path: Path, create: bool = True, *, named: bool = True
) -> Store:
    """`kind(path)`, with what goes wrong on opening said as a StoreUnusable (exit 2); without
    `create`, a store not there yet is one too, before anything is made. A store `named` (by
    `--db` or `$WOUNDLOG_DB`, not the default one) whose folder is not there is refused."""
    if named:
        _refuse_missing_folder(path)
    if not create and _could_be_made(path):
        # read as the empty store it would be, making nothing: no file, no directory
        return SQLiteStore(":memory:")
    try:
        return kind(path)
    except OPEN_ERRORS as error:
        raise unusable(path, error) from None


def _refuse_missing_folder(path: Path) -> None:
    """A named store whose folder is not there and could not be made is refused, naming the
    path and why: under a file, in a folder this user cannot write to, or needing a new folder
    at the top of the file system (`sqlite:////no/such/dir/x.db`: a mistyped path, never a
    place for a store, even for root). Otherwise a command that writes makes the folders and
    one that reads reads the empty store it would be."""
    if path.exists() or path.parent.is_dir():
        return
    there, folder = (
        next((up for up in path.absolute().parents if up.exists()), None),
        str(path.parent),
    )
    if there is not None and not there.is_dir():
        why = f"{str(there)!r} is a file, not a folder"
    elif there is None or there.parent == there:
        why = f"its folder {folder!r} does not exist (a store makes no folder at the top)"
    elif not os.access(there, os.W_OK | os.X_OK):
        why = f"its folder {folder!r} does not exist, and {str(there)!r} is not writable"
    else:
        return
    refused = StoreUnusable(f"the store {str(path)!r} cannot exist: {why}")
    refused.add_note(f"check --db or ${ENV_VAR}")
    raise refused


def _could_be_made(path: Path) -> bool:
    """Whether `path` is not there yet but could be made: the nearest of its folders that is
    there is a folder (under a plain file, opening says why it cannot be a store)."""
    if path.exists():
        return False
    there = next((parent for parent in path.absolute().parents if parent.exists()), None)
    return there is not None and there.is_dir()


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


def _open_path(text: str, create: bool = True) -> Store:
    path = Path(text).expanduser()
    if path.suffix.lower() in SQLITE_SUFFIXES:
        return _opened(SQLiteStore, path, create)
    if path.is_dir():
        if _holds_jsonl_store(path):
            return _opened(_jsonl_store, path, create)
        raise UsageError(
            f"{text!r} is a directory that holds no JSON Lines store (no FIGHT.jsonl): write "
            f"jsonl:{text} to make it one; accepted: {ACCEPTED}"
        )
    raise UsageError(
        f"cannot tell what kind of store {text!r} is (not a JSON Lines store's directory, and no "
        f"SQLite suffix); accepted: {ACCEPTED}"
    )


def _holds_jsonl_store(directory: Path) -> bool:
    """Whether `directory` is a JSON Lines store already: a fight's file, or the service's
    tables that one keeps beside its fights."""
    from .jsonl import COMPANION_DB, SUFFIX

    if (directory / COMPANION_DB).is_file():
        return True
    return any(entry.is_file() for entry in directory.glob(f"*{SUFFIX}"))

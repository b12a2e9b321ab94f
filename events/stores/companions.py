"""Tables beside a store's own whose rows belong to a fight: they go with it when it is deleted
or renamed, in the same transaction as its events.

A program that keeps rows of its own next to the fights, in the store's database (the service's
tokens, import cursors and idempotency keys), names those tables in `fight_tables`; each must
have a `fight` column. The store then carries their rows along: a deleted fight leaves no token
behind that would open a later fight of the same name, and a renamed one keeps its tokens. The
registry is a table, not a list in code, so a `woundlog delete` run by the CLI knows the tables
a service created without importing the service.

`db` below is an open sqlite3 or psycopg connection inside the caller's transaction; `mark` is
its placeholder (`?` or `%s`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

FIGHT_TABLES = "fight_tables"
SCHEMA = f"CREATE TABLE IF NOT EXISTS {FIGHT_TABLES} (name TEXT PRIMARY KEY)"
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"  # compiled by `re` on first use: opening a store needs none


def register(db: Any, names: Iterable[str], mark: str = "?") -> None:
    """Say that the rows of tables `names` (each with a `fight` column) belong to their fight."""
    db.execute(SCHEMA)
    for name in names:
        _check(name)
        db.execute(
            f"INSERT INTO {FIGHT_TABLES} (name) VALUES ({mark}) ON CONFLICT (name) DO NOTHING",
            (name,),
        )


def tables(db: Any) -> list[str]:
    """The registered tables (the registry is made if missing: then there are none)."""
    db.execute(SCHEMA)
    rows = db.execute(f"SELECT name FROM {FIGHT_TABLES} ORDER BY name").fetchall()
    return [_check(str(row[0])) for row in rows]


def delete_rows(db: Any, fight: str, mark: str = "?") -> None:
    """Delete every companion row of `fight`."""
    for name in tables(db):
        db.execute(f'DELETE FROM "{name}" WHERE fight = {mark}', (fight,))


def rename_rows(db: Any, old: str, new: str, mark: str = "?") -> None:
    """Move every companion row of `old` to `new`. Rows already under `new` belong to no fight
    (the store has checked `new` is none: tokens issued for a creation that failed), so they
    are dropped first rather than mixed with `old`'s."""
    for name in tables(db):
        db.execute(f'DELETE FROM "{name}" WHERE fight = {mark}', (new,))
        db.execute(f'UPDATE "{name}" SET fight = {mark} WHERE fight = {mark}', (new, old))


def _check(name: str) -> str:
    if not re.fullmatch(_NAME, name):
        raise ValueError(f"{name!r} cannot name a table of fight rows: letters, digits and _")
    return name

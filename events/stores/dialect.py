"""The words of SQL that differ between the databases woundlog writes to: what the SQL stores
(sql.py) and the tables kept beside the fights (side.py) write once, with `?` placeholders, and
each database reads in its own."""

from __future__ import annotations

from typing import NamedTuple


class Dialect(NamedTuple):
    """The words of SQL that differ between the databases woundlog writes to."""

    mark: str
    """The driver's placeholder: sqlite3's `?`, psycopg's `%s`."""
    integer: str
    """A column of 64-bit integers."""
    blob: str
    """A column of bytes."""
    real: str
    """A column of floats (the side tables' times)."""
    columns: str
    """A query, with one `?`, for the names of a table's columns (a migration's question)."""

    def sql(self, text: str) -> str:
        """`text`, written with `?` placeholders (and no `?` or `%` of its own), in this
        database's."""
        return text if self.mark == "?" else text.replace("?", self.mark)


SQLITE = Dialect(
    mark="?",
    integer="INTEGER",
    blob="BLOB",
    real="REAL",
    columns="SELECT name FROM pragma_table_info(?)",
)
POSTGRES = Dialect(
    mark="%s",
    integer="BIGINT",
    blob="BYTEA",
    real="DOUBLE PRECISION",
    columns="SELECT column_name FROM information_schema.columns"
    " WHERE table_name = ? AND table_schema = current_schema()",
)

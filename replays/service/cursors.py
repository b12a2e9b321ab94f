"""Where each importer left off, per fight and format: the `previous` an importer hands back
(the last snapshot it saw, for formats that are compared pairwise), kept as JSON."""

from __future__ import annotations

import msgspec

from .database import Db


class ImportCursors:
    def __init__(self, db: Db) -> None:
        self._db = db

    def get(self, fight: str, fmt: str) -> object | None:
        rows = self._db.execute(
            "SELECT cursor FROM service_cursors WHERE fight = ? AND format = ?", (fight, fmt)
        )
        return msgspec.json.decode(rows[0][0]) if rows else None

    def put(self, fight: str, fmt: str, cursor: object | None) -> None:
        self._db.execute(
            "INSERT INTO service_cursors (fight, format, cursor) VALUES (?, ?, ?)"
            " ON CONFLICT (fight, format) DO UPDATE SET cursor = excluded.cursor",
            (fight, fmt, msgspec.json.encode(cursor)),
        )

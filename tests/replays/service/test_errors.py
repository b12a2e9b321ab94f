"""Issue 11, item 2: every 500 is logged with its traceback and answered in the one error body,
and nothing that follows a commit turns a written append into a failure."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import httpx

from .conftest import new_fight
from .server import Server
from .test_import import damage, fight_of

HIT = {"type": "hit", "target": "grim", "damage": 0}
LOG_WAIT_S = 5.0


def logged(server: Server, *needles: str) -> str:
    """The server's log once it holds every needle (the log is written by a thread)."""
    deadline = time.monotonic() + LOG_WAIT_S
    while True:
        text = server.log.read_text()
        if all(n in text for n in needles) or time.monotonic() > deadline:
            return text
        time.sleep(0.05)


def sabotage(db: Path, table: str, message: str) -> None:
    """Change the database behind the server's back: every insert into `table` now fails."""
    with sqlite3.connect(db) as other:
        other.execute(
            f"CREATE TRIGGER sabotage_{table} BEFORE INSERT ON {table}"
            f" BEGIN SELECT RAISE(ABORT, '{message}'); END"
        )


def test_an_unexpected_failure_is_a_500_in_the_error_body_logged_with_its_traceback(
    tmp_path: Path,
) -> None:
    db = tmp_path / "broken.db"
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        fight = new_fight(client, "broken-1")
        sabotage(db, "events", "disk on fire")
        answer = client.post("/fights/broken-1/events", json=HIT, headers=fight.gm)
        assert answer.status_code == 500
        body = answer.json()
        assert body["error"] == "InternalError"
        incident = body["message"].rsplit(" ", 1)[1]
        assert "disk on fire" not in answer.text  # the details are for the log, not the client
        text = logged(running, f"incident {incident}", "disk on fire")
        assert f"500 incident {incident}: POST /fights/broken-1/events" in text
        assert "Traceback (most recent call last)" in text and "disk on fire" in text
        assert client.get("/fights/broken-1/state", headers=fight.viewer).json()["seq"] == 3


def test_an_import_whose_cursor_cannot_be_saved_is_still_answered_as_written(
    tmp_path: Path,
) -> None:
    db = tmp_path / "cursor.db"
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        gm = fight_of(client, "cursor-1", "d26")
        sabotage(db, "service_cursors", "cursor table on fire")
        url = "/fights/cursor-1/import/foundry"
        first = client.post(url, json=damage("e1", 15, -7), headers=gm)
        assert first.status_code == 200, first.text
        assert [c["type"] for c in first.json()["changes"]] == ["character_joined", "hit"]
        text = logged(running, "cursor table on fire")
        assert "committed; cursor not saved" in text and "Traceback" in text
        # the client believed it: a resend (which it has no reason to make) still doubles nothing
        again = client.post(url, json=damage("e1", 15, -7), headers=gm)
        assert again.status_code == 200 and again.json()["changes"] == []
        state = client.get("/fights/cursor-1/state", headers=gm).json()
        assert state["seq"] == first.json()["version"]
        assert state["characters"]["brakka"]["hp"] == 15

"""The lost race (tests/replays/test_lost_race.py) on PostgreSQL, and every CLI command's
`--db postgresql://...`: two `woundlog hit` processes validate against the same version while
the fight's row is locked; whoever commits second has hit a fighter already out of action, and
is refused, because the store's own lock makes it revalidate."""

from __future__ import annotations

import os
import subprocess
import time
from typing import Any

import psycopg

from woundlog.events.stores import open_store

from ..replays.test_lost_race import CLI, FIGHT, brawl, racing_hits

BLOCKED_S = 30.0


def blocked_on_a_lock(watcher: Any) -> int:
    """How many backends of this (fresh, the test's own) database wait for a lock."""
    row = watcher.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        " AND wait_event_type = 'Lock'"
    ).fetchone()
    return int(row[0])


def test_through_two_cli_processes_on_postgresql_the_hit_that_lost_the_race_is_refused(
    postgres_url: str,
) -> None:
    brawl(postgres_url)
    commands = racing_hits(postgres_url)
    with (
        psycopg.connect(postgres_url, autocommit=True) as holder,
        psycopg.connect(postgres_url, autocommit=True) as watcher,
        holder.transaction(),
    ):
        holder.execute("SELECT version FROM fights WHERE fight = %s FOR UPDATE", (FIGHT,))
        runs = {
            writer: subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for writer, command in commands.items()
        }
        deadline = time.monotonic() + BLOCKED_S
        while blocked_on_a_lock(watcher) < 2:
            if time.monotonic() > deadline:
                for run in runs.values():
                    run.kill()
                raise AssertionError("the two writers never both waited for the fight's row")
            time.sleep(0.05)
    results = {writer: (run.wait(timeout=60), run.communicate()) for writer, run in runs.items()}
    codes = sorted(code for code, _ in results.values())
    assert codes == [0, 3], results
    [(_, (_, refusal))] = [r for r in results.values() if r[0] == 3]
    assert b"out of action" in refusal and b"Traceback" not in refusal
    [winner] = [writer for writer, r in results.items() if r[0] == 0]
    with open_store(postgres_url) as store:
        assert [s.event.id for s in store.read(FIGHT, 4)] == [winner]


def test_the_cli_commands_take_a_postgresql_url_in_db_or_woundlog_db(postgres_url: str) -> None:
    def cli(*args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            [*CLI, *args], capture_output=True, text=True, env={**os.environ, **(env or {})},
            timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    db = ["--db", postgres_url]
    cli(*db, "new", "pit", "--ruleset", "mordheim", "--seed", "3")
    cli(*db, "join", "pit", "grim", "--side", "reavers", "--stat", "wounds=2")
    cli(*db, "hit", "pit", "grim", "1")
    assert "grim" in cli("state", "pit", env={"WOUNDLOG_DB": postgres_url})
    cli("branch", "pit", "--as", "twig", "--at", "2", env={"WOUNDLOG_DB": postgres_url})
    assert "5/9" in cli(*db, "odds", "twig", "--hit", "grim:3")

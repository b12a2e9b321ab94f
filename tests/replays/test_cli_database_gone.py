"""The CLI on a PostgreSQL store that is not there, or goes away in the middle of a command
(issue 14): an error a person can act on (which database, what was said), a hint saying what
to check, no traceback, exit 2, and never the URL's password."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from tests.postgres_server import Cluster, fresh_database
from tests.replays.service.server import free_port
from woundlog.events.stores import open_store

from .test_import_linear import fight_log

DEADLINE_S = 60.0
IMPORTING = "woundlog-import-under-test"  # the import's application_name


def woundlog(*args: str | Path, db: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WOUNDLOG_DB": db}
    return subprocess.run(
        [sys.executable, "-c", "from woundlog.replays.cli import main; main()", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )


def assert_told_to_check(result: subprocess.CompletedProcess[str], shown: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2, result.stderr  # what happened, then what to check
    assert lines[0].startswith(f"error: cannot reach the database at {shown}: "), lines[0]
    assert lines[1] == "hint: is the PostgreSQL server running, at the host and port --db names?"


def test_a_command_on_a_stopped_server_says_which_database_and_to_check_it_runs(
    postgres_cluster: Cluster,
) -> None:
    url = fresh_database(postgres_cluster.url)
    assert woundlog("new", "yard", "--ruleset", "mordheim", db=url).returncode == 0
    postgres_cluster.stop()
    result = woundlog("state", "yard", db=url)
    assert_told_to_check(result, url)
    assert "No such file or directory" in result.stderr  # its socket is gone with it


def test_a_port_nothing_listens_on_is_named_without_the_password(tmp_path: Path) -> None:
    port = free_port()  # free a moment ago: nothing listens there
    url = f"postgresql://woundlog:s3cret-pw@127.0.0.1:{port}/fights?connect_timeout=5"
    result = woundlog("fights", db=url)
    assert_told_to_check(result, f"postgresql://woundlog@127.0.0.1:{port}/fights?connect_timeout=5")
    assert "s3cret" not in result.stdout + result.stderr
    assert "refused" in result.stderr.lower(), result.stderr


def test_a_server_gone_in_the_middle_of_an_import_is_told_in_one_line_and_nothing_is_stored(
    postgres_url: str, tmp_path: Path
) -> None:
    """The import's connection is ended in the middle of a long file (as a server restart ends
    it): the command's next statement meets a dead connection. The import streams the file into
    one transaction, checking and writing a batch at a time, so the connection is ended as soon
    as that transaction has written, whether it is writing a batch or idle while the next is read.

    The import's connection is found by its application name (libpq's PGAPPNAME), not as any
    other backend of the database: an autovacuum worker of the new database also shows an open
    transaction there, and ending it instead left the import to finish (CI, 3 December)."""
    open_store(postgres_url).close()  # the store's tables made: the import only checks them
    file = tmp_path / "long.jsonl"
    file.write_text("".join(json.dumps(e) + "\n" for e in fight_log(20_000)))
    command = [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]
    running = subprocess.Popen(
        [*command, "import", str(file)],
        env={**os.environ, "WOUNDLOG_DB": postgres_url, "PGAPPNAME": IMPORTING},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            writing = (
                "SELECT pid FROM pg_stat_activity WHERE application_name = %s"
                " AND backend_xid IS NOT NULL"  # its transaction has written
            )
            deadline = time.monotonic() + DEADLINE_S
            while not (found := admin.execute(writing, (IMPORTING,)).fetchall()):
                assert running.poll() is None and time.monotonic() < deadline, "never wrote"
                time.sleep(0.005)
            for (pid,) in found:
                assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (
                    True,
                )
        out, err = running.communicate(timeout=DEADLINE_S)
    finally:
        running.kill()
    result = subprocess.CompletedProcess(running.args, running.returncode, out, err)
    assert_told_to_check(result, postgres_url)
    with psycopg.connect(postgres_url) as check:
        assert check.execute("SELECT count(*) FROM events").fetchone() == (0,)

"""`woundlog delete` and `woundlog rename`, run as a person runs them: the installed command in a
real subprocess, on a throwaway SQLite file (and a terminal, a real pseudo-terminal, where the
command asks before it deletes)."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from woundlog.events.stores import open_store

WOUNDLOG = [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]


def woundlog(db: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WOUNDLOG, *args, "--db", str(db)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with fight `pit` (2 events), made once by the CLI: each test deletes a copy."""
    path = tmp_path_factory.mktemp("made") / "fights.db"
    ok(woundlog(path, "new", "pit", "--ruleset", "mordheim", "--seed", "1"))
    ok(woundlog(path, "join", "pit", "grim", "--side", "reavers"))
    return path


@pytest.fixture
def db(made: Path, tmp_path: Path) -> Path:
    path = tmp_path / "fights.db"
    shutil.copy(made, path)  # no -wal is left: the CLI closed the file
    return path


def fight_ids(db: Path) -> list[str]:
    with open_store(str(db)) as store:
        return store.fights()


def on_a_terminal(db: Path, *args: str, answer: str) -> tuple[int, str]:
    """Run woundlog with a pseudo-terminal as its stdin and stdout, answering its question."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [*WOUNDLOG, *args, "--db", str(db)],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "COLUMNS": "200"},
    )
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 60
    answered = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 1024)
            except OSError:  # the command ended and closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        if not answered and b"?" in seen:
            os.write(leader, answer.encode() + b"\n")
            answered = True
        if process.poll() is not None and not ready:
            break
    code = process.wait(timeout=10)
    os.close(leader)
    return code, seen.decode(errors="replace")


def test_delete_with_yes_deletes_the_fight_and_says_how_many_events(db: Path) -> None:
    result = ok(woundlog(db, "delete", "pit", "--yes"))
    assert "fight `pit` deleted (2 events)" in result.stdout
    assert fight_ids(db) == []


def test_delete_without_a_terminal_and_without_yes_refuses_with_exit_2_and_a_hint(
    db: Path,
) -> None:
    result = woundlog(db, "delete", "pit", stdin="y\n")
    assert result.returncode == 2, result.stderr
    assert "needs a yes" in result.stderr and "--yes" in result.stderr
    assert "Traceback" not in result.stderr
    assert fight_ids(db) == ["pit"]


def test_delete_at_a_terminal_asks_and_deletes_on_yes(db: Path) -> None:
    code, seen = on_a_terminal(db, "delete", "pit", answer="y")
    assert "Delete fight pit (2 events)?" in seen
    assert code == 0, seen
    assert fight_ids(db) == []


def test_delete_at_a_terminal_keeps_the_fight_on_no(db: Path) -> None:
    code, seen = on_a_terminal(db, "delete", "pit", answer="n")
    assert "Delete fight pit (2 events)?" in seen
    assert code == 1, seen
    assert "kept" in seen
    assert fight_ids(db) == ["pit"]


def test_delete_of_an_unknown_fight_is_a_usage_error_naming_the_fights(db: Path) -> None:
    result = woundlog(db, "delete", "nobody", "--yes")
    assert result.returncode == 2
    assert "no fight `nobody` (fights: pit)" in result.stderr


def test_delete_takes_the_services_tokens_for_the_fight_with_it(db: Path) -> None:
    # the tables the service keeps in the same file (events/stores/side.py), as a server
    # that ran on it left them
    from woundlog.events.stores import SQLiteStore

    with SQLiteStore(db) as store:
        store.side.check()
    with sqlite3.connect(db) as raw:
        raw.execute("INSERT INTO service_tokens (hash, fight, role) VALUES ('hash', 'pit', 'gm')")
    ok(woundlog(db, "delete", "pit", "--yes"))
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT count(*) FROM service_tokens").fetchone()[0] == 0


def test_rename_moves_the_fight_and_its_log(db: Path) -> None:
    result = ok(woundlog(db, "rename", "pit", "arena"))
    assert "fight `pit` is now `arena` (2 events)" in result.stdout
    assert fight_ids(db) == ["arena"]
    state = json.loads(ok(woundlog(db, "state", "arena", "--json")).stdout)
    assert list(state["characters"]) == ["grim"]


def test_rename_onto_an_existing_fight_is_a_conflict_with_exit_4(db: Path) -> None:
    ok(woundlog(db, "new", "arena", "--ruleset", "mordheim"))
    result = woundlog(db, "rename", "pit", "arena")
    assert result.returncode == 4, result.stderr
    assert "fight `arena` already exists" in result.stderr
    assert fight_ids(db) == ["pit", "arena"]


def test_rename_to_an_id_that_breaks_the_rule_is_refused_with_exit_2(db: Path) -> None:
    result = woundlog(db, "rename", "pit", "a/b")
    assert result.returncode == 2
    assert "error: invalid value for 'NEW'" in result.stderr
    assert fight_ids(db) == ["pit"]


def test_rename_of_an_unknown_fight_is_a_usage_error(db: Path) -> None:
    result = woundlog(db, "rename", "nobody", "arena")
    assert result.returncode == 2
    assert "no fight `nobody`" in result.stderr

"""Issue 11, item 8: a `--db` that is no database (garbage, cut short, damaged, a directory, a
path that cannot be created) is a clear error and exit 2 for every command and for `serve`."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from woundlog.replays.cli import app

EVENTS = 400
COMMANDS: list[tuple[str, ...]] = [
    ("new", "f", "--ruleset", "mordheim"),
    ("join", "f", "grim"),
    ("hit", "f", "grim", "1"),
    ("heal", "f", "grim", "1"),
    ("tick", "f", "--start"),
    ("choose", "f", "grim", "hold_on"),
    ("end", "f"),
    ("undo", "f"),
    ("amend", "f", "#2", "--replacement", '{"type": "hit", "target": "grim", "damage": 0}'),
    ("state", "f"),
    ("log", "f"),
    ("export", "f"),
    ("import", "{log}", "--as", "f"),
    ("import", "foundry", "{records}", "--ruleset", "d26", "--into", "f"),
]


def fight_log(path: Path) -> Path:
    events = [
        {"type": "fight_started", "ruleset": "mordheim", "seed": 1},
        {"type": "character_joined", "character": "grim", "side": "a", "stats": {"wounds": 3}},
        *({"type": "hit", "target": "grim", "damage": 0, "note": "x" * 200} for _ in range(EVENTS)),
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def real_db(tmp_path: Path) -> bytes:
    """The bytes of a real store holding a fight of some hundred pages."""
    db = tmp_path / "real.db"
    imported = CliRunner().invoke(
        app, ["--db", str(db), "import", str(fight_log(tmp_path / "f.jsonl"))]
    )
    assert imported.exit_code == 0, imported.output
    with sqlite3.connect(db) as checkpoint:
        checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db.read_bytes()


def garbage(tmp_path: Path) -> str:
    path = tmp_path / "garbage.db"
    path.write_bytes(bytes(range(256)) * 20)
    return str(path)


def cut_short(tmp_path: Path) -> str:
    data = real_db(tmp_path)
    path = tmp_path / "cut.db"
    path.write_bytes(data[: len(data) * 2 // 3])
    return str(path)


def header_only(tmp_path: Path) -> str:
    path = tmp_path / "header.db"
    path.write_bytes(real_db(tmp_path)[:100])
    return str(path)


def directory(tmp_path: Path) -> str:
    path = tmp_path / "fights.db"
    path.mkdir()
    return str(path)


def under_a_file(tmp_path: Path) -> str:
    (tmp_path / "plain").write_text("not a directory")
    return str(tmp_path / "plain" / "fights.db")


def jsonl_on_a_file(tmp_path: Path) -> str:
    (tmp_path / "plain").write_text("not a directory")
    return f"jsonl:{tmp_path / 'plain'}"


BAD_STORES: dict[str, Callable[[Path], str]] = {
    "garbage": garbage,
    "cut short": cut_short,
    "header only": header_only,
    "a directory": directory,
    "under a file": under_a_file,
    "jsonl on a file": jsonl_on_a_file,
}


def inputs(tmp_path: Path) -> dict[str, str]:
    records = tmp_path / "records.json"
    records.write_text(json.dumps([]))
    return {"{log}": str(fight_log(tmp_path / "in.jsonl")), "{records}": str(records)}


@pytest.mark.parametrize("kind", BAD_STORES)
def test_every_command_on_a_store_that_is_no_database_exits_2_without_a_traceback(
    tmp_path: Path, kind: str
) -> None:
    db = BAD_STORES[kind](tmp_path)
    files = inputs(tmp_path)
    for command in COMMANDS:
        args = [files.get(a, a) for a in command]
        result = CliRunner().invoke(app, ["--db", db, *args])
        assert result.exit_code == 2, (command, result.output, result.exception)
        assert "error: the store" in result.output and "check --db" in result.output, command
        assert "Traceback" not in result.output


def test_a_store_damaged_past_its_first_pages_is_exit_2_when_a_command_reaches_the_damage(
    tmp_path: Path,
) -> None:
    data = bytearray(real_db(tmp_path))
    middle = len(data) // 2
    data[middle : middle + 8192] = b"\xff" * 8192  # two pages in the middle of the events
    holed = tmp_path / "holed.db"
    holed.write_bytes(bytes(data))
    result = CliRunner().invoke(app, ["--db", str(holed), "export", "f"])
    assert result.exit_code == 2, (result.output, result.exception)
    assert "is not a usable woundlog database" in result.output


def serve(db: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable, "-c", "from woundlog.replays.cli import main; main()",
        "--db", db, "serve", "--port", "0",
    ]  # fmt: skip
    env = {**os.environ, "WOUNDLOG_ADMIN_TOKEN": "a-long-enough-admin-token"}
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("kind", ["garbage", "cut short", "a directory", "under a file"])
def test_serve_on_a_store_that_is_no_database_exits_2_without_a_traceback(
    tmp_path: Path, kind: str
) -> None:
    served = serve(BAD_STORES[kind](tmp_path))
    assert served.returncode == 2, served.stderr
    assert "error: the store" in served.stderr and "Traceback" not in served.stderr


def test_serve_on_a_json_lines_store_whose_service_db_is_garbage_exits_2(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "service.db").write_bytes(b"\x00garbage" * 100)
    served = serve(f"jsonl:{store}")
    assert served.returncode == 2, served.stderr
    assert "service.db" in served.stderr and "Traceback" not in served.stderr

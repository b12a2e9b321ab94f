"""Issue 24: `--db` as typed: a URL psycopg cannot read is a usage error, not a traceback; an
empty `--db` or a bare directory is not silently a JSON Lines store; a command that only reads
creates no store; a JSON Lines file that does not read is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import Run


@pytest.mark.parametrize(
    "url", ["postgresql://%%%", "postgresql://[::1", "postgres://gm:pa%zzss@[::1/db"]
)
def test_a_postgresql_url_that_cannot_be_read_is_exit_2_without_a_traceback(
    run: Run, url: str
) -> None:
    result = run("--db", url, "fights")
    assert result.exit_code == 2, result.output
    assert (
        result.stderr.startswith("error: ") and "not a PostgreSQL connection URL" in result.stderr
    )
    assert "Traceback" not in result.output and "pa%zzss" not in result.stderr


def test_an_empty_db_is_refused_not_taken_as_the_working_directory(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("--db", "", "new", "f", "--ruleset", "mordheim")
    assert result.exit_code == 2, result.output
    assert "is empty" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_bare_directory_is_a_store_only_if_it_holds_one(run: Run, tmp_path: Path) -> None:
    plain = tmp_path / "photos"
    plain.mkdir()
    refused = run("--db", str(plain), "new", "f", "--ruleset", "mordheim")
    assert refused.exit_code == 2, refused.output
    assert f"jsonl:{plain}" in refused.stderr  # what to write to make it one
    assert list(plain.iterdir()) == []
    made = run("--db", f"jsonl:{plain}", "new", "f", "--ruleset", "mordheim")
    assert made.exit_code == 0, made.output
    listed = run("--db", str(plain), "fights", "--json")  # it holds one now
    assert [each["fight"] for each in json.loads(listed.stdout)] == ["f"]


@pytest.mark.parametrize("url", ["sqlite:///{tmp}/nowhere/x.db", "{tmp}/nowhere/x.db",
                                 "jsonl:{tmp}/nowhere"])  # fmt: skip
@pytest.mark.parametrize("command", [("fights", "--json"), ("state", "f"), ("log", "f")])
def test_a_command_that_only_reads_creates_no_store(
    run: Run, tmp_path: Path, url: str, command: tuple[str, ...]
) -> None:
    result = run("--db", url.format(tmp=tmp_path), *command)
    if command[0] == "fights":
        assert result.exit_code == 0 and json.loads(result.stdout) == [], result.output
    else:
        assert result.exit_code == 2 and "no fight `f`" in result.stderr, result.output
    assert not (tmp_path / "nowhere").exists()


def test_a_json_lines_file_that_does_not_read_is_named(run: Run, tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "good.jsonl").write_text('{"type":"fight_started","ruleset":"mordheim"}\n')
    bad = store / "bad.jsonl"
    bad.write_text('{"type":"fight_started","ruleset":"mordheim"}\n{not json\n')
    for command in (("fights",), ("state", "bad"), ("log", "bad")):
        result = run("--db", f"jsonl:{store}", *command)
        assert result.exit_code == 3, result.output
        assert str(bad) in result.stderr and "line 2" in result.stderr, result.stderr

"""A store named by a path that cannot exist is refused, naming the path and why (issue 37):
a mistyped `--db` is not an empty store that has "no fights yet". A path whose folders could
be made stays what it was: read as empty, made by the first command that writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.replays.conftest import Run


@pytest.mark.parametrize("url", ["sqlite:////no/such/dir/x.db", "jsonl:///no/such/dir"])
@pytest.mark.parametrize(
    "command", [("fights",), ("state", "f"), ("log", "f"), ("new", "f", "--ruleset", "mordheim")]
)
def test_a_store_needing_a_new_folder_at_the_top_is_refused(
    run: Run, url: str, command: tuple[str, ...]
) -> None:
    result = run("--db", url, *command)
    assert result.exit_code == 2, result.output
    assert "/no/such/dir" in result.stderr and "does not exist" in result.stderr
    assert "no fights yet" not in result.output
    assert not os.path.exists("/no")  # refused before anything is made


@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_a_store_under_a_file_is_refused_naming_the_file(
    run: Run, tmp_path: Path, kind: str
) -> None:
    (tmp_path / "plain").write_text("not a folder")
    result = run("--db", f"{kind}://{tmp_path}/plain/sub/x.db", "fights")
    assert result.exit_code == 2, result.output
    assert f"{str(tmp_path / 'plain')!r} is a file" in result.stderr


def test_the_store_named_by_the_environment_is_refused_alike(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WOUNDLOG_DB", "/no/such/dir/fights.db")
    result = run("fights")
    assert result.exit_code == 2, result.output
    assert "'/no/such/dir' does not exist" in result.stderr


def test_a_store_whose_folder_could_be_made_is_read_as_empty(run: Run, tmp_path: Path) -> None:
    result = run("--db", f"sqlite://{tmp_path}/new/x.db", "fights")
    assert result.exit_code == 0, result.output
    assert "no fights yet" in result.output
    assert not (tmp_path / "new").exists()


def test_a_command_that_writes_makes_the_folders_it_names(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "campaigns" / "x.db"
    result = run("--db", f"sqlite://{path}", "new", "f", "--ruleset", "mordheim")
    assert result.exit_code == 0, result.output
    assert path.is_file()

"""`report`, `odds` and `timeline` read a fight log file as `replay` does: the same answer as
for the same log stored as a fight, and no store opened (issue 36: each use case takes a stored
fight or a `.jsonl` file alike)."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from .conftest import Run

FIRE_CHASM = Path(str(files("woundlog.replays") / "data" / "warhammer_quest_fire_chasm.jsonl"))
STORED = FIRE_CHASM.stem  # stored under the file's own name, so a report names both alike


def stored(run: Run) -> str:
    result = run("import", str(FIRE_CHASM), "--as", STORED)
    assert result.exit_code == 0, result.output
    return STORED


def test_report_of_a_log_file_is_the_report_of_that_log_stored(run: Run, db: Path) -> None:
    from_file = run("report", str(FIRE_CHASM), "--json")
    assert from_file.exit_code == 0, from_file.output
    assert not db.exists()  # a file is read alone: no store is made or opened
    from_store = run("report", stored(run), "--json")
    assert from_store.exit_code == 0, from_store.output
    assert json.loads(from_file.stdout) == json.loads(from_store.stdout)
    text = run("report", str(FIRE_CHASM))
    assert text.exit_code == 0 and text.stdout.startswith("# The fire chasm\n"), text.output


def test_report_of_a_log_file_writes_its_page(run: Run, tmp_path: Path) -> None:
    page = tmp_path / "chasm.html"
    assert run("report", str(FIRE_CHASM), "-o", str(page)).exit_code == 0
    assert page.read_text().count("<svg") == 3


def test_odds_of_a_log_file_are_the_odds_of_that_log_stored(run: Run, db: Path) -> None:
    asked = ("--at", "20", "--hit", "grishnak:3", "--ticks", "1", "--json")
    from_file = run("odds", str(FIRE_CHASM), *asked)
    assert from_file.exit_code == 0, from_file.output
    assert not db.exists()
    from_store = run("odds", stored(run), *asked)
    assert from_store.exit_code == 0, from_store.output
    answer = json.loads(from_file.stdout)
    assert answer == json.loads(from_store.stdout) and answer["exact"] is True


def test_odds_of_a_log_file_past_its_end_or_not_there_is_a_usage_error(
    run: Run, tmp_path: Path
) -> None:
    past = run("odds", str(FIRE_CHASM), "--at", "99", "--hit", "grishnak:3")
    assert past.exit_code == 2 and "has events 1 to 33" in past.output
    missing = run("report", str(tmp_path / "nowhere.jsonl"))
    assert missing.exit_code == 2 and "no file" in missing.output


def test_timeline_of_a_log_file_draws_what_the_stored_fight_draws(
    run: Run, db: Path, tmp_path: Path
) -> None:
    from_file, from_store = tmp_path / "file.svg", tmp_path / "store.svg"
    drawn = run("timeline", str(FIRE_CHASM), "-o", str(from_file))
    assert drawn.exit_code == 0, drawn.output
    assert not db.exists()
    assert run("timeline", stored(run), "-o", str(from_store)).exit_code == 0
    assert from_file.read_bytes() == from_store.read_bytes()

"""`woundlog report` (issue 30): Markdown by default, the Report as JSON, the two files."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from .conftest import Run

FIRE_CHASM = Path(str(files("woundlog.replays") / "data" / "warhammer_quest_fire_chasm.jsonl"))


def imported(run: Run) -> str:
    result = run("import", str(FIRE_CHASM), "--as", "chasm")
    assert result.exit_code == 0, result.output
    return "chasm"


def test_report_prints_markdown_with_names_and_no_ids(run: Run) -> None:
    result = run("report", imported(run))
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.startswith("# The fire chasm\n")
    assert "| Grishnak | monsters | dead | 3 (21) | 2 (8) |" in text
    assert "Luckiest moment: Elwen the Ranger at #22, a chance of 1/36" in text
    assert "The GM took back: Skarsnik hits Elwen the Ranger for 3" in text
    assert "arrow-slip" not in text


def test_report_json_is_the_report(run: Run) -> None:
    result = run("report", imported(run), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["length"]["events"] == 33
    assert report["luck"]["unluckiest"]["chance"] == {"num": 1, "den": 6}


def test_report_writes_markdown_or_a_self_contained_page(run: Run, tmp_path: Path) -> None:
    fight = imported(run)
    page, notes = tmp_path / "chasm.html", tmp_path / "chasm.md"
    assert run("report", fight, "-o", str(page)).exit_code == 0
    assert run("report", fight, "-o", str(notes)).exit_code == 0
    html = page.read_text()
    assert html.startswith("<!doctype html>") and html.count("<svg") == 3
    assert "<script" not in html and "http" not in html.replace('xmlns="http://www.w3.org', "")
    assert notes.read_text().startswith("# The fire chasm\n")


def test_report_refuses_another_kind_of_file_and_an_unknown_fight(run: Run, tmp_path: Path) -> None:
    fight = imported(run)
    wrong = run("report", fight, "-o", str(tmp_path / "chasm.pdf"))
    assert wrong.exit_code == 2 and "write .md or .html, or - for standard output" in wrong.output
    assert run("report", "nowhere").exit_code == 2

"""`-o -` is standard output for every command that writes a file, as a user's habits expect:
the same bytes the file would hold, no file named `-`, and no "wrote ..." line mixed into them."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from .conftest import Run

FIRE_CHASM = Path(str(files("woundlog.replays") / "data" / "warhammer_quest_fire_chasm.jsonl"))


@pytest.fixture
def chasm(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)  # where a file named `-` would appear
    assert run("import", str(FIRE_CHASM), "--as", "chasm").exit_code == 0
    return "chasm"


def both(run: Run, tmp_path: Path, *command: str, suffix: str) -> tuple[bytes, bytes]:
    """What `command -o FILE` writes in the file, and what `command -o -` prints."""
    written = tmp_path / f"written{suffix}"
    assert run(*command, "-o", str(written)).exit_code == 0
    printed = run(*command, "-o", "-")
    assert printed.exit_code == 0, printed.output
    assert not (tmp_path / "-").exists()
    return written.read_bytes(), printed.stdout_bytes


def test_export_to_dash_prints_the_log_as_the_file_holds_it(
    run: Run, chasm: str, tmp_path: Path
) -> None:
    in_file, printed = both(run, tmp_path, "export", chasm, suffix=".jsonl")
    assert printed == in_file and printed.count(b"\n") == 33


def test_report_to_dash_prints_markdown_and_with_format_html_the_page(
    run: Run, chasm: str, tmp_path: Path
) -> None:
    in_file, printed = both(run, tmp_path, "report", chasm, suffix=".md")
    assert printed == in_file and printed.startswith(b"# The fire chasm\n")
    in_file, printed = both(run, tmp_path, "report", chasm, "--format", "html", suffix=".html")
    assert printed == in_file and printed.startswith(b"<!doctype html>")


def test_report_format_is_honoured_without_o_too(run: Run, chasm: str) -> None:
    printed = run("report", chasm, "--format", "html")
    assert printed.exit_code == 0 and printed.stdout.startswith("<!doctype html>")
    assert run("report", chasm).stdout.startswith("# The fire chasm\n")


def test_report_format_must_agree_with_the_file_it_names(
    run: Run, chasm: str, tmp_path: Path
) -> None:
    refused = run("report", chasm, "-o", str(tmp_path / "chasm.md"), "--format", "html")
    assert refused.exit_code == 2 and "is not a .html file" in refused.output
    assert not (tmp_path / "chasm.md").exists()
    refused = run("report", chasm, "-o", "-", "--format", "pdf")
    assert refused.exit_code == 2 and "--format pdf: one of md, html" in refused.output


def test_campaign_report_to_dash_prints_markdown(run: Run, chasm: str, tmp_path: Path) -> None:
    assert run("campaign", "new", "quest", "--ruleset", "warhammer_quest").exit_code == 0
    assert run("campaign", "join", "quest", "grundi", "--stat", "wounds=10").exit_code == 0
    assert run("campaign", "record", "quest", chasm).exit_code == 0
    in_file, printed = both(run, tmp_path, "campaign", "report", "quest", suffix=".md")
    assert printed == in_file and b"| grundi |" in printed


def test_timeline_to_dash_prints_svg_and_with_format_png_the_png(
    run: Run, chasm: str, tmp_path: Path
) -> None:
    in_file, printed = both(run, tmp_path, "timeline", chasm, suffix=".svg")
    assert printed == in_file and b"<svg" in printed[:200]
    in_file, printed = both(run, tmp_path, "timeline", chasm, "--format", "png", suffix=".png")
    assert printed == in_file and printed.startswith(b"\x89PNG")


def test_odds_plot_to_dash_is_refused_for_the_odds_are_printed_there(
    run: Run, chasm: str, tmp_path: Path
) -> None:
    refused = run("odds", chasm, "--hit", "grundi:3", "--plot", "-")
    assert refused.exit_code == 2 and "the odds go to standard output" in refused.output
    assert not (tmp_path / "-").exists()

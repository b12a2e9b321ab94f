"""The CLI behaves like the tools people know (issue 18, in part): events named the way a shell
lets a person type them, `--version`, `-h`, shell completion, and `woundlog fights`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from woundlog.replays.cli.inputs import event_name

from .conftest import Run
from .test_cli import ok


@pytest.mark.parametrize(
    ("typed", "named"),
    [("5", "#5"), ("@5", "#5"), ("#5", "#5"), (" 12 ", "#12"), ("h1", "h1"), ("@x", "@x")],
)
def test_an_event_is_named_by_its_number_at_sign_or_hash_else_by_id(typed: str, named: str) -> None:
    assert event_name(typed) == named


def test_undo_takes_a_plain_number_because_a_shell_drops_a_bare_hash(
    run: Run, skirmish: str
) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=6"))  # #4: out of action
    undone = ok(run("undo", skirmish, "4", "--json"))
    [changes] = json.loads(undone.stdout)["changes"]
    assert changes["explanation"].startswith("retracts #4")
    redone = ok(run("undo", skirmish, "@5"))  # retracting the retract restores the hit
    assert "grim: upright -> out_of_action" in redone.stdout.lower()


def test_amend_takes_a_plain_number(run: Run, skirmish: str) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=6"))
    replacement = '{"type":"hit","target":"grim","damage":1,"rolls":{"injury":[1]}}'
    amended = ok(run("amend", skirmish, "4", "--with", replacement))
    assert "out_of_action -> knocked_down" in amended.stdout


def test_version_and_short_help(run: Run) -> None:
    assert ok(run("--version")).stdout.startswith("woundlog ")
    assert "Usage: woundlog" in ok(run("-h")).stdout
    assert "Usage: woundlog hit" in ok(run("hit", "-h")).stdout
    assert "--install-completion" in ok(run("--help")).stdout


def test_fights_lists_each_fight_with_its_ruleset_and_events(run: Run, skirmish: str) -> None:
    ok(run("new", "trail", "--ruleset", "dnd5e", "--name", "The Triboar Trail"))
    listed = json.loads(ok(run("fights", "--json")).stdout)
    assert [(f["fight"], f["ruleset"], f["events"]) for f in listed] == [
        ("skirmish", "mordheim", 3),
        ("trail", "dnd5e", 1),
    ]
    assert listed[1]["name"] == "The Triboar Trail"
    assert listed[1]["last_change"] == {"seq": 1, "type": "fight_started"}
    table = ok(run("fights")).stdout
    assert "trail" in table
    assert "#3 character_joined" in table and "#1 fight_started" in table  # never "-"


def test_the_cli_imports_and_runs_without_fcntl_as_on_windows(tmp_path: Path) -> None:
    """Windows has no `fcntl`; the CLI must import, and use a SQLite store, without it."""
    script = (
        "import sys; sys.modules['fcntl'] = None\n"  # any `import fcntl` now fails
        "from woundlog.replays.cli import main\n"
        "sys.argv = ['woundlog', 'rules']\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "WOUNDLOG_DB": str(tmp_path / "fights.db")},
    )
    assert done.returncode == 0, done.stderr
    assert "dnd5e" in done.stdout


def test_tick_takes_start_or_end_as_an_argument(run: Run, skirmish: str) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=1"))  # knocked down
    started = ok(run("tick", skirmish, "start", "--side", "reavers", "--json"))
    [changes] = json.loads(started.stdout)["changes"]
    assert changes["type"] == "turn_started" and "stands up" in changes["explanation"]
    assert json.loads(ok(run("tick", skirmish, "end", "--json")).stdout)["changes"][0]["type"] == (
        "turn_ended"
    )
    unsaid = run("tick", skirmish)
    assert unsaid.exit_code == 2 and "woundlog tick FIGHT start|end" in unsaid.output
    assert run("tick", skirmish, "sideways").exit_code == 2


def test_db_is_an_option_of_the_app_and_its_help_shows_the_envvar(run: Run) -> None:
    helped = ok(run("-h")).stdout
    assert "--db" in helped and "WOUNDLOG_DB" in helped
    assert "--db" not in ok(run("state", "-h")).stdout  # given once, before the command


def test_an_old_script_with_db_after_the_command_still_works_and_is_told_the_new_place(
    run: Run, tmp_path: Path
) -> None:
    elsewhere = str(tmp_path / "elsewhere.db")
    made = ok(run("new", "old", "--ruleset", "mordheim", "--db", elsewhere))
    assert "warning: `--db` goes before the command now" in made.stderr
    assert "old" in ok(run("--db", elsewhere, "state", "old")).stdout
    assert run("state", "old").exit_code == 2  # it went to the store it named, not $WOUNDLOG_DB


def test_db_given_before_and_after_the_command_differently_is_refused(
    run: Run, tmp_path: Path
) -> None:
    given = run("--db", str(tmp_path / "a.db"), "fights", "--db", str(tmp_path / "b.db"))
    assert given.exit_code == 2 and "--db is given twice" in given.stderr

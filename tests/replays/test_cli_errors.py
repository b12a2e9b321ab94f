"""One style for every error (issue 18, in part): click's usage errors and woundlog's own both
print `error: ...` then `hint: ...` on stderr and exit 2, without a traceback or a box."""

from __future__ import annotations

import pytest
from typer.testing import Result

from .conftest import Run


def error_and_hint(result: Result) -> tuple[str, str]:
    """The error and hint lines of a usage error; the only lines on stderr, nothing on stdout."""
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.stderr and "╭" not in result.stderr
    error, hint = result.stderr.splitlines()
    assert error.startswith("error: ") and hint.startswith("hint: "), result.stderr
    return error.removeprefix("error: "), hint.removeprefix("hint: ")


def test_an_unknown_command_names_the_nearest(run: Run) -> None:
    error, hint = error_and_hint(run("stat", "well"))
    assert error == "no such command 'stat'"
    assert hint.startswith("did you mean 'state'?") and "'woundlog -h'" in hint


def test_a_missing_argument_points_at_the_commands_help(run: Run) -> None:
    error, hint = error_and_hint(run("hit", "well", "grim"))
    assert error == "missing argument 'DAMAGE'"
    assert hint == "try 'woundlog hit -h' for help"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("hit", "well", "grim", "two"), "invalid value for 'DAMAGE'"),
        (("state", "well", "--at", "0"), "invalid value for '--at'"),
        (("tick", "well", "sideways"), "invalid value for 'start|end'"),
    ],
)
def test_a_bad_value_names_the_argument_or_option(
    run: Run, args: tuple[str, ...], said: str
) -> None:
    error, hint = error_and_hint(run(*args))
    assert error.startswith(said)
    assert hint == f"try 'woundlog {args[0]} -h' for help"


def test_a_mistyped_option_suggests_the_real_one(run: Run, skirmish: str) -> None:
    error, hint = error_and_hint(run("state", skirmish, "--jsn"))
    assert error == "no such option: --jsn"
    assert hint.startswith("did you mean --json?")


@pytest.mark.parametrize("args", [("new", "f", "--ruleset", "dnd5"), ("rules", "dnd5")])
def test_an_unknown_ruleset_is_a_usage_error_naming_the_nearest(
    run: Run, args: tuple[str, ...]
) -> None:
    error, hint = error_and_hint(run(*args))
    assert "no ruleset `dnd5`" in error
    assert hint.startswith("did you mean `dnd5e`?") and "'woundlog rules'" in hint
    assert run("fights", "--json").stdout.strip() == "[]"  # nothing was created


def test_an_unknown_fight_says_how_to_list_or_start_one(run: Run, skirmish: str) -> None:
    error, hint = error_and_hint(run("state", "skirmsh"))
    assert error.startswith("no fight `skirmsh`") and skirmish in error
    assert "'woundlog fights'" in hint and "'woundlog new FIGHT --ruleset NAME'" in hint


def test_woundlogs_own_usage_error_gets_the_commands_help_as_its_hint(
    run: Run, skirmish: str
) -> None:
    error, hint = error_and_hint(run("tick", skirmish))
    assert "woundlog tick FIGHT start|end" in error
    assert hint == "try 'woundlog tick -h' for help"


def test_a_refused_event_has_the_same_error_line_and_its_own_exit_code(
    run: Run, skirmish: str
) -> None:
    refused = run("hit", skirmish, "grim", "1", "--roll", "injury=9")
    assert refused.exit_code == 3
    assert refused.stderr.startswith("error: ") and "injury" in refused.stderr


@pytest.mark.parametrize("written", ["1_000", "+5", "\u0661", " 7"])
def test_damage_and_amount_take_digits_only(run: Run, skirmish: str, written: str) -> None:
    """Issue 24: click's INT is Python's int(), which takes `1_000` as 1000."""
    for command in ("hit", "heal"):
        error, _ = error_and_hint(run(command, skirmish, "grim", written))
        assert "is not a whole number" in error

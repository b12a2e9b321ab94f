"""What a newcomer met on a first evening (issue 26, section 4): a negative damage said as
such, `odds --plot` with no file pointed at `odds`'s help, and odds worded so that a count of
what-if events cannot be read as the fight's event number."""

from __future__ import annotations

from .conftest import Run
from .test_cli import assert_refused, ok


def test_a_negative_damage_is_said_to_be_no_whole_number_not_an_unknown_option(
    run: Run, skirmish: str
) -> None:
    refused = run("hit", skirmish, "grim", "-1")
    assert_refused(refused, 2, "DAMAGE must be a whole number >= 0, not -1")
    assert "no such option" not in refused.stderr
    assert "hint: try 'woundlog hit -h' for help" in refused.stderr


def test_a_negative_heal_names_amount(run: Run, skirmish: str) -> None:
    assert_refused(run("heal", skirmish, "grim", "-3"), 2, "AMOUNT must be a whole number >= 0")


def test_an_unknown_option_that_is_no_number_is_still_no_such_option(
    run: Run, skirmish: str
) -> None:
    assert_refused(run("hit", skirmish, "grim", "-x"), 2, "no such option: -x")


def test_an_option_missing_its_value_points_at_the_commands_own_help(
    run: Run, skirmish: str
) -> None:
    refused = run("odds", skirmish, "--hit", "grim:1", "--plot")
    assert_refused(refused, 2, "option '--plot' requires an argument")
    assert "hint: try 'woundlog odds -h' for help" in refused.stderr


def test_odds_say_how_many_events_are_still_to_come(run: Run, skirmish: str) -> None:
    text = ok(run("odds", skirmish, "--hit", "grim:1", "--hit", "snitch:1")).stdout
    first = text.splitlines()[0]
    assert first == "odds once 2 more events have happened (the what-if), exact"
    assert "after" not in first

"""`woundlog campaign ...` and `woundlog join --from`, in-process over a SQLite store (dnd5e,
SRD 5.1: hit points carry from one fight to the next; a long rest restores all of them)."""

from __future__ import annotations

import json


def ok(run, *args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.output


def two_fights(run):
    ok(run, "campaign", "new", "west", "--ruleset", "dnd5e")
    ok(run, "campaign", "join", "west", "mira", "--name", "Mira", "--stat", "hp=20")
    for fight, damage in (("f1", "5"), ("f2", "3")):
        ok(run, "new", fight, "--ruleset", "dnd5e", "--seed", "1")
        ok(run, "join", fight, "m", "--from", "west", "--member", "mira")
        ok(run, "hit", fight, "m", damage)
        ok(run, "campaign", "record", "west", fight, "--member", "mira=m")


def test_show_prints_the_hit_points_two_fights_left(run):
    two_fights(run)
    shown = json.loads(ok(run, "campaign", "show", "west", "--json"))
    assert shown["members"][0]["current"] == {"hp": 20, "current_hp": 12}
    assert shown["fights"] == ["f1", "f2"]
    assert "Mira: hp 20, current_hp 12" in ok(run, "campaign", "show", "west")


def test_an_undo_in_fight_one_names_the_hit_points_fight_two_began_from(run):
    two_fights(run)
    said = ok(run, "campaign", "undo", "west", "#3", "--fight", "f1")
    assert "Mira: HP 15 -> 20 from fight f2 on" in said
    assert "fight f2 began mira from a record no longer true" in said


def test_a_long_rest_then_history_of_one_member(run):
    two_fights(run)
    ok(run, "campaign", "rest", "west", "--kind", "long")
    history = ok(run, "campaign", "history", "west", "--member", "mira")
    assert "#5 rest: Mira: HP 12 -> 20" in history


def test_a_dead_member_is_refused_a_fight_with_the_reason(run):
    two_fights(run)
    from woundlog.replays.application import Application

    with Application.opened(None) as app:
        app.campaign_died("west", "mira", cause="the ogre")
    ok(run, "new", "f3", "--ruleset", "dnd5e")
    result = run("join", "f3", "mira", "--from", "west")
    assert result.exit_code == 3
    assert "Mira is dead: recorded by the GM (#5: the ogre)" in result.output

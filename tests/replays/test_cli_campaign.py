"""`woundlog campaign ...` and `woundlog join --from` in-process, as typed, over a real SQLite
file: a Warhammer Quest warrior's Internal Injury carried into the next fight, and the undo that
flows forward. Dice are given: D66 16 is Internal Injury, its 1d3 bleeds 2 Starting Wounds at
the end of the turn (10 -> 8), a Downed 6 stabilises him."""

from __future__ import annotations

import json

from .conftest import Run


def ok(run: Run, *args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.output


def first_fight(run: Run) -> None:
    ok(run, "campaign", "new", "quest", "--ruleset", "warhammer_quest", "--name", "The Quest")
    ok(run, "campaign", "join", "quest", "grundi", "--name", "Grundi", "--stat", "wounds=10")
    ok(run, "new", "f1", "--ruleset", "warhammer_quest")
    ok(run, "join", "f1", "grundi", "--from", "quest")
    ok(run, "hit", "f1", "grundi", "10", "--roll", "serious_injury=1,6")
    ok(run, "tick", "f1", "end", "--roll", "internal_injury=2", "--roll", "downed@grundi=6")


def test_a_serious_injury_stays_on_the_record_and_the_next_fight_joins_from_it(run: Run) -> None:
    first_fight(run)
    recorded = ok(run, "campaign", "record", "quest", "f1")
    assert "Grundi (grundi): Starting Wounds 8" in recorded
    assert "injury: Internal Injury (fight f1, #3)" in recorded
    ok(run, "new", "f2", "--ruleset", "warhammer_quest")
    ok(run, "join", "f2", "grundi", "--from", "quest")
    state = json.loads(ok(run, "state", "f2", "--json"))
    grundi = state["characters"]["grundi"]
    assert grundi["stats"]["wounds"] == 8 and grundi["wounds"] == 8  # his wounds returned, to 8


def test_show_and_history_in_text_and_json(run: Run) -> None:
    first_fight(run)
    ok(run, "campaign", "record", "quest", "f1")
    shown = json.loads(ok(run, "campaign", "show", "quest", "--json"))
    assert shown["ruleset"] == "warhammer_quest" and shown["fights"] == ["f1"]
    assert shown["members"][0]["wounds"] == 8
    before = json.loads(ok(run, "campaign", "show", "quest", "--at", "2", "--json"))
    assert before["members"][0]["wounds"] == 10
    history = ok(run, "campaign", "history", "quest", "--member", "grundi")
    lines = history.splitlines()
    at = lines.index("#3 fight_played f1 grundi=grundi")
    assert lines[at + 1 : at + 3] == [
        "    Grundi: Starting Wounds 10 -> 8",
        "    Grundi: injured: Internal Injury (#3)",
    ]
    entries = json.loads(ok(run, "campaign", "history", "quest", "--json"))["entries"]
    assert [e["event"]["type"] for e in entries] == [
        "campaign_started",
        "member_joined",
        "fight_played",
    ]


def test_an_undo_in_fight_one_is_reported_from_fight_two_on(run: Run) -> None:
    first_fight(run)
    ok(run, "campaign", "record", "quest", "f1")
    ok(run, "new", "f2", "--ruleset", "warhammer_quest")
    ok(run, "join", "f2", "grundi", "--from", "quest")
    ok(run, "campaign", "record", "quest", "f2")
    undone = ok(run, "campaign", "undo", "quest", "--fight", "f1")  # the turn's end: no bleeding
    assert "consequence: Grundi: Starting Wounds 8 -> 10 from fight f2 on" in undone
    assert "fight f2 began grundi from a record no longer true" in undone
    shown = ok(run, "campaign", "show", "quest")
    assert "Grundi (grundi): Starting Wounds 10" in shown
    assert "fight f2 began grundi from a record no longer true" in shown
    f2 = json.loads(ok(run, "state", "f2", "--json"))
    assert f2["characters"]["grundi"]["stats"]["wounds"] == 8  # its log is history


def test_refusals_say_why(run: Run) -> None:
    first_fight(run)
    ok(run, "campaign", "record", "quest", "f1")
    rest = run("campaign", "rest", "quest")
    assert rest.exit_code != 0 and "no rest between adventures" in rest.output
    ok(run, "campaign", "died", "quest", "grundi", "--cause", "the troll")
    ok(run, "new", "f2", "--ruleset", "warhammer_quest")
    refused = run("join", "f2", "grundi", "--from", "quest")
    assert (
        refused.exit_code != 0
        and "Grundi is dead" in refused.output
        and "the troll" in refused.output
    )
    both = run("join", "f2", "grundi", "--from", "quest", "--stat", "wounds=3")
    assert both.exit_code == 2 and "--stat with --from" in both.output
    missing = run("campaign", "show", "nowhere")
    assert missing.exit_code != 0 and "no campaign `nowhere`" in missing.output


def test_the_issues_case_an_undo_in_fight_2_after_fight_4_reports_from_fight_3_on(run: Run) -> None:
    ok(run, "campaign", "new", "quest", "--ruleset", "warhammer_quest")
    ok(run, "campaign", "join", "quest", "grundi", "--name", "Grundi", "--stat", "wounds=10")
    for fight in ("1", "2", "3", "4"):
        ok(run, "new", fight, "--ruleset", "warhammer_quest")
        ok(run, "join", fight, "grundi", "--from", "quest")
        if fight == "2":  # D66 16, Internal Injury; the turn's end bleeds 2 (10 -> 8)
            ok(run, "hit", fight, "grundi", "10", "--roll", "serious_injury=1,6")
            ok(
                run,
                "tick",
                fight,
                "end",
                "--roll",
                "internal_injury=2",
                "--roll",
                "downed@grundi=6",
            )
        ok(run, "campaign", "record", "quest", fight)
    undone = ok(run, "campaign", "undo", "quest", "4", "--fight", "2")  # that turn's end
    assert "consequence: Grundi: Starting Wounds 8 -> 10 from fight 3 on" in undone
    shown = json.loads(ok(run, "campaign", "show", "quest", "--json"))
    assert shown["members"][0]["wounds"] == 10
    assert [(p["fight"], p["joined"], p["record"]) for p in shown["stale"]] == [
        ("3", {"wounds": 8}, {"wounds": 10}),
        ("4", {"wounds": 8}, {"wounds": 10}),
    ]

"""Issue 41: `woundlog set FIGHT CHARACTER STAT VALUE [--reason ...]` records a `stat_changed`
(a maximum raised by Aid, lowered by Life Drain, edited on a sheet), naming the character by id
or display name as every command does; a ruleset that derives all its stats refuses it."""

from __future__ import annotations

import json

from .conftest import Run
from .test_cli import ok, state_json


def test_aid_raises_the_maximum_and_its_heal_is_not_capped(run: Run) -> None:
    for args in (
        ("new", "keep", "--ruleset", "dnd5e"),
        ("join", "keep", "mira", "--name", "Mira", "--stat", "hp=20"),
    ):
        ok(run(*args))
    said = ok(run("set", "keep", "Mira", "hp", "25", "--reason", "Aid")).stdout
    assert "20 -> 25 (Aid)" in said
    ok(run("heal", "keep", "mira", "5"))
    mira = state_json(run, "keep")["characters"]["mira"]
    assert (mira["hp"], mira["max_hp"]) == (25, 25)
    appended = json.loads(ok(run("set", "keep", "mira", "hp", "13", "--json")).stdout)
    assert appended["changes"][0]["type"] == "stat_changed"
    mira = state_json(run, "keep")["characters"]["mira"]
    assert (mira["hp"], mira["max_hp"]) == (13, 13)  # Life Drain: the HP come down with it


def test_a_ruleset_that_sets_no_stat_refuses_it_naming_the_stat(run: Run, skirmish: str) -> None:
    refused = run("set", skirmish, "Grim", "wounds", "3")
    assert refused.exit_code == 3
    assert "$.stat" in refused.output

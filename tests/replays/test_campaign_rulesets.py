"""What each ruleset's text carries from one fight to the next and what a treatment or rest
restores, through a real fight's log folded into a campaign (SQLite file). The dice are given,
as a GM at the table would give them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.events import FightStarted, RuleError
from woundlog.replays.application import Application


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "campaign.db")) as opened:
        yield opened


def played(
    app: Application, ruleset: str, member: str, stats: dict[str, int], *lines: dict
) -> None:
    app.campaign_new("c", ruleset)
    app.campaign_join("c", member, stats=stats)
    app.create("f1", FightStarted(ruleset=ruleset))
    app.join_from_campaign("f1", member, "c")
    for fields in lines:
        app.record_named("f1", [fields])
    app.campaign_record("c", "f1")


def test_contractor_a_fracture_stays_until_treated_and_treatment_reverses_its_layers(app) -> None:
    # the contractor text: a wound's counter is -4 Constitution, plus its location's penalty
    # (wound roll 37, weapon-arm Fracture: Dexterity -2); treating it reverses both layers
    played(
        app,
        "contractor",
        "cinder",
        {"constitution": 14, "dexterity": 3},
        {"type": "hit", "target": "cinder", "damage": 14, "rolls": {"wound": [37]}},
    )
    [cinder] = app.campaign_show("c").members
    assert cinder.current["constitution"] == 10 and cinder.current["dexterity"] == 1
    assert len(cinder.injuries) == 1 and cinder.injuries[0].fight == "f1"
    with pytest.raises(RuleError, match="has no rest that heals"):
        app.campaign_rest("c")
    app.campaign_treat("c", "cinder", means="treat_wound")
    [treated] = app.campaign_show("c").members
    assert treated.current["constitution"] == 14 and treated.current["dexterity"] == 3
    assert treated.injuries == ()


def test_d26_a_severe_injury_stays_until_treated_and_a_rest_clears_fatigue(app) -> None:
    # d26: 15 damage on 12 HP leaves 3 over at 0 HP: Fatigued, and the location roll 2 a
    # Severe Leg Injury
    played(
        app,
        "d26",
        "mira",
        {"hp": 12},
        {"type": "hit", "target": "mira", "damage": 15, "rolls": {"location": [2]}},
    )
    [mira] = app.campaign_show("c").members
    assert mira.conditions == ("Fatigued",)
    assert [i.fight for i in mira.injuries] == ["f1"]
    app.campaign_rest("c")
    [rested] = app.campaign_show("c").members
    assert rested.conditions == () and len(rested.injuries) == 1  # a rest heals no injury
    app.campaign_treat("c", "mira")
    assert app.campaign_show("c").members[0].injuries == ()


def test_warhammer_quest_refuses_a_treatment_serious_injuries_are_for_good(app) -> None:
    played(
        app,
        "warhammer_quest",
        "grundi",
        {"wounds": 10},
        {"type": "hit", "target": "grundi", "damage": 10, "rolls": {"serious_injury": [3, 6]}},
    )
    [grundi] = app.campaign_show("c").members
    assert len(grundi.injuries) == 1 and grundi.current["wounds"] == 10  # wounds return
    with pytest.raises(RuleError, match="Serious Injuries are permanent"):
        app.campaign_treat("c", "grundi")


def test_dragonquest_a_grievous_injury_stays_until_treated_and_a_rest_is_refused(app) -> None:
    # DragonQuest gives no healing time our text carries (the ruleset's documented decision):
    # Fatigue and Endurance pools return between fights, a Grievous Injury stays until treated
    app.campaign_new("c", "dragonquest")
    app.campaign_join(
        "c", "gorlag", stats={"fatigue": 30, "endurance": 35, "willpower": 8}, kind="monster"
    )
    app.create("f1", FightStarted(ruleset="dragonquest"))
    app.join_from_campaign("f1", "gorlag", "c")
    app.record_named(
        "f1",
        [
            {
                "type": "character_joined",
                "character": "rolf",
                "stats": {
                    "fatigue": 24,
                    "endurance": 14,
                    "willpower": 12,
                    "protection": 4,
                    "physical_strength": 9,
                    "agility": 13,
                },
            }
        ],
    )
    app.record_named(
        "f1",
        [
            {
                "type": "hit",
                "target": "gorlag",
                "damage": 10,
                "attacker": "rolf",
                "strike_roll": 2,
                "strike_chance": 40,
                "weapon": "A",
                "rolls": {"grievous": [5]},
            }
        ],
    )
    app.campaign_record("c", "f1")
    [gorlag] = app.campaign_show("c").members
    assert len(gorlag.injuries) == 1 and gorlag.injuries[0].fight == "f1"
    assert gorlag.current == gorlag.stats  # the pools return
    with pytest.raises(RuleError, match="Grievous Injury needs a `treatment`"):
        app.campaign_rest("c")
    app.campaign_treat("c", "gorlag")
    assert app.campaign_show("c").members[0].injuries == ()

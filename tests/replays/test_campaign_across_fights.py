"""What a campaign member carries into the next fight is read there by that fight's rules, as
each rule text says (issue 38): every test plays two or three real fights, each joined from the
roster (`join_from_campaign`) and recorded, dice given as a GM at the table would give them.
Expected values come from the quoted texts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from woundlog.events import FightStarted, RuleError, StructuralError
from woundlog.events.campaign import FightPlayed, Rest
from woundlog.replays.application import Application


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "campaign.db")) as opened:
        yield opened


def campaign(
    app: Application, ruleset: str, member: str, stats: dict[str, int], **more: Any
) -> None:
    app.campaign_new("c", ruleset)
    app.campaign_join("c", member, stats=stats, **more)


def fight(app: Application, name: str, member: str, *lines: dict[str, Any]) -> list[str]:
    """Fight `name`: `member` joins from the roster, `lines` are recorded, the fight goes on the
    campaign's record. What each line explained, in order."""
    ruleset = app.campaign_show("c").ruleset
    app.create(name, FightStarted(ruleset=ruleset))
    app.join_from_campaign(name, member, "c")
    said = []
    for fields in lines:
        appended = app.record_named(name, [fields])
        said += [change.explanation for change in appended.changes]
    app.campaign_record("c", name)
    return said


def member(app: Application, name: str) -> Any:
    return next(m for m in app.campaign_show("c").members if m.member == name)


# --- Warhammer Quest: "Any injury so marked will only be obtained once" ------------------------


def serious_injury(target: str, tens: int, units: int, **dice: list[int]) -> dict[str, Any]:
    """A blow that takes a 10-wound warrior to 0: a Serious Injury roll of `tens``units`."""
    return {
        "type": "hit",
        "target": target,
        "damage": 10,
        "rolls": {"serious_injury": [tens, units], **dice},
    }


def test_warhammer_quest_a_starred_injury_from_fight_1_is_nothing_too_serious_in_fight_2(
    app: Application,
) -> None:
    # 44 Chest Wound*: -1 Toughness. "Any injury so marked will only be obtained once. Treat any
    # further results of the same type as Nothing Too Serious"
    campaign(app, "warhammer_quest", "grundi", {"wounds": 10, "toughness": 4})
    fight(app, "f1", "grundi", serious_injury("grundi", 4, 4))
    assert member(app, "grundi").current["toughness"] == 3
    said = fight(app, "f2", "grundi", serious_injury("grundi", 4, 4))
    assert any("Chest Wound, which he already has: Nothing Too Serious" in s for s in said)
    grundi = member(app, "grundi")
    assert [i.name for i in grundi.injuries] == ["Chest Wound"]
    assert [i.fight for i in grundi.injuries] == ["f1"]
    assert grundi.current["toughness"] == 3  # taken once


def test_warhammer_quest_a_second_eye_loss_in_another_fight_takes_the_other_eye_and_retires_him(
    app: Application,
) -> None:
    # 32 Eye Loss: "If he rolls this result a second time he loses the other eye, and he must
    # retire"
    campaign(app, "warhammer_quest", "grundi", {"wounds": 10})
    fight(app, "f1", "grundi", serious_injury("grundi", 3, 2))
    assert member(app, "grundi").retired is None
    said = fight(app, "f2", "grundi", serious_injury("grundi", 3, 2))
    assert any("his other eye" in s for s in said)
    grundi = member(app, "grundi")
    assert [i.name for i in grundi.injuries] == ["Eye Loss", "Eye Loss (his other eye)"]
    assert grundi.retired is not None and "f2" in grundi.retired
    app.create("f3", FightStarted(ruleset="warhammer_quest"))
    with pytest.raises(RuleError, match="retired"):
        app.join_from_campaign("f3", "grundi", "c")


def test_warhammer_quest_the_other_leg_severed_in_a_later_fight_retires_him(
    app: Application,
) -> None:
    # 14 Severed Leg: "-2 Movement"; "If the warrior loses his other leg he must retire"
    campaign(app, "warhammer_quest", "grundi", {"wounds": 10, "movement": 4})
    fight(app, "f1", "grundi", serious_injury("grundi", 1, 4, which_leg=[2]))  # 1-3: left
    assert member(app, "grundi").current["movement"] == 2
    # he has one leg left: no roll for which, it is the right one
    fight(app, "f2", "grundi", serious_injury("grundi", 1, 4))
    grundi = member(app, "grundi")
    assert [i.name for i in grundi.injuries] == ["Severed Leg (left)", "Severed Leg (right)"]
    assert grundi.current["movement"] == 0
    assert grundi.retired is not None


def test_warhammer_quest_refuses_a_warrior_whose_injuries_retire_him_joining_by_hand(
    app: Application,
) -> None:
    app.create("f", FightStarted(ruleset="warhammer_quest"))
    joined = {
        "type": "character_joined",
        "character": "grundi",
        "stats": {"wounds": 10},
        "injuries": [{"name": "Eye Loss"}, {"name": "Eye Loss (his other eye)"}],
    }
    with pytest.raises(RuleError, match="he is blind"):
        app.record_named("f", [joined])


# --- d26: escalation to the same location, and Fatigued, across fights ------------------------


def d26_blow(target: str, damage: int, location: int) -> dict[str, Any]:
    return {"type": "hit", "target": target, "damage": damage, "rolls": {"location": [location]}}


def test_d26_another_severe_injury_to_the_same_location_in_fight_2_escalates_to_fatal(
    app: Application,
) -> None:
    # "If a character would suffer another Severe Injury to the same location, it escalates to
    # a Fatal Injury". 15 damage on 12 HP: 3 over at 0 HP, a Severe Injury; location 2: leg
    campaign(app, "d26", "mira", {"hp": 12})
    fight(app, "f1", "mira", d26_blow("mira", 15, 2))
    assert [i.name for i in member(app, "mira").injuries] == ["severe leg"]
    app.campaign_rest("c")  # HP return and Fatigued goes; the Severe Injury stays
    said = fight(app, "f2", "mira", d26_blow("mira", 15, 2))
    assert "a second Severe Injury to the leg escalates" in " ".join(said)
    assert app.state("f2").characters["mira"].state == "downed"  # a Fatal Injury: dying
    mira = member(app, "mira")
    assert [i.name for i in mira.injuries] == ["severe leg", "fatal leg"]
    assert [i.fight for i in mira.injuries] == ["f1", "f2"]


def test_d26_fatigued_from_fight_1_joins_fight_2_fatigued_until_a_rest(app: Application) -> None:
    # Fatigued "stays even if they are later healed ... and lasts until removed (for example by
    # rest)". 12 damage on 12 HP: exactly 0, Fatigued, no injury check
    campaign(app, "d26", "mira", {"hp": 12})
    fight(app, "f1", "mira", d26_blow("mira", 12, 1))
    assert member(app, "mira").conditions == ("Fatigued",)
    app.create("f2", FightStarted(ruleset="d26"))
    app.join_from_campaign("f2", "mira", "c")
    mira = app.state("f2").characters["mira"]
    assert mira.fatigued and mira.hp == 12  # at full HP, still Fatigued
    app.record_named("f2", [{"type": "heal", "target": "mira", "amount": 1, "means": "rest"}])
    app.campaign_record("c", "f2")
    assert member(app, "mira").conditions == ()  # the rest in fight 2 removed it


def test_d26_a_member_rested_between_fights_joins_rested(app: Application) -> None:
    campaign(app, "d26", "mira", {"hp": 12})
    fight(app, "f1", "mira", d26_blow("mira", 12, 1))
    app.campaign_rest("c")
    app.create("f2", FightStarted(ruleset="d26"))
    app.join_from_campaign("f2", "mira", "c")
    assert not app.state("f2").characters["mira"].fatigued


# --- DragonQuest: armour "reduced by 2 until repaired", "A cloven shield is useless" ------------


def grievous(target: str, **more: Any) -> dict[str, Any]:
    """A Grievous Injury: a strike in the grievous band, D100 01 on its table."""
    return {
        "type": "hit",
        "target": target,
        "damage": 1,
        "band": "grievous",
        "weapon": "A",
        "rolls": {"grievous": [1]},
        **more,
    }


DQ = {"fatigue": 20, "endurance": 16, "willpower": 12, "protection": 4, "shield": 1}


def test_dragonquest_armour_stays_reduced_into_the_next_fight_until_repaired(
    app: Application,
) -> None:
    campaign(app, "dragonquest", "hugo", DQ)
    fight(app, "f1", "hugo", grievous("hugo"))
    assert member(app, "hugo").current["protection"] == 2
    app.create("f2", FightStarted(ruleset="dragonquest"))
    app.join_from_campaign("f2", "hugo", "c")
    assert app.state("f2").characters["hugo"].protection == 2  # not whole in the next fight
    app.campaign_repair("c", "hugo", "armour")
    assert member(app, "hugo").current["protection"] == 4
    with pytest.raises(RuleError, match="whole: nothing to repair"):
        app.campaign_repair("c", "hugo", "armour")


def test_dragonquest_a_cloven_shield_is_useless_in_the_next_fight_until_replaced(
    app: Application,
) -> None:
    campaign(app, "dragonquest", "hugo", DQ)
    fight(app, "f1", "hugo", grievous("hugo", cleave_shield=True))
    hugo = member(app, "hugo")
    assert (hugo.current["shield"], hugo.current["protection"]) == (0, 4)  # armour spared
    app.create("f2", FightStarted(ruleset="dragonquest"))
    app.join_from_campaign("f2", "hugo", "c")
    with pytest.raises(RuleError, match="hugo has no shield to cleave"):
        app.record_named("f2", [grievous("hugo", cleave_shield=True)])
    app.campaign_repair("c", "hugo", "shield")
    assert member(app, "hugo").current["shield"] == 1


def test_a_repair_is_refused_where_the_rules_keep_no_gear_damage(app: Application) -> None:
    campaign(app, "d26", "mira", {"hp": 12})
    with pytest.raises(RuleError, match="no gear to repair"):
        app.campaign_repair("c", "mira", "armour")


# --- contractor: "A Maimed result destroys that gear permanently" -------------------------------


def test_contractor_gear_a_maimed_result_destroyed_is_gone_from_the_record_and_the_next_fight(
    app: Application,
) -> None:
    gear = {"weapon_arm": "Coil Rifle", "pack": "Salvage Pack"}
    campaign(app, "contractor", "vex", {"constitution": 12}, gear=gear)
    # wound 97: Maimed, location 7 (weapon arm): the Coil Rifle covering it takes it
    fight(
        app, "f1", "vex", {"type": "hit", "target": "vex", "damage": 99, "rolls": {"wound": [97]}}
    )
    vex = member(app, "vex")
    assert vex.gear == {"pack": "Salvage Pack"}
    assert vex.injuries == ()  # the gear took the wound
    app.create("f2", FightStarted(ruleset="contractor"))
    app.join_from_campaign("f2", "vex", "c")
    assert app.state("f2").characters["vex"].gear == {"pack": "Salvage Pack"}


# --- one member's fate is that member's --------------------------------------------------------


def test_dnd5e_a_party_long_rest_rests_everyone_but_the_member_at_0_hit_points(
    app: Application,
) -> None:
    # SRD 5.1: "A character must have at least 1 hit point at the start of the rest to gain its
    # benefits": the one at 0 gains nothing, the others rest
    campaign(app, "dnd5e", "mira", {"hp": 10})
    app.campaign_join("c", "tam", stats={"hp": 12})
    app.create("f1", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f1", "mira", "c")
    app.join_from_campaign("f1", "tam", "c")
    app.record_named("f1", [{"type": "hit", "target": "mira", "damage": 10}])  # to 0: dying
    app.record_named("f1", [{"type": "hit", "target": "tam", "damage": 5}])
    app.campaign_record("c", "f1")
    assert member(app, "mira").current["current_hp"] == 0
    app.campaign_rest("c", "long")
    assert member(app, "tam").current["current_hp"] == 12  # rested
    assert member(app, "mira").current["current_hp"] == 0  # gained nothing
    [rest] = [e for e in app.campaign_history("c").entries if isinstance(e.event, Rest)]
    [(who, why)] = [(u.member, u.why) for u in rest.unmoved]
    assert who == "mira" and "at least 1" in why
    with pytest.raises(RuleError, match="at 0 hit points"):
        app.campaign_rest("c", "long", member="mira")  # asked of her alone: refused


def test_a_death_an_undo_brings_back_in_fight_2_voids_her_part_of_fight_3_not_the_others(
    app: Application,
) -> None:
    campaign(app, "dnd5e", "mira", {"hp": 10})
    app.campaign_join("c", "tam", stats={"hp": 12})
    app.create("f2", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f2", "mira", "c")
    # 30 damage on 10 hit points: "remaining damage equals or exceeds your hit point maximum,
    # you die"; then taken back
    app.record_named("f2", [{"type": "hit", "target": "mira", "damage": 30}])
    app.record_named("f2", [{"type": "retract", "event": "#3"}])
    app.campaign_record("c", "f2")
    app.create("f3", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f3", "mira", "c")
    app.join_from_campaign("f3", "tam", "c")
    app.record_named("f3", [{"type": "hit", "target": "tam", "damage": 3}])
    app.campaign_record("c", "f3")
    assert member(app, "tam").current["current_hp"] == 9
    app.campaign_undo("c", "#4", fight="f2")  # the retract taken back: she died in fight 2
    assert member(app, "mira").dead is not None and "f2" in member(app, "mira").dead
    assert member(app, "tam").current["current_hp"] == 9  # her death voids nothing of his
    played = [e for e in app.campaign_history("c").entries if isinstance(e.event, FightPlayed)][1]
    assert played.void is None
    assert [u.member for u in played.unmoved] == ["mira"]
    assert "is dead" in played.unmoved[0].why


def test_dnd5e_temporary_hit_points_are_carried_until_a_long_rest(app: Application) -> None:
    # SRD 5.1: temporary hit points "last until they're depleted or you finish a long rest"
    campaign(app, "dnd5e", "mira", {"hp": 10})
    fight(app, "f1", "mira", {"type": "heal", "target": "mira", "amount": 7, "means": "temporary"})
    assert member(app, "mira").current["temp_hp"] == 7
    app.create("f2", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f2", "mira", "c")
    assert app.state("f2").characters["mira"].temp_hp == 7  # they come into the next fight
    app.record_named("f2", [{"type": "hit", "target": "mira", "damage": 3}])
    app.campaign_record("c", "f2")
    assert member(app, "mira").current["temp_hp"] == 4
    assert member(app, "mira").current["current_hp"] == 10
    app.campaign_rest("c", "short", amount=0)
    assert member(app, "mira").current["temp_hp"] == 4  # a short rest leaves them
    app.campaign_rest("c", "long")
    assert member(app, "mira").current["temp_hp"] == 0  # a long rest ends them


# --- Mordheim: "After the battle you can test to see whether he survives" ---------------------


def test_mordheim_a_warrior_out_of_action_joins_the_next_battle_once_his_test_is_recorded(
    app: Application,
) -> None:
    campaign(app, "mordheim", "ulf", {"wounds": 1}, side="reavers")
    # one wound on his last: injury roll 6, out of action
    fight(app, "f1", "ulf", {"type": "hit", "target": "ulf", "damage": 1, "rolls": {"injury": [6]}})
    assert member(app, "ulf").conditions == ("out of action: the after-battle test is owed",)
    app.create("f2", FightStarted(ruleset="mordheim"))
    with pytest.raises(RuleError, match="owes the after-battle test"):
        app.join_from_campaign("f2", "ulf", "c")
    app.campaign_treat("c", "ulf")  # he survives
    app.join_from_campaign("f2", "ulf", "c")
    assert app.state("f2").characters["ulf"].state == "upright"


def test_a_carried_injury_or_condition_with_an_invisible_character_is_refused(
    app: Application,
) -> None:
    app.create("f", FightStarted(ruleset="d26"))
    for field, value, path in (
        ("injuries", [{"name": "severe\u202earm"}], r"\$\.injuries\[0\]\.name"),
        ("conditions", ["Fati\x1bgued"], r"\$\.conditions\[0\]"),
    ):
        joined = {"type": "character_joined", "character": "mira", "stats": {"hp": 12},
                  field: value}  # fmt: skip
        with pytest.raises(StructuralError, match=path):
            app.record_named("f", [joined])
    assert app.state("f").characters == {}  # nothing written

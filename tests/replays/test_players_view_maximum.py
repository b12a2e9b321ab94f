"""The players' view words a GM's character's health against the maximum it has now: an ogre
of 20 hit points whose maximum a `stat_changed` lowered to 8, standing at 8 of 8, is Healthy,
not Bloodied (8 under half of the 20 it joined with); and the value the GM recorded is not
shown to a viewer."""

from __future__ import annotations

from typing import Any

from woundlog.core import FightState
from woundlog.core.reducer import advance
from woundlog.events import CharacterJoined, Event, FightStarted, Hit, StatChanged
from woundlog.replays.application.redaction import MonsterHp, Redaction

START = FightStarted(ruleset="dnd5e", seed=5, version=3)
OGRE = CharacterJoined(
    character="ogre", name="Ogre", side="monsters", kind="monster", stats={"hp": 20}
)


def fight(*events: Event) -> FightState[Any]:
    state: FightState[Any] | None = None
    for event in (START, OGRE, *events):
        state = advance(state, event)
    assert state is not None
    return state


def test_a_band_is_worded_against_the_maximum_the_rules_hold_now() -> None:
    drained = fight(StatChanged(character="ogre", stat="hp", value=8, reason="drained"))
    shown = Redaction.of(MonsterHp.BANDS, drained).state(drained)
    ogre = shown["characters"]["ogre"]
    assert ogre["health"] == "Healthy"  # 8 of 8; against the 20 joined with, Bloodied
    assert "hp" not in ogre and "max_hp" not in ogre and ogre["stats"] == {}


def test_a_band_below_the_new_maximum_is_still_told_against_it() -> None:
    hurt = fight(
        StatChanged(character="ogre", stat="hp", value=8, reason="drained"),
        Hit(target="ogre", damage=5),
    )
    assert Redaction.of(MonsterHp.BANDS, hurt).state(hurt)["characters"]["ogre"]["health"] == (
        "Bloodied"  # 3 of 8
    )


def test_the_maximum_a_gm_recorded_is_not_shown_to_a_viewer() -> None:
    change = StatChanged(character="ogre", stat="hp", value=8, reason="drained")
    redaction = Redaction.of(MonsterHp.BANDS, fight(change))
    assert "value" not in redaction.event(change)

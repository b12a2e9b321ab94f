"""A death inside a fight as the campaign reads it (issue 39, found missing by the mutation run):
the member is dead on the roster, at the fight and the event that killed them; an undo of that
event in the fight says the death is taken back; and a campaign not in the store is said so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.events import CharacterJoined, FightStarted, Hit
from woundlog.replays.application import Application
from woundlog.replays.application.values import CampaignNotFoundError


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "campaign.db")) as opened:
        opened.campaign_new("west", "dnd5e")
        opened.campaign_join("west", "mira", name="Mira", stats={"hp": 20})
        opened.create("f1", FightStarted(ruleset="dnd5e"))
        opened.record(
            "f1",
            [
                CharacterJoined(id="in", character="mira", stats={"hp": 20}),
                Hit(id="graze", target="mira", damage=2),
                Hit(id="slain", target="mira", damage=40),  # SRD: massive damage, dead at once
            ],
        )
        yield opened


def test_a_member_killed_in_a_fight_is_dead_at_the_event_that_killed_them(
    app: Application,
) -> None:
    app.campaign_record("west", "f1")
    [mira] = app.campaign_show("west").members
    assert mira.dead == "fight f1, slain"


def test_undoing_the_killing_blow_in_the_fight_says_the_death_is_taken_back(
    app: Application,
) -> None:
    app.campaign_record("west", "f1")
    undone = app.campaign_undo("west", fight="f1")
    assert undone.retracted == "slain"
    assert undone.consequences.records == ["Mira: dead fight f1, slain -> None"]
    assert app.campaign_show("west").members[0].dead is None


def test_a_campaign_not_in_the_store_is_said_so(app: Application) -> None:
    with pytest.raises(CampaignNotFoundError, match="no campaign `east` in this store"):
        app.campaign_show("east")


def test_a_death_added_to_an_earlier_fight_leaves_the_newest_fight_recorded_for_the_others(
    app: Application,
) -> None:
    """A fight's contribution is read as it stands now: a killing blow added to g1 after g2 was
    recorded makes Mira dead at g1, and g2, the campaign's newest event, stays played by Tam
    (Mira left unmoved by it), not refused whole."""
    app.campaign_join("west", "tam", name="Tam", stats={"hp": 20})
    for fight in ("g1", "g2"):
        app.create(fight, FightStarted(ruleset="dnd5e"))
        app.record(
            fight,
            [
                CharacterJoined(character="mira", stats={"hp": 20}),
                CharacterJoined(character="tam", stats={"hp": 20}),
                Hit(target="tam", damage=3),
            ],
        )
        app.campaign_record("west", fight)
    app.record("g1", [Hit(id="late", target="mira", damage=40)])
    shown = app.campaign_show("west")
    assert shown.fights == ["g1", "g2"]
    mira, tam = shown.members
    assert mira.dead == "fight g1, late" and mira.fights == ("g1",)
    assert tam.fights == ("g1", "g2")

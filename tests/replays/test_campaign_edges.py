"""Edges of the campaign's fold the mutation run of 0.3.0 found untested (issue 39): each test
here fails with one of the slips it found (`tests/mutation/run.py core/campaign.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.core.campaign import start_campaign
from woundlog.events import FightStarted, Hit, RuleError, StructuralError
from woundlog.events.campaign import MemberJoined
from woundlog.replays.application import Application


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "campaign.db")) as opened:
        yield opened


def test_two_injuries_of_one_name_in_a_fight_name_each_its_own_event(app: Application) -> None:
    # Warhammer Quest 16 Internal Injury is not starred: taken three times, at #3, #4 and #5
    app.campaign_new("c", "warhammer_quest")
    app.campaign_join("c", "grim", stats={"wounds": 10})
    app.create("f", FightStarted(ruleset="warhammer_quest"))
    app.join_from_campaign("f", "grim", "c")
    for _ in range(3):
        app.record("f", [Hit(target="grim", damage=10, rolls={"serious_injury": [1, 6]})])
    app.campaign_record("c", "f")
    [grim] = app.campaign_show("c").members
    assert [(i.name, i.event) for i in grim.injuries] == [
        ("Internal Injury", "#3"),
        ("Internal Injury", "#4"),
        ("Internal Injury", "#5"),
    ]


def test_a_fight_recorded_now_for_a_dead_member_is_refused_not_voided(app: Application) -> None:
    app.campaign_new("c", "dnd5e")
    app.campaign_join("c", "mira", stats={"hp": 10})
    app.create("f", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f", "mira", "c")
    app.campaign_died("c", "mira", cause="the owlbear")
    version = app.campaign_show("c").version
    with pytest.raises(RuleError, match="is dead"):
        app.campaign_record("c", "f", {"mira": "mira"})
    assert app.campaign_show("c").version == version  # nothing written


def test_a_member_asked_of_an_empty_roster_is_said_to_be_none_yet(app: Application) -> None:
    app.campaign_new("c", "dnd5e")
    with pytest.raises(RuleError, match=r"no member `mira` on the roster \(members: none yet\)"):
        app.campaign_treat("c", "mira", amount=1)


def test_a_campaign_log_that_does_not_begin_with_its_start_names_its_first_event() -> None:
    with pytest.raises(StructuralError) as refused:
        start_campaign(MemberJoined(member="mira", stats={"hp": 10}))
    assert refused.value.event == "#1"
    assert "begins with `campaign_started`" in refused.value.message


def test_an_undone_campaign_event_keeps_its_place(app: Application) -> None:
    app.campaign_new("c", "dnd5e")
    app.campaign_join("c", "mira", stats={"hp": 10})
    app.campaign_join("c", "tam", stats={"hp": 12})
    app.campaign_undo("c", "#2")  # mira's join taken back: its place stays, the seq counts on
    shown = app.campaign_show("c")
    assert shown.seq == shown.version == 4
    assert [m.member for m in shown.members] == ["tam"]

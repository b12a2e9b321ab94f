"""The campaign use cases of the Application over a real SQLite store (dnd5e, SRD 5.1: hit
points carry from one fight to the next; a long rest restores all of them)."""

import pytest

from woundlog.events import RuleError, UsageError
from woundlog.events.stores import SQLiteStore
from woundlog.replays.application import Application
from woundlog.replays.application.values import CampaignNotFoundError


@pytest.fixture
def app(tmp_path):
    return Application.over(SQLiteStore(tmp_path / "w.db"))


def fight_with_mira(app, fight, damage):
    app.create(fight, _started(app, fight))
    app.join_from_campaign(fight, "mira", "west")
    app.record_named(fight, [{"type": "hit", "target": "mira", "damage": damage}])


def _started(app, fight):
    from woundlog.replays.application import NewFight

    return app.started(NewFight(fight=fight, ruleset="dnd5e", seed=1))


def test_a_fight_joined_from_the_roster_starts_with_the_hit_points_the_last_one_left(app):
    app.campaign_new("west", "dnd5e")
    app.campaign_join("west", "mira", name="Mira", stats={"hp": 20})
    fight_with_mira(app, "f1", 5)
    recorded = app.campaign_record("west", "f1")
    assert [r.current["current_hp"] for r in recorded.members] == [15]
    fight_with_mira(app, "f2", 3)
    assert app.state("f2").characters["mira"].stats["current_hp"] == 15
    app.campaign_record("west", "f2", {"mira": "mira"})
    shown = app.campaign_show("west")
    assert shown.members[0].current["current_hp"] == 12
    assert shown.fights == ["f1", "f2"]


def test_an_undo_in_the_first_fight_reports_the_hit_points_fight_two_began_from(app):
    app.campaign_new("west", "dnd5e")
    app.campaign_join("west", "mira", name="Mira", stats={"hp": 20})
    fight_with_mira(app, "f1", 5)
    app.campaign_record("west", "f1")
    fight_with_mira(app, "f2", 3)
    app.campaign_record("west", "f2")
    undone = app.campaign_undo("west", "#3", fight="f1")
    assert "Mira: HP 15 -> 20 from fight f2 on" in list(undone.consequences.lines())
    assert [p.fight for p in undone.consequences.stale] == ["f2"]
    assert app.campaign_show("west").members[0].current["current_hp"] == 17


def test_a_long_rest_restores_every_hit_point_and_a_retract_takes_it_back(app):
    app.campaign_new("west", "dnd5e")
    app.campaign_join("west", "mira", name="Mira", stats={"hp": 20})
    fight_with_mira(app, "f1", 5)
    app.campaign_record("west", "f1")
    app.campaign_rest("west", "long")
    assert app.campaign_show("west").members[0].current["current_hp"] == 20
    undone = app.campaign_undo("west")
    assert undone.retracted == "#4"
    assert app.campaign_show("west").members[0].current["current_hp"] == 15
    history = app.campaign_history("west", "mira")
    assert [e.event.__struct_config__.tag for e in history.entries] == [
        "member_joined", "fight_played", "rest",
    ]
    assert history.entries[2].undone == "retracted by #5"


def test_a_dead_member_is_refused_a_fight_with_the_reason(app):
    app.campaign_new("west", "dnd5e")
    app.campaign_join("west", "mira", name="Mira", stats={"hp": 20})
    app.campaign_died("west", "mira", cause="the ogre")
    app.create("f1", _started(app, "f1"))
    with pytest.raises(RuleError, match="Mira is dead: recorded by the GM"):
        app.join_from_campaign("f1", "mira", "west")


def test_a_retried_event_with_its_id_is_skipped_and_a_missing_campaign_named(app):
    app.campaign_new("west", "dnd5e")
    first = app.campaign_join("west", "mira", stats={"hp": 20}, event_id="j1")
    again = app.campaign_join("west", "mira", stats={"hp": 20}, event_id="j1")
    assert (first.skipped, again.skipped, again.version) == (False, True, 2)
    with pytest.raises(CampaignNotFoundError, match="no campaign `east`"):
        app.campaign_show("east")
    with pytest.raises(UsageError, match="no member `bob`"):
        app.join_from_campaign("f9", "bob", "west")

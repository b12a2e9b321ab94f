"""The campaign's use cases through `Application`, over a real SQLite file: a roster carried from
fight to fight (dnd5e hit points, SRD 5.1 rests), a fight joined from the roster, the refusals,
and an undo in an old fight flowing into the fights after it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.events import CharacterJoined, ConflictError, FightStarted, Hit, RuleError, UsageError
from woundlog.replays.application import Application
from woundlog.replays.application.values import CampaignNotFoundError


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "campaign.db")) as opened:
        yield opened


def fight(app: Application, name: str, *events: object) -> None:
    app.create(name, FightStarted(ruleset="dnd5e"))
    app.record(name, list(events))  # type: ignore[arg-type]


def west(app: Application) -> None:
    app.campaign_new("west", "dnd5e", name="Westmarch")
    app.campaign_join("west", "mira", name="Mira", stats={"hp": 20})


def test_a_fights_final_hit_points_are_the_next_fights_start(app: Application) -> None:
    west(app)
    fight(
        app, "f1", CharacterJoined(character="mira", stats={"hp": 20}), Hit(target="mira", damage=7)
    )
    recorded = app.campaign_record("west", "f1")  # mira plays under her own id
    assert [r.current["current_hp"] for r in recorded.members] == [13]
    app.create("f2", FightStarted(ruleset="dnd5e"))
    joined = app.join_from_campaign("f2", "mira", "west")
    assert app.state("f2").characters["mira"].hp == 13
    assert joined.version == 2
    view = app.campaign_show("west")
    assert view.fights == ["f1"] and view.name == "Westmarch"
    assert view.members[0].fights == ("f1",)


def test_a_short_rest_gives_the_hit_dice_rolled_and_a_long_rest_all_hit_points(
    app: Application,
) -> None:
    # SRD 5.1 "Resting": a short rest spends Hit Dice (the table rolls them: amount); "At the
    # end of a long rest, a character regains all lost hit points."
    west(app)
    fight(app, "f1", CharacterJoined(character="m", stats={"hp": 20}), Hit(target="m", damage=12))
    app.campaign_record("west", "f1", {"mira": "m"})
    short = app.campaign_rest("west", "short", member="mira", amount=5)
    assert short.members[0].current["current_hp"] == 13
    long = app.campaign_rest("west", "long")
    assert long.members[0].current["current_hp"] == 20
    with pytest.raises(RuleError, match="no `nap` rest"):
        app.campaign_rest("west", "nap")


def test_a_dead_or_retired_member_is_refused_a_fight_with_the_reason(app: Application) -> None:
    west(app)
    app.campaign_join("west", "oro", name="Oro", stats={"hp": 9})
    app.campaign_died("west", "mira", cause="the dragon")
    app.campaign_retire("west", "oro", reason="opens an inn")
    app.create("f1", FightStarted(ruleset="dnd5e"))
    with pytest.raises(RuleError, match=r"Mira is dead: .*the dragon"):
        app.join_from_campaign("f1", "mira", "west")
    with pytest.raises(RuleError, match="Oro has retired: opens an inn"):
        app.join_from_campaign("f1", "oro", "west")
    assert app.version("f1") == 1  # nothing written


def test_the_refusals_name_what_to_do(app: Application) -> None:
    with pytest.raises(CampaignNotFoundError, match="campaign new west"):
        app.campaign_join("west", "mira", stats={"hp": 20})
    west(app)
    with pytest.raises(ConflictError, match="already there"):
        app.campaign_new("west", "dnd5e")
    with pytest.raises(RuleError, match="already on the roster"):
        app.campaign_join("west", "mira", stats={"hp": 20})
    with pytest.raises(UsageError, match="no member `zed`"):
        app.campaign_history("west", "zed")
    fight(app, "f1", CharacterJoined(character="m", stats={"hp": 20}))
    with pytest.raises(UsageError, match="say who played whom"):
        app.campaign_record("west", "f1")


def test_a_retried_event_is_skipped_not_recorded_twice(app: Application) -> None:
    west(app)
    first = app.campaign_time("west", 3, event_id="t1")
    again = app.campaign_time("west", 3, event_id="t1")
    assert again.skipped and again.version == first.version
    with pytest.raises(ConflictError, match="already another event"):
        app.campaign_time("west", 4, event_id="t1")


def test_an_undo_in_fight_one_flows_into_fight_two_and_is_reported(app: Application) -> None:
    west(app)
    fight(
        app,
        "f1",
        CharacterJoined(character="m", stats={"hp": 20}),
        Hit(id="h", target="m", damage=5),
    )
    app.campaign_record("west", "f1", {"mira": "m"})
    app.create("f2", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f2", "m", "west", member="mira")
    app.record("f2", [Hit(target="m", damage=3)])
    app.campaign_record("west", "f2", {"mira": "m"})
    assert app.campaign_show("west").members[0].current["current_hp"] == 12
    undone = app.campaign_undo("west", "h", fight="f1")
    assert next(iter(undone.consequences.lines())) == "Mira: HP 15 -> 20 from fight f2 on"
    assert [p.fight for p in undone.consequences.stale] == ["f2"]
    view = app.campaign_show("west")
    assert view.members[0].current["current_hp"] == 17  # 20 less fight two's 3
    assert [(p.fight, p.joined["current_hp"], p.record["current_hp"]) for p in view.stale] == [
        ("f2", 15, 20)
    ]
    assert app.state("f2").characters["m"].hp == 12  # fight two's log is history, left alone


def test_a_campaign_undo_takes_back_its_newest_event_and_history_says_so(app: Application) -> None:
    west(app)
    fight(app, "f1", CharacterJoined(character="m", stats={"hp": 20}), Hit(target="m", damage=12))
    app.campaign_record("west", "f1", {"mira": "m"})
    app.campaign_rest("west", "long")
    undone = app.campaign_undo("west")
    assert [c.line() for c in undone.consequences.changes] == ["Mira: HP 20 -> 8 now"]
    history = app.campaign_history("west", "mira")
    assert [type(e.event).__name__ for e in history.entries] == [
        "MemberJoined",
        "FightPlayed",
        "Rest",
    ]
    rest = history.entries[2]
    assert rest.undone is not None and rest.changes == []
    played = history.entries[1].changes[0]
    # dnd5e's `current_hp` is unset until a fight sets it (the member joined at full hp)
    assert [(s.stat, s.before, s.after) for s in played.stats] == [("current_hp", None, 8)]


def test_a_fight_joined_from_the_roster_and_recorded_by_name_carries_its_hit_points_on(
    app: Application,
) -> None:
    west(app)
    fight(
        app, "f1", CharacterJoined(character="mira", stats={"hp": 20}), Hit(target="mira", damage=5)
    )
    app.campaign_record("west", "f1")
    app.create("f2", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f2", "mira", "west")
    app.record_named("f2", [{"type": "hit", "target": "mira", "damage": 3}])
    mira = app.state("f2").characters["mira"]
    assert (mira.stats["current_hp"], mira.hp) == (15, 12)  # `stats` as joined, `hp` now
    app.campaign_record("west", "f2", {"mira": "mira"})
    shown = app.campaign_show("west")
    assert shown.members[0].current["current_hp"] == 12
    assert shown.fights == ["f1", "f2"]
    assert shown.members[0].fights == ("f1", "f2")


def test_an_undo_in_an_old_fight_can_name_the_event_by_its_position(app: Application) -> None:
    west(app)
    fight(
        app, "f1", CharacterJoined(character="mira", stats={"hp": 20}), Hit(target="mira", damage=5)
    )
    app.campaign_record("west", "f1")
    app.create("f2", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f2", "mira", "west")
    app.record("f2", [Hit(target="mira", damage=3)])
    app.campaign_record("west", "f2")
    undone = app.campaign_undo("west", "#3", fight="f1")  # #3: the hit, after start and join
    assert "Mira: HP 15 -> 20 from fight f2 on" in list(undone.consequences.lines())
    assert app.campaign_show("west").members[0].current["current_hp"] == 17


def test_a_retracted_rest_names_its_position_and_the_retract_that_took_it_back(
    app: Application,
) -> None:
    west(app)  # the campaign's #1 and #2: created, mira joined
    fight(
        app, "f1", CharacterJoined(character="mira", stats={"hp": 20}), Hit(target="mira", damage=5)
    )
    app.campaign_record("west", "f1")  # #3
    app.campaign_rest("west", "long")  # #4
    assert app.campaign_show("west").members[0].current["current_hp"] == 20
    undone = app.campaign_undo("west")  # #5
    assert undone.retracted == "#4"
    assert app.campaign_show("west").members[0].current["current_hp"] == 15
    assert app.campaign_history("west", "mira").entries[2].undone == "retracted by #5"


def test_a_join_retried_with_its_id_is_skipped_and_what_is_missing_is_named(
    app: Application,
) -> None:
    app.campaign_new("west", "dnd5e")
    first = app.campaign_join("west", "mira", stats={"hp": 20}, event_id="j1")
    again = app.campaign_join("west", "mira", stats={"hp": 20}, event_id="j1")
    assert (first.skipped, again.skipped, again.version) == (False, True, 2)
    with pytest.raises(CampaignNotFoundError, match="no campaign `east`"):
        app.campaign_show("east")
    with pytest.raises(UsageError, match="no member `bob`"):
        app.join_from_campaign("f9", "bob", "west")

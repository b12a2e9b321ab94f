"""A campaign over a real SQLite store: dnd5e hit points carried, and an undo that flows forward."""

from woundlog.events import CharacterJoined, FightStarted, Hit, Retract
from woundlog.events.campaign import CampaignStarted, FightPlayed, MemberJoined, Rest
from woundlog.events.fight_ids import campaign_stream
from woundlog.events.stores import SQLiteStore
from woundlog.replays.campaign import campaign_state, consequences


def test_a_retracted_hit_in_fight_one_changes_the_record_fight_two_began_from(tmp_path):
    store = SQLiteStore(tmp_path / "w.db")
    stream = campaign_stream("west")
    store.append(
        stream, [CampaignStarted(ruleset="dnd5e"), MemberJoined(member="mira", stats={"hp": 20})]
    )
    store.append(
        "f1",
        [
            FightStarted(ruleset="dnd5e"),
            CharacterJoined(character="m", stats={"hp": 20}),
            Hit(id="h", target="m", damage=5),
        ],
    )
    store.append(stream, [FightPlayed(fight="f1", members={"mira": "m"})])
    assert campaign_state(store, "west").members["mira"].current["current_hp"] == 15
    store.append(
        "f2",
        [
            FightStarted(ruleset="dnd5e"),
            CharacterJoined(character="m", stats={"hp": 20, "current_hp": 15}),
            Hit(target="m", damage=3),
        ],
    )
    store.append(stream, [FightPlayed(fight="f2", members={"mira": "m"})])
    before = campaign_state(store, "west")
    assert before.members["mira"].current["current_hp"] == 12
    store.append("f1", [Retract(event="h")])
    after = campaign_state(store, "west")
    assert after.members["mira"].current["current_hp"] == 17
    report = consequences(before, after)
    assert any("15 -> 20 from fight f2 on" in line for line in report.lines())
    assert [p.fight for p in report.stale] == ["f2"]
    store.append(stream, [Rest(kind="long")])
    assert campaign_state(store, "west").members["mira"].current["current_hp"] == 20

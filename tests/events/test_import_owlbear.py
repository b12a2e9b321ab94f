"""Owlbear Rodeo: the snapshots the woundlog extension sends (replays/integrations/owlbear/),
read by `events/importers/owlbear.py`.

Items are shaped as owlbear-rodeo/sdk 3.1.0 gives them (src/types/items/Item.ts); hit points
as Stat Bubbles for D&D 1.9.13 writes them (SeamusFinlayson/Bubbles-for-Owlbear-Rodeo:
src/getPluginId.ts, src/metadataHelpers/itemMetadataIds.ts), turns as Owlbear Rodeo's
Initiative Tracker writes them (owlbear-rodeo/initiative-tracker, December 2023:
src/getPluginId.ts, src/InitiativeTracker.tsx `isMetadata` and `handleNextClick`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from woundlog.core.importing import convert_records
from woundlog.events import Check, Heal, StructuralError
from woundlog.events.importers import IMPORTERS
from woundlog.events.importers.owlbear import count_of
from woundlog.replays.application import Application, NewFight

BUBBLES = "com.owlbear-rodeo-bubbles-extension/metadata"
INITIATIVE = "rodeo.owlbear.initiative-tracker/metadata"
ROOM = "room1"


def token(
    item_id: str,
    name: str,
    health: Any,
    maximum: Any,
    *,
    temp: int = 0,
    hide: bool = False,
    count: str | None = None,
    active: bool = False,
    layer: str = "CHARACTER",
) -> dict[str, Any]:
    """An image item with Stat Bubbles' stats and, given a `count`, in the Initiative
    Tracker's order."""
    metadata: dict[str, Any] = {
        BUBBLES: {
            "health": health,
            "max health": maximum,
            "temporary health": temp,
            "armor class": 13,
            "hide": hide,
        }
    }
    if count is not None:
        metadata[INITIATIVE] = {"count": count, "active": active}
    return {
        "id": item_id,
        "name": name,
        "type": "IMAGE",
        "layer": layer,
        "text": {"plainText": ""},
        "metadata": metadata,
    }


def scene(seq: int, *items: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "room": ROOM, "seq": seq, "items": list(items)}


def party(
    *, hero: int = 12, gob1: int = 7, gob2: int = 7, turn: str | None = None
) -> list[dict[str, Any]]:
    """Tordek (a player's token, 12 HP, initiative 15) and two goblins (hidden stats, 7 HP,
    initiatives 12 and 9); `turn` is the active one."""
    return [
        token("t-hero", "Tordek", hero, 12, count="15", active=turn == "t-hero"),
        token("t-gob1", "Goblin 1", gob1, 7, hide=True, count="12", active=turn == "t-gob1"),
        token("t-gob2", "Goblin 2", gob2, 7, hide=True, count="9", active=turn == "t-gob2"),
    ]


def tag(event: Any) -> str:
    return str(type(event).__struct_config__.tag)


def kinds(events: list[Any]) -> list[str]:
    return [f"{tag(e)}:{getattr(e, 'character', None) or getattr(e, 'target', '')}" for e in events]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "fights.db")) as opened:
        options = IMPORTERS["owlbear"].fight_options("dnd5e")
        opened.create(
            "table", opened.started(NewFight(fight="table", ruleset="dnd5e", options=options))
        )
        yield opened


def test_a_first_snapshot_joins_every_token_with_hit_points_hurt_already() -> None:
    events = convert_records("owlbear", [scene(1, *party(gob1=4))], ruleset="dnd5e").events
    assert kinds(events) == [
        "character_joined:t-hero",
        "character_joined:t-gob1",
        "hit:t-gob1",
        "character_joined:t-gob2",
    ]
    hero, goblin = events[0], events[1]
    assert (hero.name, hero.kind, hero.side, hero.stats) == ("Tordek", "pc", "players", {"hp": 12})
    # stats hidden from the players ("Dungeon Master Only"): a monster
    assert (goblin.kind, goblin.side) == ("monster", "monsters")
    assert events[2].damage == 3


def test_a_three_round_fight_ends_as_the_table_shows_it(app: Application) -> None:
    """Hits, a heal, a goblin's death and Tordek dying, over three rounds of Next clicks."""
    snapshots = [
        scene(1, *party()),
        scene(2, *party(turn="t-hero")),  # round 1 starts
        scene(3, *party(turn="t-hero", gob1=0)),  # Tordek kills Goblin 1 (7 damage)
        scene(4, *party(turn="t-gob1", gob1=0)),
        scene(5, *party(turn="t-gob2", gob1=0)),
        scene(6, *party(turn="t-gob2", gob1=0, hero=5)),  # Goblin 2 hits Tordek for 7
        scene(7, *party(turn="t-hero", gob1=0, hero=5)),  # round 2
        scene(8, *party(turn="t-hero", gob1=0, hero=9)),  # a potion: +4
        scene(9, *party(turn="t-gob1", gob1=0, hero=9)),
        scene(10, *party(turn="t-gob2", gob1=0, hero=9)),
        scene(11, *party(turn="t-gob2", gob1=0, hero=0)),  # Goblin 2 hits for 9: dying
        scene(12, *party(turn="t-hero", gob1=0, hero=0)),  # round 3
        scene(13, *party(turn="t-gob1", gob1=0, hero=0, gob2=2)),
    ]
    for record in snapshots:  # one POST a snapshot, as the extension sends them
        app.import_records("table", "owlbear", [record])
    state = app.state("table").characters
    assert {cid: (c.state, c.hp) for cid, c in state.items()} == {
        "t-hero": ("downed", 0),
        "t-gob1": ("dead", 0),
        "t-gob2": ("upright", 2),
    }
    events = [e.event for e in app.events("table", 1, None).events]
    starts = [(e.round, e.character) for e in events if tag(e) == "turn_started"]
    assert starts == [
        (1, "t-hero"),
        (1, "t-gob1"),
        (1, "t-gob2"),
        (2, "t-hero"),
        (2, "t-gob1"),
        (2, "t-gob2"),
        (3, "t-hero"),
        (3, "t-gob1"),
    ]
    ended = [e.round for e in events if tag(e) == "turn_ended" and e.character is None]
    assert ended == [1, 2]
    assert [e.amount for e in events if tag(e) == "heal"] == [4]
    again = app.import_records("table", "owlbear", snapshots)
    assert again.changes == []  # every snapshot again: each is the last one or older


def test_damage_comes_off_temporary_health_first_as_stat_bubbles_takes_it() -> None:
    """healthCalculations.ts: 10 damage on 5 temporary and 12 health leaves 0 and 7."""
    first = scene(1, token("t-hero", "Tordek", 12, 12, temp=5))
    then = scene(2, token("t-hero", "Tordek", 7, 12, temp=0))
    events = convert_records("owlbear", [first, then], ruleset="dnd5e").events
    assert kinds(events) == ["character_joined:t-hero", "heal:t-hero", "hit:t-hero"]
    assert (events[1].means, events[1].amount) == ("temporary", 5)
    assert events[2].damage == 10


def test_a_maximum_raised_is_set_before_the_heal_and_one_lowered_after_the_hit(
    app: Application,
) -> None:
    """Aid at full HP (12/12 -> 17/17) then a Life Drain (7 damage, maximum 17 -> 10)."""
    app.import_records("table", "owlbear", [scene(1, token("t-hero", "Tordek", 12, 12))])
    aid = app.import_records("table", "owlbear", [scene(2, token("t-hero", "Tordek", 17, 17))])
    assert [c.type for c in aid.changes] == ["stat_changed", "heal"]
    assert (app.state("table").characters["t-hero"].hp,) == (17,)
    drain = app.import_records("table", "owlbear", [scene(3, token("t-hero", "Tordek", 10, 10))])
    assert [c.type for c in drain.changes] == ["hit", "stat_changed"]
    hero = app.state("table").characters["t-hero"]
    assert (hero.hp, hero.max_hp, hero.state) == (10, 10, "upright")


def test_a_resend_or_an_older_snapshot_changes_nothing_and_the_older_is_reported() -> None:
    first = convert_records("owlbear", [scene(5, *party())], ruleset="dnd5e")
    again = convert_records(
        "owlbear",
        [scene(5, *party()), scene(4, *party(gob1=1))],
        ruleset="dnd5e",
        joined=["t-hero", "t-gob1", "t-gob2"],
        previous=first.previous,
    )
    assert again.events == []
    # the same one again is routine (a resend after a lost answer, a GM taking over): unsaid
    assert again.warnings == [
        "the Owlbear Rodeo snapshot 4 is older than the last one taken in: skipped"
    ]


def test_what_is_not_a_token_with_hit_points_is_left_out_or_reported() -> None:
    records = [
        scene(
            1,
            token("t-map", "Map", 5, 5, layer="MAP"),  # not a token: Stat Bubbles ignores it
            token("t-chest", "Chest", 0, 0),  # no maximum
            {"id": "t-wolf", "name": "Wolf", "type": "IMAGE", "layer": "CHARACTER",
             "metadata": {INITIATIVE: {"count": "3", "active": False}}},
            token("t-hero", "Tordek", "12", "12x"),  # numbers as text read as 0: no maximum
        )
    ]  # fmt: skip
    converted = convert_records("owlbear", records, ruleset="dnd5e")
    assert converted.events == []
    assert len(converted.warnings) == 3
    assert any("Chest (t-chest) has no maximum HP" in w for w in converted.warnings)
    assert any("Wolf (t-wolf) has no Stat Bubbles hit points" in w for w in converted.warnings)


def test_a_token_gone_from_the_scene_is_reported() -> None:
    first = convert_records("owlbear", [scene(1, *party())], ruleset="dnd5e")
    then = convert_records(
        "owlbear",
        [scene(2, *party()[:2])],
        ruleset="dnd5e",
        joined=["t-hero", "t-gob1", "t-gob2"],
        previous=first.previous,
    )
    assert then.events == []
    assert then.warnings == ["token t-gob2 is no longer in the scene: woundlog keeps it as it was"]


def test_a_player_character_dropping_to_0_hp_is_told_once_to_roll_death_saves_at_the_table() -> (
    None
):
    first = convert_records(
        "owlbear", [scene(1, token("t-hero", "Tordek", 3, 12))], ruleset="dnd5e"
    )
    down = convert_records(
        "owlbear",
        [scene(2, token("t-hero", "Tordek", 0, 12))],
        ruleset="dnd5e",
        joined=["t-hero"],
        previous=first.previous,
    )
    assert down.warnings == [
        "Tordek (t-hero) is at 0 HP: Owlbear Rodeo rolls no death saves; the players roll them "
        "at the table, recorded with `woundlog check`"
    ]
    later = convert_records(  # still at 0, a goblin moved: nothing said again
        "owlbear",
        [scene(3, token("t-hero", "Tordek", 0, 12), token("t-gob", "Goblin", 0, 7, hide=True))],
        ruleset="dnd5e",
        joined=["t-hero"],
        previous=down.previous,
    )
    assert later.warnings == []  # a monster at 0 HP is dead, with no save to roll
    joined_down = convert_records(
        "owlbear", [scene(1, token("t-hero", "Tordek", 0, 12))], ruleset="dnd5e"
    )
    assert len(joined_down.warnings) == 1


@pytest.mark.parametrize(
    ("count", "value"),
    [("15", 15.0), ("12.5", 12.5), ("7abc", 7.0), (" 3", 3.0), ("", float("-inf")),
     ("x", float("-inf")), ("-2", -2.0)],
)  # fmt: skip
def test_a_count_reads_as_parse_float_reads_it(count: str, value: float) -> None:
    assert count_of(count) == value


def test_the_order_is_by_count_highest_first_ties_in_scene_order() -> None:
    items = [
        token("a", "A", 5, 5, count="10"),
        token("b", "B", 5, 5, count="20"),
        token("c", "C", 5, 5, count="10", active=True),
    ]
    first = convert_records("owlbear", [scene(1, *items)], ruleset="dnd5e")
    items[2]["metadata"][INITIATIVE]["active"] = False
    items[1]["metadata"][INITIATIVE]["active"] = True  # Next wraps from C (last) to B
    then = convert_records(
        "owlbear", [scene(2, *items)], ruleset="dnd5e", joined="abc", previous=first.previous
    )
    assert [(tag(e), e.round, getattr(e, "character", None)) for e in then.events] == [
        ("turn_ended", 1, "c"),
        ("turn_ended", 1, None),
        ("turn_started", 2, "b"),
    ]


def test_a_long_token_name_is_cut_to_a_characters_name_never_refused() -> None:
    long = token("t-hero", "T" * 5000, 12, 12)
    long["metadata"]["com.owlbear-rodeo-bubbles-extension/name"] = "N" * 300
    events = convert_records("owlbear", [scene(1, long)], ruleset="dnd5e").events
    assert events[0].name == "N" * 200
    del long["metadata"]["com.owlbear-rodeo-bubbles-extension/name"]
    events = convert_records("owlbear", [scene(1, long)], ruleset="dnd5e").events
    assert events[0].name == "T" * 200


def test_a_malformed_snapshot_is_refused_naming_its_field() -> None:
    with pytest.raises(StructuralError) as refused:
        convert_records(
            "owlbear", [{"v": 1, "room": ROOM, "seq": -1, "items": []}], ruleset="dnd5e"
        )
    assert refused.value.field == "$.seq"


def test_a_ruleset_that_sets_no_maximum_leaves_the_change_out_and_says_so(
    tmp_path: Path,
) -> None:
    """d26 takes no `stat_changed`: the heal of the same snapshot still arrives."""
    with Application.opened(str(tmp_path / "d26.db")) as app:
        app.create("d26", app.started(NewFight(fight="d26", ruleset="d26")))
        app.import_records("d26", "owlbear", [scene(1, token("t-hero", "Tordek", 8, 12))])
        raised = app.import_records("d26", "owlbear", [scene(2, token("t-hero", "Tordek", 14, 14))])
        assert [c.type for c in raised.changes] == ["heal"]
        assert any("t-hero:max" in w for w in raised.warnings), raised.warnings
        assert app.state("d26").characters["t-hero"].hp == 12  # d26 heals up to its maximum


def test_a_player_character_dead_by_the_tables_saves_and_healed_in_stat_bubbles_is_revived(
    app: Application,
) -> None:
    """Stat Bubbles has no dead: a token healed above 0 health (Revivify's 1) shows alive, so
    the heal woundlog's rules refuse for the dead is taken as a revival (saved_encounters.py
    `revived`), reported as such; without the format's `revival` option it would be refused."""
    app.import_records("table", "owlbear", [scene(1, *party(hero=0))])
    saves = [
        Check(id=f"save{n}", character="t-hero", check="death_save", rolls={"death_save": [1]})
        for n in range(2)  # a 1 is two failures
    ]
    app.record("table", saves)
    assert app.state("table").characters["t-hero"].state == "dead"
    revived = app.import_records("table", "owlbear", [scene(2, *party(hero=1))])
    hero = app.state("table").characters["t-hero"]
    assert (hero.state, hero.hp) == ("upright", 1)  # type: ignore[attr-defined]
    revival = [e.event for e in app.events("table", 1, None).events][-1]
    assert isinstance(revival, Heal) and revival.means == "revivify"
    assert revival.id is not None and revival.id.endswith(":heal:revival")
    assert any("revival" in warning for warning in revived.warnings)

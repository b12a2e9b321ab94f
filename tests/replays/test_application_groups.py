"""The application as a composition of its use-case groups (issue 36): a stored fight or a
fight log file alike for the use cases that read one, the use cases the front ends no longer
write themselves, and a campaign member's record in the one shape of current values."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

import msgspec
import pytest

from woundlog.core.permanence import Record
from woundlog.events import CharacterJoined, Hit, UsageError, encode_json
from woundlog.events.campaign import Rest
from woundlog.events.stores import Store
from woundlog.replays.application import Application, MemberRecord, NewFight
from woundlog.replays.application.values import member_record

FIRE_CHASM = Path(str(files("woundlog.replays") / "data" / "warhammer_quest_fire_chasm.jsonl"))


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "fights.db")) as opened:
        yield opened


def stored(app: Application, path: Path, fight: str) -> str:
    from woundlog.events.codec import read_jsonl

    app.import_log(fight, [event for _, event in read_jsonl(path)])
    return fight


def skirmish(app: Application, fight: str = "well") -> str:
    """Mordheim: Grim (2 wounds, reavers) and Snik (skaven)."""
    app.create(fight, app.started(NewFight(fight=fight, ruleset="mordheim", seed=5)))
    app.record(
        fight,
        [
            CharacterJoined(character="grim", name="Grim", side="reavers", stats={"wounds": 2}),
            CharacterJoined(character="snik", name="Snik", side="skaven"),
        ],
    )
    return fight


# --- a stored fight or a file alike -----------------------------------------------------------


def test_a_report_of_a_file_is_the_report_of_the_same_log_stored(app: Application) -> None:
    fight = stored(app, FIRE_CHASM, FIRE_CHASM.stem)
    from_file = Application.without_store().report(FIRE_CHASM)
    assert msgspec.json.encode(from_file) == msgspec.json.encode(app.report(fight))


def test_a_files_history_and_state_are_the_stored_fights(app: Application) -> None:
    fight = stored(app, FIRE_CHASM, "chasm")
    reader = Application.without_store()
    told = reader.history(FIRE_CHASM)
    assert (told.fight, told.name) == (FIRE_CHASM.stem, "The fire chasm")
    assert told.moments == app.history(fight).moments
    assert reader.state(FIRE_CHASM, 20) == app.state(fight, 20)
    assert reader.state(FIRE_CHASM) == app.state(fight)
    with pytest.raises(UsageError, match=r"at=40: .* has events 1 to 33"):
        reader.state(FIRE_CHASM, 40)


def test_an_empty_file_is_refused_by_every_use_case_that_reads_one(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    reader = Application.without_store()
    for read in (reader.report, reader.history, reader.state):
        with pytest.raises(UsageError, match="holds no events"):
            read(empty)


def test_a_file_that_the_rules_refuse_in_part_is_replayed_with_those_events_void(
    tmp_path: Path,
) -> None:
    log = tmp_path / "typo.jsonl"
    log.write_text(
        '{"type":"fight_started","ruleset":"mordheim","seed":5}\n'
        '{"type":"character_joined","character":"grim","side":"reavers"}\n'
        '{"type":"hit","target":"grom","damage":1}\n'
    )
    told = Application.without_store().history(log)
    assert [m.changes.void is not None for m in told.moments] == [False, False, True]


def test_an_application_without_a_store_reads_files_and_nothing_else() -> None:
    with pytest.raises(AssertionError, match="reads fight log files alone"):
        Application.without_store().state("well")


# --- the use cases a front end used to write itself -------------------------------------------


def test_events_given_as_json_values_are_read_then_recorded(app: Application) -> None:
    fight = skirmish(app)
    hit = msgspec.to_builtins(Hit(id="h1", target="grim", damage=1, rolls={"injury": [1]}))
    done = app.record_json(fight, [hit], expected_version=3)
    assert done.version == 4 and app.events(fight, 4).events[0].event.id == "h1"


def test_a_whatifs_events_are_read_from_json_texts_and_a_file(tmp_path: Path) -> None:
    then = tmp_path / "then.jsonl"
    then.write_bytes(encode_json(Hit(target="snik", damage=1)) + b"\n")
    events = Application.whatif_events([json.dumps({"type": "hit", "target": "grim", "damage": 2})],
                                       file=then)  # fmt: skip
    assert [(e.target, e.damage) for e in events if isinstance(e, Hit)] == [
        ("grim", 2),
        ("snik", 1),
    ]
    with pytest.raises(UsageError, match="--then 1"):
        Application.whatif_events(["{"])


def test_a_branch_takes_hits_as_a_person_writes_them_and_diff_tells_it(app: Application) -> None:
    fight = skirmish(app)
    made = app.branch(fight, "other", hits=["grim:2:snik"])
    assert made.version == 4 and app.events("other", 4).events[0].event == Hit(
        target="grim", damage=2, attacker="snik"
    )
    differences = app.diff(fight, "other")
    assert [change.character for change in differences] == ["grim"]


def test_a_between_fight_event_is_recorded_as_given(app: Application) -> None:
    app.campaign_new("west", "dnd5e")
    app.campaign_join("west", "mira", name="Mira", stats={"hp": 20})
    given = app.campaign_between("west", Rest(kind="long", id="r1"))
    assert given.version == 3 and isinstance(given.event, Rest) and given.event.id == "r1"
    again = app.campaign_between("west", Rest(kind="long", id="r1"))
    assert again.skipped  # a retry with the same id and content


# --- one shape for current values (DESIGN section 8) -----------------------------------------


def test_a_members_record_puts_current_values_at_its_top_level_and_starting_ones_in_stats() -> None:
    record = Record(
        member="grundi",
        name="Grundi",
        stats={"wounds": 10, "toughness": 4},
        current={"wounds": 8, "toughness": 4},
        fights=("f1",),
    )
    shown = member_record(record)
    assert isinstance(shown, MemberRecord) and shown.current == record.current
    assert json.loads(msgspec.json.encode(shown)) == {
        "member": "grundi",
        "name": "Grundi",
        "stats": {"wounds": 10, "toughness": 4},
        "fights": ["f1"],
        "wounds": 8,
        "toughness": 4,
    }
    assert type(member_record(record)) is type(shown)  # one class a set of stats, kept


def test_a_stat_named_as_a_field_of_the_record_is_refused_not_hidden() -> None:
    with pytest.raises(ValueError, match="would hide fields"):
        member_record(Record(member="x", name="X", current={"name": 3}))


def test_a_campaigns_view_and_appends_give_records_in_that_shape(app: Application) -> None:
    app.campaign_new("west", "dnd5e")
    joined = app.campaign_join("west", "mira", name="Mira", stats={"hp": 20})
    [record] = json.loads(msgspec.json.encode(joined))["members"]
    [shown] = json.loads(msgspec.json.encode(app.campaign_show("west")))["members"]
    assert record == shown and "current" not in shown and shown["stats"] == {"hp": 20}
    assert {key: shown[key] for key in app.campaign_show("west").members[0].current} == {
        key: value for key, value in shown.items() if key not in MemberRecord.__struct_fields__
    }


def test_the_store_an_application_reads_is_the_one_it_was_given(tmp_path: Path) -> None:
    with Application.opened(str(tmp_path / "a.db")) as app:
        store: Store = app.store
        assert Application.over(store).store is store

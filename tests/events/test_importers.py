"""Importers: the interface every format shares. Each format has its own file:
test_import_foundry.py, test_import_improved_initiative.py and test_import_avrae.py."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from woundlog.events import UsageError
from woundlog.events.importers import IMPORTERS, convert_records
from woundlog.events.importers.base import (
    PROFILES,
    Batch,
    Sighting,
    SourceId,
    Turn,
    advanced,
    content_key,
)
from woundlog.events.model import Heal, Hit, TurnEnded, TurnStarted

DATA = Path(__file__).parent.parent / "data" / "importers"


def jsonl(name: str) -> list[Any]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


FOUNDRY = jsonl("foundry_dnd5e.jsonl")


# --- the interface -------------------------------------------------------------------------------


def test_importers_are_named_by_format() -> None:
    assert list(IMPORTERS) == ["foundry", "improved-initiative", "avrae", "avrae-snapshot"]


def test_unknown_format_is_a_usage_error_naming_the_known_ones() -> None:
    with pytest.raises(
        UsageError, match="known: foundry, improved-initiative, avrae, avrae-snapshot"
    ):
        convert_records("roll20", [], ruleset="d26")


def test_ruleset_without_hit_points_is_refused_with_the_reason() -> None:
    with pytest.raises(UsageError, match="Fatigue and Endurance"):
        convert_records("foundry", FOUNDRY, ruleset="dragonquest")
    with pytest.raises(UsageError, match="importable: d26, mordheim"):
        convert_records("foundry", FOUNDRY, ruleset="chess")


def test_the_initiative_moved_on_when_the_next_combatant_moves_up_into_the_same_place() -> None:
    """The combatant whose turn it is deleted, the next takes its turn at the same place in the
    order (as the Foundry import's test_deleting_the_combatant_whose_turn_it_is_... records
    it): that is a turn, not a resend."""
    before = Turn(round=2, position=1, active=("gob1",))
    assert advanced(before, Turn(round=2, position=1, active=("gob2",)))  # moved up
    assert not advanced(before, Turn(round=2, position=1, active=("gob1",)))  # a resend
    assert advanced(before, Turn(round=2, position=2, active=("gob2",)))
    assert not advanced(before, Turn(round=2, position=0, active=("tali",)))  # a rewind
    assert not advanced(before, Turn(round=1, position=3, active=("orc",)))
    assert advanced(before, Turn(round=3, position=0, active=("tali",)))


# --- examples the mutation run found missing (base.py) -------------------------------------------
# Each names the slip it catches. The Batch is driven the way every importer drives it: a
# snapshot's turn and HP readings, before and now, as the formats' own tests record them.


def _batch(ruleset: str, joined: tuple[str, ...] = ("tali", "gob1")) -> Batch:
    return Batch("foundry", PROFILES[ruleset], joined)


def _ticks(batch: Batch) -> list[tuple[str, int | None, str | None]]:
    return [
        (type(event).__name__, event.round, event.character)
        for event in batch.events
        if isinstance(event, (TurnStarted, TurnEnded))
    ]


def test_a_turn_within_round_one_ends_the_first_turn_and_starts_the_next() -> None:
    """Round 1 is a round like any other (`before.round >= 1`, not `> 1`), and a turn that moves
    on within a round does not end the round."""
    batch = _batch("d26")
    batch.turn_change("k", Turn(1, 0, ("tali",)), Turn(1, 1, ("gob1",)))
    assert _ticks(batch) == [("TurnEnded", 1, "tali"), ("TurnStarted", 1, "gob1")]


def test_the_round_counter_going_up_ends_the_round_between_the_two_turns() -> None:
    batch = _batch("d26")
    batch.turn_change("k", Turn(1, 1, ("gob1",)), Turn(2, 0, ("tali",)))
    assert _ticks(batch) == [
        ("TurnEnded", 1, "gob1"),
        ("TurnEnded", 1, None),
        ("TurnStarted", 2, "tali"),
    ]
    assert batch.events[1].id == "foundry:k:round_ended"


def test_starting_the_combat_starts_the_first_turn_and_ends_no_round_zero() -> None:
    """Foundry's "Begin Combat" moves round 0 (not started) to round 1, turn 0."""
    batch = _batch("d26")
    batch.turn_change("k", Turn(0, None, ()), Turn(1, 0, ("tali",)))
    assert _ticks(batch) == [("TurnStarted", 1, "tali")]


def test_a_combat_not_yet_started_ticks_nothing_when_its_order_changes() -> None:
    """Round 0 is the combat before "Begin Combat": a combatant shown first is no turn yet."""
    batch = _batch("d26")
    batch.turn_change("k", Turn(0, None, ()), Turn(0, 0, ("tali",)))
    assert batch.events == []


def test_the_initiative_moved_on_when_nobody_was_or_is_active_any_more() -> None:
    """With no place to compare (None), a change of who acts is a move forward."""
    assert advanced(Turn(1, None, ()), Turn(1, 0, ("tali",)))
    assert advanced(Turn(1, 0, ("tali",)), Turn(1, None, ()))
    batch = _batch("d26")
    batch.turn_change("k", Turn(1, 0, ("tali",)), Turn(1, None, ()))
    assert _ticks(batch) == [("TurnEnded", 1, "tali")]


def _hp(batch: Batch) -> list[tuple[str, str, int]]:
    return [
        (
            event.id,
            type(event).__name__,
            event.damage if isinstance(event, Hit) else event.amount,
        )
        for event in batch.events
        if isinstance(event, (Hit, Heal))
    ]


def test_without_temporary_hit_points_hp_down_is_a_hit_and_up_a_heal_with_ids_to_match() -> None:
    batch = _batch("d26")
    batch.hp_and_temporary("k", "tali", (10, 9), (0, 0))
    batch.hp_and_temporary("k2", "tali", (9, 6), (0, 0))
    batch.hp_and_temporary("k3", "tali", (6, 7), (0, 0))
    assert _hp(batch) == [
        ("foundry:k:tali:hit", "Hit", 1),
        ("foundry:k2:tali:hit", "Hit", 3),
        ("foundry:k3:tali:heal", "Heal", 1),
    ]


def test_one_hp_lost_with_temporary_hit_points_is_a_hit_through_all_of_them() -> None:
    """dnd5e: 5 temporary HP and 1 HP gone means 6 damage came in (temporary HP go first)."""
    batch = _batch("dnd5e")
    batch.hp_and_temporary("k", "tali", (10, 9), (5, 0))
    assert _hp(batch) == [("foundry:k:tali:hit", "Hit", 6)]


def test_temporary_hit_points_shown_after_a_hit_through_them_were_granted_after_it() -> None:
    """10 -> 7 HP and 3 -> 1 temporary HP: the 3 went with the hit (6 damage), the 1 is new."""
    batch = _batch("dnd5e")
    batch.hp_and_temporary("k", "tali", (10, 7), (3, 1))
    assert _hp(batch) == [("foundry:k:tali:hit", "Hit", 6), ("foundry:k:tali:temp", "Heal", 1)]
    assert batch.events[-1].means == "temporary"


def test_one_hp_healed_beside_temporary_hit_points_is_a_heal() -> None:
    batch = _batch("dnd5e")
    batch.hp_and_temporary("k", "tali", (5, 6), (2, 2))
    assert _hp(batch) == [("foundry:k:tali:heal", "Heal", 1)]


def test_one_temporary_hit_point_on_sight_is_granted() -> None:
    batch = _batch("dnd5e", joined=())
    batch.sight(Sighting(id="tali", name="Tali", player=True, max_hp=10, hp=10, temp_hp=1))
    assert _hp(batch) == [("foundry:tali:temp", "Heal", 1)]


def test_dice_go_to_the_first_event_of_the_record_scoped_to_its_target() -> None:
    batch = _batch("dnd5e")
    batch.hp_and_temporary("k", "tali", (10, 8), (0, 0))
    batch.give_rolls(0, {"damage": [2]})
    assert batch.events[0].rolls == {"damage@tali": [2]}


def test_dice_of_a_record_that_made_no_event_are_dropped() -> None:
    batch = _batch("dnd5e")
    batch.hp_and_temporary("k", "tali", (10, 8), (0, 0))
    batch.give_rolls(1, {"damage": [2]})
    batch.give_rolls(1, {})
    batch.give_rolls(0, {})
    assert [event.rolls for event in batch.events] == [{}]


def test_a_source_id_is_one_to_a_hundred_characters() -> None:
    """Ids from the source become part of woundlog ids (at most 200 characters)."""
    for good in ("a", "x" * 100):
        assert msgspec.convert(good, SourceId) == good
    for bad in ("", "x" * 101):
        with pytest.raises(msgspec.ValidationError):
            msgspec.convert(bad, SourceId)


def test_a_content_key_is_the_eight_byte_blake2b_chain_the_stored_ids_were_made_with() -> None:
    """Logs imported earlier hold these keys in their ids: a re-import must make the same ones
    to be skipped. Computed here from the definition: blake2b-64 of the previous key, then of
    the record's sorted JSON."""
    digest = hashlib.blake2b(b"prev", digest_size=8)
    digest.update(b'{"a":1,"b":2}')
    assert content_key({"b": 2, "a": 1}, "prev") == digest.hexdigest()
    assert len(content_key({"b": 2, "a": 1}, "prev")) == 16

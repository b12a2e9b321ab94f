"""Importers: the interface every format shares. Each format has its own file:
test_import_foundry.py, test_import_improved_initiative.py and test_import_avrae.py."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from woundlog.core.importing import IMPORT_RULES as PROFILES
from woundlog.core.importing import convert_records
from woundlog.events import StructuralError, UsageError
from woundlog.events.importers import IMPORTERS
from woundlog.events.importers.base import (
    Batch,
    Sighting,
    SourceId,
    content_key,
)
from woundlog.events.model import Heal, Hit, TurnEnded, TurnStarted

DATA = Path(__file__).parent.parent / "data" / "importers"


def jsonl(name: str) -> list[Any]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


FOUNDRY = jsonl("foundry_dnd5e.jsonl")


# --- the interface -------------------------------------------------------------------------------


def test_importers_are_named_by_format() -> None:
    assert list(IMPORTERS) == [
        "foundry",
        "improved-initiative",
        "avrae",
        "avrae-snapshot",
        "owlbear",
    ]


def test_unknown_format_is_a_usage_error_naming_the_known_ones() -> None:
    with pytest.raises(
        UsageError, match="known: foundry, improved-initiative, avrae, avrae-snapshot, owlbear"
    ):
        convert_records("roll20", [], ruleset="d26")


def test_ruleset_without_hit_points_is_refused_with_the_reason() -> None:
    with pytest.raises(UsageError, match="Fatigue and Endurance"):
        convert_records("foundry", FOUNDRY, ruleset="dragonquest")
    with pytest.raises(UsageError, match="importable: mordheim, warhammer_quest, d26"):
        convert_records("foundry", FOUNDRY, ruleset="chess")


# --- examples the mutation run found missing (base.py) -------------------------------------------
# Each names the slip it catches. The Batch is driven the way every importer drives it: a
# snapshot's ticks and HP readings, before and now, as the formats' own tests record them.


def _batch(ruleset: str, joined: tuple[str, ...] = ("tali", "gob1")) -> Batch:
    return Batch("foundry", PROFILES[ruleset], joined)


def _ticks(batch: Batch) -> list[tuple[str, int | None, str | None]]:
    return [
        (type(event).__name__, event.round, event.character)
        for event in batch.events
        if isinstance(event, (TurnStarted, TurnEnded))
    ]


def test_only_a_joined_character_ticks_and_each_tick_has_an_id_of_its_record() -> None:
    """Nothing has happened yet to a combatant who never joined: its turn makes no event."""
    batch = _batch("d26")
    batch.tick(TurnStarted, "k", 2, "tali")
    batch.tick(TurnEnded, "k", 2, "orc")  # not joined
    batch.tick(TurnEnded, "k", 2, "tali")
    assert _ticks(batch) == [("TurnStarted", 2, "tali"), ("TurnEnded", 2, "tali")]
    assert [event.id for event in batch.events] == [
        "foundry:k:tali:turn_started",
        "foundry:k:tali:turn_ended",
    ]


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


@pytest.mark.parametrize("fmt", sorted(IMPORTERS))
def test_a_cursor_no_import_gave_is_refused_naming_previous(fmt: str) -> None:
    """Every importer reads its cursor back the one way (`base.kept`): a cursor that is not one
    it gave is a structural refusal naming `previous`, never an error the service cannot name."""
    with pytest.raises(StructuralError) as refused:
        convert_records(fmt, [], ruleset="dnd5e", previous={"rooms": 7, "hp": 7, "last": 7})
    assert refused.value.field == "previous"
    assert "not a cursor this importer gave" in refused.value.message

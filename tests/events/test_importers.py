"""Importers: the interface every format shares. Each format has its own file:
test_import_foundry.py, test_import_improved_initiative.py and test_import_avrae.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from woundlog.events import UsageError
from woundlog.events.importers import IMPORTERS, convert_records
from woundlog.events.importers.base import Turn, advanced

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

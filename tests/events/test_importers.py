"""Importers: the interface every format shares. Each format has its own file:
test_import_foundry.py, test_import_improved_initiative.py and test_import_avrae.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from woundlog.events import UsageError
from woundlog.events.importers import IMPORTERS, convert_records

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

"""Tables that travel inside the log (`fight_started.tables`) and replace a ruleset's defaults."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
import pytest

from woundlog.core import FightState, Graph, Ruleset, Table
from woundlog.events import StructuralError


class Wounds(msgspec.Struct, frozen=True):
    rows: dict[str, str]


class Example(Ruleset):
    name = "example"
    graph = Graph("example", ["upright", "dead"], [("die", "upright", "dead")])
    tables: ClassVar[dict[str, Any]] = {"wounds": Wounds(rows={"1-10": "lucky"})}


def fight_with(tables: dict[str, Any]) -> FightState[Any]:
    return FightState(
        ruleset="example", seq=1, characters={}, name="", seed=0, options={}, tables=tables,
        ended=False,
    )


def test_a_fight_without_a_table_plays_with_the_default() -> None:
    assert Example().table(fight_with({}), "wounds") == Wounds(rows={"1-10": "lucky"})


def test_a_table_in_the_log_replaces_the_default() -> None:
    fight = fight_with({"wounds": {"rows": {"1-5": "graze"}}})
    assert Example().table(fight, "wounds") == Wounds(rows={"1-5": "graze"})


def test_a_table_of_the_wrong_shape_is_refused_naming_it() -> None:
    with pytest.raises(StructuralError) as err:
        Example().check_tables({"wounds": {"rows": [1, 2]}})
    assert err.value.field == "$.tables.wounds"


def test_a_table_the_ruleset_does_not_have_is_refused() -> None:
    with pytest.raises(StructuralError, match="no table `injuries`"):
        Example().check_tables({"injuries": {}})


def test_range_table_covers_each_face_once() -> None:
    with pytest.raises(ValueError, match="two rows"):
        Table("D6", {(1, 3): "a", (3, 6): "b"})
    with pytest.raises(ValueError, match="does not cover"):
        Table("D6", {(1, 2): "a"}, range(1, 7))
    assert Table("D6", {(1, 2): "a", (3, 6): "b"}, range(1, 7))[3] == "b"

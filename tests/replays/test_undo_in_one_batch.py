"""Undo events written in one batch with the events they reach (issue 39, found missing by the
mutation run): retracting a retract in the same append restores the event it named, and what
comes after it in the batch is checked against the fight as it then stands, as a replay of the
log says (DESIGN section 6: retracting a `retract` restores the event)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.events import CharacterJoined, FightStarted, Hit, Retract
from woundlog.replays.application import Application
from woundlog.replays.undo import Target, reach


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "undo.db")) as opened:
        opened.create("f", FightStarted(ruleset="dnd5e"))
        opened.record("f", [CharacterJoined(character="mira", stats={"hp": 20})])
        yield opened


def test_a_retract_retracted_in_the_same_batch_restores_the_hit_for_what_follows(
    app: Application,
) -> None:
    appended = app.record(
        "f",
        [
            Hit(id="h1", target="mira", damage=12),
            Hit(id="h2", target="mira", damage=1),
            Retract(id="r1", event="h1", reason="misread"),
            Hit(id="h3", target="mira", damage=1),
            Retract(id="r2", event="r1", reason="it did land"),
            Hit(id="h4", target="mira", damage=1),
        ],
    )
    assert app.state("f").characters["mira"].hp == 20 - 12 - 3
    said = [change.line() for change in appended.changes]
    assert said[-3:] == [
        "#6 h3 hit: mira takes 1 (19 -> 18 HP)",
        "#7 r2 retract: retracts r1 (it did land) => mira: upright -> upright (hp 18 -> 6)",
        "#8 h4 hit: mira takes 1 (6 -> 5 HP)",  # h1 stands again before h4
    ]


def test_an_undo_reaches_back_as_far_as_what_it_names_reached() -> None:
    """`reach`: the target's own seq; for an undo event, the first seq that one reached (0: from
    before what was followed, so anything); no target found, anything."""
    assert reach(Target(5, "hit", "h1"), {}) == 5
    assert reach(Target(7, "retract", "r1"), {7: 3}) == 3
    assert reach(Target(7, "amend", "a1"), {7: 4}) == 4
    assert reach(Target(7, "retract", "r1"), {}) == 0
    assert reach(None, {7: 3}) == 0

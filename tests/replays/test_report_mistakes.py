"""A fight's report at its edges, counted by hand, each test written against a plausible slip no
test noticed (issue 39, `tests/mutation/handwritten.py`): who took and who gave each hit and
heal, a state kept not counted again, rounds spent down, the health track, an undo's place in
the length and the chronicle's words. What is expected is the README's and the decisions listed
in replays/report/numbers.py and chronicle.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from woundlog.events import FightStarted
from woundlog.replays.application import Application
from woundlog.replays.report import Report, Tally


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "fights.db")) as opened:
        yield opened


def fought(app: Application, ruleset: str, *lines: dict[str, Any]) -> Report:
    app.create("f", FightStarted(ruleset=ruleset, name="Brawl"))
    for fields in lines:
        app.record_named("f", [fields])
    return app.report("f")


def joined(character: str, name: str, side: str, **stats: int) -> dict[str, Any]:
    return {"type": "character_joined", "character": character, "name": name, "side": side,
            "stats": stats}  # fmt: skip


def by_id(report: Report) -> dict[str, Any]:
    return {one.character: one for one in report.characters}


BRAWL = (
    joined("mira", "Mira", "party", hp=10),  # 2
    joined("tam", "Tam", "party", hp=12),  # 3
    joined("ogre", "Ogre", "monsters", hp=30),  # 4
    {"type": "hit", "target": "mira", "damage": 4, "attacker": "ogre"},  # 5
    {"type": "hit", "target": "mira", "damage": 3, "attacker": "ogre"},  # 6, taken back at 10
    {"type": "heal", "target": "mira", "amount": 2, "healer": "tam", "means": "potion"},  # 7
    {"type": "hit", "target": "tam", "damage": 5, "attacker": "ogre"},  # 8
    {"type": "heal", "target": "tam", "amount": 3, "healer": "tam", "means": "potion"},  # 9
    {"type": "retract", "event": "#6", "reason": "it missed"},  # 10
)


def test_each_hit_and_heal_counts_for_its_target_and_its_dealer(app: Application) -> None:
    report = fought(app, "dnd5e", *BRAWL)
    mira, tam, ogre = (by_id(report)[c] for c in ("mira", "tam", "ogre"))
    assert mira.tally == Tally(hits_taken=1, damage_taken=4, heals_taken=1, healing_taken=2)
    # Tam heals Mira and himself: both heals are given by him, one taken by him
    assert tam.tally == Tally(
        hits_taken=1, damage_taken=5, heals_given=2, healing_given=5, heals_taken=1,
        healing_taken=3,
    )  # fmt: skip
    assert ogre.tally == Tally(hits_dealt=2, damage_dealt=9)
    assert (report.length.undo_events, report.length.undone) == (1, 1)


def test_the_health_track_holds_each_value_after_the_event_from_the_join(
    app: Application,
) -> None:
    report = fought(app, "dnd5e", *BRAWL)
    tracks = {t.character: (t.counter, t.points) for t in report.tracks}
    assert tracks["mira"] == ("hp", [(2, 10), (5, 6), (7, 8)])
    assert tracks["tam"] == ("hp", [(3, 12), (8, 7), (9, 10)])


def test_the_chronicle_names_who_healed_whom_by_their_names_and_the_undos_reason(
    app: Application,
) -> None:
    report = fought(app, "dnd5e", *BRAWL)
    told = [line.text for chapter in report.chronicle for line in chapter.lines]
    assert any(text.startswith("Tam heals Mira (potion): ") for text in told), told
    assert any(text.startswith("Ogre hits Mira for 4: ") for text in told), told
    [undo] = [text for text in told if text.startswith("The GM took back")]
    assert undo.endswith("(it missed)."), undo


def mordheim_hit(target: str, attacker: str, injury: int) -> dict[str, Any]:
    return {"type": "hit", "target": target, "damage": 1, "attacker": attacker,
            "rolls": {"injury": [injury]}}  # fmt: skip


def turn(side: str) -> dict[str, Any]:
    return {"type": "turn_started", "side": side}


def test_rounds_down_count_from_the_first_tick_and_stop_when_the_warrior_stands(
    app: Application,
) -> None:
    # Mordheim: injury 1-2 knocked down, 3-4 stunned; a recovery phase stands the knocked down
    # up and turns the stunned face up (knocked down), one phase each
    report = fought(
        app,
        "mordheim",
        joined("grim", "Grim", "reavers", wounds=1),  # 2
        joined("snik", "Snik", "skaven", wounds=1),  # 3
        mordheim_hit("grim", "snik", 1),  # 4: knocked down, before any tick (round 0)
        turn("reavers"),  # 5, round 1: Grim stands up
        turn("skaven"),  # 6
        turn("reavers"),  # 7, round 2
        mordheim_hit("snik", "grim", 3),  # 8: stunned
        turn("skaven"),  # 9: face up, knocked down
        turn("reavers"),  # 10, round 3
        turn("skaven"),  # 11: stands up
        turn("reavers"),  # 12, round 4
    )
    grim, snik = (by_id(report)[c] for c in ("grim", "snik"))
    assert (grim.tally.knocked_down, grim.tally.rounds_down) == (1, 0)
    assert (snik.tally.stunned, snik.tally.knocked_down, snik.tally.rounds_down) == (1, 1, 2)
    assert report.length.rounds == 4


def test_a_stunned_warrior_left_at_the_end_is_still_standing_for_his_side(
    app: Application,
) -> None:
    report = fought(
        app,
        "mordheim",
        joined("grim", "Grim", "reavers", wounds=1),
        joined("ulf", "Ulf", "reavers", wounds=1),
        joined("snik", "Snik", "skaven", wounds=1),
        mordheim_hit("grim", "snik", 3),  # stunned
        mordheim_hit("ulf", "snik", 6),  # out of action
    )
    reavers, skaven = report.sides
    assert (reavers.side, reavers.standing, skaven.standing) == ("reavers", 1, 1)


def test_a_tick_of_the_whole_round_without_its_number_begins_the_next_chapter(
    app: Application,
) -> None:
    report = fought(
        app,
        "dnd5e",
        joined("mira", "Mira", "party", hp=10),
        {"type": "hit", "target": "mira", "damage": 1},
        {"type": "turn_started"},
        {"type": "hit", "target": "mira", "damage": 1},
        {"type": "turn_started"},
        {"type": "hit", "target": "mira", "damage": 1},
    )
    assert [chapter.round for chapter in report.chronicle] == [0, 1, 2]


def test_a_fights_length_counts_its_amends_and_retracts_as_undo_events(app: Application) -> None:
    report = fought(
        app,
        "dnd5e",
        joined("mira", "Mira", "party", hp=10),  # 2
        {"type": "hit", "target": "mira", "damage": 4},  # 3, replaced
        {"type": "hit", "target": "mira", "damage": 1},  # 4, taken back
        {
            "type": "amend",
            "event": "#3",
            "replacement": {"type": "hit", "target": "mira", "damage": 2},
        },
        {"type": "retract", "event": "#4"},
    )
    assert report.length.events == 6
    assert (report.length.undo_events, report.length.undone) == (2, 2)
    assert by_id(report)["mira"].tally.damage_taken == 2

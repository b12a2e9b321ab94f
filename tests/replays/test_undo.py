"""Undo (DESIGN.md section 6) as a replay of a log sees it: retract, amend, and their checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from woundlog.core import FightState
from woundlog.events import (
    Amend,
    CharacterJoined,
    Event,
    FightStarted,
    Hit,
    Retract,
    RuleError,
    StructuralError,
    TurnStarted,
)
from woundlog.replays import replay, replay_file

BASE: list[Event] = [
    FightStarted(ruleset="mordheim"),
    CharacterJoined(character="grim", name="Grim", side="reavers"),
    CharacterJoined(character="snik", name="Snik", side="skaven"),
    Hit(id="h1", target="grim", damage=1, rolls={"injury": [5]}),
]


def final(*more: Any) -> FightState[Any]:
    return list(replay([*BASE, *more]))[-1][0]


def retract(event: str, **kw: Any) -> Event:
    return Retract(event=event, **kw)


def grim(state: FightState[Any]) -> str:
    return state.characters["grim"].state


def test_retracted_event_is_treated_as_never_having_happened() -> None:
    assert grim(final()) == "out_of_action"
    assert grim(final(retract("h1"))) == "upright"


def test_an_event_can_be_named_by_its_position() -> None:
    assert grim(final(retract("#4"))) == "upright"


def test_retracting_a_retract_restores_the_event() -> None:
    assert grim(final(retract("h1", id="u1"), retract("u1"))) == "out_of_action"


def test_retracting_the_retract_of_a_retract_takes_it_away_again() -> None:
    assert grim(final(retract("h1", id="u1"), retract("u1", id="u2"), retract("u2"))) == "upright"


def test_amended_event_is_replayed_as_its_replacement() -> None:
    fixed = Hit(target="grim", damage=1, rolls={"injury": [2]})
    assert grim(final(Amend(event="h1", replacement=fixed))) == "knocked_down"


def test_the_newest_amend_of_an_event_wins() -> None:
    first = Hit(target="grim", damage=1, rolls={"injury": [2]})
    second = Hit(target="grim", damage=1, rolls={"injury": [3]})
    after = final(Amend(event="h1", replacement=first), Amend(event="#4", replacement=second))
    assert grim(after) == "stunned"


def test_retracting_an_amend_restores_the_original() -> None:
    fixed = Hit(target="grim", damage=1, rolls={"injury": [2]})
    assert grim(final(Amend(id="m1", event="h1", replacement=fixed), retract("m1"))) == (
        "out_of_action"
    )


def test_replacement_keeps_the_id_and_so_the_dice_of_the_event_it_replaces() -> None:
    drawn = Hit(target="grim", damage=1)
    steps = list(replay([*BASE, Amend(event="h1", replacement=drawn)]))
    replaced = steps[3][1]
    assert replaced.event == "h1" and replaced.undone == "amended by #5"
    assert [d.source for d in replaced.dice] == ["drawn"]


def test_events_that_stop_making_sense_after_an_undo_become_void() -> None:
    log = [*BASE[:2], Hit(target="grim", damage=1, rolls={"injury": [1]}), retract("#2")]
    steps = list(replay(log))
    assert steps[2][1].void is not None and "no character `grim`" in steps[2][1].void
    assert steps[-1][0].characters == {}


def test_strict_replay_raises_instead_of_voiding() -> None:
    log = [*BASE[:2], Hit(target="grim", damage=1), retract("#2")]
    with pytest.raises(RuleError, match="no character"):
        list(replay(log, strict=True))


def test_state_at_a_point_ignores_undo_events_after_it() -> None:
    log = [*BASE, retract("h1")]
    assert grim(list(replay(log, at=4))[-1][0]) == "out_of_action"
    assert grim(list(replay(log, at=5))[-1][0]) == "upright"


@pytest.mark.parametrize(
    ("undo", "words"),
    [
        (retract("#1"), "cannot be undone"),
        (retract("h9"), "names no earlier event"),
        (retract("#9"), "names no earlier event"),
        (Amend(event="#5", replacement=Hit(target="grim", damage=1)), "names no earlier event"),
        (Amend(event="h1", replacement=Hit(id="h2", target="grim", damage=1)), "keeps the id"),
    ],
)
def test_undo_events_that_name_no_undoable_event_are_structural_errors(
    undo: Event, words: str
) -> None:
    with pytest.raises(StructuralError, match=words) as err:
        list(replay([*BASE, undo]))
    assert err.value.field is not None


def test_amending_an_undo_event_is_refused() -> None:
    with pytest.raises(StructuralError, match="retract it instead"):
        list(replay([*BASE, retract("h1", id="u1"), Amend(event="u1", replacement=TurnStarted())]))


def test_an_id_used_twice_in_a_log_is_refused() -> None:
    with pytest.raises(StructuralError, match="already used"):
        list(replay([*BASE, Hit(id="h1", target="snik", damage=1)]))


def _write(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "fight.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


START = [
    {"type": "fight_started", "ruleset": "mordheim"},
    {"type": "character_joined", "character": "grim", "side": "reavers"},
]


def test_file_replay_names_the_line_of_a_duplicated_id(tmp_path: Path) -> None:
    hit = {"type": "hit", "id": "x", "target": "grim", "damage": 0}
    path = _write(tmp_path, [*START, hit, {}, hit])
    with pytest.raises(StructuralError, match="already used on line 3") as err:
        list(replay_file(path))
    assert err.value.line == 5


def test_file_replay_names_the_line_of_a_bad_event_after_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "fight.jsonl"
    path.write_text(
        json.dumps(START[0]) + "\n\n" + json.dumps(START[1]) + '\n{"type":"hit","target":"grim"}\n'
    )
    with pytest.raises(StructuralError) as err:
        list(replay_file(path))
    assert err.value.line == 4 and err.value.field == "$.damage"


def test_file_replay_names_the_line_of_an_undo_of_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path, [*START, {"type": "retract", "event": "nope"}])
    with pytest.raises(StructuralError) as err:
        list(replay_file(path))
    assert err.value.line == 3


def test_file_replay_with_strict_names_the_line_of_a_rule_error(tmp_path: Path) -> None:
    path = _write(tmp_path, [*START, {"type": "heal", "target": "grim", "amount": 1}])
    with pytest.raises(RuleError) as err:
        list(replay_file(path, strict=True))
    assert err.value.line == 3


# --- issue 27: surviving mutants of the undo rules ----------------------------------------------


def test_a_retract_naming_its_own_position_is_refused() -> None:
    with pytest.raises(StructuralError, match="names no earlier event") as err:
        list(replay([*BASE, retract("#5")]))  # the retract is itself event 5
    assert err.value.field == "$.event"


def test_an_event_retracted_twice_is_labelled_alike_by_a_replay_and_by_one_more_undo() -> None:
    """A replay resolves the undo events from the start; an append adds the newest to those it
    has. Both label a twice-retracted event with the same retract: the newest, which stands."""
    from woundlog.events.stores import Stored
    from woundlog.replays.undo import Undo

    first, second = Stored(5, retract("h1", id="r1")), Stored(6, retract("h1", id="r2"))
    rebuilt, added = Undo([first, second]), Undo([first])
    added.add(second)
    hit = BASE[3]
    assert rebuilt.fate(4, hit) == added.fate(4, hit)
    assert rebuilt.fate(4, hit) is not None and rebuilt.fate(4, hit).by == "r2"  # type: ignore[union-attr]
    steps = list(replay([*BASE, first.event, second.event]))
    assert steps[3][1].undone == "retracted by r2"

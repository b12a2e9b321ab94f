"""`Fight.steps_and_history` (what a report reads): each event as the fight stands and as it
happened, in one fold, the same as `Fight.steps` and `Fight.history` give them apart; an
undo event nested in the reach of a later one refolds its past from the fight as it stands
before that reach, not from the start (issue 42)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings

from tests.strategies import mordheim_logs
from woundlog.events import (
    CharacterJoined,
    Event,
    FightStarted,
    Hit,
    Retract,
    TurnEnded,
    TurnStarted,
)
from woundlog.events.codec import write_jsonl
from woundlog.replays.fight import Fight
from woundlog.replays.files import file_fight

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def as_file(log: list[Event], path: Path) -> Path:
    with path.open("wb") as out:
        write_jsonl(out, log)
    return path


def assert_as_apart(path: Path) -> None:
    with file_fight(path) as opened:
        together = list(opened.steps_and_history())
        steps = list(opened.steps())
        history = list(opened.history())
    assert [(state, changes) for _, _, state, changes, _ in together] == steps
    assert [told for *_, told in together] == history


@SETTINGS
@given(log=mordheim_logs(undo=True, named=False) | mordheim_logs(undo=True, named=True))
def test_steps_and_history_are_the_steps_and_the_history(
    log: list[Event], tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert_as_apart(as_file(log, tmp_path_factory.mktemp("log") / "fight.jsonl"))


def nested() -> list[Event]:
    """A retract (#10) of a blow, between the blow a later retract (#12) takes back and
    that retract; then a retract (#13) of the first retract, which reaches back to #9."""
    log: list[Event] = [FightStarted(ruleset="mordheim", seed=3)]
    for cid, side in (
        ("grim", "reavers"),
        ("ulf", "reavers"),
        ("snik", "skaven"),
        ("tikk", "skaven"),
    ):
        log.append(CharacterJoined(character=cid, side=side, stats={"wounds": 1}))
    log += [
        Hit(target="snik", damage=1, attacker="grim", rolls={"injury": [1]}),  # 6
        Hit(target="tikk", damage=1, attacker="ulf", rolls={"injury": [3]}),  # 7
        TurnStarted(round=1, side="skaven"),  # 8
        Hit(target="ulf", damage=1, attacker="tikk", rolls={"injury": [5]}),  # 9
        Retract(event="#9", reason="not his turn"),  # 10
        Hit(target="grim", damage=1, attacker="snik", rolls={"injury": [1]}),  # 11
        Retract(event="#6", reason="out of reach"),  # 12
        Retract(event="#10", reason="it was"),  # 13
        TurnEnded(round=1, side="skaven"),  # 14
    ]
    return log


def test_a_nested_undo_refolds_its_past_from_the_reach_of_the_later_one(tmp_path: Path) -> None:
    path = as_file(nested(), tmp_path / "nested.jsonl")
    assert_as_apart(path)
    read: list[tuple[int, int | None]] = []
    events = Fight.events

    def recorded(self: Fight, from_seq: int = 1, to_seq: int | None = None) -> Iterator[object]:
        read.append((from_seq, to_seq))
        return events(self, from_seq, to_seq)

    with file_fight(path) as opened, mock.patch.object(Fight, "events", recorded):
        list(opened.steps_and_history())
    # the walk itself, then #10's past from #6 (what #12 reaches) and #12's from #9 (what
    # #13 reaches, through #10), each from the fight as it stands before it; #13's past is
    # the fight as it stands (nothing later reaches back)
    assert read == [(1, 14), (6, 9), (9, 11)]

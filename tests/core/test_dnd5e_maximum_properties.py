"""dnd5e over generated fights whose maxima change (`stat_changed` of `hp` at any point: Aid,
Life Drain, a maximum reduced to 0): hit points stay between 0 and the maximum now, a maximum
of 0 is death, the fold stays in the Machine, retracting a change is as if it never happened,
and an undo moves no other event's die."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.core import FightState
from woundlog.events import Event, Retract, StatChanged
from woundlog.replays import replay

from ..invariants import moves_stay_in_the_machine, replays_every_event, undo_moves_no_other_die
from .test_dnd5e_properties import CAST, dnd5e_fights

FIRST = 2 + len(CAST)
"""Position of the first event after the joins (1-based)."""


@st.composite
def changing_fights(draw: st.DrawFn) -> list[Event]:
    """A generated dnd5e fight with one to four maxima changed among its events."""
    log = draw(dnd5e_fights())
    for _ in range(draw(st.integers(1, 4))):
        change = StatChanged(
            character=draw(st.sampled_from(list(CAST))),
            stat="hp",
            value=draw(st.sampled_from([0, 1, 3, 7, 13, 25]) | st.integers(0, 30)),
            reason="effect",
        )
        log.insert(draw(st.integers(FIRST - 1, len(log))), change)
    return log


def maxima_hold(state: FightState[Any]) -> None:
    for creature in state.characters.values():
        assert 0 <= creature.hp <= creature.max_hp and creature.temp_hp >= 0
        if creature.max_hp == 0:
            assert creature.state == "dead"
        if creature.state == "upright":
            assert creature.hp >= 1


@settings(max_examples=150, deadline=None)
@given(changing_fights())
def test_hit_points_stay_within_the_maximum_now_and_a_maximum_of_0_is_death(
    log: list[Event],
) -> None:
    for state, changes in replays_every_event(log):
        maxima_hold(state)
        assert changes.void is None or changes.type != "stat_changed"  # never refused here
    moves_stay_in_the_machine("dnd5e", log)


@settings(max_examples=80, deadline=None)
@given(changing_fights(), st.data())
def test_retracting_a_change_of_maximum_is_as_if_it_never_happened(
    log: list[Event], data: st.DataObject
) -> None:
    # each event named: its dice are keyed by its id, not by a position the removal shifts
    log = [msgspec.structs.replace(e, id=f"e{n}") for n, e in enumerate(log, 1)]
    changes = [n for n, e in enumerate(log, 1) if isinstance(e, StatChanged)]
    undone = data.draw(st.sampled_from(changes), label="undone")
    *_, (retracted, _) = replay([*log, Retract(event=f"#{undone}")])
    *_, (without, _) = replay([e for n, e in enumerate(log, 1) if n != undone])
    assert retracted.characters == without.characters


@settings(max_examples=40, deadline=None)
@given(changing_fights(), st.data())
def test_retracting_any_event_moves_no_die_of_any_other_event(
    log: list[Event], data: st.DataObject
) -> None:
    undone = data.draw(st.integers(FIRST, len(log)), label="undone")
    undo_moves_no_other_die(log, Retract(event=f"#{undone}"), f"#{undone}")

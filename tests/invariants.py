"""Invariants every ruleset's random-stream properties check the same way."""

from __future__ import annotations

from typing import Any

from woundlog.core import Changes, FightState, get_ruleset
from woundlog.events import Event
from woundlog.replays import replay


def replays_every_event(log: list[Event]) -> list[tuple[FightState[Any], Changes]]:
    """Replay never crashes: each event gets its changes, in its own place (void at worst)."""
    steps = list(replay(log))
    assert [c.seq for _, c in steps] == list(range(1, len(log) + 1))
    return steps


def moves_stay_in_the_machine(ruleset: str, log: list[Event]) -> None:
    """No fold makes a state move the ruleset's transitions Machine does not declare."""
    graph = get_ruleset(ruleset).graph
    for _, changes in replay(log):
        for change in changes.characters:
            assert change.after in graph.states
            if change.before is not None:
                assert graph.allows(change.before, change.after)

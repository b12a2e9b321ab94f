"""A side's tick in a fold hands its ruleset the side's own map, read only (issue 42: no copy of
the side a tick; the fold writes what the tick updated after the handler returns), less those
whose turn an earlier scope of the round has already started or ended."""

from __future__ import annotations

from typing import Any

import pytest

from woundlog.core.reducer import Fold
from woundlog.core.ruleset import Context
from woundlog.core.turns import pulse
from woundlog.events import CharacterJoined, FightStarted, TurnStarted


def folded() -> Any:
    fold = Fold()
    fold.add(FightStarted(ruleset="mordheim", version=3))
    for cid, side in (("a1", "a"), ("b1", "b"), ("a2", "a"), ("a3", "a")):
        fold.add(CharacterJoined(character=cid, side=side, stats={"wounds": 1}))
    return fold


def scope_of(fold: Any, *ticks: TurnStarted) -> Any:
    """`Ruleset.turns` of the last tick, on the fold's own map, after the ticks before it."""
    steps = fold._steps
    state = steps.state
    rounds = state.rounds
    for tick in ticks:
        said, rounds = pulse(rounds, tick, state.version)
    ctx = Context("t", lambda: None, steps.rules.graph, state.options)  # type: ignore[arg-type]
    ctx.pulse = said
    return steps.rules.turns(state, "turn_started", ticks[-1], ctx)


def test_a_sides_tick_is_handed_the_side_read_only_in_join_order() -> None:
    fold = folded()
    scope = scope_of(fold, TurnStarted(round=1, side="a"))
    assert list(scope) == ["a1", "a2", "a3"]
    assert dict(scope) == {cid: fold.state.characters[cid] for cid in ("a1", "a2", "a3")}
    with pytest.raises(TypeError):
        scope["a1"] = scope["a2"]  # the fold's own map: no handler writes into it


def test_a_side_whose_turn_has_started_is_handed_nobody() -> None:
    fold = folded()
    assert scope_of(fold, TurnStarted(round=1, side="a"), TurnStarted(round=1, side="a")) == {}


def test_those_whose_own_turn_has_started_are_left_out() -> None:
    fold = folded()
    ticks = (TurnStarted(round=1, character="a2"), TurnStarted(round=1, side="a"))
    assert list(scope_of(fold, *ticks)) == ["a1", "a3"]

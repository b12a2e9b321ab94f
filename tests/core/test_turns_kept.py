"""A side's tick grows the round's scopes from a memo (issue 42: every round's ticks grow the
same scopes in the same order, so a fight makes each once): the same scopes as ever, the very
same object each round, and the memo bounded however many sides a log names."""

from __future__ import annotations

from woundlog.core import turns
from woundlog.core.turns import Rounds, Scopes, pulse
from woundlog.events import TurnEnded, TurnStarted


def a_round(rounds: Rounds, number: int, sides: list[str]) -> list[Rounds]:
    """Where the rounds stand after each tick of a round ticked side by side."""
    after = []
    for side in sides:
        for tick in (TurnStarted, TurnEnded):
            _, rounds = pulse(rounds, tick(round=number, side=side), 3)
            after.append(rounds)
    return after


def test_each_round_grows_the_same_scopes_as_the_same_objects() -> None:
    sides = ["reavers", "beasts", "sisters"]
    first = a_round(Rounds(), 1, sides)
    second = a_round(first[-1], 2, sides)
    assert first[-1].started == Scopes(sides=tuple(sides)) == first[-1].ended
    for one, two in zip(first, second, strict=True):
        assert (one.started, one.ended) == (two.started, two.ended)
        assert one.started is two.started and one.ended is two.ended  # made once, kept


def test_a_side_already_ticked_grows_nothing() -> None:
    _, rounds = pulse(Rounds(), TurnStarted(round=1, side="a"), 3)
    said, again = pulse(rounds, TurnStarted(round=1, side="a"), 3)
    assert said.done is rounds.started and again.started is rounds.started


def test_the_memo_is_bounded_however_many_sides_a_log_names() -> None:
    rounds = Rounds()
    for n in range(turns._GROWN_KEPT + 10):
        _, rounds = pulse(rounds, TurnStarted(round=n + 1, side=f"side-{n}"), 3)
        assert rounds.started == Scopes(sides=(f"side-{n}",))
        assert turns._with_side.cache_info().currsize <= turns._GROWN_KEPT

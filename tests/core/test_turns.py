"""The one pulse per round (DESIGN.md section 3), tick by tick, with literals from its words:
"each character's turn starts and ends at most once a round, whichever scope (round, side,
character) says so first, using the `round` field when the log has one; a round's end is
recognised from the `round` field moving on when the log never ticks the round itself"; "a tick
with no `round` begins the next round when the last was ended as a whole or when its scope has
ticked already this round"; from version 3 on a whole round's `turn_started` starts every turn,
before it is the round's start alone. Found missing by the mutation run (tests/mutation/results,
seed 27): nothing but property tests read `core/turns.py`."""

from __future__ import annotations

from woundlog.core.turns import Pulse, Rounds, Scopes, pulse, starts_the_round_only
from woundlog.events import TurnEnded, TurnStarted


def ticked(*turns: TurnStarted | TurnEnded, version: int = 3) -> tuple[list[Pulse], Rounds]:
    """Each tick's Pulse from a fight's first tick on, and where the rounds stand after them."""
    rounds, pulses = Rounds(), []
    for turn in turns:
        said, rounds = pulse(rounds, turn, version)
        pulses.append(said)
    return pulses, rounds


def test_the_first_tick_with_no_round_is_round_1_and_ends_no_round_before_it() -> None:
    [first], _ = ticked(TurnStarted(side="party"))
    assert (first.round, first.round_ended_before, first.round_ends) == (1, False, False)


def test_the_first_tick_with_a_round_is_in_it_and_ends_no_round_before_it() -> None:
    [first], _ = ticked(TurnEnded(side="party", round=4))
    assert (first.round, first.round_ended_before) == (4, False)


def test_a_second_side_in_the_same_round_is_no_round_end() -> None:
    pulses, rounds = ticked(TurnEnded(side="party", round=1), TurnEnded(side="foes", round=1))
    assert [(p.round, p.round_ended_before, p.round_ends) for p in pulses] == [
        (1, False, False),
        (1, False, False),
    ]
    assert rounds.ended == Scopes(sides=("party", "foes"))


def test_the_round_moving_on_ends_the_round_never_ticked_as_a_whole() -> None:
    pulses, _ = ticked(TurnEnded(side="party", round=1), TurnStarted(side="party", round=2))
    assert [(p.round, p.round_ended_before) for p in pulses] == [(1, False), (2, True)]


def test_a_round_ended_as_a_whole_is_not_ended_again_when_the_round_moves_on() -> None:
    pulses, _ = ticked(TurnEnded(round=1), TurnStarted(side="party", round=2))
    assert [(p.round_ends, p.round_ended_before) for p in pulses] == [(True, False), (False, False)]


def test_with_no_round_a_scope_ticking_again_begins_the_next_round() -> None:
    starts, _ = ticked(TurnStarted(side="a"), TurnStarted(side="b"), TurnStarted(side="a"))
    assert [p.round for p in starts] == [1, 1, 2]
    ends, _ = ticked(TurnEnded(side="a"), TurnEnded(side="b"), TurnEnded(side="a"))
    assert [p.round for p in ends] == [1, 1, 2]


def test_with_no_round_a_turn_ending_after_it_started_is_the_same_round() -> None:
    pulses, _ = ticked(TurnStarted(side="a"), TurnEnded(side="a"), TurnStarted(side="a"))
    assert [p.round for p in pulses] == [1, 1, 2]  # the start again: "already ended" in round 1


def test_with_no_round_the_tick_after_a_whole_rounds_end_is_the_next_round() -> None:
    pulses, _ = ticked(TurnEnded(side="a"), TurnEnded(), TurnStarted(side="b"))
    assert [p.round for p in pulses] == [1, 1, 2]


def test_only_a_whole_rounds_turn_ended_ends_the_round() -> None:
    pulses, _ = ticked(TurnStarted(side="a"), TurnEnded(side="a"), TurnStarted(), TurnEnded())
    assert [p.round_ends for p in pulses] == [False, False, False, True]


def test_a_turn_started_is_counted_among_the_started_and_a_turn_ended_among_the_ended() -> None:
    _, rounds = ticked(TurnStarted(side="a"), TurnEnded(character="x"), version=1)
    assert (rounds.started, rounds.ended) == (Scopes(sides=("a",)), Scopes(characters=("x",)))


def test_a_tick_hands_on_whom_this_round_had_already_ticked() -> None:
    pulses, _ = ticked(TurnStarted(side="a"), TurnStarted(character="x"), TurnEnded(side="a"))
    assert [p.done for p in pulses] == [Scopes(), Scopes(sides=("a",)), Scopes()]


def test_a_whole_rounds_start_starts_every_turn_from_version_3_on_only() -> None:
    for version, everyone in [(1, False), (2, False), (3, True), (4, True)]:
        pulses, rounds = ticked(TurnStarted(), version=version)
        assert pulses[0].everyone is everyone, version
        assert rounds.started.everyone is everyone, version
        assert starts_the_round_only(TurnStarted(), pulses[0]) is not everyone, version


def test_a_whole_rounds_end_ends_every_turn_in_every_version() -> None:
    for version in (1, 2, 3):
        pulses, rounds = ticked(TurnEnded(), version=version)
        assert pulses[0].everyone and rounds.ended.everyone and rounds.closed, version


def test_a_whole_rounds_start_with_no_pulse_is_the_rounds_start_alone() -> None:
    assert starts_the_round_only(TurnStarted(), None)
    assert not starts_the_round_only(TurnStarted(side="a"), None)
    assert not starts_the_round_only(TurnEnded(), None)


def test_a_scope_covers_a_turn_by_the_whole_round_its_side_or_its_character() -> None:
    assert Scopes(everyone=True).covers("x", "a")
    assert Scopes(sides=("a",)).covers("x", "a")
    assert Scopes(characters=("x",)).covers("x", "a")
    assert not Scopes(sides=("b",), characters=("y",)).covers("x", "a")

"""What `woundlog odds` answers (replays/whatif.py), checked by hand: the order it lists
outcomes in, where a refused step sits, and the Wilson interval of an estimate."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from woundlog.core import FightState
from woundlog.core.reducer import advance
from woundlog.events import CharacterJoined, FightStarted, Hit
from woundlog.replays.whatif import odds, wilson


def mordheim() -> FightState[Any]:
    state: FightState[Any] | None = None
    for event in (
        FightStarted(ruleset="mordheim", seed=3, version=3),
        CharacterJoined(character="grim", side="reavers"),
        CharacterJoined(character="snik", side="skaven"),
    ):
        state = advance(state, event)
    assert state is not None
    return state


def test_states_and_outcomes_are_listed_likeliest_first() -> None:
    # Two wounds past his one: two injury rolls, the worse stands. Out of action if either die
    # is 5-6: 1 - (4/6)^2 = 5/9; knocked down only if both are 1-2: 1/9; stunned the rest, 1/3.
    answer = odds(mordheim(), [Hit(target="grim", damage=2)], characters=["grim"])
    grim = answer.characters["grim"]
    assert [(s.state, s.chance) for s in grim.states] == [
        ("out_of_action", "5/9"),
        ("stunned", "1/3"),
        ("knocked_down", "1/9"),
    ]
    assert [o.chance for o in grim.outcomes] == ["5/9", "1/3", "1/9"]


def test_a_refused_step_is_named_by_its_one_based_position() -> None:
    # Grim's one wound leaves him knocked down, stunned or out of action: none of them may
    # attack, so the what-if's second event is refused on every path.
    whatif = [Hit(target="grim", damage=1), Hit(target="snik", damage=1, attacker="grim")]
    answer = odds(mordheim(), whatif)
    assert [(v.event, v.reason, v.chance) for v in answer.void] == [
        (2, "grim is knocked down and may not fight, shoot or cast spells", "1/3"),
        (2, "grim is out of action", "1/3"),
        (2, "grim is stunned and may do nothing at all", "1/3"),
    ]


def test_the_wilson_interval_worked_by_hand() -> None:
    # z = 1.96, n = 100: z^2/n = 0.038416. For p = 1/2: centre (0.5 + 0.019208) / 1.038416 = 0.5,
    # half 1.96 * sqrt(0.0025 + 0.00009604) / 1.038416 = 0.0961700
    low, high = wilson(Fraction(1, 2), 100)
    assert low == pytest.approx(0.403830, abs=1e-6)
    assert high == pytest.approx(0.596170, abs=1e-6)
    # p = 1/10: centre 0.119208 / 1.038416 = 0.1147980; half 1.96 * sqrt(0.0009 + 0.00009604)
    # = 1.96 * 0.0315601 = 0.0618578, / 1.038416 = 0.0595694
    low, high = wilson(Fraction(1, 10), 100)
    assert low == pytest.approx(0.0552286, abs=1e-6)
    assert high == pytest.approx(0.1743674, abs=1e-6)


def test_a_share_never_sampled_still_has_room_above_zero() -> None:
    """0 of 100 is not "between 0.0% and 0.0%": the correction term leaves 0 to 3.7%."""
    low, high = wilson(Fraction(0), 100)
    # centre 0.019208 / 1.038416 = 0.0184974, half 1.96 * sqrt(0.00009604) / 1.038416 = the same
    assert low == pytest.approx(0.0, abs=1e-9)
    assert high == pytest.approx(0.0369948, abs=1e-6)
    low, high = wilson(Fraction(1), 100)
    assert (low, high) == (pytest.approx(1 - 0.0369948, abs=1e-6), pytest.approx(1.0))

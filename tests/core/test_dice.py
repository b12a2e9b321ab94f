"""Dice per DESIGN.md section 4."""

from __future__ import annotations

import pytest

from woundlog.core import Dice, draw
from woundlog.events import RuleError, StructuralError


def test_drawn_die_depends_only_on_seed_event_purpose_and_index() -> None:
    assert draw(7, "h1", "injury", 0, 6) == draw(7, "h1", "injury", 0, 6)
    faces = {draw(7, "h1", "injury", i, 6) for i in range(200)}
    assert faces == set(range(1, 7))


def test_drawn_dice_are_pinned_so_every_machine_draws_the_same() -> None:
    # blake2b over "seed, event id, purpose, index, attempt": these values must never change,
    # or every stored fight would replay differently
    assert [draw(1, "#2", "injury", i, 6) for i in range(6)] == [6, 2, 5, 5, 3, 1]
    assert draw(0, "h1", "wound", 0, 100) == draw(0, "h1", "wound", 0, 100)


def test_drawn_d6_is_uniform_within_sampling_error() -> None:
    counts = [0] * 6
    n = 60_000
    for i in range(n):
        counts[draw(3, f"#{i}", "injury", 0, 6) - 1] += 1
    for c in counts:
        assert abs(c - n / 6) < 5 * (n * (1 / 6) * (5 / 6)) ** 0.5  # five standard deviations


def test_given_rolls_are_taken_in_order_before_any_is_drawn() -> None:
    dice = Dice(0, "h1", {"injury": [2, 5]}, {"injury": 6})
    assert [dice.roll("injury") for _ in range(3)][:2] == [2, 5]
    assert [d.source for d in dice.used] == ["given", "given", "drawn"]
    assert dice.used[2].value == draw(0, "h1", "injury", 2, 6)


def test_given_die_out_of_range_is_refused_naming_the_roll() -> None:
    with pytest.raises(StructuralError) as err:
        Dice(0, "h1", {"injury": [3, 7]}, {"injury": 6})
    assert err.value.field == "$.rolls.injury[1]"
    assert "not 7" in err.value.message


def test_strict_dice_makes_a_missing_die_an_error() -> None:
    dice = Dice(0, "h1", {}, {"injury": 6}, strict=True)
    with pytest.raises(RuleError, match="strict_dice"):
        dice.roll("injury")


def test_dice_for_unknown_purposes_are_kept_as_unused() -> None:
    dice = Dice(0, "h1", {"location": [9], "injury": [1, 2]}, {"injury": 6})
    dice.roll("injury")
    assert dice.unused() == {"location": [9], "injury": [2]}

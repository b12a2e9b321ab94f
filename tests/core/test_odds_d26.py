"""d26's odds of holding on to life, worked out by hand from the rule text
(/work/shared/seeds/001_10d5b8d8fcf1d21f.txt) and the decisions in core/rulesets/d26.py's
docstring, then checked exactly against the enumeration.

What the text says, and what it means for the dice:
- "If an attack brings a character to 0 HP, any remaining damage after reaching 0 is used to check
  for an Injury": 0-2 no effect, 3-5 Severe, 6+ Fatal. "When a character suffers an Injury, roll
  1d4 to determine the location" (1 arm, 2 leg, 3 internal, 4 head).
- "If a character would suffer another Severe Injury to the same location, it escalates to a Fatal
  Injury."
- Hold on to Life: "At the end of each of their turns, roll 1d6: On a 1: They fall into agony and
  will die at the end of the next round unless stabilized. On a 6: They stabilize on their own".
  The 2-5 faces change nothing. Decisions (docstring): the die is rolled at the character's own
  turn end only, not at a round end; the 1 gives agony, and death comes at the second round end
  after it (the end of the round of the 1, then the end of the next round); the die keeps being
  rolled in agony, a 6 still stabilises, a further 1 changes nothing.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from woundlog.core import FightState
from woundlog.core.odds import exact, per_character, states_of
from woundlog.core.reducer import advance
from woundlog.events import CharacterJoined, Choice, Event, FightStarted, Hit, TurnEnded

State = FightState[Any]

SIXTH = Fraction(1, 6)


def fight(*events: Event) -> State:
    """Mira (a pc, 10 HP) and Kael, who fights on, then `events`."""
    state: State | None = None
    for event in (
        FightStarted(ruleset="d26", seed=5, version=2),
        CharacterJoined(character="mira", name="Mira", side="party", stats={"hp": 10}),
        CharacterJoined(character="kael", name="Kael", side="party", stats={"hp": 10}),
        *events,
    ):
        state = advance(state, event)
    assert state is not None
    return state


def mira_after(state: State, whatif: list[Event]) -> dict[str, Fraction]:
    return states_of(per_character(exact(state, whatif), ["mira"])["mira"])


# 16 damage on 10 HP: 6 left over after reaching 0, 6+ is a Fatal Injury; its location die is
# not given, so all four locations are enumerated (they change who can stabilise her, not the
# hold_on die). She chooses Hold on to Life.
HOLDING_ON = fight(
    Hit(target="mira", damage=16, attacker="kael"), Choice(character="mira", option="hold_on")
)


def rounds(n: int) -> list[Event]:
    """n rounds: Mira's own turn ends (her hold_on die), then the round ends (agony counts)."""
    one: list[Event] = [TurnEnded(character="mira"), TurnEnded()]
    return one * n


def test_d26_one_round_of_holding_on_is_a_sixth_each_way() -> None:
    # Her turn end: 1 agony (still downed, 2 round ends left; this round's end takes one),
    # 6 stabilised, 2-5 holds on. Nobody dies in the round of the 1.
    assert mira_after(HOLDING_ON, rounds(1)) == {
        "downed": 5 * SIXTH,  # 4/6 holding on + 1/6 in agony
        "stabilised": SIXTH,
    }


def test_d26_agony_kills_at_the_end_of_the_next_round_unless_a_six_comes_first() -> None:
    # After round 1: holding on H = 4/6, in agony A = 1/6 (one round end left), stabilised 1/6.
    # Round 2: from H, again 1/6 agony, 1/6 stabilised, 4/6 holds; from A her die still rolls:
    # a 6 (1/6) stabilises her, anything else (5/6, a further 1 included) and the round's end
    # kills her.
    #   stabilised = 1/6 + 4/6 x 1/6 + 1/6 x 1/6 = 11/36
    #   dead       = 1/6 x 5/6                   =  5/36
    #   downed     = 4/6 x 4/6 + 4/6 x 1/6       = 20/36 (16/36 holding on, 4/36 in agony)
    assert mira_after(HOLDING_ON, rounds(2)) == {
        "downed": Fraction(20, 36),
        "stabilised": Fraction(11, 36),
        "dead": Fraction(5, 36),
    }


def test_d26_how_likely_mira_is_alive_after_three_rounds_holding_on() -> None:
    # Round 3, from H = 16/36 and A = 4/36:
    #   stabilised = 11/36 + 16/36 x 1/6 + 4/36 x 1/6 = 66/216 + 16/216 + 4/216 = 86/216
    #   dead       =  5/36 + 4/36 x 5/6               = 30/216 + 20/216       = 50/216
    #   downed     = 16/36 x 4/6 + 16/36 x 1/6        = 64/216 + 16/216       = 80/216
    # alive: 1 - 50/216 = 166/216 = 83/108
    found = mira_after(HOLDING_ON, rounds(3))
    assert found == {
        "stabilised": Fraction(86, 216),
        "downed": Fraction(80, 216),
        "dead": Fraction(50, 216),
    }
    assert 1 - found["dead"] == Fraction(83, 108)


def test_d26_round_ends_alone_roll_no_hold_on_die_so_nothing_changes() -> None:
    # "At the end of each of their turns": a round end is not her turn end (docstring), so a
    # log that ticks only rounds leaves her holding on, with certainty.
    assert mira_after(HOLDING_ON, [TurnEnded(), TurnEnded(), TurnEnded()]) == {
        "downed": Fraction(1)
    }


def test_d26_her_sides_turn_end_is_her_own_turn_end() -> None:
    # A side's turn end ends the turn of each member (docstring): one die, as in round 1.
    assert mira_after(HOLDING_ON, [TurnEnded(side="party"), TurnEnded()]) == {
        "downed": 5 * SIXTH,
        "stabilised": SIXTH,
    }


def test_d26_a_turn_end_before_the_choice_holds_on_and_rolls_at_once() -> None:
    # The choice lapses at a turn end into Hold on to Life; her own turn end then rolls at once.
    downed = fight(Hit(target="mira", damage=16, attacker="kael"))
    assert mira_after(downed, [TurnEnded(character="mira")]) == {
        "downed": 5 * SIXTH,
        "stabilised": SIXTH,
    }


def test_d26_a_severe_hit_at_zero_hp_escalates_on_a_quarter_of_the_location_dice() -> None:
    # Mira is at 0 HP with a Severe arm injury (10 damage, then 4 at 0 HP: 3-5 Severe, location
    # given as 1, the arm). Another 4 at 0 HP is Severe again; its 1d4 falls on the arm 1/4 of the
    # time: a second Severe Injury there escalates to Fatal (downed); 3/4 it is Severe elsewhere
    # and she fights on.
    hurt = fight(
        Hit(target="mira", damage=10),
        Hit(target="mira", damage=4, rolls={"location": [1]}),
    )
    assert mira_after(hurt, [Hit(target="mira", damage=4)]) == {
        "upright": Fraction(3, 4),
        "downed": Fraction(1, 4),
    }

"""DragonQuest's odds of recovering from stun, worked out by hand from the rule text
(/work/shared/seeds/003_df1b34a4907b8418.txt) and the decisions in core/rulesets/dragonquest.py's
docstring, then checked exactly against the enumeration.

What the text says, and what it means for the dice:
- "Whenever a figure suffers effective damage greater than one third his original fatigue from a
  single strike, he becomes Stunned." Damage affecting Fatigue is absorbed by armour first.
- "To recover from being Stunned, a figure must roll less than or equal to 2 x his Willpower plus
  his current Fatigue. Current Fatigue is the figure's Fatigue total at the instant the roll is
  made. Every Pulse after becoming stunned, the figure may attempt to recover". The roll is a
  D100 (docstring: `stun_recovery`, 1 to 100), so the chance of one attempt is
  min(2 x WP + Fatigue, 100) / 100.
- Decisions (docstring): a pulse ends with a `turn_ended` (here the whole round's); the first
  pulse end after the stun ends the pulse he was stunned in and brings no attempt; each later one
  brings one; recovering stands him upright. The drop check when he becomes stunned is reported,
  not tracked, so it changes no outcome.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from woundlog.core import FightState
from woundlog.core.odds import exact, per_character, states_of
from woundlog.core.reducer import advance
from woundlog.events import CharacterJoined, Event, FightStarted, Hit, TurnEnded

State = FightState[Any]

PULSE_END = TurnEnded()


def fight(*events: Event, **stats: int) -> State:
    """Rolf (Fatigue 20, Endurance 15, Willpower 10, leather: Protection 4) and `events`."""
    rolf = {"fatigue": 20, "endurance": 15, "willpower": 10, "protection": 4} | stats
    state: State | None = None
    for event in (
        FightStarted(ruleset="dragonquest", seed=7, version=2),
        CharacterJoined(character="rolf", name="Rolf", side="pcs", stats=rolf),
        CharacterJoined(character="orc", name="Orc", side="orcs", stats=rolf),
        *events,
    ):
        state = advance(state, event)
    assert state is not None
    return state


def rolf_after(state: State, whatif: list[Event]) -> dict[str, Fraction]:
    return states_of(per_character(exact(state, whatif), ["rolf"])["rolf"])


# A Fatigue hit of 11: leather absorbs 4, 7 comes off Fatigue (20 -> 13). 7 is more than a third
# of his original 20 Fatigue (3 x 7 = 21 > 20): stunned. Recovery: 2 x 10 + 13 = 33 on a D100.
STUNNING_BLOW = Hit(target="rolf", damage=11, band="fatigue", attacker="orc")


def test_dragonquest_the_hit_stuns_with_certainty() -> None:
    assert rolf_after(fight(), [STUNNING_BLOW]) == {"stunned": Fraction(1)}


def test_dragonquest_no_attempt_in_the_pulse_he_was_stunned_in() -> None:
    assert rolf_after(fight(), [STUNNING_BLOW, PULSE_END]) == {"stunned": Fraction(1)}


def test_dragonquest_the_first_attempt_is_33_in_100() -> None:
    assert rolf_after(fight(), [STUNNING_BLOW, PULSE_END, PULSE_END]) == {
        "stunned": Fraction(67, 100),
        "upright": Fraction(33, 100),
    }


def test_dragonquest_each_pulse_after_is_another_attempt() -> None:
    # Two attempts: still stunned only if both fail, (67/100)^2 = 4489/10000.
    assert rolf_after(fight(), [STUNNING_BLOW, PULSE_END, PULSE_END, PULSE_END]) == {
        "stunned": Fraction(4489, 10000),
        "upright": 1 - Fraction(4489, 10000),
    }


def test_dragonquest_the_chance_reads_his_fatigue_at_the_instant_of_the_roll() -> None:
    # Between his pulses he takes a Fatigue hit of 7: 4 absorbed, 3 off Fatigue (13 -> 10), not
    # a stun (9 is not more than 20). The attempt then needs 2 x 10 + 10 = 30 or less.
    whatif: list[Event] = [
        STUNNING_BLOW,
        PULSE_END,
        Hit(target="rolf", damage=7, band="fatigue"),
        PULSE_END,
    ]
    assert rolf_after(fight(), whatif) == {
        "stunned": Fraction(70, 100),
        "upright": Fraction(30, 100),
    }


def test_dragonquest_the_drop_check_on_being_stunned_changes_no_outcome() -> None:
    # With Manual Dexterity the drop check is rolled (a D100) when he becomes stunned; held items
    # are not tracked, so its 100 faces merge into the same outcomes.
    assert rolf_after(fight(manual_dexterity=10), [STUNNING_BLOW, PULSE_END, PULSE_END]) == {
        "stunned": Fraction(67, 100),
        "upright": Fraction(33, 100),
    }


def test_dragonquest_a_target_of_100_or_more_always_recovers() -> None:
    # Willpower 45: 2 x 45 + 13 = 103, every face of the D100 is at most that.
    assert rolf_after(fight(willpower=45), [STUNNING_BLOW, PULSE_END, PULSE_END]) == {
        "upright": Fraction(1)
    }


# --- one pulse per round, whatever scopes the what-if ticks (issue 27, section 1) -------------
# `woundlog odds --ticks N` writes each round as the round's start, each side's turn start and
# end, and the round's end. Rolf's pulse ends once a round: at his side's turn end, whichever
# scope says so first; the round's end after it is no second pulse end for him. Willpower 6 after
# the stunning blow (Fatigue 13): 2 x 6 + 13 = 25 on a D100, one chance in four a pulse.


def test_dragonquest_ticks_by_side_and_round_bring_one_attempt_a_round() -> None:
    from woundlog.replays.whatif import rounds

    stunned = fight(STUNNING_BLOW, PULSE_END, willpower=6)  # the pulse of the stun is over
    assert rolf_after(stunned, rounds(stunned, 1)) == {
        "stunned": Fraction(3, 4),
        "upright": Fraction(1, 4),
    }
    assert rolf_after(stunned, rounds(stunned, 2)) == {
        "stunned": Fraction(9, 16),
        "upright": Fraction(7, 16),
    }

"""dnd5e over generated fights (issue 27: the ruleset had no generated-fight invariants, as the
others have): at every step of a fight of hits, heals, temporary hit points, stabilising and
turns ticked in every scope, the rules of SRD 5.1's "Dropping to 0 Hit Points" hold, the fold
stays in the Machine, and an undo moves no other event's die.

The invariants, from the text ("Dropping to 0 Hit Points", "Death Saving Throws",
"Stabilizing a Creature", "Monsters and Death", "Temporary Hit Points"):
- hit points are never below 0 nor above the maximum; temporary hit points never below 0;
- upright means at least 1 hit point, and no death saves counted ("The number of both is reset
  to zero when you regain any hit points or become stable");
- unconscious (downed, dying; stabilised, stable) means 0 hit points; a stable creature has no
  death saves counted, a dying one fewer than three of each;
- the dead stay dead (no `revival` here), and a monster never lies dying ("Most DMs have a
  monster die instantly when it drops to 0 hit points")."""

from __future__ import annotations

from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from woundlog.core import FightState
from woundlog.events import (
    CharacterJoined,
    Event,
    FightStarted,
    Heal,
    Hit,
    Retract,
    TurnEnded,
    TurnStarted,
)

from ..invariants import moves_stay_in_the_machine, replays_every_event, undo_moves_no_other_die

CAST = {"mira": ("pc", "party"), "bram": ("pc", "party"), "gob": ("monster", "goblins")}
"""Two player characters (8 and 12 hit points) and a goblin (7)."""
HP = {"mira": 8, "bram": 12, "gob": 7}


@st.composite
def dnd5e_fights(draw: st.DrawFn) -> list[Event]:
    log: list[Event] = [FightStarted(ruleset="dnd5e", seed=draw(st.integers(0, 2**32)), version=3)]
    log += [
        CharacterJoined(character=cid, side=side, kind=kind, stats={"hp": HP[cid]})
        for cid, (kind, side) in CAST.items()
    ]
    round_ = 1
    for _ in range(draw(st.integers(1, 30))):
        target = draw(st.sampled_from(list(CAST)))
        kind = draw(st.integers(0, 99))
        if kind < 40:
            critical = draw(st.booleans()) or None
            log.append(Hit(target=target, damage=draw(st.integers(0, 26)), critical=critical))
        elif kind < 50:
            log.append(Heal(target=target, amount=draw(st.integers(0, 10)), means="potion"))
        elif kind < 55:
            log.append(Heal(target=target, amount=draw(st.integers(0, 8)), means="temporary"))
        elif kind < 62:
            check = draw(st.integers(1, 20))
            log.append(Heal(target=target, amount=0, means="medicine", check=check))
        elif kind < 65:
            log.append(Heal(target=target, amount=1, means="rest"))
        else:
            scope = draw(st.sampled_from(["round", "side", "character"]))
            where = {"character": target} if scope == "character" else {}
            if scope == "side":
                where = {"side": CAST[target][1]}
            round_ += draw(st.integers(0, 1))
            tick = draw(st.sampled_from([TurnStarted, TurnEnded]))
            log.append(tick(round=round_, **where))
    return log


def rules_hold(state: FightState[Any]) -> None:
    for cid, creature in state.characters.items():
        assert 0 <= creature.hp <= HP[cid] and creature.temp_hp >= 0
        if creature.state == "upright":
            assert creature.hp >= 1
            assert (creature.successes, creature.failures) == (0, 0)
        elif creature.state in ("downed", "stabilised"):
            assert creature.hp == 0
            assert CAST[cid][0] == "pc"  # a monster dies at 0
            if creature.state == "stabilised":
                assert (creature.successes, creature.failures) == (0, 0)
            else:
                assert creature.successes < 3 and creature.failures < 3


@settings(max_examples=150, deadline=None)
@given(dnd5e_fights())
def test_every_step_of_a_generated_dnd5e_fight_keeps_the_rules_invariants(log: list[Event]) -> None:
    dead: dict[str, Any] = {}
    for state, _ in replays_every_event(log):
        rules_hold(state)
        for cid, creature in state.characters.items():
            if cid in dead:
                assert creature == dead[cid]  # no revival: nothing changes the dead
            elif creature.state == "dead":
                dead[cid] = creature
    moves_stay_in_the_machine("dnd5e", log)


@settings(max_examples=40, deadline=None)
@given(dnd5e_fights(), st.data())
def test_retracting_any_event_moves_no_die_of_any_other_event(
    log: list[Event], data: st.DataObject
) -> None:
    # every log has at least one event after the joins
    undone = data.draw(st.integers(2 + len(CAST), len(log)), label="undone")
    undo_moves_no_other_die(log, Retract(event=f"#{undone}"), f"#{undone}")


def test_generated_fights_reach_every_state_of_dnd5e() -> None:
    reached: set[str] = set()

    # derandomized, as the other rulesets' coverage checks are: a set of fights drawn afresh
    # each run can miss a state by chance (one in a few runs missed `stabilised`)
    @settings(
        max_examples=150, derandomize=True, database=None, deadline=None,
        phases=[Phase.generate],
    )  # fmt: skip
    @given(dnd5e_fights())
    def collect(log: list[Event]) -> None:
        for state, _ in replays_every_event(log):
            reached.update(c.state for c in state.characters.values())

    collect()
    assert reached == {"upright", "downed", "stabilised", "dead"}

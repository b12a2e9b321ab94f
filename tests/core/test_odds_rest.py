"""Odds that stop ticking a path once no tick can change it (issue 28): the answers, exact
fractions in the same order with the same voids, are those of walking every path through every
event, as `exact` did before; and a path at rest is ticked no more (fewer reducer steps).

The walk here is the definition of the odds, written plainly over `branches`: every state one
event can lead to, merged by state, event after event."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.core import FightState
from woundlog.core.odds import Budget, Voids, branches, exact
from woundlog.core.reducer import advance
from woundlog.events import CharacterJoined, Event, FightStarted, Hit, TurnEnded, TurnStarted
from woundlog.replays.whatif import rounds

State = FightState[Any]
Outcomes = list[tuple[State, Fraction]]


def walked(state: State, whatif: list[Event], budget: Budget) -> tuple[Outcomes, Voids]:
    """Every path through every event, merged by state after each: the odds by definition."""
    voids = Voids()
    frontier: dict[bytes, tuple[State, Fraction]] = {msgspec.msgpack.encode(state): (state, 1)}
    for index, event in enumerate(whatif):
        reached: dict[bytes, tuple[State, Fraction]] = {}
        for now, chance in frontier.values():
            for after, share, void in branches(now, event, budget):
                if void is not None:
                    voids[(index, void)] = voids.get((index, void), Fraction(0)) + share * chance
                key = msgspec.msgpack.encode(after)
                seen = reached.get(key)
                reached[key] = (after, share * chance + (seen[1] if seen else 0))
        frontier = reached
    return list(frontier.values()), voids


def fight(ruleset: str, *joins: CharacterJoined) -> State:
    state: State | None = None
    for event in (FightStarted(ruleset=ruleset, seed=5, version=3), *joins):
        state = advance(state, event)
    assert state is not None
    return state


def join(cid: str, side: str, **stats: int) -> CharacterJoined:
    return CharacterJoined(character=cid, name=cid.title(), side=side, stats=stats)


DRAGONQUEST = {"fatigue": 20, "endurance": 15, "willpower": 10, "protection": 4}
FIGHTS = {  # a character or two per side, with the stats each ruleset's join needs
    "mordheim": fight("mordheim", join("grim", "reavers"), join("snik", "skaven", wounds=2)),
    "warhammer_quest": fight(
        "warhammer_quest",
        CharacterJoined(character="grundi", side="party", kind="warrior", stats={"wounds": 6}),
        CharacterJoined(character="orc", side="orcs", kind="monster", stats={"wounds": 5}),
    ),
    "dnd5e": fight("dnd5e", join("mira", "party", hp=6), join("orc", "orcs", hp=7)),
    "d26": fight("d26", join("mira", "party", hp=6), join("kael", "party", hp=5)),
    "dragonquest": fight(
        "dragonquest", join("rolf", "pcs", **DRAGONQUEST), join("orc", "orcs", **DRAGONQUEST)
    ),
    "contractor": fight("contractor", join("cinder", "crew", constitution=10)),
}


def assert_same_as_walked(state: State, whatif: list[Event]) -> tuple[int, int]:
    """`exact` equals the walk, state for state, fraction for fraction, in the same order, with
    the same voids; the reducer steps each took."""
    mine, walk = Budget(), Budget()
    voids = Voids()
    found = exact(state, whatif, budget=mine, voids=voids)
    expected, expected_voids = walked(state, whatif, walk)
    assert [(msgspec.msgpack.encode(s), c) for s, c in found] == [
        (msgspec.msgpack.encode(s), c) for s, c in expected
    ]
    assert sum(c for _, c in found) == 1
    assert voids == expected_voids
    return mine.spent, walk.spent


def test_the_mordheim_examples_are_answered_as_before() -> None:
    # two wounds on Grim; a wound, then two rounds of turns (the README's examples once)
    grim = FIGHTS["mordheim"]
    assert_same_as_walked(grim, [Hit(target="grim", damage=2)])
    assert_same_as_walked(grim, [Hit(target="grim", damage=1), *rounds(grim, 2)])


def test_every_ruleset_after_a_blow_and_rounds_of_turns_as_before() -> None:
    for ruleset, state in FIGHTS.items():
        target = next(iter(state.characters))
        damage = {"contractor": 14, "dragonquest": 24, "warhammer_quest": 7}.get(ruleset, 7)
        assert_same_as_walked(state, [Hit(target=target, damage=damage), *rounds(state, 3)])


def test_a_path_at_rest_is_ticked_no_more() -> None:
    """Mordheim's fallen stand up within two recovery phases, or stay out of action: from then
    on nobody is in a state a recovery phase reads, and each further tick costs one reducer
    step, however many paths are at rest (the walk pays one for each of them)."""
    grim = FIGHTS["mordheim"]
    blows: list[Event] = [Hit(target="grim", damage=1), Hit(target="snik", damage=3)]
    mine_2, walk_2 = assert_same_as_walked(grim, [*blows, *rounds(grim, 2)])
    mine_10, walk_10 = assert_same_as_walked(grim, [*blows, *rounds(grim, 10)])
    later_ticks = len(rounds(grim, 10)) - len(rounds(grim, 2))
    assert mine_10 - mine_2 == later_ticks
    assert walk_10 - walk_2 >= 3 * later_ticks  # grim up or out, snik up or out


def test_a_void_tick_at_rest_is_counted_as_before() -> None:
    """A tick naming a side nobody is on is void on every path, resting or not."""
    grim = FIGHTS["mordheim"]
    whatif: list[Event] = [
        Hit(target="grim", damage=1),
        *rounds(grim, 3),
        TurnStarted(side="elves"),
    ]
    assert_same_as_walked(grim, whatif)


TICKS = st.sampled_from([TurnStarted(), TurnEnded()])


@st.composite
def whatifs(draw: st.DrawFn) -> tuple[State, list[Event]]:
    """A fight of any ruleset, some blows on anyone, then ticks of any scope in any order."""
    ruleset = draw(st.sampled_from(sorted(FIGHTS)))
    state = FIGHTS[ruleset]
    cast = list(state.characters)
    sides = list(dict.fromkeys(c.side for c in state.characters.values()))
    blows = draw(
        st.lists(
            st.builds(
                Hit, target=st.sampled_from(cast), damage=st.integers(0, 3), attacker=st.none()
            ),
            min_size=1,
            max_size=2,
        )
    )
    scoped = st.one_of(
        TICKS,
        st.builds(TurnStarted, side=st.sampled_from(sides)),
        st.builds(TurnEnded, side=st.sampled_from(sides)),
        st.builds(TurnStarted, character=st.sampled_from(cast)),
        st.builds(TurnEnded, character=st.sampled_from(cast)),
    )
    ticks = draw(st.lists(scoped, max_size=8))
    return state, [*blows, *ticks]


@settings(max_examples=25, deadline=None)
@given(whatifs())
def test_generated_fights_are_answered_as_before(case: tuple[State, list[Event]]) -> None:
    state, whatif = case
    assert_same_as_walked(state, whatif)


def test_paths_at_rest_from_the_first_of_the_last_ticks_share_it() -> None:
    """After a blow and his side's turn Grim is up (at full rate again), knocked down or out; a
    wound on Snik then leaves Snik up. Grim up or out, nobody is in a state a recovery phase
    reads: the last tick is run once for both paths (the walk runs it for each); the events
    before the last ticks are run for every path, as the walk runs them."""
    grim = FIGHTS["mordheim"]
    whatif: list[Event] = [
        Hit(target="grim", damage=1),
        TurnStarted(side="reavers"),
        TurnEnded(side="reavers"),
        Hit(target="snik", damage=1),
        TurnStarted(side="reavers"),
    ]
    mine, walk = assert_same_as_walked(grim, whatif)
    assert (mine, walk) == (walk - 1, walk)

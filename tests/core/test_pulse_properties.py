"""One pulse per round (issue 27, section 1; `core.turns`): the same fight ticked by round, by
side, by character and by all three at once gives the same states and the same dice, in all six
rulesets.

Each generated fight has two sides of two; each round, blows fall on characters still upright,
then the round is ticked in one of the four ways, each tick carrying its `round`; the fight ends
with the last round's end. The dice are
chosen by character and purpose, the n-th die of a purpose for a character the same whichever
event asks for it, so that "the same dice" can be compared: the event that rolls them differs
between the ways of ticking, the character and the order of his own dice do not."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.core.reducer import advance
from woundlog.events import (
    CharacterJoined,
    Event,
    FightStarted,
    Hit,
    RuleError,
    TurnEnded,
    TurnStarted,
)

SIDES = {"a": ("a1", "a2"), "b": ("b1", "b2")}
"""Two sides of two, joined side by side: join order is the order a side-by-side round takes."""

STATS: dict[str, dict[str, int]] = {
    "mordheim": {"wounds": 1},
    "dnd5e": {"hp": 8},
    "dragonquest": {"fatigue": 15, "endurance": 14, "willpower": 8, "protection": 2},
    "d26": {"hp": 6},
    "warhammer_quest": {"wounds": 4},
    "contractor": {"constitution": 8},
}
"""Stats that let a few blows knock a character down, stun him or leave him dying."""

FACTS: dict[str, list[dict[str, Any]]] = {
    "dragonquest": [{"band": "fatigue"}, {"band": "endurance"}],
}
"""Facts a ruleset's hits need (DragonQuest: which of his bands a blow strikes)."""


def scheme_round(r: int) -> list[Event]:
    return [TurnStarted(round=r), TurnEnded(round=r)]


def scheme_side(r: int) -> list[Event]:
    return [t for s in SIDES for t in (TurnStarted(side=s, round=r), TurnEnded(side=s, round=r))]


def scheme_character(r: int) -> list[Event]:
    return [
        t
        for members in SIDES.values()
        for c in members
        for t in (TurnStarted(character=c, round=r), TurnEnded(character=c, round=r))
    ]


def scheme_all(r: int) -> list[Event]:
    ticks: list[Event] = [TurnStarted(round=r)]
    for side, members in SIDES.items():
        ticks.append(TurnStarted(side=side, round=r))
        for c in members:
            ticks += [TurnStarted(character=c, round=r), TurnEnded(character=c, round=r)]
        ticks.append(TurnEnded(side=side, round=r))
    return [*ticks, TurnEnded(round=r)]


SCHEMES: dict[str, Callable[[int], list[Event]]] = {
    "round": scheme_round,
    "side": scheme_side,
    "character": scheme_character,
    "all": scheme_all,
}


class Chooser:
    """Dice by (purpose, character, n), whatever event asks: the same die for the same need."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.counts: dict[tuple[str, str | None], int] = {}
        self.rolled: dict[str | None, list[tuple[str, int]]] = {}

    def __call__(self, purpose: str, sides: int, character: str | None) -> int:
        n = self.counts.get((purpose, character), 0)
        self.counts[(purpose, character)] = n + 1
        digest = hashlib.blake2b(f"{self.seed}|{purpose}|{character}|{n}".encode()).digest()
        face = 1 + int.from_bytes(digest[:8], "big") % sides
        self.rolled.setdefault(character, []).append((purpose, face))
        return face


def play(
    ruleset: str, blows: list[list[tuple[str, int, int]]], seed: int, scheme: str
) -> tuple[dict[str, Any], dict[str | None, list[tuple[str, int]]]]:
    """The characters at the end, and each character's dice, of one way of ticking."""
    chooser = Chooser(seed)
    facts = FACTS.get(ruleset, [{}])
    state = advance(None, FightStarted(ruleset=ruleset, seed=seed, version=3))
    for side, members in SIDES.items():
        for c in members:
            state = advance(state, CharacterJoined(character=c, side=side, stats=STATS[ruleset]))
    for r, round_blows in enumerate(blows, 1):
        events: list[Event] = []
        for n, (target, damage, fact) in enumerate(round_blows):
            if state.characters[target].state != "upright":
                continue  # blows only on the upright: the round's end may come later in a log
            blow = facts[fact % len(facts)]  # its id its own: a wound is named by its blow
            events.append(Hit(id=f"r{r}b{n}", target=target, damage=damage, **blow))
        for event in [*events, *SCHEMES[scheme](r)]:
            with contextlib.suppress(RuleError):  # refused alike whichever the ticks
                state = advance(state, event, missing=chooser)
    # the last round's end: by round it is ticked, by side or character recognised from the
    # `round` moving on, here to a round whose only tick ends it (every turn, then the round)
    state = advance(state, TurnEnded(round=len(blows) + 1), missing=chooser)
    return state.characters, chooser.rolled


blows = st.lists(
    st.lists(
        st.tuples(
            st.sampled_from([c for members in SIDES.values() for c in members]),
            st.integers(0, 12),
            st.integers(0, 1),
        ),
        max_size=3,
    ),
    min_size=1,
    max_size=5,
)


@pytest.mark.parametrize("ruleset", sorted(STATS))
@settings(max_examples=40, deadline=None)
@given(blows=blows, seed=st.integers(0, 2**32))
def test_ticked_by_round_side_character_or_all_three_the_fight_is_the_same(
    ruleset: str, blows: list[list[tuple[str, int, int]]], seed: int
) -> None:
    by_round = play(ruleset, blows, seed, "round")
    for scheme in ("side", "character", "all"):
        assert play(ruleset, blows, seed, scheme) == by_round, scheme


def test_every_ruleset_is_played_here() -> None:
    from woundlog.core.rulesets import RULESETS

    assert sorted(STATS) == sorted(RULESETS)


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_every_ruleset_s_documentation_states_the_rule(ruleset: str) -> None:
    from woundlog.core import get_ruleset

    words = " ".join(get_ruleset(ruleset).documentation().split())
    assert (
        "each character's turn starts and ends at most once a round, whichever scope (round, "
        "side, character) says so first, using the `round` field when the log has one; a round's "
        "end is recognised from the `round` field moving on when the log never ticks the round "
        "itself."
    ) in words

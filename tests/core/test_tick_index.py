"""Issue 16: a fold keeps, per kind of tick, whom one concerns (`Ruleset.tick_concerns`), and a
tick visits only them. These prove that the index changes no answer: a fold with it ends where a
fold without it ends, and where `advance` (the reference, which hands every tick its whole
scope) ends, refusing the same events with the same words, on all six rulesets."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.core import RULESETS, FightState, get_ruleset
from woundlog.core.fight_state import INDEX_FROM, Roster, TickConcern
from woundlog.core.reducer import Fold, advance
from woundlog.events import (
    CharacterJoined,
    Event,
    FightStarted,
    Heal,
    Hit,
    TurnEnded,
    TurnStarted,
    WoundlogError,
)

from ..strategies import mordheim_logs
from .test_contractor_properties import contractor_fights
from .test_d26_properties import d26_fights
from .test_dragonquest_properties import dragonquest_fights
from .test_warhammer_quest_properties import warhammer_quest_logs


@st.composite
def dnd5e_fights(draw: st.DrawFn, *, version: int = 2) -> list[Event]:
    """Two pcs and two monsters with few hit points, then hits (some critical), heals and
    turns of one creature, of a side or of the round, in any order: many fall and save."""
    cast = {
        "ann": ("pc", "a"),
        "bob": ("pc", "a"),
        "orc": ("monster", "b"),
        "imp": ("monster", "b"),
    }
    log: list[Event] = [
        FightStarted(
            ruleset="dnd5e",
            version=version,
            options={"death_saves": draw(st.sampled_from(["turn", "table"]))},
        )
    ]
    for cid, (kind, side) in cast.items():
        hp = draw(st.integers(1, 6))
        log.append(CharacterJoined(character=cid, kind=kind, side=side, stats={"hp": hp}))
    who = st.sampled_from(sorted(cast))
    for _ in range(draw(st.integers(5, 40))):
        move = draw(st.sampled_from(["hit", "hit", "heal", "start", "start", "end"]))
        if move == "hit":
            critical = draw(st.sampled_from([None, True]))
            log.append(Hit(target=draw(who), damage=draw(st.integers(0, 8)), critical=critical))
        elif move == "heal":
            log.append(Heal(target=draw(who), amount=draw(st.integers(1, 4))))
        else:
            scope = draw(st.sampled_from(["character", "side", "round"]))
            kwargs: dict[str, Any] = {}
            if scope == "character":
                kwargs["character"] = draw(who)
            elif scope == "side":
                kwargs["side"] = draw(st.sampled_from(["a", "b"]))
            log.append(TurnStarted(**kwargs) if move == "start" else TurnEnded(**kwargs))
    return log


def _folds(log: list[Event]) -> list[tuple[Any, str | None]]:
    """Per event, the state and the refusal (None if accepted) of three folds, which must agree:
    `Fold` with its tick index from the first character, `Fold` without one, and `advance` one
    event at a time."""
    indexed, unindexed = Fold(index_from=0), Fold(index_from=None)
    reference: FightState[Any] | None = None
    seen: list[tuple[Any, str | None]] = []
    for event in log:
        refusals: list[str | None] = []
        for fold in (indexed, unindexed):
            try:
                fold.add(event)
                refusals.append(None)
            except WoundlogError as exc:
                refusals.append(str(exc))
        try:
            reference = advance(reference, event)
            refusals.append(None)
        except WoundlogError as exc:
            refusals.append(str(exc))
        assert refusals[0] == refusals[1] == refusals[2], (event, refusals)
        assert indexed.state == unindexed.state == reference, event
        seen.append((reference, refusals[0]))
    return seen


FIGHTS = {
    "mordheim": st.one_of(mordheim_logs(undo=False), mordheim_logs(undo=False, version=2)),
    "d26": st.one_of(d26_fights(undo=False), d26_fights(undo=False, version=1)),
    "dnd5e": st.one_of(dnd5e_fights(), dnd5e_fights(version=1)),
    "dragonquest": dragonquest_fights(undo=False),
    "warhammer_quest": warhammer_quest_logs(undo=False),
    "contractor": contractor_fights(undo=False),
}


def test_every_ruleset_is_checked_here() -> None:
    assert set(FIGHTS) == set(RULESETS)


@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
def test_a_fold_with_the_tick_index_ends_and_refuses_as_a_fold_without_it(ruleset: str) -> None:
    @settings(
        max_examples=60,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(FIGHTS[ruleset])
    def check(log: list[Event]) -> None:
        _folds(log)

    check()


def test_dnd5e_fights_make_the_dying_roll_at_their_turns_start() -> None:
    """The generated dnd5e fights are worth checking: creatures go down and make death saves."""
    downed = 0

    @settings(max_examples=40, deadline=None)
    @given(dnd5e_fights())
    def count(log: list[Event]) -> None:
        nonlocal downed
        for state, _ in _folds(log):
            if state is not None:
                downed += sum(c.state == "downed" for c in state.characters.values())

    count()
    assert downed > 0


def test_a_tick_visits_its_scope_in_join_order_though_they_fell_in_another() -> None:
    """c2 falls before c0; both are down at the tick: the index hands them in join order,
    as the whole side would be walked (a version 1 log reads unscoped dice in that order)."""
    log: list[Event] = [
        FightStarted(ruleset="warhammer_quest", version=1),
        *(CharacterJoined(character=f"c{i}", stats={"wounds": 1}) for i in range(3)),
        Hit(target="c2", damage=1, rolls={"serious_injury": [2, 3]}),  # concussion: down
        Hit(target="c0", damage=1, rolls={"serious_injury": [2, 3]}),
        TurnEnded(rolls={"downed": [1, 6]}),
    ]
    seen = _folds(log)
    state = seen[-1][0]
    assert [state.characters[c].state for c in ("c0", "c1", "c2")] == [
        "dead",
        "upright",
        "stabilised",
    ]


def test_the_index_looks_again_at_a_character_whose_counter_alone_changed() -> None:
    """Half rate is a counter, not a state: a put that changes it alone moves him in or out."""
    rules = get_ruleset("mordheim")
    fighter = rules.character(state="upright", name="A", side="a", kind="warrior", wounds=1)
    roster: Roster[Any] = Roster({"a1": fighter}, rules.tick_concerns, index_from=0)
    assert roster.concerned("turn_ended", "a") == {}
    slowed = type(fighter)(**{**_fields(fighter), "half_rate": True})
    roster.put("a1", slowed)
    assert roster.concerned("turn_ended", "a") == {"a1": slowed}
    assert roster.concerned("turn_started") == {"a1": slowed}
    roster.put("a1", fighter)
    assert roster.concerned("turn_ended", "a") == {} and roster.concerned("turn_started") == {}


def test_a_concern_names_the_states_and_counters_it_reads() -> None:
    concern = TickConcern(states=frozenset({"stunned"}), counters=("half_rate",))
    rules = get_ruleset("mordheim")
    up = rules.character(state="upright", name="A", side="a", kind="warrior", wounds=1)
    assert not concern.concerns(up)
    assert concern.concerns(type(up)(**{**_fields(up), "state": "stunned"}))


def _fields(character: Any) -> dict[str, Any]:
    return {f: getattr(character, f) for f in character.__struct_fields__}


def test_the_index_taken_up_midway_knows_who_fell_before_it() -> None:
    """A fold indexes once the fight holds `index_from` characters: those who fell while it was
    smaller are in the index from then on, and their recovery phase raises them as a fold
    without the index does."""
    log: list[Event] = [
        FightStarted(ruleset="mordheim"),
        CharacterJoined(character="a", side="x"),
        CharacterJoined(character="b", side="x"),
        Hit(target="a", damage=1, rolls={"injury": [1]}),  # knocked down
        Hit(target="b", damage=1, rolls={"injury": [3]}),  # stunned
        CharacterJoined(character="c", side="y"),  # the third: the index starts here
        TurnStarted(side="x"),
    ]
    late, never = Fold(index_from=3), Fold(index_from=None)
    for event in log:
        late.add(event)
        never.add(event)
    assert late._characters.indexes("turn_started")
    assert not never._characters.indexes("turn_started")
    state = late.state
    assert state == never.state
    assert state is not None
    assert (state.characters["a"].state, state.characters["b"].state) == (
        "upright",
        "knocked_down",
    )


def test_a_small_fight_walks_its_sides_and_a_large_one_keeps_the_index() -> None:
    """Below `INDEX_FROM` characters no index is kept (its upkeep costs more than walking a
    few dozen); from it on, one is."""
    log: list[Event] = [FightStarted(ruleset="mordheim")]
    log += [CharacterJoined(character=f"c{i}", side="ab"[i % 2]) for i in range(INDEX_FROM - 1)]
    folding = Fold()
    for event in log:
        folding.add(event)
    assert not folding._characters.indexes("turn_started")
    folding.add(CharacterJoined(character="last", side="a"))
    assert folding._characters.indexes("turn_started")
    assert folding._characters.indexes("turn_ended")

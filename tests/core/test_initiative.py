"""Issue 40: turn order from initiative (ties by join order), a `turn_order` mid-fight, whose
turn it is, and what "next turn" appends (`core.initiative`), folded by the reducer."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from woundlog.core import FightState, apply
from woundlog.core.initiative import next_ticks, ordered
from woundlog.core.reducer import Fold
from woundlog.events import Event, RuleError, TurnStarted, convert


def fold(*events: dict[str, Any]) -> FightState[Any]:
    state: FightState[Any] | None = None
    for n, event in enumerate(events):
        state, _ = apply(state, convert(event, index=n))
    assert state is not None
    return state


def joined(cid: str, initiative: int | None = None, **more: Any) -> dict[str, Any]:
    event = {"type": "character_joined", "character": cid, "kind": "pc", "stats": {"hp": 8}}
    return {**event, **more, **({} if initiative is None else {"initiative": initiative})}


START = {"type": "fight_started", "ruleset": "dnd5e", "seed": 1, "version": 3}


def next_turn(state: FightState[Any], rolls: dict[str, list[int]] | None = None) -> Any:
    """The state after "next turn": its ticks folded in turn, the start given `rolls`."""
    ended, started = next_ticks(state.turn, state.rounds, state.characters)
    if rolls:
        started = msgspec.structs.replace(started, rolls=rolls)
    for tick in (ended, started):
        if tick is not None:
            state, _ = apply(state, tick)
    return state


def test_the_order_is_by_initiative_higher_first_ties_by_join_order_none_last() -> None:
    state = fold(START, joined("a", 10), joined("b"), joined("c", 15), joined("d", 10))
    assert state.turn.order == ("c", "a", "d", "b")
    assert state.turn.initiative == {"a": 10, "c": 15, "d": 10}
    assert (state.turn.current, state.turn.round) == (None, 0)


def test_a_character_with_no_initiative_goes_after_one_with_a_negative_one() -> None:
    state = fold(START, joined("a"), joined("b", -5), joined("c", 0))
    assert state.turn.order == ("c", "b", "a")


def test_his_own_end_ends_his_turn_and_a_second_start_of_a_done_turn_takes_none() -> None:
    state = next_turn(fold(START, joined("a", 3), joined("b", 2)))
    ended, _ = apply(state, convert({"type": "turn_ended", "character": "a"}, index=0))
    assert ended.turn.current is None
    state = next_turn(state)  # b's turn
    again = {"type": "turn_started", "round": 1, "character": "a"}  # a resent start
    resent, _ = apply(state, convert(again, index=0))
    assert resent.turn.current == "b"


def test_a_round_that_moves_on_ends_the_turn_under_way() -> None:
    state = next_turn(fold(START, joined("a", 3, side="x"), joined("b", 2, side="y")))
    assert state.turn.current == "a"
    moved, _ = apply(state, convert({"type": "turn_started", "round": 2, "side": "y"}, index=0))
    assert (moved.turn.round, moved.turn.current) == (2, None)


def test_without_initiative_the_order_is_the_join_order() -> None:
    assert fold(START, joined("x"), joined("y"), joined("z")).turn.order == ("x", "y", "z")


def test_a_turn_order_mid_fight_puts_its_ids_first_and_a_later_joiner_after_them() -> None:
    state = fold(
        START, joined("a", 10), joined("b", 12), joined("c", 5),
        {"type": "turn_order", "order": ["c", "a"]},
        joined("d", 99),
    )  # fmt: skip
    assert state.turn.order == ("c", "a", "d", "b")
    back = fold(START, joined("a", 10), joined("b", 12), {"type": "turn_order", "order": []})
    assert back.turn.order == ("b", "a")


@pytest.mark.parametrize(
    ("order", "field"), [(["a", "zed"], "$.order[1]"), (["a", "b", "a"], "$.order[2]")]
)
def test_a_turn_order_naming_nobody_or_someone_twice_is_refused_naming_the_field(
    order: list[str], field: str
) -> None:
    state = fold(START, joined("a"), joined("b"))
    with pytest.raises(RuleError) as refused:
        apply(state, convert({"type": "turn_order", "order": order}, index=0))
    assert refused.value.field == field and refused.value.event == "#4"


def test_next_starts_round_one_with_the_first_and_wraps_after_the_last() -> None:
    state = fold(START, joined("a", 1), joined("b", 3), joined("c", 2))
    seen = []
    for _ in range(5):
        state = next_turn(state)
        seen.append((state.turn.round, state.turn.current))
    assert seen == [(1, "b"), (1, "c"), (1, "a"), (2, "b"), (2, "c")]
    ended, started = next_ticks(state.turn, state.rounds, state.characters)
    assert ended is not None and (ended.character, ended.round) == ("c", 2)
    assert (started.character, started.round) == ("a", 2)


def test_a_turn_order_mid_round_leaves_the_turn_with_whoever_has_it() -> None:
    state = next_turn(fold(START, joined("a", 3), joined("b", 2), joined("c", 1)))
    state, _ = apply(state, convert({"type": "turn_order", "order": ["c", "a", "b"]}, index=0))
    assert state.turn.current == "a"
    state = next_turn(state)
    assert (state.turn.round, state.turn.current) == (1, "b")
    assert next_turn(state).turn.current == "c" and next_turn(state).turn.round == 2


def test_a_dying_pcs_death_save_is_rolled_at_her_turn_start_by_next() -> None:
    state = fold(START, joined("mira", 5), joined("gob", 9, kind="monster"))
    state = next_turn(state)  # the goblin's turn
    state, _ = apply(state, convert({"type": "hit", "target": "mira", "damage": 9}, index=0))
    assert state.characters["mira"].state == "downed"
    state = next_turn(state, {"death_save": [4]})  # her turn starts: a failed death save
    assert state.turn.current == "mira"
    assert state.characters["mira"].failures == 1


def test_next_passes_over_the_dead_and_refuses_when_nobody_lives() -> None:
    state = fold(
        START, joined("a", 3), joined("gob", 2, kind="monster"), joined("c", 1),
        {"type": "hit", "target": "gob", "damage": 20},
    )  # fmt: skip
    state = next_turn(next_turn(state))
    assert state.turn.current == "c" and state.turn.order == ("a", "gob", "c")
    alone = fold(
        START, joined("gob", 2, kind="monster"), {"type": "hit", "target": "gob", "damage": 9}
    )
    with pytest.raises(RuleError, match="everyone in the fight is dead"):
        next_ticks(alone.turn, alone.rounds, alone.characters)
    empty = fold(START)
    with pytest.raises(RuleError, match="nobody has joined"):
        next_ticks(empty.turn, empty.rounds, empty.characters)


def test_a_side_or_whole_round_end_ends_the_turn_under_way() -> None:
    state = next_turn(fold(START, joined("a", 3, side="x"), joined("b", 2, side="y")))
    side_end, _ = apply(state, convert({"type": "turn_ended", "side": "x"}, index=0))
    other_side, _ = apply(state, convert({"type": "turn_ended", "side": "y"}, index=0))
    round_end, _ = apply(state, convert({"type": "turn_ended"}, index=0))
    assert (side_end.turn.current, other_side.turn.current, round_end.turn.current) == (
        None,
        "a",
        None,
    )


def test_the_fold_and_apply_agree_on_the_turn() -> None:
    events = [
        START, joined("a", 3), joined("b", 2),
        {"type": "turn_started", "round": 1, "character": "a"},
        {"type": "turn_order", "order": ["b"]},
        {"type": "turn_ended", "round": 1, "character": "a"},
        {"type": "turn_started", "round": 1, "character": "b"},
    ]  # fmt: skip
    folding = Fold()
    for n, event in enumerate(events):
        folding.add(convert(event, index=n))
    assert folding.state is not None
    assert folding.state.turn == fold(*events).turn
    assert folding.state.turn.current == "b" and folding.state.turn.order == ("b", "a")


cast = st.lists(
    st.tuples(st.none() | st.integers(-3, 3), st.booleans()), min_size=1, max_size=7
).filter(lambda members: not all(dead for _, dead in members))


@given(cast=cast, rounds=st.integers(1, 4))
def test_next_visits_each_living_character_once_a_round_in_order(
    cast: list[tuple[int | None, bool]], rounds: int
) -> None:
    """n times "next": each round, every living character's turn once, in the order the
    initiatives make (ties by join order), the dead passed over."""
    events: list[dict[str, Any]] = [START]
    for n, (initiative, _) in enumerate(cast):
        events.append(joined(f"c{n}", initiative, kind="monster"))
    events += [
        {"type": "hit", "target": f"c{n}", "damage": 8} for n, (_, dead) in enumerate(cast) if dead
    ]
    state = fold(*events)
    values = {f"c{n}": i for n, (i, _) in enumerate(cast) if i is not None}
    order = ordered([f"c{n}" for n in range(len(cast))], values)
    living = [cid for cid in order if not cast[int(cid[1:])][1]]
    turns: list[tuple[int, str]] = []
    for _ in range(rounds * len(living)):
        ended, started = next_ticks(state.turn, state.rounds, state.characters)
        ticks: list[Event] = [started] if ended is None else [ended, started]
        for tick in ticks:
            state, _ = apply(state, tick)
        assert isinstance(started, TurnStarted) and started.character is not None
        turns.append((started.round or 0, started.character))
    expected = [(r, cid) for r in range(1, rounds + 1) for cid in living]
    assert turns == expected

"""Hypothesis strategies: any event of the wire format, and plausible Mordheim fights."""

from __future__ import annotations

import datetime

from hypothesis import strategies as st

from woundlog.events import (
    Amend,
    CharacterJoined,
    Choice,
    Event,
    FightEnded,
    FightStarted,
    GameEvent,
    Heal,
    Hit,
    Retract,
    TurnEnded,
    TurnStarted,
)

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
ids = st.none() | names
small = st.integers(min_value=0, max_value=20)
rolls = st.dictionaries(names, st.lists(st.integers(1, 6), max_size=3), max_size=2)
timestamps = st.none() | st.datetimes(
    min_value=datetime.datetime(2000, 1, 1),
    max_value=datetime.datetime(2100, 1, 1),
    timezones=st.just(datetime.UTC),
)
common = {
    "id": ids,
    "at": timestamps,
    "by": st.none() | names,
    "rolls": rolls,
    "note": st.none() | st.text(max_size=20),
}

hits = st.builds(
    Hit,
    target=names,
    damage=small,
    attacker=st.none() | names,
    weapon=st.none() | st.sampled_from(["A", "B", "C"]),
    strike_roll=st.none() | st.integers(1, 100),
    band=st.none() | st.sampled_from(["fatigue", "endurance", "grievous"]),
    magic=st.none() | st.booleans(),
    hit_strength=st.none() | small,
    **common,
)
heals = st.builds(
    Heal,
    target=names,
    amount=small,
    means=st.sampled_from(["", "bandage", "potion"]),
    items=st.none() | small,
    check=st.none() | st.integers(-5, 30),
    wound=st.none() | names,
    **common,
)
scopes = st.sampled_from([{}, {"side": st.just("a")}, {"character": st.just("grim")}])
game_events: st.SearchStrategy[GameEvent] = st.one_of(
    st.builds(
        CharacterJoined,
        character=names,
        name=st.text(max_size=10),
        side=names,
        kind=st.sampled_from(["", "hero"]),
        stats=st.dictionaries(names, small, max_size=3),
        gear=st.dictionaries(names, names, max_size=2),
        **common,
    ),
    hits,
    heals,
    scopes.flatmap(lambda s: st.builds(TurnStarted, round=st.none() | small, **s, **common)),
    scopes.flatmap(lambda s: st.builds(TurnEnded, round=st.none() | small, **s, **common)),
    st.builds(Choice, character=names, option=names, **common),
    st.builds(FightEnded, **common),
)
refs = names | st.integers(1, 50).map(lambda n: f"#{n}")
any_event: st.SearchStrategy[Event] = st.one_of(
    st.builds(
        FightStarted,
        ruleset=names,
        seed=st.integers(-(2**63), 2**63 - 1),
        options=st.dictionaries(names, st.booleans() | small | names, max_size=3),
        tables=st.dictionaries(names, st.lists(small, max_size=3), max_size=2),
        name=st.text(max_size=10),
        **common,
    ),
    game_events,
    st.builds(Retract, event=refs, reason=st.text(max_size=10), **common),
    st.builds(Amend, event=refs, replacement=game_events, reason=st.text(max_size=10), **common),
)

WARRIORS = ("grim", "snik", "ulf", "krak")
SIDES = {"grim": "reavers", "ulf": "reavers", "snik": "skaven", "krak": "skaven"}


@st.composite
def mordheim_logs(
    draw: st.DrawFn, *, undo: bool = True, named: bool = False, min_size: int = 0
) -> list[Event]:
    """A plausible Mordheim fight: joins, hits (dice given or drawn), recovery phases, heals
    (refused by the rules, so void on replay), and, with `undo`, retracts and amends that name
    earlier events. With `named`, every event carries an id."""
    seed = draw(st.integers(0, 2**32))
    log: list[Event] = [FightStarted(ruleset="mordheim", seed=seed)]
    for w in WARRIORS:
        log.append(
            CharacterJoined(character=w, side=SIDES[w], stats={"wounds": draw(st.integers(1, 3))})
        )
    moves = draw(st.lists(st.integers(0, 99), min_size=min_size, max_size=40))
    for move in moves:
        target = draw(st.sampled_from(WARRIORS))
        if move < 55:
            given = draw(st.lists(st.integers(1, 6), max_size=3))
            event: Event = Hit(
                target=target,
                damage=draw(st.integers(0, 3)),
                rolls={"injury": given} if given else {},
            )
        elif move < 75:
            event = TurnStarted(side=draw(st.sampled_from(["reavers", "skaven"])))
        elif move < 82:
            event = TurnEnded(side=draw(st.sampled_from(["reavers", "skaven"])))
        elif move < 85:
            event = Heal(target=target, amount=1)
        elif undo and move < 93:
            event = Retract(event=f"#{draw(st.integers(2, len(log)))}")
        elif undo:
            game = [i for i, e in enumerate(log, 1) if i > 1 and not isinstance(e, Retract | Amend)]
            event = Amend(
                event=f"#{draw(st.sampled_from(game))}",
                replacement=Hit(target=target, damage=draw(st.integers(0, 2))),
            )
        else:
            event = Hit(target=target, damage=1)
        log.append(event)
    if named:
        import msgspec

        log = [msgspec.structs.replace(e, id=f"e{i}") for i, e in enumerate(log, 1)]
    return log

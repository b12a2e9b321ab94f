"""Hypothesis strategies: any event of the wire format, and plausible Mordheim fights."""

from __future__ import annotations

import datetime
from typing import Any

import msgspec
from hypothesis import strategies as st

from woundlog.core import FightState, apply_or_void
from woundlog.events import (
    WIRE_VERSION,
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
    StatChanged,
    TurnEnded,
    TurnOrder,
    TurnStarted,
)
from woundlog.replays import replay

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
        initiative=st.none() | st.integers(-5, 30),
        **common,
    ),
    st.builds(TurnOrder, order=st.lists(names, max_size=4).map(tuple), **common),
    st.builds(
        StatChanged,
        character=names,
        stat=st.sampled_from(["hp", "wounds", "ac"]) | names,
        value=st.integers(-3, 30),
        reason=st.text(max_size=10),
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
        seed=st.integers(0, 2**53 - 1),
        options=st.dictionaries(names, st.booleans() | small | names, max_size=3),
        tables=st.dictionaries(names, st.lists(small, max_size=3), max_size=2),
        name=st.text(max_size=10),
        version=st.integers(1, WIRE_VERSION),
        **common,
    ),
    game_events,
    st.builds(Retract, event=refs, reason=st.text(max_size=10), **common),
    st.builds(Amend, event=refs, replacement=game_events, reason=st.text(max_size=10), **common),
)

FIGHTERS = {
    "grim": "reavers",
    "ulf": "reavers",
    "hilde": "reavers",
    "snik": "skaven",
    "krak": "skaven",
    "skab": "skaven",
}
"""The fighters of every generated Mordheim fight, three a side, joined in this order."""
WARRIORS = tuple(FIGHTERS)
SIDES = FIGHTERS
FIRST_AFTER_JOINS = 1 + len(FIGHTERS)
"""Index in a generated log of the first event after the joins."""


class _Fight:
    """The log being generated and the fight as it stands, so that blows are struck by
    fighters who may act, on fighters still in the fight."""

    def __init__(self, log: list[Event]) -> None:
        self.log = log
        self.state: FightState[Any] | None = None
        for event in log:
            self.state = apply_or_void(self.state, event)[0]

    def add(self, event: Event) -> None:
        self.log.append(event)
        if isinstance(event, Retract | Amend):  # an undo rewrites the past: fold it again
            *_, (self.state, _) = replay(self.log)
        else:
            self.state = apply_or_void(self.state, event)[0]

    def fighters(self, side: str, *states: str) -> list[str]:
        assert self.state is not None
        return [c for c, f in self.state.characters.items() if f.side == side and f.state in states]


def _other(side: str) -> str:
    return "skaven" if side == "reavers" else "reavers"


@st.composite
def _blow(draw: st.DrawFn, fight: _Fight, side: str) -> Hit | None:
    """A blow struck by an upright fighter of `side` (now and then by something outside the
    fight: a trap) on an enemy still in the fight; None if there is nobody to strike or be
    struck. The injury dice are given (some more than the rules will need) or drawn."""
    attackers = fight.fighters(side, "upright")
    targets = fight.fighters(_other(side), "upright", "knocked_down", "stunned")
    if not targets or (not attackers and draw(st.integers(0, 3))):
        return None
    attacker = draw(st.sampled_from(attackers)) if attackers and draw(st.integers(0, 9)) else "trap"
    given = draw(st.lists(st.integers(1, 6), max_size=3)) if draw(st.booleans()) else []
    return Hit(
        target=draw(st.sampled_from(targets)),
        damage=draw(st.sampled_from([1, 1, 1, 1, 2, 2, 3, 0])),
        attacker=attacker,
        rolls={"injury": given} if given else {},
    )


@st.composite
def _undo(draw: st.DrawFn, fight: _Fight) -> Event | None:
    """A retract of a blow or a turn, an amend of a blow (other damage, other dice), or a
    retract of an earlier retract (which restores its event); None if nothing fits yet."""
    log = fight.log
    game = [
        i
        for i, e in enumerate(log, 1)
        if isinstance(e, Hit | TurnStarted | TurnEnded | TurnOrder) and i >= FIRST_AFTER_JOINS
    ]
    blows = [i for i in game if isinstance(log[i - 1], Hit)]
    retracts = [i for i, e in enumerate(log, 1) if isinstance(e, Retract)]
    kind = draw(st.sampled_from(["retract", "retract", "amend", "amend", "unretract"]))
    if kind == "unretract" and retracts:
        return Retract(event=f"#{draw(st.sampled_from(retracts))}", reason="it was right")
    if kind == "amend" and blows:
        seq = draw(st.sampled_from(blows))
        blow = log[seq - 1]
        assert isinstance(blow, Hit)
        given = draw(st.lists(st.integers(1, 6), max_size=2))
        replacement = Hit(
            target=blow.target,
            damage=draw(st.integers(0, 3)),
            attacker=blow.attacker,
            rolls={"injury": given} if given else {},
        )
        return Amend(event=f"#{seq}", replacement=replacement, reason="misread the dice")
    if game:
        return Retract(event=f"#{draw(st.sampled_from(game))}", reason="never happened")
    return None


@st.composite
def mordheim_logs(
    draw: st.DrawFn,
    *,
    undo: bool = True,
    named: bool = False,
    min_size: int = 0,
    version: int | None = None,
) -> list[Event]:
    """A real Mordheim fight: three fighters a side (1-3 wounds), rounds in which each side
    has its recovery phase (for the side, or fighter by fighter), blows by its upright
    fighters on enemies still in the fight (injury dice given or drawn), and the end of its
    turn (usually); now and then a round marker, a whole round's end, a heal (which Mordheim
    refuses: void) or the end of the fight. With `undo`, retracts and amends of earlier blows
    and turns, and retracts of retracts. `version`: the fight's draw (1 or 2; None: either).
    `min_size`: at least that many events after the joins. With `named`, every event has an
    id."""
    chosen = draw(st.sampled_from([1, 2])) if version is None else version
    start = FightStarted(ruleset="mordheim", seed=draw(st.integers(0, 2**32)), version=chosen)
    joins = [
        CharacterJoined(
            character=cid,
            side=side,
            stats={"wounds": draw(st.integers(1, 3))},
            initiative=draw(st.none() | st.integers(1, 6)),
        )
        for cid, side in FIGHTERS.items()
    ]
    fight = _Fight([start, *joins])
    heal_in = draw(st.sampled_from([None, None, None, 1, 2]))  # once in a while, one heal
    for round_ in range(1, draw(st.integers(2, 5)) + 1):
        if round_ == heal_in:
            fight.add(Heal(target=draw(st.sampled_from(WARRIORS)), amount=1))
        if not draw(st.integers(0, 4)):
            fight.add(TurnStarted(round=round_))  # a round marker: recovers nobody
        if not draw(st.integers(0, 5)):  # the GM's order, now and then naming one twice: void
            order = draw(st.lists(st.sampled_from(WARRIORS), max_size=len(WARRIORS)))
            fight.add(TurnOrder(order=tuple(order)))
        for side in draw(st.permutations(["reavers", "skaven"])):
            if draw(st.integers(0, 4)):
                fight.add(TurnStarted(round=round_, side=side))
            else:  # a tracker that runs a turn per model
                for cid in fight.fighters(side, "knocked_down", "stunned", "upright"):
                    fight.add(TurnStarted(round=round_, character=cid))
            for _ in range(draw(st.integers(1, 5))):
                blow = draw(_blow(fight, side))
                if blow is not None:
                    fight.add(blow)
                if undo and not draw(st.integers(0, 5)):
                    correction = draw(_undo(fight))
                    if correction is not None:
                        fight.add(correction)
            ends = draw(st.integers(0, 9))
            if ends:
                fight.add(TurnEnded(round=round_, side=side) if ends > 1 else TurnEnded())
    if not draw(st.integers(0, 9)):
        fight.add(FightEnded())
        if undo and draw(st.booleans()):
            fight.add(Retract(event=f"#{len(fight.log)}", reason="one more round"))
    log = fight.log
    while len(log) < FIRST_AFTER_JOINS + min_size:
        log.append(TurnEnded())
    if named:
        log = [msgspec.structs.replace(e, id=f"e{i}") for i, e in enumerate(log, 1)]
    return log

"""d26 over random streams of its own events: replay never crashes, never leaves the Machine,
and the rules' invariants hold at every step."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.core import FightState
from woundlog.events import (
    Amend,
    CharacterJoined,
    Choice,
    Event,
    FightStarted,
    Heal,
    Hit,
    Retract,
    TurnEnded,
    TurnStarted,
)
from woundlog.replays import replay

from ..invariants import moves_stay_in_the_machine, replays_every_event

CAST = {"mira": "pc", "kael": "pc", "ghoul": "npc", "warden": "legendary"}
SIDES = {"mira": "party", "kael": "party", "ghoul": "foes", "warden": "foes"}


@st.composite
def d26_logs(draw: st.DrawFn, *, undo: bool = True) -> list[Event]:
    """A plausible d26 fight: hits around the 0 HP thresholds (with or without Hit Strength),
    heals of every means (checks near the Difficulties), choices (some not offered), turn ends
    of characters, sides and rounds, and with `undo` retracts and amends of earlier events."""
    log: list[Event] = [FightStarted(ruleset="d26", seed=draw(st.integers(0, 2**32)))]
    for cid, kind in CAST.items():
        hp = draw(st.integers(1, 8))
        log.append(CharacterJoined(character=cid, side=SIDES[cid], kind=kind, stats={"hp": hp}))
    for move in draw(st.lists(st.integers(0, 99), max_size=50)):
        who = draw(st.sampled_from(list(CAST)))
        event: Event
        if move < 40:
            given = draw(st.lists(st.integers(1, 4), max_size=2))
            event = Hit(
                target=who,
                damage=draw(st.integers(0, 9)),
                hit_strength=draw(st.none() | st.integers(0, 4)),
                rolls={"location": given} if given else {},
            )
        elif move < 55:
            means = draw(st.sampled_from(["", "potion", "rest", "heal_check", "heal_check"]))
            checks = st.integers(12, 20) if means == "heal_check" else st.none()
            event = Heal(
                target=who,
                amount=draw(st.integers(0, 4)),
                means=means,
                check=draw(checks | st.none()),
            )
        elif move < 63:
            event = Choice(character=who, option=draw(st.sampled_from(["hold_on", "last_stand"])))
        elif move < 78:
            given = draw(st.lists(st.integers(1, 6), max_size=2))
            event = TurnEnded(character=who, rolls={"hold_on": given} if given else {})
        elif move < 84:
            event = TurnEnded(round=draw(st.integers(1, 9)))
        elif move < 88:
            event = TurnEnded(side=SIDES[who])
        elif move < 91 or not undo:
            event = TurnStarted(character=who)
        elif move < 96:
            event = Retract(event=f"#{draw(st.integers(2, len(log)))}")
        else:
            game = [i for i, e in enumerate(log, 1) if i > 1 and not isinstance(e, Retract | Amend)]
            event = Amend(
                event=f"#{draw(st.sampled_from(game))}",
                replacement=Hit(target=who, damage=draw(st.integers(0, 9))),
            )
        log.append(event)
    return log


def check_invariants(state: FightState[Any]) -> None:
    for c in state.characters.values():
        assert 0 <= c.hp <= c.stats["hp"]
        assert c.agony in (0, 1, 2)
        assert c.agony == 0 or c.state == "downed"
        assert c.fate != "undecided" or c.state == "downed"
        assert c.state != "stabilised" or c.hp == 0
        assert c.state not in ("downed", "stabilised") or c.fate in ("undecided", "hold_on")
        assert c.kind != "npc" or (c.state in ("upright", "dead") and c.injuries == ())


@settings(max_examples=200, deadline=None)
@given(d26_logs())
def test_a_random_stream_of_d26_events_never_crashes_replay(log: list[Event]) -> None:
    steps = replays_every_event(log)
    for state, _ in steps:
        check_invariants(state)


@settings(max_examples=200, deadline=None)
@given(d26_logs())
def test_no_d26_fold_makes_a_transition_outside_its_machine(log: list[Event]) -> None:
    moves_stay_in_the_machine("d26", log)


@settings(max_examples=200, deadline=None)
@given(d26_logs(undo=False))
def test_the_dead_stay_dead_and_only_rest_removes_fatigued(log: list[Event]) -> None:
    before: dict[str, Any] = {}
    for event, (state, _) in zip(log, replay(log), strict=True):
        for cid, c in state.characters.items():
            was = before.get(cid)
            if was is None:
                continue
            if was.state == "dead":
                assert c == was
            if was.fatigued and not c.fatigued:
                assert isinstance(event, Heal) and event.means == "rest"
        before = dict(state.characters)

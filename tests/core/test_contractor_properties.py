"""The contractor rules as hypothesis properties over random streams of contractor events."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.core import FightState, apply
from woundlog.core.rulesets.contractor import CONSTITUTION_PER_WOUND, ContractorSheet
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
from .test_contractor import HOUSE

CREW = ("cinder", "vex", "okoro")
GEAR = ("weapon_arm", "shield_arm", "back", "pack", "belt")
MEANS = ("mend", "treat_wound", "clinic", "prosthetic", "coiltech", "", "rest")
OPTIONS = ("head", "weapon_arm", "legs", "3", "7", "10", "gear:pack", "gear:belt", "tail")


@st.composite
def contractor_logs(draw: st.DrawFn, *, undo: bool = True) -> list[Event]:
    """A plausible contractor fight: every event named `eN`, so heals and choices can name the
    wounds (a wound's id is its hit's): hits (wound dice given or drawn, facts or not), heals of
    every means, the Foreman's choices, turn ticks, and with `undo` retracts and amends."""
    tables = draw(st.sampled_from([{}, HOUSE]))
    log: list[Event] = [
        FightStarted(
            ruleset="contractor",
            seed=draw(st.integers(0, 2**32)),
            tables=tables,
            options={"gear_absorbs": draw(st.booleans())},
        )
    ]
    for who in CREW:
        gear = draw(st.dictionaries(st.sampled_from(GEAR), st.sampled_from(["Kit"]), max_size=3))
        stats = {"constitution": draw(st.integers(1, 16)), "ap": draw(st.integers(0, 3))}
        log.append(CharacterJoined(character=who, side="crew", stats=stats, gear=gear))
    for move in draw(st.lists(st.integers(0, 99), min_size=3, max_size=40)):
        target = draw(st.sampled_from(CREW))
        hits = [f"e{i}" for i, e in enumerate(log, 1) if isinstance(e, Hit) and e.target == target]
        wound = draw(st.sampled_from(hits)) if hits and draw(st.integers(0, 4)) else None
        event: Event
        if move < 45:
            given = draw(st.lists(st.integers(1, 100), max_size=2))
            event = Hit(
                target=target,
                damage=draw(st.integers(0, 20)),
                rolls={"wound": given} if given else {},
                ignores_ap=draw(st.none() | st.booleans()),
                gear_absorbs=draw(st.none() | st.booleans()),
            )
        elif move < 65:
            event = Heal(
                target=target,
                amount=draw(st.integers(0, 6)),
                means=draw(st.sampled_from(MEANS)),
                wound=wound,
            )
        elif move < 75:
            option = draw(st.sampled_from(OPTIONS))
            if wound is not None and draw(st.booleans()):
                option = f"prosthetic_lost:{wound}"
            event = Choice(character=target, option=option)
        elif move < 82:
            event = draw(st.sampled_from([TurnStarted(side="crew"), TurnEnded(round=1)]))
        elif undo and move < 92:
            event = Retract(event=f"e{draw(st.integers(2, len(log)))}")
        elif undo and (game := amendable(log)):
            event = Amend(
                event=f"e{draw(st.sampled_from(game))}",
                replacement=Hit(target=target, damage=draw(st.integers(0, 20))),
            )
        else:
            event = Hit(target=target, damage=99)
        log.append(event)
    return [msgspec.structs.replace(e, id=f"e{i}") for i, e in enumerate(log, 1)]


def amendable(log: list[Event]) -> list[int]:
    """Positions of the events after the joins that are not undo events themselves."""
    after_joins = enumerate(log[len(CREW) + 1 :], len(CREW) + 2)
    return [i for i, e in after_joins if not isinstance(e, Retract | Amend)]


def layers_hold(sheet: ContractorSheet) -> None:
    """Counter, Constitution, Maximum HP and penalties always follow the active wounds."""
    assert sheet.wound_counter == len(sheet.injuries)
    expected: dict[str, int] = {}
    for wound in sheet.injuries:
        if not (wound.maimed and wound.prosthetic):
            for stat, value in wound.penalty.items():
                expected[stat] = expected.get(stat, 0) + value
    assert sheet.penalties == {k: v for k, v in expected.items() if v}
    base = sheet.stats["constitution"]
    con = (
        base - CONSTITUTION_PER_WOUND * sheet.wound_counter + sheet.penalties.get("constitution", 0)
    )
    assert sheet.constitution == sheet.max_hp == con
    assert (sheet.state == "dead") == (con <= 0)
    assert 0 <= sheet.hp <= max(sheet.max_hp, 0)
    if sheet.state != "dead":
        stopped = any(w.prevents_acting and not w.prosthetic for w in sheet.injuries)
        assert (sheet.state == "out_of_action") == stopped


@settings(max_examples=150, deadline=None)
@given(contractor_logs())
def test_a_random_stream_of_contractor_events_never_crashes_replay(log: list[Event]) -> None:
    replays_every_event(log)


@settings(max_examples=150, deadline=None)
@given(contractor_logs())
def test_no_contractor_fold_makes_a_transition_outside_the_machine(log: list[Event]) -> None:
    moves_stay_in_the_machine("contractor", log)


@settings(max_examples=150, deadline=None)
@given(contractor_logs())
def test_wound_layers_constitution_and_states_always_follow_the_active_wounds(
    log: list[Event],
) -> None:
    for state, _ in replay(log):
        for sheet in state.characters.values():
            layers_hold(sheet)


@settings(max_examples=150, deadline=None)
@given(contractor_logs(undo=False))
def test_death_is_permanent_nothing_changes_a_dead_contractor(log: list[Event]) -> None:
    dead: dict[str, Any] = {}
    for state, _ in replay(log):
        for cid, sheet in state.characters.items():
            if cid in dead:
                assert sheet == dead[cid]
            elif sheet.state == "dead":
                dead[cid] = sheet


@settings(max_examples=100, deadline=None)
@given(contractor_logs(undo=False))
def test_treating_every_wound_restores_constitution_penalties_and_counter(
    log: list[Event],
) -> None:
    state: FightState[Any] = list(replay(log))[-1][0]
    for cid, sheet in state.characters.items():
        if sheet.state == "dead":
            continue
        for wound in sheet.injuries:
            means = "coiltech" if wound.maimed else "mend"
            state, _ = apply(state, Heal(target=cid, amount=0, means=means, wound=wound.id))
        healed = state.characters[cid]
        assert healed.wound_counter == 0 and healed.penalties == {}
        assert healed.constitution == healed.max_hp == healed.stats["constitution"]
        assert healed.state == "upright"

"""DragonQuest invariants, as hypothesis properties over random streams of its events."""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

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

FIGURES = ("rolf", "gob", "wyrm")
SIDES = {"rolf": "company", "gob": "raiders", "wyrm": "raiders"}
d100 = st.integers(1, 100)
DICE = ("grievous", "drop", "stun_recovery", "knockback", "keep_feet")


@st.composite
def joins(draw: st.DrawFn, figure: str) -> CharacterJoined:
    stats = {
        "fatigue": draw(st.integers(0, 30)),
        "endurance": draw(st.integers(4, 25)),
        "willpower": draw(st.integers(0, 25)),
        "protection": draw(st.integers(0, 6)),
        "shield": draw(st.integers(0, 1)),
    }
    for house in ("physical_strength", "agility", "manual_dexterity"):
        if draw(st.integers(0, 3)):  # mostly known, so the house rules get exercised
            stats[house] = draw(st.integers(1, 12))
    return CharacterJoined(character=figure, side=SIDES[figure], stats=stats)


@st.composite
def rolls(draw: st.DrawFn) -> dict[str, list[int]]:
    purposes = draw(st.lists(st.sampled_from(DICE), unique=True, max_size=3))
    return {p: draw(st.lists(d100, min_size=1, max_size=2)) for p in purposes}


@st.composite
def hits(draw: st.DrawFn) -> Hit:
    facts: dict[str, Any] = {}
    style = draw(st.sampled_from(["plain", "band", "strike", "magic", "breath"]))
    if style == "band":
        facts["band"] = draw(st.sampled_from(["fatigue", "endurance", "grievous"]))
    elif style == "strike":
        facts["strike_chance"] = draw(st.integers(0, 120))
        facts["strike_roll"] = draw(d100)
    elif style in ("magic", "breath"):
        facts[style] = True
    if draw(st.booleans()):
        facts["weapon"] = draw(st.sampled_from(["A", "B", "C"]))
    for flag in ("cleave_shield", "slam"):
        if draw(st.integers(0, 5)) == 0:
            facts[flag] = True
    return Hit(
        target=draw(st.sampled_from(FIGURES)),
        damage=draw(st.integers(0, 20)),
        rolls=draw(rolls()),
        **facts,
    )


@st.composite
def heals(draw: st.DrawFn) -> Heal:
    pool: Literal["fatigue", "endurance"] | None = draw(
        st.sampled_from([None, "fatigue", "endurance"])
    )
    return Heal(
        target=draw(st.sampled_from(FIGURES)),
        amount=draw(st.integers(0, 10)),
        means=draw(st.sampled_from(["", "rest", "healer", "spell", "potion", "bandage"])),
        pool=pool,
    )


@st.composite
def ticks(draw: st.DrawFn) -> Event:
    scope = draw(st.sampled_from(["round", "side", "figure"]))
    kwargs: dict[str, Any] = {"rolls": draw(rolls())}
    if scope == "side":
        kwargs["side"] = draw(st.sampled_from(["company", "raiders"]))
    elif scope == "figure":
        kwargs["character"] = draw(st.sampled_from(FIGURES))
    if draw(st.integers(0, 2)) == 0:
        return TurnStarted(**kwargs)
    return TurnEnded(**kwargs)


@st.composite
def dragonquest_logs(draw: st.DrawFn, *, undo: bool = True) -> list[Event]:
    """A plausible DragonQuest fight: random house rules, three figures, hits of every kind
    (dice given or drawn), heals, pulses, standing up, and retracts and amends."""
    options: dict[str, bool | int | str] = {
        "strike_01_grievous": draw(st.booleans()),
        "knockback": draw(st.booleans()),
        "strict_dice": False,
    }
    log: list[Event] = [
        FightStarted(ruleset="dragonquest", seed=draw(st.integers(0, 2**32)), options=options)
    ]
    log.extend(draw(joins(figure)) for figure in FIGURES)
    for move in draw(st.lists(st.integers(0, 99), max_size=40)):
        event: Event
        if move < 50:
            event = draw(hits())
        elif move < 62:
            event = draw(heals())
        elif move < 82:
            event = draw(ticks())
        elif move < 88:
            event = Choice(
                character=draw(st.sampled_from(FIGURES)),
                option=draw(st.sampled_from(["stand_up", "stand_up", "flee"])),
            )
        elif undo and move < 94:
            event = Retract(event=f"#{draw(st.integers(2, len(log)))}")
        elif undo:
            game = [i for i, e in enumerate(log, 1) if i > 1 and not isinstance(e, Retract | Amend)]
            event = Amend(event=f"#{draw(st.sampled_from(game))}", replacement=draw(hits()))
        else:
            event = draw(hits())
        log.append(event)
    return log


def starting(log: list[Event]) -> dict[str, dict[str, int]]:
    return {e.character: e.stats for e in log if isinstance(e, CharacterJoined)}


@settings(max_examples=200, deadline=None)
@given(dragonquest_logs())
def test_a_random_stream_of_dragonquest_events_never_crashes_replay(log: list[Event]) -> None:
    replays_every_event(log)


@settings(max_examples=200, deadline=None)
@given(dragonquest_logs())
def test_no_dragonquest_fold_moves_outside_its_machine_and_none_leaves_dead(
    log: list[Event],
) -> None:
    moves_stay_in_the_machine("dragonquest", log)
    for _, changes in replay(log):
        for change in changes.characters:
            assert change.before != "dead" or change.after == "dead"


@settings(max_examples=200, deadline=None)
@given(dragonquest_logs())
def test_pools_stay_between_zero_and_their_starting_values(log: list[Event]) -> None:
    stats = starting(log)
    for state, _ in replay(log):
        for cid, figure in state.characters.items():
            assert 0 <= figure.fatigue <= stats[cid]["fatigue"]
            assert 0 <= figure.endurance <= stats[cid]["endurance"]
            assert 0 <= figure.protection <= stats[cid]["protection"]
            assert figure.shield <= stats[cid]["shield"]


@settings(max_examples=200, deadline=None)
@given(dragonquest_logs())
def test_endurance_decides_unconsciousness_and_death(log: list[Event]) -> None:
    for state, _ in replay(log):
        for figure in state.characters.values():
            assert (figure.state == "dead") == (figure.endurance == 0)
            assert (figure.state == "out_of_action") == (1 <= figure.endurance <= 3)


@settings(max_examples=200, deadline=None)
@given(dragonquest_logs(undo=False))
def test_one_strike_never_takes_both_fatigue_and_endurance(log: list[Event]) -> None:
    for event, (_, changes) in zip(log, replay(log), strict=True):
        if not isinstance(event, Hit) or event.magic or event.breath or changes.void:
            continue
        for change in changes.characters:
            lost = {k for k, (a, b) in change.counters.items() if k in ("fatigue", "endurance")}
            assert lost != {"fatigue", "endurance"}, changes.explanation


@settings(max_examples=100, deadline=None)
@given(dragonquest_logs())
def test_the_same_dragonquest_log_folds_to_the_same_json(log: list[Event]) -> None:
    first = [msgspec.json.encode(c) for _, c in replay(log)]
    again = [msgspec.json.encode(c) for _, c in replay(list(log))]
    assert first == again

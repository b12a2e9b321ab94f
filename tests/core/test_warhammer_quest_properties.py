"""Warhammer Quest over random streams of its own events, and its drawn dice against the odds."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.core import FightState, apply, get_ruleset
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
from woundlog.replays import replay, snapshots

from ..invariants import moves_stay_in_the_machine, replays_every_event

RULES = get_ruleset("warhammer_quest")
CHARACTERS = {"grim": "warrior", "ulf": "warrior", "orc": "monster", "troll": "monster"}
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def given_rolls(draw: st.DrawFn) -> dict[str, list[int]]:
    """Dice a recorder gave, each within its die: any of the ruleset's purposes."""
    purposes = draw(st.lists(st.sampled_from(sorted(RULES.dice)), max_size=4, unique=True))
    return {
        purpose: draw(st.lists(st.integers(1, RULES.dice[purpose]), min_size=1, max_size=3))
        for purpose in purposes
    }


@st.composite
def warhammer_quest_logs(
    draw: st.DrawFn, *, heals: bool = True, undo: bool = True, strict: bool = True
) -> list[Event]:
    """A plausible fight: warriors and monsters, hits (some to 0, some coups de grace, some by
    monsters on the fallen), heals by every means (some refused), ticks of every scope,
    choices, and, with `undo`, retracts and amends naming earlier events."""
    options: dict[str, bool | int | str] = {
        "monsters_go_down": draw(st.booleans()),
        "monster_serious_injuries": draw(st.booleans()),
        "healing_natural_one_kills": draw(st.booleans()),
    }
    if strict:
        options["strict_dice"] = draw(st.booleans())
    log: list[Event] = [
        FightStarted(ruleset="warhammer_quest", seed=draw(st.integers(0, 2**32)), options=options)
    ]
    for cid, kind in CHARACTERS.items():
        stats = {"wounds": draw(st.integers(1, 12))}
        stats.update(
            draw(
                st.dictionaries(
                    st.sampled_from(
                        ["movement", "weapon_skill", "toughness", "attacks", "battle_level"]
                    ),
                    st.integers(0, 6),
                    max_size=3,
                )
            )
        )
        log.append(CharacterJoined(character=cid, kind=kind, stats=stats))
    targets = st.sampled_from(sorted(CHARACTERS))
    for move in draw(st.lists(st.integers(0, 99), max_size=40)):
        rolls = draw(given_rolls())
        event: Event
        if move < 45:
            event = Hit(
                target=draw(targets),
                damage=draw(st.integers(0, 14)),
                attacker=draw(st.none() | targets),
                coup_de_grace=draw(st.none() | st.booleans()) if move < 8 else None,
                rolls=rolls,
            )
        elif move < 60 and heals:
            event = Heal(
                target=draw(targets),
                amount=draw(st.integers(0, 6)),
                means=draw(st.sampled_from(["", "bandage", "provisions", "potion", "spell", "x"])),
                items=draw(st.none() | st.integers(0, 3)),
                rolls=rolls,
            )
        elif move < 85:
            scope: dict[str, Any] = draw(
                st.sampled_from([{}, {}, {}, {"side": "warriors"}, {"character": "grim"}])
            )
            tick = TurnStarted if draw(st.booleans()) else TurnEnded
            event = tick(**scope, rolls=rolls)
        elif move < 88:
            event = Choice(character=draw(targets), option="hold_on")
        elif undo and move < 95:
            event = Retract(event=f"#{draw(st.integers(2, len(log)))}")
        elif undo:
            game = [i for i, e in enumerate(log, 1) if i > 1 and not isinstance(e, Retract | Amend)]
            replacement = Hit(target=draw(targets), damage=draw(st.integers(0, 12)), rolls=rolls)
            event = Amend(event=f"#{draw(st.sampled_from(game))}", replacement=replacement)
        else:
            event = TurnEnded(rolls=rolls)
        log.append(event)
    return log


def final(log: list[Event]) -> FightState[Any]:
    return list(replay(log))[-1][0]


@SETTINGS
@given(warhammer_quest_logs())
def test_a_random_stream_of_events_never_crashes_replay(log: list[Event]) -> None:
    replays_every_event(log)


@SETTINGS
@given(warhammer_quest_logs())
def test_no_fold_makes_a_transition_outside_the_machine(log: list[Event]) -> None:
    moves_stay_in_the_machine("warhammer_quest", log)


@SETTINGS
@given(warhammer_quest_logs(undo=False))
def test_the_dead_stay_dead_and_wounds_stay_between_zero_and_starting_wounds(
    log: list[Event],
) -> None:
    dead: set[str] = set()
    for state, _ in replay(log):
        for cid, character in state.characters.items():
            assert 0 <= character.wounds <= character.stats["wounds"]
            if cid in dead:
                assert character.state == "dead"
            if character.state == "dead":
                dead.add(cid)


@SETTINGS
@given(warhammer_quest_logs(heals=False, undo=False, strict=False))
def test_a_warrior_never_healed_ends_dead_stabilised_or_upright_after_enough_turns(
    log: list[Event],
) -> None:
    """Nobody is stuck: once the blows stop, ends of turn settle every warrior (and monster)."""
    settled = final([*log, *(TurnEnded() for _ in range(100))])
    for character in settled.characters.values():
        assert character.state in ("dead", "stabilised", "upright")


@settings(max_examples=60, deadline=None)
@given(warhammer_quest_logs())
def test_a_snapshot_of_any_state_decodes_to_the_same_state(log: list[Event]) -> None:
    state = final(log)
    assert msgspec.json.encode(snapshots.decode(snapshots.encode(state))) == msgspec.json.encode(
        state
    )


# --- drawn dice against the exact odds ----------------------------------------------------------

AFTER_ONE_TURN = {
    "dead": Fraction(3, 36) + Fraction(32, 36) * Fraction(1, 6),
    "stabilised": Fraction(32, 36) * Fraction(1, 6),
    "upright": Fraction(1, 36),
    "downed": Fraction(32, 36) * Fraction(4, 6),
}
"""After one hit to 0 and one end of turn: 11-13 dead at once; 66 up at the end of the turn;
every other result downed, then the Downed table: 1 dead, 2-5 downed, 6 stabilised."""


def test_drawn_dice_give_the_exact_odds_after_one_hit_to_zero_and_one_end_of_turn() -> None:
    assert sum(AFTER_ONE_TURN.values()) == 1
    start, _ = apply(None, FightStarted(ruleset="warhammer_quest", seed=35347216))
    # 12 Starting Wounds: an Internal Injury's 1d3 at this end of turn cannot kill him
    start, _ = apply(start, CharacterJoined(character="grim", stats={"wounds": 12}))
    n = 20_000
    counts = dict.fromkeys(AFTER_ONE_TURN, 0)
    for i in range(n):
        state, _ = apply(start, Hit(id=f"h{i}", target="grim", damage=12))
        state, _ = apply(state, TurnEnded(id=f"e{i}"))
        counts[state.characters["grim"].state] += 1
    for result, p in AFTER_ONE_TURN.items():
        sigma = (n * p * (1 - p)) ** 0.5
        assert abs(counts[result] - n * p) < 5 * sigma, (result, counts[result], float(n * p))

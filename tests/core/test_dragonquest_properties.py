"""DragonQuest invariants, as hypothesis properties over generated fights of its events.

The fights are built as they are played: each event is chosen from the fight as it stands (a
blow by a figure who may act, on one who is alive; a recovery die for a figure who is stunned;
standing up for one who is down), so that few events are void and the interesting states come
up. A test counts, over a fixed run, that every state and every kind of injury is reached.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import msgspec
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from woundlog.core import FightState, apply_or_void, get_ruleset
from woundlog.core.ruleset import ACTS
from woundlog.core.rulesets import dragonquest
from woundlog.events import (
    WIRE_VERSION,
    Amend,
    CharacterJoined,
    Choice,
    Event,
    FightStarted,
    GameEvent,
    Heal,
    Hit,
    Retract,
    TurnEnded,
    TurnStarted,
)
from woundlog.replays import replay, snapshots

from ..invariants import replays_every_event, undo_moves_no_other_die

RULES = get_ruleset("dragonquest")
SIDES = {"rolf": "company", "hake": "company", "gob": "raiders", "wyrm": "raiders"}
FIGURES = tuple(SIDES)
ACTING = ("upright", "knocked_down")
SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
d100 = st.integers(1, 100)


@st.composite
def joins(draw: st.DrawFn, figure: str) -> CharacterJoined:
    stats = {
        "fatigue": draw(st.integers(6, 30)),
        "endurance": draw(st.integers(6, 22)),
        "willpower": draw(st.integers(1, 20)),
        "protection": draw(st.integers(0, 5)),
        "shield": draw(st.integers(0, 1)),
    }
    for house in ("physical_strength", "agility", "manual_dexterity"):
        if draw(st.integers(0, 4)):  # mostly known, so the house rules get exercised
            stats[house] = draw(st.integers(3, 14))
    return CharacterJoined(character=figure, side=SIDES[figure], stats=stats)


def alive(state: FightState[Any]) -> list[str]:
    return [cid for cid, f in state.characters.items() if f.state != "dead"]


def acting(state: FightState[Any], besides: str | None = None) -> list[str]:
    return [cid for cid, f in state.characters.items() if f.state in ACTING and cid != besides]


@st.composite
def strike(draw: st.DrawFn, chance_at_most: int = 100) -> dict[str, Any]:
    """A successful Strike Check, low often enough to reach the Endurance and Grievous bands."""
    chance = draw(st.integers(10, chance_at_most))
    top = draw(st.sampled_from([chance, chance * 15 // 100, chance * 5 // 100]))
    return {"strike_chance": chance, "strike_roll": draw(st.integers(1, max(1, top)))}


@st.composite
def hits(draw: st.DrawFn, state: FightState[Any]) -> Hit:
    """A blow, a spell or a breath on a living figure, by one who may act (or an outsider)."""
    living = alive(state) or list(FIGURES)
    target = draw(st.sampled_from(living))
    figure = state.characters.get(target)
    actors = acting(state, besides=target)
    attacker = draw(st.sampled_from([*actors, None, "trap"])) if actors else None
    style = draw(
        st.sampled_from(["strike", "strike", "band", "parts", "magic", "surroundings", "breath"])
    )
    facts: dict[str, Any] = {}
    damage = draw(st.integers(0, 16))
    if style == "strike":
        facts.update(draw(strike()))
    elif style == "band":
        facts["band"] = draw(st.sampled_from(["fatigue", "endurance", "grievous"]))
    elif style == "parts":
        damage = 0
        facts["damage_roll"] = draw(st.integers(1, 10))
        facts["weapon_modifier"] = draw(st.integers(-2, 6))
        if draw(st.booleans()):
            facts["weapon_minimum"] = draw(st.integers(5, 15))
            facts["physical_strength"] = draw(st.integers(5, 30))
        if draw(st.booleans()):
            facts["rank"] = draw(st.integers(0, 9))
        if draw(st.integers(0, 4)) == 0:
            facts[draw(st.sampled_from(["thrown", "missile"]))] = True
        if draw(st.booleans()):
            facts.update(draw(strike(chance_at_most=60)))  # below every break band of +12
    elif style in ("magic", "breath"):
        facts[style] = True
    else:
        facts.update(magic=True, purely_magical=False)
    blow = style in ("strike", "band", "parts")
    if blow:
        facts["weapon"] = draw(st.sampled_from(["A", "B", "C"]))
        shielded = figure is not None and figure.shield and figure.protection
        if shielded and figure.state != "stunned" and draw(st.booleans()):
            facts["cleave_shield"] = True
        if state.options["knockback"] and draw(st.integers(0, 4)) == 0:
            facts["slam"] = True
    rolls: dict[str, list[int]] = {}
    if draw(st.booleans()):
        rolls["grievous"] = [draw(st.integers(1, 30))]  # mostly within the stand-in's ranges
    for purpose in ("drop", "knockback", "keep_feet"):
        if draw(st.integers(0, 2)) == 0:
            rolls[purpose] = [draw(d100)]
    return Hit(target=target, damage=damage, attacker=attacker, rolls=rolls, **facts)


@st.composite
def heals(draw: st.DrawFn, state: FightState[Any]) -> Heal:
    living = alive(state) or list(FIGURES)
    target = draw(st.sampled_from(living))
    healers = acting(state)
    means = draw(st.sampled_from(["rest", "healer", "spell", "potion"]))
    return Heal(
        target=target,
        amount=draw(st.integers(1, 10)),
        means=means,
        healer=draw(st.sampled_from([*healers, None])) if healers else None,
    )


@st.composite
def ticks(draw: st.DrawFn, state: FightState[Any]) -> Event:
    """The end of a pulse, mostly for the whole round, with each stunned figure's die given
    scoped to him (`stun_recovery@gob`) or left to be drawn."""
    if draw(st.integers(0, 5)) == 0:
        return TurnStarted()
    stunned = [cid for cid, f in state.characters.items() if f.state == "stunned"]
    rolls = {f"stun_recovery@{cid}": [draw(d100)] for cid in stunned if draw(st.booleans())}
    scope = draw(st.sampled_from(["round", "round", "round", "side", "figure"]))
    if scope == "side":
        return TurnEnded(side=draw(st.sampled_from(["company", "raiders"])), rolls=rolls)
    if scope == "figure":
        return TurnEnded(character=draw(st.sampled_from(FIGURES)), rolls=rolls)
    return TurnEnded(rolls=rolls)


@st.composite
def replacements(draw: st.DrawFn, state: FightState[Any]) -> GameEvent:
    return draw(st.one_of(hits(state), heals(state)))


@st.composite
def dragonquest_fights(draw: st.DrawFn, *, undo: bool = True) -> list[Event]:
    """A real fight, version 2: four figures on two sides, a dozen to forty events chosen from
    the fight as it stands (blows of every band, spells, breath, heals, pulses, standing up),
    and, with `undo`, a few retracts and amends of earlier events."""
    options: dict[str, bool | int | str] = {
        "strike_01_grievous": draw(st.booleans()),
        "knockback": draw(st.integers(0, 3)) > 0,
    }
    log: list[Event] = [
        FightStarted(
            ruleset="dragonquest",
            seed=draw(st.integers(0, 2**32)),
            options=options,
            version=WIRE_VERSION,
        ),
        *(draw(joins(figure)) for figure in FIGURES),
    ]
    state: Any = None
    for event in log:
        state, _ = apply_or_void(state, event)
    for _ in range(draw(st.integers(12, 40))):
        move = draw(st.integers(0, 99))
        event: Event
        down = [cid for cid, f in state.characters.items() if f.state == "knocked_down"]
        if move < 50:
            event = draw(hits(state))
        elif move < 62:
            event = draw(heals(state))
        elif move < 84:
            event = draw(ticks(state))
        elif move < 92 and down:
            event = Choice(character=draw(st.sampled_from(down)), option="stand_up")
        elif undo and move >= 95 and game_events(log):
            number = draw(st.sampled_from(game_events(log)))
            if draw(st.booleans()):
                event = Retract(event=f"#{number}")
            else:
                event = Amend(event=f"#{number}", replacement=draw(replacements(state)))
        else:
            event = draw(hits(state))
        log.append(event)
        if isinstance(event, Retract | Amend):
            state = list(replay(log))[-1][0]
        else:
            state, _ = apply_or_void(state, event)
    return log


def game_events(log: list[Event]) -> list[int]:
    """The numbers of the events after the joins that are no undo (those an undo may name)."""
    return [
        n
        for n, e in enumerate(log, 1)
        if n > len(FIGURES) + 1 and not isinstance(e, Retract | Amend)
    ]


def starting(log: list[Event]) -> dict[str, dict[str, int]]:
    return {e.character: e.stats for e in log if isinstance(e, CharacterJoined)}


# --- section 1: an undo never moves another figure's die ------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dragonquest_fights(), st.data())
def test_retracting_or_amending_any_event_changes_no_die_of_any_other(
    log: list[Event], data: st.DataObject
) -> None:
    steps = list(replay(log))
    for _, changes in steps:
        if changes.type == "turn_ended":  # a pulse's dice are each one figure's own
            assert all(die.character is not None for die in changes.dice), changes.dice
    stuns = [
        changes.seq
        for _, changes in steps
        if any(c.after == "stunned" != c.before for c in changes.characters)
        and changes.seq in game_events(log)
    ]
    if stuns and data.draw(st.booleans(), label="undo a stun"):
        number = data.draw(st.sampled_from(stuns), label="undone")
    else:
        number = data.draw(st.sampled_from([2, *game_events(log)]), label="undone")
    state = list(replay(log[: number - 1]))[-1][0] if number > 1 else None
    undo: Event
    if data.draw(st.booleans(), label="retract"):
        undo = Retract(event=f"#{number}")
    else:
        undo = Amend(event=f"#{number}", replacement=data.draw(replacements(state)))
    undone = log[number - 1].id or f"#{number}"
    undo_moves_no_other_die(log, undo, undone)


# --- what the generated fights reach --------------------------------------------------------

KINDS_OF_INJURY = (
    "fatigue damage",
    "endurance damage",
    "grievous injury",
    "armour lowered",
    "shield cloven",
    "stunned",
    "recovered from stun",
    "knocked down",
    "unconscious",
    "revived",
    "killed",
)


def kinds_of(changes: Any) -> set[str]:
    """The kinds of injury (and of getting over one) an event's changes show."""
    found: set[str] = set()
    for change in changes.characters:
        counters = change.counters
        for counter, kind in (
            ("fatigue", "fatigue damage"),
            ("endurance", "endurance damage"),
            ("protection", "armour lowered"),
            ("shield", "shield cloven"),
        ):
            if counter in counters and counters[counter][1] < counters[counter][0]:
                found.add(kind)
        if change.injuries:
            found.add("grievous injury")
        moved = (change.before, change.after)
        if change.after != change.before:
            found.add(
                {
                    "stunned": "stunned",
                    "knocked_down": "revived" if moved[0] == "out_of_action" else "knocked down",
                    "out_of_action": "unconscious",
                    "dead": "killed",
                    "upright": "recovered from stun" if moved[0] == "stunned" else "",
                }.get(change.after or "", "")
            )
    return found - {""}


def test_generated_fights_reach_every_state_and_every_kind_of_injury_with_few_void_events() -> None:
    states: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    events = voids = 0

    @settings(
        max_examples=300,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(dragonquest_fights())
    def count(log: list[Event]) -> None:
        nonlocal events, voids
        for state, changes in replay(log):
            events += 1
            voids += changes.void is not None
            kinds.update(kinds_of(changes))
            states.update({f.state for f in state.characters.values()})

    count()
    assert set(states) == set(RULES.graph.states), states
    assert set(kinds) == set(KINDS_OF_INJURY), kinds
    assert voids < events // 10, (voids, events)


def documented_states() -> dict[str, list[str]]:
    """The states the module's docstring lists as used, and those it says are not."""
    doc = dragonquest.__doc__ or ""
    block = doc.split("States in this game:\n", 1)[1].split("\n\n", 1)[0]
    used = re.findall(r"^  ([a-z_]+) {2,}", block, flags=re.MULTILINE)
    unused = re.findall(r"\(([a-z_]+(?: and [a-z_]+)*) (?:is|are) not used\.\)", block)
    return {"used": used, "unused": unused[0].split(" and ") if unused else []}


def test_the_machine_and_its_diagram_have_the_states_the_documentation_lists() -> None:
    documented = documented_states()
    assert documented["used"] == ["upright", "knocked_down", "stunned", "out_of_action", "dead"]
    assert documented["unused"] == ["downed", "stabilised"]
    assert list(RULES.graph.states) == documented["used"]
    drawn = re.findall(r'^  state "([a-z_]+)" as \1$', RULES.graph.mermaid(), flags=re.MULTILINE)
    assert drawn == documented["used"]
    moves = set(re.findall(r"^  ([a-z_]+) --> ([a-z_]+): ", RULES.graph.mermaid(), re.MULTILINE))
    assert {state for move in moves for state in move} == set(documented["used"])
    assert not any(source == "dead" for source, _ in moves)  # "Nothing leaves it"


def test_the_documented_who_may_act_agrees_with_the_table() -> None:
    doc = dragonquest.__doc__ or ""
    block = doc.split("Who may act", 1)[1].split("\n\n", 1)[0]
    documented: dict[str, tuple[bool, bool]] = {}
    for states, said in re.findall(r"^  ([a-z_, ]+?) {2,}(.+)$", block, flags=re.MULTILINE):
        for state in states.split(", "):
            documented[state] = (said.startswith("attack"), "heal" in said.split(":")[0])
    table = {
        state: (RULES.who_may_act.get(state, ACTS).attack, RULES.who_may_act.get(state, ACTS).heal)
        for state in RULES.graph.states
    }
    assert documented == table


# --- invariants of every generated fight ----------------------------------------------------


@SETTINGS
@given(dragonquest_fights())
def test_a_generated_fight_replays_and_its_every_state_survives_a_snapshot(
    log: list[Event],
) -> None:
    for state, _ in replays_every_event(log):
        assert msgspec.json.encode(snapshots.decode(snapshots.encode(state))) == (
            msgspec.json.encode(state)
        )


@SETTINGS
@given(dragonquest_fights())
def test_nothing_leaves_dead(log: list[Event]) -> None:
    for _, changes in replay(log):
        for change in changes.characters:
            assert change.before != "dead" or change.after == "dead"


@SETTINGS
@given(dragonquest_fights())
def test_pools_stay_between_zero_and_their_starting_values(log: list[Event]) -> None:
    stats = starting(log)
    for state, _ in replay(log):
        for cid, figure in state.characters.items():
            assert 0 <= figure.fatigue <= stats[cid]["fatigue"]
            assert 0 <= figure.endurance <= stats[cid]["endurance"]
            assert 0 <= figure.protection <= stats[cid]["protection"]
            assert figure.shield <= stats[cid]["shield"]


@SETTINGS
@given(dragonquest_fights())
def test_endurance_decides_unconsciousness_and_death(log: list[Event]) -> None:
    for state, _ in replay(log):
        for figure in state.characters.values():
            assert (figure.state == "dead") == (figure.endurance == 0)
            assert (figure.state == "out_of_action") == (1 <= figure.endurance <= 3)


@SETTINGS
@given(dragonquest_fights())
def test_only_the_stunned_carry_the_mark_of_the_pulse_of_their_stun(log: list[Event]) -> None:
    for state, _ in replay(log):
        for figure in state.characters.values():
            assert not figure.stunned_this_pulse or figure.state == "stunned"


@SETTINGS
@given(dragonquest_fights())
def test_nobody_who_may_not_act_strikes_or_heals(log: list[Event]) -> None:
    before: Any = None
    for state, changes in replay(log):
        event = log[changes.seq - 1]
        actor = event.attacker if isinstance(event, Hit) else None
        actor = event.healer if isinstance(event, Heal) else actor
        # an amended event replays as its replacement, whose actor may be another: pass over it
        replayed_as_written = changes.undone is None
        if (
            changes.void is None
            and actor is not None
            and before is not None
            and replayed_as_written
        ):
            figure = before.characters.get(actor)
            assert figure is None or figure.state in ACTING, changes.explanation
        before = state


@SETTINGS
@given(dragonquest_fights(undo=False))
def test_one_strike_never_takes_both_fatigue_and_endurance(log: list[Event]) -> None:
    for event, (_, changes) in zip(log, replay(log), strict=True):
        if not isinstance(event, Hit) or event.magic or event.breath or changes.void:
            continue
        for change in changes.characters:
            lost = {k for k, (a, b) in change.counters.items() if k in ("fatigue", "endurance")}
            assert lost != {"fatigue", "endurance"}, changes.explanation


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dragonquest_fights())
def test_the_same_dragonquest_log_folds_to_the_same_json(log: list[Event]) -> None:
    first = [msgspec.json.encode(c) for _, c in replay(log)]
    again = [msgspec.json.encode(c) for _, c in replay(list(log))]
    assert first == again

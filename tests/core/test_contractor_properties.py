"""The contractor rules as hypothesis properties over generated fights: several contractors,
several hits each, the Foreman's choices, treatments, prosthetics, undo."""

from __future__ import annotations

import functools
import inspect
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeVar

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.core import FightState, apply, apply_or_void, get_ruleset
from woundlog.core.rulesets import contractor
from woundlog.core.rulesets.contractor import ContractorSheet
from woundlog.core.states import STATES
from woundlog.events import (
    Amend,
    CharacterJoined,
    Choice,
    Event,
    FightStarted,
    Heal,
    Hit,
    Retract,
    RuleError,
    TurnEnded,
    TurnStarted,
)
from woundlog.replays import replay

from ..invariants import replays_every_event, undo_moves_no_other_die
from .test_contractor import HOUSE

RULES = get_ruleset("contractor")
CREW = ("cinder", "vex", "okoro", "brask")
SLOTS = ("weapon_arm", "shield_arm", "back", "pack", "belt")
OUTSIDERS = ("scrap hound", "saw drone", "press arm")
TREATMENTS = ("mend", "treat_wound", "clinic")
UNDO = (Retract, Amend)
T = TypeVar("T")


# --- generated fights ---------------------------------------------------------------------------


@functools.cache
def between(low: int, high: int) -> st.SearchStrategy[int]:
    """One integer strategy per range, built once: drawing is the cost, not building."""
    return st.integers(low, high)


class Dice:
    """What a generated fight draws from: a number, one of some things, a chance."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def number(self, low: int, high: int) -> int:
        return self.draw(between(low, high))

    def one_of(self, things: Sequence[T]) -> T:
        return things[self.number(0, len(things) - 1)]

    def chance(self, times: int, out_of: int) -> bool:
        return self.number(1, out_of) <= times


@st.composite
def contractor_fights(draw: st.DrawFn, *, undo: bool = True, version: int = 1) -> list[Event]:
    """A fight a Foreman could run: 2-4 contractors, then 10-40 events chosen from the fight as
    it stands (hits that take contractors to 0 HP, the Foreman placing location-10 wounds,
    treatments of the wounds there are, prosthetics and Coiltech on Maimed wounds, ordinary
    healing, turn ticks) and, with `undo`, a few retracts and amends. Every event is named `eN`
    (a wound's id is its hit's). Few events are void: an undo, or now and then a blow struck by
    a contractor who may not act."""
    dice = Dice(draw)
    start = FightStarted(
        ruleset="contractor",
        seed=dice.number(0, 2**32),
        tables=dice.one_of([{}, HOUSE]),
        options={"gear_absorbs": not dice.chance(1, 4)},
        version=version,
    )
    log: list[Event] = [start]
    attributes = RULES.table(apply(None, start)[0], "locations").attributes()
    for who in CREW[: dice.number(2, len(CREW))]:
        gear = {slot: "Kit" for slot in SLOTS if dice.chance(1, 3)}
        stats = {"constitution": dice.number(8, 28), "ap": dice.number(0, 2)}
        stats |= {a: dice.number(1, 14) for a in attributes if dice.chance(1, 2)}
        join = CharacterJoined(character=who, name=who.title(), side="crew", stats=stats, gear=gear)
        log.append(join)
    log = named(log)
    state = fold(log)
    for _ in range(dice.number(10, 40)):
        event = next_event(dice, state, log, undo)
        log = named([*log, event])
        state = fold(log) if isinstance(event, UNDO) else apply_or_void(state, log[-1])[0]
    return log


def named(log: list[Event]) -> list[Event]:
    return [e if e.id else msgspec.structs.replace(e, id=f"e{i}") for i, e in enumerate(log, 1)]


def fold(log: list[Event]) -> FightState[Any]:
    return list(replay(log))[-1][0]


def sheets(state: FightState[Any]) -> dict[str, ContractorSheet]:
    return dict(state.characters)


def living(state: FightState[Any]) -> list[str]:
    return [cid for cid, c in sheets(state).items() if c.state != "dead"]


def acting(state: FightState[Any]) -> list[str]:
    return [cid for cid, c in sheets(state).items() if c.state == "upright"]


def next_event(dice: Dice, state: FightState[Any], log: list[Event], undo: bool) -> Event:
    """One more event, from the fight as it stands."""
    alive = living(state)
    waiting = [cid for cid in alive if sheets(state)[cid].pending]
    if waiting and dice.chance(2, 3):
        return foreman_places(dice, state, dice.one_of(waiting))
    roll = dice.number(0, 99)
    fitted = [cid for cid in alive if any(w.prosthetic for w in sheets(state)[cid].injuries)]
    if fitted and roll < 20:  # a prosthetic is gear: see it take a wound
        return a_hit(dice, state, dice.one_of(fitted), to_zero=True)
    bare = [(c, w.id) for c in alive for w in sheets(state)[c].injuries if w.maimed]
    if bare and roll < 30:  # the Maimed want their prosthetics
        cid, wound = dice.one_of(bare)
        return Heal(target=cid, amount=0, means="prosthetic", wound=wound)
    if alive and roll < 50:
        return a_hit(dice, state, dice.one_of(alive))
    if alive and roll < 78:
        return a_heal(dice, state, dice.one_of(alive))
    if alive and roll < 82:
        offsets = [(c, w.id) for c in alive for w in sheets(state)[c].injuries if w.prosthetic]
        if offsets:
            cid, wound = dice.one_of(offsets)
            return Choice(character=cid, option=f"prosthetic_lost:{wound}", by="foreman")
    if undo and roll >= 93 and len(log) > len(state.characters) + 2:
        return an_undo(dice, state, log)
    return dice.one_of([TurnStarted(side="crew", round=1), TurnEnded(round=1)])


def attacker(dice: Dice, state: FightState[Any], target: str) -> str | None:
    """Mostly someone outside the fight or a contractor who may act; now and then (the GM's
    most common mistake) any contractor, who may be out of action or dead."""
    others = [cid for cid in acting(state) if cid != target]
    idle = [cid for cid in state.characters if cid != target and cid not in others]
    out = [cid for cid in idle if state.characters[cid].state == "out_of_action"]
    pick = dice.number(0, 19)
    if pick < 6 and others:
        return dice.one_of(others)
    if pick == 6 and (out or idle):
        return dice.one_of(out or idle)
    return None if pick < 11 else dice.one_of(OUTSIDERS)


def a_hit(dice: Dice, state: FightState[Any], target: str, *, to_zero: bool = False) -> Hit:
    """A hit; two in three take the target to 0 HP, with the wound die mostly given (mostly
    aimed at the location of a prosthetic, if one is fitted)."""
    sheet = sheets(state)[target]
    to_zero = to_zero or dice.chance(2, 3)
    damage = sheet.hp + sheet.ap + dice.number(0, 6) if to_zero else dice.number(0, 8)
    given: list[int] = []
    if dice.chance(4, 5):
        given = [dice.number(1, 100)]
        aims = [number_of(state, w.location) for w in sheet.injuries if w.prosthetic]
        if aims and dice.chance(3, 4):
            given = [dice.one_of([10, 40, 90, 90]) + dice.one_of(aims)]
    return Hit(
        target=target,
        damage=damage,
        attacker=attacker(dice, state, target),
        rolls={"wound": given} if given else {},
        ignores_ap=dice.one_of([None, None, True]),
        gear_absorbs=dice.one_of([None, None, None, True, False]),
    )


def number_of(state: FightState[Any], location: str) -> int:
    rows = RULES.table(state, "locations").rows
    return int(next(number for number, row in rows.items() if row.name == location))


def a_heal(dice: Dice, state: FightState[Any], target: str) -> Heal:
    """A treatment of one of the target's wounds, a prosthetic or Coiltech on a Maimed one, or
    ordinary healing; given by himself, a comrade who may act, or nobody named."""
    sheet = sheets(state)[target]
    healer = dice.one_of([None, *acting(state)])
    if sheet.state == "out_of_action" and dice.chance(1, 5):
        healer = target  # the GM's slip: he cannot Mend himself
    amount = dice.number(0, 6)
    plain = [w.id for w in sheet.injuries if not w.maimed]
    maimed = [w for w in sheet.injuries if w.maimed]
    choice = dice.number(0, 3)
    if plain and choice < 2:
        wound, means = dice.one_of(plain), dice.one_of(TREATMENTS)
        return Heal(target=target, amount=amount, means=means, wound=wound, healer=healer)
    if maimed and choice < 3:
        bare = [w.id for w in maimed if not w.prosthetic]
        if bare and dice.chance(3, 4):
            wound, means = dice.one_of(bare), "prosthetic"
        else:
            wound, means = dice.one_of([w.id for w in maimed]), "coiltech"
        return Heal(target=target, amount=amount, means=means, wound=wound, healer=healer)
    return Heal(target=target, amount=amount, means=dice.one_of(["", "rest"]), healer=healer)


def foreman_places(dice: Dice, state: FightState[Any], character: str) -> Choice:
    """The Foreman's choice for the oldest location-10 wound: a body location by name or by
    number, or gear the contractor carries."""
    sheet = sheets(state)[character]
    rows = RULES.table(state, "locations").rows
    options = [*rows, *(row.name for row in rows.values())]
    options += [f"gear:{slot}" for slot in sheet.gear] * 3
    return Choice(character=character, option=dice.one_of(options), by="foreman")


def an_undo(dice: Dice, state: FightState[Any], log: list[Event]) -> Event:
    """A retract of any event after the joins, or an amend of one that is no undo itself."""
    first = len(state.characters) + 2
    game = [f"e{i}" for i, e in enumerate(log, 1) if i >= first and not isinstance(e, UNDO)]
    if dice.chance(1, 2) or not game:
        return Retract(event=f"e{dice.number(first, len(log))}", reason="the Foreman's slip")
    replacement = Hit(target=dice.one_of(list(state.characters)), damage=dice.number(0, 20))
    return Amend(event=dice.one_of(game), replacement=replacement, reason="the right damage")


# --- what the generated fights reach ------------------------------------------------------------

DEFAULT_TYPES = [row.name for row in contractor.WOUND_TYPES.rows.values()]
HOUSE_TYPES = ["Bruise", "Fracture", "Knockout", "Gash"]
EVERY_KIND = [
    *(f"state {state}" for state in RULES.graph.states),
    "Lucky",
    "Maimed",
    *(f"type {name}" for name in dict.fromkeys([*DEFAULT_TYPES, *HOUSE_TYPES])),
    "location 10 waiting",
    "location 10 placed on the body",
    "location 10 pointed at gear",
    "gear takes a wound",
    "gear destroyed",
    "prosthetic fitted",
    "prosthetic takes a wound",
    "prosthetic destroyed",
    "prosthetic lost",
    "treatment",
    "coiltech",
    "refused: out of action may not act",
    "refused: the dead may not act",
    "undo",
]


def reached(log: list[Event]) -> tuple[Counter[str], int, int]:
    """What a fight reaches (states, wound kinds, gear and prosthetic outcomes), and how many
    of its events after the joins are void, out of how many."""
    seen: Counter[str] = Counter()
    void = events = 0
    for state, changes in replay(log):
        if changes.type in ("fight_started", "character_joined"):
            continue
        events += 1
        void += changes.void is not None
        if changes.void and "prevents acting" in changes.void:
            seen["refused: out of action may not act"] += 1
        if changes.void and changes.void.endswith("is dead, permanently"):
            seen["refused: the dead may not act"] += 1
        said = changes.explanation
        seen["undo"] += changes.type in ("retract", "amend")
        seen["Lucky"] += "Lucky:" in said
        seen["location 10 placed on the body"] += "the Foreman places" in said
        seen["location 10 pointed at gear"] += "at exposed gear" in said
        seen["treatment"] += any(f"{m} treats wound" in said for m in TREATMENTS)
        seen["coiltech"] += "Coiltech restores" in said
        seen["prosthetic fitted"] += "a prosthetic offsets" in said
        seen["prosthetic lost"] += "loses the prosthetic" in said
        for sheet in state.characters.values():
            seen[f"state {sheet.state}"] += 1
            for wound in sheet.injuries:
                seen[f"type {wound.type}"] += 1
                seen["Maimed"] += wound.maimed
            seen["location 10 waiting"] += bool(sheet.pending)
            for taken in sheet.gear_damage:
                on_prosthetic = taken.slot.startswith("prosthetic:")
                seen["prosthetic takes a wound" if on_prosthetic else "gear takes a wound"] += 1
                if taken.destroyed:
                    seen["prosthetic destroyed" if on_prosthetic else "gear destroyed"] += 1
    return seen, void, events


def test_300_generated_fights_reach_every_state_and_every_kind_of_wound() -> None:
    seen: Counter[str] = Counter()
    tally = {"void": 0, "events": 0, "fights": 0, "hits": 0}

    @settings(
        max_examples=300,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(contractor_fights())
    def count(log: list[Event]) -> None:
        kinds, void, events = reached(log)
        seen.update(kinds)
        tally["void"] += void
        tally["events"] += events
        tally["fights"] += 1
        tally["hits"] += sum(isinstance(e, Hit) for e in log)

    count()
    assert tally["fights"] == 300
    missing = [kind for kind in EVERY_KIND if not seen[kind]]
    assert not missing, (missing, seen)
    assert tally["hits"] >= 300 * 5  # several hits per fight
    assert tally["void"] * 10 < tally["events"], tally  # few void events


def documented_states() -> tuple[list[str], list[str]]:
    """The states the module docstring describes, and those it says are not used."""
    doc = inspect.getdoc(contractor) or ""
    block = doc.split("States in this game:\n", 1)[1].split("\n\n", 1)[0]
    used = re.findall(r"^  (\w+) {2,}", block, flags=re.MULTILINE)
    unused_line = re.search(r"^  \(([^)]*) are not used", block, flags=re.MULTILINE)
    assert unused_line is not None
    unused = re.findall(r"\w+", unused_line.group(1).replace(" and ", ", "))
    return used, unused


def test_the_machine_and_its_diagram_have_exactly_the_states_the_docstring_documents() -> None:
    used, unused = documented_states()
    assert list(RULES.graph.states) == used == ["upright", "out_of_action", "dead"]
    assert sorted(used + unused) == sorted(STATES)
    mermaid = RULES.graph.mermaid()
    assert re.findall(r'state "(\w+)" as', mermaid) == used
    edges = set(re.findall(r"^\s*(\w+) --> (\w+): (\w+)$", mermaid, flags=re.MULTILINE))
    assert edges == {
        ("upright", "out_of_action", "prevent_acting"),
        ("out_of_action", "upright", "act_again"),
        ("upright", "dead", "die"),
        ("out_of_action", "dead", "die"),
    }
    assert "[*] --> upright" in mermaid  # a contractor joins upright


# --- properties ---------------------------------------------------------------------------------


def shown_now(sheet: ContractorSheet) -> dict[str, Any]:
    """The sheet as the state JSON shows it: each stat under its own name at the top, an
    attribute only a fight's own table names in `own_attributes`."""
    shown = msgspec.to_builtins(sheet)
    return {**shown.pop("own_attributes"), **shown}


def layers_hold(sheet: ContractorSheet) -> None:
    """Counter, Constitution, Maximum HP, penalties and current stats always follow the wounds
    (placed, and waiting on location 10 where nothing could take them: no gear, no prosthetic)."""
    assert sheet.wound_counter == len(sheet.injuries) + sum(p.counted for p in sheet.pending)
    expected: dict[str, int] = {}
    for wound in sheet.injuries:
        if not (wound.maimed and wound.prosthetic):
            for stat, value in wound.penalty.items():
                expected[stat] = expected.get(stat, 0) + value
    assert sheet.penalties == {k: v for k, v in expected.items() if v}
    base = sheet.stats["constitution"]
    # the text: each active wound on the Wound Counter is -4 Constitution (and Maximum HP)
    con = base - 4 * sheet.wound_counter + sheet.penalties.get("constitution", 0)
    assert sheet.constitution == sheet.max_hp == con
    assert (sheet.state == "dead") == (con <= 0)
    assert 0 <= sheet.hp <= max(sheet.max_hp, 0)
    shown = shown_now(sheet)
    for stat, value in sheet.stats.items():
        if stat not in ("constitution", "ap", "motivation"):
            assert shown[stat] == value + sheet.penalties.get(stat, 0)
    for stat in ("perception", "vitality", "strength", "dexterity", "speed"):
        assert (shown[stat] is None) == (stat not in sheet.stats)
    if sheet.state != "dead":
        stopped = any(w.prevents_acting and not w.prosthetic for w in sheet.injuries) or any(
            p.prevents_acting for p in sheet.pending
        )
        assert (sheet.state == "out_of_action") == stopped


@settings(max_examples=150, deadline=None)
@given(contractor_fights())
def test_wound_layers_constitution_current_stats_and_states_always_follow_the_wounds(
    log: list[Event],
) -> None:
    for state, _ in replays_every_event(log):
        for sheet in state.characters.values():
            layers_hold(sheet)


@settings(max_examples=100, deadline=None)
@given(contractor_fights(undo=False))
def test_death_is_permanent_the_dead_take_nothing_and_act_no_more(log: list[Event]) -> None:
    dead: dict[str, Any] = {}
    for state, _ in replay(log):
        for cid, sheet in state.characters.items():
            if cid in dead:
                assert sheet == dead[cid]
            elif sheet.state == "dead":
                dead[cid] = sheet
    final = fold(log)
    other = next(iter(final.characters))
    for cid in dead:
        for event in (
            Hit(target=cid, damage=1),
            Heal(target=cid, amount=1),
            Choice(character=cid, option="head"),
            Hit(target=other, damage=1, attacker=cid),
            Heal(target=other, amount=1, healer=cid),
        ):
            with pytest.raises(RuleError, match="dead, permanently"):
                apply(final, event)


@settings(max_examples=100, deadline=None)
@given(contractor_fights(undo=False))
def test_treating_every_wound_restores_constitution_penalties_counter_and_current_stats(
    log: list[Event],
) -> None:
    state = fold(log)
    for cid, sheet in state.characters.items():
        if sheet.state == "dead":
            continue
        for _ in sheet.pending:  # the Foreman places each waiting wound first
            state, _ = apply(state, Choice(character=cid, option="1"))
        if state.characters[cid].state == "dead":  # a placed wound was his last: it counts now
            continue
        for wound in state.characters[cid].injuries:
            means = "coiltech" if wound.maimed else "mend"
            state, _ = apply(state, Heal(target=cid, amount=0, means=means, wound=wound.id))
        healed = state.characters[cid]
        if healed.state == "dead":  # a placed wound's Constitution penalty killed him
            continue
        assert healed.wound_counter == 0 and healed.penalties == {}
        assert healed.constitution == healed.max_hp == healed.stats["constitution"]
        shown = shown_now(healed)
        assert {k: shown[k] for k in healed.stats if k != "motivation"} == {
            k: v for k, v in healed.stats.items() if k != "motivation"
        }
        assert healed.state == "upright"


@settings(max_examples=100, deadline=None)
@given(contractor_fights(undo=False, version=2), st.data())
def test_retracting_or_amending_any_event_moves_no_other_events_die(
    log: list[Event], data: st.DataObject
) -> None:
    first = sum(isinstance(e, FightStarted | CharacterJoined) for e in log) + 1
    undone = f"e{data.draw(st.integers(first, len(log)), label='undone')}"
    undo: Event
    if data.draw(st.booleans(), label="retract"):
        undo = Retract(id="undo", event=undone)
    else:
        target = data.draw(st.sampled_from(list(fold(log).characters)), label="target")
        damage = data.draw(st.integers(0, 30), label="damage")
        undo = Amend(id="undo", event=undone, replacement=Hit(target=target, damage=damage))
    undo_moves_no_other_die(log, undo, undone)

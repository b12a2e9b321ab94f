"""Warhammer Quest over generated fights that play like real ones, and its drawn dice against
the odds.

The strategy folds as it draws, so each blow is struck by someone who may act at someone the
rules let him attack: several warriors and monsters (a healer among them, sometimes), several
hits each, ends and starts of turn with dice scoped to each character, heals of every means,
and undo. Few of its events are void (a test counts them)."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, TypeVar

import msgspec
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from woundlog.core import STATES, FightState, apply, apply_or_void, get_ruleset
from woundlog.events import (
    WIRE_VERSION,
    Amend,
    CharacterJoined,
    Event,
    FightStarted,
    Heal,
    Hit,
    Retract,
    TurnEnded,
    TurnStarted,
)
from woundlog.replays import replay, snapshots

from ..invariants import replays_every_event, undo_moves_no_other_die
from .test_warhammer_quest import BOOK

RULES = get_ruleset("warhammer_quest")
WARRIORS = ("grim", "ulf", "elwen", "magnus")
MONSTERS = ("orc", "troll", "goblin")
HEALER = "gorbag"
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TICK_DICE = ("downed", "internal_injury", "starting_wounds", "serious_injury")
START_DICE = ("stupidity", "insanity", "hallucinations", "frenzy", "recurring_pains")


T = TypeVar("T")


def pick(draw: st.DrawFn, items: Sequence[T]) -> T:
    """One of `items` (by index: a fresh sampled_from per draw costs more than the fold)."""
    return items[draw(st.integers(0, len(items) - 1))]


def d6s(draw: st.DrawFn, n: int = 1) -> list[int]:
    return [draw(st.integers(1, 6)) for _ in range(n)]


def upright(state: FightState[Any], ids: list[str]) -> list[str]:
    return [cid for cid in ids if state.characters[cid].state == "upright"]


def alive(state: FightState[Any], ids: list[str]) -> list[str]:
    return [cid for cid in ids if state.characters[cid].state != "dead"]


def warriors_of(state: FightState[Any]) -> list[str]:
    return [cid for cid, c in state.characters.items() if c.kind == "warrior"]


def monsters_of(state: FightState[Any]) -> list[str]:
    return [cid for cid, c in state.characters.items() if c.kind != "warrior"]


def a_hit(draw: st.DrawFn, state: FightState[Any], eid: str) -> Event | None:
    """A blow the rules allow: by someone upright of the other side (or by no one: a trap),
    at someone alive; a coup de grace or a pinned warrior's blow now and then."""
    warriors, monsters = warriors_of(state), monsters_of(state)
    targets = alive(state, warriors) + alive(state, monsters)
    fallen = [cid for cid in targets if state.characters[cid].state != "upright"]
    target = pick(draw, fallen if fallen and draw(st.booleans()) else targets or [""])
    if not target:
        return None
    character = state.characters[target]
    if character.kind == "warrior":
        standing = upright(state, warriors)
        can_strike = (
            upright(state, monsters) if character.state == "upright" or not standing else []
        )
    else:
        can_strike = upright(state, warriors)
    attacker = pick(draw, [*can_strike, *can_strike, None])
    rolls: dict[str, list[int]] = {}
    if draw(st.booleans()):  # given; What Doesn't Kill Me often, for its rare moves
        rolls["serious_injury"] = [6, 6] if draw(st.integers(0, 3)) == 0 else d6s(draw, 2)
    coup = pinned = None
    if character.kind != "warrior" and character.state == "downed" and attacker is not None:
        coup = pick(draw, [True, True, None])
    elif attacker is not None and draw(st.integers(0, 9)) == 0:
        pinned = character.state == "upright"  # a pinned warrior strikes whoever pins him
    damage = draw(st.integers(0, max(1, character.wounds + 2)))
    return Hit(
        id=eid,
        target=target,
        damage=0 if coup else damage,
        attacker=attacker,
        coup_de_grace=coup,
        pinned=pinned,
        rolls=rolls,
    )


def a_heal(draw: st.DrawFn, state: FightState[Any], eid: str) -> Event | None:
    """A heal the rules allow: an upright warrior's bandage, provisions or potion on a
    warrior, a healer monster's spell on a monster, or a stabilised warrior's own potion."""
    hurt = [cid for cid, c in state.characters.items() if c.state != "dead"]
    down_first = [cid for cid in hurt if state.characters[cid].state != "upright"]
    target = pick(draw, down_first + hurt or [""])
    if not target:
        return None
    character = state.characters[target]
    if character.kind == "warrior":
        means = pick(draw, ["bandage", "provisions", "potion", "spell"])
        healers: list[Any] = [*upright(state, warriors_of(state)), None]
        if character.state == "stabilised":
            means, healers = "potion", [target]
    else:
        means = "spell"
        healers = [cid for cid in upright(state, monsters_of(state)) if cid == HEALER] + [None]
    rolls = {"treatment": d6s(draw)} if draw(st.booleans()) else {}
    return Heal(
        id=eid,
        target=target,
        amount=draw(st.integers(0, 4)),
        means=means,
        healer=pick(draw, healers),
        items=pick(draw, [None, None, 1, 2]),
        rolls=rolls,
    )


def scoped(draw: st.DrawFn, state: FightState[Any], purposes: tuple[str, ...]) -> dict[str, Any]:
    """Dice a recorder gives at a tick, each scoped to the character it is for."""
    rolls: dict[str, list[int]] = {}
    for _ in range(draw(st.integers(0, 3))):
        cid, purpose = pick(draw, sorted(state.characters)), pick(draw, purposes)
        sides = RULES.dice[purpose]
        rolls[f"{purpose}@{cid}"] = [draw(st.integers(1, sides))]
    return rolls


def an_undo(draw: st.DrawFn, log: list[Event], state: FightState[Any], eid: str) -> Event:
    """A retract or an amend of an earlier event (a join, a blow, a heal, a tick, an undo)."""
    earlier = pick(draw, log[1:])
    target = earlier.id or ""
    if draw(st.booleans()) or isinstance(earlier, Retract | Amend):  # an undo is retracted
        return Retract(id=eid, event=target, reason="a mistake")
    victim = pick(draw, sorted(state.characters))
    replacement = Hit(target=victim, damage=draw(st.integers(0, 6)))
    return Amend(id=eid, event=target, replacement=replacement, reason="a mistake")


@st.composite
def warhammer_quest_logs(
    draw: st.DrawFn, *, heals: bool = True, undo: bool = True, moves: int = 40
) -> list[Event]:
    """A fight of draw version 2 (strict_dice never on): 2-4 warriors, 1-3 monsters and
    sometimes a healer monster; then hits, heals, ticks and undos, each chosen from the
    fight as it stands, every event with an id."""
    options: dict[str, bool | int | str] = {
        "monsters_go_down": pick(draw, [False, False, True]),
        "monster_serious_injuries": draw(st.booleans()),
        "healing_natural_one_kills": draw(st.booleans()),
    }
    seed = draw(st.integers(0, 2**32))
    log: list[Event] = [
        FightStarted(ruleset="warhammer_quest", seed=seed, options=options, version=WIRE_VERSION)
    ]
    cast = [
        *((cid, "warrior") for cid in WARRIORS[: draw(st.integers(2, 4))]),
        *((cid, "monster") for cid in MONSTERS[: draw(st.integers(1, 3))]),
        *([(HEALER, "healer_monster")] if draw(st.booleans()) else []),
    ]
    for cid, kind in cast:
        stats = {"wounds": draw(st.integers(1, 8))}
        profile = ("movement", "weapon_skill", "toughness", "attacks", "battle_level")
        for _ in range(draw(st.integers(0, 3))):
            stats[pick(draw, profile)] = draw(st.integers(0, 6))
        log.append(CharacterJoined(id=f"join-{cid}", character=cid, kind=kind, stats=stats))
    state: FightState[Any] | None = None
    for event in log:
        state, _ = apply(state, event)
    assert state is not None
    weights = ["hit"] * 9 + ["heal"] * (4 if heals else 0) + ["end"] * 4 + ["start"] * 2
    weights += ["undo"] if undo else []
    for n in range(draw(st.integers(10, moves))):
        eid = f"e{n}"
        kind = pick(draw, weights)
        event: Event | None = None
        if kind == "hit":
            event = a_hit(draw, state, eid)
        elif kind == "heal":
            event = a_heal(draw, state, eid)
        elif kind == "start":
            event = TurnStarted(id=eid, rolls=scoped(draw, state, START_DICE))
        elif kind == "undo":
            event = an_undo(draw, log, state, eid)
        if event is None:  # an end of turn, or nothing else left to do
            event = TurnEnded(id=eid, rolls=scoped(draw, state, TICK_DICE))
        log.append(event)
        if isinstance(event, Retract | Amend):
            state = list(replay(log))[-1][0]
        else:
            state, _ = apply_or_void(state, event)
    return log


def final(log: list[Event]) -> FightState[Any]:
    return list(replay(log))[-1][0]


@SETTINGS
@given(warhammer_quest_logs(undo=False))
def test_replay_folds_every_event_as_applying_them_one_by_one_does(log: list[Event]) -> None:
    """With no undo in the log, the replay is the plain fold of apply_or_void, event by event."""
    steps = replays_every_event(log)
    state: FightState[Any] | None = None
    for event, (replayed, _) in zip(log, steps, strict=True):
        state, _ = apply_or_void(state, event)
        assert msgspec.json.encode(state) == msgspec.json.encode(replayed)


@SETTINGS
@given(warhammer_quest_logs(), st.data())
def test_retracting_or_amending_any_event_moves_no_other_characters_die(
    log: list[Event], data: st.DataObject
) -> None:
    """DESIGN.md section 4: undoing X changes no die of any other (event, character) pair."""
    earlier = pick(data.draw, log[1:])
    undone = earlier.id or ""
    if data.draw(st.booleans()) or isinstance(earlier, Retract | Amend):
        undo: Event = Retract(id="undo", event=undone)
    else:
        target = pick(data.draw, sorted({e.target for e in log if isinstance(e, Hit)}))
        replacement = Hit(target=target, damage=data.draw(st.integers(0, 6)))
        undo = Amend(id="undo", event=undone, replacement=replacement)
    undo_moves_no_other_die(log, undo, undone)
    for _, changes in replay([*log, undo]):  # a turn's dice are each one character's own
        if changes.type in ("turn_started", "turn_ended"):
            assert all(die.character is not None for die in changes.dice), changes.dice


@SETTINGS
@given(warhammer_quest_logs())
def test_the_dead_stay_dead_and_wounds_stay_between_zero_and_starting_wounds(
    log: list[Event],
) -> None:
    dead: set[str] = set()
    for state, changes in replay(log):
        if changes.type in ("retract", "amend"):
            dead = {cid for cid, c in state.characters.items() if c.state == "dead"}
        for cid, character in state.characters.items():
            assert 0 <= character.wounds <= character.starting_wounds
            if cid in dead:
                assert character.state == "dead"
            if character.state == "dead":
                dead.add(cid)


@SETTINGS
@given(warhammer_quest_logs(heals=False, undo=False))
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


# --- what the generated fights reach ------------------------------------------------------------

SERIOUS_INJURY = re.compile(r"Serious Injury (\d\d): ")
DOWNED_RESULT = re.compile(r"Downed [\d+=]+: (succumbs|unconscious|stabilised|still unconscious)")
TREATMENT = re.compile(r"treatment \d: \w+ (not effective|effective)")


def test_generated_fights_reach_every_state_move_and_table_result() -> None:
    """Over 300 fixed examples: every state of the Machine, every move of its diagram, every
    result of the Serious Injuries table (by the text's name), every Downed and treatment
    result; several hits per character, heals, ticks and undos; under 5% of the events void."""
    reached: Counter[str] = Counter()
    moves: Counter[tuple[str, str]] = Counter()
    results: Counter[str] = Counter()
    events = voids = 0
    kinds: Counter[str] = Counter()
    hits_each: list[int] = []

    @settings(
        max_examples=300,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(warhammer_quest_logs())
    def collect(log: list[Event]) -> None:
        nonlocal events, voids
        kinds.update(type(event).__name__ for event in log)
        targets = Counter(event.target for event in log if isinstance(event, Hit))
        hits_each.extend(targets[e.character] for e in log if isinstance(e, CharacterJoined))
        for _, changes in replay(log):
            events += 1
            voids += changes.void is not None
            for change in changes.characters:
                reached[change.after] += 1
                if change.before is not None and change.before != change.after:
                    moves[(change.before, change.after)] += 1
            for number in SERIOUS_INJURY.findall(changes.explanation):
                results[BOOK[int(number)][0]] += 1
            results.update(DOWNED_RESULT.findall(changes.explanation))
            results.update(f"treatment {t}" for t in TREATMENT.findall(changes.explanation))

    collect()
    assert set(reached) == set(RULES.graph.states)
    assert set(moves) == RULES.graph.edges
    names = {name for name, _, _ in BOOK.values()}
    downed = {"succumbs", "unconscious", "stabilised", "still unconscious"}
    treatment = {"treatment effective", "treatment not effective"}
    assert set(results) == names | downed | treatment, sorted(names - set(results))
    assert voids < events // 20, (voids, events)
    assert statistics.mean(hits_each) >= 2, hits_each  # several blows a character, on the whole
    assert min(kinds[k] for k in ("Heal", "TurnStarted", "TurnEnded", "Retract", "Amend")) >= 50


def documented_states() -> tuple[set[str], set[str]]:
    """The states the module docstring lists under "States in this game", and those it says
    are not used."""
    doc = RULES.documentation()
    block = doc.split("States in this game:")[1].split("\n\n")[0]
    used = set(re.findall(r"^  (\w+)\s", block, re.MULTILINE))
    unused = re.search(r"\((.*) are not used\.\)", block)
    assert unused is not None
    return used, set(re.split(r", | and ", unused.group(1)))


def test_the_machine_and_its_diagram_have_the_states_the_documentation_lists() -> None:
    used, unused = documented_states()
    assert used == set(RULES.graph.states)
    assert used | unused == set(STATES)
    assert not used & unused
    diagram = RULES.graph.mermaid()
    drawn = set(re.findall(r'^\s*state "(\w+)" as', diagram, re.MULTILINE))
    assert drawn == used


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

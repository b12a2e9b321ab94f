"""d26 over generated fights: the rules' invariants hold at every step, an undo moves no other
character's die, the generated fights reach every state, outcome and injury of the game, and
the Machine, its diagram and the documentation name the same states."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from woundlog.core import FightState, apply_or_void, get_ruleset
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
    TurnEnded,
    TurnStarted,
)
from woundlog.replays import replay

from ..invariants import replays_every_event, undo_moves_no_other_die

CAST = {
    "mira": ("pc", "party"),
    "kael": ("pc", "party"),
    "bren": ("pc", "party"),
    "ghoul": ("npc", "foes"),
    "warden": ("legendary", "foes"),
    "hag": ("legendary", "foes"),
}
SIDES = ("party", "foes")
State = FightState[Any]


def folded(log: list[Event]) -> State:
    return list(replay(log))[-1][0]


def _pick(draw: st.DrawFn, among: list[str]) -> str:
    return draw(st.sampled_from(among))


def _hit(draw: st.DrawFn, state: State, *, attacker: str | None = None) -> Hit:
    """A blow on a living character, most by an upright enemy, near the 0 HP thresholds."""
    chars = state.characters
    living = [cid for cid, c in chars.items() if c.state != "dead"] or list(chars)
    standing = [cid for cid in living if chars[cid].state == "upright"]
    target = _pick(draw, standing if standing and draw(st.integers(0, 99)) < 75 else living)
    if attacker is None:
        able = [cid for cid, c in chars.items() if c.state == "upright" and cid != target]
        foes = [cid for cid in able if chars[cid].side != chars[target].side]
        roll = draw(st.integers(0, 99))
        if roll < 80 and (foes or able):
            attacker = _pick(draw, foes or able)
        elif roll < 95:
            attacker = draw(st.sampled_from([None, "trap"]))
        else:
            attacker = _pick(draw, list(chars))  # perhaps someone who may not act: void
    strength = None
    if chars[target].kind == "legendary" and draw(st.booleans()):
        # The Last Stand's blow hits at Hit Strength 3, reducible only to 2
        last_stand = chars[attacker].fate == "last_stand" if attacker in chars else False
        strength = draw(st.integers(2, 3) if last_stand else st.integers(0, 4))
    location = draw(st.lists(st.integers(1, 4), max_size=1))
    return Hit(
        target=target,
        damage=draw(st.integers(0, 9)),
        attacker=attacker,
        hit_strength=strength,
        rolls={"location": location} if location else {},
    )


def _heal(draw: st.DrawFn, state: State) -> Heal:
    """Heal checks on the dying (by another, upright character), potions, spells and rest."""
    chars = state.characters
    holding = [cid for cid, c in chars.items() if c.state == "downed" and c.fate == "hold_on"]
    stable = [cid for cid, c in chars.items() if c.state == "stabilised"]
    living = [cid for cid, c in chars.items() if c.state != "dead"] or list(chars)
    roll = draw(st.integers(0, 99))
    if stable and roll < 40:
        target, means = _pick(draw, stable), draw(st.sampled_from(["potion", "rest"]))
    elif holding and roll < 70:
        target, means = _pick(draw, holding), "heal_check"
    else:
        target = _pick(draw, living)
        means = draw(st.sampled_from(["potion", "spell", "rest", "heal_check", ""]))
        if chars[target].state == "downed":  # the dying cannot rest; a check needs a choice
            means = "potion"
    able = [cid for cid, c in chars.items() if c.state == "upright" and cid != target]
    roll = draw(st.integers(0, 99))
    healer: str | None = _pick(draw, able) if able and roll < 90 else "priest"
    if roll >= 97:
        healer = target  # the dying may not heal themselves: void
    check = draw(st.integers(10, 20)) if means == "heal_check" else None
    return Heal(
        target=target, amount=draw(st.integers(0, 4)), means=means, healer=healer, check=check
    )


def _hold_on_dice(draw: st.DrawFn, members: list[str]) -> dict[str, list[int]]:
    """Each member's own die, given scoped (`hold_on@mira`) or left to be drawn."""
    return {f"hold_on@{cid}": [draw(st.integers(1, 6))] for cid in members if draw(st.booleans())}


def _turn_end(draw: st.DrawFn, state: State, kind: int, round_: int) -> TurnEnded:
    chars = state.characters
    dying = [cid for cid, c in chars.items() if c.state == "downed"]
    if kind == 0:  # a character's turn ends: most often a dying one's
        often = dying and draw(st.integers(0, 99)) < 70
        who = _pick(draw, dying) if often else _pick(draw, list(chars))
        return TurnEnded(round=round_, character=who, rolls=_hold_on_dice(draw, [who]))
    if kind == 1:  # a side's turn ends: every member's
        side = draw(st.sampled_from(SIDES))
        members = [cid for cid, c in chars.items() if c.side == side]
        return TurnEnded(round=round_, side=side, rolls=_hold_on_dice(draw, members))
    return TurnEnded(round=round_)  # the round ends


def game_events(log: list[Event]) -> list[int]:
    """The positions of the events after the joins that an amend may replace (not undos)."""
    first = len(CAST) + 2
    return [n for n, e in enumerate(log, 1) if n >= first and not isinstance(e, Retract | Amend)]


def _undo(draw: st.DrawFn, state: State, log: list[Event]) -> Event:
    if not game_events(log):
        return _hit(draw, state)
    if draw(st.integers(0, 99)) < 60:
        return Retract(event=f"#{draw(st.integers(len(CAST) + 2, len(log)))}")
    return Amend(event=f"#{draw(st.sampled_from(game_events(log)))}", replacement=_hit(draw, state))


@st.composite
def d26_fights(
    draw: st.DrawFn, *, version: int = 2, undo: bool = True, max_moves: int = 60
) -> list[Event]:
    """A real d26 fight: three against three (pcs, an npc, legendary enemies) with a few HP,
    several hits on each, choices for whoever awaits one (a Last Stand followed at once by its
    action), heal checks by another character on the dying, potions and rest, character, side
    and round turn ends with each character's hold_on die given scoped or drawn, and with
    `undo` retracts and amends of earlier events. It folds as it goes, so almost every event
    makes sense where it stands: few are void."""
    log: list[Event] = [
        FightStarted(ruleset="d26", seed=draw(st.integers(0, 2**32)), version=version)
    ]
    for cid, (kind, side) in CAST.items():
        hp = draw(st.integers(1, 8))
        log.append(CharacterJoined(character=cid, side=side, kind=kind, stats={"hp": hp}))
    state = folded(log)
    round_ = 1
    for _ in range(draw(st.integers(20, max_moves))):
        chars = state.characters
        undecided = [cid for cid, c in chars.items() if c.fate == "undecided"]
        move = draw(st.integers(0, 99))
        events: list[Event]
        if undecided and move < 60:
            who = _pick(draw, undecided)
            option = draw(st.sampled_from(["hold_on", "hold_on", "last_stand"]))
            events = [Choice(character=who, option=option)]
        elif move < 40:
            events = [_hit(draw, state)]
        elif move < 52:
            events = [_heal(draw, state)]
        elif move < 92:
            kind = 0 if move < 68 else 1 if move < 78 else 2
            events = [_turn_end(draw, state, kind, round_)]
            round_ += kind == 2
        elif move < 94 or not undo:
            events = [TurnStarted(round=round_, character=_pick(draw, list(chars)))]
        else:
            events = [_undo(draw, state, log)]
        for event in events:
            log.append(event)
            if isinstance(event, Retract | Amend):
                state = folded(log)
            else:
                state = apply_or_void(state, event)[0]
        chosen = events[-1]
        if isinstance(chosen, Choice) and chosen.option == "last_stand" and draw(st.booleans()):
            action = _hit(draw, state, attacker=chosen.character)  # the one action, at once
            log.append(action)
            state = apply_or_void(state, action)[0]
    return log


def check_invariants(state: State) -> None:
    for c in state.characters.values():
        assert 0 <= c.hp <= c.stats["hp"]
        assert c.agony in (0, 1, 2)
        assert c.agony == 0 or c.state == "downed"
        assert c.fate != "undecided" or c.state == "downed"
        assert c.state != "stabilised" or c.hp == 0
        assert c.state not in ("downed", "stabilised") or c.fate in ("undecided", "hold_on")
        assert c.kind != "npc" or (c.state in ("upright", "dead") and c.injuries == ())
        assert (c.last_stand_at is not None) == (c.fate == "last_stand")


@settings(max_examples=100, deadline=None)
@given(d26_fights())
def test_every_step_of_a_generated_d26_fight_keeps_the_rules_invariants(log: list[Event]) -> None:
    for state, _ in replays_every_event(log):
        check_invariants(state)


@settings(max_examples=100, deadline=None)
@given(d26_fights(undo=False))
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


def pivotal(log: list[Event]) -> list[int]:
    """Positions of the events that took someone down or settled a fate: undoing one changes
    who rolls at every later turn end."""
    return [
        changes.seq
        for _, changes in replay(log)
        if changes.type == "choice"
        or any(c.after == "downed" != c.before for c in changes.characters)
    ]


@settings(max_examples=100, deadline=None)
@given(d26_fights(), st.data())
def test_retracting_or_amending_any_event_moves_no_die_of_any_other_event_or_character(
    log: list[Event], data: st.DataObject
) -> None:
    downing = pivotal(log)
    if downing and data.draw(st.booleans(), label="pivotal"):
        n = data.draw(st.sampled_from(downing), label="undone")
    else:
        n = data.draw(st.sampled_from(game_events(log) or [len(log)]), label="undone")
    if data.draw(st.booleans(), label="retract") or isinstance(log[n - 1], Retract | Amend):
        undo: Event = Retract(event=f"#{n}")
    else:
        damage = data.draw(st.integers(0, 9), label="damage")
        target = data.draw(st.sampled_from(list(CAST)), label="target")
        undo = Amend(event=f"#{n}", replacement=Hit(target=target, damage=damage))
    undo_moves_no_other_die(log, undo, f"#{n}")
    for _, changes in replay([*log, undo]):  # each die of a tick is one character's own
        assert changes.type != "turn_ended" or all(d.character for d in changes.dice), changes


# --- the generated fights reach the whole game ---------------------------------------------------

EXAMPLES = 300


def reached(log: list[Event]) -> set[str]:
    """What one fight reached: states, triggers of the Machine, fates, agony, injuries."""
    seen: set[str] = set()
    before: dict[str, Any] = {}
    for event, (state, changes) in zip(log, replay(log), strict=True):
        if changes.void is not None:
            seen.add("void")
        elif isinstance(event, Hit) and event.attacker in before:
            seen.update(["the Last Stand's action"] * (before[event.attacker].fate == "last_stand"))
        for cid, c in state.characters.items():
            seen.add(f"state {c.state}")
            if c.agony:
                seen.add("agony")
            if c.fate is not None:
                seen.add(f"fate {c.fate}")
            seen.update(f"injury {i}" for i in c.injuries)
            was = before.get(cid)
            if was is not None and was.state != c.state:
                seen.add(f"trigger {trigger(was, c, changes.type)}")
        before = dict(state.characters)
    return seen


def trigger(was: Any, now: Any, event: str) -> str:
    """The Machine's trigger of a move, told apart by the event that made it."""
    if (was.state, now.state) == ("downed", "dead"):
        return {"choice": "last_stand", "turn_ended": "die_in_agony"}.get(
            event, "another_fatal_injury"
        )
    return {
        ("upright", "downed"): "fatal_injury",
        ("upright", "dead"): "npc_dies",
        ("downed", "stabilised"): "stabilise",
        ("downed", "upright"): "stabilise_and_stand",
        ("stabilised", "upright"): "stand_up",
        ("stabilised", "dead"): "another_fatal_injury",
    }[(was.state, now.state)]


def test_generated_fights_reach_every_state_trigger_fate_and_injury_of_d26() -> None:
    counts: Counter[str] = Counter()
    events = voids = 0

    @settings(
        max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
        phases=[Phase.generate],
    )  # fmt: skip
    @given(d26_fights())
    def count(log: list[Event]) -> None:
        nonlocal events, voids
        counts["examples"] += 1
        counts.update(reached(log))
        steps = list(replay(log))
        events += len(steps)
        voids += sum(changes.void is not None for _, changes in steps)

    count()
    assert counts["examples"] == EXAMPLES
    graph = get_ruleset("d26").graph
    wanted = [
        *(f"state {s}" for s in graph.states),
        *(f"trigger {t}" for t in graph.triggers),
        "agony",
        "fate undecided",
        "fate hold_on",
        "fate last_stand",
        "the Last Stand's action",
        *(f"injury {severity} {location}"
          for severity in ("severe", "fatal")
          for location in ("arm", "leg", "internal", "head")),
    ]  # fmt: skip
    missing = {w: counts[w] for w in wanted if counts[w] < EXAMPLES // 30}
    assert not missing, (missing, counts)
    assert voids * 10 < events, (voids, events)  # real fights: few events are void


# --- the Machine, its diagram and the documentation agree ----------------------------------------


def documented_states() -> tuple[list[str], list[str]]:
    """The states the module docstring's "States in this game" lists, and those it says are
    not used."""
    text = get_ruleset("d26").documentation()
    section = text.split("States in this game:\n", 1)[1].split("\n\n", 1)[0]
    used = re.findall(r"^  ([a-z_]+) {2,}", section, flags=re.M)
    unused = re.search(r"\(([a-z_, ]+) (?:is|are) not used\.\)", section)
    assert unused is not None
    return used, re.split(r", | and ", unused.group(1))


def test_the_machine_its_diagram_and_the_documentation_name_the_same_states() -> None:
    graph = get_ruleset("d26").graph
    used, unused = documented_states()
    assert used == list(graph.states) == ["upright", "downed", "stabilised", "dead"]
    assert sorted(unused + used) == sorted(STATES)
    diagram = graph.mermaid()
    drawn = re.findall(r'^\s*state "([a-z_]+)" as', diagram, flags=re.M)
    assert drawn == used
    arrows = re.findall(r"^\s*([a-z_]+) --> ([a-z_]+): (.+)$", diagram, flags=re.M)
    declared = {
        (source, dest, trigger)
        for trigger, sources, dest in graph.transitions
        for source in ([sources] if isinstance(sources, str) else sources)
    }
    assert {
        (source, dest, trigger)
        for source, dest, triggers in arrows
        for trigger in triggers.split(" | ")
    } == declared
    assert all(source != "dead" for source, _, _ in declared)  # dead is final

"""The pure reducer: `apply(state, event) -> (state, changes)`.

It checks what every ruleset shares (the fight has begun and not ended, the character exists, the
facts are ones the ruleset reads), hands the event to its ruleset, and works out what changed.
Undo events (`retract`, `amend`) change nothing here: replays resolve them before folding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from woundlog.events import (
    Amend,
    CharacterJoined,
    Choice,
    Event,
    FightEnded,
    FightStarted,
    Heal,
    Hit,
    Retract,
    RuleError,
    StructuralError,
    TurnEnded,
    TurnStarted,
    WoundlogError,
    event_ref,
    facts_given,
    type_name,
)

from .changes import Changes, CharacterChange
from .dice import Dice
from .machine import IllegalTransition
from .ruleset import Context, Ruleset
from .rulesets import get_ruleset
from .state import Character, FightState, setup_of

State = FightState[Any]


def start(event: FightStarted) -> tuple[State, Changes]:
    """The fight a `fight_started` sets up; unknown rulesets, options or tables are refused."""
    eid = event_ref(event, 1)
    try:
        rules = get_ruleset(event.ruleset)
        options = rules.check_options(event.options)
        rules.check_tables(event.tables)
    except WoundlogError as exc:
        raise exc.located(event=eid) from None
    state = setup_of(event, options)
    said = f"{rules.name} fight begins" + (f": {event.name}" if event.name else "")
    return state, Changes(
        seq=1, event=eid, type="fight_started", explanation=said, unused=dict(event.rolls)
    )


def apply(state: State | None, event: Event) -> tuple[State, Changes]:
    """Fold one event into the fight. Raises StructuralError or RuleError when it is refused."""
    if state is None:
        if not isinstance(event, FightStarted):
            raise StructuralError(
                "a fight begins with `fight_started`", event=event_ref(event, 1), field="$.type"
            )
        return start(event)
    seq = state.seq + 1
    eid = event_ref(event, seq)
    if isinstance(event, FightStarted):
        raise StructuralError(
            "`fight_started` comes once, as the first event", event=eid, field="$.type"
        )
    rules = get_ruleset(state.ruleset)
    try:
        dice = Dice(
            state.seed, eid, event.rolls, rules.dice, strict=bool(state.options["strict_dice"])
        )
        ctx = Context(eid, dice, rules.graph, state.options)
        if isinstance(event, Retract | Amend):
            return _undo_marker(state, event, seq, eid)
        if state.ended:
            raise ctx.refuse("the fight has ended; undo `fight_ended` to go on")
        characters, ended = _resolve(rules, state, event, ctx)
    except WoundlogError as exc:
        raise exc.located(event=eid) from None
    new_state = msgspec.structs.replace(state, seq=seq, characters=characters, ended=ended)
    return new_state, Changes(
        seq=seq,
        event=eid,
        type=type_name(event),
        explanation="; ".join(ctx.said) or "no effect",
        characters=diff(rules, state.characters, characters),
        dice=dice.used,
        unused=dice.unused(),
    )


def apply_or_void(state: State | None, event: Event) -> tuple[State, Changes]:
    """Like `apply`, but a rule error voids the event instead of stopping the fold (replay)."""
    try:
        return apply(state, event)
    except RuleError as exc:
        if state is None:
            raise
        seq = state.seq + 1
        eid = event_ref(event, seq)
        changes = Changes(
            seq=seq, event=eid, type=type_name(event), explanation="", void=exc.message
        )
        return msgspec.structs.replace(state, seq=seq), changes


def skip(state: State, event: Event, undone: str) -> tuple[State, Changes]:
    """Pass over an event a later undo retracted: it keeps its position and does nothing."""
    seq = state.seq + 1
    changes = Changes(
        seq=seq,
        event=event_ref(event, seq),
        type=type_name(event),
        explanation="not replayed",
        undone=undone,
    )
    return msgspec.structs.replace(state, seq=seq), changes


def _undo_marker(state: State, event: Retract | Amend, seq: int, eid: str) -> tuple[State, Changes]:
    verb = "retracts" if isinstance(event, Retract) else "amends"
    said = f"{verb} {event.event}" + (f" ({event.reason})" if event.reason else "")
    changes = Changes(seq=seq, event=eid, type=type_name(event), explanation=said)
    return msgspec.structs.replace(state, seq=seq), changes


def _resolve(
    rules: Ruleset, state: State, event: Event, ctx: Context
) -> tuple[dict[str, Character], bool]:
    characters = state.characters
    updated: Mapping[str, Character]
    match event:
        case CharacterJoined():
            if event.character in characters:
                raise ctx.refuse(f"{event.character} has already joined", "$.character")
            updated = {event.character: rules.join(state, event, ctx)}
            ctx.say(f"{updated[event.character].name} joins ({updated[event.character].state})")
        case Hit():
            _check_facts(rules.hit_facts, event, ctx)
            target = _character(state, event.target, "$.target", ctx)
            updated = {event.target: rules.on_hit(state, target, event, ctx)}
        case Heal():
            _check_facts(rules.heal_facts, event, ctx)
            target = _character(state, event.target, "$.target", ctx)
            updated = {event.target: rules.on_heal(state, target, event, ctx)}
        case Choice():
            chooser = _character(state, event.character, "$.character", ctx)
            updated = {event.character: rules.on_choice(state, chooser, event, ctx)}
        case TurnStarted() | TurnEnded():
            _check_scope(state, event, ctx)
            if isinstance(event, TurnStarted):
                updated = rules.on_turn_started(state, event, ctx)
            else:
                updated = rules.on_turn_ended(state, event, ctx)
        case FightEnded():
            ctx.say("the fight ends")
            return characters, True
        case _:
            raise AssertionError(f"unhandled event {event!r}")
    if not updated:
        return characters, False
    return {**characters, **updated}, False


def _character(state: State, character_id: str, field: str, ctx: Context) -> Any:
    character = state.characters.get(character_id)
    if character is None:
        joined = ", ".join(state.characters) or "nobody yet"
        raise ctx.refuse(f"no character `{character_id}` in this fight (joined: {joined})", field)
    return character


def _check_facts(used: frozenset[str], event: Hit | Heal, ctx: Context) -> None:
    for fact in facts_given(event):
        if fact not in used:
            raise ctx.refuse(
                f"this ruleset does not use the fact `{fact}` on a {type_name(event)}", f"$.{fact}"
            )


def _check_scope(state: State, turn: TurnStarted | TurnEnded, ctx: Context) -> None:
    if turn.character is not None:
        _character(state, turn.character, "$.character", ctx)
    elif turn.side is not None and not any(c.side == turn.side for c in state.characters.values()):
        sides = ", ".join(dict.fromkeys(c.side for c in state.characters.values())) or "none yet"
        raise ctx.refuse(f"no character is on side `{turn.side}` (sides: {sides})", "$.side")


def diff(
    rules: Ruleset,
    before: Mapping[str, Character],
    after: Mapping[str, Character],
    *,
    moves: bool = True,
) -> list[CharacterChange]:
    """Per character that changed: its state before and after, counters, injuries gained.

    With `moves` (one event's effect), every state move must be one the ruleset's Machine
    declares; anything else is a bug. Without (an undo's consequences), any difference is shown,
    and a character the undo removed shows `after` as None.
    """
    changes: list[CharacterChange] = []
    for cid, now in after.items():
        was = before.get(cid)
        if was is now or was == now:
            continue
        if was is None:
            if now.state not in rules.graph.states:
                raise IllegalTransition(f"{rules.name}: {cid} joined in undeclared {now.state}")
            changes.append(
                CharacterChange(character=cid, name=now.name, before=None, after=now.state)
            )
            continue
        if moves and not rules.graph.allows(was.state, now.state):
            raise IllegalTransition(f"{rules.name}: {cid} moved {was.state} -> {now.state}")
        counters: dict[str, tuple[Any, Any]] = {}
        injuries: list[Any] = []
        for field in now.__struct_fields__:
            old, new = getattr(was, field), getattr(now, field)
            if old == new or field == "state":
                continue
            if field == "injuries" and new[: len(old)] == old:
                injuries = list(new[len(old) :])
            elif isinstance(new, dict):
                for key in dict.fromkeys([*old, *new]):
                    if old.get(key) != new.get(key):
                        counters[f"{field}.{key}"] = (old.get(key), new.get(key))
            else:
                counters[field] = (old, new)
        changes.append(
            CharacterChange(
                character=cid,
                name=now.name,
                before=was.state,
                after=now.state,
                counters=counters,
                injuries=injuries,
            )
        )
    if not moves:
        changes.extend(
            CharacterChange(character=cid, name=was.name, before=was.state, after=None)
            for cid, was in before.items()
            if cid not in after
        )
    return changes

"""The start and the end of the turn: head wounds and pains; standing up, the Downed table,
Internal Injury."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from woundlog.events import TurnEnded, TurnStarted

from ...ruleset import Context
from ...states import DEAD, DOWNED, KNOCKED_DOWN, STABILISED, UPRIGHT
from .blows import take_wounds
from .tables import MIND_INJURIES, RECURRING_PAINS, Tables
from .warrior import STABILISED_WOUNDS, STANDS_ON, Warrior, plural, replace, times_gained


def whole_turn(turn: TurnStarted | TurnEnded) -> bool:
    return turn.side is None and turn.character is None


def start_of_turn(warrior: Warrior, ctx: Context, tables: Tables) -> Warrior:
    """Head wounds roll for the upright; Recurring Pains for the upright and the stabilised."""
    effects: list[str] = []
    if warrior.state == UPRIGHT:
        for purpose, table in MIND_INJURIES:
            if times_gained(warrior, purpose):
                roll = ctx.roll(purpose)
                effect = table[roll]
                ctx.say(
                    "{warrior.name}: {purpose} {roll}: {effect}",
                    warrior=warrior,
                    purpose=purpose,
                    roll=roll,
                    effect=effect or "no effect",
                )
                if effect:
                    effects.append(f"{purpose}: {effect}")
    if warrior.state in (UPRIGHT, STABILISED) and times_gained(warrior, "recurring_pains"):
        warrior = recurring_pains(warrior, ctx, tables, effects)
    if tuple(effects) != warrior.this_turn:
        warrior = replace(warrior, this_turn=tuple(effects))
    return warrior


def recurring_pains(warrior: Warrior, ctx: Context, tables: Tables, effects: list[str]) -> Warrior:
    """On a 1, 1d3 wounds with no modifiers, and -1 Toughness for the turn."""
    roll = ctx.roll("recurring_pains")
    if not RECURRING_PAINS[roll]:
        ctx.say("{warrior.name}: recurring_pains {roll}: no effect", warrior=warrior, roll=roll)
        return warrior
    pain = ctx.roll("recurring_pains_wounds")
    ctx.say(
        "{warrior.name}: recurring_pains {roll}: {pain}",
        warrior=warrior,
        roll=roll,
        pain=plural(pain, "wound"),
    )
    effects.append("recurring_pains: -1 Toughness this turn")
    return take_wounds(warrior, pain, ctx, tables)


def end_of_turn(warrior: Warrior, ctx: Context, tables: Tables) -> Warrior:
    """In order: a knocked-down warrior stands, a downed one rolls, an Internal Injury bleeds."""
    if warrior.state == KNOCKED_DOWN:
        warrior = stand_back_up(warrior, ctx)
    elif warrior.state == DOWNED:
        warrior = downed_roll(warrior, ctx, tables)
    if warrior.internal_bleeding and warrior.state != DEAD:
        warrior = internal_injury_bleeds(warrior, ctx)
    return replace(warrior, this_turn=()) if warrior.this_turn else warrior


def stand_back_up(warrior: Warrior, ctx: Context) -> Warrior:
    """What Doesn't Kill Me: up on 1 wound, +1d3 Starting Wounds for each 66 owed."""
    gained = sum(ctx.roll("starting_wounds") for _ in range(warrior.stronger))
    starting = warrior.starting_wounds + gained
    wounds = max(STANDS_ON, warrior.wounds)
    ctx.say(
        "{warrior.name} stands back up on {wounds}, +{gained} Starting Wounds "
        "({warrior.starting_wounds} -> {starting})",
        warrior=warrior,
        wounds=plural(wounds, "wound"),
        gained=gained,
        starting=starting,
    )
    up = replace(warrior, starting_wounds=starting, wounds=wounds, stronger=0)
    return ctx.move(up, "stand_back_up")


def downed_roll(warrior: Warrior, ctx: Context, tables: Tables) -> Warrior:
    """The Downed table at the end of the turn: he dies, stays unconscious, or stabilises."""
    roll = ctx.roll("downed")
    result = tables.downed[roll]
    if result == "dead":
        ctx.say("{warrior.name}: Downed {roll}: succumbs to his wounds", warrior=warrior, roll=roll)
        return ctx.move(warrior, "succumb")
    if result == "stabilised":
        ctx.say("{warrior.name}: Downed {roll}: stabilised on 1 wound", warrior=warrior, roll=roll)
        return ctx.move(replace(warrior, wounds=STABILISED_WOUNDS), "stabilise")
    ctx.say("{warrior.name}: Downed {roll}: unconscious", warrior=warrior, roll=roll)
    return warrior


def internal_injury_bleeds(warrior: Warrior, ctx: Context) -> Warrior:
    """Internal Injury: -1d3 Starting Wounds for good (for each one); at 0 he is dead."""
    loss = sum(ctx.roll("internal_injury") for _ in range(warrior.internal_bleeding))
    starting = max(0, warrior.starting_wounds - loss)
    ctx.say(
        "{warrior.name}'s Internal Injury: -{loss} Starting Wounds ({warrior.starting_wounds} -> "
        "{starting})",
        warrior=warrior,
        loss=loss,
        starting=starting,
    )
    bled = replace(
        warrior,
        starting_wounds=starting,
        wounds=min(warrior.wounds, starting),
    )
    if starting > 0:
        return bled
    ctx.say("{warrior.name} bleeds out: dead", warrior=warrior)
    return ctx.move(bled, "bleed_out")


def each(
    characters: Mapping[str, Warrior], step: Callable[[str, Warrior], Warrior]
) -> dict[str, Warrior]:
    """`step` for each of `characters` (those a tick concerns), in join order; those it changed."""
    updated: dict[str, Warrior] = {}
    for cid, character in characters.items():
        after = step(cid, character)
        if after is not character:
            updated[cid] = after
    return updated

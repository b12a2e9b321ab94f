"""Reduced to zero wounds: the Serious Injuries roll and what each result does to him."""

from __future__ import annotations

from collections.abc import Callable

from ...ruleset import Context
from ...states import DOWNED, KNOCKED_DOWN
from .body import (
    body_changes,
    ear_loss,
    eye_loss,
    retire_if_crippled,
    severed_arm,
    severed_fingers,
    severed_foot,
    severed_hand,
    severed_leg,
)
from .tables import INJURIES, Tables
from .warrior import Warrior, adjust, replace, times_gained


def d66(ctx: Context) -> int:
    """A D66: two d6 of purpose `serious_injury`, tens then units."""
    tens = ctx.roll("serious_injury")
    return 10 * tens + ctx.roll("serious_injury")


def serious_injury(warrior: Warrior, ctx: Context, tables: Tables) -> Warrior:
    """Reduced to zero wounds: one roll on the Serious Injuries table, and its result."""
    roll = d66(ctx)
    result = tables.serious_injuries[roll]
    if result == "decapitated":
        return decapitated(warrior, roll, ctx)
    if result == "what_doesnt_kill_me":
        return what_doesnt_kill_me(warrior, roll, ctx)
    return laid_down(suffer(warrior, result, roll, ctx), ctx)


def decapitated(warrior: Warrior, roll: int, ctx: Context) -> Warrior:
    """Dead at once, with no opportunity to roll on the Downed table."""
    ctx.say(
        "Serious Injury {roll}: Decapitated: {warrior.name} is dead", roll=roll, warrior=warrior
    )
    dead = replace(warrior, injuries=(*warrior.injuries, INJURIES["decapitated"].name), stronger=0)
    return ctx.move(dead, "decapitate")


def what_doesnt_kill_me(warrior: Warrior, roll: int, ctx: Context) -> Warrior:
    """He shrugs off the blow: down until the end of the turn, then up on 1 wound, stronger."""
    ctx.say(
        "Serious Injury {roll}: What Doesn't Kill Me: {warrior.name} shrugs it off and stands at "
        "the end of the turn",
        roll=roll,
        warrior=warrior,
    )
    rising = replace(warrior, stronger=warrior.stronger + 1)
    return rising if rising.state == KNOCKED_DOWN else ctx.move(rising, "shrug_off")


def laid_down(warrior: Warrior, ctx: Context) -> Warrior:
    """Any other result: Down and unconscious, and he may die at the end of the turn."""
    ctx.say("{warrior.name} is Down and unconscious", warrior=warrior)
    downed = replace(warrior, stronger=0)
    return downed if downed.state == DOWNED else ctx.move(downed, "go_down")


def suffer(warrior: Warrior, result: str, roll: int, ctx: Context) -> Warrior:
    """Gain the result: what it takes, its stat changes, and retirement if it cripples him."""
    injury = INJURIES[result]
    if result == "nothing_too_serious":
        ctx.say("Serious Injury {roll}: {injury.name}", roll=roll, injury=injury)
        return warrior
    if injury.once and times_gained(warrior, result):
        ctx.say(
            "Serious Injury {roll}: {injury.name}, which he already has: Nothing Too Serious",
            roll=roll,
            injury=injury,
        )
        return warrior
    hurt, detail = warrior, ""
    special = SPECIAL.get(result)
    if special is not None:
        done = special(warrior, ctx)
        if done is None:
            ctx.say(
                "Serious Injury {roll}: {injury.name}, but he has nothing left for it to take: "
                "Nothing Too Serious",
                roll=roll,
                injury=injury,
            )
            return warrior
        hurt, detail = done
    changes = {**injury.stats}
    for stat, delta in body_changes(warrior.lost, hurt.lost).items():
        changes[stat] = changes.get(stat, 0) + delta
    entry = injury.name + (f" ({detail})" if detail else "")
    ctx.say(
        "Serious Injury {roll}: {entry}: {injury.effect}", roll=roll, entry=entry, injury=injury
    )
    hurt = adjust(replace(hurt, injuries=(*hurt.injuries, entry)), changes)
    return retire_if_crippled(hurt, ctx)


def internal_injury(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """His vitals bleed from the end of this turn until he is healed to half wounds."""
    return replace(warrior, internal_bleeding=warrior.internal_bleeding + 1), ""


def partial_paralysis(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """A second time he is fully paralysed; after that there is nothing more to take."""
    if times_gained(warrior, "partial_paralysis") >= 2:
        return None
    return warrior, "fully paralysed" if times_gained(warrior, "partial_paralysis") else ""


def horrible_scars(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """Fear equal to 150% of his battle level, rounded up."""
    level = warrior.stats.get("battle_level")
    return warrior, "" if level is None else f"Fear {(3 * level + 1) // 2}"


SPECIAL: dict[str, Callable[[Warrior, Context], tuple[Warrior, str] | None]] = {
    "severed_leg": severed_leg,
    "severed_arm": severed_arm,
    "internal_injury": internal_injury,
    "eye_loss": eye_loss,
    "ear_loss": ear_loss,
    "severed_foot": severed_foot,
    "severed_hand": severed_hand,
    "severed_fingers": severed_fingers,
    "partial_paralysis": partial_paralysis,
    "horrible_scars": horrible_scars,
}
"""Results that take something or work something out; the rest only change stats."""

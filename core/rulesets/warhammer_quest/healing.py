"""Healing: bandages, provisions, potions and spells, on the downed and on the living."""

from __future__ import annotations

from woundlog.events import Heal

from ...ruleset import Context
from ...states import STABILISED
from .tables import Tables
from .warrior import STABILISED_WOUNDS, Warrior, half, is_monster, plural, replace

MEANS = ("bandage", "provisions", "potion", "spell")
NEEDS_TREATMENT = ("bandage", "provisions")  # "bandages etc.": applied, so they may not work
TREATMENT_WORKS = 4  # "a 4+ must be rolled on a d6"


def check_means(target: Warrior, heal: Heal, ctx: Context) -> None:
    if heal.means and heal.means not in MEANS:
        raise ctx.refuse(
            f"no means `{heal.means}` in Warhammer Quest: use bandage or provisions (on a "
            "downed warrior they need a 4+ first), potion or spell (they do not); record "
            "another item as the one that works like it",
            "$.means",
        )
    if is_monster(target) and heal.means not in ("", "spell"):
        raise ctx.refuse(
            f"{target.name} is a monster: only a spellcaster's healing spell heals it "
            "(means `spell`)",
            "$.means",
        )


def treat_downed(warrior: Warrior, heal: Heal, ctx: Context, tables: Tables) -> Warrior:
    """Healing a Downed warrior: bandages and the like must work (4+), then a Downed roll at
    +1 for every healing item or spell used; 6 or more stabilises him."""
    items = 1 if heal.items is None else heal.items
    means = heal.means or ("spell" if is_monster(warrior) else "")
    if not means:
        raise ctx.refuse(
            f"{warrior.name} is downed: say what is used on him (--means bandage or "
            "provisions, which need a 4+ first, or potion or spell)",
            "$.means",
        )
    if items < 1:
        raise ctx.refuse(
            f"healing {warrior.name} uses at least one item or spell: give `items` of 1 or more",
            "$.items",
        )
    if heal.amount:
        ctx.say(
            "{warrior.name} is downed: the {healed} healed are not gained",
            warrior=warrior,
            healed=plural(heal.amount, "wound"),
        )
    if means in NEEDS_TREATMENT and not is_monster(warrior):
        roll = ctx.roll("treatment")
        if roll < TREATMENT_WORKS:
            ctx.say("treatment {roll}: {means} not effective", roll=roll, means=means)
            ctx.say(
                "{warrior.name} rolls on the Downed table at the end of the turn", warrior=warrior
            )
            return warrior
        ctx.say("treatment {roll}: {means} effective", roll=roll, means=means)
    natural = ctx.roll("downed")
    total = natural + items
    if natural == 1 and ctx.options["healing_natural_one_kills"]:
        ctx.say(
            "Downed {natural}+{items}={total}: a natural 1, the healing goes horribly wrong: "
            "{warrior.name} dies",
            natural=natural,
            items=items,
            total=total,
            warrior=warrior,
        )
        return ctx.move(warrior, "succumb")
    if tables.downed[min(total, 6)] == "stabilised":
        ctx.say(
            "Downed {natural}+{items}={total}: {warrior.name} is stabilised on 1 wound",
            natural=natural,
            items=items,
            total=total,
            warrior=warrior,
        )
        return ctx.move(replace(warrior, wounds=STABILISED_WOUNDS), "stabilise")
    ctx.say(
        "Downed {natural}+{items}={total}: still unconscious",
        natural=natural,
        items=items,
        total=total,
    )
    ctx.say("{warrior.name} rolls on the Downed table at the end of the turn", warrior=warrior)
    return warrior


def heal_wounds(warrior: Warrior, amount: int, ctx: Context) -> Warrior:
    """Wounds come back as normal, up to his Starting Wounds; half of them stands him up."""
    if amount == 0:
        ctx.say("{warrior.name} heals nothing", warrior=warrior)
        return warrior
    starting = warrior.starting_wounds
    now = min(starting, warrior.wounds + amount)
    lost = warrior.wounds + amount - starting
    if lost > 0:
        ctx.say(
            "{warrior.name} heals {amount} ({warrior.wounds} -> {now}); {lost} above his Starting "
            "Wounds are lost",
            warrior=warrior,
            amount=amount,
            now=now,
            lost=lost,
        )
    else:
        ctx.say(
            "{warrior.name} heals {amount} ({warrior.wounds} -> {now})",
            warrior=warrior,
            amount=amount,
            now=now,
        )
    healed = replace(warrior, wounds=now)
    if healed.state == STABILISED and now >= half(starting):
        ctx.say(
            "{warrior.name} is back on his feet (at least half his Starting Wounds)",
            warrior=warrior,
        )
        healed = ctx.move(healed, "get_up")
    return healed


def stop_bleeding(warrior: Warrior, ctx: Context) -> Warrior:
    """Internal Injury stops once healing has brought him to at least half wounds."""
    if not warrior.internal_bleeding or warrior.wounds < half(warrior.starting_wounds):
        return warrior
    ctx.say("{warrior.name}'s Internal Injury stops bleeding", warrior=warrior)
    return replace(warrior, internal_bleeding=0)

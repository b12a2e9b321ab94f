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
            f"{warrior.name} is downed: the {plural(heal.amount, 'wound')} healed are not gained"
        )
    if means in NEEDS_TREATMENT and not is_monster(warrior):
        roll = ctx.roll("treatment")
        if roll < TREATMENT_WORKS:
            ctx.say(f"treatment {roll}: {means} not effective")
            ctx.say(f"{warrior.name} rolls on the Downed table at the end of the turn")
            return warrior
        ctx.say(f"treatment {roll}: {means} effective")
    natural = ctx.roll("downed")
    total = natural + items
    rolled = f"Downed {natural}+{items}={total}"
    if natural == 1 and ctx.options["healing_natural_one_kills"]:
        ctx.say(f"{rolled}: a natural 1, the healing goes horribly wrong: {warrior.name} dies")
        return ctx.move(warrior, "succumb")
    if tables.downed[min(total, 6)] == "stabilised":
        ctx.say(f"{rolled}: {warrior.name} is stabilised on 1 wound")
        return ctx.move(replace(warrior, wounds=STABILISED_WOUNDS), "stabilise")
    ctx.say(f"{rolled}: still unconscious")
    ctx.say(f"{warrior.name} rolls on the Downed table at the end of the turn")
    return warrior


def heal_wounds(warrior: Warrior, amount: int, ctx: Context) -> Warrior:
    """Wounds come back as normal, up to his Starting Wounds; half of them stands him up."""
    if amount == 0:
        ctx.say(f"{warrior.name} heals nothing")
        return warrior
    starting = warrior.starting_wounds
    now = min(starting, warrior.wounds + amount)
    said = f"{warrior.name} heals {amount} ({warrior.wounds} -> {now})"
    if warrior.wounds + amount > starting:
        said += f"; {warrior.wounds + amount - starting} above his Starting Wounds are lost"
    ctx.say(said)
    healed = replace(warrior, wounds=now)
    if healed.state == STABILISED and now >= half(starting):
        ctx.say(f"{warrior.name} is back on his feet (at least half his Starting Wounds)")
        healed = ctx.move(healed, "get_up")
    return healed


def stop_bleeding(warrior: Warrior, ctx: Context) -> Warrior:
    """Internal Injury stops once healing has brought him to at least half wounds."""
    if not warrior.internal_bleeding or warrior.wounds < half(warrior.starting_wounds):
        return warrior
    ctx.say(f"{warrior.name}'s Internal Injury stops bleeding")
    return replace(warrior, internal_bleeding=0)

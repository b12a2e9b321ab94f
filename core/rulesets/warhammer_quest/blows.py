"""Hits: wounds, the fallen monsters spare, pinned warriors, monsters going Down, coups de grace."""

from __future__ import annotations

from typing import Any

from woundlog.events import Hit

from ...fight_state import FightState
from ...ruleset import Context, Options
from ...states import DOWNED, STABILISED, UPRIGHT
from .injuries import serious_injury
from .tables import Tables
from .warrior import (
    HEALER_MONSTER,
    WARRIOR,
    Warrior,
    down,
    is_monster,
    plural,
    prone_downed_monster,
    replace,
)


def healer_standing(fight: FightState[Any], monster_id: str) -> str | None:
    """The name of a spellcasting monster capable of healing on the board, upright, besides
    this one (on 0 wounds a healer heals nobody, itself included); None if there is none."""
    for cid, character in fight.characters.items():
        healer: Warrior = character
        if cid != monster_id and healer.kind == HEALER_MONSTER and healer.state == UPRIGHT:
            return healer.name
    return None


def why_monsters_go_down(fight: FightState[Any], monster_id: str, options: Options) -> str | None:
    """Why a monster on 0 wounds goes Down rather than dying: a healer monster stands, or
    option `monsters_go_down` (the GM's word that they do, whoever stands); None: it dies."""
    if options["monsters_go_down"]:
        return "option monsters_go_down"
    healer = healer_standing(fight, monster_id)
    return None if healer is None else f"{healer} can heal it"


def monsters_go_down(fight: FightState[Any], monster_id: str, options: Options) -> bool:
    return why_monsters_go_down(fight, monster_id, options) is not None


def uses_serious_injuries(
    fight: FightState[Any], cid: str, character: Warrior, options: Options
) -> bool:
    if not is_monster(character):
        return True
    return bool(options["monster_serious_injuries"]) and monsters_go_down(fight, cid, options)


def spare_the_fallen(fight: FightState[Any], target: Warrior, hit: Hit, ctx: Context) -> None:
    """Monsters will not attack a warrior who is down while there are upright warriors."""
    attacker = fight.characters.get(hit.attacker) if hit.attacker else None
    if attacker is None or not is_monster(attacker) or is_monster(target) or not down(target):
        return
    standing = [
        c.name for c in fight.characters.values() if c.kind == WARRIOR and c.state == UPRIGHT
    ]
    if standing:
        raise ctx.refuse(
            f"monsters do not attack {target.name} ({target.state}) while upright warriors "
            f"remain ({', '.join(standing)}): record the blow against one of them, or give no "
            "attacker if it was not a monster's attack",
            "$.target",
        )


def take_wounds(warrior: Warrior, damage: int, ctx: Context, tables: Tables) -> Warrior:
    """Wounds go down, never below 0; on 0 after the blow, a Serious Injury roll."""
    now = max(0, warrior.wounds - damage)
    if warrior.wounds == 0:
        ctx.say(
            "{warrior.name} is hit for {damage} while on 0 wounds", warrior=warrior, damage=damage
        )
    else:
        ctx.say(
            "{warrior.name} loses {lost} ({warrior.wounds} -> {now})",
            warrior=warrior,
            lost=plural(damage, "wound"),
            now=now,
        )
    hurt = replace(warrior, wounds=now)
    return hurt if now > 0 else serious_injury(hurt, ctx, tables)


def pinned_warrior(target: Warrior, hit: Hit, ctx: Context) -> None:
    """Warriors who are pinned may not attack prone, Downed monsters."""
    if hit.pinned and prone_downed_monster(target):
        raise ctx.refuse(
            f"a pinned warrior may not attack {target.name}, a prone, Downed monster "
            f"({target.state}): record his blow against a monster pinning him",
            "$.pinned",
        )


def wound_monster(monster: Warrior, damage: int, go_down: str | None, ctx: Context) -> Warrior:
    """Monsters on zero wounds are dead, unless a healing spellcaster lets them go Down."""
    if monster.state == DOWNED:
        ctx.say("{monster.name} is wounded while down: dead", monster=monster)
        return ctx.move(monster, "slay")
    now = max(0, monster.wounds - damage)
    ctx.say(
        "{monster.name} loses {lost} ({monster.wounds} -> {now})",
        monster=monster,
        lost=plural(damage, "wound"),
        now=now,
    )
    hurt = replace(monster, wounds=now)
    if now > 0:
        return hurt
    if go_down is not None:
        ctx.say("{monster.name} goes Down ({go_down})", monster=monster, go_down=go_down)
        return hurt if hurt.state == DOWNED else ctx.move(hurt, "go_down")
    ctx.say("{monster.name} is dead", monster=monster)
    return ctx.move(hurt, "slay")


def coup_de_grace(fight: FightState[Any], monster: Warrior, hit: Hit, ctx: Context) -> Warrior:
    """One attack of a warrior who is not pinned, no roll to hit: a downed monster is killed
    outright."""
    if not is_monster(monster):
        raise ctx.refuse(
            f"a coup de grace is performed on a downed monster, and {monster.name} is a "
            "warrior: record an ordinary hit",
            "$.coup_de_grace",
        )
    if monster.state == STABILISED:
        raise ctx.refuse(
            f"{monster.name} has recovered its senses enough to defend itself: no coup de "
            "grace; attack it normally (it is prone: +2 to be hit)",
            "$.coup_de_grace",
        )
    if monster.state != DOWNED:
        raise ctx.refuse(
            f"{monster.name} is {monster.state}, not downed: a coup de grace needs a downed "
            "monster; record an ordinary hit",
            "$.coup_de_grace",
        )
    by_a_warrior(fight, hit, ctx)
    pinned_warrior(monster, hit, ctx)
    ctx.say("coup de grace: {monster.name} is dead", monster=monster)
    return ctx.move(replace(monster, wounds=0), "coup_de_grace")


def by_a_warrior(fight: FightState[Any], hit: Hit, ctx: Context) -> None:
    """Warriors may perform a coup de grace: a warrior of this fight, named as `attacker`."""
    attacker = fight.characters.get(hit.attacker) if hit.attacker else None
    if attacker is None:
        who = (
            f"`{hit.attacker}` is not a character of this fight"
            if hit.attacker
            else "no attacker is given"
        )
        raise ctx.refuse(
            f"a coup de grace is performed by a warrior, and {who}: give as `attacker` the "
            "warrior who performs it",
            "$.attacker",
        )
    if is_monster(attacker):
        raise ctx.refuse(
            f"{attacker.name} is a monster: only warriors perform a coup de grace; record an "
            "ordinary hit (any wound kills a downed monster)",
            "$.attacker",
        )

"""The character: a warrior or a monster, his counters and the small rules about him."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from woundlog.events.importers.rules import ImportRules

from ...fight_state import Character
from ...presentation import Presentation, Sides
from ...states import DOWNED, KNOCKED_DOWN, STABILISED
from .tables import INJURIES

WARRIOR, MONSTER, HEALER_MONSTER = "warrior", "monster", "healer_monster"
MONSTERS = (MONSTER, HEALER_MONSTER)
"""A `healer_monster` is a monster in every way, and a spellcasting monster capable of healing:
while one stands, the other monsters go Down on 0 wounds instead of dying."""
SIDES = Sides(players="warriors", gm="monsters")
"""Where a warrior and a monster join when no side is given."""
PRESENTATION = Presentation(
    pools=("wounds",), maximums={"wounds": "starting_wounds"}, gm_kinds=MONSTERS, sides=SIDES
)
"""Warriors and monsters live by their wounds; the monsters are the GM's."""
IMPORTING = ImportRules(stat="wounds", kinds=(WARRIOR, MONSTER), sides=(SIDES.players, SIDES.gm))
"""Another program's hit points are Wounds (its maximum the Starting Wounds); its player
characters join as warriors, anyone else as a monster."""
PROFILE = (
    "movement",
    "weapon_skill",
    "ballistic_skill",
    "strength",
    "toughness",
    "initiative",
    "attacks",
    "luck",
    "willpower",
    "intellectual_initiative",
    "ignore_pain",
    "battle_level",
)
CHANGED_STATS = (
    "movement",
    "weapon_skill",
    "ballistic_skill",
    "toughness",
    "initiative",
    "attacks",
    "willpower",
    "intellectual_initiative",
    "ignore_pain",
)
"""The profile stats the Serious Injuries change for good: each is also a counter of its own
name, its current value (None when not given: not tracked). `stats` stays as joined."""
STABILISED_WOUNDS = 1  # "still down and prone, but on one wound"
STANDS_ON = 1  # What Doesn't Kill Me: "he stands straight back up on 1 wound"


class Warrior(Character, frozen=True, kw_only=True):
    """A warrior or a monster. `stats` is the character as joined (`stats["wounds"]` his
    Starting Wounds then); `starting_wounds` and the profile stats below are their current
    values, as the injuries leave them."""

    wounds: int
    starting_wounds: int
    injuries: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()
    internal_bleeding: int = 0
    stronger: int = 0
    retired: bool = False
    this_turn: tuple[str, ...] = ()
    movement: int | None = None
    weapon_skill: int | None = None
    ballistic_skill: int | None = None
    toughness: int | None = None
    initiative: int | None = None
    attacks: int | None = None
    willpower: int | None = None
    intellectual_initiative: int | None = None
    ignore_pain: int | None = None


def replace(warrior: Warrior, **changes: Any) -> Warrior:
    return msgspec.structs.replace(warrior, **changes)


def half(starting_wounds: int) -> int:
    """Half his Starting Wounds, rounded up (integer arithmetic)."""
    return (starting_wounds + 1) // 2


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def injury_name(entry: str) -> str:
    """`Severed Leg (left)` -> `Severed Leg`."""
    return entry.partition(" (")[0]


def times_gained(warrior: Warrior, result: str) -> int:
    name = INJURIES[result].name
    return sum(1 for entry in warrior.injuries if injury_name(entry) == name)


def adjust(warrior: Warrior, changes: Mapping[str, int]) -> Warrior:
    """Permanent changes to the current value of the stats he has (one he was not given is
    not tracked), never below 0."""
    now: dict[str, int] = {}
    for stat, delta in changes.items():
        value = getattr(warrior, stat)
        if delta and value is not None:
            now[stat] = max(0, value + delta)
    return replace(warrior, **now) if now else warrior


def down(character: Warrior) -> bool:
    return character.state in (DOWNED, STABILISED, KNOCKED_DOWN)


def is_monster(character: Warrior) -> bool:
    return character.kind in MONSTERS


def prone_downed_monster(character: Warrior) -> bool:
    """A monster Down on the floor: unconscious (downed) or "Downed, but recovered"."""
    return is_monster(character) and character.state in (DOWNED, STABILISED)

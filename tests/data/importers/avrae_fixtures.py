"""Build avrae_combat.jsonl (combat recorder records) and avrae_snapshots.txt (what the woundlog
alias prints) from a small port of Avrae's own combat model.

    python tests/data/importers/avrae_fixtures.py

Avrae v4.2.70 (avrae/avrae, tag v4.2.70, commit 39d500f7; the cited code is unchanged at
b262e67f). The fights are made up; the shapes and the arithmetic are Avrae's, each cited
beside the line that ports it:
- cogs5e/initiative/combatant.py: `Combatant.max_hp` (the base, or the largest `max_hp_value`
  of the effects, plus every `max_hp_bonus`), `hp_str(private=True)`, `get_summary`,
  `to_dict`, `MonsterCombatant.to_dict`, `PlayerCombatant.to_dict` / `.max_hp` / `.hp` (on the
  character sheet: cogs5e/models/character.py `Character.hp` keeps it at 0 or more).
- cogs5e/models/sheet/statblock.py `StatBlock.modify_hp` (temporary HP first; `overflow=False`
  caps at the effective maximum) and `to_dict` (the *base* `_max_hp`, never the effective one).
- cogs5e/initiative/effects/effect.py `InitiativeEffect.to_dict` / `remove` (no HP change when
  an effect ends), effects/passive.py `InitPassiveEffect.to_dict` (only the set attributes).
- cogs5e/initiative/combat.py `Combat.to_dict`, `get_summary`, `advance_turn`, `rewind_turn`,
  `add_combatant` / `sort_combatants` / `remove_combatant`; group.py `CombatantGroup`.
- cogs5e/initiative/cog.py `init_next` (deathdelete: a monster at 0 HP or less whose turn
  ends is removed), `Combatant.set_group`.
- cogs5e/initiative/upenn_nlp.py `RecordedCombatState.from_combat` (`data` and
  `human_readable = combat.get_summary(private=True)`), written on every `Combat.final`.
- aliasing/api/combat.py `SimpleCombat` / `SimpleCombatant` / `SimpleGroup` and
  aliasing/api/statblock.py `AliasStatBlock`: what `combat()` gives an alias; the alias text is
  replays/integrations/avrae/woundlog.alias, and `alias_output` prints what it prints.
"""

from __future__ import annotations

import copy
import json
from importlib.resources import files
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
GM, PLAYER = 700000000000000001, 700000000000000002
CHANNEL = 800000000000000001

SKILLS = [
    "acrobatics", "animalHandling", "arcana", "athletics", "deception", "history",
    "initiative", "insight", "intimidation", "investigation", "medicine", "nature",
    "perception", "performance", "persuasion", "religion", "sleightOfHand", "stealth",
    "survival", "strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma",
]  # fmt: skip
SAVES = [
    f"{s}Save"
    for s in ["strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"]
]


class Effect:
    """cogs5e/initiative/effects/effect.py `InitiativeEffect`, as `!init effect NAME -maxhp`
    makes it (no duration: its short string is its name)."""

    def __init__(self, eid: str, name: str, *, value: int = 0, bonus: int = 0) -> None:
        self.id, self.name = eid, name
        self.max_hp_value, self.max_hp_bonus = value, bonus

    def to_dict(self) -> dict[str, Any]:
        passive = {}  # InitPassiveEffect.to_dict: only the attributes that are set
        if self.max_hp_value:
            passive["max_hp_value"] = self.max_hp_value
        if self.max_hp_bonus:
            passive["max_hp_bonus"] = self.max_hp_bonus
        return {
            "id": self.id, "name": self.name, "effects": passive, "attacks": [], "buttons": [],
            "duration": None, "end_round": None, "end_on_turn_end": False,
            "concentration": False, "children": [], "parent": None, "desc": None,
            "tick_on_combatant_id": None, "_v": 2,
        }  # fmt: skip


class Combatant:
    """cogs5e/initiative/combatant.py `Combatant` (`kind` "common"), `MonsterCombatant`
    ("monster") and `PlayerCombatant` ("player", whose HP lives on the character `sheet`)."""

    def __init__(
        self, cid: str, name: str, kind: str, init: int, max_hp: int | None, *,
        hp: int | None = None, sheet_max: int = 0, private: bool | None = None,
    ) -> None:  # fmt: skip
        self.id, self.name, self.kind, self.init = cid, name, kind, init
        self.base_max = None if kind == "player" else max_hp  # `_max_hp`, a GM's override
        self.sheet_max = sheet_max  # Character.max_hp, for a player
        # StatBlock.__init__: an unset hp starts at max_hp
        self._hp: int | None = (hp if hp is not None else max_hp) if kind != "player" else None
        self.sheet_hp = sheet_max  # Character.hp
        self._temp = 0
        self.effects: list[Effect] = []
        self.private = kind == "monster" if private is None else private
        self.index: int | None = None
        self.group: Group | None = None
        self.monster = ("Wolf", 17) if kind == "monster" else None

    @property
    def max_hp(self) -> int | None:
        """`Combatant.max_hp` / `PlayerCombatant.max_hp`: `(base_effect_hp or base_hp) +
        bonus_effect_hp`, base `_max_hp or 0` (a player's: `_max_hp or character.max_hp`)."""
        base = (self.base_max or self.sheet_max) if self.kind == "player" else self.base_max or 0
        value = max((e.max_hp_value for e in self.effects if e.max_hp_value), default=0)
        return (value or base) + sum(e.max_hp_bonus for e in self.effects)

    @property
    def hp(self) -> int | None:
        return self.sheet_hp if self.kind == "player" else self._hp

    @hp.setter
    def hp(self, value: int) -> None:
        if self.kind == "player":
            self.sheet_hp = max(0, value)  # Character.hp setter
        else:
            self._hp = value  # Combatant.hp setter: no floor, HP may go below 0

    @property
    def temp_hp(self) -> int:
        return self._temp

    @temp_hp.setter
    def temp_hp(self, value: int) -> None:
        self._temp = max(0, value)  # StatBlock / Character.temp_hp setters

    def modify_hp(self, value: int, *, overflow: bool = True) -> None:
        """StatBlock.modify_hp: damage comes off temporary HP first; with `overflow` False
        (automation healing, Damage(overheal=False)) HP is capped at the effective maximum."""
        if value < 0:
            thp = self.temp_hp
            self.temp_hp += value
            value += min(thp, -value)
        hp = self.hp
        assert hp is not None
        maximum = self.max_hp
        self.hp = hp + value if overflow or maximum is None else min(hp + value, maximum)

    def hp_str(self) -> str:
        """`Combatant.hp_str(private=True)`: the effective maximum."""
        parts = []
        if self.max_hp is not None and self.hp is not None:
            parts.append(f"{self.hp}/{self.max_hp} HP")
        elif self.hp is not None:
            parts.append(f"{self.hp} HP")
        if self.temp_hp and self.temp_hp > 0:
            parts.append(f"{self.temp_hp} temp")
        return f"<{', '.join(parts) or 'None'}>"

    def get_summary(self) -> str:
        """`Combatant.get_summary(private=True)` with `_get_effects_and_notes` (AC 15 for
        everyone; an effect's short string is its name when it has no duration)."""
        notes = ", ".join(["AC 15"] * (not self.private) + [e.name for e in self.effects])
        return f"{self.init:>2}: {self.name} {self.hp_str()} " + (f"({notes})" if notes else "")

    def to_dict(self) -> dict[str, Any]:
        raw: dict[str, Any] = {
            # StatBlock.to_dict: `_max_hp`, the base, not the effective maximum
            "name": self.name,
            "stats": {"prof_bonus": 2, "strength": 8, "dexterity": 14, "constitution": 10,
                      "intelligence": 10, "wisdom": 8, "charisma": 8},
            "levels": {"total_level": 0, "classes": {}}, "attacks": [],
            "skills": {k: {"value": 0} for k in SKILLS},
            "resistances": {"resist": [], "immune": [], "vuln": [], "neutral": []},
            "saves": {k: {"value": 0} for k in SAVES}, "ac": 15,
            "max_hp": self.base_max, "hp": self._hp, "temp_hp": self._temp,
            "spellbook": {"slots": {}, "max_slots": {}, "spells": [], "dc": None, "sab": None,
                          "caster_level": 0, "spell_mod": None, "pact_slot_level": None,
                          "num_pact_slots": None, "max_pact_slots": None},
            "creature_type": None,
            # Combatant.to_dict
            "controller_id": PLAYER if self.kind == "player" else GM, "init": self.init,
            "private": self.private,
            "index": self.group.index if self.group else self.index,
            "notes": None, "effects": [e.to_dict() for e in self.effects],
            "group_id": self.group.id if self.group else None, "type": self.kind, "id": self.id,
        }  # fmt: skip
        if self.monster is not None:  # MonsterCombatant.to_dict
            raw.update({"monster_name": self.monster[0], "monster_id": self.monster[1]})
        if self.kind == "player":  # PlayerCombatant.to_dict
            for attr in ("stats", "levels", "skills", "saves", "spellbook", "hp", "temp_hp"):
                del raw[attr]
            raw.update({"character_id": f"1{self.name}", "character_owner": str(PLAYER)})
        return raw


class Group:
    """cogs5e/initiative/group.py `CombatantGroup`."""

    kind = "group"

    def __init__(self, gid: str, name: str, init: int) -> None:
        self.id, self.name, self.init = gid, name, init
        self.members: list[Combatant] = []
        self.index: int | None = None

    def get_summary(self) -> str:
        """`CombatantGroup.get_summary(private=True)`: each member's line, its init cut off."""
        out = f"{self.init:>2}: {self.name}"
        for c in self.members:
            out += f"\n     - {': '.join(c.get_summary().split(': ')[1:])}"
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "init": self.init,
            "combatants": [c.to_dict() for c in self.members],
            "index": self.index, "type": "group", "id": self.id,
        }  # fmt: skip


Entry = Combatant | Group


class Combat:
    """cogs5e/initiative/combat.py `Combat`, with the recorder of upenn_nlp.py: every
    `commit()` (the `Combat.final` of a command) writes a `combat_state_update`."""

    printer: Any = None  # what prints the alias's output (alias_output, or run_alias)

    def __init__(self, combat_id: str, start: float) -> None:
        self.id = combat_id
        self.entries: list[Entry] = []
        self.round, self.current, self.turn = 0, None, 0
        self.clock = start
        self.records: list[dict[str, Any]] = [other(combat_id, start, "combat_start")]
        self.snapshots: list[str] = []  # what the alias prints after each command
        self.metadata: dict[str, str] = {}  # SimpleCombat.set_metadata (combat.metadata)
        # combat.py `CombatOptions`, written `options.dict(exclude_unset=True)`: only what a GM
        # set (`!init opt deathdelete` toggles it: cog.py `init_opt`)
        self.options: dict[str, bool] = {}

    def add(self, entry: Entry) -> None:
        """`add_combatant`, then `sort_combatants`: by init, highest first (ties keep their
        place: Python's sort is stable), indices renumbered, the current one followed."""
        self.entries.append(entry)
        self.sort()

    def sort(self) -> None:
        """`sort_combatants`: the current one found by its index before the sort (an entry
        just removed is not found: no current one), then followed."""
        current = None
        if self.current is not None:
            current = next((e for e in self.entries if e.index == self.current), None)
        self.entries.sort(key=lambda e: e.init, reverse=True)
        for n, e in enumerate(self.entries):
            e.index = n
        if current is not None:
            self.current, self.turn = current.index, current.init
        elif self.current is not None:
            self.current = None

    def remove(self, combatant: Combatant) -> None:
        """`remove_combatant`: `on_remove` ends every effect; out of its group, or out of the
        order (re-sorted). (`!init remove`, cog.py `remove_combatant`, refuses the combatant
        whose turn it is: the callers here never remove it.)"""
        combatant.effects.clear()
        if combatant.group is not None:
            combatant.group.members.remove(combatant)
            combatant.group = None
        else:
            self.entries.remove(combatant)
            self.sort()

    def set_group(self, combatant: Combatant, group: Group) -> None:
        """`Combatant.set_group`: out of the order (no remove hook: effects kept), into the
        group, which is added to the order if it is new."""
        self.entries.remove(combatant)
        self.sort()
        if group not in self.entries:
            self.add(group)
        group.members.append(combatant)
        combatant.group = group

    def advance(self, *, deathdelete: bool | None = None) -> None:
        """cog.py `init_next`: the monsters of the ending turn at 0 HP or less are noted (when
        the combat's `deathdelete` is on: `CombatOptions.deathdelete`, True unless set), the
        turn advances (`Combat.advance_turn`), then they are removed."""
        if deathdelete is None:
            deathdelete = self.options.get("deathdelete", True)
        gone: list[Combatant] = []
        if deathdelete and self.current is not None:
            ending = self.entries[self.current]
            for c in ending.members if isinstance(ending, Group) else [ending]:
                if c.kind == "monster" and (c.hp or 0) <= 0:
                    gone.append(c)
        if self.current is None or self.current + 1 >= len(self.entries):  # a new round
            self.current, self.round = 0, self.round + 1
        else:
            self.current += 1
        self.turn = self.entries[self.current].init
        for c in gone:
            self.remove(c)

    def rewind(self) -> None:
        """`Combat.rewind_turn` (`!init prev`)."""
        if self.current is None or self.current == 0:
            self.current = len(self.entries) - 1
            if self.current is not None:
                self.round -= 1
        else:
            self.current -= 1
        self.turn = self.entries[self.current].init

    def to_dict(self) -> dict[str, Any]:
        return {
            "channel": str(CHANNEL), "summary": 900000000000000001, "dm": GM,
            "options": dict(self.options),
            "combatants": [e.to_dict() for e in self.entries], "turn": self.turn,
            "round": self.round, "current": self.current, "metadata": {},
            "nlp_record_session_id": self.id,
        }  # fmt: skip

    def get_summary(self) -> str:
        """`Combat.get_summary(private=True)`."""
        out = f"```md\nCurrent initiative: {self.turn} (round {self.round})\n"
        out += f"{'=' * (len(out) - 7)}\n"
        lines = [
            ("# " if self.current == e.index else "  ") + e.get_summary() for e in self.entries
        ]
        return out + "\n".join(lines) + "```"

    def commit(self, step: float = 7.25) -> None:
        """`Combat.final`: the recorder's `RecordedCombatState.from_combat`, and (for the
        alias fixture) what `!woundlog` would print at this point."""
        self.clock += step
        self.records.append(
            {
                "combat_id": self.id,
                "event_type": "combat_state_update",
                "timestamp": self.clock,
                "probable_interaction_id": 1100000000000000000 + int(self.clock),
                "data": copy.deepcopy(self.to_dict()),
                "human_readable": self.get_summary(),
            }
        )
        self.snapshots.append(self.printer(self))

    def end(self) -> None:
        self.records.append(other(self.id, self.clock + 11, "combat_end"))


def other(combat_id: str, timestamp: float, event_type: str, **fields: Any) -> dict[str, Any]:
    """Other `RecordedEvent`s of the same recorder, which the importer skips."""
    return {"combat_id": combat_id, "event_type": event_type, "timestamp": timestamp, **fields}


# --- what the alias prints ----------------------------------------------------------------------

ALIAS = Path(str(files("woundlog.replays") / "integrations" / "avrae" / "woundlog.alias"))
AUTHOR = "Dana"  # !echo (cogs5e/pbpUtils.py) sends f"{ctx.author.display_name}: {msg}"
PAGE = 1700  # the alias's budget for one page's entries, below Discord's 2000 characters
KINDS = {"player": 1, "monster": 2, "common": 0}
"""A row's last field: `race` is set for a player only, `monster_name` for a
`MonsterCombatant` only (aliasing/api/combat.py `SimpleCombatant.__init__`, v4.2.70)."""


def alias_output(combat: Combat, page: int = 1) -> str:
    """What `!woundlog` prints, modelled step by step on the alias text (woundlog.alias) over
    the values Avrae's alias API gives: `combat().combatants` is `get_combatants()` (groups'
    members in place), each `SimpleCombatant`'s `hp`, `max_hp` and `temp_hp` are the
    combatant's own properties (aliasing/api/statblock.py `AliasStatBlock`: the *effective*
    maximum, a player's HP from the sheet), `group` its group's name, `race` set for players
    only; `dump_json` is `json.dumps` (aliasing/evaluators.py)."""
    order: list[list[Any]] = []
    for entry in combat.entries:
        members = entry.members if isinstance(entry, Group) else [entry]
        rows = [[c.id, c.name, c.hp, c.max_hp, c.temp_hp, KINDS[c.kind]] for c in members]
        order.append([entry.name if isinstance(entry, Group) else None, rows])
    # a page is [its first place, its places]: a page ends where the next row would pass the
    # budget, inside a group too, and a place split so is on both pages, under the same index
    pages: list[tuple[int, list[Any]]] = [(0, [])]
    for n, (group, rows) in enumerate(order):
        for row in rows:
            first, places = pages[-1]
            if places and len(json.dumps([*places, [group, [row]]])) > PAGE:
                first, places = n, []
                pages.append((first, places))
            if first + len(places) <= n:
                places.append([group, []])
            places[-1][1].append(row)
    fight = combat.metadata.setdefault("woundlog", f"{CHANNEL}-{int(combat.clock)}")
    head = {"v": 1, "fight": fight, "t": combat.clock, "r": combat.round, "cur": combat.current,
            "n": len(order), "page": [page, len(pages), pages[page - 1][0]],
            "o": pages[page - 1][1]}  # fmt: skip
    more = f" (page {page} of {len(pages)}: now !woundlog {page + 1})" if page < len(pages) else ""
    return f"{AUTHOR}: `woundlog {json.dumps(head)}`{more}"


# --- the fights ---------------------------------------------------------------------------------


def first_fight() -> Combat:
    """Tali (a player) against a group of two wolves, with a ghost light of no HP."""
    combat = Combat("1700000000-5f0c2a8e-4d1b-4e0a-9a57-2c1b7d3e9f10", 1700000000.0)
    tali = Combatant("9e1d7c2a-0f4b-4a55-8a0e-1c2d3e4f5a6b", "Tali", "player", 18, None,
                     sheet_max=12)  # fmt: skip
    wo1 = Combatant("3b9f6c1e-7a2d-4f80-b1c4-5d6e7f8a9b0c", "WO1", "monster", 12, 11)
    wo2 = Combatant("4c0a7d2f-8b3e-4091-c2d5-6e7f8a9b0c1d", "WO2", "monster", 12, 11)
    light = Combatant("5d1b8e3a-9c4f-41a2-d3e6-7f8a9b0c1d2e", "Ghost light", "common", 5, None)
    wolves = Group("6e2c9f4b-ad50-42b3-e4f7-8a9b0c1d2e3f", "Wolves", 12)
    for entry in (tali, wolves, light):
        combat.add(entry)
    wolves.members += [wo1, wo2]
    wo1.group = wo2.group = wolves
    combat.records.append(
        other(combat.id, 1700000003.5, "message", message_id=1100000000000000001,
              author_id=str(PLAYER), author_name="Player 1", author_bot=False,
              created_at=1700000003.4, content="!init next", embeds=[], components=[],
              referenced_message_id=None)
    )  # fmt: skip
    combat.advance()
    combat.commit()  # 1: round 1, Tali's turn
    wo1.modify_hp(-7)
    combat.commit()  # 2: Tali's arrow, 7 on WO1
    tali.temp_hp = 5
    combat.commit()  # 3: false life: 5 temporary HP (on her sheet, shown in the summary)
    combat.advance()
    combat.commit()  # 4: the wolves' turn, both members
    tali.modify_hp(-8)
    combat.commit()  # 5: a bite of 8: 5 off temporary HP, 3 off HP
    combat.advance()
    combat.commit()  # 6: the ghost light's turn (no HP: never tracked)
    combat.advance()
    combat.commit()  # 7: round 2
    wo1.modify_hp(-7)
    combat.commit()  # 8: Tali's second arrow, 7 on WO1 at 4: Avrae lets HP go below 0
    return combat


def second_fight() -> Combat:
    """A short second combat in the same file: Tali again (a new combatant) and a goblin."""
    combat = Combat("1700003600-7f3dab5c-be61-43c4-f5a8-9b0c1d2e3f40", 1700003600.0)
    tali = Combatant("8a4e0b6d-cf72-44d5-a6b9-0c1d2e3f4051", "Tali", "player", 18, None,
                     sheet_max=12)  # fmt: skip
    tali.sheet_hp = 9
    go1 = Combatant("9b5f1c7e-d083-45e6-b7ca-1d2e3f405162", "GO1", "monster", 10, 7)
    go1.monster = ("Goblin", 23)
    combat.add(tali)
    combat.add(go1)
    combat.advance()
    combat.commit(1.0)
    go1.modify_hp(-5)
    combat.commit(8.0)
    combat.end()
    return combat


def aid_fight() -> Combat:
    """Effects on the maximum, a group made mid-fight, a combatant removed and one re-added.

    Mira (a player, 10 HP) and an orc already under Aid (`!init effect OR1 Aid -maxhp +5`,
    then `!init hp OR1 +5`) when the combat is first recorded; Mira is given Aid mid-fight
    (the spell's automation: the effect, then 5 HP healed, capped at the new maximum); a
    potion heals her past her base maximum; Aid on the orc ends (`!init re`), its HP left
    above its maximum as Avrae leaves it; a goblin at 0 is removed by deathdelete when its
    turn ends and a new goblin is added under the same name; the orc joins a new group; Mira
    drops to 0, her turn comes with no death save rolled (Avrae rolls one only on a player's
    `!game deathsave`), and she is healed."""
    combat = Combat("1700007200-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", 1700007200.0)
    mira = Combatant("a0000000-0000-4000-8000-00000000000a", "Mira", "player", 16, None,
                     sheet_max=10)  # fmt: skip
    orc = Combatant("b0000000-0000-4000-8000-00000000000b", "OR1", "monster", 12, 15)
    orc.monster = ("Orc", 31)
    gob = Combatant("c0000000-0000-4000-8000-00000000000c", "GO1", "monster", 8, 7)
    gob.monster = ("Goblin", 23)
    for c in (mira, orc, gob):
        combat.add(c)
    orc.effects.append(Effect("e1", "Aid", bonus=5))  # Combatant.add_effect
    orc.modify_hp(5)  # !init hp OR1 +5: overflow, 20/20
    combat.advance()
    combat.commit()  # 1: round 1, Mira's turn; OR1 at 20/20 (base max_hp 15 in the record)
    mira.effects.append(Effect("e2", "Aid", bonus=5))
    mira.modify_hp(5, overflow=False)  # Damage(-5, overheal=False): capped at 15, so 15
    combat.commit()  # 2: Mira under Aid, 15/15
    gob.modify_hp(-7)
    combat.commit()  # 3: Mira's fire bolt: GO1 to 0
    combat.advance()
    combat.commit()  # 4: OR1's turn
    orc.modify_hp(-6)
    combat.commit()  # 5: Mira's dagger: OR1 20 -> 14 (of 20)
    mira.modify_hp(-9)
    combat.commit()  # 6: the orc's axe: Mira 15 -> 6 (of 15)
    combat.advance()
    combat.commit()  # 7: GO1's turn (at 0: Avrae still gives it its turn)
    combat.advance()
    combat.commit()  # 8: round 2, Mira's turn; GO1 removed by deathdelete as its turn ended
    gob2 = Combatant("d0000000-0000-4000-8000-00000000000d", "GO1", "monster", 8, 7)
    gob2.monster = ("Goblin", 23)
    combat.add(gob2)
    combat.commit()  # 9: !init madd goblin: a new GO1, a new combatant id
    mira.modify_hp(8)
    combat.commit()  # 10: a potion of 8 (!g hp +8, overflow): Mira 6 -> 14 (of 15)
    orc.effects.clear()  # InitiativeEffect.remove: the maximum drops, HP is left alone
    combat.commit()  # 11: Aid on OR1 ends: 14/15, nothing lost
    orc.modify_hp(-2)
    combat.commit()  # 12: Mira's dagger: OR1 14 -> 12
    band = Group("f0000000-0000-4000-8000-00000000000f", "Raiders", 12)
    combat.set_group(orc, band)
    combat.commit()  # 13: !init opt OR1 -group Raiders
    combat.advance()
    combat.commit()  # 14: the Raiders' turn: OR1's
    mira.effects.clear()
    combat.commit()  # 15: Aid on Mira ends: 14 of 10, left above her maximum
    mira.modify_hp(-6)
    combat.commit()  # 16: OR1's axe: Mira 14 -> 8
    combat.advance()
    combat.commit()  # 17: the new GO1's turn
    mira.modify_hp(-8)
    combat.commit()  # 18: its scimitar: Mira 8 -> 0 (a sheet keeps HP at 0 or more)
    combat.advance()
    combat.commit()  # 19: round 3, Mira's turn: Avrae rolls nothing (!game deathsave would)
    combat.advance()
    combat.commit()  # 20: the Raiders' turn
    mira.modify_hp(5)
    combat.commit()  # 21: !init hp Mira +5, a healing word from off the map: Mira 0 -> 5
    return combat


Combat.printer = staticmethod(alias_output)


def main() -> None:
    fights = [first_fight(), second_fight(), aid_fight()]
    records = [r for f in fights for r in f.records]
    (HERE / "avrae_combat.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (HERE / "avrae_snapshots.txt").write_text(
        "".join(s + "\n" for f in fights[2:] for s in f.snapshots)
    )


if __name__ == "__main__":
    main()


# --- the alias run as Avrae runs it ---------------------------------------------------------------


class SimpleCombatant:
    """aliasing/api/combat.py `SimpleCombatant` (with `AliasStatBlock`'s `hp`, `max_hp`,
    `temp_hp`, which read the combatant's properties): what the alias reads of it."""

    type = "combatant"

    def __init__(self, c: Combatant) -> None:
        self.id, self.name = c.id, c.name
        self.hp, self.max_hp, self.temp_hp = c.hp, c.max_hp, c.temp_hp
        self.group = c.group.name if c.group else None  # the group's name
        self.race = "Elf" if c.kind == "player" else None  # set for players only
        # `_monster_name = combatant.monster_name` for a MonsterCombatant only
        self.monster_name = c.monster[0] if c.kind == "monster" and c.monster else None


class SimpleGroup:
    type = "group"

    def __init__(self, g: Group) -> None:
        self.id, self.name = g.id, g.name


class SimpleCombat:
    """`SimpleCombat`: `combatants` from `get_combatants()` (members in place), `current` a
    `SimpleGroup` or `SimpleCombatant`, `round_num`, `get_metadata` / `set_metadata`."""

    def __init__(self, combat: Combat) -> None:
        self._combat = combat
        self.combatants = [
            SimpleCombatant(m)
            for e in combat.entries
            for m in (e.members if isinstance(e, Group) else [e])
        ]
        current = combat.entries[combat.current] if combat.current is not None else None
        self.current = (
            None
            if current is None
            else SimpleGroup(current)
            if isinstance(current, Group)
            else SimpleCombatant(current)
        )
        self.round_num = combat.round

    def get_metadata(self, k: str, default: str | None = None) -> str | None:
        return self._combat.metadata.get(str(k), default)

    def set_metadata(self, k: str, v: str) -> None:
        self._combat.metadata[str(k)] = str(v)


def run_alias(combat: Combat, page: int = 1, *, interpreter: str = "draconic") -> str:
    """The alias text run as Avrae v4.2.70 runs it: aliasing/helpers.py
    `handle_alias_arguments` puts `str(args)` for `&ARGS&`; evaluators.py `transformed_str`
    runs the `<drac2>` block with `ScriptingEvaluator.execute`, over the builtins it gives
    (`combat`, `ctx`, `time`, `floor`, `dump_json` = `json.dumps` with draconic's lists
    unwrapped, and draconic's own `int`, `str`, ...); the `!echo` command (cogs5e/pbpUtils.py)
    prefixes the author's display name. `interpreter` "draconic" is Avrae's own interpreter
    (github.com/avrae/draconic, which Avrae's requirements.txt installs from GitHub: it is not
    on PyPI); "python" runs the same block as the body of a CPython function with only those
    builtins, where draconic is not installed."""
    import math
    import re
    import textwrap
    from types import SimpleNamespace

    names: dict[str, Any] = {
        "combat": lambda: SimpleCombat(combat),
        "ctx": SimpleNamespace(channel=SimpleNamespace(id=CHANNEL)),
        "time": lambda: combat.clock,
        "floor": math.floor,
        "len": len,
        "sum": sum,
        "enumerate": enumerate,
    }
    if interpreter == "draconic":
        import draconic

        made: list[Any] = []  # the interpreter, whose list type dump_json unwraps
        names["dump_json"] = lambda obj: json.dumps(
            obj, default=lambda o: o.data if isinstance(o, made[0]._list) else None
        )
        machine = draconic.DraconicInterpreter(builtins=names)
        made.append(machine)
        execute = machine.execute
    else:
        names.update(dump_json=json.dumps, int=int, str=str)

        def execute(code: str) -> Any:
            scope: dict[str, Any] = {"__builtins__": names}
            exec("def alias():\n" + textwrap.indent(code, "    "), scope)
            return scope["alias"]()

    text = ALIAS.read_text().strip().replace("&ARGS&", str([str(page)] if page != 1 else []))
    command = text.split(" ", 2)[2]  # `!alias woundlog <command>`

    def drac2(match: re.Match[str]) -> str:
        result = execute(textwrap.dedent(match["code"]).strip())
        return str(result) if result is not None else ""

    message = re.sub(r"<drac2>(?P<code>(?:.|\n)+?)</drac2>", drac2, command)
    assert message.startswith("echo ")
    return f"{AUTHOR}: {message[len('echo ') :]}"

"""Build the Avrae fixtures in the shapes that program really writes (Improved Initiative's:
improved_initiative_fixtures.py).

    python tests/data/importers/make_fixtures.py

Each builder names the source file (and the release) whose shape it follows; the fights are
made up, the shapes are not. Run again after changing a fight; the files are committed.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

# --- Avrae v4.2.70 (avrae/avrae, commit b262e67f) -------------------------------------------------

SKILLS = [
    "acrobatics",
    "animalHandling",
    "arcana",
    "athletics",
    "deception",
    "history",
    "initiative",
    "insight",
    "intimidation",
    "investigation",
    "medicine",
    "nature",
    "perception",
    "performance",
    "persuasion",
    "religion",
    "sleightOfHand",
    "stealth",
    "survival",
    "strength",
    "dexterity",
    "constitution",
    "intelligence",
    "wisdom",
    "charisma",
]
SAVES = [
    f"{s}Save"
    for s in ["strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"]
]
GM, PLAYER = 700000000000000001, 700000000000000002


def avrae_statblock(name: str, hp: int | None, max_hp: int | None, temp: int) -> dict[str, Any]:
    """cogs5e/models/sheet/statblock.py `StatBlock.to_dict()`."""
    return {
        "name": name,
        "stats": {
            "prof_bonus": 2,
            "strength": 8,
            "dexterity": 14,
            "constitution": 10,
            "intelligence": 10,
            "wisdom": 8,
            "charisma": 8,
        },
        "levels": {"total_level": 0, "classes": {}},
        "attacks": [],
        "skills": {k: {"value": 0} for k in SKILLS},
        "resistances": {"resist": [], "immune": [], "vuln": [], "neutral": []},
        "saves": {k: {"value": 0} for k in SAVES},
        "ac": 15,
        "max_hp": max_hp,
        "hp": hp,
        "temp_hp": temp,
        "spellbook": {
            "slots": {},
            "max_slots": {},
            "spells": [],
            "dc": None,
            "sab": None,
            "caster_level": 0,
            "spell_mod": None,
            "pact_slot_level": None,
            "num_pact_slots": None,
            "max_pact_slots": None,
        },
        "creature_type": None,
    }


def avrae_combatant(
    cid: str, name: str, kind: str, init: int, index: int, hp: int | None, max_hp: int | None
) -> dict[str, Any]:
    """cogs5e/initiative/combatant.py `Combatant.to_dict()`, `MonsterCombatant.to_dict()`
    (monster_name, monster_id) and `PlayerCombatant.to_dict()`, which deletes stats, levels,
    skills, saves, spellbook, hp and temp_hp."""
    raw = avrae_statblock(name, hp, max_hp, 0)
    raw.update(
        {
            "controller_id": PLAYER if kind == "player" else GM,
            "init": init,
            "private": kind == "monster",
            "index": index,
            "notes": None,
            "effects": [],
            "group_id": None,
            "type": kind,
            "id": cid,
        }
    )
    if kind == "monster":
        raw.update({"monster_name": "Wolf", "monster_id": 17})
    if kind == "player":
        for attr in ("stats", "levels", "skills", "saves", "spellbook", "hp", "temp_hp"):
            del raw[attr]
        raw.update({"character_id": "1Tali", "character_owner": str(PLAYER)})
    return raw


def avrae_group(gid: str, name: str, init: int, index: int, members: list[Any]) -> dict[str, Any]:
    """cogs5e/initiative/group.py `CombatantGroup.to_dict()`."""
    for member in members:
        member["group_id"] = gid
    return {
        "name": name,
        "init": init,
        "combatants": members,
        "index": index,
        "type": "group",
        "id": gid,
    }


def hp_str(c: dict[str, Any], player_hp: dict[str, tuple[int, int, int]]) -> str:
    """`Combatant.hp_str(private=True)`."""
    hp, max_hp, temp = player_hp.get(c["id"]) or (c.get("hp"), c.get("max_hp"), c.get("temp_hp"))
    parts = []
    if max_hp is not None and hp is not None:
        parts.append(f"{hp}/{max_hp} HP")
    elif hp is not None:
        parts.append(f"{hp} HP")
    if temp and temp > 0:
        parts.append(f"{temp} temp")
    return f"<{', '.join(parts) or 'None'}>"


def summary(combat: dict[str, Any], player_hp: dict[str, tuple[int, int, int]]) -> str:
    """cogs5e/initiative/combat.py `Combat.get_summary(private=True)` and the combatants' and
    groups' `get_summary`."""
    out = f"```md\nCurrent initiative: {combat['turn']} (round {combat['round']})\n"
    out += f"{'=' * (len(out) - 7)}\n"
    lines = []
    for c in combat["combatants"]:
        mark = "# " if combat["current"] == c["index"] else "  "
        if c["type"] == "group":
            line = f"{c['init']:>2}: {c['name']}"
            for m in c["combatants"]:
                line += f"\n     - {m['name']} {hp_str(m, player_hp)} (AC 13)"
        else:
            line = f"{c['init']:>2}: {c['name']} {hp_str(c, player_hp)} (AC 15)"
        lines.append(mark + line)
    return out + "\n".join(lines) + "```"


def avrae_state(
    combat_id: str,
    timestamp: float,
    combat: dict[str, Any],
    player_hp: dict[str, tuple[int, int, int]],
) -> dict[str, Any]:
    """cogs5e/initiative/upenn_nlp.py `RecordedCombatState.from_combat` (its `.json()`):
    `data` is cogs5e/initiative/combat.py `Combat.to_dict()`."""
    return {
        "combat_id": combat_id,
        "event_type": "combat_state_update",
        "timestamp": timestamp,
        "probable_interaction_id": 1100000000000000000 + int(timestamp),
        "data": copy.deepcopy(combat),
        "human_readable": summary(combat, player_hp),
    }


def avrae_other(combat_id: str, timestamp: float, event_type: str, **fields: Any) -> Any:
    """Other `RecordedEvent`s of the same recorder, which the importer skips."""
    return {"combat_id": combat_id, "event_type": event_type, "timestamp": timestamp, **fields}


def avrae_fight() -> list[dict[str, Any]]:
    """A combat in a Discord channel: Tali (a player) against a group of two wolves, with a
    ghost light of no HP; then a second, short combat recorded in the same file."""
    cid = "1700000000-5f0c2a8e-4d1b-4e0a-9a57-2c1b7d3e9f10"
    tali = avrae_combatant(
        "9e1d7c2a-0f4b-4a55-8a0e-1c2d3e4f5a6b", "Tali", "player", 18, 0, None, None
    )
    wo1 = avrae_combatant(
        "3b9f6c1e-7a2d-4f80-b1c4-5d6e7f8a9b0c", "WO1", "monster", 12, None, 11, 11
    )
    wo2 = avrae_combatant(
        "4c0a7d2f-8b3e-4091-c2d5-6e7f8a9b0c1d", "WO2", "monster", 12, None, 11, 11
    )
    light = avrae_combatant(
        "5d1b8e3a-9c4f-41a2-d3e6-7f8a9b0c1d2e", "Ghost light", "common", 5, 2, None, None
    )
    wolves = avrae_group("6e2c9f4b-ad50-42b3-e4f7-8a9b0c1d2e3f", "Wolves", 12, 1, [wo1, wo2])
    combat: dict[str, Any] = {
        "channel": "800000000000000001",
        "summary": 900000000000000001,
        "dm": GM,
        "options": {},
        "combatants": [tali, wolves, light],
        "turn": 0,
        "round": 0,
        "current": None,
        "metadata": {},
        "nlp_record_session_id": cid,
    }
    tali_hp = {tali["id"]: (12, 12, 0)}
    records: list[dict[str, Any]] = [avrae_other(cid, 1700000000.0, "combat_start")]
    clock = [1700000000.0]

    def state() -> None:
        clock[0] += 7.25
        records.append(avrae_state(cid, clock[0], combat, tali_hp))

    def advance(index: int, *, wrap: bool = False) -> None:  # Combat.advance_turn
        if wrap:
            combat["round"] += 1
        combat["current"] = index
        combat["turn"] = combat["combatants"][index]["init"]

    records.append(
        avrae_other(
            cid,
            1700000003.5,
            "message",
            message_id=1100000000000000001,
            author_id=str(PLAYER),
            author_name="Player 1",
            author_bot=False,
            created_at=1700000003.4,
            content="!init next",
            embeds=[],
            components=[],
            referenced_message_id=None,
        )
    )
    combat["round"] = 1
    advance(0)
    state()  # 1: round 1, Tali's turn
    wo1["hp"] = 4
    state()  # 2: Tali's arrow, 7 on WO1
    tali_hp[tali["id"]] = (12, 12, 5)
    state()  # 3: Tali's false life: 5 temporary HP (on her sheet, shown in the summary)
    advance(1)
    state()  # 4: the wolves' turn, both members
    tali_hp[tali["id"]] = (9, 12, 0)
    state()  # 5: a bite of 8: 5 off temporary HP, 3 off HP
    advance(2)
    state()  # 6: the ghost light's turn (no HP: never tracked)
    advance(0, wrap=True)
    state()  # 7: round 2
    wo1["hp"] = -3
    state()  # 8: Tali's second arrow, 7 on WO1 at 4: Avrae lets HP go below 0

    cid2 = "1700003600-7f3dab5c-be61-43c4-f5a8-9b0c1d2e3f40"
    tali2 = copy.deepcopy(tali)
    tali2["id"] = "8a4e0b6d-cf72-44d5-a6b9-0c1d2e3f4051"
    go1 = avrae_combatant("9b5f1c7e-d083-45e6-b7ca-1d2e3f405162", "GO1", "monster", 10, 1, 7, 7)
    go1["monster_name"], go1["monster_id"] = "Goblin", 23
    second = copy.deepcopy(combat)
    second.update(
        {
            "combatants": [tali2, go1],
            "round": 1,
            "current": 0,
            "turn": 18,
            "nlp_record_session_id": cid2,
        }
    )
    records.append(avrae_other(cid2, 1700003600.0, "combat_start"))
    records.append(avrae_state(cid2, 1700003601.0, second, {tali2["id"]: (9, 12, 0)}))
    go1["hp"] = 2
    second["combatants"][1]["hp"] = 2
    records.append(avrae_state(cid2, 1700003609.0, second, {tali2["id"]: (9, 12, 0)}))
    records.append(avrae_other(cid2, 1700003620.0, "combat_end"))
    return records


def main() -> None:
    (HERE / "avrae_combat.jsonl").write_text("".join(json.dumps(r) + "\n" for r in avrae_fight()))


if __name__ == "__main__":
    main()

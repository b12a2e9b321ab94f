"""Build the Improved Initiative fixtures in the shapes that program really writes (Avrae's:
avrae_fixtures.py).

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

# --- Improved Initiative 3.11.8 (cynicaloptimist/improved-initiative, commit ca10dc0a) ---------

II_VERSION = "3.11.8"


def ii_stat_block(name: str, hp: int, *, player: str = "", notes: str = "") -> dict[str, Any]:
    """common/StatBlock.ts, `StatBlock.Default()` with a name, HP and `Player`."""
    return {
        "Id": name.lower().replace(" ", "-"),
        "Name": name,
        "Path": "",
        "Source": "" if player else "Basic Rules",
        "Type": "" if player else "Small humanoid (goblinoid), neutral evil",
        "HP": {"Value": hp, "Notes": notes},
        "AC": {"Value": 15, "Notes": ""},
        "InitiativeModifier": 0,
        "InitiativeAdvantage": False,
        "Speed": ["30 ft."],
        "Abilities": {"Str": 10, "Dex": 14, "Con": 10, "Int": 10, "Wis": 8, "Cha": 8},
        "DamageVulnerabilities": [],
        "DamageResistances": [],
        "DamageImmunities": [],
        "ConditionImmunities": [],
        "Saves": [],
        "Skills": [],
        "Senses": [],
        "Languages": [],
        "Challenge": "1" if player else "1/4",
        "Traits": [],
        "Actions": [],
        "BonusActions": [],
        "Reactions": [],
        "LegendaryActions": [],
        "MythicActions": [],
        "Description": "",
        "Player": player,
        "Version": II_VERSION,
        "ImageURL": "",
    }


def ii_combatant(
    cid: str, block: dict[str, Any], initiative: int, index_label: int
) -> dict[str, Any]:
    """client/Combatant/Combatant.ts `GetState()` (common/CombatantState.ts), with the
    `ElapsedSeconds` that `FullEncounterState()` adds; no `MaxHP` (gone since 2018)."""
    return {
        "Id": cid,
        "StatBlock": block,
        "CurrentHP": block["HP"]["Value"],
        "CurrentNotes": "",
        "TemporaryHP": 0,
        "Initiative": initiative,
        "Alias": "",
        "IndexLabel": index_label,
        "Tags": [],
        "Hidden": False,
        "RevealedAC": False,
        "Color": "",
        "ReactionsSpent": 0,
        "RoundCounter": 0,
        "InterfaceVersion": II_VERSION,
        "ElapsedSeconds": 0,
    }


def ii_fight() -> list[dict[str, Any]]:
    """Successive autosaves (client/Encounter/Encounter.ts `FullEncounterState()`, saved by
    `StartEncounterAutosaves` on every change), in initiative order as `SortByInitiative` left
    them. Grim the player against two goblins and a lair action with no HP."""
    state: dict[str, Any] = {
        "ActiveCombatantId": None,
        "RoundCounter": 0,
        "Combatants": [
            ii_combatant("grim", ii_stat_block("Grim", 12, player="player"), 17, 1),
            ii_combatant("gob1", ii_stat_block("Goblin", 7, notes="(2d6)"), 14, 1),
            ii_combatant("gob2", ii_stat_block("Goblin", 7, notes="(2d6)"), 12, 2),
            ii_combatant("lair", ii_stat_block("Lair Action", 0), 0, 1),
        ],
        "BackgroundImageUrl": None,
        "ElapsedSeconds": 0,
    }
    by_id = {c["Id"]: c for c in state["Combatants"]}
    saves: list[dict[str, Any]] = []

    def save(seconds: int) -> None:
        state["ElapsedSeconds"] = seconds
        saves.append(copy.deepcopy(state))

    def turn(cid: str, *, wrap: bool = False) -> None:  # EncounterFlow.NextTurn
        if wrap:
            state["RoundCounter"] += 1
        state["ActiveCombatantId"] = cid
        by_id[cid]["RoundCounter"] += 1

    save(0)  # 0: combatants added, encounter not started
    state["RoundCounter"] = 1  # EncounterFlow.StartEncounter
    turn("grim")
    save(0)  # 1: round 1, Grim's turn
    by_id["grim"]["TemporaryHP"] = 3  # ApplyTemporaryHP: false life
    save(6)  # 2
    by_id["gob1"]["CurrentHP"] = 0  # Grim's axe: 7 on a 7-HP goblin, clamped at 0
    save(21)  # 3
    turn("gob1")
    save(0)  # 4: Goblin 1's turn (Improved Initiative does not skip the fallen)
    turn("gob2")
    save(0)  # 5
    by_id["grim"]["TemporaryHP"] = 0  # 5 damage: 3 off temporary HP, 2 off HP
    by_id["grim"]["CurrentHP"] = 10
    save(12)  # 6
    turn("lair")
    save(0)  # 7: the lair action's turn (no HP: never tracked)
    turn("grim", wrap=True)
    save(0)  # 8: round 2
    turn("gob1")
    save(0)  # 9
    turn("gob2")
    save(0)  # 10
    by_id["grim"]["CurrentHP"] = 0  # a 14-damage critical: Grim drops (clamped at 0)
    save(30)  # 11
    state["ActiveCombatantId"] = "gob1"  # EncounterFlow.PreviousTurn: the GM goes back
    by_id["gob2"]["RoundCounter"] -= 1
    save(0)  # 12: back a turn: older than 11, taken in as nothing
    turn("gob2")
    save(0)  # 13: on again, the turn timer reset: still before 11's 30 s
    turn("lair")
    save(0)  # 14
    turn("grim", wrap=True)
    save(0)  # 15: round 3, Grim's turn: a death save
    return saves


def ii_export(autosave: dict[str, Any]) -> dict[str, Any]:
    """client/Settings/components/LocalDataSettings.tsx `exportData`: `{...localStorage,
    ...Store.GetAllKeyPairs()}` (client/Utility/LegacySynchronousLocalStore.ts `ExportAll`).
    localStorage values are JSON text (`save` stringifies); the localforage library's are
    objects, keyed `<list>.<id>`."""
    settings = {"Version": II_VERSION, "Rules": {"AllowNegativeHP": False}}
    saved = {
        "Name": "Goblin ambush",
        "Path": "",
        "Id": "goblin-ambush",
        "Version": II_VERSION,
        "Combatants": [c for c in autosave["Combatants"] if c["Id"] != "grim"],
    }
    return {
        "ImprovedInitiative.User": json.dumps(["Settings", "SkipIntro", "AllowTracking"]),
        "ImprovedInitiative.User.Settings": json.dumps(settings),
        "ImprovedInitiative.User.SkipIntro": "true",
        "ImprovedInitiative.User.AllowTracking": "false",
        "ImprovedInitiative.AutoSavedEncounters": json.dumps(["default"]),
        "ImprovedInitiative.AutoSavedEncounters.default": json.dumps(autosave),
        "Creatures.goblin": ii_stat_block("Goblin", 7, notes="(2d6)"),
        "SavedEncounters.goblin-ambush": saved,
        "PersistentCharacters.grim": {
            "Id": "grim",
            "Name": "Grim",
            "Path": "",
            "Version": II_VERSION,
            "StatBlock": ii_stat_block("Grim", 12, player="player"),
            "CurrentHP": 0,
            "Notes": "",
        },
    }


def main() -> None:
    autosaves = ii_fight()
    (HERE / "improved_initiative_autosaves.json").write_text(json.dumps(autosaves, indent=1) + "\n")
    (HERE / "improved_initiative_export.json").write_text(
        json.dumps(ii_export(autosaves[-1]), indent=2) + "\n"
    )


if __name__ == "__main__":
    main()

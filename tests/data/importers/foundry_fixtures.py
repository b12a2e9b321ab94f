"""Build foundry_dnd5e.jsonl, foundry_d26.jsonl and foundry_dnd5e_refused.jsonl: the envelopes
woundlog's Foundry module sends for three made-up fights.

    python tests/data/importers/foundry_fixtures.py

The fight is made up; the shapes are not. Each builder names what it follows:
- dnd5e 5.3.3 (foundryvtt/dnd5e, tag release-5.3.3): `module/documents/actor/actor.mjs`
  `applyDamage` (the whole `amount`, HP clamped at 0, temporary HP first) and `rollDeathSave`
  (`dnd5e.rollDeathSave(rolls, details)`, a natural 20 updates HP to 1);
  `module/data/actor/templates/attributes.mjs` `onUpdateHP` (`changes = {hp, temp, total}`,
  new minus old; no hook when nothing changed or on a rest).
- Foundry VTT v12/v13 core: `combatTurnChange(combat, prior, current)` with
  `CombatHistoryData` `{round, turn, combatantId, tokenId}`; `Roll#dice` (every `DiceTerm`,
  those inside parenthetical and pool terms included) and `DiceTerm#results` entries
  `{result, active, discarded?, rerolled?}`; a `TokenDocument#uuid` `Scene.<id>.Token.<id>`.
- The envelope around them: replays/integrations/foundry/woundlog.mjs (`envelope()`), which
  the node tests check against these same shapes.

Run again after changing the fight; the file is committed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SCENE = "sceneMain0000001"
COMBAT = "combat0000000001"


def token(tid: str, name: str, actor: str, kind: str, hp: int, mx: int, *, player: bool) -> Any:
    """What the module reads of a token: its document's uuid and name, `hasPlayerOwner`, and
    the actor's HP at the HP path (dnd5e `system.attributes.hp`)."""
    return {
        "token": {"uuid": f"Scene.{SCENE}.Token.{tid}", "name": name, "player": player},
        "actor": {"id": actor, "name": name.split(" (")[0], "type": kind,
                  "hp": {"value": hp, "max": mx, "temp": 0}},
    }  # fmt: skip


def die(faces: int, *results: int | tuple[int, str]) -> dict[str, Any]:
    """A DiceTerm as `Roll#dice` lists it; `(3, "discarded")` a die kept out by `kh`."""
    shown = []
    for r in results:
        if isinstance(r, tuple):
            shown.append({"result": r[0], "active": False, r[1]: True})
        else:
            shown.append({"result": r, "active": True})
    return {"faces": faces, "results": shown}


def roll(formula: str, total: int, *dice: dict[str, Any], critical: bool = False) -> Any:
    return {"formula": formula, "total": total, "dice": list(dice), "isCritical": critical}


class Table:
    """The fight as Foundry sees it: tokens with HP, the combat's turn order and position."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.count = 0
        self.tokens = {
            "brakka": token(
                "tkBrakka00000001", "Brakka", "actBrakka0000001", "character", 12, 12, player=True
            ),
            "gob1": token(
                "tkGoblin00000001", "Goblin (1)", "actGoblin0000001", "npc", 7, 7, player=False
            ),
            "gob2": token(
                "tkGoblin00000002", "Goblin (2)", "actGoblin0000001", "npc", 7, 7, player=False
            ),
        }  # fmt: skip  (the goblins are unlinked: one base actor id)
        self.order = ["brakka", "gob1", "gob2"]
        self.position: dict[str, Any] = {"round": 0, "turn": None}

    def id(self) -> str:
        self.count += 1
        return f"env{self.count:05d}"

    def at(self, who: str) -> dict[str, Any]:
        return json.loads(json.dumps(self.tokens[who]))

    def history(self, round_: int, turn: int | None) -> dict[str, Any]:
        who = self.order[turn] if turn is not None else None
        return {
            "round": round_,
            "turn": turn,
            "combatantId": f"cb-{who}" if who else None,
            "tokenId": self.tokens[who]["token"]["uuid"].rsplit(".", 1)[1] if who else None,
        }

    def turn(self, round_: int, turn: int) -> None:
        """`Combat#nextTurn`/`previousTurn`/`update({turn})` then `combatTurnChange`."""
        prior = self.history(self.position["round"], self.position["turn"])
        self.position = {"round": round_, "turn": turn}
        self.records.append({
            "hook": "combatTurnChange", "id": self.id(), "combat": COMBAT,
            "prior": prior, "current": self.history(round_, turn),
            "turns": [{"combatantId": f"cb-{w}", **self.at(w)} for w in self.order],
        })  # fmt: skip

    def damage(
        self, who: str, amount: int, *, by: str, dealt: Any = None, purpose: str = ""
    ) -> None:
        """`Actor5e#applyDamage`: temporary HP first, HP clamped at 0 (`deltaHP`), the
        `damageActor` of the update (none when HP did not move) folded in."""
        hp = self.tokens[who]["actor"]["hp"]
        temp = min(hp["temp"], amount)
        lost = min(amount - temp, hp["value"])
        hp["temp"] -= temp
        hp["value"] -= lost
        record: dict[str, Any] = {"hook": "dnd5e.applyDamage", "id": self.id(),
                                  **self.at(who), "amount": amount,
                                  "attacker": self.tokens[by]["token"]["uuid"]}  # fmt: skip
        if lost or temp:
            record["changes"] = {"hp": -lost, "temp": -temp, "total": -lost - temp}
        if dealt is not None and dealt["isCritical"]:
            record["critical"] = True  # the originating damage roll's `isCritical`
        if dealt is not None and purpose:  # the module's `purpose` setting (d26: location)
            record |= {"purpose": purpose, "roll": dealt}
        self.records.append(record)

    def heal(self, who: str, amount: int) -> None:
        """A heal by the sheet or the token HUD: `onUpdateHP`'s `dnd5e.healActor`."""
        hp = self.tokens[who]["actor"]["hp"]
        gained = min(amount, hp["max"] - hp["value"])
        hp["value"] += gained
        self.records.append({"hook": "dnd5e.healActor", "id": self.id(), **self.at(who),
                             "changes": {"hp": gained, "temp": 0, "total": gained}})  # fmt: skip

    def death_save(self, who: str, rolled: Any) -> None:
        """`Actor5e#rollDeathSave`; a natural 20's update to 1 HP fires a `healActor` that the
        module does not send (the death save says it)."""
        self.records.append({"hook": "dnd5e.rollDeathSave", "id": self.id(), **self.at(who),
                             "roll": rolled})  # fmt: skip
        natural = [r["result"] for r in rolled["dice"][0]["results"] if r["active"]]
        if natural == [20]:
            self.tokens[who]["actor"]["hp"]["value"] = 1


def dnd5e_fight() -> list[dict[str, Any]]:
    """Brakka (12 HP) against two goblins of one unlinked base actor."""
    t = Table()
    t.turn(1, 0)  # 0: the GM begins the combat: Brakka's turn
    axe = roll("1d12+3", 9, die(12, 6))
    t.damage("gob1", 9, by="brakka", dealt=axe)  # 1: 9 on 7 HP: Goblin (1) dies
    t.turn(1, 2)  # 2: the GM skips the dead Goblin (1): its turn starts and ends
    t.damage("brakka", 5, by="gob2")  # 3: 12 -> 7
    t.turn(1, 1)  # 4: "previous turn"
    t.turn(1, 2)  # 5: "next turn" again: a resend of record 2's Goblin (2) turn
    crit = roll("2d6+2", 14, die(6, 6, 6), critical=True)
    t.damage("brakka", 14, by="gob2", dealt=crit)  # 6: 7 -> 0, 7 past 0: downed, not dead
    t.turn(2, 0)  # 7: round 2, Brakka's turn: he rolls his death save himself
    t.death_save("brakka", roll("1d20", 14, die(20, 14)))  # 8: a success
    t.damage("brakka", 3, by="gob2")  # 9: a blow at 0 HP: no HP hook, only applyDamage
    t.turn(3, 0)  # 10: on to round 3: Goblin (2)'s turn of round 2 crossed (skipped)
    lucky = roll("2d20kh", 20, die(20, (4, "discarded"), 20), critical=True)  # advantage
    t.death_save("brakka", lucky)  # 11: a natural 20: back at 1 HP
    t.heal("brakka", 4)  # 12: a potion by the sheet: 1 -> 5
    return t.records


def d26_fight() -> list[dict[str, Any]]:
    """The same table in d26, whose injuries roll a location die: the module's `purpose`
    setting gives each damage roll's dice as `location`."""
    t = Table()
    t.turn(1, 0)  # 0
    t.damage("gob1", 5, by="brakka", dealt=roll("1d4", 4, die(4, 4)), purpose="location")  # 1
    t.damage("brakka", 4, by="gob2")  # 2: 12 -> 8
    t.turn(1, 1)  # 3
    # 4: 8 -> 0 and 6 past 0; this table rolls the location d4 as the blow's chat roll
    blow = roll("1d4", 3, die(4, 3))
    t.damage("brakka", 14, by="gob1", dealt=blow, purpose="location")
    t.turn(1, 2)  # 5
    t.heal("gob1", 2)  # 6
    t.turn(2, 0)  # 7: round 2
    t.turn(1, 2)  # 8: the GM goes back: nothing
    return t.records


def dnd5e_healing_the_dead() -> list[dict[str, Any]]:
    """A GM heals a goblin that dnd5e in Foundry left at 0 HP and woundlog's dnd5e killed (a
    monster at 0 HP dies), then strikes it again: both are facts of Foundry's table that
    woundlog's rules refuse, and the records after them must still arrive (issue 13)."""
    t = Table()
    t.turn(1, 0)  # 0: Brakka's turn
    t.damage("gob1", 9, by="brakka", dealt=roll("1d12+3", 9, die(12, 6)))  # 1: Goblin (1) dies
    t.heal("gob1", 3)  # 2: the GM restores 3 HP on the sheet: 0 -> 3 in Foundry
    t.turn(1, 1)  # 3: Goblin (1)'s turn, in Foundry it is alive
    t.damage("brakka", 4, by="gob1")  # 4: the "dead" goblin strikes: 12 -> 8
    t.turn(1, 2)  # 5: Goblin (2)'s turn
    t.damage("brakka", 5, by="gob2")  # 6: 8 -> 3
    t.damage("gob1", 2, by="brakka")  # 7: Brakka's riposte on Goblin (1): 3 -> 1 in Foundry
    t.turn(2, 0)  # 8: round 2
    return t.records


def write(name: str, records: list[dict[str, Any]]) -> None:
    with open(HERE / name, "w") as out:
        for record in records:
            out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    write("foundry_dnd5e.jsonl", dnd5e_fight())
    write("foundry_d26.jsonl", d26_fight())
    write("foundry_dnd5e_refused.jsonl", dnd5e_healing_the_dead())

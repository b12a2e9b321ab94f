"""Build foundry_dnd5e.jsonl, foundry_d26.jsonl and foundry_dnd5e_refused.jsonl: the envelopes
woundlog's Foundry module sends for three made-up fights.

    python tests/data/importers/foundry_fixtures.py

The fight is made up; the shapes are not. Each builder names what it follows:
- dnd5e 5.3.3 (foundryvtt/dnd5e, tag release-5.3.3): `module/documents/actor/actor.mjs`
  `applyDamage` (the whole `amount`; temporary HP first; HP clamped to 0..effectiveMax,
  `max + tempmax`) and `rollDeathSave` (the total against `options.target` 10, a natural 20
  critical and back at 1 HP, a natural 1 two failures);
  `module/data/actor/templates/attributes.mjs` `prepareHitPoints` (`effectiveMax`) and
  `onUpdateHP` (`changes = {hp, temp, total}`, new minus old, fired only after awaiting
  `updateBloodied`: when the Bloodied effect is made, after `dnd5e.applyDamage`).
- Foundry VTT v13 client `Combat` (`combatTurnChange(combat, prior, current)` with
  `CombatHistoryData` `{round, turn, combatantId, tokenId}`; deleting the current combatant
  keeps the turn index, handing the turn to the next), `Roll#dice` and `DiceTerm#results`
  (`{result, active, discarded?}`), `TokenDocument#uuid` `Scene.<id>.Token.<id>`.
- The envelope around them: replays/integrations/foundry/woundlog.mjs, which sends for each
  blow the change its `dnd5e.preApplyDamage` update makes, whenever dnd5e's own HP hook for it
  comes (so the Bloodied order changes nothing in these records), and names a linked actor
  (Brakka) `Actor.<id>`, an unlinked token by its token uuid.

Run again after changing the fight; the file is committed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SCENE = "sceneMain0000001"
COMBAT = "combat0000000001"


def token(
    tid: str, name: str, actor: str, kind: str, hp: int, mx: int, *, player: bool, linked: bool
) -> Any:
    """What the module reads of a token (reading.mjs `characterOf`, `hpOf`): a linked actor's
    world uuid and name, or an unlinked token's uuid and name; `hasPlayerOwner`; the actor's HP
    at the HP path (dnd5e `system.attributes.hp`) with `tempmax`."""
    uuid = f"Actor.{actor}" if linked else f"Scene.{SCENE}.Token.{tid}"
    return {
        "token": {"uuid": uuid, "name": name, "player": player},
        "actor": {"id": actor, "name": name.split(" (")[0], "type": kind,
                  "hp": {"value": hp, "max": mx, "temp": 0, "tempmax": 0}},
        "tokenId": tid,
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
    return {"formula": formula, "total": total, "isCritical": critical, "dice": list(dice)}


def death_save(natural: int, bonus: int = 0, *, dropped: int | None = None) -> Any:
    """A D20Roll as dnd5e rolls a death save (reading.mjs `rollOf`): `1d20 + bonus`, or
    `2d20kh` with advantage; `isCritical`/`isFumble` from the kept die; `target` 10."""
    kept = die(20, natural) if dropped is None else die(20, (dropped, "discarded"), natural)
    formula = ("1d20" if dropped is None else "2d20kh") + (f" + {bonus}" if bonus else "")
    return {
        "formula": formula, "total": natural + bonus, "isCritical": natural == 20,
        "isFumble": natural == 1, "target": 10, "dice": [kept],
    }  # fmt: skip


class Table:
    """The fight as Foundry sees it: tokens with HP, the combat's turn order and position."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.count = 0
        self.tokens = {
            "brakka": token(
                "tkBrakka00000001",
                "Brakka",
                "actBrakka0000001",
                "character",
                12,
                12,
                player=True,
                linked=True,
            ),
            "gob1": token(
                "tkGoblin00000001",
                "Goblin (1)",
                "actGoblin0000001",
                "npc",
                7,
                7,
                player=False,
                linked=False,
            ),
            "gob2": token(
                "tkGoblin00000002",
                "Goblin (2)",
                "actGoblin0000001",
                "npc",
                7,
                7,
                player=False,
                linked=False,
            ),
        }  # fmt: skip  (the goblins are unlinked: one base actor id)
        self.order = ["brakka", "gob1", "gob2"]
        self.position: dict[str, Any] = {"round": 0, "turn": None}

    def id(self) -> str:
        self.count += 1
        return f"env{self.count:05d}"

    def at(self, who: str) -> dict[str, Any]:
        shown = json.loads(json.dumps(self.tokens[who]))
        del shown["tokenId"]
        return shown

    def history(self, round_: int, turn: int | None) -> dict[str, Any]:
        who = self.order[turn] if turn is not None else None
        return {
            "round": round_,
            "turn": turn,
            "combatantId": f"cb-{who}" if who else None,
            "tokenId": self.tokens[who]["tokenId"] if who else None,
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

    def delete(self, who: str) -> None:
        """Deleting a combatant (client `Combat#setupTurns`): the turn order loses it and the
        turn index stays, so the next combatant has the turn; past the end, turn 0 of the
        next round. The module sends the turn change that makes."""
        prior = self.history(self.position["round"], self.position["turn"])
        self.order.remove(who)
        turn = self.position["turn"]
        if turn is not None and turn >= len(self.order):
            self.position = {"round": self.position["round"] + 1, "turn": 0}
        self.records.append({
            "hook": "combatTurnChange", "id": self.id(), "combat": COMBAT, "prior": prior,
            "current": self.history(self.position["round"], self.position["turn"]),
            "turns": [{"combatantId": f"cb-{w}", **self.at(w)} for w in self.order],
        })  # fmt: skip

    def damage(
        self, who: str, amount: int, *, by: str, dealt: Any = None, purpose: str = ""
    ) -> None:
        """`Actor5e#applyDamage`: temporary HP first, HP clamped to 0..effectiveMax
        (`deltaHP`); the change is the update's (`preApplyDamage`'s `updates` less the HP
        before), always sent, whether dnd5e's own HP hook for it came before or after."""
        hp = self.tokens[who]["actor"]["hp"]
        temp = min(hp["temp"], amount)
        damage = hp["max"] + hp["tempmax"] - hp["value"]
        lost = min(max(amount - temp, -damage), hp["value"])
        hp["temp"] -= temp
        hp["value"] -= lost
        record: dict[str, Any] = {"hook": "dnd5e.applyDamage", "id": self.id(),
                                  **self.at(who), "amount": amount,
                                  "attacker": self.tokens[by]["token"]["uuid"]}  # fmt: skip
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
        """`Actor5e#rollDeathSave`; a critical success's update to 1 HP fires a `healActor`
        that the module does not send (the death save says it)."""
        self.records.append({"hook": "dnd5e.rollDeathSave", "id": self.id(), **self.at(who),
                             "roll": rolled})  # fmt: skip
        if rolled["total"] >= rolled["target"] and rolled["isCritical"]:
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
    t.death_save("brakka", death_save(7, 3))  # 8: a natural 7 + 3: a success at 10
    t.damage("brakka", 3, by="gob2")  # 9: a blow at 0 HP: no HP hook, only applyDamage
    t.turn(3, 0)  # 10: on to round 3: Goblin (2)'s turn of round 2 crossed (skipped)
    t.death_save("brakka", death_save(20, dropped=4))  # 11: with advantage, a 20: back at 1 HP
    t.heal("brakka", 4)  # 12: a potion by the sheet: 1 -> 5
    t.turn(3, 1)  # 13: Goblin (1)'s turn (dead in woundlog, 0 HP in Foundry)
    t.delete("gob1")  # 14: the GM deletes it: Goblin (2) has turn 1 now
    t.turn(4, 0)  # 15: round 4
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

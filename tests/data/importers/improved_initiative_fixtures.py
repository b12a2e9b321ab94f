"""Improved Initiative 3.11.8 run in Python: the autosaves and export files a GM's clicks make.

    python tests/data/importers/improved_initiative_fixtures.py

A port of the program's own logic (cynicaloptimist/improved-initiative, tag 3.11.8, commit
ca10dc0a), each behaviour citing the file and function it follows: the encounter and its flow
(client/Encounter/Encounter.ts, EncounterFlow.ts), a combatant (client/Combatant/Combatant.ts),
the timers (client/Widgets/CombatTimer.ts) and the autosave (`StartEncounterAutosaves`, which
saves `FullEncounterState()` through client/Utility/LegacySynchronousLocalStore.ts on every
change of `ObservableEncounterState`). Knockout re-evaluates that computed synchronously at each
observable written with a new value, so one click can write several autosaves (Next Turn at the
end of a round: the round counter first, then the turn): `Tracker.changed` saves at each.

The fights are made up; the logic is not. Run again after changing a fight: the files are
committed. `long_fight(n)` builds fights of any length for the tests that count work.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
VERSION = "3.11.8"


def stat_block(name: str, hp: int, *, player: str = "", notes: str = "") -> dict[str, Any]:
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
        "Version": VERSION,
        "ImageURL": "",
    }


GRIM = stat_block("Grim", 12, player="player")
GOBLIN = stat_block("Goblin", 7, notes="(2d6)")
LAIR = stat_block("Lair Action", 0)


class Timer:
    """client/Widgets/CombatTimer.ts: elapsed seconds (a `setInterval` of 1 s while started) and
    rounds; `Stop` (and so `Reset`) sets both to 0."""

    def __init__(self) -> None:
        self.seconds = 0
        self.rounds = 0
        self.running = False


class Combatant:
    """client/Combatant/Combatant.ts: the observables `GetState()` reads."""

    def __init__(self, cid: str, block: dict[str, Any], persistent: str | None = None) -> None:
        self.id = cid
        self.persistent = persistent
        self.block = block
        self.hp = block["HP"]["Value"]
        self.temp = 0
        self.initiative = 0
        self.alias = ""
        self.index_label = 0  # constructor: `IndexLabel(savedCombatant.IndexLabel || 0)`
        self.reactions = 0
        self.timer = Timer()

    def state(self) -> dict[str, Any]:
        """`GetState()`; `PersistentCharacterId: undefined` leaves the key out of the JSON."""
        state: dict[str, Any] = {"Id": self.id}
        if self.persistent:
            state["PersistentCharacterId"] = self.persistent
        state.update(
            StatBlock=self.block,
            CurrentHP=self.hp,
            CurrentNotes="",
            TemporaryHP=self.temp,
            Initiative=self.initiative,
            InitiativeGroup=None,
            Alias=self.alias,
            IndexLabel=self.index_label,
            Tags=[],
            Hidden=False,
            RevealedAC=False,
            Color="",
            ReactionsSpent=self.reactions,
            RoundCounter=self.timer.rounds,
            InterfaceVersion=VERSION,
        )
        return state


class Tracker:
    """One browser tab of Improved Initiative: the encounter, its flow and its autosaves."""

    def __init__(self, *, allow_negative_hp: bool = False) -> None:
        self.combatants: list[Combatant] = []
        self.counts: dict[str, int] = {}  # Encounter.CombatantCountsByName
        self.active: Combatant | None = None
        self.turn_timer = Timer()  # EncounterFlow.TurnTimer
        self.combat_timer = Timer()  # EncounterFlow.CombatTimer: RoundCounter
        self.flow = "inactive"
        self.allow_negative_hp = allow_negative_hp  # Settings.Rules.AllowNegativeHP
        self.saves: list[dict[str, Any]] = []
        self.library_hp: dict[str, int] = {}  # the persistent characters' HP, by their id
        self._observed: Any = None

    # --- the autosave --------------------------------------------------------------------

    def observable(self) -> dict[str, Any]:
        """Encounter.ts `ObservableEncounterState`: no seconds ("omitted to avoid repeated
        re-renders"), so the timers ticking save nothing."""
        return {
            "ActiveCombatantId": self.active.id if self.active else None,
            "RoundCounter": self.combat_timer.rounds,
            "Combatants": [c.state() for c in self.combatants],
            "BackgroundImageUrl": None,
        }

    def full(self) -> dict[str, Any]:
        """Encounter.ts `FullEncounterState`: the observable state with the turn timer's
        seconds, and each combatant's own timer's."""
        state = self.observable()
        state["ElapsedSeconds"] = self.turn_timer.seconds
        for combatant, saved in zip(self.combatants, state["Combatants"], strict=True):
            saved["ElapsedSeconds"] = combatant.timer.seconds
        return state

    def changed(self) -> None:
        """An observable was written: the computed re-evaluates and `StartEncounterAutosaves`'s
        subscription saves, unless nothing it reads changed (a primitive written again with
        the same value notifies nobody)."""
        now = self.observable()
        if now != self._observed:
            self._observed = now
            self.saves.append(copy.deepcopy(self.full()))

    def wait(self, seconds: int) -> None:
        """Time passes at the table: the running timers tick (CombatTimer `setInterval`)."""
        for timer in (self.turn_timer, self.combat_timer, *(c.timer for c in self.combatants)):
            if timer.running:
                timer.seconds += seconds

    # --- the roster (Encounter.ts) --------------------------------------------------------

    def display_name(self, c: Combatant) -> str:
        """Combatant.ts `DisplayName`: the alias, else the name, numbered once the encounter
        has had more than one of that name (`CombatantCountsByName`)."""
        if c.alias:
            return c.alias
        name = c.block["Name"]
        return f"{name} {c.index_label}" if self.counts.get(name, 0) > 1 else name

    def add(
        self, cid: str, block: dict[str, Any], *, initiative: int = 0, persistent: str = ""
    ) -> Combatant:
        """`AddCombatantFromStatBlock` / `AddCombatantFromPersistentCharacter` (a new `Id`
        each time: `probablyUniqueString()`, here given), then `AddCombatantFromState`: pushed
        (a save), then `UpdateIndexLabel` (another, when the label changes)."""
        combatant = Combatant(cid, block, persistent or None)
        if persistent:
            combatant.hp = self.library_hp.get(persistent, combatant.hp)
        self.combatants.append(combatant)
        self.changed()
        self.update_index_label(combatant)
        if initiative:
            self.set_initiative(combatant, initiative)
        return combatant

    def update_index_label(self, c: Combatant) -> None:
        """Combatant.ts `UpdateIndexLabel()`: count the name, and take the count as the label
        when there is none, it is lower, or the display name is taken."""
        name = c.block.get("Name")
        if name is None:  # `if (name == oldName) return;` with no old name: null == undefined
            return
        self.counts[name] = self.counts.get(name, 0) + 1
        taken = any(
            self.display_name(o) == self.display_name(c) for o in self.combatants if o is not c
        )
        if not c.index_label or c.index_label < self.counts[name] or taken:
            c.index_label = self.counts[name]
        self.changed()

    def set_initiative(self, c: Combatant, initiative: int) -> None:
        """CombatantViewModel.ts `ApplyInitiative`: the value, then `SortByInitiative(true)`."""
        c.initiative = initiative
        self.changed()
        self.sort(stable=True)

    def sort(self, *, stable: bool = False) -> None:
        """Encounter.ts `SortByInitiative`: by initiative, highest first (lodash `sortBy` is
        stable); unstable adds players first, then name and label."""
        if stable:
            key: Any = lambda c: -c.initiative  # noqa: E731
        else:
            key = lambda c: (-c.initiative, 0 if c.block["Player"] == "player" else 1,  # noqa: E731
                             c.block["Name"], c.index_label)  # fmt: skip
        self.combatants = sorted(self.combatants, key=key)
        self.changed()

    def remove(self, c: Combatant) -> None:
        """CombatantCommander.tsx `Remove`: the turn moves on first if it is theirs, then
        Encounter.ts `RemoveCombatant`; the name's count goes only with the last of the name.
        A persistent character's HP stays in the library (`AttachToPersistentCharacterLibrary`)."""
        while self.active is c and len(self.combatants) > 1:
            self.next_turn()
        self.combatants.remove(c)
        if c.persistent:
            self.library_hp[c.persistent] = c.hp
        if all(o.block["Name"] != c.block["Name"] for o in self.combatants):
            self.counts.pop(c.block["Name"], None)
        self.changed()

    # --- hit points (Combatant.ts) --------------------------------------------------------

    def damage(self, c: Combatant, amount: int) -> None:
        """`ApplyDamage`: off temporary HP first; at or below 0 kept at 0 unless the rule
        AllowNegativeHP is on. CurrentHP is written, then TemporaryHP: a save at each that
        changes."""
        hp, temp = c.hp, c.temp - amount
        if temp < 0:
            hp, temp = hp + temp, 0
        if hp <= 0 and not self.allow_negative_hp:
            hp = 0
        if hp != c.hp:
            c.hp = hp
            self.changed()
        if temp != c.temp:
            c.temp = temp
            self.changed()

    def heal(self, c: Combatant, amount: int) -> None:
        """`ApplyHealing`: up to the stat block's maximum, temporary HP untouched."""
        c.hp = min(c.hp + amount, c.block["HP"]["Value"])
        self.changed()

    def temporary_hp(self, c: Combatant, amount: int) -> None:
        """`ApplyTemporaryHP`: the higher stands."""
        if amount > c.temp:
            c.temp = amount
            self.changed()

    def rename(self, c: Combatant, alias: str) -> None:
        """CombatantViewModel.ts `SetAlias`."""
        c.alias = alias
        self.changed()

    # --- the flow (EncounterFlow.ts) ------------------------------------------------------

    def start(self) -> None:
        """`StartEncounter`: sort, round 1 (from inactive), the first combatant's turn."""
        self.sort()
        if self.flow == "inactive":
            self.combat_timer.rounds = 1
            self.changed()
        self.flow = "active"
        self.active = self.combatants[0]
        self.changed()
        self.active.timer.running = True
        self.active.timer.rounds += 1
        self.changed()
        self.turn_timer.running = self.combat_timer.running = True

    def next_turn(self) -> None:
        """`NextTurn`: past the last, the round counter goes up *before* the turn is handed
        on; the turn timer is reset last, so the saves of the click carry the seconds of the
        turn that ended."""
        assert self.active is not None
        ending = self.active
        place = self.combatants.index(ending) + 1
        if place >= len(self.combatants):
            place = 0
            self.combat_timer.rounds += 1
            self.changed()
        starting = self.combatants[place]
        self.active = starting
        self.changed()
        ending.timer.running = False
        starting.timer.rounds += 1
        self.changed()
        starting.timer.running = True
        if starting.reactions:
            starting.reactions = 0
            self.changed()
        self.turn_timer.seconds = 0  # `TurnTimer.Reset()`

    def previous_turn(self) -> None:
        """`PreviousTurn`: before the first, the round counter goes down first; the combatant
        losing the turn loses a round of its own timer."""
        assert self.active is not None
        ending = self.active
        place = self.combatants.index(ending) - 1
        if place < 0:
            place = len(self.combatants) - 1
            if self.combat_timer.rounds:
                self.combat_timer.rounds -= 1
                self.changed()
        previous = self.combatants[place]
        self.active = previous
        self.changed()
        if ending.timer.rounds:
            ending.timer.rounds -= 1
            self.changed()
        ending.timer.running = False
        previous.timer.running = True
        self.turn_timer.seconds = 0

    def end(self) -> None:
        """`EndEncounter`: no active combatant; the round counter is paused, not reset."""
        self.flow = "inactive"
        if self.active is not None:
            self.active.timer.running = False
        self.combat_timer.running = False
        self.turn_timer = Timer()
        self.active = None
        self.changed()


def export(tracker: Tracker) -> dict[str, Any]:
    """client/Settings/components/LocalDataSettings.tsx `exportData`: `{...localStorage,
    ...Store.GetAllKeyPairs()}` (LegacySynchronousLocalStore.ts `ExportAll`). localStorage
    values are JSON text (its `save` stringifies); the localforage library's are objects, keyed
    `<list>.<id>`. The autosave is the last one written."""
    autosave = tracker.saves[-1]
    settings = {"Version": VERSION, "Rules": {"AllowNegativeHP": tracker.allow_negative_hp}}
    saved = {
        "Name": "Goblin ambush",
        "Path": "",
        "Id": "goblin-ambush",
        "Version": VERSION,
        "Combatants": [c for c in autosave["Combatants"] if c["StatBlock"]["Player"] != "player"],
    }
    return {
        "ImprovedInitiative.User": json.dumps(["Settings", "SkipIntro", "AllowTracking"]),
        "ImprovedInitiative.User.Settings": json.dumps(settings),
        "ImprovedInitiative.User.SkipIntro": "true",
        "ImprovedInitiative.User.AllowTracking": "false",
        "ImprovedInitiative.AutoSavedEncounters": json.dumps(["default"]),
        "ImprovedInitiative.AutoSavedEncounters.default": json.dumps(autosave),
        "Creatures.goblin": GOBLIN,
        "SavedEncounters.goblin-ambush": saved,
        "PersistentCharacters.grim-pc": {
            "Id": "grim-pc",
            "Name": "Grim",
            "Path": "",
            "Version": VERSION,
            "StatBlock": GRIM,
            "CurrentHP": next((c.hp for c in tracker.combatants if c.persistent), 12),
            "Notes": "",
        },
    }


# --- the fights -----------------------------------------------------------------------------


def ambush() -> tuple[Tracker, list[dict[str, Any]], list[dict[str, Any]]]:
    """Grim (a persistent character) against goblins added one at a time and a lair action of
    no HP: false life, a goblin felled, the GM going back a turn to correct a blow, a goblin
    removed and another added, Grim dropped and the GM healing him back. Gives the tracker, its
    autosaves, and the export file the GM made after each round (several exports of one fight).
    """
    t = Tracker()
    exports: list[dict[str, Any]] = []
    grim = t.add("k1grim", GRIM, initiative=17, persistent="grim-pc")
    gob1 = t.add("k2gob", GOBLIN, initiative=14)  # alone: shown "Goblin"
    gob2 = t.add("k3gob", GOBLIN, initiative=12)  # now "Goblin 1" and "Goblin 2"
    t.add("k4lair", LAIR, initiative=0)
    t.start()  # round 1, Grim's turn
    t.wait(6)
    t.temporary_hp(grim, 3)  # false life
    t.wait(15)
    t.damage(gob1, 7)  # the axe: 7 on 7 HP, kept at 0
    t.next_turn()  # Goblin 1's turn: Improved Initiative does not skip the fallen
    t.next_turn()  # Goblin 2's
    t.wait(12)
    t.damage(grim, 5)  # 3 off temporary HP, 2 off HP
    t.next_turn()  # the lair action's turn
    exports.append(export(t))  # after round 1
    t.next_turn()  # round 2 (the round counter is saved a moment before the turn)
    t.wait(9)
    t.damage(gob2, 4)  # Grim's second blow
    t.next_turn()  # Goblin 1's
    t.next_turn()  # Goblin 2's
    t.wait(20)
    t.damage(grim, 9)  # a 9-damage blow: Grim at 1
    t.previous_turn()  # the GM goes back a turn to see what happened: the blow was 6
    t.wait(4)
    t.heal(grim, 3)  # corrected there, in Goblin 1's turn: Grim at 4
    t.next_turn()  # on to Goblin 2 again: its turn already started, no second tick
    t.wait(10)
    t.remove(gob1)  # the dead goblin off the board
    t.add("k5gob", GOBLIN, initiative=12)  # a reinforcement: "Goblin 3", sorted in after Goblin 2
    t.next_turn()  # Goblin 3's turn
    t.next_turn()  # the lair action's
    exports.append(export(t))  # after round 2
    t.next_turn()  # round 3: Grim's turn
    t.wait(5)
    t.next_turn()  # Goblin 2's
    t.damage(grim, 8)  # Grim drops (kept at 0)
    t.next_turn()  # Goblin 3's
    t.next_turn()  # the lair action's
    t.next_turn()  # round 4: Grim's turn, at 0 HP: his death save is the table's
    t.heal(grim, 4)  # a potion from a friend
    t.remove(grim)  # Grim flees the board (his turn passes to Goblin 2 first)...
    t.add("k6grim", GRIM, initiative=17, persistent="grim-pc")  # ...and is added back: a new
    # combatant Id, the same persistent character, his HP from the library
    exports.append(export(t))
    return t, t.saves, exports


def long_fight(turns: int) -> list[dict[str, Any]]:
    """`turns` turns of Grim and three goblins trading blows that heal back, for counting."""
    t = Tracker()
    grim = t.add("k1grim", GRIM, initiative=17, persistent="grim-pc")
    gobs = [t.add(f"g{n}", GOBLIN, initiative=14 - n) for n in range(3)]
    t.start()
    for n in range(turns):
        target = grim if n % 2 else gobs[n % 3]
        t.damage(target, 2)
        t.heal(target, 2)
        t.next_turn()
    return t.saves


def main() -> None:
    _, saves, exports = ambush()
    lines = ",\n".join(json.dumps(save) for save in saves)  # one autosave a line: diffable
    (HERE / "improved_initiative_autosaves.json").write_text(f"[\n{lines}\n]\n")
    *earlier, last = exports
    for n, each in enumerate(earlier, 1):
        (HERE / f"improved_initiative_export_round{n}.json").write_text(
            json.dumps(each, indent=2) + "\n"
        )
    (HERE / "improved_initiative_export.json").write_text(json.dumps(last, indent=2) + "\n")


if __name__ == "__main__":
    main()

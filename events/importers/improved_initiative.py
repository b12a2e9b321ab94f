"""Improved Initiative (3.x, shapes of release 3.11.8): the encounter as it autosaves it.

Improved Initiative keeps no history: it autosaves the encounter on every change (HP, a turn,
a combatant added) into the browser's localStorage, one state, overwritten each time. A record
is one of:

- The autosave itself: the `EncounterState` in localStorage under
  `ImprovedInitiative.AutoSavedEncounters.default` (client/Encounter/Encounter.ts,
  `StartEncounterAutosaves`, which saves `FullEncounterState()`):

      {"ActiveCombatantId": "k3j9", "RoundCounter": 2, "ElapsedSeconds": 14,
       "Combatants": [{"Id": "k3j9", "Alias": "", "IndexLabel": 1, "CurrentHP": 4,
                       "TemporaryHP": 0, "StatBlock": {"Name": "Goblin", "Player": "",
                                                       "HP": {"Value": 7, "Notes": "(2d6)"}}}]}

- The "export data" file (Settings, Local Data, "Export your user data as JSON file":
  `improved-initiative.json`, written by `LegacySynchronousLocalStore.ExportAll`): a dump of
  localStorage, whose values are JSON *strings*, merged with the library (stat blocks, saved
  encounters, characters). Of it only the autosave is read, the one state the encounter was in
  when the file was exported; the saved encounters of the library are plans, not fights.

So a file gives one state: importing it after a fight gives who ends where; to follow a fight,
import each autosave in turn (a JSON array of them, or one by one through the service, which
keeps the cursor), as they are written.

Mapping and decisions:
- Character id: the combatant's `Id`. Name: its `Alias`; else its stat block's `Name`, with
  the `IndexLabel` ("Goblin 2") only when another combatant of the state has the same name, as
  Improved Initiative shows it.
- Maximum HP: `StatBlock.HP.Value` (there is no `MaxHP` on a combatant since 2018). A
  combatant whose maximum is below 1 (a lair action) is never tracked, and said so once.
- A player character is `StatBlock.Player == "player"`: the ruleset's player kind (dnd5e and
  d26 `pc`, Warhammer Quest `warrior`) on side `players`; anyone else (an NPC, a monster) the
  other kind (dnd5e `monster`, d26 `npc`) on side `monsters`.
- HP: `CurrentHP`; temporary HP: `TemporaryHP`, which Improved Initiative takes damage off
  first. In dnd5e, temporary HP gained is a heal with means `temporary`, and a hit counts the
  temporary HP it went through (`Batch.hp_and_temporary`); elsewhere only `CurrentHP` counts.
  Improved Initiative keeps `CurrentHP` at 0 or above unless its rule "AllowNegativeHP" is on:
  a blow on a creature already at 0 then changes nothing there and makes no event (in dnd5e,
  no death save failure: record it in woundlog by hand).
- Turns: `ActiveCombatantId` and `RoundCounter`, in the order of `Combatants` (initiative
  order). `ActiveCombatantId` null is no turn (before the encounter starts, or after it ends).
- Late or twice: a state earlier in the fight than the last one taken in (an earlier round, an
  earlier turn of the round, or fewer seconds into the same turn: `ElapsedSeconds`, the turn
  timer), or the very same state again, is skipped and reported. Going back a turn in
  Improved Initiative therefore takes nothing in until the turn is where it was; the HP changed
  meanwhile arrives with the next state taken in.
- Ids: `ii:r<round>.<digest>:<combatant>:hit` (and `:heal`, `:temp`), where `<digest>` is a
  16-hex-digit blake2b of the state's canonical JSON (the autosave has no id of its own);
  `ii:r<round>:<combatant>:turn_started`, `ii:r<round>:<combatant>:turn_ended`,
  `ii:r<round>:round_ended`; `ii:<combatant>:joined`, `:hurt` and `:temp` for a first sight.
  The cursor (`previous`) is the last state's, as `snapshots.Cursor`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

import msgspec

from ..errors import StructuralError
from .base import Batch, Converted, Profile, Sighting, SourceId, content_key, decode
from .snapshots import Cursor, Entry, Snapshot, read_cursor, take_in

SOURCE = "ii"
PREFIX = "ImprovedInitiative."
AUTOSAVES = "ImprovedInitiative.AutoSavedEncounters"
AUTOSAVE = "ImprovedInitiative.AutoSavedEncounters.default"


# --- the shapes, as common/CombatantState.ts, common/EncounterState.ts, common/StatBlock.ts ----


class ValueAndNotes(msgspec.Struct, frozen=True):
    value: int = msgspec.field(name="Value")


class StatBlock(msgspec.Struct, frozen=True):
    hp: ValueAndNotes = msgspec.field(name="HP")
    name: str = msgspec.field(default="", name="Name")
    player: str = msgspec.field(default="", name="Player")


class CombatantState(msgspec.Struct, frozen=True):
    id: SourceId = msgspec.field(name="Id")
    stat_block: StatBlock = msgspec.field(name="StatBlock")
    current_hp: int = msgspec.field(name="CurrentHP")
    temporary_hp: int = msgspec.field(default=0, name="TemporaryHP")
    alias: str = msgspec.field(default="", name="Alias")
    index_label: int | None = msgspec.field(default=None, name="IndexLabel")


class EncounterState(msgspec.Struct, frozen=True):
    combatants: list[CombatantState] = msgspec.field(name="Combatants")
    active_combatant_id: str | None = msgspec.field(default=None, name="ActiveCombatantId")
    round_counter: int = msgspec.field(default=0, name="RoundCounter")
    elapsed_seconds: int = msgspec.field(default=0, name="ElapsedSeconds")


# --- records -------------------------------------------------------------------------------------


def autosave_of(record: object, index: int) -> Any:
    """The autosaved state a record holds: the record itself, or the one in an export file."""
    if not isinstance(record, dict):
        raise StructuralError(
            "an Improved Initiative record is an object: its autosave, or its export data file",
            field="$",
            index=index,
        )
    if "Combatants" in record:
        return record
    if not any(isinstance(k, str) and k.startswith(PREFIX) for k in record):
        raise StructuralError(
            "neither an Improved Initiative autosave (an object with `Combatants`) nor its "
            f"export data file (keys `{PREFIX}...`)",
            field="$.Combatants",
            index=index,
        )
    field = f'$["{AUTOSAVE}"]'
    value = record.get(AUTOSAVE)
    if value is None:
        raise StructuralError(
            "this export data file holds no autosaved encounter: Improved Initiative writes one "
            "once an encounter has combatants (the saved encounters of its library are plans, "
            "not fights)",
            field=field,
            index=index,
        )
    if isinstance(value, str):  # localStorage keeps JSON text
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise StructuralError(
                f"the autosave is not JSON text: {exc}", field=field, index=index
            ) from None
    if not isinstance(value, dict):
        raise StructuralError("the autosave is not an encounter state", field=field, index=index)
    return value


def display_name(combatant: CombatantState, counts: Counter[str]) -> str:
    """As Improved Initiative shows it: the alias, else the name, numbered when names collide."""
    if combatant.alias:
        return combatant.alias
    name = combatant.stat_block.name
    if counts[name] > 1 and combatant.index_label:
        return f"{name} {combatant.index_label}"
    return name or combatant.id


def snapshot(record: object, index: int) -> Snapshot:
    raw = autosave_of(record, index)
    try:
        state = decode(raw, EncounterState, index)
    except StructuralError as error:
        if raw is not record and error.field is not None:  # inside the export file's text
            error.field = f'$["{AUTOSAVE}"]{error.field[1:]}'
        raise
    counts = Counter(c.stat_block.name for c in state.combatants)
    tracked, untracked = [], []
    for c in state.combatants:
        name = display_name(c, counts)
        maximum = c.stat_block.hp.value
        if maximum < 1:
            untracked.append(
                (
                    c.id,
                    f"{name} ({c.id}) has no hit points in Improved Initiative "
                    f"(StatBlock.HP.Value {maximum}): not tracked",
                )
            )
            continue
        tracked.append(
            Sighting(
                id=c.id,
                name=name,
                player=c.stat_block.player == "player",
                max_hp=maximum,
                hp=c.current_hp,
                temp_hp=max(c.temporary_hp, 0),
            )
        )
    digest = content_key(raw)
    active = state.active_combatant_id
    order = tuple(Entry(c.id, (c.id,)) for c in state.combatants)
    return Snapshot(
        stream="",
        key=f"r{state.round_counter}.{digest}",
        digest=digest,
        clock=(float(state.elapsed_seconds),),
        round=state.round_counter,
        order=order,
        active=active if any(e.id == active for e in order) else None,
        combatants=tracked,
        untracked=untracked,
    )


def newer(before: Cursor, now: Snapshot) -> bool:
    """Later in the fight: a later round, a later turn of the round, or more seconds into the
    same turn (the same second: a change within it)."""
    if now.round != before.round:
        return now.round > before.round
    if now.active == before.active:
        return now.clock >= tuple(before.clock)
    ids = [e.id for e in now.order]
    if before.active is None or now.active is None or before.active not in ids:
        return True
    return ids.index(now.active) > ids.index(before.active)


def label(snapshot: Snapshot) -> str:
    names = {who.id: who.name for who in snapshot.combatants}
    active = snapshot.active
    turn = f"{names.get(active, active)}'s turn" if active is not None else "no turn"
    seconds = int(snapshot.clock[0])
    return f"the Improved Initiative state of round {snapshot.round}, {turn}, {seconds} s into it"


def convert(
    records: Sequence[object], *, profile: Profile, joined: Collection[str], previous: object | None
) -> Converted:
    batch = Batch(SOURCE, profile, joined)
    cursors = {"": read_cursor(previous)} if previous is not None else {}
    snapshots = [(index, snapshot(record, index)) for index, record in enumerate(records)]
    take_in(batch, cursors, snapshots, newer, label)
    cursor = cursors.get("")
    return Converted(
        batch.events,
        msgspec.to_builtins(cursor) if cursor is not None else previous,
        batch.warnings,
        batch.records,
    )

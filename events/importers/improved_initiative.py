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

So a file gives one state: importing it after a fight gives who ends where; exporting after
each round and importing each file in turn follows the fight round by round (the CLI and the
service keep the cursor between imports, in one place: replays/import_cursors.py); to follow
it live, send each autosave as it is written (a JSON array of them, or one by one to the
service).

Mapping and decisions (each read from the 3.11.8 source):
- Character id: the combatant's `PersistentCharacterId` for a character of the library
  (Encounter.ts `AddCombatantFromPersistentCharacter`: removed and added back, it gets a new
  `Id` each time, and its HP from the library), else its `Id`. Name, as Improved Initiative
  shows it (Combatant.ts `DisplayName`, InitiativeList.tsx): its `Alias`; else its stat block's
  `Name`, with the `IndexLabel` ("Goblin 2") once the encounter has had more than one of the
  name: more than one in the state, or a label above 1 (the name's count, which drops only
  with the last of the name, is not saved). After a reload of the page Improved Initiative
  counts again from the combatants present, and a lone "Goblin 2" shows as "Goblin": the
  label is kept here.
- Joining: when the encounter starts (the first state with a turn), with the names it shows
  then, since Improved Initiative renames "Goblin" to "Goblin 1" when a second one is added
  (`UpdateIndexLabel`); before that only a combatant already hurt joins. A combatant being
  added (`IndexLabel` 0: `AddCombatantFromState` autosaves before it labels it) joins with the
  next state; in the last state of the records it is named in a warning, and joins with the
  next state imported. A stat block with no `Name` (null: taken as another program wrote it)
  is never labelled (`UpdateIndexLabel` returns at `name == oldName`): its `IndexLabel` stays
  0, and it joins like anyone, named by its id. A combatant added later joins when first seen.
  A name changed after the join (an alias set, a lone "Goblin" shown "Goblin 1" once a second
  one comes) amends the join, the only renaming woundlog has (`renamed`: id
  `ii:<state key>:<combatant>:renamed`).
- Maximum HP: `StatBlock.HP.Value` (there is no `MaxHP` on a combatant since 2018). A
  combatant whose maximum is below 1 (a lair action) is never tracked, and said so once.
- A player character is `StatBlock.Player == "player"`: the ruleset's player kind (dnd5e and
  d26 `pc`, Warhammer Quest `warrior`) on side `players`; anyone else (an NPC, a monster) the
  other kind (dnd5e `monster`, d26 `npc`) on side `monsters`.
- HP: `CurrentHP`; temporary HP: `TemporaryHP`, which Improved Initiative takes damage off
  first. In dnd5e, temporary HP gained is a heal with means `temporary`, and a hit counts the
  temporary HP it went through (`Batch.hp_and_temporary`); elsewhere only `CurrentHP` counts.
  `ApplyDamage` writes `CurrentHP` before `TemporaryHP`, and the autosave between them shows
  HP lost with the temporary HP still there: read as the temporary HP gone (`halfway`).
  Improved Initiative keeps `CurrentHP` at 0 or above unless its rule "AllowNegativeHP" is on:
  a blow on a creature already at 0 then changes nothing there and makes no event (in dnd5e,
  no death save failure: record it in woundlog by hand). It rolls no death saves: a dnd5e
  fight an import creates leaves them to the table (`Importer.options`).
- Revival: with no death saves, a combatant at 0 HP is only dying there, until healed. A
  combatant shown at 0 HP or below and then above 0 is healed what Improved Initiative shows;
  if woundlog has them dead (the table's saves), that heal is written as a revival
  (`revivify`, under its id plus `:revival`: saved_encounters.revived), which a dnd5e fight an
  import makes allows (option `revival`): the fight ends as the tracker shows it.
- Turns: `ActiveCombatantId` and `RoundCounter`, in the order of `Combatants` (initiative
  order). `ActiveCombatantId` null is no turn (before the encounter starts, or after it ends).
  `NextTurn` moves the round counter before the turn (`settled`): that autosave moves no turn.
  A turn moving forward ends and starts every turn it crosses; one moving back (the GM's
  Previous Turn) ticks nothing, since the end-of-turn rules cannot be run backwards, and on
  again it ends and starts the same turns, under the same ids: nothing ticks twice. More than
  `MAX_ROUNDS` rounds on in one state (states lost) starts the new turn without walking.
- Order: a state is taken in in the order it arrives. Improved Initiative gives an autosave no
  sequence, and no field orders them: the turn goes back with Previous Turn, and the turn
  timer (`ElapsedSeconds`) restarts at every turn, on a reload, and is saved with the seconds
  of the turn that just ended by the autosaves of Next Turn. So every state is the table's,
  also one of a turn the GM went back to: the HP it shows are followed. A state taken in
  before (among the last `SEEN_KEPT`: the same file imported again, a resend) changes nothing
  and is reported. One truly late (sent after a newer one, never seen) is taken as the table
  going back to it; the next state puts the HP right again.
- Ids: `ii:r<round>.<digest>:<combatant>:hit` (and `:heal`, `:temp`), where `<digest>` is a
  16-hex-digit blake2b of the state's canonical JSON (the autosave has no id of its own);
  `ii:r<round>:<combatant>:turn_started`, `ii:r<round>:<combatant>:turn_ended`,
  `ii:r<round>:round_ended`; `ii:<combatant>:joined`, `:hurt` and `:temp` for a first sight.
  An encounter ended and started again in one woundlog fight starts again at round 1, whose
  turns are already there: import a new encounter into a new fight.
  The cursor (`previous`) is `Kept`: the last state's `snapshots.Cursor` and the digests of
  the states seen. A cursor of an earlier woundlog (a bare `Cursor`) is still read.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from ..errors import StructuralError
from ..model import Amend, CharacterJoined, TurnEnded, TurnStarted
from .base import Batch, Converted, Sighting, SourceId, content_key, decode, kept
from .rules import ImportRules
from .saved_encounters import Cursor, Entry, Snapshot, read_cursor, step

SOURCE = "ii"
SEEN_KEPT = 2000  # states the cursor remembers, to know one sent again (a long fight's worth)
MAX_ROUND = 100_000
MAX_ROUNDS = 10  # rounds one state may move on; past that, lost states: no turn walked
PREFIX = "ImprovedInitiative."
AUTOSAVES = "ImprovedInitiative.AutoSavedEncounters"
AUTOSAVE = "ImprovedInitiative.AutoSavedEncounters.default"


# --- the shapes, as common/CombatantState.ts, common/EncounterState.ts, common/StatBlock.ts ----


class ValueAndNotes(msgspec.Struct, frozen=True):
    value: int = msgspec.field(name="Value")


class StatBlock(msgspec.Struct, frozen=True):
    hp: ValueAndNotes = msgspec.field(name="HP")
    # null (or undefined, left out of the JSON) in a stat block taken as it came: `StatBlock.
    # Default()` has "" (common/StatBlock.ts), which Encounter.ts `ImportEncounter` and
    # `AddCombatantFromStatBlock` spread the given one over. Improved Initiative then never
    # labels the combatant (Combatant.ts `UpdateIndexLabel` returns at `name == oldName`, and
    # null == undefined): its `IndexLabel` stays 0 in every state
    name: str | None = msgspec.field(default=None, name="Name")
    player: str = msgspec.field(default="", name="Player")


Rounds = Annotated[int, Meta(ge=0, le=MAX_ROUND)]


class CombatantState(msgspec.Struct, frozen=True):
    id: SourceId = msgspec.field(name="Id")
    stat_block: StatBlock = msgspec.field(name="StatBlock")
    current_hp: int = msgspec.field(name="CurrentHP")
    temporary_hp: int = msgspec.field(default=0, name="TemporaryHP")
    alias: str = msgspec.field(default="", name="Alias")
    index_label: int | None = msgspec.field(default=None, name="IndexLabel")
    persistent_character_id: SourceId | None = msgspec.field(
        default=None, name="PersistentCharacterId"
    )
    round_counter: Rounds = msgspec.field(default=0, name="RoundCounter")  # its own turns

    @property
    def character(self) -> str:
        """A persistent character (the character library's) is one character however often it
        is removed and added back, each time under a new `Id` (Encounter.ts
        `AddCombatantFromPersistentCharacter`, `probablyUniqueString()`)."""
        return self.persistent_character_id or self.id


class EncounterState(msgspec.Struct, frozen=True):
    combatants: list[CombatantState] = msgspec.field(name="Combatants")
    active_combatant_id: str | None = msgspec.field(default=None, name="ActiveCombatantId")
    round_counter: Rounds = msgspec.field(default=0, name="RoundCounter")
    elapsed_seconds: int = msgspec.field(default=0, name="ElapsedSeconds")


class Kept(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The cursor: the last state taken in, and the digests of the last `SEEN_KEPT` states
    taken in, so that one sent again (a file imported twice) changes nothing."""

    last: Cursor
    seen: list[str]
    joins: dict[str, CharacterJoined] = {}
    """The joins this importer made, as the fight has them now (renamed since: amended), so
    that a name changed in Improved Initiative is the fight's too."""


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


def display_name(combatant: CombatantState, counts: Counter[str], labelled: set[str]) -> str:
    """As Improved Initiative shows it (Combatant.ts `DisplayName`, InitiativeList.tsx): the
    alias, else the stat block's name, with the `IndexLabel` once the encounter "has ever had
    more than one creature with this name" (`CombatantCountsByName`, which the state does not
    keep). Decided from the state: more than one of the name in it, or a label above 1 on one of
    them (a label is the name's count when it was given, and the count drops only with the last
    of the name)."""
    if combatant.alias:
        return combatant.alias
    name = combatant.stat_block.name or ""
    if combatant.index_label and (counts[name] > 1 or name in labelled):
        return f"{name} {combatant.index_label}"
    return name or combatant.id


def snapshot(record: object, index: int, *, last: bool = False) -> Snapshot:
    """The state a record holds. A combatant whose `IndexLabel` is 0 is being added, and left
    for the next state, which labels it (in the `last` state of the records, it is named in a
    warning: it joins with the next state imported); but one with no name is never labelled,
    and is taken as it is."""
    raw = autosave_of(record, index)
    try:
        state = decode(raw, EncounterState, index)
    except StructuralError as error:
        if raw is not record and error.field is not None:  # inside the export file's text
            error.field = f'$["{AUTOSAVE}"]{error.field[1:]}'
        raise
    counts = Counter(c.stat_block.name or "" for c in state.combatants)
    labelled = {c.stat_block.name or "" for c in state.combatants if (c.index_label or 0) > 1}
    tracked, untracked = [], []
    active, turns_had = None, -1
    for c in state.combatants:
        if c.id == state.active_combatant_id:
            active, turns_had = c.character, c.round_counter
        name = display_name(c, counts, labelled)
        if c.index_label == 0 and c.stat_block.name is not None:
            # being added: `AddCombatantFromState` pushes it (an autosave) before
            # `UpdateIndexLabel` labels it (the next one); it is there from that one on
            if last:
                untracked.append((c.character, adding(name, c.character)))
            continue
        maximum = c.stat_block.hp.value
        if maximum < 1:
            untracked.append(
                (
                    c.character,
                    f"{name} ({c.character}) has no hit points in Improved Initiative "
                    f"(StatBlock.HP.Value {maximum}): not tracked",
                )
            )
            continue
        tracked.append(
            Sighting(
                id=c.character,
                name=name,
                player=c.stat_block.player == "player",
                max_hp=maximum,
                hp=c.current_hp,
                temp_hp=max(c.temporary_hp, 0),
            )
        )
    digest = content_key(raw)
    return Snapshot(
        stream="",
        key=f"r{state.round_counter}.{digest}",
        digest=digest,
        clock=(float(state.elapsed_seconds), float(turns_had)),
        round=state.round_counter,
        order=tuple(Entry(c.character, (c.character,)) for c in state.combatants),
        active=active,
        combatants=tracked,
        untracked=untracked,
    )


def turns_had(clock: Sequence[float]) -> float | None:
    """The active combatant's own round counter, from a snapshot's or cursor's clock (None in
    a cursor of woundlog 0.x, which kept the seconds alone)."""
    return clock[1] if len(clock) > 1 else None


def settled(before: Cursor, now: Snapshot) -> Snapshot:
    """`now` with the round it is in, as far as the turns go.

    EncounterFlow.ts moves the round counter before the turn: `NextTurn` past the last
    combatant calls `CombatTimer.IncrementCombatRounds()` before `ActiveCombatant(next)`,
    `PreviousTurn` before the first `DecrementCombatRounds()`, and `StartEncounter`
    `SetElapsedRounds(1)` before it hands out the first turn; Knockout autosaves at each. A
    state whose round moved while the same combatant still acts, with no turn of its own
    counted (`Combatant.RoundCounter`), is that moment: its turn stays where it was, and the
    round moves with the turn that follows. (Alone in the encounter, a combatant's next turn
    adds to its own counter: that is a turn.)"""
    if (
        now.round != before.round
        and now.active == before.active
        and turns_had(now.clock) == turns_had(before.clock)
    ):
        return dataclasses.replace(now, round=before.round)
    return now


def joining(batch: Batch, before: Cursor | None, now: Snapshot) -> Snapshot:
    """Before the encounter starts (no turn yet) a combatant joins only if already hurt: the
    GM is still adding creatures, and Improved Initiative renames "Goblin" to "Goblin 1" when
    the second one comes (`UpdateIndexLabel`). The others join with their names at the start."""
    if now.active is not None or (before is not None and before.active is not None):
        return now
    ready = [
        who
        for who in now.combatants
        if who.id in batch.joined or who.hp < who.max_hp or who.temp_hp > 0
    ]
    return dataclasses.replace(now, combatants=ready)


def waiting(batch: Batch, last: Snapshot | None) -> None:
    """Say who has not joined yet when the last state taken in is before the start."""
    if last is None or last.active is not None:
        return
    names = [who.name for who in last.combatants if who.id not in batch.joined]
    if names:
        batch.warn(
            "the encounter has not started in Improved Initiative: "
            f"{', '.join(names)} join when it starts, with the names it shows then"
        )


def adding(name: str, character: str) -> str:
    return (
        f"{name} ({character}) is being added in the last state here (IndexLabel 0: Improved "
        "Initiative labels it in the state after, Combatant.ts `UpdateIndexLabel`): it joins "
        "with the next state imported, under the name it has then"
    )


def halfway(before: Cursor, now: Snapshot) -> Snapshot:
    """`now` with the temporary HP a blow is taking off them.

    Combatant.ts `ApplyDamage` takes damage off temporary HP first, then writes `CurrentHP`
    and only then `TemporaryHP`: the autosave between shows HP lost and the temporary HP still
    there. HP lost means the temporary HP went first, so they are 0 in that state already."""
    return dataclasses.replace(
        now,
        combatants=[
            dataclasses.replace(who, temp_hp=0)
            if who.temp_hp
            and who.hp < before.hp.get(who.id, who.hp)
            and who.temp_hp == before.temp_hp.get(who.id, 0)
            else who
            for who in now.combatants
        ],
    )


def take(batch: Batch, before: Cursor | None, now: Snapshot) -> Cursor:
    """Take in one state: HP as it shows it, whatever the turn (a GM who went back a turn to
    correct a blow corrects it there), and the turn, forward only."""
    now = joining(batch, before, now)
    if before is None:
        return step(batch, None, now)
    now = halfway(before, settled(before, now))
    walked = before
    if now.round > before.round + MAX_ROUNDS:
        batch.warn(
            f"{label(now)} is {now.round - before.round} rounds past the last one taken in: "
            "the turns between are not ticked (states lost?)"
        )
        walked = msgspec.structs.replace(before, active=None, members=[])
    cursor = step(batch, walked, now)
    present = {who.id for who in now.combatants}
    # a combatant off the board keeps its last HP: added back (a persistent character), its
    # HP is compared with that
    return msgspec.structs.replace(
        cursor,
        hp={**{k: v for k, v in before.hp.items() if k not in present}, **cursor.hp},
        temp_hp={
            **{k: v for k, v in before.temp_hp.items() if k not in present},
            **cursor.temp_hp,
        },
    )


def label(snapshot: Snapshot) -> str:
    names = {who.id: who.name for who in snapshot.combatants}
    active = snapshot.active
    turn = f"{names.get(active, active)}'s turn" if active is not None else "no turn"
    seconds = int(snapshot.clock[0])
    return f"the Improved Initiative state of round {snapshot.round}, {turn}, {seconds} s into it"


def once(batch: Batch, start: int, ticked: set[str]) -> None:
    """Leave out of the events made since `start` each tick this conversion made already: a
    turn gone back to and on again ends and starts the same turns, under the same ids (which
    the store would skip anyway)."""
    fresh = []
    for event in batch.events[start:]:
        if isinstance(event, TurnStarted | TurnEnded) and event.id is not None:
            if event.id in ticked:
                continue
            ticked.add(event.id)
        fresh.append(event)
    batch.events[start:] = fresh


def renamed(batch: Batch, joins: dict[str, CharacterJoined], now: Snapshot) -> None:
    """A name Improved Initiative shows now that is not the one the character joined with: an
    `amend` of the join, under the state's key (the same state again: the same amend).

    Improved Initiative renames: an alias set (CombatantViewModel.ts `SetAlias`), and a lone
    "Goblin" shown "Goblin 1" once a second one is added (`UpdateIndexLabel`, `DisplayName`).
    woundlog has no renaming but the amend of the join, which keeps everything else of it."""
    for who in now.combatants:
        join = joins.get(who.id)
        if join is None or join.name == who.name or join.id is None:
            continue
        joins[who.id] = msgspec.structs.replace(join, name=who.name)
        batch.add(
            Amend(
                id=batch.id(now.key, who.id, "renamed"),
                by=batch.source,
                event=join.id,
                replacement=msgspec.structs.replace(join, id=None, name=who.name),
                reason=f"renamed in Improved Initiative: {join.name} is {who.name} now",
            )
        )


def read_kept(previous: object | None) -> Kept | None:
    if previous is None:
        return None
    if isinstance(previous, dict) and "last" in previous:
        return kept(previous, Kept)
    last = read_cursor(previous)  # kept by woundlog before the states seen were
    return Kept(last, [last.digest])


def convert(
    records: Sequence[object],
    *,
    importing: ImportRules,
    joined: Collection[str],
    previous: object | None,
) -> Converted:
    batch = Batch(SOURCE, importing, joined)
    kept = read_kept(previous)
    before = kept.last if kept is not None else None
    seen = dict.fromkeys(kept.seen if kept is not None else ())  # in the order taken in
    ticked: set[str] = set()
    last: Snapshot | None = None
    joins = dict(kept.joins) if kept is not None else {}
    for index, record in enumerate(records):
        now = snapshot(record, index, last=index == len(records) - 1)
        if now.digest in seen:
            again = before is not None and now.digest == before.digest
            why = "the same as the last one taken in" if again else "one taken in already"
            batch.warn(f"{label(now)} is {why}: skipped, it changes nothing")
            continue
        seen[now.digest] = None
        if len(seen) > SEEN_KEPT:
            del seen[next(iter(seen))]
        start, last = len(batch.events), now
        renamed(batch, joins, now)
        before = take(batch, before, now)
        once(batch, start, ticked)
        joins.update(
            (e.character, e) for e in batch.events[start:] if isinstance(e, CharacterJoined)
        )
        batch.check(start, index)
    waiting(batch, last)
    if before is None:
        return Converted(batch.events, previous, batch.warnings, batch.records, batch.instead)
    cursor = Kept(before, list(seen), joins)
    return Converted(
        batch.events,
        msgspec.to_builtins(cursor),
        batch.warnings,
        batch.records,
        batch.instead,
    )

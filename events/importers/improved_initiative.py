"""Improved Initiative: consecutive saved encounter snapshots, compared pairwise.

A record is one saved encounter, as Improved Initiative keeps it (its `Combatants`, the
`RoundCounter` and the `ActiveCombatantId`); the fields used are below, all others are ignored.

    {"RoundCounter": 2, "ActiveCombatantId": "k3j9",
     "Combatants": [{"Id": "k3j9", "Alias": "", "StatBlock": {"Name": "Goblin", "Player": ""},
                     "IndexLabel": 1, "MaxHP": 7, "CurrentHP": 4, "TemporaryHP": 0}]}

Mapping and decisions:
- Character id: the combatant's `Id`. Name: its `Alias`, else its `Name` if the record has one,
  else the stat block's `Name` with the `IndexLabel` ("Goblin 1").
- A combatant seen for the first time joins, its `MaxHP` mapped to the ruleset's stat (d26 `hp`,
  Mordheim and Warhammer Quest `wounds`, Contractor `constitution`; DragonQuest is refused).
  A player character (`StatBlock.Player` is "player") joins as the ruleset's player kind (d26
  `pc`, Warhammer Quest `warrior`) on side `players` (`warriors`), anyone else as its other kind
  (`npc`, `monster`) on side `monsters`. Below its maximum when first seen, it also takes a hit
  for the difference. A combatant with no `MaxHP` above 0 is never tracked.
- `CurrentHP` down from the previous snapshot is a hit for the difference, up a heal (none in a
  ruleset that does not heal in a fight, Mordheim). `TemporaryHP` is ignored: Improved
  Initiative takes damage off temporary HP first, so damage it absorbed never reaches
  `CurrentHP` and is no hit. A change of `MaxHP` is ignored.
- A new `ActiveCombatantId` ends the previous combatant's turn (`turn_ended`, character scope)
  and starts the new one's (`turn_started`); a higher `RoundCounter` also ends the round
  (`turn_ended` with no scope) between the two. Moving back is no event.
- Ids: `ii:<key>:<combatant>:hp`, `ii:<key>:<combatant>:turn_ended`, `ii:<key>:round_ended`,
  `ii:<key>:<combatant>:turn_started`, where `<key>` is a 16-hex-digit blake2b of the snapshot's
  canonical JSON chained after the previous snapshot's key; `ii:<combatant>:joined` and
  `ii:<combatant>:hurt` for a first sight. The cursor (`previous`) is the last snapshot's key,
  round, active combatant and HP.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import msgspec

from .base import Batch, Converted, Profile, Sighting, SourceId, Turn, decode
from .snapshots import Snapshot, compare

SOURCE = "ii"


class StatBlock(msgspec.Struct, frozen=True):
    name: str = msgspec.field(default="", name="Name")
    player: str = msgspec.field(default="", name="Player")


class Combatant(msgspec.Struct, frozen=True):
    id: SourceId = msgspec.field(name="Id")
    current_hp: int = msgspec.field(name="CurrentHP")
    max_hp: int = msgspec.field(name="MaxHP")
    temporary_hp: int = msgspec.field(default=0, name="TemporaryHP")
    name: str = msgspec.field(default="", name="Name")
    alias: str = msgspec.field(default="", name="Alias")
    index_label: int | None = msgspec.field(default=None, name="IndexLabel")
    stat_block: StatBlock = msgspec.field(default_factory=StatBlock, name="StatBlock")

    def display_name(self) -> str:
        if self.alias or self.name:
            return self.alias or self.name
        label = f" {self.index_label}" if self.index_label is not None else ""
        return f"{self.stat_block.name}{label}".strip() or self.id


class Encounter(msgspec.Struct, frozen=True):
    combatants: list[Combatant] = msgspec.field(name="Combatants")
    round_counter: int = msgspec.field(default=0, name="RoundCounter")
    active_combatant_id: str | None = msgspec.field(default=None, name="ActiveCombatantId")


def snapshot(record: object, index: int) -> Snapshot:
    encounter = decode(record, Encounter, index)
    tracked = [c for c in encounter.combatants if c.max_hp >= 1]
    order = [c.id for c in encounter.combatants]
    active = encounter.active_combatant_id
    position = order.index(active) if active is not None and active in order else None
    acting = (active,) if active is not None and position is not None else ()
    return Snapshot(
        turn=Turn(encounter.round_counter, position, acting),
        combatants=[sighting(c) for c in tracked],
    )


def sighting(combatant: Combatant) -> Sighting:
    return Sighting(
        id=combatant.id,
        name=combatant.display_name(),
        player=combatant.stat_block.player == "player",
        max_hp=combatant.max_hp,
        hp=combatant.current_hp,
    )


def convert(
    records: Sequence[object], *, profile: Profile, joined: Collection[str], previous: object | None
) -> Converted:
    return compare(Batch(SOURCE, profile, joined), records, previous, snapshot)

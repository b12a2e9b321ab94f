"""Avrae: `combat_state_update` records, compared pairwise like Improved Initiative's snapshots.

A record is one event of an Avrae combat recording; only `combat_state_update` records are read
(any other `event_type` is skipped), and of those the `data`, which is `Combat.to_dict()`:

    {"event_type": "combat_state_update", "combat_id": "...", "data": {
        "round": 2, "current": 0,
        "combatants": [{"id": "5f0c...", "name": "GO1", "type": "monster",
                        "hp": 3, "max_hp": 7, "temp_hp": 0}, ...]}}

Mapping and decisions:
- Character id: the combatant's `id`; name: its `name`. A `group` combatant's members (its own
  `combatants`) are tracked one by one; the group itself has no HP.
- A combatant seen for the first time joins, its `max_hp` mapped to the ruleset's stat (d26 `hp`,
  Mordheim and Warhammer Quest `wounds`, Contractor `constitution`; DragonQuest is refused).
  `type` "player" joins as the ruleset's player kind (d26 `pc`, Warhammer Quest `warrior`) on
  side `players` (`warriors`), anyone else as its other kind (`npc`, `monster`) on side
  `monsters`. Below its maximum when first seen, it also takes a hit for the difference. A
  combatant whose `max_hp` is unset (Avrae allows it) or not above 0 is never tracked.
- `hp` down is a hit for the difference, up a heal (none in Mordheim). `temp_hp` is ignored:
  Avrae takes damage off temporary HP first, so what it absorbed never reaches `hp`.
- `current` is the index of the acting entry in `combatants` (None before combat starts); when
  it changes, the previous entry's turn ends and the new one's starts (each member's, for a
  group); a higher `round` also ends the round (`turn_ended` with no scope). Moving back is no
  event.
- Ids: `avrae:<key>:<combatant>:hp`, `avrae:<key>:<combatant>:turn_ended`,
  `avrae:<key>:round_ended`, `avrae:<key>:<combatant>:turn_started`, where `<key>` is a
  16-hex-digit blake2b of the record's canonical JSON chained after the previous record's key;
  `avrae:<combatant>:joined` and `avrae:<combatant>:hurt` for a first sight.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import msgspec

from .base import Batch, Converted, Profile, Sighting, SourceId, Turn, decode
from .snapshots import Snapshot, compare

SOURCE = "avrae"
STATE_UPDATE = "combat_state_update"


class Combatant(msgspec.Struct, frozen=True):
    id: SourceId
    name: str = ""
    type: str = "common"
    hp: int | None = None
    max_hp: int | None = None
    temp_hp: int = 0
    combatants: list[Combatant] = []  # a group's members

    def members(self) -> list[Combatant]:
        return self.combatants if self.type == "group" else [self]


class Combat(msgspec.Struct, frozen=True):
    combatants: list[Combatant]
    round: int = 0
    current: int | None = None


class Kind(msgspec.Struct, frozen=True):
    event_type: str


class StateUpdate(msgspec.Struct, frozen=True):
    data: Combat


def snapshot(record: object, index: int) -> Snapshot | None:
    if decode(record, Kind, index).event_type != STATE_UPDATE:
        return None
    combat = decode(record, StateUpdate, index).data
    members = [m for entry in combat.combatants for m in entry.members()]
    current = combat.current
    acting = (
        combat.combatants[current]
        if current is not None and 0 <= current < len(combat.combatants)
        else None
    )
    return Snapshot(
        turn=Turn(
            combat.round,
            current if acting is not None else None,
            tuple(m.id for m in acting.members()) if acting is not None else (),
        ),
        combatants=[sighting(m) for m in members if tracked(m)],
    )


def tracked(combatant: Combatant) -> bool:
    return combatant.max_hp is not None and combatant.max_hp >= 1


def sighting(combatant: Combatant) -> Sighting:
    assert combatant.max_hp is not None
    return Sighting(
        id=combatant.id,
        name=combatant.name or combatant.id,
        player=combatant.type == "player",
        max_hp=combatant.max_hp,
        hp=combatant.hp if combatant.hp is not None else combatant.max_hp,
    )


def convert(
    records: Sequence[object], *, profile: Profile, joined: Collection[str], previous: object | None
) -> Converted:
    return compare(Batch(SOURCE, profile, joined), records, previous, snapshot)

"""Owlbear Rodeo: the scene's items as the woundlog extension sends them
(replays/integrations/owlbear/), each snapshot compared with the last one taken in.

Owlbear Rodeo keeps no hit points and no turns of its own: two of its extensions write them into
each token's metadata, which every extension reads through the SDK (`OBR.scene.items`, which
hands `onChange` the scene's whole item list after each change: owlbear-rodeo/sdk 3.1.0
src/api/scene/SceneItemsApi.ts). The woundlog extension sends that list, cut down to the tokens
either extension marks and to their keys, as one snapshot:

    {"v": 1, "room": "8f3k2...", "seq": 1765140000123,
     "items": [{"id": "6b1...", "name": "Goblin", "type": "IMAGE", "layer": "CHARACTER",
                "text": {"plainText": ""},
                "metadata": {
                  "com.owlbear-rodeo-bubbles-extension/metadata":
                      {"health": 3, "max health": 7, "temporary health": 0, "hide": true},
                  "com.owlbear-rodeo-bubbles-extension/name": "Goblin 1",
                  "rodeo.owlbear.initiative-tracker/metadata": {"count": "12", "active": true}}}]}

- `room` is `OBR.room.id`: each room is its own stream. `seq` orders the snapshots (the
  extension's: the sender's clock in milliseconds, never below the last it sent plus one nor
  Owlbear Rodeo's newest `lastModified`), so a resend changes nothing (said by nobody: the
  extension resends what got no answer, and a GM taking over starts with the scene as it
  is), and a snapshot a GM who handed over sent late changes nothing and is reported.
- Hit points: Stat Bubbles for D&D (SeamusFinlayson/Bubbles-for-Owlbear-Rodeo 1.9.13), metadata
  key `com.owlbear-rodeo-bubbles-extension/metadata` (src/getPluginId.ts), fields `health`,
  `max health`, `temporary health`, `hide` (src/metadataHelpers/itemMetadataIds.ts), each read
  as that extension reads it: a number that is not one (or NaN) is 0, `hide` that is not a
  boolean is false (metadataHelpers.ts `readNumberFromObject`, `readBooleanFromObject`). Only
  images on the CHARACTER or MOUNT layer are tokens (itemMetadataHelpers.tsx `itemFilter`), and
  one whose maximum is 0 or less is not tracked (its bulk editor deals such tokens no damage,
  src/action/BulkEditor.tsx). Its damage comes off temporary health first and health may go
  below 0 (src/action/healthCalculations.ts): as `Batch.hp_and_temporary` reads them. A name is
  Stat Bubbles' own (`.../name`), else the token's text, else the item's `name`.
- Who is a player character: Stat Bubbles has no such field; its `hide` ("Dungeon Master
  Only") is what a GM sets on monsters, so a token whose stats are hidden joins as the other
  kind on the other side, and one whose stats players see as the player kind.
- A maximum that changes (a GM's edit of `max health`: Aid, a wight's Life Drain) is a
  `stat_changed` of the ruleset's stat; a maximum raised is changed before the HP events of the
  same snapshot, one lowered after them, so the HP the two programs show stay the same. A
  ruleset that takes no `stat_changed` refuses it, and the import says so.
- Turns: Initiative Tracker (owlbear-rodeo/initiative-tracker, December 2023, the extension
  Owlbear Rodeo publishes), metadata key `rodeo.owlbear.initiative-tracker/metadata`
  (src/getPluginId.ts) holding `{count: string, active: boolean}` on each image in the order
  (src/InitiativeTracker.tsx `isMetadata`). The order is by `parseFloat(count)`, highest first
  (a stable sort: ties keep the scene's order; a count that is no number goes last), and its
  Next button makes the next one `active`, wrapping. It keeps no round: the round is counted
  here, the first turn starting round 1 and each wrap of the order (the active token earlier
  in the order than the last one) starting the next. Turns end and start as in
  saved_encounters.py.
- Death saves: neither extension holds one, so the table rolls them (`death_saves: table`, the
  format's fight options) and the GM records them with `woundlog check`; a player character at
  0 HP is reported so. Stat Bubbles shows a token healed above 0 health alive, whatever the
  table's saves said: a heal woundlog's rules refuse for the dead is taken as a revival
  (saved_encounters.revived; the format's fight options allow it).
- A token tracked before and missing now (deleted, or the GM opened another scene) makes no
  event and is reported.

Ids: `owlbear:<room>:<seq>:<item>:hit` (and `:heal`, `:temp`, `:max`),
`owlbear:<room>:r<round>:<item>:turn_started` / `:turn_ended`, `owlbear:<room>:r<round>:
round_ended`, `owlbear:<item>:joined` / `:hurt` / `:temp`. The cursor (`previous`) is
`{"rooms": {room: saved_encounters.Cursor}, "maxima": {item: its last maximum}}`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from ..model import StatChanged
from .base import Batch, Converted, Sighting, SourceId, content_key, decode, kept
from .rules import ImportRules
from .saved_encounters import Cursor, Entry, Snapshot, late, step

SOURCE = "owlbear"
BUBBLES = "com.owlbear-rodeo-bubbles-extension/metadata"
BUBBLES_NAME = "com.owlbear-rodeo-bubbles-extension/name"
INITIATIVE = "rodeo.owlbear.initiative-tracker/metadata"
TOKEN_LAYERS = ("CHARACTER", "MOUNT")
IMAGE = "IMAGE"
MAX_ITEMS = 1000

Name = Annotated[str, Meta(max_length=200)]
LongText = Annotated[str, Meta(max_length=10_000)]
"""A name or text as Owlbear Rodeo allows it (a token's label can be long): cut to 200
characters where it names a character, never refused for its length."""


class Text(msgspec.Struct, frozen=True):
    plain_text: LongText = msgspec.field(default="", name="plainText")


class Item(msgspec.Struct, frozen=True):
    """An Owlbear Rodeo item as the SDK gives it (src/types/items/Item.ts), cut down to what
    is read; `metadata` holds the two extensions' keys."""

    id: SourceId
    name: LongText = ""
    type: Name = ""
    layer: Name = ""
    text: Text | None = None
    metadata: dict[str, Any] = {}


class Envelope(msgspec.Struct, frozen=True):
    v: Annotated[int, Meta(ge=1, le=1)]
    room: SourceId
    seq: Annotated[int, Meta(ge=0, le=2**53)]
    items: Annotated[list[Item], Meta(max_length=MAX_ITEMS)]


class Cursors(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    rooms: dict[str, Cursor]
    maxima: dict[str, int] = {}


# --- reading the extensions' metadata as they read it ----------------------------------------


def number(fields: Mapping[str, Any], key: str) -> int:
    """Stat Bubbles' `readNumberFromObject`: a number (not NaN), else 0; whole HP here."""
    value = fields.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    return max(-1_000_000, min(int(value), 1_000_000))


def plugin(item: Item, key: str) -> Mapping[str, Any] | None:
    value = item.metadata.get(key)
    return value if isinstance(value, dict) else None


def is_token(item: Item) -> bool:
    return item.type == IMAGE and item.layer in TOKEN_LAYERS


def name_of(item: Item) -> str:
    """Stat Bubbles' own name (nameHelpers.ts `getName`), else the Initiative Tracker's (the
    text's plain text, else the item's name: InitiativeTracker.tsx)."""
    own = item.metadata.get(BUBBLES_NAME)
    if isinstance(own, str) and own:
        return own[:200]
    return ((item.text.plain_text if item.text else "") or item.name or item.id)[:200]


def sighting(item: Item) -> Sighting | str | None:
    """The token as Stat Bubbles shows it, why it is not tracked, or None (not its token)."""
    stats = plugin(item, BUBBLES)
    if stats is None or not is_token(item):
        return None
    maximum = number(stats, "max health")
    name = name_of(item)
    if maximum < 1:
        return f"{name} ({item.id}) has no maximum HP in Stat Bubbles: not tracked"
    return Sighting(
        id=item.id,
        name=name,
        player=stats.get("hide") is not True,
        max_hp=maximum,
        hp=number(stats, "health"),
        temp_hp=max(number(stats, "temporary health"), 0),
    )


def count_of(value: object) -> float:
    """`parseFloat(count)`: its leading number; none goes last."""
    text = str(value).strip()
    for end in range(len(text), 0, -1):
        try:
            found = float(text[:end])
        except ValueError:
            continue
        return found if math.isfinite(found) else -math.inf
    return -math.inf


def initiative(items: list[Item]) -> tuple[tuple[Entry, ...], str | None]:
    """The Initiative Tracker's order, highest count first, and the active token."""
    marked = []
    for place, item in enumerate(items):
        mark = plugin(item, INITIATIVE)
        if (
            item.type == IMAGE
            and mark is not None
            and isinstance(mark.get("count"), str)
            and isinstance(mark.get("active"), bool)
        ):
            marked.append((-count_of(mark["count"]), place, item.id, mark["active"]))
    marked.sort()
    active = next((item_id for _, _, item_id, on in marked if on), None)
    return tuple(Entry(item_id, (item_id,)) for _, _, item_id, _ in marked), active


def round_now(before: Cursor | None, order: tuple[Entry, ...], active: str | None) -> int:
    """The round the tracker is in: it keeps none. The first turn is round 1; an active token
    earlier in the order than the last one is the order wrapped, the next round."""
    if before is None or before.active is None or before.round < 1:
        return 1 if active is not None else 0
    if active is None:
        return before.round
    ids = [entry.id for entry in order]
    if active == before.active or before.active not in ids:
        return before.round
    return before.round + 1 if ids.index(active) < ids.index(before.active) else before.round


def snapshot(envelope: Envelope, before: Cursor | None) -> Snapshot:
    seen = [(item, sighting(item)) for item in envelope.items]
    order, active = initiative(envelope.items)
    for entry in order:  # in the order with no hit points: turns only
        item = next(i for i in envelope.items if i.id == entry.id)
        if not any(i is item and s is not None for i, s in seen):
            seen.append((item, f"{name_of(item)} ({item.id}) has no Stat Bubbles hit points"))
    return Snapshot(
        stream=f"{envelope.room}:",
        key=f"{envelope.room}:{envelope.seq}",
        digest=content_key(msgspec.to_builtins(envelope.items)),
        clock=(float(envelope.seq),),
        round=round_now(before, order, active),
        order=order,
        active=active,
        combatants=[s for _, s in seen if isinstance(s, Sighting)],
        untracked=[(item.id, s) for item, s in seen if isinstance(s, str)],
    )


class Scene(Batch):
    """A batch that follows Stat Bubbles' maximum by `stat_changed` (see the module)."""

    def __init__(
        self, importing: ImportRules, joined: Collection[str], maxima: dict[str, int]
    ) -> None:
        super().__init__(SOURCE, importing, joined)
        self.maxima = dict(maxima)
        self.key = ""
        self.lowered: list[StatChanged] = []
        self.names: dict[str, tuple[str, bool]] = {}  # each token's name, and if a player's

    def sight(self, who: Sighting) -> bool:
        joins = super().sight(who)
        self.names[who.id] = (who.name, who.player)
        if joins and who.hp <= 0:
            self.dying(who.id)
        kept = self.maxima.setdefault(who.id, who.max_hp)
        if kept != who.max_hp:
            change = StatChanged(
                id=self.id(self.key, who.id, "max"),
                by=SOURCE,
                character=who.id,
                stat=self.importing.stat,
                value=who.max_hp,
                reason="its maximum in Stat Bubbles",
            )
            if who.max_hp > kept:
                self.add(change)
            else:
                self.lowered.append(change)
            self.maxima[who.id] = who.max_hp
        return joins

    def hp_and_temporary(
        self, key: str, character: str, hp: tuple[int, int], temp: tuple[int, int]
    ) -> None:
        super().hp_and_temporary(key, character, hp, temp)
        if hp[0] > 0 >= hp[1]:
            self.dying(character)

    def dying(self, character: str) -> None:
        """Told once, when a player character drops to 0 HP."""
        name, player = self.names.get(character, (character, False))
        if player and self.importing.death_save is not None:
            self.warn(
                f"{name} ({character}) is at 0 HP: Owlbear Rodeo rolls no death saves; the "
                "players roll them at the table, recorded with `woundlog check`"
            )

    def settle(self) -> None:
        """Lowered maxima, after the HP events of their snapshot."""
        for change in self.lowered:
            self.add(change)
        self.lowered = []


def read_cursors(previous: object | None) -> Cursors:
    return Cursors({}) if previous is None else kept(previous, Cursors)


def convert(
    records: Sequence[object],
    *,
    importing: ImportRules,
    joined: Collection[str],
    previous: object | None,
) -> Converted:
    given = read_cursors(previous)
    batch = Scene(importing, joined, given.maxima)
    cursors = dict(given.rooms)
    envelopes = [(index, decode(record, Envelope, index)) for index, record in enumerate(records)]
    envelopes.sort(key=lambda item: (item[1].room, item[1].seq))  # stable: one sender's order
    for index, envelope in envelopes:
        before = cursors.get(f"{envelope.room}:")
        now = snapshot(envelope, before)
        newer = before is None or now.clock > tuple(before.clock)
        why = late(before, now, newer)
        if why is not None:
            if now.digest != (before.digest if before else None):  # a resend is routine
                batch.warn(f"the Owlbear Rodeo snapshot {envelope.seq} is {why}: skipped")
            continue
        start = len(batch.events)
        batch.key = now.key
        cursors[now.stream] = step(batch, before, now)
        batch.settle()
        if before is not None:
            gone = [n for n in before.hp if n not in {c.id for c in now.combatants}]
            for item_id in gone:
                batch.warn(
                    f"token {item_id} is no longer in the scene: woundlog keeps it as it was"
                )
        batch.check(start, index)
    cursor = msgspec.to_builtins(Cursors(cursors, batch.maxima)) if cursors else previous
    return Converted(batch.events, cursor, batch.warnings, batch.records, batch.instead)

"""Avrae: the `combat_state_update` records of its combat recorder (shapes of avrae/avrae at
v4.2.70, the same since the recorder was written in 2022).

Avrae records a combat only for its research recorder (cogs5e/initiative/upenn_nlp.py), which
sends each record to Amazon Kinesis; users get the records through the public research dataset
built from them, FIREBALL (Zhu et al., 2023: one gzipped JSON Lines file per combat, under
`data/`; gunzip it, then import it). A record is one `RecordedEvent`; only `combat_state_update`
records are read (messages, commands and the rest are skipped), written after every commit of
the combat:

    {"combat_id": "1700000000-6f1c...", "event_type": "combat_state_update",
     "timestamp": 1700000012.53, "probable_interaction_id": 1043...,
     "human_readable": "```md\\nCurrent initiative: 12 (round 1)\\n...\\n# 12: GO1 <3/7 HP> ...```",
     "data": {"round": 1, "turn": 12, "current": 1, "combatants": [
         {"id": "a1b2...", "name": "Tali", "type": "player", "init": 18, "max_hp": null, ...},
         {"id": "c3d4...", "name": "GO1", "type": "monster", "init": 12,
          "hp": 3, "max_hp": 7, "temp_hp": 0, ...},
         {"id": "e5f6...", "name": "Wolves", "type": "group", "init": 9,
          "combatants": [...]}], ...}}

`data` is `Combat.to_dict()`; a combatant is `Combatant.to_dict()`. Mapping and decisions:
- Combats: `combat_id` separates the combats of one file. Each is compared with its own last
  record, and its records are taken in timestamp order (`timestamp`, when the recorder wrote
  it), so a file delivered out of order reads as the combat went. A record not newer than the
  last one of its combat taken in (a resend, a late delivery) is skipped and reported.
- Character id: the combatant's `id`; name: its `name`. A `group`'s members (its own
  `combatants`) are tracked one by one; the group itself has no HP.
- Players: `PlayerCombatant.to_dict()` deletes `hp` and `temp_hp` (they live on the character
  sheet) and keeps `max_hp` only as a GM's override. Their HP is read from the record's
  `human_readable`, the combat summary Avrae writes beside `data` with every HP shown
  (`Combat.get_summary(private=True)`: "18: Tali <9/12 HP, 5 temp> (AC 15)"). A player whose
  line shows no HP is not tracked, and said so. A character's sheet keeps HP at 0 or above, so
  a blow on a player already at 0 (in dnd5e a death save failure) arrives as no change.
- Death saves: Avrae rolls one only when the player runs `!game deathsave` (cogs5e/gametrack.py
  `game_deathsave`), on the character sheet (`Character.death_saves`), with no combat commit:
  no `combat_state_update` follows it, `PlayerCombatant.to_dict()` holds no death saves, and
  the die is only in the text of Avrae's reply (an embed of a `message` record). So the records
  carry no death-save die and this importer makes no `check`: a dnd5e fight imported from
  Avrae should let the table roll them (`death_saves: table`), and a player at 0 HP is
  reported saying so.
- Revival: Avrae's sheet takes any HP above 0 as alive (cogs5e/models/character.py
  `Character.on_hp` resets the death saves, three failures included). A combatant shown at 0
  HP or below and then above 0 is healed what Avrae shows; if woundlog has them dead (by the
  table's saves), that heal is written as a revival (`revivify`, under its id plus
  `:revival`: saved_encounters.revived), which a dnd5e fight an import makes allows (option
  `revival`), so the fight ends as Avrae shows it.
- Other combatants (`monster`, and `common`, added by hand: NPCs): `hp` and `temp_hp` of
  `data`. A combatant whose `max_hp` is unset (Avrae allows it) or below 1 is never tracked,
  and said so once.
- Maximum: the record's `max_hp` is the base (`StatBlock.to_dict` writes `_max_hp`); Avrae
  shows, and heals up to, the effective one (`Combatant.max_hp`: effects' `max_hp_value` and
  `max_hp_bonus`, Aid's +5), which a player's summary line shows too. A combatant joins with
  the effective maximum it has when first seen. A woundlog character's maximum cannot change
  afterwards, so HP is followed up to that maximum (`Ceiling`), and a maximum that moves is
  reported.
- Kinds: `type` "player" is the ruleset's player kind (dnd5e and d26 `pc`, Warhammer Quest
  `warrior`) on side `players`, anyone else its other kind (dnd5e `monster`, d26 `npc`) on side
  `monsters`. `max_hp` is the ruleset's stat (dnd5e and d26 `hp`, Mordheim and Warhammer Quest
  `wounds`, Contractor `constitution`; DragonQuest is refused).
- HP and temporary HP: as `Batch.hp_and_temporary` (Avrae, like dnd5e, takes damage off
  temporary HP first; HP may go below 0, and that damage counts).
- Turns: `current` is the index of the acting entry in `combatants` (None before the combat
  starts); a group's turn is each member's. Moving on ends and starts every turn crossed, a
  wrap of the order ends the round; moving back (`!init prev`) is no event.
- Gone: a combatant in the last record taken in and in no place of the next (Avrae forgets a
  combatant it removes) is reported by name, and keeps its state, except a monster gone from
  a place whose turn ended in between while the combat's `deathdelete` is on (`options`, on
  unless a GM turned it off): `!init next` removes one only at 0 HP or below, so it ends at 0
  HP (dead, in dnd5e), by a hit noting why (`Departures`).
- Ids: `avrae:<combat>:<timestamp>:<combatant>:hit` (and `:heal`, `:temp`),
  `avrae:<combat>:r<round>:<combatant>:turn_started`, `...:turn_ended`,
  `avrae:<combat>:r<round>:round_ended`; `avrae:<combatant>:joined`, `:hurt`, `:temp` for a
  first sight. The cursor (`previous`) is `{"combats": {combat_id: saved_encounters.Cursor},
  "maxima": {character: the maximum it joined with}, "seats": {combat_id: Seats}}`.

Fixtures: tests/data/importers/avrae_fixtures.py, a port of Avrae's combat model.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

import msgspec

from .base import Batch, Converted, Sighting, SourceId, content_key, decode, kept
from .rules import ImportRules
from .saved_encounters import Cursor, Entry, Snapshot, take_in

SOURCE = "avrae"
STATE_UPDATE = "combat_state_update"
PLAYER, GROUP, MONSTER = "player", "group", "monster"


class Passive(msgspec.Struct, frozen=True):
    """What an effect does to its combatant's maximum (effects/passive.py
    `InitPassiveEffect.to_dict` writes only the attributes that are set)."""

    max_hp_value: int | None = None
    max_hp_bonus: int | None = None


class Effect(msgspec.Struct, frozen=True):
    name: str = ""
    effects: Passive = Passive()


class Combatant(msgspec.Struct, frozen=True):
    id: SourceId
    name: str = ""
    type: str = "common"
    hp: int | None = None  # absent for a player
    max_hp: int | None = None  # the base (`_max_hp`), not what effects make of it
    temp_hp: int | None = None  # absent for a player
    effects: list[Effect] = []
    combatants: list[Combatant] = []  # a group's members

    def members(self) -> list[Combatant]:
        return self.combatants if self.type == GROUP else [self]

    @property
    def effective_max(self) -> int:
        """`Combatant.max_hp` (cogs5e/initiative/combatant.py, v4.2.70): the largest
        `max_hp_value` of its effects, else the base (`_max_hp or 0`), plus every effect's
        `max_hp_bonus` (Aid's +5). The record's `max_hp` is `StatBlock.to_dict`'s `_max_hp`."""
        value = max((e.effects.max_hp_value or 0 for e in self.effects), default=0)
        bonus = sum(e.effects.max_hp_bonus or 0 for e in self.effects)
        return (value or self.max_hp or 0) + bonus


class Options(msgspec.Struct, frozen=True):
    """`CombatOptions` (cogs5e/initiative/combat.py, v4.2.70), as `Combat.to_dict` writes them:
    `options.dict(exclude_unset=True)`, so `deathdelete` is there only once a GM set it."""

    deathdelete: bool = True


class Combat(msgspec.Struct, frozen=True):
    combatants: list[Combatant]
    round: int = 0
    current: int | None = None
    options: Options = Options()


class Kind(msgspec.Struct, frozen=True):
    event_type: str


class StateUpdate(msgspec.Struct, frozen=True):
    combat_id: SourceId
    timestamp: float
    data: Combat
    human_readable: str = ""


class Seats(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Where the last snapshot of a combat taken in had everyone, for the next one to tell who
    is gone and whether their turn ended since (`Departures`)."""

    order: list[str]  # the places' ids, in initiative order
    names: dict[str, str]  # each tracked combatant's name
    removable: dict[str, int]  # each combatant deathdelete removes, and its place in `order`


class Cursors(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    combats: dict[str, Cursor]
    maxima: dict[str, int] = {}  # each character's maximum as it joined (see `Ceiling`)
    seats: dict[str, Seats] = {}  # per combat (see `Departures`)


# --- players' HP, from the summary -------------------------------------------------------------

_TOP_LINE = re.compile(r"^(?:# |  )\s*-?\d+: (?P<rest>.*)$")
_MEMBER_LINE = re.compile(r"^\s+- (?P<rest>.*)$")
_HP_TEXT = re.compile(r"(?P<hp>-?\d+)/(?P<max>-?\d+) HP(?:, (?P<temp>\d+) temp)?")
_NAMED = re.compile(r"^(?P<name>.*?) <(?P<shown>[^>]*)>")

Shown = tuple[int, int, int]


def summary_hp(summary: str) -> dict[str, Shown | None]:
    """Each combatant's (HP, maximum, temporary HP) as a summary shows them, by name (None: its
    line shows no HP), read in one pass: a record's summary is read once, however many players
    it has. Avrae refuses a second combatant of the same name (cog.py `init_add`); the first
    line of a name is kept all the same."""
    shown: dict[str, Shown | None] = {}
    for line in summary.splitlines():
        match = _TOP_LINE.match(line) or _MEMBER_LINE.match(line)
        named = _NAMED.match(match["rest"]) if match is not None else None
        if named is None:
            continue
        numbers = _HP_TEXT.fullmatch(named["shown"])
        hp = (
            (int(numbers["hp"]), int(numbers["max"]), int(numbers["temp"] or 0))
            if numbers
            else None
        )
        shown.setdefault(named["name"], hp)
    return shown


# --- records -------------------------------------------------------------------------------------


def sighting(combatant: Combatant, players: dict[str, Shown | None]) -> Sighting | str:
    """The combatant as the record shows it, or why it is not tracked. The maximum is the
    effective one, as Avrae shows it: the summary's for a player (`hp_str` reads the
    `max_hp` property), `Combatant.effective_max` for anyone else."""
    name = combatant.name or combatant.id
    if combatant.type == PLAYER:
        shown = players.get(combatant.name)
        if shown is None:
            return (
                f"{name} ({combatant.id}) is a player: Avrae's record holds no HP for players "
                "(PlayerCombatant.to_dict() drops hp and temp_hp) and its summary "
                "(human_readable) shows none for them: not tracked"
            )
        hp, maximum, temp = shown
    else:
        maximum = combatant.effective_max
        if combatant.max_hp is None or maximum < 1:
            return (
                f"{name} ({combatant.id}) has no maximum HP in Avrae "
                f"(max_hp {'null' if combatant.max_hp is None else combatant.max_hp}): "
                "not tracked"
            )
        hp = combatant.hp if combatant.hp is not None else maximum
        temp = combatant.temp_hp or 0
    return Sighting(
        id=combatant.id,
        name=name,
        player=combatant.type == PLAYER,
        max_hp=maximum,
        hp=hp,
        temp_hp=max(temp, 0),
    )


class Ceiling(Batch):
    """A batch that follows a maximum woundlog cannot change.

    Avrae's maximum moves with effects (Aid's +5, and back when the effect ends, HP left where
    it was: effects/effect.py `InitiativeEffect.remove` touches no HP); a woundlog character
    keeps the maximum it joined with (no event of wire format v1 changes a stat). So HP above
    that maximum is not shown: woundlog's HP is Avrae's, capped at the joined maximum, and only
    what crosses the cap is a hit or a heal. HP at or below the cap, where every rule of the
    rulesets reads it (0, instant death), is always Avrae's. `maxima` holds each character's
    joined maximum, from earlier imports (the cursor) and from the joins of this one; a
    character already in the fight that no cursor names gets the maximum of its first record
    here, so importing the same file again gives the same events (the same cap), which the
    fight skips."""

    def __init__(
        self, importing: ImportRules, joined: Collection[str], maxima: dict[str, int], source: str
    ) -> None:
        super().__init__(source, importing, joined)
        self.maxima = dict(maxima)

    def sight(self, who: Sighting) -> bool:
        joins = super().sight(who)
        if who.player and who.hp <= 0 and self.importing.death_save is not None:
            self.warn(
                f"{who.name} ({who.id}) is at 0 HP: Avrae rolls a death save only when the "
                "player runs !game deathsave, keeps it on the character sheet, and records no "
                "die of it; woundlog records none, so a dnd5e fight should let the table roll "
                "them (death_saves: table) rather than roll them itself"
            )
        kept = self.maxima.setdefault(who.id, who.max_hp)
        if kept != who.max_hp:
            self.warn(
                f"{who.name} ({who.id}) has a maximum of {who.max_hp} HP in Avrae now (an "
                f"effect such as Aid began or ended) and joined woundlog with {kept}: woundlog "
                f"keeps {kept} and follows Avrae's HP up to it"
            )
        return joins

    def hp_and_temporary(
        self, key: str, character: str, hp: tuple[int, int], temp: tuple[int, int]
    ) -> None:
        top = self.maxima.get(character)
        if top is not None:
            hp = (min(hp[0], top), min(hp[1], top))
        super().hp_and_temporary(key, character, hp, temp)


class Departures:
    """Who is gone from a combat since its last snapshot taken in, said, and the dead among them.

    Avrae forgets a combatant removed from the initiative (cog.py `init_remove`, and
    `remove_combatant` in combat.py, v4.2.70): it is in no later record or snapshot. Each one
    gone is reported by name. One of them ends as Avrae implies: `!init next` notes, before it
    moves the turn on, each `MonsterCombatant` of the turn that is ending at 0 HP or below, and
    removes them once the turn has moved (cog.py `init_next`, the `deathdelete` option, on by
    default: combat.py `CombatOptions`; `!init skipround` removes every such monster but the
    current one). So a monster gone from a place whose turn ended between the two snapshots was
    at 0 HP or below when it went, though the last snapshot showed it alive (killed on its own
    turn, and `!init next` run before `!woundlog`): a hit takes it to 0 HP, noted with the
    reason, and in dnd5e a monster at 0 HP is dead. Anyone else gone (a player, a monster
    removed by the GM mid-turn) keeps the state it was last seen in."""

    def __init__(self, seats: dict[str, Seats]) -> None:
        self.seats = dict(seats)

    def __call__(self, batch: Batch, before: Cursor | None, now: Snapshot) -> None:
        seats = self.seats.get(now.stream)
        if before is not None and seats is not None:
            present = {cid for entry in now.order for cid in entry.members}
            ended = turns_ended(seats.order, before, now)
            for cid, hp in before.hp.items():
                if cid not in present:
                    gone(batch, now.key, cid, seats, hp, before.temp_hp.get(cid, 0), ended)
        self.seats[now.stream] = Seats(
            [entry.id for entry in now.order],
            {who.id: who.name for who in now.combatants},
            {
                cid: place
                for place, entry in enumerate(now.order)
                for cid in entry.members
                if cid in now.removable
            },
        )


def gone(
    batch: Batch, key: str, cid: str, seats: Seats, hp: int, temp: int, ended: set[int]
) -> None:
    name = seats.names.get(cid, cid)
    place = seats.removable.get(cid)
    if place is None or place not in ended:
        batch.warn(
            f"{name} ({cid}) is gone from Avrae's initiative (removed by the GM): woundlog "
            f"keeps {name} as last seen, at {hp} HP"
        )
        return
    why = (
        f"{name} ({cid}) was removed by !init next as its turn ended: Avrae removes a monster "
        "there only at 0 HP or below (deathdelete, cog.py init_next)"
    )
    if hp <= 0:
        batch.warn(f"{why}; it was at {hp} HP already")
        return
    start = len(batch.events)
    batch.hp_and_temporary(key, cid, (hp, 0), (temp, 0))
    batch.events[start:] = [msgspec.structs.replace(e, note=why) for e in batch.events[start:]]
    batch.warn(f"{why}, so it died after the last snapshot, which showed {hp} HP: taken to 0 HP")


def turns_ended(order: list[str], before: Cursor, now: Snapshot) -> set[int]:
    """The places of `order` (the last snapshot's) whose turn ended on the way to `now`: from
    the place acting then, on to the one acting now, wrapping once per round; none when the
    turn stayed or went back (`!init prev`), or the combat had not started."""
    if before.active not in order or before.round < 1 or now.round < before.round:
        return set()
    first = order.index(before.active)
    if now.active in order:
        steps = (now.round - before.round) * len(order) + order.index(now.active) - first
    else:  # a place that is new: the turn that was acting ended, at least
        steps = len(order) if now.round > before.round else 1
    return {(first + step) % len(order) for step in range(min(max(steps, 0), len(order)))}


def snapshot(record: object, index: int) -> Snapshot | None:
    """The snapshot a record gives (None: not a combat state, skipped)."""
    if decode(record, Kind, index).event_type != STATE_UPDATE:
        return None
    update = decode(record, StateUpdate, index)
    combat = update.data
    players = summary_hp(update.human_readable) if has_players(combat) else {}
    return combat_snapshot(
        update.combat_id,
        update.timestamp,
        content_key(record),
        combat.round,
        [(e.id, [(m.id, sighting(m, players)) for m in e.members()]) for e in combat.combatants],
        combat.current,
        {m.id for e in combat.combatants for m in e.members() if m.type == MONSTER}
        if combat.options.deathdelete
        else set(),
    )


def combat_snapshot(
    combat: str,
    clock: float,
    digest: str,
    round_: int,
    order: list[tuple[str, list[tuple[str, Sighting | str]]]],
    current: int | None,
    removable: Collection[str],
) -> Snapshot:
    """A snapshot of one Avrae combat from its order: each place (an id, and its members as
    each is seen or why it is not tracked), the place whose turn it is, and the combatants
    `deathdelete` removes (its monsters, when it is on)."""
    tracked = [seen for _, members in order for _, seen in members if isinstance(seen, Sighting)]
    untracked = [
        (cid, seen) for _, members in order for cid, seen in members if isinstance(seen, str)
    ]
    entries = tuple(Entry(eid, tuple(cid for cid, _ in members)) for eid, members in order)
    active = entries[current].id if current is not None and 0 <= current < len(entries) else None
    return Snapshot(
        stream=f"{combat}:",
        key=f"{combat}:{clock!r}",
        digest=digest,
        clock=(clock,),
        round=round_,
        order=entries,
        active=active,
        combatants=tracked,
        untracked=untracked,
        removable=frozenset(removable),
    )


def has_players(combat: Combat) -> bool:
    return any(m.type == PLAYER for e in combat.combatants for m in e.members())


def in_order(snapshots: list[tuple[int, Snapshot]]) -> list[tuple[int, Snapshot]]:
    """Each combat's records in timestamp order (a stable sort: equal times keep the file's
    order), the combats in the order they first appear."""
    first: dict[str, int] = {}
    for place, (_, s) in enumerate(snapshots):
        first.setdefault(s.stream, place)
    return sorted(snapshots, key=lambda item: (first[item[1].stream], item[1].clock))


def newer(before: Cursor, now: Snapshot) -> bool:
    return now.clock > tuple(before.clock)


def label(snapshot: Snapshot) -> str:
    combat = snapshot.stream.rstrip(":")
    return f"the Avrae record of combat {combat} at {snapshot.clock[0]!r}"


def read_cursors(previous: object | None) -> Cursors:
    return Cursors({}) if previous is None else kept(previous, Cursors)


def convert(
    records: Sequence[object],
    *,
    importing: ImportRules,
    joined: Collection[str],
    previous: object | None,
) -> Converted:
    snapshots = [
        (index, s)
        for index, record in enumerate(records)
        if (s := snapshot(record, index)) is not None
    ]
    return take_in_combats(in_order(snapshots), importing, joined, previous)


def take_in_combats(
    snapshots: list[tuple[int, Snapshot]],
    importing: ImportRules,
    joined: Collection[str],
    previous: object | None,
) -> Converted:
    """Take in (record index, snapshot) in order, each against its combat's cursor, with the
    maxima the characters joined with (`Ceiling`); the cursor for the next import."""
    given = read_cursors(previous)
    batch = Ceiling(importing, joined, given.maxima, SOURCE)
    cursors = dict(given.combats)
    departures = Departures(given.seats)
    take_in(batch, cursors, snapshots, newer, label, departures)
    cursor = (
        msgspec.to_builtins(Cursors(cursors, batch.maxima, departures.seats))
        if cursors
        else previous
    )
    return Converted(batch.events, cursor, batch.warnings, batch.records, batch.instead)

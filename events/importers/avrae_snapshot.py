"""Avrae, a GM's own game: what the woundlog alias prints in Discord
(replays/integrations/avrae/woundlog.alias), each snapshot compared with the last one taken in.

Avrae gives a GM no file and no hook of a combat (its recorder feeds only Avrae's research
stream, see avrae.py); an alias can read the combat (`combat()`, aliasing/api/combat.py,
v4.2.70) and print it. The GM runs `!woundlog` whenever the fight should be brought over (after
each turn, or at the end), copies the messages (or the channel's export) into a text file and
imports it. Every line holding `woundlog {...}` is read; anything else (names, times, other
messages) is skipped:

    Dana: `woundlog {"v": 1, "fight": "8000...-1700007207", "t": 1700007207.25, "r": 1,
           "cur": 0, "n": 3, "page": [1, 1, 0],
           "o": [[null, [["a000...", "Mira", 10, 10, 0, 1]]], ["Raiders", [[...], [...]]]]}`

- `fight`: the id the alias keeps in the combat's metadata, so each combat is its own stream
  (a channel's next combat gets a new one); `t` the alias's `time()` when it ran: the clock.
- `o`: the initiative order, one entry per place: its group's name (null for a combatant alone)
  and its members as `[id, name, hp, max_hp, temp_hp, kind]`. `max_hp` is the effective
  maximum (`SimpleCombatant.max_hp` reads `Combatant.max_hp`, effects included); `hp` a
  player's own, from the sheet. `kind` is 1 for a player (`SimpleCombatant.race` is set for
  players only), 2 for a monster (`monster_name`, set for a `MonsterCombatant` only), 0 for
  anyone else (`!init add`); an alias of woundlog 0.x printed 0 for monsters too. `cur` is
  the acting entry's place (null before the start).
- Discord refuses a message over 2,000 characters (Avrae itself keeps its own messages under
  it: cogs5e/initiative/combat.py `get_summary`, utils.py `get_turn_str_content`,
  `max_len=2000`). A combat too big for one message comes in pages (`page`: [k, of, its first
  place]): the alias fills a page row by row up to 1,700 characters of `o`, so a big group
  (`!init madd kobold -n 32`) is cut between pages, and a place cut so is on both, under the
  same index (a page's first place is then the last place of the page before). Consecutive
  pages 1..of of one fight, round and turn make one snapshot, a cut group made whole; a
  snapshot with a page missing is refused, naming it.
- A combatant gone from the order since the last snapshot is reported by name; a monster
  gone as its turn ended was removed at 0 HP or below by `!init next` and ends dead
  (`avrae.Departures`). `combat()` shows no combat options: Avrae's default, `deathdelete`
  on, is assumed.
- As in avrae.py: a combatant whose maximum is unset (null or 0) is not tracked; HP follows
  Avrae up to the maximum a combatant joined with (`avrae.Ceiling`); a player healed from 0 HP
  is revived when the fight allows it; ids `avrae:<fight>:<t>:<combatant>:hit`,
  `...:r<round>:<combatant>:turn_started`, and the cursor is
  `{"combats": {fight: Cursor}, "maxima": {...}, "seats": {fight: Seats}}`.

The GM's steps: replays/integrations/avrae/README.md.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Annotated

import msgspec
from msgspec import Meta

from ..errors import StructuralError
from .avrae import combat_snapshot, take_in_combats
from .base import Converted, Sighting, SourceId, content_key, decode
from .rules import ImportRules
from .saved_encounters import Snapshot

MARK = "woundlog {"
Small = Annotated[int, Meta(ge=-1_000_000, le=1_000_000)]
Name = Annotated[str, Meta(max_length=200)]


COMMON, PLAYER, MONSTER = 0, 1, 2


class Row(msgspec.Struct, frozen=True, array_like=True):
    id: SourceId
    name: Name
    hp: Small | None
    max_hp: Small | None
    temp_hp: Small | None
    kind: Annotated[int, Meta(ge=COMMON, le=MONSTER)]


class Place(msgspec.Struct, frozen=True, array_like=True):
    group: Name | None
    members: Annotated[list[Row], Meta(max_length=100)]


class Page(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    v: Annotated[int, Meta(ge=1, le=1)]
    fight: SourceId
    t: Annotated[float, Meta(ge=0, le=1e11)]  # the alias's time(): seconds since 1970
    r: Annotated[int, Meta(ge=0, le=100_000)]
    cur: Annotated[int, Meta(ge=0)] | None
    n: Annotated[int, Meta(ge=0, le=1000)]
    page: Annotated[list[Annotated[int, Meta(ge=0, le=1000)]], Meta(min_length=3, max_length=3)]
    o: Annotated[list[Place], Meta(max_length=1000)]


def pages_in(lines: Sequence[object]) -> list[tuple[int, object]]:
    """(line, JSON object) of every line printed by the alias. A record given already decoded
    (a JSON object, as the service takes records) is a page as it is."""
    found: list[tuple[int, object]] = []
    for index, line in enumerate(lines):
        if not isinstance(line, str):
            found.append((index, line))
            continue
        at = line.find(MARK)
        if at < 0:
            continue
        try:
            value, _ = json.JSONDecoder().raw_decode(line, at + len(MARK) - 1)
        except (json.JSONDecodeError, RecursionError):
            raise StructuralError(
                "a `woundlog {...}` line that is not whole JSON (was the message cut?)",
                field="$",
                index=index,
            ) from None
        found.append((index, value))
    return found


def joined_pages(found: list[tuple[int, object]]) -> list[tuple[int, Page, list[Place]]]:
    """Consecutive pages of one snapshot joined: (line of its first page, page 1, the order)."""
    out: list[tuple[int, Page, list[Place]]] = []
    waiting: tuple[int, Page, list[Place]] | None = None
    taken = 0
    for index, raw in found:
        page = decode(raw, Page, index)
        number, of, first = page.page
        if waiting is not None:
            start, head, order = waiting
            if (head.fight, head.r, head.cur, head.n, head.page[1]) != (
                page.fight,
                page.r,
                page.cur,
                page.n,
                of,
            ) or (number, first) not in ((taken + 1, len(order)), (taken + 1, len(order) - 1)):
                raise missing(start, head, taken)
            if first < len(order):  # the page goes on with the last place of the one before
                order[-1] = continued(order[-1], page.o, index)
                order.extend(page.o[1:])
            else:
                order.extend(page.o)
            taken += 1
        elif number != 1 or first != 0:
            raise StructuralError(
                f"page {number} of {of} without page 1 before it", field="$.page", index=index
            )
        else:
            waiting, taken = (index, page, list(page.o)), 1
        if waiting is not None and taken >= waiting[1].page[1]:
            start, head, order = waiting
            if len(order) != head.n:
                raise StructuralError(
                    f"the snapshot at {head.t!r} lists {len(order)} places in the order and says "
                    f"it has {head.n}",
                    field="$.n",
                    index=start,
                )
            out.append(waiting)
            waiting = None
    if waiting is not None:
        raise missing(waiting[0], waiting[1], taken)
    return out


def continued(place: Place, more: list[Place], index: int) -> Place:
    """A group's place cut between two pages (the alias fills a page row by row, so a big
    group goes on in the next page, under the same place), made whole again."""
    if not more or place.group is None or more[0].group != place.group:
        raise StructuralError(
            f"this page goes on with the place before it ({place.group or 'a combatant'}) and "
            "does not start with the same group",
            field="$.o[0]",
            index=index,
        )
    return Place(place.group, [*place.members, *more[0].members])


def missing(index: int, head: Page, taken: int) -> StructuralError:
    return StructuralError(
        f"page {taken + 1} of {head.page[1]} of the snapshot at {head.t!r} is missing: run "
        "!woundlog 2, 3, ... right after !woundlog, before the combat changes",
        field="$.page",
        index=index,
    )


def sighting(row: Row) -> Sighting | str:
    name = row.name or row.id
    if row.max_hp is None or row.max_hp < 1 or row.hp is None:
        return f"{name} ({row.id}) has no maximum HP in Avrae: not tracked"
    return Sighting(
        row.id, name, row.kind == PLAYER, row.max_hp, row.hp, temp_hp=max(row.temp_hp or 0, 0)
    )


def snapshot(head: Page, order: list[Place]) -> Snapshot:
    """A place's id: its group's (`group:<name>`; `SimpleCombatant.group` is the name) or its
    combatant's."""
    return combat_snapshot(
        head.fight,
        head.t,
        content_key(msgspec.to_builtins([head.fight, head.r, head.cur, order])),
        head.r,
        [
            (
                f"group:{p.group}" if p.group is not None or not p.members else p.members[0].id,
                [(row.id, sighting(row)) for row in p.members],
            )
            for p in order
        ],
        head.cur,
        # `combat()` shows no options: Avrae's default, deathdelete on, is assumed
        {row.id for p in order for row in p.members if row.kind == MONSTER},
    )


def convert(
    records: Sequence[object],
    *,
    importing: ImportRules,
    joined: Collection[str],
    previous: object | None,
) -> Converted:
    snapshots = [
        (index, snapshot(head, order)) for index, head, order in joined_pages(pages_in(records))
    ]
    snapshots.sort(key=lambda item: item[1].clock)  # one alias, one clock: the order it ran in
    return take_in_combats(snapshots, importing, joined, previous)

"""What a page following a fight is sent of each event (issue 42): enough to update itself
without asking for the whole state again.

    following(fight, first, limit) -> Following      the events' steps, and the players' view
    hiding(monsters, applied) -> Redaction | None    what a viewer is kept from in one step
    followed(applied, redaction=None) -> (bytes, bytes)   one step's `now` and `changes`, JSON

The stream sends each event as two messages, `now` then `changes` (stream.py). `changes` is as
it always was: the event's `Changes`, what an append answers, its `id` the event's seq. `now`,
without an id (so a client that reconnects after it and before its `changes` is sent both
again), holds what a page needs besides:

- `seq`, the event's;
- `view`: what the reader is shown: `whole`, or the players' view that redacted it (`bands`,
  `hidden`); a page whose view changes (the GM changed the setting) reads the state again;
- `recorded`: the event as `GET /events` shows it to the reader;
- `characters`: every character whose state differs from before the event, as `GET /state`
  shows it to the reader (null: no longer in the fight);
- `order`: the character ids in join order, given when who is in the fight changed;
- `fight`: every other field of the state that differs (`seq` always), null where it went back
  to its default (which `GET /state` leaves out);
- `undo`, `redo`: the seqs Undo and Redo take back right after the event, as `GET /timeline`
  names them (left out: none), so a GM's page offers them without a rule of its own.

So a page that holds the state at seq N - 1 and applies `now` N holds what `GET /state` would
answer at N: values the server computed, no rule in the page. An undo (retract, amend) is
applied the same way: its `characters` hold every character its consequences changed.

Decisions where the issue is silent:
- A character's whole state is sent when any of it changed, not the counters that moved: the
  page replaces it, and no page adds up counters.
- What a viewer is shown of one event is decided by that event alone: the GM's characters are
  those of the fight before or after it, or joined by it, and the players' view is the setting
  as it stood when the event was first read (a change of setting through this server is heard
  at once: the service forgets what it made of the fight's events).
- The GM's view, and a viewer's where nothing is hidden, are the same bytes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from woundlog.core import FightState
from woundlog.events import Event
from woundlog.events.stores import Stored

from ..fight import Applied
from .redaction import MonsterHp, PlayersViewCases, Redaction

WHOLE = "whole"
"""A `now` message's view where nothing of it is hidden from its reader."""


class Now(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What an event made of the fight, as `GET /state` shows it (the module says how)."""

    seq: int
    view: str
    recorded: Any
    characters: dict[str, Any]
    fight: dict[str, Any]
    order: list[str] | None = None
    undo: int | None = None
    redo: int | None = None


class Following(msgspec.Struct, frozen=True):
    """The steps of events `first` on, the fight's version when they were read, and the
    players' view as the fight's setting has it."""

    steps: list[Applied]
    version: int
    monsters: MonsterHp


def _defaults(kind: type[Any]) -> dict[str, Any]:
    """Each field of a state with its default (left out of `GET /state` when it has it)."""
    found: dict[str, Any] = {}
    for field in msgspec.structs.fields(kind):
        if field.default is not msgspec.NODEFAULT:
            found[field.name] = field.default
        elif field.default_factory is not msgspec.NODEFAULT:
            found[field.name] = field.default_factory()
        else:
            found[field.name] = msgspec.NODEFAULT
    found.pop("characters", None)
    return found


_FIELDS: dict[type[Any], dict[str, Any]] = {}


def _fight(before: FightState[Any] | None, after: FightState[Any]) -> dict[str, Any]:
    fields = _FIELDS.get(type(after))
    if fields is None:
        fields = _FIELDS[type(after)] = _defaults(type(after))
    moved: dict[str, Any] = {}
    for name, default in fields.items():
        value = getattr(after, name)
        if before is None or getattr(before, name) != value:
            moved[name] = None if value == default else value
    return moved


def hiding(rule: MonsterHp, applied: Applied) -> Redaction | None:
    """What a viewer is kept from in this event, by `rule`; None for nothing."""
    if rule is MonsterHp.SHOWN:
        return None
    redaction = Redaction.of(rule, applied.after)
    gm_kinds = redaction.gm_kinds
    if applied.before is not None:  # a GM's character an undo took out of the fight
        redaction.learn(
            [
                {
                    "type": "character_joined",
                    "character": cid,
                    "name": character.name,
                    "kind": character.kind,
                    "stats": character.stats,
                }
                for cid, character in applied.before.characters.items()
                if character.kind in gm_kinds and cid not in applied.after.characters
            ]
        )
    redaction.learn([msgspec.to_builtins(applied.stored.event)])
    return redaction if redaction.hides else None


def followed(applied: Applied, redaction: Redaction | None = None) -> tuple[bytes, bytes]:
    """One step's `now` and `changes` messages, JSON: whole, or as a viewer is shown them
    where `redaction` (`hiding`) keeps something from one."""
    before = applied.before.characters if applied.before is not None else {}
    after = applied.after.characters
    characters: dict[str, Any] = {}
    joined_or_left = False
    for cid, character in after.items():
        was = before.get(cid)
        if was is None:
            joined_or_left = True
        if was is not character and was != character:
            characters[cid] = (
                character if redaction is None else redaction.character(cid, character)
            )
    for cid in before:
        if cid not in after:
            characters[cid] = None
            joined_or_left = True
    changes, event = applied.changes, applied.stored.event
    recorded: Any = event
    if redaction is not None:
        changes = redaction.changes(changes)
        recorded = redaction.event(event)
    now = Now(
        seq=applied.stored.seq,
        view=WHOLE if redaction is None else redaction.rule.value,
        recorded=recorded,
        characters=characters,
        fight=_fight(applied.before, applied.after),
        order=list(after) if joined_or_left else None,
        undo=applied.targets[0] if applied.targets else None,
        redo=applied.targets[1] if applied.targets else None,
    )
    return msgspec.json.encode(now), msgspec.json.encode(changes)


class FollowingCases(PlayersViewCases):
    """What a page following a fight is sent."""

    def following(self, fight: str, first: int, limit: int) -> Following:
        """Up to `limit` events from seq `first`, each with the fight before and after it,
        and what the fight's viewers are shown of its GM's characters now."""
        opened = self.fight(fight)
        version = opened.version
        last = min(version, first + limit - 1)
        steps = list(opened.applied_from(first, last, targets=True)) if first <= last else []
        return Following(steps, version, self.players_view(fight).monsters)

    def origin(self, fight: str) -> Stored[Event] | None:
        """The fight's first event as stored: what tells its log from another made under its
        id since; None if it was deleted between)."""
        return next(iter(self.fight(fight).events(1, 1)), None)

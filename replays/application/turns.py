"""Turns: the initiative order and the next turn, as events, for every front end.

    next_turn(fight) -> Appended          the current turn's end and the next one's start
    turn_order(fight, order=(), *, initiative=None) -> Appended   the order from here on

Whose turn comes next, and the order itself, are the core's (`core.initiative`): this module
reads the fight, asks the core and appends what it answers, all at once.

Decisions where nothing says:
- `next_turn` appends at the version it read: when another writer got in first, it reads the
  fight again and asks again (a second "next" pressed elsewhere moves the turn on once more,
  from where that one left it), never ends a turn that has ended already.
- `turn_order` takes the characters by id or display name, as every event does (`names.py`),
  or their initiative values (`{"grim": 15}`): those ordered by value, higher first, ties by
  join order, recorded as the `turn_order` they make (the log holds the order, not the values).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from woundlog.core.dice import split_scope
from woundlog.core.initiative import next_ticks, ordered
from woundlog.events import (
    ConflictError,
    Event,
    TurnEnded,
    TurnOrder,
    TurnStarted,
    UsageError,
    convert,
)

from ..fight import RETRIES, Appended
from .fights import FightCases
from .names import character_id

END = ":end"
"""What a next's id gets for its `turn_ended`'s."""
ID_LENGTH = 200
"""An event id's bound (`events.model.Id`)."""


class TurnCases(FightCases):
    """Turn order and the next turn."""

    def next_turn(
        self,
        fight: str,
        *,
        rolls: Mapping[str, Sequence[int]] | None = None,
        event_id: str | None = None,
    ) -> Appended:
        """End the current turn (if someone's is under way) and start the next living
        character's in the order, wrapping to the next round after the last: one atomic append
        of `turn_ended` and `turn_started` of one character each (`core.initiative`).

        `rolls`: the table's dice (`split_rolls`). `event_id` names this "next" (the
        `turn_started`'s id; its `turn_ended`'s is the same with `:end`): asked again, it is
        found done and nothing more is appended, so a retry moves the turn on once."""
        if event_id is not None and len(event_id) > ID_LENGTH - len(END):
            raise UsageError(
                f"a next's id is at most {ID_LENGTH - len(END)} characters: its end's is the "
                f"same with `{END}`"
            )
        for attempt in range(RETRIES):
            opened = self.fight(fight)
            version = opened.version
            if event_id is not None:
                found = self.store.lookup(fight, [event_id, f"{event_id}{END}"])
                if event_id in found:
                    return Appended(version, [], list(found))
            now = opened.state()
            ended, started = next_ticks(now.turn, now.rounds, now.characters)
            ticks: list[TurnEnded | TurnStarted] = [started] if ended is None else [ended, started]
            given = split_rolls(rolls or {}, ended, started)
            events = [_made(tick, given.get(tick.character), event_id) for tick in ticks]
            try:
                return opened.append(events, expected_version=version)
            except ConflictError:
                if attempt == RETRIES - 1:
                    raise
        raise AssertionError("unreachable")  # the loop returns or raises

    def turn_order(
        self,
        fight: str,
        order: Sequence[str] = (),
        *,
        initiative: Mapping[str, int] | None = None,
        event_id: str | None = None,
    ) -> Appended:
        """Record the turn order from here on: the characters of `order` first, in that order
        (each by id or display name), or those of `initiative` by their values; everyone not
        named after them, by the initiative they joined with (`core.initiative`). With
        `event_id`, the event's id: a retry is skipped as the same event."""
        opened = self.fight(fight)
        characters = opened.state().characters
        if initiative is not None:
            if order:
                raise UsageError("give the order, or initiative values, not both")
            values = {
                character_id(characters, given, f"$.initiative.{given}"): value
                for given, value in initiative.items()
            }
            ids = ordered([cid for cid in characters if cid in values], values)
        else:
            ids = tuple(
                character_id(characters, given, f"$.order[{n}]")
                if isinstance(given, str)
                else given
                for n, given in enumerate(order)
            )
        # decoded as a log's is, so its bounds and id patterns are checked as every event's
        fields = {"type": "turn_order", "order": list(ids)}
        event = convert(fields if event_id is None else {**fields, "id": event_id}, index=0)
        assert isinstance(event, TurnOrder)
        return opened.append([event])


def split_rolls(
    rolls: Mapping[str, Sequence[int]], ended: TurnEnded | None, started: TurnStarted
) -> dict[str | None, dict[str, list[int]]]:
    """A next's given dice, by the character whose tick takes them: a die of one character
    (`downed@brakk`) goes to the tick of his turn, the end of the current one's or the start
    of the next one's (the start, when both are his: a fight of one living character); a die
    of no character, and one of a character neither tick is about (which the append then
    refuses, naming him), to the start of the next turn, where a dying character's death save
    is rolled."""
    given: dict[str | None, dict[str, list[int]]] = {}
    for key, dice in rolls.items():
        _, character = split_scope(key)
        ends = ended is not None and character == ended.character != started.character
        owner = ended.character if ends and ended is not None else started.character
        given.setdefault(owner, {})[key] = list(dice)
    return given


def _made(
    tick: TurnEnded | TurnStarted, rolls: dict[str, list[int]] | None, event_id: str | None
) -> Event:
    """A next's tick with its dice and under its id (the start's own, the end's with `:end`),
    decoded as every event is, so its dice and id are checked as any event's."""
    fields = msgspec.to_builtins(tick)
    if rolls:
        fields["rolls"] = rolls
    if event_id is not None:
        fields["id"] = event_id if isinstance(tick, TurnStarted) else f"{event_id}{END}"
    made = convert(fields, index=0)
    assert isinstance(made, type(tick))
    return made

"""Initiative: the order turns go in, whose turn it is, and what "next turn" records.

Every ruleset shares it; nothing here is a game's rule. A character joins with an
`initiative` or none; a `turn_order` event names the order from there on; `woundlog next`
ends the current turn and starts the next as the `turn_ended` and `turn_started` events the
rulesets already read (their start- and end-of-turn steps: a dnd5e death save at a dying
character's turn start, a Warhammer Quest Downed roll at his turn's end). Decisions made
where DESIGN.md is silent:

- The order: higher initiative first; ties by join order; a character with no initiative
  after every one with one, in join order (so a fight that gives none keeps its join order).
- A `turn_order` puts the characters it names first, in its order; everyone it leaves out,
  and everyone who joins later, comes after them in (initiative, join) order. An empty
  `turn_order` goes back to initiative order. An id named twice, or of nobody who has joined,
  is a rule error naming `$.order[N]`.
- Whose turn it is (`current`): the character whose turn a `turn_started` of him alone
  started this round, until his turn ends (a `turn_ended` of him, of his side or of the whole
  round) or the round moves on. A `turn_order` leaves it with whoever has it. None before the
  first `woundlog next` (or a tick of one character).
- The round is the round the ticks are in (`core.turns.Rounds`): 0 before the first tick.
- Next turn (`next_ticks`) ends the current turn (if someone has it) and starts the turn of
  the next living character after him in the order, in the same round; after the last, the
  first living one's in round + 1. The first `next` starts round 1 with the first in the
  order. With nobody's turn under way mid-round (his `turn_started` undone, say), the turn
  after the last in the order whose turn started this round comes next.
- The dead are passed over: no rule acts at a dead character's turn, and a GM does not wait
  on one; they stay in the order (shown, and back in it if the rules raise them). Everyone
  else keeps a turn, the downed and the out of action too: that is when their rules tick
  (death saves, Downed rolls, bleeding, recovery).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from woundlog.events import CharacterJoined, RuleError, TurnEnded, TurnOrder, TurnStarted

from .states import DEAD
from .turns import Pulse, Rounds

RULE = (
    "Turn order (every ruleset): higher initiative goes first, ties by join order, a character "
    "with none after those with one; a `turn_order` puts those it names first, in its order, "
    "and everyone else after them by initiative and join order; whose turn it is stays. "
    "`woundlog next` ends the current turn and "
    "starts the next living character's (the dead are passed over; the downed and the out of "
    "action keep their turn, when their rules tick), wrapping to the next round after the last."
)
"""The rule as `woundlog rules NAME` prints it for every ruleset (`Ruleset.documentation`)."""


class Turn(msgspec.Struct, frozen=True):
    """Where the turns stand: the round the ticks are in (0 before the first), the order of
    everyone in the fight (ids, first to last), whose turn it is (None: nobody's), the
    initiative each character joined with (those who gave one), and the ids the last
    `turn_order` named (empty: none, or an empty one)."""

    round: int = 0
    order: tuple[str, ...] = ()
    current: str | None = None
    initiative: dict[str, int] = {}
    named: tuple[str, ...] = ()


def _rank(initiative: Mapping[str, int]) -> Callable[[str], tuple[int, int]]:
    """The sort key of the order after the named ones: higher initiative first, none last
    (a stable sort keeps join order among equals)."""

    def rank(cid: str) -> tuple[int, int]:
        value = initiative.get(cid)
        return (1, 0) if value is None else (0, -value)

    return rank


def ordered(
    joined: Iterable[str], initiative: Mapping[str, int], named: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """Everyone in `joined` (ids in join order), in turn order: `named` first, the rest by
    initiative, then join order."""
    first = dict.fromkeys(named)
    rest = sorted((cid for cid in joined if cid not in first), key=_rank(initiative))
    return (*first, *rest)


def joined(turn: Turn, event: CharacterJoined) -> Turn:
    """The turns after a character joins: he takes his place by initiative among those no
    `turn_order` named (after everyone with his initiative: he joined last)."""
    initiative = turn.initiative
    if event.initiative is not None:
        initiative = {**initiative, event.character: event.initiative}
    head = len(turn.named)
    tail = turn.order[head:]
    place = head + bisect_right(tail, _rank(initiative)(event.character), key=_rank(initiative))
    order = (*turn.order[:place], event.character, *turn.order[place:])
    return msgspec.structs.replace(turn, order=order, initiative=initiative)


def reordered(turn: Turn, event: TurnOrder, characters: Mapping[str, Any]) -> Turn:
    """The turns after a `turn_order`: its ids first, the others after them; whose turn it is
    stays. An id named twice or of nobody in the fight is refused, naming where it is."""
    seen: dict[str, int] = {}
    for n, cid in enumerate(event.order):
        if cid in seen:
            raise RuleError(
                f"`{cid}` is named twice in the order (at {seen[cid]} and {n})",
                field=f"$.order[{n}]",
            )
        if cid not in characters:
            known = ", ".join(characters) or "nobody yet"
            raise RuleError(
                f"no character `{cid}` in this fight (joined: {known})", field=f"$.order[{n}]"
            )
        seen[cid] = n
    # the others by initiative and join order, not in the order as it stood
    order = ordered(characters, turn.initiative, event.order)
    return msgspec.structs.replace(turn, order=order, named=event.order)


def ticked(
    turn: Turn, tick: TurnStarted | TurnEnded, said: Pulse, characters: Mapping[str, Any]
) -> Turn:
    """The turns after a tick (`said`, its `core.turns.pulse`): the round it is in, and whose
    turn it is. A round that moves on ends the turn under way; a `turn_started` of one
    character whose turn has not started this round starts his; a `turn_ended` of him, his
    side or the whole round ends it."""
    current = turn.current if said.round == turn.round else None
    if type(tick) is TurnStarted:  # not `isinstance`: core.reducer._effect says why
        cid = tick.character
        if cid is not None and not said.done.covers(cid, characters[cid].side):
            current = cid
    elif current is not None:
        side = tick.side
        if (
            (side is None and tick.character is None)
            or tick.character == current
            or (side is not None and characters[current].side == side)
        ):
            current = None
    if current == turn.current and said.round == turn.round:
        return turn
    return msgspec.structs.replace(turn, round=said.round, current=current)


def next_ticks(
    turn: Turn, rounds: Rounds, characters: Mapping[str, Any]
) -> tuple[TurnEnded | None, TurnStarted]:
    """What "next turn" records: the end of the current turn (None if nobody's is under way)
    and the start of the next living character's, with their rounds. Refused when nobody in
    the fight is alive to take a turn."""
    order = turn.order
    living = [cid for cid in order if characters[cid].state != DEAD]
    if not living:
        raise RuleError(
            "nobody has joined the fight: there is no turn to start"
            if not order
            else "everyone in the fight is dead: there is no turn to start"
        )
    round_ = rounds.round
    anchor = turn.current
    if anchor is None and round_ > 0 and not rounds.closed:
        started = rounds.started
        anchor = next(
            (cid for cid in reversed(order) if started.covers(cid, characters[cid].side)), None
        )
        if anchor is None:  # a round under way whose turns have not begun: its first
            return None, TurnStarted(character=living[0], round=round_)
    if anchor is None:  # before the first turn, or after a round ended as a whole
        return None, TurnStarted(character=living[0], round=round_ + 1)
    after = order[order.index(anchor) + 1 :]
    following = next((cid for cid in after if characters[cid].state != DEAD), None)
    ended = None if turn.current is None else TurnEnded(character=turn.current, round=round_)
    if following is None:
        return ended, TurnStarted(character=living[0], round=round_ + 1)
    return ended, TurnStarted(character=following, round=round_)

"""One pulse per round: whose turn a `turn_started` or `turn_ended` starts or ends.

A log may tick a turn in three scopes (the whole round, a side, one character), and a tracker
often ticks more than one of them for the same turn. The engine, not each ruleset, decides what
a tick means (DESIGN.md section 3):

    Each character's turn starts and ends at most once a round, whichever scope (round, side,
    character) says so first, using the `round` field when the log has one; a round's end is
    recognised from the `round` field moving on when the log never ticks the round itself.

So a tick hands its ruleset only those of its scope whose turn it starts (or ends) now, and says
whether a round ends with it. A tick whose log gives no `round` begins a new round when the one
before was ended by a whole-round `turn_ended`, or when it names again a scope that has already
started (or ended) this round: a log that ticks `turn_ended side=a`, `side=b`, `side=a` is in its
second round at the third tick.

A whole-round `turn_started` starts everyone's turn only in a fight of version 3 on: before,
some rulesets read it as the round's start alone (a log that ticks the round, then each dying
creature's turn, as the bundled goblin ambush does, would lose its death saves), so a log of
version 1 or 2 keeps that reading, and the rulesets their reading of the whole round's ticks.
Every other part of the rule holds for every version: a turn ticked twice, by two scopes, was
counted twice, which no log meant.
"""

from __future__ import annotations

from functools import lru_cache

import msgspec
from msgspec.structs import replace

from woundlog.events import TurnEnded, TurnStarted

RULE = (
    "Turns (every ruleset): each character's turn starts and ends at most once a round, "
    "whichever scope (round, side, character) says so first, using the `round` field when the "
    "log has one; a round's end is recognised from the `round` field moving on when the log "
    "never ticks the round itself. A tick with no `round` begins the next round when the last "
    "was ended as a whole or when its scope has ticked already this round. From version 3 on a "
    "whole round's `turn_started` starts every turn no smaller scope has started; in a log of "
    "version 1 or 2 it is the round's start alone, as this ruleset read it then."
)
"""The rule in the words of DESIGN.md section 3, printed by `woundlog rules NAME` for every
ruleset (`Ruleset.documentation`)."""

PULSE_VERSION = 3
"""The first version of the wire format whose whole-round `turn_started` starts every turn."""


class Scopes(msgspec.Struct, frozen=True, omit_defaults=True, cache_hash=True, gc=False):
    """The scopes that have started (or ended) turns in this round: the whole round, sides,
    characters, in the order the log ticked them. Its hash is kept (a side's tick looks its
    growth up, `_with_side`), and it holds no object that could hold it back: no garbage
    collector tracks it."""

    everyone: bool = False
    sides: tuple[str, ...] = ()
    characters: tuple[str, ...] = ()

    def covers(self, cid: str, side: str) -> bool:
        """Whether the turn of `cid` (on `side`) has been ticked by one of them."""
        return self.everyone or side in self.sides or cid in self.characters

    def names(self, turn: TurnStarted | TurnEnded) -> bool:
        """Whether this very scope has ticked already."""
        if turn.character is not None:
            return turn.character in self.characters
        if turn.side is not None:
            return turn.side in self.sides
        return self.everyone

    def plus(self, turn: TurnStarted | TurnEnded) -> Scopes:
        """These and the tick's scope (`names`, asked here in the same steps: every tick asks)."""
        character, side = turn.character, turn.side
        if character is not None:
            if character in self.characters:
                return self
            return msgspec.structs.replace(self, characters=(*self.characters, character))
        if side is not None:
            if side in self.sides:
                return self
            return msgspec.structs.replace(self, sides=(*self.sides, side))
        return self if self.everyone else msgspec.structs.replace(self, everyone=True)


NOBODY = Scopes()


class Rounds(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """Where a fight's rounds stand: the round its ticks are in (the log's own `round` when it
    gives one, else counted from 1), whether a whole-round `turn_ended` has ended it, and the
    scopes whose turns have started and ended in it."""

    round: int = 0
    closed: bool = False
    started: Scopes = NOBODY
    ended: Scopes = NOBODY


class Pulse(msgspec.Struct, frozen=True, gc=False):
    """What one tick does: `done`, the scopes whose turns (of this tick's kind) had already
    started or ended this round, whom the tick leaves alone; `everyone`, whether a tick of the
    whole round starts or ends the turns of all the others; whether a round ends before the
    tick (`round_ended_before`: the log's `round` moved on from a round never ticked as a whole)
    and after it (`round_ends`: a whole-round `turn_ended`); and the round it is in."""

    done: Scopes
    everyone: bool
    round_ended_before: bool
    round_ends: bool
    round: int


def pulse(rounds: Rounds, turn: TurnStarted | TurnEnded, version: int) -> tuple[Pulse, Rounds]:
    """The tick's Pulse, and where the rounds stand after it."""
    # the type itself: `isinstance` of a Struct's type asks its metaclass, a thousand
    # instructions when it is not (every `turn_ended`); an event's type has no subclass
    starts = type(turn) is TurnStarted
    ended_before = False
    if turn.round is not None:
        if turn.round > rounds.round:
            ended_before = rounds.round > 0 and not rounds.closed
            rounds = Rounds(round=turn.round)
    elif rounds.round == 0 or _repeats(rounds, turn, starts):
        rounds = Rounds(round=rounds.round + 1)
    side = turn.side
    round_scope = side is None and turn.character is None  # `whole`, asked once a tick
    everyone = round_scope and (not starts or version >= PULSE_VERSION)
    done = rounds.started if starts else rounds.ended
    if side is not None and turn.character is None:  # a side's tick, most are
        grown = _with_side(done, side)
    else:
        grown = done.plus(turn)
    if starts:
        # before version 3, the whole round's start starts no turn
        counts = everyone or not round_scope
        after = replace(rounds, started=grown) if counts else rounds
    else:
        after = replace(rounds, ended=grown, closed=rounds.closed or round_scope)
    round_ends = round_scope and not starts and not rounds.closed
    # done, everyone, round_ended_before, round_ends, round: by place, in fewer steps
    return Pulse(done, everyone, ended_before, round_ends, rounds.round), after


_GROWN_KEPT = 4096
"""The most (scopes, side) growths kept: each fight's rounds grow a few, the same every round."""


@lru_cache(maxsize=_GROWN_KEPT)
def _with_side(done: Scopes, side: str) -> Scopes:
    """`done` with `side` (`Scopes.plus` of a side's tick), memoised: every round's ticks grow
    the same scopes in the same order, so a fight makes each once. A pure function's cache,
    bounded, and safe to share between threads (lru_cache keeps its own lock)."""
    return done if side in done.sides else replace(done, sides=(*done.sides, side))


def _repeats(rounds: Rounds, turn: TurnStarted | TurnEnded, starts: bool) -> bool:
    """Whether a tick with no `round` can only be of the next round: the round was ended as a
    whole, or this scope has already ticked this kind (or, for a start, ended) in it."""
    if rounds.closed:
        return True
    if starts:
        return rounds.started.names(turn) or rounds.ended.names(turn)
    return rounds.ended.names(turn)


def whole(turn: TurnStarted | TurnEnded) -> bool:
    """Whether the tick is the whole round's (neither a side nor a character)."""
    return turn.side is None and turn.character is None


def starts_the_round_only(turn: TurnStarted | TurnEnded, pulse: Pulse | None) -> bool:
    """Whether the tick is a whole round's `turn_started` that starts no turn (before version
    3, the round's start alone)."""
    return (
        turn.side is None
        and turn.character is None  # the whole round's (`whole`, asked on every tick: inline)
        and isinstance(turn, TurnStarted)
        and (pulse is None or not pulse.everyone)
    )

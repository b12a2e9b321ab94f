"""Dice at the table: which die the rules would ask for next, so a table that rolls its own
dice is asked for each by name and sides before the event is appended.

    dice_asked(fight, event) -> DiceAsked     the next die the rules need, or none
    next_dice_asked(fight, rolls) -> DiceAsked   the same for the next turn (`next_turn`)

A page (the GM console) or a bridge asks with the event it means to record and the dice the
table has rolled for it so far (`rolls`); the answer is the first die the rules need that
those do not give, worked out by folding the event on the fight as it stands, without writing
(`core.asking`). It adds the die to `rolls` and asks again, until none is asked; then it
appends the event as any other. A refused event is refused here as its append would be.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from woundlog.core import advance
from woundlog.core.asking import DieAsked, die_asked
from woundlog.core.initiative import next_ticks
from woundlog.events import TurnEnded, TurnStarted, convert

from .base import UseCases
from .turns import split_rolls


class DiceAsked(msgspec.Struct, frozen=True, kw_only=True):
    """The next die the rules need for the event as given (`die`; None: none), and the fight's
    version it was worked out at (an append meanwhile may change the answer)."""

    die: DieAsked | None
    version: int


class DiceCases(UseCases):
    """The dice a recorded event still needs, asked of the rules before it is written."""

    def dice_asked(self, fight: str, event: object) -> DiceAsked:
        """The next die the rules would ask for `event` (a JSON value, as `POST /events`
        takes one) on `fight` as it stands, its given `rolls` taken first; None when they give
        every die it needs."""
        read = convert(event, index=0)
        opened = self.fight(fight)
        version = opened.version
        return DiceAsked(die=die_asked(opened.state(), read), version=version)

    def next_dice_asked(self, fight: str, rolls: Mapping[str, Sequence[int]]) -> DiceAsked:
        """The next die the rules would ask for the next turn (`next_turn`: the end of the turn
        under way, then the start of the next), `rolls` given as `next_turn` takes them: the
        first die of either tick that they do not give, or None."""
        opened = self.fight(fight)
        version = opened.version
        state = opened.state()
        ended, started = next_ticks(state.turn, state.rounds, state.characters)
        given = split_rolls(rolls, ended, started)
        ticks: list[TurnEnded | TurnStarted] = [started] if ended is None else [ended, started]
        for tick in ticks:
            event = convert(
                {**msgspec.to_builtins(tick), "rolls": given.get(tick.character, {})}, index=0
            )
            die = die_asked(state, event)
            if die is not None:
                return DiceAsked(die=die, version=version)
            state = advance(state, event)
        return DiceAsked(die=None, version=version)

"""What if: a fight's branch (a new fight that copies it up to a point and goes on otherwise),
the exact odds of what might happen next, and what differs between two fights.

    whatif_events(texts=(), *, file=None) -> list[Event]   a what-if's events as JSON texts
                                                           (`--then`) and a `.jsonl` file
    branch_log(fight, *, at=None, then=(), hits=()) -> list[Event]
    branch(fight, new, *, at=None, then=(), hits=()) -> Appended
    whatif(state, events=(), *, hits=(), ticks=0) -> list[Event]
    odds(state, whatif, *, characters=(), samples=None, budget=None) -> Odds
    diff(first, second) -> list[CharacterChange]

The state a what-if starts from is `state(fight_or_file, at)` (fights.py): a stored fight or a
file alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from woundlog.core import CharacterChange, FightState
from woundlog.events import Event

from ..fight import Appended
from .fights import FightCases
from .names import asked_about, in_whatif
from .values import NothingAsked, TooLarge

if TYPE_CHECKING:  # loaded by the use cases that need them: `woundlog hit` needs none of them
    from woundlog.core.odds import Budget

    from ..whatif import Odds


class WhatIfCases(FightCases):
    """What might have happened, or might happen next; the fights themselves are never
    touched."""

    @staticmethod
    def whatif_events(texts: Iterable[str] = (), *, file: Path | None = None) -> list[Event]:
        """A what-if's events as a person gives them: each of `texts` a whole event as JSON
        (`--then '{"type": "hit", ...}'`), then the events of `file` (JSON Lines), each checked
        as any event is."""
        from woundlog.events import bounded
        from woundlog.events.codec import iter_jsonl

        from ..whatif import then_events

        events = then_events(texts)
        if file is not None:
            with open(file, "rb") as lines:
                events += [event for _, event in iter_jsonl(bounded.lines(lines, file))]
        return events

    def branch_log(
        self,
        fight: str,
        *,
        at: int | None = None,
        then: Sequence[Event] = (),
        hits: Sequence[str] = (),
        most: int | None = None,
    ) -> list[Event]:
        """The log a branch of `fight` at event `at` (default: its end), then `then` and a hit
        for each of `hits` (TARGET:DAMAGE[:ATTACKER]), writes. A branch that would copy more
        than `most` events is TooLarge before any is read (the service's bound)."""
        self._copies_at_most(fight, at, most)
        from ..branch import branch_events  # with the use case: a hit needs no branch

        return branch_events(self.store, fight, at=at, then=_with_hits(then, hits))

    def branch(
        self,
        fight: str,
        new: str,
        *,
        at: int | None = None,
        then: Sequence[Event] = (),
        hits: Sequence[str] = (),
        most: int | None = None,
    ) -> Appended:
        """The new fight `new`: `fight`'s log up to `at`, then `then` and `hits`
        (`replays.branch`); TooLarge if it would copy more than `most` events."""
        self._copies_at_most(fight, at, most)
        from ..branch import branch as branch_fight

        return branch_fight(self.store, fight, new, at=at, then=_with_hits(then, hits))

    def _copies_at_most(self, fight: str, at: int | None, most: int | None) -> None:
        """A branch of `fight` at `at` copies at most `most` events (None: any number)."""
        version = self.fight(fight).version
        copied = version if at is None else min(at, version)
        if most is not None and copied > most:
            raise TooLarge(
                f"a branch here copies at most {most:,} events; this one would copy "
                f"{copied:,} of fight `{fight}`: branch from an earlier event (`at` at most "
                f"{most:,}), or branch with `woundlog branch` where the store is"
            )

    def whatif(
        self,
        state: FightState[Any],
        events: Sequence[Event] = (),
        *,
        hits: Sequence[str] = (),
        ticks: int = 0,
    ) -> list[Event]:
        """A what-if's events: `events`, then each `hits` shorthand (TARGET:DAMAGE[:ATTACKER]),
        then `ticks` rounds of turns from `state`, a character named by id or display name
        (`names.py`). NothingAsked when that is nothing."""
        from ..whatif import hit_shorthand, rounds

        given = [*events, *(hit_shorthand(text) for text in hits)]
        named = [in_whatif(state.characters, event, at) for at, event in enumerate(given, 1)]
        whatif = [*named, *rounds(state, ticks)]
        if not whatif:
            raise NothingAsked("say what happens")
        return whatif

    def odds(
        self,
        state: FightState[Any],
        whatif: Sequence[Event],
        *,
        characters: Sequence[str] = (),
        samples: int | None = None,
        budget: Budget | None = None,
    ) -> Odds:
        """The chance of every outcome of `whatif` from `state`, exact or from `samples`
        replays, within `budget` (core.odds.TooLarge past it), for `characters` named by id or
        display name (default: everyone)."""
        self.check_batch_size(len(whatif))
        from ..whatif import odds as compute_odds

        asked = [asked_about(state.characters, given) for given in characters]
        return compute_odds(state, whatif, characters=asked, samples=samples, budget=budget)

    def diff(self, first: str, second: str) -> list[CharacterChange]:
        """Per character, what differs between two fights as they stand (a fight and its
        branch); fights of two rulesets are refused."""
        from ..branch import compare

        return compare(self.state(first), self.state(second))


def _with_hits(then: Sequence[Event], hits: Sequence[str]) -> list[Event]:
    if not hits:
        return list(then)
    from ..whatif import hit_shorthand

    return [*then, *(hit_shorthand(text) for text in hits)]

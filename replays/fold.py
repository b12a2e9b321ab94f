"""Folding a log into state, as it stands now: every undo applied, one pass, memory held flat.

The undo events are resolved first (they are few, and a store or a file can hand them over
without the rest); then the events stream through the reducer once, each retracted event
skipped in its place and each amended one replayed as its replacement.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import msgspec
from msgspec.structs import astuple

from woundlog.core import Changes, FightState, apply, apply_or_void, not_replayed
from woundlog.core.reducer import Fold
from woundlog.events import Event, RuleError, event_ref
from woundlog.events.stores import Stored

from .undo import Undo, resolve


def fold(
    stream: Iterable[Stored[Event]],
    undo: Undo,
    *,
    state: FightState[Any] | None = None,
    strict: bool = False,
) -> Iterator[tuple[FightState[Any], Changes]]:
    """Yield the state and the changes after each event of `stream`.

    `state` is where the stream takes up (a snapshot), or None from the first event. A rule
    error voids its event and the fold goes on, unless `strict`.
    """
    for _, after, changes in replayed(stream, undo, state=state, strict=strict):
        yield after, changes


def replayed(
    stream: Iterable[Stored[Event]],
    undo: Undo,
    *,
    state: FightState[Any] | None = None,
    strict: bool = False,
) -> Iterator[tuple[Event | None, FightState[Any], Changes]]:
    """`fold`, each step with the event the rules replayed in that place: the event itself, an
    amended one's replacement, or None for a retracted one (a report reads what was played)."""
    step = apply if strict else apply_or_void
    for stored, event, undone in undo.played(stream):
        state, changes = played_step(state, stored.event, event, undone, step)
        yield event, state, changes


def played_step(
    state: FightState[Any] | None,
    written: Event,
    event: Event | None,
    undone: str | None,
    step: Callable[[FightState[Any] | None, Event], tuple[FightState[Any], Changes]],
) -> tuple[FightState[Any], Changes]:
    """One step of the fold as played (`Undo.as_played`'s `event` and `undone` for the event
    `written`): the event folded by `step`, an amended one's replacement in its place, or a
    retracted one not replayed."""
    if event is None:  # taken back (fight_started, the first, cannot be)
        assert state is not None
        return not_replayed(state, written, undone or "")
    state, changes = step(state, event)
    if undone is not None:  # amended: the replacement, in its place
        changes = msgspec.structs.replace(changes, undone=undone)
    return state, changes


def fold_state(
    stream: Iterable[Stored[Event]],
    undo: Undo,
    *,
    state: FightState[Any] | None = None,
    strict: bool = False,
    on_void: Callable[[int, str, str], None] | None = None,
) -> FightState[Any] | None:
    """The state after the last event of `stream` (`state` itself if the stream is empty).

    The same fold as `fold`, without working out each event's changes (`core.Fold`: no
    explanations, no copy of the fight per event). `on_void` hears of each event the rules
    void: its seq, its name (id or `#N`) and why.
    """
    return fold_pairs(map(astuple, stream), undo, state=state, strict=strict, on_void=on_void)


def fold_pairs(
    pairs: Iterable[tuple[int, Event]],
    undo: Undo,
    *,
    state: FightState[Any] | None = None,
    strict: bool = False,
    on_void: Callable[[int, str, str], None] | None = None,
) -> FightState[Any] | None:
    """`fold_state` over (seq, event) pairs, for a reader (a file) that need not wrap each
    event as `Stored` for it.

    Each event is what `Undo.as_played` says the rules replay in its place, asked here of the
    events an undo event names alone (the table `named_seqs`, `named_ids`), and of none in a
    log without undo events: each call and each generator layer between the reader and the
    rules (`Undo.played`, a `Stored` made for it) cost a replay a few thousand instructions an
    event, more than the bookkeeping it carried."""
    folding = Fold(state)
    # `Fold.add` by hand: the quick step of the event's type, else the generic way
    quick, generic = folding.quick, folding.generic
    named = not undo.empty
    seqs, ids, as_played = undo.named_seqs, undo.named_ids, undo.as_played
    for seq, event in pairs:
        if named and (seq in seqs or (event.id is not None and event.id in ids)):
            played = as_played(seq, event)[0]
            if played is None:
                folding.pass_over()  # taken back (fight_started, the first, cannot be)
                continue
            event = played
        try:
            step = quick.get(type(event))
            if step is None or not step(event):
                generic(event)
        except RuleError as exc:
            if strict or folding.seq == 0:
                raise
            folding.pass_over()
            if on_void is not None:
                on_void(folding.seq, event_ref(event, folding.seq), exc.message)
    return folding.state


def replay(
    events: Sequence[Event], *, at: int | None = None, strict: bool = False
) -> Iterator[tuple[FightState[Any], Changes]]:
    """Replay a log held in memory, as it stands: its structure checked, every undo applied."""
    log = events[:at] if at is not None else events
    undo = resolve((seq, None, event) for seq, event in enumerate(log, start=1))
    return fold((Stored(seq, e) for seq, e in enumerate(log, start=1)), undo, strict=strict)

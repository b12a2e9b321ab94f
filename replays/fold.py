"""Folding a log into state, as it stands now: every undo applied, one pass, memory held flat.

The undo events are resolved first (they are few, and a store or a file can hand them over
without the rest); then the events stream through the reducer once, each retracted event
skipped in its place and each amended one replayed as its replacement.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import msgspec

from woundlog.core import Changes, FightState, apply, apply_or_void, skip
from woundlog.core.reducer import Fold
from woundlog.events import Event, RuleError, event_ref
from woundlog.events.stores import Stored

from .undo import Fate, Undo, resolve

State = FightState[Any]


def fold(
    stream: Iterable[Stored],
    undo: Undo,
    *,
    state: State | None = None,
    strict: bool = False,
) -> Iterator[tuple[State, Changes]]:
    """Yield the state and the changes after each event of `stream`.

    `state` is where the stream takes up (a snapshot), or None from the first event. A rule
    error voids its event and the fold goes on, unless `strict`.
    """
    step = apply if strict else apply_or_void
    fate_of = _fates(undo)
    for stored in stream:
        event = stored.event
        fate = fate_of(stored)
        if fate is None:
            state, changes = step(state, event)
        elif fate.replacement is None:
            assert state is not None  # the first event, fight_started, cannot be undone
            state, changes = skip(state, event, fate.describe())
        else:
            state, changes = step(state, fate.replacement)
            changes = msgspec.structs.replace(changes, undone=fate.describe())
        yield state, changes


def _fates(undo: Undo) -> Callable[[Stored], Fate | None]:
    """`undo.fate` of a stored event, asked only of the few events an undo event names."""
    seqs, ids = _named(undo)

    def fate_of(stored: Stored) -> Fate | None:
        event = stored.event
        if stored.seq in seqs or (event.id is not None and event.id in ids):
            return undo.fate(stored.seq, event)
        return None

    return fate_of


def _named(undo: Undo) -> tuple[set[int], set[str]]:
    """Every event an undo event names: by position (`#N`, kept as N) or by id. Kept by the
    Undo as its events are added, so a refold does not go through them all again."""
    return undo.named_seqs, undo.named_ids


def fold_state(
    stream: Iterable[Stored],
    undo: Undo,
    *,
    state: State | None = None,
    strict: bool = False,
    on_void: Callable[[int, str, str], None] | None = None,
) -> State | None:
    """The state after the last event of `stream` (`state` itself if the stream is empty).

    The same fold as `fold`, without working out each event's changes (`core.Fold`: no
    explanations, no copy of the fight per event). `on_void` hears of each event the rules
    void: its seq, its name (id or `#N`) and why.
    """
    folding = Fold(state)
    seqs, ids = _named(undo)
    advance = folding.advance
    for stored in stream:
        event: Event | None = stored.event
        assert event is not None
        if stored.seq in seqs or event.id in ids:  # one of the few an undo event names
            fate = undo.fate(stored.seq, event)
            if fate is not None:
                event = fate.replacement
                if event is None:
                    folding.skip()  # retracted (fight_started, the first event, cannot be)
                    continue
        try:
            advance(event)
        except RuleError as exc:
            if strict or folding.seq == 0:
                raise
            folding.skip()
            if on_void is not None:
                on_void(folding.seq, event_ref(event, folding.seq), exc.message)
    return folding.state


def replay(
    events: Sequence[Event], *, at: int | None = None, strict: bool = False
) -> Iterator[tuple[State, Changes]]:
    """Replay a log held in memory, as it stands: its structure checked, every undo applied."""
    log = events[:at] if at is not None else events
    undo = resolve((seq, None, event) for seq, event in enumerate(log, start=1))
    return fold((Stored(seq, e) for seq, e in enumerate(log, start=1)), undo, strict=strict)

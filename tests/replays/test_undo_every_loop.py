"""Undo in one place (issue 36): every loop over a log agrees, event by event, on which events
are in effect and what each is replayed as, over random logs with retracts, retracts of
retracts (of retracts) and amends, named by position and by id:

- the fold with each event's changes (`fold.replayed`, which `Fight.steps` and the report read),
- the state-only fold (`fold.fold_pairs`), from stored events and from a file (`scan_undo`'s
  resolution of the few lines undo needs),
- the fight as it happened (`Timeline`: its undo resolution built event by event, `add` after
  `add`), `Fight.history` and the application's timeline (each event marked with what undid it),
- a log appended batch by batch (`BatchFold`: its resolution, and the state it folds),
- the report (its numbers' counts, and its chronicle's "took back" / "gave back"),
- the default undo (`Fight.newest_live`) and redo, as the timeline names them to a page.

What each event is replayed as is worked out here from DESIGN.md section 6, not by `Undo`."""

from __future__ import annotations

import importlib
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.core import FightState
from woundlog.core.reducer import Fold
from woundlog.events import (
    Amend,
    BatchRefused,
    Event,
    GameEvent,
    Hit,
    RefusedError,
    Retract,
    StructuralError,
    TurnEnded,
    TurnStarted,
    UsageError,
    event_ref,
    write_jsonl,
)
from woundlog.events.stores import Store, Stored
from woundlog.events.stores.sqlite import SQLiteStore
from woundlog.replays.application import Application
from woundlog.replays.fight import Fight
from woundlog.replays.files import replay_file_state
from woundlog.replays.fold import fold_state, replay, replayed
from woundlog.replays.timeline import Timeline
from woundlog.replays.undo import Undo, resolve, target_of

from ..strategies import FIGHTERS, mordheim_logs

fold_module = importlib.import_module("woundlog.replays.fold")  # the module, not its `fold`
batch_fold = importlib.import_module("woundlog.replays.batch_fold")

# --- what each event is replayed as, from DESIGN.md section 6 ----------------------------------


class Expected(msgspec.Struct, frozen=True):
    """Per position (index seq - 1): what the fold hands the rules there (the event, its
    replacement, None when taken back; an undo event that stands is handed on as itself, a
    marker that changes nothing), and the undo event that undid it (None: as written)."""

    played: list[Event | None]
    by: list[str | None]

    def label(self, index: int) -> str | None:
        """`Changes.undone` of the event at `index`."""
        by = self.by[index]
        if by is None:
            return None
        return f"{'retracted' if self.played[index] is None else 'amended'} by {by}"


def seqs_by_name(log: list[Event]) -> dict[str, int]:
    named: dict[str, int] = {}
    for seq, event in enumerate(log, start=1):
        named[f"#{seq}"] = seq
        if event.id is not None:
            named[event.id] = seq
    return named


def expected(log: list[Event]) -> Expected:
    """An undo event names an earlier event; a retract stands unless a retract that stands
    names it (retracting a retract restores its event), so whether each stands is settled from
    the newest back. An event a retract that stands names is taken back, whatever amends it;
    else the newest amend that stands replaces it, and the replacement keeps the slot's id."""
    seq_of = seqs_by_name(log)
    stands = [True] * (len(log) + 1)
    retracted_by: dict[int, int] = {}
    for seq in range(len(log), 0, -1):  # every retract naming `seq` comes after it
        event = log[seq - 1]
        if isinstance(event, Retract) and stands[seq]:
            target = seq_of[event.event]
            stands[target] = False
            retracted_by.setdefault(target, seq)  # any that stands will do: see `by_one_of`
    amended_by: dict[int, int] = {}
    for seq, event in enumerate(log, start=1):  # in order: the newest amend is written last
        if isinstance(event, Amend) and stands[seq]:
            amended_by[seq_of[event.event]] = seq
    played: list[Event | None] = []
    by: list[str | None] = []
    for seq, event in enumerate(log, start=1):
        if not stands[seq]:
            undoer = retracted_by[seq]
            played.append(None)
            by.append(event_ref(log[undoer - 1], undoer))
        elif seq in amended_by:
            undoer = amended_by[seq]
            amend = log[undoer - 1]
            assert isinstance(amend, Amend)
            replacement = amend.replacement
            if replacement.id is None and event.id is not None:
                replacement = msgspec.structs.replace(replacement, id=event.id)
            played.append(replacement)
            by.append(event_ref(amend, undoer))
        else:
            played.append(event)
            by.append(None)
    return Expected(played=played, by=by)


def by_one_of(log: list[Event], seq: int, label: str | None, want: Expected) -> None:
    """`label` says what `want` says of the event at `seq`: as written, or taken back or
    replaced by an undo event that stands and names it (several retracts may name one event:
    any of them took it back)."""
    index = seq - 1
    if want.by[index] is None:
        assert label is None, (seq, label)
        return
    assert label is not None, (seq, want.label(index))
    verb, _, undoer = label.partition(" by ")
    assert verb == ("retracted" if want.played[index] is None else "amended"), (seq, label)
    if verb == "amended":
        assert label == want.label(index), (seq, label)
        return
    seq_of = seqs_by_name(log)
    retract = log[seq_of[undoer] - 1]
    assert isinstance(retract, Retract) and seq_of[retract.event] == seq, (seq, label)
    assert expected(log).played[seq_of[undoer] - 1] is not None, (seq, label)  # it stands


# --- the logs --------------------------------------------------------------------------------


def replacement_for(event: Event, draw: st.DrawFn) -> GameEvent:
    if isinstance(event, TurnStarted | TurnEnded):
        return type(event)(side=draw(st.sampled_from(sorted(set(FIGHTERS.values())))))
    given = draw(st.lists(st.integers(1, 6), max_size=2))
    return Hit(
        target=draw(st.sampled_from(sorted(FIGHTERS))),
        damage=draw(st.integers(0, 3)),
        rolls={"injury": given} if given else {},
    )


@st.composite
def undo_logs(draw: st.DrawFn) -> list[Event]:
    """A generated Mordheim fight (retracts, amends and retracts of retracts among its blows
    and turns), then a few more undo events naming any event but the start, by position or
    by id: retracts of amends, of retracts of retracts, of the joins, amends of turns."""
    log = draw(mordheim_logs(named=draw(st.booleans())))
    for _ in range(draw(st.integers(0, 4))):
        undo_seqs = [s for s, e in enumerate(log, start=1) if isinstance(e, Retract | Amend)]
        if undo_seqs and draw(st.booleans()):  # an undo event: a chain grows
            seq = draw(st.sampled_from(undo_seqs))
        else:
            seq = draw(st.integers(2, len(log)))
        target = log[seq - 1]
        name = target.id if target.id is not None and draw(st.booleans()) else f"#{seq}"
        if isinstance(target, Hit | TurnStarted | TurnEnded) and draw(st.booleans()):
            log.append(Amend(event=name, replacement=replacement_for(target, draw)))
        else:
            log.append(Retract(event=name, reason="and again"))
    if draw(st.booleans()):  # an id on undo events too, for undo events naming them by it
        log = [e if e.id else msgspec.structs.replace(e, id=f"u{i}") for i, e in enumerate(log)]
    return log


def stored_of(log: list[Event]) -> list[Stored[Event]]:
    return [Stored(seq, event) for seq, event in enumerate(log, start=1)]


# --- the state-only fold, heard --------------------------------------------------------------


class Heard(Fold):
    """A `Fold` that notes what each position hands the rules (None: passed over unplayed)."""

    heard: ClassVar[dict[int, Event | None]] = {}

    def _take_up(self, state: FightState[Any]) -> None:
        super()._take_up(state)
        for kind, step in list(self.quick.items()):
            self.quick[kind] = self._noted(step)

    def _noted(self, step: Callable[[Any], bool]) -> Callable[[Any], bool]:
        def quick(event: Event) -> bool:
            self.heard[self.seq + 1] = event  # before the step, which may refuse it (void)
            return step(event)

        return quick

    def generic(self, event: Event) -> None:
        self.heard[self.seq + 1] = event
        super().generic(event)

    def pass_over(self) -> None:
        self.heard.setdefault(self.seq + 1, None)  # a void event was heard as itself first
        super().pass_over()


@contextmanager
def heard_fold() -> Iterator[dict[int, Event | None]]:
    heard: ClassVar[dict[int, Event | None]] = {}
    Heard.heard = heard
    real = fold_module.Fold
    fold_module.Fold = Heard  # type: ignore[misc]
    try:
        yield heard
    finally:
        fold_module.Fold = real  # type: ignore[misc]


# --- the properties --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(undo_logs())
def test_every_fold_replays_each_event_as_the_one_undo_rule_says(log: list[Event]) -> None:
    want = expected(log)
    undo = resolve((seq, None, event) for seq, event in enumerate(log, start=1))
    # the rule itself, and `Undo.played`, which the folds walk
    for stored, event, undone in undo.played(stored_of(log)):
        assert event == want.played[stored.seq - 1], stored
        by_one_of(log, stored.seq, undone, want)
    # the fold with changes
    steps = list(replayed(stored_of(log), undo))
    assert [event for event, _, _ in steps] == want.played
    for seq, (_, _, changes) in enumerate(steps, start=1):
        by_one_of(log, seq, changes.undone, want)
    final = steps[-1][1]
    # the state-only fold, from stored events and from a file
    with heard_fold() as heard:
        assert fold_state(stored_of(log), undo) == final
    assert [heard[seq] for seq in range(1, len(log) + 1)] == want.played
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "fight.jsonl")
        with open(path, "wb") as out:
            write_jsonl(out, log)
        with heard_fold() as heard:
            assert replay_file_state(path) == final
    assert [heard[seq] for seq in range(1, len(log) + 1)] == want.played


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(undo_logs())
def test_the_fight_as_it_happened_resolves_undo_event_by_event_as_the_whole_log_does(
    log: list[Event],
) -> None:
    """`Timeline` adds each undo event to its resolution as it comes (`Undo.add`): at every
    point that resolution replays each event as the resolution of the log so far does, and
    the state it reaches is the fold's."""
    stored = stored_of(log)
    targets = {name: target_of(s) for s in stored for name in (f"#{s.seq}", s.event.id) if name}

    def refold(undo: Undo, upto: int) -> FightState[Any]:
        state = fold_state(stored[:upto], undo)
        assert state is not None
        return state

    timeline = Timeline(None, Undo(), refold, targets.get)
    for at, step in enumerate(stored, start=1):
        timeline.push(step, strict=False)
        want = expected(log[:at])
        for seq, event in enumerate(log[:at], start=1):
            assert timeline.undo.as_played(seq, event)[0] == want.played[seq - 1], (at, seq)
    assert timeline.state == list(replay(log))[-1][0]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(undo_logs())
def test_history_timeline_report_and_the_default_undo_read_undo_as_the_folds_do(
    log: list[Event],
) -> None:
    want = expected(log)
    with tempfile.TemporaryDirectory() as tmp, Application.opened(str(Path(tmp, "f.db"))) as app:
        app.store.append("f", log)  # as written: the loops under test read it back
        fight = app.fight("f")
        history = list(fight.history())
        moments = app.timeline("f").moments
        for seq in range(1, len(log) + 1):
            by_one_of(log, seq, history[seq - 1].undone, want)
            assert moments[seq - 1].changes.undone == history[seq - 1].undone
        # the default undo: the newest event in effect that is neither the start nor a retract
        newest = next(
            (
                event_ref(log[seq - 1], seq)
                for seq in range(len(log), 1, -1)
                if not isinstance(log[seq - 1], Retract) and want.played[seq - 1] is not None
            ),
            None,
        )
        if newest is None:
            with pytest.raises(UsageError, match="nothing to undo"):
                fight.newest_live()
        else:
            assert fight.newest_live() == newest
        # the timeline names the same default undo for a page, by seq, and the default redo:
        # the newest event in effect, when it is a retract
        in_effect = [seq for seq in range(len(log), 0, -1) if want.played[seq - 1] is not None]
        undo_seq = next(
            (seq for seq in in_effect if seq > 1 and not isinstance(log[seq - 1], Retract)), None
        )
        redo_seq = (
            in_effect[0] if in_effect and isinstance(log[in_effect[0] - 1], Retract) else None
        )
        for window in (app.timeline("f"), app.timeline("f", len(log) + 1)):
            assert (window.undo, window.redo) == (undo_seq, redo_seq)
            if undo_seq is not None:
                assert event_ref(log[undo_seq - 1], undo_seq) == newest
        # the report: its numbers count what the folds undid, its chronicle tells each retract
        # by whether what it finally concerns is in effect right after it
        report = app.report("f")
        assert report.length.undone == sum(by is not None for by in want.by)
        assert report.length.undo_events == sum(isinstance(e, Retract | Amend) for e in log)
        told = {line.seq: line.text for chapter in report.chronicle for line in chapter.lines}
        seq_of = seqs_by_name(log)
        for seq, event in enumerate(log, start=1):
            if not isinstance(event, Retract):
                continue
            concerns = seq_of[event.event]
            while isinstance(log[concerns - 1], Retract):  # a retract of a retract ...
                concerns = seq_of[log[concerns - 1].event]  # type: ignore[union-attr]
            in_effect = expected(log[:seq]).played[concerns - 1] is not None
            verb = "gave back" if in_effect else "took back"
            assert told[seq].startswith(f"The GM {verb}"), (seq, told[seq])


# --- a log appended batch by batch -----------------------------------------------------------


def accepted(log: list[Event]) -> list[Event]:
    """The log less what a strict append refuses (an event the rules refuse, a retract of an
    event already taken back, an undo event naming what is left out): every event is given an
    id and every undo event names its target by it, so leaving events out moves no name; then
    every other undo event names its target by position again."""
    log = [e if e.id else msgspec.structs.replace(e, id=f"a{i}") for i, e in enumerate(log)]
    ids = [e.id for e in log]
    log = [
        msgspec.structs.replace(e, event=ids[int(e.event[1:]) - 1])
        if isinstance(e, Retract | Amend) and e.event.startswith("#")
        else e
        for e in log
    ]
    while True:
        store = SQLiteStore(":memory:")
        try:
            Fight(store, "f").append(log)
            break
        except BatchRefused as exc:
            refused = {error.index for error in exc.errors}
        except RefusedError as exc:
            refused = {exc.index}
        finally:
            store.close()
        log = [e for i, e in enumerate(log) if i not in refused]
    seq_of = seqs_by_name(log)
    undo_events = [i for i, e in enumerate(log) if isinstance(e, Retract | Amend)]
    for i in undo_events[::2]:
        undo = log[i]
        assert isinstance(undo, Retract | Amend)
        log[i] = msgspec.structs.replace(undo, event=f"#{seq_of[undo.event]}")
    return log


@contextmanager
def kept_every(every: int) -> Iterator[None]:
    real = batch_fold.KEEP_EVERY
    batch_fold.KEEP_EVERY = every
    try:
        yield
    finally:
        batch_fold.KEEP_EVERY = real


class Kept:
    """A fold cache (`fight.FoldCache`) that keeps what each append folded."""

    def __init__(self) -> None:
        self.states: dict[int, FightState[Any]] = {}

    def get(self, store: Store, fight: str, version: int) -> FightState[Any] | None:
        return None  # every append folds its batch onto the fight as read

    def put(self, store: Store, fight: str, version: int, state: FightState[Any]) -> None:
        self.states[version] = state


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(undo_logs(), st.data())
def test_a_log_appended_in_batches_resolves_and_folds_undo_as_its_replay_does(
    generated: list[Event], data: st.DataObject
) -> None:
    """`BatchFold` carries a batch's undo resolution (resolved in place) and its kept states
    (forgotten as far back as an undo event reaches) from batch to batch: after each, it
    replays every event as the log so far says, and the state it folded is the replay's."""
    log = accepted(generated)
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(log) - 1), max_size=5))))
    kept = Kept()
    # states kept a few events apart, not 64: an undo event of a short log then reaches past
    # some of them, and must forget exactly those
    every = data.draw(st.integers(2, 8))
    with (
        tempfile.TemporaryDirectory() as tmp,
        Application.opened(str(Path(tmp, "b.db"))) as app,
        kept_every(every),
    ):
        fight = Fight(app.store, "f", kept, carry=True)
        for start, end in zip([0, *cuts], [*cuts, len(log)], strict=True):
            fight.append(log[start:end])
            carried = fight._carried  # the batch's fold, carried on to the next batch
            assert carried is not None
            want = expected(log[:end])
            for seq, event in enumerate(log[:end], start=1):
                assert carried.undo.as_played(seq, event)[0] == want.played[seq - 1], (end, seq)
            assert kept.states[end] == list(replay(log[:end]))[-1][0], end
        newest = next(
            (
                log[seq - 1].id
                for seq in range(len(log), 1, -1)
                if not isinstance(log[seq - 1], Retract) and want.played[seq - 1] is not None
            ),
            None,
        )
        if newest is not None:
            assert fight.newest_live() == newest


# --- a campaign's undo is the same rule ------------------------------------------------------


def test_a_campaign_undoes_by_the_fights_rule_a_retracted_retract_restoring_its_event(
    tmp_path: Path,
) -> None:
    """A campaign's log takes `retract` alone, resolved and applied by the same `Undo`: the
    default undo takes back the newest event in effect that is neither the start nor a
    retract, so after a retract is itself taken back, the event it had taken back is again
    the one an undo takes; and the checks are the fight's, in the campaign's words."""
    with Application.opened(str(tmp_path / "campaign.db")) as app:
        app.campaign_new("west", "dnd5e", name="Westmarch")  # #1
        app.campaign_join("west", "mira", name="Mira", stats={"hp": 20})  # #2
        app.campaign_rest("west", "long")  # #3
        assert app.campaign_undo("west").retracted == "#3"  # #4
        assert app.campaign_undo("west").retracted == "#2"  # #5: #3 is out, #4 a retract
        app.campaign_undo("west", "#4")  # #6: the rest is back
        assert [e.undone for e in app.campaign_history("west").entries] == [
            None,
            "retracted by #5",
            None,
            "retracted by #6",
            None,
            None,
        ]
        assert app.campaign_undo("west").retracted == "#3"  # #7
        with pytest.raises(
            StructuralError, match="`campaign_started` cannot be undone; start a new campaign"
        ):
            app.campaign_undo("west", "#1")
        with pytest.raises(StructuralError, match="`#9` names no earlier event of this campaign"):
            app.campaign_undo("west", "#9")

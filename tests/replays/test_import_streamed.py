"""`woundlog import FILE` streams (issue 28): the log is read, checked and written a batch at a
time inside one transaction, so what it holds does not grow with the log (replays/streamed.py).

The bound is proved by counting, not by timing or RSS: how far reading gets ahead of writing,
how many events a batch's fold holds, how many states it keeps, whatever the log's length. And
the guarantees of one batch stay: all of it or none, every refusal named at its place in the
whole log, a retry adds nothing, the fold does no more work than one batch's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from tests.replays.test_import_linear import fight_log, run
from woundlog.core import reducer
from woundlog.events import (
    BatchRefused,
    ConflictError,
    Event,
    RefusedError,
    RuleError,
    StructuralError,
    decode_json,
)
from woundlog.events.stores import SQLiteStore, Store, open_store
from woundlog.replays import Fight, batch_fold, streamed
from woundlog.replays.application import Application
from woundlog.replays.fold import replay

SIZE = 50
"""The batch size these tests stream with: a 1,200-event log is 24 batches."""


def events_of(log: list[dict[str, Any]]) -> list[Event]:
    return [decode_json(json.dumps(event).encode()) for event in log]


class Counted:
    """The items of a log as an import pulls them, and the most it had pulled and not yet
    written at any append of the store, and the most events a batch's fold held."""

    def __init__(self, items: list[Any], store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.items = items
        self.pulled = 0
        self.ahead = 0  # the most pulled but not yet written, at any append
        self.held = 0  # the most events a BatchFold held
        self.appends: list[int] = []
        real_append = store.append

        def append(fight: str, events: Any, expected_version: int | None = None) -> int:
            self.appends.append(len(events))
            self.ahead = max(self.ahead, self.pulled - store.version(fight))
            return real_append(fight, events, expected_version)

        monkeypatch.setattr(store, "append", append)
        real_add = batch_fold.BatchFold.add

        def add(fold: batch_fold.BatchFold, stored: Any, state: Any) -> None:
            real_add(fold, stored, state)
            self.held = max(self.held, len(fold.events))

        monkeypatch.setattr(batch_fold.BatchFold, "add", add)

    def __iter__(self) -> Iterator[Any]:
        for item in self.items:
            self.pulled += 1
            yield item


@pytest.mark.parametrize("length", [600, 1200])
def test_an_import_holds_one_batch_of_its_log_however_long_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, length: int
) -> None:
    """Reading is at most one batch ahead of the store, every append is at most one batch, and
    a batch's fold holds at most one batch of events: the same bound at 600 and at 1,200."""
    store = SQLiteStore(tmp_path / "fights.db")
    counted = Counted(events_of(fight_log(length)), store, monkeypatch)
    appended = streamed.append_streamed(store, "long", counted, size=SIZE)
    assert appended.version == length
    assert counted.pulled == length
    assert max(counted.appends) == SIZE and len(counted.appends) == length // SIZE
    assert counted.ahead <= SIZE, counted.ahead  # pulled: the batch being written
    assert counted.held == SIZE, counted.held  # the events of this batch only


def test_the_states_kept_along_a_streamed_import_stay_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The states kept are carried from batch to batch, and their bound holds across them:
    at most RECENT + OLDER (here 2 + 3), however many batches."""
    monkeypatch.setattr(batch_fold, "RECENT", 2)
    monkeypatch.setattr(batch_fold, "OLDER", 3)
    most = [0]
    real_keep = batch_fold.BatchFold.keep

    def keep(fold: batch_fold.BatchFold, state: Any) -> None:
        real_keep(fold, state)
        most[0] = max(most[0], len(fold.kept_seqs))

    monkeypatch.setattr(batch_fold.BatchFold, "keep", keep)
    events = events_of(fight_log(1200))
    store = SQLiteStore(tmp_path / "fights.db")
    streamed.append_streamed(store, "long", events, size=SIZE)
    assert most[0] == 5
    for at in (130, 519, 520, 521, 1000, 1199, 1200):
        assert Fight(store, "long").state(at) == list(replay(events, at=at))[-1][0], at


def test_batches_fold_no_more_than_one_batch_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An undo event naming an event of an earlier batch (the log's amends reach 100 events
    back, two batches) refolds from a state carried over, as in one batch, not from the start
    of the fight: the reducer steps as many events in 24 batches as in one."""
    steps = [0]
    real_add = reducer.Fold.add

    def add(fold: reducer.Fold, event: Event) -> None:
        steps[0] += 1
        real_add(fold, event)

    monkeypatch.setattr(reducer.Fold, "add", add)
    events = events_of(fight_log(1200))
    counts = {}
    for size in (len(events), SIZE):
        steps[0] = 0
        streamed.append_streamed(SQLiteStore(tmp_path / f"{size}.db"), "long", events, size=size)
        counts[size] = steps[0]
    assert counts[SIZE] <= counts[len(events)] * 1.1, counts


def sqlite_steps_per_batch(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, log: list[Event]
) -> list[int]:
    """The SQLite virtual machine's steps (a progress handler called every 100) that each batch
    of a streamed import of `log` took, from the append before it to its own: its id lookups,
    the events its refolds read back, its writes. A statement that walks the fight's rows (not
    a search of an index) takes steps in proportion to the rows before it."""
    steps = [0]

    def step() -> int:
        steps[0] += 1
        return 0  # go on

    store._db.set_progress_handler(step, 100)
    marks: list[int] = []
    real_append = store.append

    def append(fight: str, events: Any, expected_version: int | None = None) -> int:
        marks.append(steps[0])
        return real_append(fight, events, expected_version)

    monkeypatch.setattr(store, "append", append)
    streamed.append_streamed(store, "long", log, size=SIZE)
    return [later - earlier for earlier, later in pairwise(marks)]


def test_a_batch_reads_no_more_of_the_store_however_many_batches_are_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch's statements search the store's indexes, never walk the fight: the SQLite steps
    of the last ten of 48 batches are about those of ten early ones. Every batch of this log
    has ids to look up (its hits') and undo events naming events of earlier batches; the ids
    looked up as `id IN (...)` walked the whole fight (issue 28): the last ten batches took 4.4
    times the steps of the early ten, and a 1M-event import 126 s against 7.1 s for 100k."""
    store = SQLiteStore(tmp_path / "fights.db")
    per_batch = sqlite_steps_per_batch(store, monkeypatch, events_of(fight_log(48 * SIZE)))
    assert len(per_batch) == 47
    early, late = sum(per_batch[2:12]), sum(per_batch[-10:])
    assert late < 1.5 * early, per_batch


def errors_of(call: Callable[[], object]) -> list[tuple[Any, ...]]:
    with pytest.raises(RefusedError) as refused:
        call()
    each = refused.value.errors if isinstance(refused.value, BatchRefused) else [refused.value]
    return [(type(e).__name__, e.index, e.event, e.field, e.message) for e in each]


def test_a_refusal_in_a_late_batch_commits_nothing_and_is_named_as_in_one_batch(
    tmp_path: Path,
) -> None:
    """A rule error in the 15th batch, an unreadable item in the 20th, another rule error in
    the 23rd: after 14 batches appended in the transaction, nothing is committed, and each
    refusal is named by its place in the whole log, as one batch names them."""
    items: list[Event | RefusedError] = list(events_of(fight_log(1200)))
    items[720] = decode_json(b'{"type":"hit","target":"nobody","damage":1}')
    items[990] = StructuralError("not JSON", line=991)
    items[1130] = decode_json(b'{"type":"heal","target":"ghost","amount":1,"means":"bandage"}')
    store = SQLiteStore(tmp_path / "fights.db")
    streamed_errors = errors_of(lambda: streamed.append_streamed(store, "f", items, size=SIZE))
    assert store.version("f") == 0 and store.fights() == []
    assert store.snapshot("f") is None  # the snapshots kept on the way went with the events
    one = SQLiteStore(tmp_path / "one.db")
    assert streamed_errors == errors_of(
        lambda: streamed.append_streamed(one, "f", items, size=len(items))
    )
    indexes = [index for _, index, _, _, _ in streamed_errors]
    assert indexes[:2] == [720, 990] and 1130 in indexes, streamed_errors
    assert streamed_errors[0][0] == RuleError.__name__
    assert streamed_errors[0][2] == "#721"


def test_the_cli_names_the_lines_of_a_refused_streamed_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines are found by reading the file again, blank lines counted."""
    monkeypatch.setattr(streamed, "BATCH", SIZE)
    log = fight_log(300)
    log[260] = {"type": "hit", "target": "nobody", "damage": 1}
    path = tmp_path / "bad.jsonl"
    lines = [json.dumps(event) for event in log]
    path.write_text("\n".join([*lines[:100], "", *lines[100:]]) + "\n")  # a blank line 101
    result = run("import", path, "--db", tmp_path / "fights.db")
    assert result.exit_code == 3, result.output
    assert "line 262" in result.output and "nobody" in result.output, result.output
    assert "imported" not in result.output


def test_a_streamed_import_again_adds_nothing_and_another_log_is_a_conflict(
    tmp_path: Path,
) -> None:
    """The same log again (every event with an id, or fight_started alone before them): every
    batch is already there, and nothing is added; a log with one more event is a conflict."""
    log = fight_log(300)
    for at, event in enumerate(log):
        event.setdefault("id", f"e{at}")
    events = events_of(log)
    store = SQLiteStore(tmp_path / "fights.db")
    streamed.append_streamed(store, "f", events, size=SIZE)
    again = streamed.append_streamed(store, "f", events, size=SIZE)
    assert again.version == 300 and len(again.skipped) == 300
    longer = [*events, decode_json(b'{"type":"hit","id":"more","target":"grim","damage":0}')]
    with pytest.raises(ConflictError):
        streamed.append_streamed(store, "f", longer, size=SIZE)
    assert store.version("f") == 300


def test_an_application_over_a_json_lines_store_imports_the_log_as_one_batch(
    tmp_path: Path,
) -> None:
    """The JSON Lines store has no transaction to stream into: the log is one batch there."""
    store = open_store(f"jsonl:{tmp_path / 'logs'}")
    assert not streamed.streams(store) and streamed.streams(SQLiteStore(":memory:"))
    events = events_of(fight_log(300))
    assert Application.over(store).import_log("f", iter(events)).version == 300
    assert Fight(store, "f").state() == list(replay(events))[-1][0]


def test_a_snapshot_that_fails_inside_a_postgres_import_does_not_fail_it(
    postgres_url: str,
) -> None:
    """Snapshots are kept on the way, inside the import's transaction: one that fails is undone
    alone (a savepoint), and the import commits, as a failed snapshot after a commit does."""
    store = open_store(postgres_url)
    try:
        store.connection.execute(  # type: ignore[attr-defined]
            "CREATE FUNCTION no_snapshot() RETURNS trigger AS"
            " $$ BEGIN RAISE EXCEPTION 'the disk is full'; END $$ LANGUAGE plpgsql;"
            " CREATE TRIGGER no_snapshot BEFORE INSERT ON snapshots"
            " FOR EACH ROW EXECUTE FUNCTION no_snapshot()"
        )
        events = events_of(fight_log(1200))
        appended = streamed.append_streamed(store, "f", events, size=SIZE)
        assert appended.version == store.version("f") == 1200
        assert Fight(store, "f").state() == list(replay(events))[-1][0]
    finally:
        store.close()


def test_a_streamed_postgres_import_writes_its_fights_row_once(postgres_url: str) -> None:
    """Each batch's version is kept by the store till the import's transaction commits, then
    written once: updated every batch, the row had a version for each batch that no one could
    prune before the commit, and every event inserted checked its foreign key by walking them
    all (issue 28: the backend's CPU 2.1 s at 100k events, 18 s at 300k). Versions read in the
    transaction are the batches' own, and a refusal leaves none behind."""
    store = open_store(postgres_url)
    try:
        connection = store.connection  # type: ignore[attr-defined]
        real = connection.execute
        updates: list[str] = []
        seen: list[int] = []

        def execute(sql: str, *args: Any, **kwargs: Any) -> Any:
            if sql.startswith("UPDATE fights SET version"):
                updates.append(sql)
            return real(sql, *args, **kwargs)

        connection.execute = execute
        real_append = store.append

        def append(fight: str, events: Any, expected_version: int | None = None) -> int:
            seen.append(store.version(fight))
            return real_append(fight, events, expected_version)

        store.append = append  # type: ignore[method-assign]
        events = events_of(fight_log(600))
        streamed.append_streamed(store, "f", events, size=SIZE)
        assert len(updates) == 1, updates
        assert seen == list(range(0, 600, SIZE)), seen
        assert store.version("f") == 600
        assert Fight(store, "f").state() == list(replay(events))[-1][0]
        refused: list[Event | RefusedError] = list(events_of(fight_log(600)))
        refused[580] = decode_json(b'{"type":"hit","target":"nobody","damage":1}')
        with pytest.raises(RefusedError):
            streamed.append_streamed(store, "g", refused, size=SIZE)
        assert store.version("g") == 0 and store.version("f") == 600
    finally:
        store.close()

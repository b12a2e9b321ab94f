"""Two processes appending to one SQLite fight through Fight: each batch is validated against
what the other wrote (a retry on conflict), and nothing is lost or doubled."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from woundlog.events import CharacterJoined, FightStarted, Hit, TurnStarted
from woundlog.events.stores import SQLiteStore
from woundlog.replays import Fight

PER_WRITER = 60


def _writer(db: str, name: str, start: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    store = SQLiteStore(db)
    fight = Fight.open(store, "brawl")
    start.wait()
    for i in range(PER_WRITER):
        if i % 10 == 9:
            fight.append([TurnStarted(id=f"{name}-t{i}", side="reavers")])
        else:
            fight.append([Hit(id=f"{name}-{i}", target="grim", damage=0)])
    store.close()


def test_two_processes_appending_through_fight_lose_and_double_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "fights.db")
    store = SQLiteStore(db)
    fight = Fight.create(store, "brawl", FightStarted(ruleset="mordheim"))
    fight.append([CharacterJoined(character="grim", side="reavers", stats={"wounds": 3})])
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    writers = [ctx.Process(target=_writer, args=(db, n, start)) for n in ("a", "b")]
    for w in writers:
        w.start()
    start.set()
    for w in writers:
        w.join(timeout=120)
        assert w.exitcode == 0
    events = list(fight.events())
    assert [s.seq for s in events] == list(range(1, 2 * PER_WRITER + 3))
    ids = [s.event.id for s in events if s.event.id is not None]
    assert len(ids) == len(set(ids)) == 2 * PER_WRITER
    assert fight.state().seq == len(events)

"""Two processes appending to one fight through Fight: each batch is validated against what the
other wrote (a retry on conflict), and nothing is lost or doubled. With blows that change
nothing, and with hits that race to take the same fighters out of action, on every store.
(test_lost_race.py forces one race deterministically; this one lets many happen.)"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from woundlog.events import CharacterJoined, FightStarted, Hit, RuleError, TurnStarted
from woundlog.events.stores import SQLiteStore, open_store
from woundlog.replays import Fight, replay

from .race import store_url

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


FIGHTERS = 20


def _knocker(url: str, name: str, start: multiprocessing.synchronize.Event, out: Path) -> None:  # type: ignore[name-defined]
    """Try to take every fighter out of action; write down which hits the rules let stand."""
    with open_store(url) as store:
        fight = Fight.open(store, "brawl")
        start.wait()
        landed = []
        for i in range(FIGHTERS):
            hit = Hit(id=f"{name}-{i}", target=f"f{i}", damage=1, rolls={"injury": [6]})
            try:
                fight.append([hit])
            except RuleError as exc:
                assert "out of action" in exc.message, exc
                continue
            landed.append(hit.id)
    out.write_text("\n".join(landed))


@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_two_processes_racing_to_take_the_same_fighters_out_write_each_knockout_once(
    kind: str, tmp_path: Path
) -> None:
    url = store_url(kind, tmp_path)
    with open_store(url) as store:
        fight = Fight.create(store, "brawl", FightStarted(ruleset="mordheim"))
        fight.append(
            [CharacterJoined(character=f"f{i}", side="ab"[i % 2]) for i in range(FIGHTERS)]
        )
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    outs = {name: tmp_path / f"{name}.out" for name in ("a", "b")}
    writers = [ctx.Process(target=_knocker, args=(url, n, start, o)) for n, o in outs.items()]
    for w in writers:
        w.start()
    start.set()
    for w in writers:
        w.join(timeout=120)
        assert w.exitcode == 0
    landed = [i for out in outs.values() for i in out.read_text().split()]
    with open_store(url) as store:
        log = [s.event for s in store.read("brawl")]
    hits = [e for e in log if isinstance(e, Hit)]
    assert sorted(h.id for h in hits if h.id) == sorted(landed)
    assert sorted(h.target for h in hits) == sorted(f"f{i}" for i in range(FIGHTERS))
    *_, (state, _) = replay(log, strict=True)  # every written hit was valid where it stands
    assert {c.state for c in state.characters.values()} == {"out_of_action"}

"""`state --at N` on a store starts from the newest snapshot at or before N (issue 16): it folds
only the events after that snapshot, and gives what the full fold gives. Counted on a real
SQLite store that counts the events it hands out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

import woundlog.core
from woundlog.events import CharacterJoined, FightStarted, Hit, TurnStarted
from woundlog.events.stores import SQLiteStore, Stored
from woundlog.replays import Fight
from woundlog.replays import snapshots as snapshot_module
from woundlog.replays.fold import replay


class CountingStore(SQLiteStore):
    """The SQLite store, counting the events its reads hand out."""

    handed_out = 0

    def read(self, fight: str, from_seq: int = 1, to_seq: int | None = None) -> Iterator[Stored]:
        for stored in super().read(fight, from_seq, to_seq):
            self.handed_out += 1
            yield stored


def written(path: Path) -> CountingStore:
    """A fight of 3 + 60 events, appended one at a time (a snapshot at every tenth seq);
    nobody goes down, so every hit applies."""
    store = CountingStore(path)
    fight = Fight.create(store, "pit", FightStarted(ruleset="mordheim", seed=5))
    fight.append([CharacterJoined(character="grim", side="a", stats={"wounds": 100})])
    fight.append([CharacterJoined(character="snik", side="b", stats={"wounds": 100})])
    for i in range(30):
        fight.append([Hit(target="grim" if i % 2 else "snik", damage=1 + i % 2)])
        fight.append([TurnStarted(side="ab"[i % 2], round=i)])
    return store


@pytest.fixture
def snapshot_every_ten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot_module, "SNAPSHOT_EVERY", 10)


@pytest.mark.usefixtures("snapshot_every_ten")
def test_state_at_n_folds_only_the_events_after_the_nearest_snapshot(tmp_path: Path) -> None:
    store = written(tmp_path / "pit.db")
    log = [stored.event for stored in store.read("pit")]
    for at, snapshot in [(37, 30), (40, 40), (9, None), (63, 60)]:
        assert (store.snapshot("pit", at) or (None,))[0] == snapshot
        store.handed_out = 0
        state = Fight(store, "pit").state(at)
        assert store.handed_out == at - (snapshot or 0), at
        expected = list(replay(log, at=at))[-1][0]
        assert msgspec.json.encode(state) == msgspec.json.encode(expected), at


@pytest.mark.usefixtures("snapshot_every_ten")
def test_a_snapshot_folded_by_other_rules_is_ignored(tmp_path: Path) -> None:
    store = written(tmp_path / "pit.db")
    log = [stored.event for stored in store.read("pit")]
    seq, data = store.snapshot("pit", 37) or (0, b"")
    assert seq == 30
    other = msgspec.msgpack.decode(data)
    other[0] = b"other rules, 16b"  # the fingerprint of the rules that folded it
    store.save_snapshot("pit", 30, msgspec.msgpack.encode(other))
    store.handed_out = 0
    state = Fight(store, "pit").state(37)
    assert store.handed_out == 37  # from the start: the snapshot at 30 is not used
    assert msgspec.json.encode(state) == msgspec.json.encode(list(replay(log, at=37))[-1][0])


@pytest.mark.usefixtures("snapshot_every_ten")
def test_the_cli_state_at_n_on_a_store_agrees_with_the_full_fold(tmp_path: Path) -> None:
    store = written(tmp_path / "pit.db")
    log = [stored.event for stored in store.read("pit")]
    store.close()
    cli = Path(sys.executable).with_name("woundlog")
    env = {**os.environ, "WOUNDLOG_DB": str(tmp_path / "pit.db")}
    done = subprocess.run(
        [str(cli), "state", "pit", "--at", "37", "--json"],
        capture_output=True,
        env=env,
        timeout=60,
        check=True,
    )
    expected = json.loads(msgspec.json.encode(list(replay(log, at=37))[-1][0]))
    assert json.loads(done.stdout)["characters"] == expected["characters"]


def test_the_rules_fingerprint_covers_every_module_of_the_rules_in_subfolders_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Warhammer Quest is a package under core/rulesets/: a change to its tables must make
    every snapshot it folded unusable, as a change to a module of core/ itself does."""
    core = Path(woundlog.core.__file__).parent
    copy = tmp_path / "core"
    shutil.copytree(core, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(woundlog.core, "__file__", str(copy / "__init__.py"))
    fingerprint = snapshot_module.rules_fingerprint.__wrapped__  # not the cached one
    before = fingerprint()
    tables = copy / "rulesets" / "warhammer_quest" / "tables.py"
    tables.write_text(tables.read_text() + "\n# a rule changed\n")
    assert fingerprint() != before
    tables.write_text(tables.read_text().removesuffix("\n# a rule changed\n"))
    assert fingerprint() == before
    (copy / "reducer.py").write_text((copy / "reducer.py").read_text() + "\n# a rule changed\n")
    assert fingerprint() != before

"""The store contract (DESIGN.md section 7), one suite run against every store, on real files.

The `store` fixture runs each contract test once per kind of store; the tests after the contract
prove what only one kind promises (SQLite's snapshots, the JSON Lines file format) and how a store
is chosen by URL.
"""

from __future__ import annotations

import inspect
import itertools
import os
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import platformdirs
import pytest

from woundlog.events import (
    Amend,
    ConflictError,
    Event,
    FightStarted,
    Hit,
    Retract,
    StructuralError,
    UsageError,
    encode_json,
)
from woundlog.events.campaign import CampaignStarted, MemberJoined
from woundlog.events.fight_ids import BadFightId, campaign_stream
from woundlog.events.stores import (
    JsonlStore,
    SQLiteStore,
    Store,
    Stored,
    companions,
    default_db_path,
    open_store,
)
from woundlog.events.stores import sqlite as sqlite_module
from woundlog.events.stores.postgres import PostgresStore
from woundlog.events.stores.side import KeptAnswer, KeptContribution, KeptToken, StreamTicket

FIGHT = "pit"


def url_for(kind: str, directory: Path) -> str:
    return str(directory / "log.db") if kind == "sqlite" else f"jsonl:{directory / 'log'}"


@pytest.fixture(params=["sqlite", "jsonl", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":  # a fresh database on the test server (tests/conftest.py)
        return str(request.getfixturevalue("postgres_url"))
    return url_for(request.param, tmp_path)


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    opened = open_store(url)
    try:
        yield opened
    finally:
        opened.close()


def hit(event_id: str | None, damage: int = 1, target: str = "grim") -> Hit:
    return Hit(id=event_id, target=target, damage=damage)


def opening() -> list[Event]:
    return [FightStarted(ruleset="mordheim"), hit("h1"), hit("h2"), hit("h3")]


def events_of(store: Store, from_seq: int = 1, to_seq: int | None = None) -> list[Event]:
    return [stored.event for stored in store.read(FIGHT, from_seq, to_seq)]


def location_of(store: Store) -> Path:
    assert isinstance(store, SQLiteStore | JsonlStore)
    return store.path if isinstance(store, SQLiteStore) else store.directory


def seqs_of(stored: list[Stored]) -> list[int]:
    return [s.seq for s in stored]


# -- the contract: every store --------------------------------------------------------------------


CONTRACT = (
    "append", "read", "fights", "version", "lookup", "undo_events", "delete_fight",
    "rename_fight", "save_snapshot", "snapshot", "close", "transaction", "import_lock",
)  # fmt: skip
"""DESIGN.md section 7's contract, typed from it (and the snapshots beside it)."""


def test_every_store_takes_the_contracts_calls_with_the_contracts_parameters(
    store: Store,
) -> None:
    """Not only the names (what `isinstance` with a Protocol checks): each method takes the
    parameters of the contract, by the same names, in the same order, with the same defaults,
    so a caller's `read(fight, from_seq=5)` means the same on every store."""
    assert isinstance(store, Store)
    for name in CONTRACT:
        declared = inspect.signature(getattr(Store, name))
        given = inspect.signature(getattr(type(store), name))
        shape = [(p.name, p.kind, p.default) for p in declared.parameters.values()]
        assert [(p.name, p.kind, p.default) for p in given.parameters.values()] == shape, name


def test_an_empty_first_batch_leaves_no_fight_behind(store: Store) -> None:
    assert store.append("ghost", []) == 0
    assert store.version("ghost") == 0
    assert "ghost" not in store.fights()
    assert store.append(FIGHT, [FightStarted(ruleset="mordheim")]) == 1
    assert store.fights() == [FIGHT]


def test_append_returns_the_version_after_each_batch(store: Store) -> None:
    assert store.append(FIGHT, [FightStarted(ruleset="mordheim")]) == 1
    assert store.append(FIGHT, [hit("h1"), hit("h2")]) == 3
    assert store.append(FIGHT, [hit("h3")]) == 4


def test_read_gives_every_event_back_equal_and_numbered_from_one(store: Store) -> None:
    written = opening()
    store.append(FIGHT, written)
    stored = list(store.read(FIGHT))
    assert seqs_of(stored) == [1, 2, 3, 4]
    assert [s.event for s in stored] == written


def test_read_range_includes_both_ends(store: Store) -> None:
    written = opening()
    store.append(FIGHT, written)
    assert events_of(store, from_seq=2, to_seq=3) == written[1:3]
    assert events_of(store, from_seq=3) == written[2:]
    assert events_of(store, to_seq=1) == written[:1]
    assert events_of(store, from_seq=5) == []


def test_unknown_fight_reads_empty_at_version_zero(store: Store) -> None:
    assert list(store.read("nobody")) == []
    assert store.version("nobody") == 0
    assert store.fights() == []


def test_events_without_id_are_always_appended(store: Store) -> None:
    same = Hit(target="grim", damage=1)
    assert store.append(FIGHT, [same, same]) == 2
    assert store.append(FIGHT, [same]) == 3


def test_reappending_an_event_with_its_id_and_content_adds_nothing(store: Store) -> None:
    store.append(FIGHT, opening())
    assert store.append(FIGHT, [hit("h2")]) == 4
    assert events_of(store) == opening()


def test_key_order_inside_an_event_does_not_make_it_other_content(store: Store) -> None:
    first = Hit(id="h1", target="grim", damage=1, rolls={"injury": [3], "armour": [5]})
    again = Hit(id="h1", target="grim", damage=1, rolls={"armour": [5], "injury": [3]})
    store.append(FIGHT, [first])
    assert store.append(FIGHT, [again]) == 1


def test_reusing_an_id_with_other_content_is_a_conflict_that_writes_nothing(
    store: Store,
) -> None:
    store.append(FIGHT, opening())
    with pytest.raises(ConflictError) as caught:
        store.append(FIGHT, [hit("h9"), hit("h2", damage=5)])
    assert caught.value.current_version == 4
    assert caught.value.event == "h2"
    assert caught.value.index == 1
    assert store.version(FIGHT) == 4
    assert events_of(store) == opening()


def test_stale_expected_version_is_a_conflict_that_writes_nothing(store: Store) -> None:
    store.append(FIGHT, opening())
    with pytest.raises(ConflictError) as caught:
        store.append(FIGHT, [hit("h4")], expected_version=3)
    assert caught.value.current_version == 4
    assert store.version(FIGHT) == 4


def test_matching_expected_version_appends(store: Store) -> None:
    assert store.append(FIGHT, opening(), expected_version=0) == 4
    assert store.append(FIGHT, [hit("h4")], expected_version=4) == 5


def test_retry_of_a_written_batch_with_its_stale_expected_version_returns_the_version(
    store: Store,
) -> None:
    store.append(FIGHT, [FightStarted(ruleset="mordheim")])
    batch: list[Event] = [hit("h1"), hit("h2")]
    assert store.append(FIGHT, batch, expected_version=1) == 3
    store.append(FIGHT, [hit("h3")])
    assert store.append(FIGHT, batch, expected_version=1) == 4
    assert store.version(FIGHT) == 4


def test_empty_batch_with_stale_expected_version_is_a_conflict(store: Store) -> None:
    store.append(FIGHT, opening())
    assert store.append(FIGHT, [], expected_version=4) == 4
    with pytest.raises(ConflictError):
        store.append(FIGHT, [], expected_version=2)


def test_an_id_twice_in_one_batch_with_the_same_content_is_written_once(store: Store) -> None:
    assert store.append(FIGHT, [hit("h1"), hit("h2"), hit("h1")]) == 2
    assert events_of(store) == [hit("h1"), hit("h2")]


def test_an_id_twice_in_one_batch_with_other_content_is_a_conflict(store: Store) -> None:
    with pytest.raises(ConflictError) as caught:
        store.append(FIGHT, [hit("h1"), hit("h1", damage=2)])
    assert (caught.value.event, caught.value.index) == ("h1", 1)
    assert store.version(FIGHT) == 0
    assert store.fights() == []


def test_a_batch_whose_third_event_conflicts_writes_nothing(store: Store) -> None:
    store.append(FIGHT, [FightStarted(ruleset="mordheim"), hit("h1")])
    with pytest.raises(ConflictError) as caught:
        store.append(FIGHT, [hit("h2"), hit("h3"), hit("h1", damage=9), hit("h4")])
    assert caught.value.index == 2
    assert store.version(FIGHT) == 2
    assert store.lookup(FIGHT, ["h2", "h3"]) == {}


@pytest.mark.parametrize("bad", [hit("h9", damage=-1), hit("#2")], ids=["negative", "hash-id"])
def test_an_event_that_would_not_read_back_is_refused_with_its_batch(
    store: Store, bad: Hit
) -> None:
    with pytest.raises(StructuralError) as caught:
        store.append(FIGHT, [FightStarted(ruleset="mordheim"), bad])
    assert caught.value.index == 1
    assert store.version(FIGHT) == 0


def test_lookup_finds_events_by_id_and_by_position(store: Store) -> None:
    written = opening()
    store.append(FIGHT, written)
    found = store.lookup(FIGHT, ["h2", "#1", "#4"])
    assert found == {
        "h2": Stored(3, written[2]),
        "#1": Stored(1, written[0]),
        "#4": Stored(4, written[3]),
    }


def test_lookup_leaves_out_names_of_no_event(store: Store) -> None:
    store.append(FIGHT, opening())
    assert store.lookup(FIGHT, ["nope", "#5", "#0"]) == {}
    assert store.lookup("nobody", ["#1"]) == {}


def test_undo_events_lists_retracts_and_amends_in_order_up_to_seq(store: Store) -> None:
    retract = Retract(id="r1", event="h1", reason="wrong target")
    amend = Amend(id="a1", event="#3", replacement=hit(None, damage=2), reason="typo")
    store.append(FIGHT, [*opening(), retract, amend, hit("h4")])
    assert store.undo_events(FIGHT) == [Stored(5, retract), Stored(6, amend)]
    assert store.undo_events(FIGHT, to_seq=5) == [Stored(5, retract)]
    assert store.undo_events(FIGHT, to_seq=4) == []


def test_fights_lists_each_fight_once_with_its_own_version(store: Store) -> None:
    store.append("alpha", opening())
    store.append("bravo", [FightStarted(ruleset="dq")])
    store.append("alpha", [hit("h4")])
    assert store.fights() == ["alpha", "bravo"]
    assert (store.version("alpha"), store.version("bravo")) == (5, 1)


CAMPAIGN = campaign_stream("west")


def test_a_campaigns_log_reads_back_as_campaign_events_with_its_own_calls(store: Store) -> None:
    """A campaign's log holds the other family of events (events/campaign.py): `append` writes
    it as a fight's, and `campaign_read`, `campaign_lookup` and `campaign_undo_events` read it
    with the campaign's decoder, as `read`, `lookup` and `undo_events` read a fight's."""
    for name in ("campaign_read", "campaign_lookup", "campaign_undo_events"):
        declared = inspect.signature(getattr(Store, name))
        given = inspect.signature(getattr(type(store), name))
        shape = [(p.name, p.kind, p.default) for p in declared.parameters.values()]
        assert [(p.name, p.kind, p.default) for p in given.parameters.values()] == shape, name
    started, joined = CampaignStarted(ruleset="dnd5e"), MemberJoined(id="m1", member="mira")
    retract = Retract(id="r1", event="m1")
    assert store.append(CAMPAIGN, [started, joined, retract]) == 3
    assert list(store.campaign_read(CAMPAIGN)) == [
        Stored(1, started), Stored(2, joined), Stored(3, retract)
    ]  # fmt: skip
    assert list(store.campaign_read(CAMPAIGN, 2, 2)) == [Stored(2, joined)]
    assert store.campaign_lookup(CAMPAIGN, ["m1", "#1"]) == {
        "m1": Stored(2, joined), "#1": Stored(1, started)
    }  # fmt: skip
    assert store.campaign_undo_events(CAMPAIGN) == [Stored(3, retract)]
    assert store.version(CAMPAIGN) == 3
    assert CAMPAIGN not in store.fights()


def test_an_event_of_the_other_family_is_refused_with_its_batch(store: Store) -> None:
    """One family per log: a campaign's event in a fight's log, or a fight's in a campaign's,
    does not read back as an event of that log, and is refused saying what it is."""
    with pytest.raises(StructuralError, match="a campaign's event, not a fight's") as caught:
        store.append(FIGHT, [FightStarted(ruleset="dnd5e"), CampaignStarted(ruleset="dnd5e")])
    assert caught.value.index == 1
    with pytest.raises(StructuralError, match="a fight's event, not a campaign's"):
        store.append(CAMPAIGN, [CampaignStarted(ruleset="dnd5e"), hit("h1")])
    assert store.version(FIGHT) == store.version(CAMPAIGN) == 0


def test_a_refused_first_batch_creates_no_fight(store: Store) -> None:
    with pytest.raises(ConflictError):
        store.append(FIGHT, [hit("h1")], expected_version=3)
    assert store.fights() == []


def test_events_survive_closing_and_reopening_the_store(url: str) -> None:
    first = open_store(url)
    first.append(FIGHT, opening())
    first.close()
    again = open_store(url)
    try:
        assert events_of(again) == opening()
    finally:
        again.close()


def test_appending_while_a_read_is_half_consumed_leaves_the_read_intact(store: Store) -> None:
    store.append(FIGHT, opening())
    reading = store.read(FIGHT)
    assert next(reading).seq == 1
    store.append(FIGHT, [hit("h4")])
    assert [s.event for s in reading][:3] == opening()[1:]


# Two OS processes, each with its own store, race to append to one fight: some single events,
# some batches, some with an expected version retried on conflict, and every batch sent twice.
WORKER = """
import sys, time
from pathlib import Path
from woundlog.events import ConflictError, Hit
from woundlog.events.stores import open_store

url, name, signals, fight = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4]
events = [Hit(id=f"{name}-{i}", target=name, damage=1) for i in range(200)]
store = open_store(url)
(signals / f"ready-{name}").touch()
while not (signals / "go").exists():
    time.sleep(0.001)
start, size = 0, 1
while start < len(events):
    batch = events[start : start + size]
    if size % 2:
        store.append(fight, batch)
    else:
        while True:
            try:
                store.append(fight, batch, expected_version=store.version(fight))
                break
            except ConflictError:
                pass
    store.append(fight, batch)
    start, size = start + size, size % 5 + 1
    time.sleep(0.001)  # let the other in: SQLite's busy wait is not first come, first served
store.close()
"""
NAMES = ("left", "right")


def test_two_processes_appending_to_one_fight_lose_and_duplicate_nothing(
    url: str, tmp_path: Path
) -> None:
    # Whether the two really interleave is up to the OS scheduler and SQLite's busy wait (which
    # is not first come, first served): on a loaded machine one may finish before the other gets
    # in. Every try must lose and duplicate nothing; a try that did not race is run again.
    for attempt in range(RACE_TRIES):
        turns = race_once(url, tmp_path / str(attempt), f"race-{attempt}")
        if turns > 2:
            return
    pytest.fail(f"in {RACE_TRIES} tries the processes never raced (last: {turns} turns)")


RACE_TRIES = 4


def race_once(url: str, signals: Path, fight: str) -> int:
    """Race the two workers on `fight`, check nothing was lost or duplicated, and return how
    many times the writer changed between consecutive events."""
    signals.mkdir()
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, url, name, str(signals), fight],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name in NAMES
    ]
    start_together(workers, signals)
    for worker in workers:
        _, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err.decode()

    store = open_store(url)
    try:
        stored = list(store.read(fight))
        assert store.version(fight) == 400
    finally:
        store.close()
    assert seqs_of(stored) == list(range(1, 401))
    ids = [str(s.event.id) for s in stored]
    assert len(set(ids)) == 400
    for name in NAMES:
        assert [i for i in ids if i.startswith(name)] == [f"{name}-{n}" for n in range(200)]
    writers = [i.partition("-")[0] for i in ids]
    return sum(1 for a, b in itertools.pairwise(writers) if a != b)


def start_together(workers: list[subprocess.Popen[bytes]], signals: Path) -> None:
    """Wait until every worker has its store open, then let them all go at once."""
    deadline = time.monotonic() + 120
    while not all((signals / f"ready-{name}").exists() for name in NAMES):
        for worker in workers:
            if worker.poll() is not None:
                pytest.fail(f"a worker died before the start: {worker.communicate()[1].decode()}")
        assert time.monotonic() < deadline, "the workers never got ready"
        time.sleep(0.01)
    (signals / "go").touch()


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """The usual umask (022), under which a file left to its default is readable by all."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


@pytest.mark.usefixtures("loose_umask")
@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_a_store_creates_its_files_and_directories_readable_only_by_their_owner(
    kind: str, tmp_path: Path
) -> None:
    url = url_for(kind, tmp_path / "new" / "er")
    with open_store(url) as store:
        store.append(FIGHT, opening())
        files = [p for p in (tmp_path / "new").rglob("*") if p.is_file()]
        assert files  # the database with its -wal and -shm, or the fight's .jsonl
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in files}
        assert modes == dict.fromkeys(modes, 0o600)
    for directory in (tmp_path / "new", tmp_path / "new" / "er"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    if kind == "jsonl":
        assert stat.S_IMODE((tmp_path / "new" / "er" / "log").stat().st_mode) == 0o700


@pytest.mark.usefixtures("loose_umask")
@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_a_store_leaves_the_mode_of_a_directory_it_did_not_create(
    kind: str, tmp_path: Path
) -> None:
    tmp_path.chmod(0o755)
    with open_store(url_for(kind, tmp_path)) as store:
        store.append(FIGHT, opening())
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755


# -- deleting and renaming a fight: every store ----------------------------------------------------


class Companion:
    """A table of rows that belong to a fight, beside the store's own (as the service's tokens
    are), in the database the store carries them in: its own for SQLite and PostgreSQL, the
    directory's `service.db` for JSON Lines. Its CHECK lets a test make one rename fail midway."""

    def __init__(self, store: Store) -> None:
        self.mark = "%s" if isinstance(store, PostgresStore) else "?"
        if isinstance(store, PostgresStore):
            self.db: Any = store.connection
        else:
            path = store.path if isinstance(store, SQLiteStore) else store.companion_db
            assert isinstance(store, SQLiteStore | JsonlStore)
            self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS service_notes (fight TEXT NOT NULL, note TEXT NOT NULL,"
            " CHECK (fight <> 'forbidden'))"
        )
        companions.register(self.db, ["service_notes"], self.mark)

    def add(self, fight: str, note: str) -> None:
        self.db.execute(
            f"INSERT INTO service_notes (fight, note) VALUES ({self.mark}, {self.mark})",
            (fight, note),
        )

    def notes(self, fight: str) -> list[str]:
        rows = self.db.execute(
            f"SELECT note FROM service_notes WHERE fight = {self.mark} ORDER BY note", (fight,)
        ).fetchall()
        return [row[0] for row in rows]


def test_deleting_a_fight_removes_its_events_and_answers_true(store: Store) -> None:
    store.append(FIGHT, opening())
    store.append("other", [FightStarted(ruleset="dq")])
    assert store.delete_fight(FIGHT) is True
    assert store.version(FIGHT) == 0
    assert events_of(store) == []
    assert store.lookup(FIGHT, ["h1", "#1"]) == {}
    assert store.fights() == ["other"]
    assert store.version("other") == 1


def test_deleting_a_fight_that_is_not_there_answers_false(store: Store) -> None:
    assert store.delete_fight("nobody") is False
    assert store.fights() == []


def test_a_deleted_fight_id_starts_a_new_fight_from_seq_one(store: Store) -> None:
    store.append(FIGHT, opening())
    store.delete_fight(FIGHT)
    # the ids of the deleted fight are gone too: the same id with other content is no conflict
    assert store.append(FIGHT, [FightStarted(ruleset="d26"), hit("h1", damage=5)]) == 2
    assert [s.seq for s in store.read(FIGHT)] == [1, 2]


def test_deleting_a_fight_deletes_its_snapshots(store: Store) -> None:
    store.append(FIGHT, opening())
    store.save_snapshot(FIGHT, 2, b"state")
    store.delete_fight(FIGHT)
    store.append(FIGHT, opening())
    assert store.snapshot(FIGHT) is None


def test_deleting_a_fight_deletes_its_companion_rows_and_no_others(store: Store) -> None:
    rows = Companion(store)
    store.append(FIGHT, opening())
    store.append("other", [FightStarted(ruleset="dq")])
    rows.add(FIGHT, "gm token")
    rows.add("other", "its token")
    store.delete_fight(FIGHT)
    assert rows.notes(FIGHT) == []
    assert rows.notes("other") == ["its token"]


def test_renaming_a_fight_moves_its_events_ids_and_version(store: Store) -> None:
    store.append(FIGHT, opening())
    assert store.rename_fight(FIGHT, "arena") == 4
    assert store.version(FIGHT) == 0
    assert [s.event for s in store.read("arena")] == opening()
    assert store.lookup("arena", ["h2"])["h2"].seq == 3
    assert store.append("arena", [hit("h2")]) == 4  # its ids came along: a resend adds nothing
    assert store.fights() == ["arena"]


def test_renaming_a_fight_moves_its_snapshots(store: Store) -> None:
    store.append(FIGHT, opening())
    store.save_snapshot(FIGHT, 3, b"state")
    store.rename_fight(FIGHT, "arena")
    if not isinstance(store, JsonlStore):  # the one store that keeps no snapshots
        assert store.snapshot("arena") == (3, b"state")
    assert store.snapshot(FIGHT) is None


def test_renaming_a_fight_moves_its_companion_rows(store: Store) -> None:
    rows = Companion(store)
    store.append(FIGHT, opening())
    rows.add(FIGHT, "gm token")
    rows.add("arena", "left over from a creation that failed")
    store.rename_fight(FIGHT, "arena")
    assert rows.notes(FIGHT) == []
    assert rows.notes("arena") == ["gm token"]


def test_renaming_onto_an_existing_fight_is_a_conflict_that_changes_nothing(
    store: Store,
) -> None:
    store.append(FIGHT, opening())
    store.append("arena", [FightStarted(ruleset="dq")])
    with pytest.raises(ConflictError, match="fight `arena` already exists"):
        store.rename_fight(FIGHT, "arena")
    assert events_of(store) == opening()
    assert store.version("arena") == 1


def test_renaming_a_fight_that_is_not_there_is_a_usage_error(store: Store) -> None:
    with pytest.raises(UsageError, match="no fight `nobody` to rename"):
        store.rename_fight("nobody", "arena")
    assert store.fights() == []


def test_renaming_to_an_id_that_breaks_the_rule_is_refused(store: Store) -> None:
    store.append(FIGHT, opening())
    with pytest.raises(BadFightId, match="has '/'"):
        store.rename_fight(FIGHT, "a/b")
    assert events_of(store) == opening()


def test_a_rename_whose_companion_rows_cannot_move_changes_nothing(store: Store) -> None:
    rows = Companion(store)
    store.append(FIGHT, opening())
    rows.add(FIGHT, "gm token")
    with pytest.raises(Exception, match=r"(?i)check"):  # the table's CHECK refuses 'forbidden'
        store.rename_fight(FIGHT, "forbidden")
    assert events_of(store) == opening()
    assert store.version("forbidden") == 0
    assert rows.notes(FIGHT) == ["gm token"]


def test_a_delete_whose_companion_rows_cannot_go_changes_nothing(store: Store) -> None:
    rows = Companion(store)
    store.append(FIGHT, opening())
    rows.add(FIGHT, "gm token")
    companions.register(rows.db, ["service_gone"], rows.mark)  # registered, never created
    with pytest.raises(Exception, match="service_gone"):
        store.delete_fight(FIGHT)
    assert events_of(store) == opening()
    assert rows.notes(FIGHT) == ["gm token"]


def test_renamed_fight_keeps_its_place_in_the_creation_order(store: Store) -> None:
    store.append("alpha", opening())
    store.append("bravo", opening())
    store.rename_fight("alpha", "zulu")
    expected = ["bravo", "zulu"] if isinstance(store, JsonlStore) else ["zulu", "bravo"]
    assert store.fights() == expected


# -- the tables kept beside the fights: every store -----------------------------------------------
# Import cursors, tokens, kept answers and stream tickets (side.py): DESIGN.md section 7's side
# tables, kept by every store, carried by its deletes and renames, written in its transactions.


def token(name: str, fight: str = FIGHT, role: str = "viewer", issued: float = 1.0) -> KeptToken:
    return KeptToken(
        hash=f"hash-of-{fight}-{name}", fight=fight, role=role, name=name, issued=issued
    )


def answer(key: str, fight: str = FIGHT, expires: float = 100.0) -> KeptAnswer:
    return KeptAnswer(
        key=key, fight=fight, request="digest", status=201, answer=b"sealed\x00", expires=expires
    )


def keep_one_of_each(store: Store, fight: str = FIGHT) -> None:
    side = store.side
    side.cursors.put(fight, "foundry", {"round": 2, "seen": ["a", "b"]})
    assert side.tokens.put(token("gm", fight, role="gm"))
    assert side.answers.put(answer(f"key-{fight}", fight), now=10.0)
    side.tickets.put(StreamTicket(hash=f"ticket-{fight}", fight=fight, expires=100.0), now=10.0)


def kept_of(store: Store, fight: str = FIGHT, seen_as: str | None = None) -> dict[str, Any]:
    """What `keep_one_of_each(store, fight)` kept, as the store finds it now under `seen_as`."""
    side, name = store.side, seen_as or fight
    found = side.answers.find(f"key-{fight}", now=10.0)
    return {
        "cursor": side.cursors.get(name, "foundry"),
        "tokens": [(t.name, t.fight) for t in side.tokens.of(name)],
        "answer": None if found is None else found.fight,
        "ticket": side.tickets.fight_of(f"ticket-{fight}", now=10.0),
    }


def test_every_store_keeps_tables_beside_its_fights(store: Store) -> None:
    assert isinstance(store.transactional, bool)
    store.side.check()  # made with the store; checking them again is harmless
    assert kept_of(store) == {"cursor": None, "tokens": [], "answer": None, "ticket": None}


def test_an_import_cursor_is_kept_per_fight_and_format_and_replaced(store: Store) -> None:
    cursors = store.side.cursors
    assert cursors.get(FIGHT, "foundry") is None
    cursors.put(FIGHT, "foundry", {"round": 1})
    cursors.put(FIGHT, "avrae", ["a", 2, None])
    cursors.put("other", "foundry", None)
    cursors.put(FIGHT, "foundry", {"round": 2})
    assert cursors.get(FIGHT, "foundry") == {"round": 2}
    assert cursors.get(FIGHT, "avrae") == ["a", 2, None]
    assert cursors.get("other", "foundry") is None  # a cursor of None reads as none kept
    assert cursors.get("nobody", "foundry") is None


def test_a_token_is_found_by_its_hash_and_listed_with_its_fight(store: Store) -> None:
    tokens = store.side.tokens
    assert tokens.put(token("gm", role="gm", issued=5.0))
    assert tokens.put(token("alice"))
    assert tokens.put(token("gm", fight="other", role="gm"))
    assert tokens.find(token("alice").hash) == token("alice")
    assert tokens.find("no such hash") is None
    assert sorted(t.name or "" for t in tokens.of(FIGHT)) == ["alice", "gm"]
    assert tokens.of("nobody") == []


def test_a_token_name_taken_in_its_fight_is_kept_only_when_replacing(store: Store) -> None:
    tokens = store.side.tokens
    assert tokens.put(token("alice"))
    other = KeptToken(hash="another hash", fight=FIGHT, role="gm", name="alice", issued=9.0)
    assert tokens.put(other) is False
    assert tokens.find("another hash") is None
    assert tokens.put(other, replace=True) is True
    assert tokens.find(token("alice").hash) is None  # the token it replaced opens nothing
    assert tokens.of(FIGHT) == [other]


def test_a_token_is_revoked_by_its_name_or_with_all_of_its_fight(store: Store) -> None:
    tokens = store.side.tokens
    for name in ("gm", "alice", "bob"):
        tokens.put(token(name))
    tokens.put(token("carol", fight="other"))
    assert tokens.remove(FIGHT, "alice") is True
    assert tokens.remove(FIGHT, "alice") is False
    assert sorted(t.name or "" for t in tokens.of(FIGHT)) == ["bob", "gm"]
    tokens.remove_all(FIGHT)
    assert tokens.of(FIGHT) == []
    assert [t.name for t in tokens.of("other")] == ["carol"]


def test_a_kept_answer_is_found_till_it_expires_and_never_written_over(store: Store) -> None:
    answers = store.side.answers
    assert answers.put(answer("k1", expires=100.0), now=10.0)
    assert answers.find("k1", now=99.0) == answer("k1", expires=100.0)
    assert answers.find("k1", now=100.0) is None
    assert answers.put(answer("k1", fight="elsewhere"), now=10.0) is False  # answered already
    assert answers.find("k1", now=10.0) == answer("k1")
    answers.remove("k1")
    assert answers.find("k1", now=10.0) is None


def test_keeping_an_answer_drops_the_expired_ones(store: Store) -> None:
    answers = store.side.answers
    answers.put(answer("old", expires=20.0), now=10.0)
    answers.put(answer("new", expires=200.0), now=30.0)  # "old" has expired by now
    assert answers.put(answer("old", expires=300.0), now=30.0)  # so its key is free again
    assert answers.find("old", now=30.0) == answer("old", expires=300.0)


def test_a_fights_kept_answers_go_together(store: Store) -> None:
    answers = store.side.answers
    answers.put(answer("k1"), now=10.0)
    answers.put(answer("k2"), now=10.0)
    answers.put(answer("k3", fight="other"), now=10.0)
    answers.remove_all(FIGHT)
    assert answers.find("k1", now=10.0) is None and answers.find("k2", now=10.0) is None
    assert answers.find("k3", now=10.0) is not None


def test_a_stream_ticket_opens_its_fight_till_it_expires(store: Store) -> None:
    tickets = store.side.tickets
    tickets.put(StreamTicket(hash="t1", fight=FIGHT, expires=70.0), now=10.0)
    tickets.put(StreamTicket(hash="t2", fight="other", expires=70.0), now=10.0)
    assert tickets.fight_of("t1", now=69.0) == FIGHT
    assert tickets.fight_of("t1", now=70.0) is None
    assert tickets.fight_of("nothing", now=10.0) is None
    tickets.put(StreamTicket(hash="t3", fight=FIGHT, expires=200.0), now=80.0)  # drops t1, t2
    assert tickets.fight_of("t2", now=10.0) is None
    tickets.remove_all(FIGHT)
    assert tickets.fight_of("t3", now=80.0) is None


def test_a_stream_ticket_keeps_the_token_it_was_issued_for(store: Store) -> None:
    tickets = store.side.tickets
    tickets.put(StreamTicket(hash="t1", fight=FIGHT, expires=70.0, token="gm-hash"), now=10.0)
    tickets.put(StreamTicket(hash="t2", fight=FIGHT, expires=70.0), now=10.0)
    assert tickets.find("t1", now=69.0) == StreamTicket("t1", FIGHT, 70.0, "gm-hash")
    assert tickets.find("t2", now=69.0) == StreamTicket("t2", FIGHT, 70.0, None)
    assert tickets.find("t1", now=70.0) is None
    assert tickets.find("nothing", now=10.0) is None


def test_deleting_a_fight_takes_its_side_rows_and_no_others(store: Store) -> None:
    store.append(FIGHT, opening())
    store.append("other", [FightStarted(ruleset="dq")])
    keep_one_of_each(store)
    keep_one_of_each(store, "other")
    assert store.delete_fight(FIGHT) is True
    assert kept_of(store) == {"cursor": None, "tokens": [], "answer": None, "ticket": None}
    assert kept_of(store, "other") == {
        "cursor": {"round": 2, "seen": ["a", "b"]},
        "tokens": [("gm", "other")],
        "answer": "other",
        "ticket": "other",
    }


def test_deleting_a_fight_that_is_not_there_still_drops_its_side_rows(store: Store) -> None:
    keep_one_of_each(store, "unmade")  # tokens of a creation that failed before its events
    assert store.delete_fight("unmade") is False
    assert kept_of(store, "unmade")["tokens"] == []


def test_renaming_a_fight_takes_its_side_rows_along(store: Store) -> None:
    store.append(FIGHT, opening())
    keep_one_of_each(store)
    store.side.tokens.put(token("stale", fight="arena"))  # left by a creation that failed
    store.rename_fight(FIGHT, "arena")
    assert kept_of(store) == {"cursor": None, "tokens": [], "answer": "arena", "ticket": "arena"}
    assert kept_of(store, seen_as="arena") == {
        "cursor": {"round": 2, "seen": ["a", "b"]},
        "tokens": [("gm", "arena")],
        "answer": "arena",
        "ticket": "arena",
    }


def test_a_refused_rename_leaves_the_side_rows_where_they_were(store: Store) -> None:
    store.append(FIGHT, opening())
    store.append("arena", [FightStarted(ruleset="dq")])
    keep_one_of_each(store)
    with pytest.raises(ConflictError):
        store.rename_fight(FIGHT, "arena")
    assert kept_of(store)["tokens"] == [("gm", FIGHT)]
    assert kept_of(store)["cursor"] == {"round": 2, "seen": ["a", "b"]}


def contribution(
    fight: str = FIGHT, version: int = 2, data: bytes = b"folded\x00"
) -> KeptContribution:
    return KeptContribution(fight=fight, version=version, digest=f"d{version}", data=data)


def test_a_fights_campaign_contribution_is_kept_one_row_per_fight_and_replaced(
    store: Store,
) -> None:
    rows = store.side.contributions
    assert rows.of([FIGHT]) == {}
    rows.put(contribution())
    rows.put(contribution("other", 7))
    rows.put(contribution(version=3, data=b"\xff refolded"))  # the fight, folded again
    assert rows.of([FIGHT, "other", "nobody", FIGHT]) == {
        FIGHT: contribution(version=3, data=b"\xff refolded"),
        "other": contribution("other", 7),
    }
    rows.remove(FIGHT)
    assert rows.of([FIGHT]) == {}


def test_contributions_of_more_fights_than_one_query_binds_are_all_found(store: Store) -> None:
    rows = store.side.contributions
    fights = [f"f{n}" for n in range(1234)]
    with store.transaction():
        for fight in fights:
            rows.put(contribution(fight))
    assert sorted(rows.of(fights)) == sorted(fights)


def test_a_fights_contribution_goes_with_its_delete_and_its_rename(store: Store) -> None:
    store.append(FIGHT, opening())
    store.append("other", [FightStarted(ruleset="dq")])
    rows = store.side.contributions
    rows.put(contribution())
    rows.put(contribution("other", 1))
    store.rename_fight(FIGHT, "arena")
    assert rows.of([FIGHT, "arena"]) == {"arena": contribution("arena")}
    assert store.delete_fight("arena") is True
    assert rows.of([FIGHT, "arena", "other"]) == {"other": contribution("other", 1)}


def test_the_side_tables_keep_their_rows_when_the_store_is_opened_again(url: str) -> None:
    with open_store(url) as store:
        store.append(FIGHT, opening())
        keep_one_of_each(store)
    with open_store(url) as again:
        again.side.check()
        assert kept_of(again) == {
            "cursor": {"round": 2, "seen": ["a", "b"]},
            "tokens": [("gm", FIGHT)],
            "answer": FIGHT,
            "ticket": FIGHT,
        }


def test_what_one_opening_of_the_store_keeps_beside_it_another_finds(url: str) -> None:
    with open_store(url) as one, open_store(url) as other:  # two processes, say
        keep_one_of_each(one)
        assert kept_of(other)["tokens"] == [("gm", FIGHT)]
        other.side.cursors.put(FIGHT, "foundry", {"round": 3})
        assert one.side.cursors.get(FIGHT, "foundry") == {"round": 3}


def test_side_rows_written_in_a_transaction_that_fails_are_not_kept(store: Store) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        keep_one_of_each(store)
        raise RuntimeError("the request failed")
    assert kept_of(store) == {"cursor": None, "tokens": [], "answer": None, "ticket": None}


def test_a_transactional_store_commits_events_with_side_rows_or_neither(store: Store) -> None:
    """A fight's first event and its tokens: where the store is transactional, one commit;
    where not (JSON Lines), the append is in at once and only the side rows roll back."""
    with pytest.raises(RuntimeError), store.transaction():
        store.side.tokens.put(token("gm", role="gm"))
        store.append(FIGHT, opening())
        raise RuntimeError("the answer could not be kept")
    assert store.side.tokens.of(FIGHT) == []
    assert store.version(FIGHT) == (0 if store.transactional else 4)
    with store.transaction():
        store.side.tokens.put(token("gm", role="gm"))
        store.append("made", opening())
    assert [t.name for t in store.side.tokens.of(FIGHT)] == ["gm"]
    assert store.version("made") == 4


def test_an_imports_cursor_commits_with_its_events_where_the_store_is_transactional(
    store: Store,
) -> None:
    store.append(FIGHT, [FightStarted(ruleset="mordheim")])
    with pytest.raises(RuntimeError), store.import_lock(FIGHT, "foundry"):
        store.append(FIGHT, [hit("h1")])
        store.side.cursors.put(FIGHT, "foundry", {"round": 1})
        raise RuntimeError("the import failed after its cursor")
    transactional = store.transactional
    assert store.version(FIGHT) == (1 if transactional else 2)
    with store.import_lock(FIGHT, "foundry"):
        store.append(FIGHT, [hit("h1")])
        store.side.cursors.put(FIGHT, "foundry", {"round": 1})
    assert store.version(FIGHT) == 2
    assert store.side.cursors.get(FIGHT, "foundry") == {"round": 1}


def fail_every_cursor_kept(store: Store) -> None:
    """Change the database behind the store's back: every cursor kept now fails."""
    if isinstance(store, PostgresStore):
        store.connection.execute(
            "CREATE FUNCTION no_cursor() RETURNS trigger AS"
            " $$ BEGIN RAISE EXCEPTION 'cursor table on fire'; END $$ LANGUAGE plpgsql;"
            " CREATE TRIGGER no_cursor BEFORE INSERT ON service_cursors"
            " FOR EACH ROW EXECUTE FUNCTION no_cursor()"
        )
        return
    store.side.check()  # a JSON Lines store makes its file on first use
    assert store.side.path is not None
    with sqlite3.connect(store.side.path) as other:
        other.execute(
            "CREATE TRIGGER no_cursor BEFORE INSERT ON service_cursors"
            " BEGIN SELECT RAISE(ABORT, 'cursor table on fire'); END"
        )
    other.close()


def test_a_side_write_that_fails_inside_an_import_is_undone_alone(store: Store) -> None:
    """The import's events still commit (the service answers them as written, and says the
    cursor was not kept): each side write is a savepoint of the transaction around it."""
    store.append(FIGHT, [FightStarted(ruleset="mordheim")])
    fail_every_cursor_kept(store)
    with store.import_lock(FIGHT, "foundry"):
        store.append(FIGHT, [hit("h1")])
        with pytest.raises(Exception, match="cursor table on fire"):
            store.side.cursors.put(FIGHT, "foundry", {"round": 1})
        store.side.tokens.put(token("gm", role="gm"))
    assert store.version(FIGHT) == 2
    assert store.side.cursors.get(FIGHT, "foundry") is None
    assert [t.name for t in store.side.tokens.of(FIGHT)] == ["gm"]


def test_the_side_tables_are_in_a_file_of_the_store_or_in_its_database_server(
    store: Store,
) -> None:
    store.side.cursors.put(FIGHT, "foundry", 1)  # a JSON Lines store makes its file on first use
    path = store.side.path
    if isinstance(store, PostgresStore):
        assert path is None  # shared by every process on the database: no file to put a secret
    else:
        assert path == (store.path if isinstance(store, SQLiteStore) else store.companion_db)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it holds token hashes


# -- SQLite only ----------------------------------------------------------------------------------


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SQLiteStore]:
    with SQLiteStore(tmp_path / "log.db") as opened:
        yield opened


def test_sqlite_snapshot_is_the_newest_at_or_before_the_asked_seq(
    sqlite_store: SQLiteStore,
) -> None:
    sqlite_store.save_snapshot(FIGHT, 10, b"ten")
    sqlite_store.save_snapshot(FIGHT, 20, b"twenty")
    assert sqlite_store.snapshot(FIGHT) == (20, b"twenty")
    assert sqlite_store.snapshot(FIGHT, at_most=19) == (10, b"ten")
    assert sqlite_store.snapshot(FIGHT, at_most=9) is None
    assert sqlite_store.snapshot("nobody") is None


def test_sqlite_saving_a_snapshot_at_the_same_seq_replaces_it(sqlite_store: SQLiteStore) -> None:
    sqlite_store.save_snapshot(FIGHT, 10, b"old")
    sqlite_store.save_snapshot(FIGHT, 10, b"new")
    assert sqlite_store.snapshot(FIGHT) == (10, b"new")


def test_sqlite_fights_are_listed_in_order_of_creation(sqlite_store: SQLiteStore) -> None:
    for fight in ("zulu", "alpha", "mike"):
        sqlite_store.append(fight, [FightStarted(ruleset="mordheim")])
    sqlite_store.append("zulu", [hit("h1")])
    assert sqlite_store.fights() == ["zulu", "alpha", "mike"]


def test_sqlite_read_streams_across_pages_in_order(
    sqlite_store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_module, "PAGE_SIZE", 3)
    written = [hit(f"h{n}") for n in range(10)]
    sqlite_store.append(FIGHT, written)
    assert events_of(sqlite_store) == written
    assert events_of(sqlite_store, from_seq=3, to_seq=9) == written[2:9]


def test_sqlite_file_is_in_wal_mode_with_one_row_per_event(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    with SQLiteStore(path) as store:
        store.append(FIGHT, opening())
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        rows = db.execute("SELECT seq, id, type, body FROM events ORDER BY seq").fetchall()
    finally:
        db.close()
    assert rows[1] == (2, "h1", "hit", encode_json(hit("h1")))
    assert len(rows) == 4


def test_sqlite_creates_the_missing_parent_directory(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "log.db"
    with SQLiteStore(path) as store:
        store.append(FIGHT, opening())
    assert path.is_file()


def test_sqlite_refuses_a_file_from_a_newer_woundlog(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    SQLiteStore(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(UsageError, match="newer woundlog"):
        SQLiteStore(path)


# -- JSON Lines only ------------------------------------------------------------------------------


@pytest.fixture
def jsonl_store(tmp_path: Path) -> JsonlStore:
    return JsonlStore(tmp_path / "log")


def test_jsonl_file_holds_one_encoded_event_per_line(jsonl_store: JsonlStore) -> None:
    jsonl_store.append(FIGHT, opening())
    lines = jsonl_store.path(FIGHT).read_bytes().splitlines()
    assert lines == [encode_json(event) for event in opening()]


def test_jsonl_torn_last_line_is_ignored_by_read_and_cut_off_by_append(
    jsonl_store: JsonlStore,
) -> None:
    jsonl_store.append(FIGHT, opening())
    path = jsonl_store.path(FIGHT)
    with path.open("ab") as f:
        f.write(b'{"type":"hit","id":"h4","target":"gr')  # a crash mid-write
    assert events_of(jsonl_store) == opening()
    assert jsonl_store.version(FIGHT) == 4
    assert jsonl_store.append(FIGHT, [hit("h4", damage=3)]) == 5
    assert path.read_bytes().splitlines()[-1] == encode_json(hit("h4", damage=3))
    assert events_of(jsonl_store) == [*opening(), hit("h4", damage=3)]


def test_jsonl_blank_lines_are_not_events(jsonl_store: JsonlStore) -> None:
    jsonl_store.append(FIGHT, opening()[:2])
    with jsonl_store.path(FIGHT).open("ab") as f:
        f.write(b"\n")
    assert jsonl_store.append(FIGHT, [hit("h2")]) == 3
    assert [s.seq for s in jsonl_store.read(FIGHT)] == [1, 2, 3]
    assert jsonl_store.lookup(FIGHT, ["#3"]) == {"#3": Stored(3, hit("h2"))}


def test_jsonl_malformed_line_is_reported_with_its_line_number(jsonl_store: JsonlStore) -> None:
    jsonl_store.append(FIGHT, opening()[:2])
    with jsonl_store.path(FIGHT).open("ab") as f:
        f.write(b'{"type":"hit","id":"h2","target":"grim","damage":-1}\n')
    with pytest.raises(StructuralError) as caught:
        list(jsonl_store.read(FIGHT))
    assert (caught.value.line, caught.value.event) == (3, "h2")


@pytest.mark.parametrize("fight", ["../escape", "a/b", "a\\b", "..", ".hidden", "", "a\x00b"])
def test_jsonl_refuses_a_fight_id_that_is_no_safe_file_name(
    jsonl_store: JsonlStore, tmp_path: Path, fight: str
) -> None:
    with pytest.raises(UsageError):
        jsonl_store.append(fight, opening())
    with pytest.raises(UsageError):
        jsonl_store.read(fight)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log"]
    assert list(jsonl_store.directory.iterdir()) == []


def test_jsonl_fights_are_listed_by_name(jsonl_store: JsonlStore) -> None:
    for fight in ("zulu", "alpha", "mike"):
        jsonl_store.append(fight, [FightStarted(ruleset="mordheim")])
    assert jsonl_store.fights() == ["alpha", "mike", "zulu"]


def test_jsonl_keeps_no_snapshots(jsonl_store: JsonlStore) -> None:
    jsonl_store.save_snapshot(FIGHT, 1, b"state")
    assert jsonl_store.snapshot(FIGHT) is None


# -- choosing a store by URL ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "kind", "where"),
    [
        ("sqlite://{tmp}/a.db", SQLiteStore, "a.db"),
        ("sqlite:rel.db", SQLiteStore, "rel.db"),
        ("sqlite:{tmp}/e.db", SQLiteStore, "e.db"),
        ("{tmp}/b.db", SQLiteStore, "b.db"),
        ("{tmp}/c.sqlite", SQLiteStore, "c.sqlite"),
        ("{tmp}/d.sqlite3", SQLiteStore, "d.sqlite3"),
        ("jsonl:{tmp}/logs", JsonlStore, "logs"),
        ("jsonl://{tmp}/logs", JsonlStore, "logs"),
        ("jsonl:rel", JsonlStore, "rel"),
        ("{tmp}", JsonlStore, ""),
    ],
)
def test_open_store_understands_each_accepted_form(
    url: str, kind: type, where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.jsonl").write_bytes(b"")  # a bare directory must hold a store already
    opened = open_store(url.format(tmp=tmp_path))
    try:
        assert isinstance(opened, kind)
        assert location_of(opened).resolve() == (tmp_path / where).resolve()
    finally:
        opened.close()


@pytest.mark.parametrize(
    "url",
    ["mysql://gm@localhost/woundlog", "{tmp}/notes.txt", "sqlite://elsewhere/a.db", "sqlite:"],
)
def test_open_store_refuses_other_urls_naming_the_accepted_forms(url: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="sqlite:///ABSOLUTE") as caught:
        open_store(url.format(tmp=tmp_path))
    assert "jsonl:DIR" in str(caught.value)


def test_open_store_without_url_opens_sqlite_at_woundlog_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "env" / "fights.db"
    monkeypatch.setenv("WOUNDLOG_DB", str(path))
    assert default_db_path() == path
    opened = open_store()
    try:
        assert isinstance(opened, SQLiteStore)
        assert opened.path == path
        assert path.is_file()
    finally:
        opened.close()


def test_default_db_path_without_woundlog_db_is_in_the_user_data_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("WOUNDLOG_DB", raising=False)
    expected = Path(platformdirs.user_data_dir("woundlog", appauthor=False)) / "woundlog.db"
    assert default_db_path() == expected


# -- PostgreSQL only ------------------------------------------------------------------------------


def test_open_store_opens_a_postgresql_url_and_woundlog_db_may_hold_one(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from woundlog.events.stores.postgres import PostgresStore

    with open_store(postgres_url) as store:
        assert isinstance(store, PostgresStore)
        store.append(FIGHT, opening())
    monkeypatch.setenv("WOUNDLOG_DB", postgres_url)
    with open_store() as store:
        assert isinstance(store, PostgresStore)
        assert store.version(FIGHT) == 4


def test_two_postgresql_stores_on_one_database_never_write_the_same_seq(
    postgres_url: str,
) -> None:
    with open_store(postgres_url) as first, open_store(postgres_url) as second:
        first.append(FIGHT, [FightStarted(ruleset="mordheim")])
        assert second.append(FIGHT, [hit("a")], expected_version=1) == 2
        with pytest.raises(ConflictError, match="version"):
            first.append(FIGHT, [hit("b")], expected_version=1)
        assert first.append(FIGHT, [hit("b")]) == 3
        assert [s.seq for s in second.read(FIGHT)] == [1, 2, 3]


def test_a_postgresql_connection_lost_inside_a_transaction_fails_all_of_it(
    postgres_url: str,
) -> None:
    """The store reconnects by itself after a lost connection, but never inside a transaction:
    there the rest would commit alone on the new connection (an append without the rows written
    before it in the same transaction); the next statement fails, and with it everything."""
    import psycopg

    with open_store(postgres_url) as store, open_store(postgres_url) as other:
        store.append(FIGHT, [FightStarted(ruleset="mordheim")])
        pid = store.connection.info.backend_pid  # type: ignore[attr-defined]
        lost = pytest.raises(psycopg.OperationalError)
        with lost, store.transaction() as connection:  # type: ignore[attr-defined]
            connection.execute("CREATE TABLE beside (x int)")
            other.connection.execute(  # type: ignore[attr-defined]
                "SELECT pg_terminate_backend(%s)", (pid,)
            )
            with pytest.raises(psycopg.OperationalError):
                connection.execute("SELECT 1")
            assert not store.broken  # type: ignore[attr-defined]
            store.append(FIGHT, [hit("a")])
        assert not store.broken  # type: ignore[attr-defined]  # outside: reconnected
        assert store.version(FIGHT) == 1
        assert other.connection.execute(  # type: ignore[attr-defined]
            "SELECT to_regclass('beside')"
        ).fetchone() == (None,)


def test_an_unreachable_postgresql_server_is_a_usage_error_naming_it() -> None:
    with pytest.raises(UsageError, match=r"cannot reach the database at postgresql://") as told:
        open_store("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")
    assert told.value.__notes__ == [
        "is the PostgreSQL server running, at the host and port --db names?"
    ]


def test_sqlite_file_of_schema_1_is_upgraded_and_deletes_with_its_companions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    with SQLiteStore(path) as made:
        made.append(FIGHT, opening())
    with sqlite3.connect(path) as raw:  # as woundlog before `fight_tables` left it
        raw.execute("DROP TABLE fight_tables")
        raw.execute("PRAGMA user_version = 1")
    with SQLiteStore(path) as upgraded:
        rows = Companion(upgraded)
        rows.add(FIGHT, "gm token")
        assert upgraded.delete_fight(FIGHT) is True
        assert rows.notes(FIGHT) == []
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == sqlite_module.SCHEMA_VERSION


def test_sqlite_file_of_schema_2_is_given_the_side_tables_its_fights_carry(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    with SQLiteStore(path) as made:
        made.append(FIGHT, opening())
    with sqlite3.connect(path) as raw:  # as woundlog before the side tables were the store's
        for table in ("service_tokens", "service_cursors", "service_answers", "service_tickets"):
            raw.execute(f"DROP TABLE {table}")
        raw.execute("DELETE FROM fight_tables")
        raw.execute("PRAGMA user_version = 2")
    raw.close()
    with SQLiteStore(path) as upgraded:
        upgraded.side.cursors.put(FIGHT, "foundry", {"round": 1})  # no service ever ran on it
        upgraded.rename_fight(FIGHT, "arena")
        assert upgraded.side.cursors.get("arena", "foundry") == {"round": 1}


def test_sqlite_file_of_schema_3_is_given_the_table_of_campaign_contributions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    with SQLiteStore(path) as made:
        made.append(FIGHT, opening())
    with sqlite3.connect(path) as raw:  # as woundlog before contributions were kept
        raw.execute("DROP TABLE campaign_contributions")
        raw.execute("DELETE FROM fight_tables WHERE name = 'campaign_contributions'")
        raw.execute("PRAGMA user_version = 3")
    raw.close()
    with SQLiteStore(path) as upgraded:
        upgraded.side.contributions.put(contribution())
        upgraded.rename_fight(FIGHT, "arena")
        assert list(upgraded.side.contributions.of(["arena"])) == ["arena"]


def test_postgresql_database_of_schema_1_is_upgraded_so_a_rename_carries_its_events(
    postgres_url: str,
) -> None:
    with PostgresStore(postgres_url) as made:
        made.append(FIGHT, opening())
        made.save_snapshot(FIGHT, 2, b"state")
        db = made.connection
        for table in ("events", "snapshots"):  # as woundlog before renames left them
            db.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_fight_fkey")
            db.execute(
                f"ALTER TABLE {table} ADD CONSTRAINT {table}_fight_fkey FOREIGN KEY (fight)"
                " REFERENCES fights (fight) ON DELETE CASCADE"
            )
        db.execute("DROP TABLE fight_tables")
        db.execute("UPDATE woundlog_schema SET version = 1")
    with PostgresStore(postgres_url) as upgraded:
        assert upgraded.rename_fight(FIGHT, "arena") == 4
        assert [s.event for s in upgraded.read("arena")] == opening()
        assert upgraded.snapshot("arena") == (2, b"state")


def test_a_fights_setting_is_kept_replaced_and_carried_by_its_rename_and_delete(
    store: Store,
) -> None:
    store.append(FIGHT, opening())
    settings = store.side.settings
    assert settings.get(FIGHT, "monsters") is None
    settings.put(FIGHT, "monsters", "hidden")
    settings.put(FIGHT, "monsters", "shown")
    settings.put("other", "monsters", "bands")
    assert settings.get(FIGHT, "monsters") == "shown"
    store.rename_fight(FIGHT, "arena")
    assert (settings.get(FIGHT, "monsters"), settings.get("arena", "monsters")) == (None, "shown")
    store.delete_fight("arena")
    assert settings.get("arena", "monsters") is None
    assert settings.get("other", "monsters") == "bands"  # another fight's, untouched


def test_sqlite_file_of_schema_4_is_given_the_table_of_fight_settings(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with SQLiteStore(path) as made:
        made.append(FIGHT, opening())
    with sqlite3.connect(path) as raw:  # as woundlog before a fight had settings
        raw.execute("DROP TABLE fight_settings")
        raw.execute("DELETE FROM fight_tables WHERE name = 'fight_settings'")
        raw.execute("PRAGMA user_version = 4")
    raw.close()
    with SQLiteStore(path) as upgraded:
        upgraded.side.settings.put(FIGHT, "monsters", "hidden")
        upgraded.rename_fight(FIGHT, "arena")
        assert upgraded.side.settings.get("arena", "monsters") == "hidden"

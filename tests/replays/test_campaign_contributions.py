"""A campaign's fights read as cached contributions (issue 37): each fight folded once per
version of its log and kept in the store's side table, a cache that always equals the fold.

Proved on every store: the campaign read with its cache equals the campaign folded from scratch
(no row kept) across retracts and amends in earlier fights, and the undo still flows forward to
the later fights; recording the k-th fight folds that fight alone, and a read folds only the
fights whose version has no row; a row that no longer holds (another version, a fight made
again under its id, other rules, damaged bytes) is never served: the fight is folded again and
the row replaced; every read and record takes a `stop` that can end it."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.postgres_server import fresh_database
from woundlog.events import FightStarted, Hit, UsageError
from woundlog.replays import campaign as campaign_module
from woundlog.replays.application import Application
from woundlog.replays.fight import Fight

if TYPE_CHECKING:
    from woundlog.events.stores.side import KeptContribution

HP = 100


@pytest.fixture(params=["sqlite", "jsonl", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":  # a fresh database on the test server (tests/conftest.py)
        return str(request.getfixturevalue("postgres_url"))
    if request.param == "jsonl":
        return f"jsonl:{tmp_path / 'log'}"
    return str(tmp_path / "c.db")


@pytest.fixture
def app(url: str) -> Iterator[Application]:
    with Application.opened(url) as opened:
        yield opened


@pytest.fixture
def folded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fights folded from their logs (`Fight.steps`), in order, while the test runs."""
    seen: list[str] = []
    steps = Fight.steps

    def counted(self: Fight, at: int | None = None) -> Any:
        seen.append(self.id)
        return steps(self, at)

    monkeypatch.setattr(Fight, "steps", counted)
    return seen


def played(app: Application, fights: int, hits: int = 2, hp: int = HP) -> None:
    """Campaign `west` with Mira, and `fights` fights each joined from her record, each of
    `hits` hits of 1 (ids `hN.K`), each recorded."""
    app.campaign_new("west", "dnd5e")
    app.campaign_join("west", "mira", name="Mira", stats={"hp": hp})
    for n in range(1, fights + 1):
        play(app, f"f{n}", [Hit(id=f"h{n}.{k}", target="mira", damage=1) for k in range(hits)])
        app.campaign_record("west", f"f{n}")


def play(app: Application, fight: str, hits: list[Hit]) -> None:
    app.create(fight, FightStarted(ruleset="dnd5e"))
    app.join_from_campaign(fight, "mira", "west")
    app.record(fight, list(hits))


def from_scratch(app: Application) -> Any:
    """What the campaign reads with no row kept: every fight folded from its log. The rows are
    put back after, as they were, so the cache goes on being tested."""
    rows = app.store.side.contributions
    fights = app.campaign_show("west").fights
    kept = rows.of(fights)
    for fight in fights:
        rows.remove(fight)
    try:
        return read(app)
    finally:
        for row in kept.values():
            rows.put(row)


def read(app: Application) -> Any:
    return (
        app.campaign_show("west"),
        app.campaign_history("west"),
        app.campaign_consequences("west"),
    )


def current_hp(app: Application) -> int:
    [mira] = app.campaign_show("west").members
    return int(mira.current["current_hp"])


# -- the cache equals the fold -------------------------------------------------------------------

undo_steps = st.lists(
    st.tuples(
        st.sampled_from(["retract", "amend", "read"]),
        st.integers(1, 4),  # the fight
        st.integers(0, 2),  # the hit in it
        st.integers(1, 5),  # an amend's damage
    ),
    max_size=6,
)


@pytest.fixture(params=["sqlite", "jsonl", "postgres"])
def new_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[], str]:
    """A maker of URLs of new, empty stores of one kind: one for each example."""
    if request.param == "postgres":
        server = str(request.getfixturevalue("postgres_server"))
        return lambda: fresh_database(server)
    if request.param == "jsonl":
        return lambda: f"jsonl:{tmp_path_factory.mktemp('c') / 'log'}"
    return lambda: str(tmp_path_factory.mktemp("c") / "c.db")


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(fights=st.integers(1, 4), steps=undo_steps)
def test_the_cached_campaign_equals_the_campaign_folded_from_scratch_after_any_undo(
    new_url: Callable[[], str], fights: int, steps: list[tuple[str, int, int, int]]
) -> None:
    with Application.opened(new_url()) as app:
        played(app, fights, hits=3)
        damage = {f"h{n}.{k}": 1 for n in range(1, fights + 1) for k in range(3)}
        for what, n, k, amount in steps:
            fight, hit = f"f{min(n, fights)}", f"h{min(n, fights)}.{k}"
            if what == "retract" and damage[hit]:
                app.campaign_undo("west", hit, fight=fight)
                damage[hit] = 0
            elif what == "amend" and damage[hit]:
                app.amend(fight, hit, Hit(target="mira", damage=amount))
                damage[hit] = amount
            cached = read(app)
            assert cached == from_scratch(app)
            # the record is every live hit taken off her hit points, fight after fight
            assert current_hp(app) == HP - sum(damage.values())
        # an undo flows forward: a later fight began from a record no longer true exactly when
        # the hits still live before it no longer add up to those it was joined after
        stale = {p.fight for p in app.campaign_show("west").stale}
        taken = [sum(damage[f"h{n}.{k}"] for k in range(3)) for n in range(1, fights + 1)]
        assert stale == {
            f"f{n}" for n in range(2, fights + 1) if sum(taken[: n - 1]) != 3 * (n - 1)
        }


def test_an_undo_in_an_earlier_fight_names_the_later_fights_and_equals_the_fold(
    app: Application,
) -> None:
    played(app, 3)
    undone = app.campaign_undo("west", "h1.0", fight="f1")
    assert {p.fight for p in undone.consequences.stale} == {"f2", "f3"}
    assert read(app) == from_scratch(app)
    assert current_hp(app) == HP - 5


# -- what is folded --------------------------------------------------------------------------------


def test_recording_the_kth_fight_folds_that_fight_alone(
    app: Application, folded: list[str]
) -> None:
    played(app, 3)
    play(app, "f4", [Hit(target="mira", damage=1)])
    folded.clear()
    app.campaign_record("west", "f4")
    assert folded == ["f4"]
    folded.clear()
    app.campaign_show("west")
    app.campaign_history("west")
    assert folded == []


def test_a_read_after_an_undo_folds_only_the_fight_undone(
    app: Application, folded: list[str]
) -> None:
    played(app, 4)
    app.undo("f2", "h2.1")  # the fight's own undo: the campaign hears of it when it reads
    folded.clear()
    assert current_hp(app) == HP - 7
    assert folded == ["f2"]
    folded.clear()
    assert current_hp(app) == HP - 7
    assert folded == []


def test_a_campaign_folded_at_earlier_fight_versions_keeps_the_rows_of_now(
    app: Application, folded: list[str]
) -> None:
    played(app, 2)
    app.undo("f1", "h1.0")
    current_hp(app)
    folded.clear()
    app.campaign_consequences("west", fights_at={"f1": 4})  # f1 as it stood before its undo
    assert folded == ["f1"]
    folded.clear()
    assert current_hp(app) == HP - 3
    assert folded == []


def test_a_fight_version_past_its_log_is_refused_as_before_the_cache(app: Application) -> None:
    played(app, 1)
    with pytest.raises(UsageError, match="has events 1 to 4"):
        app.campaign_consequences("west", fights_at={"f1": 9})


# -- a row that no longer holds is never served ----------------------------------------------------


def kept_row(app: Application, fight: str) -> KeptContribution:
    return app.store.side.contributions.of([fight])[fight]


def test_a_row_of_another_version_is_folded_again_and_replaced(
    app: Application, folded: list[str]
) -> None:
    played(app, 2)
    old = kept_row(app, "f1")
    app.record("f1", [Hit(target="mira", damage=4)])  # f1 moves on; its row is of before
    assert kept_row(app, "f1") == old
    folded.clear()
    assert current_hp(app) == HP - 8
    assert folded == ["f1"]
    assert kept_row(app, "f1").version == old.version + 1


def test_a_row_put_back_at_the_right_version_is_not_served_once_the_log_differs(
    app: Application, folded: list[str]
) -> None:
    """A fight deleted and made again under its id, of as many events: the old row (left by a
    process that never heard of the delete) names the right version, but not this log."""
    played(app, 2)
    old = kept_row(app, "f2")
    app.delete("f2")
    play(app, "f2", [Hit(id="h2.0", target="mira", damage=1), Hit(target="mira", damage=9)])
    app.store.side.contributions.put(old)
    assert kept_row(app, "f2").version == app.store.version("f2")
    folded.clear()
    assert current_hp(app) == HP - 12
    assert folded == ["f2"]
    assert read(app) == from_scratch(app)


@pytest.mark.parametrize(
    "damage",
    [
        # a byte changed (flipped: whatever it was, it is another byte now)
        lambda row: msgspec.structs.replace(row, data=row.data[:-1] + bytes([row.data[-1] ^ 0xFF])),
        lambda row: msgspec.structs.replace(row, data=b"\xc1 not MessagePack"),
        lambda row: msgspec.structs.replace(row, digest="0" * 32),
        lambda row: msgspec.structs.replace(row, digest=""),
    ],
    ids=["byte-changed", "not-msgpack", "other-digest", "no-digest"],
)
def test_a_damaged_row_is_never_served(app: Application, folded: list[str], damage: Any) -> None:
    played(app, 2)
    good = kept_row(app, "f1")
    app.store.side.contributions.put(damage(good))
    folded.clear()
    assert current_hp(app) == HP - 4
    assert folded == ["f1"]
    assert kept_row(app, "f1") == good


def test_another_fights_row_under_this_fights_id_is_never_served(
    app: Application, folded: list[str]
) -> None:
    played(app, 1)
    play(app, "f2", [Hit(target="mira", damage=5), Hit(target="mira", damage=5)])
    app.campaign_record("west", "f2")
    f1 = kept_row(app, "f1")
    swapped = msgspec.structs.replace(kept_row(app, "f2"), fight="f1", version=f1.version)
    app.store.side.contributions.put(swapped)
    folded.clear()
    assert current_hp(app) == HP - 12
    assert folded == ["f1"]


def test_a_row_folded_by_other_rules_is_folded_again(
    app: Application, folded: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    played(app, 2)
    monkeypatch.setattr(campaign_module, "rules_fingerprint", lambda: b"a later woundlog")
    folded.clear()
    assert current_hp(app) == HP - 4
    assert sorted(folded) == ["f1", "f2"]


def test_a_row_that_cannot_be_kept_leaves_the_read_right(
    app: Application, folded: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    played(app, 2)
    app.undo("f1", "h1.0")

    def refuse(row: KeptContribution) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(app.store.side.contributions, "put", refuse)
    folded.clear()
    assert current_hp(app) == HP - 3
    assert current_hp(app) == HP - 3
    assert folded == ["f1", "f1"]  # not kept: folded each time, never wrong


def test_rows_that_cannot_be_read_leave_the_read_right(
    app: Application, folded: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    played(app, 2)

    def unreadable(fights: list[str]) -> None:
        raise OSError("read-only directory")

    monkeypatch.setattr(app.store.side.contributions, "of", unreadable)
    folded.clear()
    assert current_hp(app) == HP - 4
    assert sorted(folded) == ["f1", "f2"]


# -- stop ------------------------------------------------------------------------------------------


class Spent(Exception):
    pass


def stop_after(calls: int) -> Any:
    count = [0]

    def stop() -> None:
        count[0] += 1
        if count[0] > calls:
            raise Spent(f"stopped after {calls}")

    stop.count = count  # type: ignore[attr-defined]
    return stop


def test_every_campaign_read_and_record_takes_a_stop() -> None:
    names = [
        name
        for name in dir(Application)
        if name.startswith("campaign_") or name == "join_from_campaign"
    ]
    assert "campaign_show" in names and "campaign_record" in names
    lacking = [
        n for n in names if "stop" not in inspect.signature(getattr(Application, n)).parameters
    ]
    assert lacking == []


def test_a_stop_is_called_as_the_campaign_is_read_and_can_end_the_work(app: Application) -> None:
    played(app, 3, hits=300, hp=1000)  # more events a fight than STOP_EVERY
    for fight in ("f1", "f2", "f3"):
        app.store.side.contributions.remove(fight)
    counting = stop_after(10_000)
    app.campaign_show("west", stop=counting)
    assert counting.count[0] >= 3 + 3  # each campaign event, and within each fight's fold
    with pytest.raises(Spent):
        app.campaign_show("west", stop=stop_after(2))
    with pytest.raises(Spent):
        app.campaign_history("west", stop=stop_after(2))
    with pytest.raises(Spent):
        app.campaign_report("west", stop=stop_after(8))


def test_a_record_stopped_writes_nothing(app: Application) -> None:
    played(app, 2)
    play(app, "f3", [Hit(target="mira", damage=1)])
    version = app.store.version("campaign~west")
    with pytest.raises(Spent):
        app.campaign_record("west", "f3", stop=stop_after(1))
    assert app.store.version("campaign~west") == version
    app.campaign_record("west", "f3")
    assert current_hp(app) == HP - 5


def test_a_stop_ends_the_record_that_follows_an_import_and_is_raised(app: Application) -> None:
    """An import into a campaign's fight commits, then records the fight: what its budget's
    stop raises there is the budget's end, raised, not the warning a failed record gives."""
    played(app, 2)
    play(app, "f3", [Hit(target="mira", damage=1)])

    class OutOfTime(UsageError):  # what the service's gate raises is a UsageError too
        pass

    def spent() -> None:
        raise OutOfTime("the budget is spent")

    with pytest.raises(OutOfTime):
        app.campaign_record_imported("west", "f3", stop=spent)
    assert app.campaign_record_imported("west", "f3") == (True, [])

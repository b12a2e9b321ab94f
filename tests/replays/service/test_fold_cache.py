"""The service's in-memory fold cache (DESIGN.md section 7): whatever it keeps is the fold.

A hypothesis property over random appends, batches, undos of the newest event and of older ones,
and appends by another writer that does not share the cache (another process), on a real SQLite
store, with a snapshot every few events so the cache meets snapshots too: after each step the
state the cached fight answers, and the one the cache holds, equal a full fold from the store.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import CharacterJoined, FightStarted, Hit, RefusedError, Retract, UsageError
from woundlog.events.stores import SQLiteStore
from woundlog.replays import Fight, snapshots
from woundlog.replays.foldcache import FoldCache

FIGHT = "cached"
FIGHTERS = ("grim", "mira", "snikkit")

steps = st.lists(
    st.one_of(
        st.tuples(st.just("hit"), st.sampled_from(FIGHTERS), st.integers(0, 3)),
        st.tuples(st.just("batch"), st.sampled_from(FIGHTERS), st.integers(2, 4)),
        st.tuples(st.just("undo"), st.just(""), st.just(0)),
        st.tuples(st.just("retract"), st.just(""), st.integers(2, 40)),
        st.tuples(st.just("elsewhere"), st.sampled_from(FIGHTERS), st.integers(0, 2)),
    ),
    max_size=30,
)


def step(cached: Fight, other: Fight, what: tuple[str, str, int]) -> None:
    kind, target, number = what
    try:
        if kind == "hit":
            cached.append([Hit(target=target, damage=number)])
        elif kind == "batch":
            cached.append([Hit(target=target, damage=1) for _ in range(number)])
        elif kind == "undo":
            cached.undo()
        elif kind == "retract":
            cached.append([Retract(event=f"#{min(number, cached.version)}")])
        else:  # another process: appends the cache does not see
            other.append([Hit(target=target, damage=number)])
    except (RefusedError, UsageError):
        pass  # a refused step writes nothing; the property still holds after it


def encoded(state: Any) -> bytes:
    return msgspec.json.encode(state)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_the_cached_state_equals_a_full_fold_after_random_appends_and_undos(
    plan: list[tuple[str, str, int]],
) -> None:
    with (
        tempfile.TemporaryDirectory() as scratch,
        pytest.MonkeyPatch.context() as patch,
        SQLiteStore(Path(scratch) / "fold.db") as store,
    ):
        patch.setattr(snapshots, "SNAPSHOT_EVERY", 4)
        cache = FoldCache()
        cached = Fight(store, FIGHT, cache)
        cached.append(
            [FightStarted(ruleset="mordheim", seed=11)]
            + [CharacterJoined(character=name, side=name, stats={"wounds": 2}) for name in FIGHTERS]
        )
        other = Fight(store, FIGHT)
        for what in plan:
            step(cached, other, what)
            full = Fight(store, FIGHT).state()
            kept = cache.get(store, FIGHT, store.version(FIGHT))
            if kept is not None:
                assert encoded(kept) == encoded(full), what
            assert encoded(cached.state()) == encoded(full), what
            assert cache.get(store, FIGHT, store.version(FIGHT)) is not None  # kept after a read


def test_an_append_to_a_kept_fight_reads_no_events_from_the_store(tmp_path: Path) -> None:
    """The point of the cache: folding only the new events, however long the fight."""
    with SQLiteStore(tmp_path / "fold.db") as store:
        fight = Fight(store, FIGHT, FoldCache())
        fight.append(
            [
                FightStarted(ruleset="mordheim", seed=1),
                CharacterJoined(character="grim", side="reavers"),
            ]
            + [Hit(target="grim", damage=0) for _ in range(300)]
        )
        fight.state()
        read: list[tuple[int, int | None]] = []
        original = store.read

        def counted(name: str, from_seq: int = 1, to_seq: int | None = None) -> Any:
            read.append((from_seq, to_seq))
            return original(name, from_seq, to_seq)

        store.read = counted  # type: ignore[method-assign]
        fight.append([Hit(target="grim", damage=0)])
        assert read == []


def mordheim_fight(seed: int, damage: int) -> list[Any]:
    return [
        FightStarted(ruleset="mordheim", seed=seed),
        CharacterJoined(character="grim", side="reavers", stats={"wounds": 2}),
        Hit(target="grim", damage=damage),
    ]


@pytest.mark.parametrize("seed", [5, 6])
def test_a_fight_deleted_and_made_again_by_another_process_is_folded_from_its_own_log(
    tmp_path: Path, seed: int
) -> None:
    """The CLI deletes the fight and makes it again while the server runs: the server's cache
    is never told, and the new log reaches the old one's version. With the same seed (5) the
    first events are alike and only the newest tells the logs apart."""
    with SQLiteStore(tmp_path / "fold.db") as store:
        cache = FoldCache()
        served = Fight(store, FIGHT, cache)
        served.append(mordheim_fight(5, 1))
        old = encoded(served.state())
        assert store.delete_fight(FIGHT)
        Fight(store, FIGHT).append(mordheim_fight(seed, 0))
        assert store.version(FIGHT) == 3
        new = encoded(Fight(store, FIGHT).state())
        assert new != old
        assert encoded(Fight(store, FIGHT, cache).state()) == new
        assert encoded(cache.get(store, FIGHT, 3)) == new  # the old fold is gone for good


def test_a_forgotten_fight_is_not_kept(tmp_path: Path) -> None:
    """The service forgets the fights it deletes: their states take no room in the cache."""
    with SQLiteStore(tmp_path / "fold.db") as store:
        cache = FoldCache()
        Fight(store, FIGHT, cache).append(mordheim_fight(5, 1))
        assert cache.get(store, FIGHT, 3) is not None
        cache.forget(FIGHT)
        assert cache.get(store, FIGHT, 3) is None

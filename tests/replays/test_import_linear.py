"""`woundlog import FILE` is one pass over the file (issue 14): an undo event in it refolds from
the newest state the import keeps that still holds, not from the first event, so the reducer
runs about as many times as there are events, however many undo events there are.

Counted, not timed: the import checks each event as the strict fold does (the timeline's
`advance`, as `apply`), and every such step goes through the reducer's `_effect`, so the test
counts its calls, each still running the real reducer. (The state-only `Fold` takes its own
quick steps for hits, heals and ticks: it is not what an import runs.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from woundlog.core import reducer
from woundlog.events import decode_json
from woundlog.events.stores import SQLiteStore
from woundlog.replays.cli import app
from woundlog.replays.fight import Fight
from woundlog.replays.fold import replay

BLOCK = 10
"""Events per block of the generated log: seven hits, a tick, an undo, and one of three more."""


def fight_log(events: int) -> list[dict[str, Any]]:
    """A Mordheim fight of `events` events, one undo event in every five: the hit three events
    back retracted; every fifth block that retract itself retracted (the hit comes back); every
    fifth, offset by one, a hit ten blocks back amended (a reach past a kept state or two)."""
    log: list[dict[str, Any]] = [
        {"type": "fight_started", "ruleset": "mordheim", "seed": 7},
        {"type": "character_joined", "character": "grim", "name": "Grim", "side": "reavers"},
        {"type": "character_joined", "character": "ulf", "name": "Ulf", "side": "marauders"},
    ]
    block = 0
    while len(log) < events:
        base = len(log)  # the block's first event is at seq base + 1
        for offset in range(1, 8):
            target = ("grim", "ulf")[offset % 2]
            hit: dict[str, Any] = {"type": "hit", "id": f"h{base + offset}", "target": target}
            hit["damage"] = 1 if offset in (3, 4) else 0
            if hit["damage"]:
                hit["rolls"] = {"injury": [1 + 2 * ((block + offset) % 2)]}
            log.append(hit)
        log.append({"type": "turn_started", "round": block + 1, "side": "reavers"})
        log.append({"type": "retract", "event": f"h{base + 6}", "reason": "missed"})
        if block % 5 == 0 and block:
            log.append({"type": "retract", "event": f"#{base + 9}", "reason": "it hit after all"})
        elif block % 5 == 1 and block > 10:
            old = base - 10 * BLOCK + 2
            replacement = {"type": "hit", "target": "ulf", "damage": 0}
            log.append({"type": "amend", "event": f"h{old}", "replacement": replacement})
        else:
            log.append({"type": "turn_started", "round": block + 1, "side": "marauders"})
        block += 1
    return log[:events]


def write(path: Path, log: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in log))
    return path


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def folds(monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """How many events the reducer has folded so far (the real reducer, counted)."""
    calls = [0]
    real = reducer._effect

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(reducer, "_effect", counted)
    return lambda: calls[0]


def test_importing_four_times_the_events_folds_about_four_times_as_many(
    tmp_path: Path, folds: Callable[[], int]
) -> None:
    counts = {}
    for size in (1000, 4000):
        file = write(tmp_path / f"long-{size}.jsonl", fight_log(size))
        before = folds()
        result = run("import", file, "--db", tmp_path / "fights.db")
        assert result.exit_code == 0, result.output
        assert f"imported {size} events" in result.stdout
        counts[size] = folds() - before
    # quadratic (each undo event refolding from the first event) is about 14 times as many
    assert counts[4000] < 5 * counts[1000], counts
    assert counts[4000] < 20 * 4000, counts  # and a bounded number per event


def test_an_imported_log_with_undo_events_stands_as_its_file_replays(tmp_path: Path) -> None:
    """The kept states are a cache: what the import stores folds to what the file replays to,
    at the end and at points around undo events that reach back past a kept state."""
    file = write(tmp_path / "long.jsonl", fight_log(1200))
    db = tmp_path / "fights.db"
    assert run("replay", file, "--strict").exit_code == 0  # every event applies as written
    assert run("import", file, "--db", db).exit_code == 0
    for at in (None, 130, 519, 520, 521, 1199, 1200):
        where = () if at is None else ("--at", str(at))
        stored = run("state", "long", *where, "--json", "--db", db)
        replayed = run("replay", file, *where, "--json")
        assert stored.exit_code == replayed.exit_code == 0, stored.output + replayed.output
        assert json.loads(stored.stdout) == json.loads(replayed.stdout), at


def test_a_batch_refused_after_an_undo_event_names_the_same_events_as_before(
    tmp_path: Path,
) -> None:
    """A refused event in the middle of a long log with undo events: every refusal named, with
    its line, as a fold from the first event would name them."""
    log = fight_log(700)
    log[400] = {"type": "hit", "target": "nobody", "damage": 1}
    log[650] = {"type": "heal", "target": "ghost", "amount": 1, "means": "bandage"}
    result = run("import", write(tmp_path / "bad.jsonl", log), "--db", tmp_path / "fights.db")
    assert result.exit_code == 3, result.output
    assert "line 401" in result.output and "line 651" in result.output, result.output
    assert "nobody" in result.output and "ghost" in result.output, result.output


def test_a_batch_whose_undo_events_reach_into_the_stored_fight_folds_as_the_whole_log(
    tmp_path: Path,
) -> None:
    """Appended onto a stored fight, a batch starts from the fight's state; an undo event that
    names a stored event makes that state no longer hold, and the fold starts in the store."""
    log = fight_log(900)
    log[700] = {"type": "retract", "event": "h404", "reason": "stored, and undone from the batch"}
    log[800] = {"type": "retract", "event": "#701", "reason": "and that undone too"}
    events = [decode_json(json.dumps(e).encode()) for e in log]
    with SQLiteStore(tmp_path / "fights.db") as store:
        fight = Fight(store, "split")
        fight.append(events[:600], expected_version=0)
        appended = fight.append(events[600:], expected_version=600)
        assert appended.version == 900 and len(appended.changes) == 300
        for at in (650, 700, 701, 750, 801, 900):
            replayed = list(replay(events, at=at))[-1][0]
            assert Fight(store, "split").state(at) == replayed, at

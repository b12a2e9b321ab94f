"""The state-only fold (`fold_pairs`, which `fold_state` and a file replay go through) works out
each event's fate in its own loop, and skips that work for a log without undo events: it must
end where the general fold (`fold`, through `Undo.played`, each event's changes worked out) ends,
at every point of a log with undo events and without, voiding the same events (issue 28)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import Event, Retract
from woundlog.events.stores import Stored
from woundlog.replays.files import replay_file, replay_file_state
from woundlog.replays.fold import fold_pairs, fold_state, replay
from woundlog.replays.undo import resolve

from ..strategies import mordheim_logs


def general(log: list[Event]) -> tuple[list[Any], list[int]]:
    """The state after each event, by the general fold, and the seqs it voided."""
    steps = list(replay(log))
    return [state for state, _ in steps], [c.seq for _, c in steps if c.void is not None]


def state_only(log: list[Event], at: int) -> tuple[Any, list[int]]:
    prefix = log[:at]
    undo = resolve((seq, None, event) for seq, event in enumerate(prefix, start=1))
    voided: list[int] = []
    state = fold_pairs(
        enumerate(prefix, start=1), undo, on_void=lambda seq, name, why: voided.append(seq)
    )
    return state, voided


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=mordheim_logs(undo=False), named=st.booleans())
def test_a_log_without_undo_events_folds_to_every_state_the_general_fold_reaches(
    log: list[Event], named: bool
) -> None:
    if named:  # ids the undo check would look up, were there undo events
        log = [log[0], *(msgspec.structs.replace(e, id=f"e{n}") for n, e in enumerate(log[1:]))]
    states, voided = general(log)
    for at in range(1, len(log) + 1):
        state, void = state_only(log, at)
        assert state == states[at - 1]
        assert void == [seq for seq in voided if seq <= at]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=mordheim_logs(undo=True, min_size=4))
def test_a_log_with_undo_events_folds_to_every_state_the_general_fold_reaches(
    log: list[Event],
) -> None:
    for at in range(1, len(log) + 1):
        # the general fold of the prefix: later undo events do not reach back into it
        states, voided = general(log[:at])
        state, void = state_only(log, at)
        assert state == states[-1]
        assert void == voided


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=mordheim_logs(undo=False, min_size=6))
def test_a_retracted_event_named_by_id_or_position_is_passed_over_in_its_place(
    log: list[Event],
) -> None:
    target = len(log) - 1  # a blow or a turn, never fight_started
    log = [*log[:-1], msgspec.structs.replace(log[-1], id="this")]
    for name in ("this", f"#{target + 1}"):
        undone = [*log, Retract(event=name, reason="test")]
        states, _ = general(undone)
        state, _ = state_only(undone, len(undone))
        assert state == states[-1]
        assert state.seq == len(undone)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=mordheim_logs(undo=True, min_size=4))
def test_a_file_and_stored_events_fold_as_the_general_fold(log: list[Event]) -> None:
    states, voided = general(log)
    undo = resolve((seq, None, event) for seq, event in enumerate(log, start=1))
    stored = [Stored(seq, event) for seq, event in enumerate(log, start=1)]
    assert fold_state(stored, undo) == states[-1]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "fight.jsonl")
        path.write_bytes(b"".join(msgspec.json.encode(e) + b"\n" for e in log))
        heard: list[int] = []
        assert replay_file_state(path, on_void=lambda void: heard.append(void.seq)) == states[-1]
        assert heard == voided


def test_a_file_read_a_block_at_a_time_folds_names_lines_and_stops_where_the_general_fold_does(
    tmp_path: Path,
) -> None:
    """`replay_file_state` takes a file's events a block of lines at a time
    (`read_jsonl_blocks`): across many blocks, a blank line among them, it ends where
    `replay_file` ends, names each void event's line as it does, and stops at `at` without
    refusing the broken line right after it."""
    from woundlog.events.codec import BLOCK

    lines = [
        '{"type":"fight_started","ruleset":"mordheim"}',
        '{"type":"character_joined","character":"a","side":"x","stats":{"wounds":3}}',
        '{"type":"character_joined","character":"b","side":"y","stats":{"wounds":3}}',
    ]
    blows = 3 * BLOCK // 60  # some sixty bytes a line: a few blocks
    for n in range(blows):
        if n == blows // 2:
            lines.append("")  # a blank line: seqs fall one behind line numbers
            lines.append('{"type":"hit","target":"nobody","damage":1}')  # void
        lines.append('{"type":"hit","target":"a","damage":0,"attacker":"b"}')
    lines.append('{"type":"hit","target":"a","damage":0,"attacker":"b"}')
    at = len(lines) - 1  # the last good event's seq: one line is blank
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join([*lines, "{broken"]) + "\n")
    full: list[Any] = []
    quick: list[Any] = []
    states = [state for state, _ in replay_file(path, at=at, on_void=full.append)]
    state = replay_file_state(path, at=at, on_void=quick.append)
    assert state == states[-1] and state is not None and state.seq == at
    assert quick == full and [v.line for v in quick] == [3 + blows // 2 + 2]

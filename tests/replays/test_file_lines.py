"""A replayed file names the line of each event it voids or refuses, wherever the event lies:
in a block of plain lines, whose events the fold takes straight from the block's list (the
line worked out from the place taken, issue 42), or in a block read line by line (a blank
line, a line that is not its event's own encoding), whose lines are noted as each is taken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from woundlog.events import RuleError
from woundlog.events.codec import BLOCK, read_jsonl_decoded
from woundlog.replays.files import replay_file, replay_file_state

START = [
    '{"type":"fight_started","ruleset":"mordheim"}',
    '{"type":"character_joined","character":"a","side":"x","stats":{"wounds":3}}',
    '{"type":"character_joined","character":"b","side":"y","stats":{"wounds":3}}',
]
BLOW = '{"type":"hit","target":"a","damage":0,"attacker":"b"}'
VOID = '{"type":"hit","target":"nobody","damage":1}'
BLOWS = 4 * BLOCK // len(BLOW)  # a few blocks of lines


def written(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def voided_lines(path: Path, at: int | None = None) -> list[int]:
    quick: list[Any] = []
    full: list[Any] = []
    state = replay_file_state(path, at=at, on_void=quick.append)
    states = [state for state, _ in replay_file(path, at=at, on_void=full.append)]
    assert state == states[-1]
    assert quick == full
    return [void.line for void in quick]


@pytest.mark.parametrize("place", [0, 1, BLOWS // 2, BLOWS - 1])
def test_a_void_event_in_a_plain_block_is_named_by_its_line(tmp_path: Path, place: int) -> None:
    lines = [*START, *[BLOW] * BLOWS]
    lines.insert(len(START) + place, VOID)
    path = written(tmp_path / "f.jsonl", lines)
    assert all(block.plain is not None for block in read_jsonl_decoded(path))
    assert voided_lines(path) == [len(START) + place + 1]


def test_void_events_are_named_by_their_lines_across_plain_and_noted_blocks(
    tmp_path: Path,
) -> None:
    lines = [*START, *[BLOW] * BLOWS]
    for at in (BLOWS, BLOWS // 2 + 3, BLOWS // 3, 10):  # from the end, so each place holds
        lines.insert(len(START) + at, VOID)
    lines.insert(len(START) + BLOWS // 2, "")  # a blank line: its block is read line by line
    path = written(tmp_path / "f.jsonl", lines)
    kinds = [block.plain is None for block in read_jsonl_decoded(path)]
    assert any(kinds) and not all(kinds)
    expected = [number for number, line in enumerate(lines, start=1) if line == VOID]
    assert voided_lines(path) == expected


def test_an_event_the_rules_refuse_under_strict_is_named_by_its_line(tmp_path: Path) -> None:
    lines = [*START, *[BLOW] * BLOWS]
    lines.insert(len(START) + BLOWS // 2, VOID)
    path = written(tmp_path / "f.jsonl", lines)
    with pytest.raises(RuleError) as refused:
        replay_file_state(path, strict=True)
    assert refused.value.line == len(START) + BLOWS // 2 + 1


@pytest.mark.parametrize("at", [len(START) + 1, len(START) + BLOWS // 2, len(START) + BLOWS])
def test_a_replay_to_an_event_of_a_plain_block_stops_there(tmp_path: Path, at: int) -> None:
    lines = [*START, *[BLOW] * BLOWS, VOID]
    path = written(tmp_path / "f.jsonl", lines)
    state = replay_file_state(path, at=at)
    assert state is not None and state.seq == at
    assert voided_lines(path, at) == []
    assert voided_lines(path, len(lines)) == [len(lines)]


def test_the_undo_scan_takes_the_lines_an_undo_or_an_id_is_written_in_and_no_other(
    tmp_path: Path,
) -> None:
    """Pass one decodes the lines undo needs: the first, those with an `id`, every `retract`
    and `amend` (found by the field `event` they alone have, even escaped), not a blow whose
    note says `retract` or `amend`."""
    from woundlog.replays.files import _undo_lines

    lines = [
        *START,
        '{"type":"hit","target":"a","damage":0,"note":"retract this, amend that"}',
        '{"type":"hit","id":"blow","target":"a","damage":0}',
        '{"type":"retract","event":"blow"}',
        '{"type":"amend","event":"#4","replacement":{"type":"hit","target":"a","damage":1}}',
        '{"type":"retract","\\u0065vent":"#5"}',
        BLOW,
    ]
    path = written(tmp_path / "f.jsonl", lines)
    assert [seq for seq, _, _ in _undo_lines(path)] == [1, 5, 6, 7, 8]
    state = replay_file_state(path)
    assert state is not None and state.seq == len(lines)

"""What a Fight costs its store: the JSON Lines store reads a whole file per call, so the number
of times a read or an append opens the fight's file must not grow with the fight's undo events
(issue 11, item 9: 315 undos once made a state 315 scans of a 36,000-event file).

Counted with an audit hook on `open`, which sees every file the process opens, without
touching the store."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from woundlog.events import CharacterJoined, Event, FightStarted, Hit, Retract
from woundlog.events.stores import JsonlStore
from woundlog.replays import Fight

_watched: list[str] = []  # the file being counted, while a count runs
_opens: list[str] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _watched and str(args[0]) == _watched[0]:
        _opens.append(_watched[0])


_hooked: list[bool] = []


def opens_of(path: Path, action: Callable[[], object]) -> int:
    """How often `action` opens `path`."""
    if not _hooked:
        # Hooks cannot be removed, and this one is called for every audited event of the rest
        # of the session (a frame's `f_code` read by a tracer among them): added at the first
        # count, not when the tests are collected, so the tests before it run without it.
        sys.addaudithook(_audit)
        _hooked.append(True)
    _watched.append(str(path))
    _opens.clear()
    try:
        action()
        return len(_opens)
    finally:
        _watched.clear()


def fight_with_undos(directory: Path, undos: int) -> Fight:
    """A fight of 400 blows, `undos` of them retracted, written straight to the store."""
    log: list[Event] = [FightStarted(ruleset="mordheim")]
    log += [CharacterJoined(character=f"c{i}", side="ab"[i % 2]) for i in range(4)]
    for i in range(400):
        log.append(Hit(target=f"c{i % 4}", damage=0))
        if i % (400 // undos) == 0 and i // (400 // undos) < undos:
            log.append(Retract(event=f"#{len(log)}", reason="never happened"))
    store = JsonlStore(directory)
    store.append("pit", log)
    assert len(store.undo_events("pit")) == undos
    return Fight(store, "pit")


@pytest.mark.parametrize(
    "action",
    [
        lambda fight: fight.state(),
        lambda fight: fight.state(at=300),
        lambda fight: fight.append([Hit(target="c1", damage=0) for _ in range(20)]),
        lambda fight: fight.undo("#7"),
        lambda fight: fight.amend("#8", Hit(target="c2", damage=0)),
    ],
    ids=["state", "state-at", "append", "undo", "amend"],
)
def test_a_jsonl_fight_opens_its_file_as_often_with_60_undos_as_with_3(
    tmp_path: Path, action: Callable[[Fight], object]
) -> None:
    few = fight_with_undos(tmp_path / "few", 3)
    many = fight_with_undos(tmp_path / "many", 60)
    opened_few = opens_of(tmp_path / "few" / "pit.jsonl", lambda: action(few))
    opened_many = opens_of(tmp_path / "many" / "pit.jsonl", lambda: action(many))
    assert opened_many == opened_few
    assert opened_few < 15  # a handful of scans, whatever the fight holds


def blows_taken_back(fight: Fight, undos: int) -> list[Event]:
    """A batch of 40 blows, `undos` of them retracted by undo events of the same batch."""
    batch: list[Event] = []
    for i in range(40):
        batch.append(Hit(target=f"c{i % 4}", damage=0))
        if i < undos:
            batch.append(Retract(event=f"#{fight.version + len(batch)}", reason="never happened"))
    return batch


def test_undoing_events_of_the_same_batch_does_not_reread_a_jsonl_fight_per_undo(
    tmp_path: Path,
) -> None:
    one = fight_with_undos(tmp_path / "one", 3)
    ten = fight_with_undos(tmp_path / "ten", 3)
    batch_one, batch_ten = blows_taken_back(one, 1), blows_taken_back(ten, 10)
    opened_one = opens_of(tmp_path / "one" / "pit.jsonl", lambda: one.append(batch_one))
    opened_ten = opens_of(tmp_path / "ten" / "pit.jsonl", lambda: ten.append(batch_ten))
    assert opened_ten == opened_one
    assert len(ten.undo_resolution().events) == 13

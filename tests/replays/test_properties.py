"""The invariants of DESIGN.md, as hypothesis properties over generated Mordheim fights."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.core import RULESETS, FightState
from woundlog.events import Amend, Event, Hit, Retract, write_jsonl
from woundlog.events.stores import Stored
from woundlog.replays import fold_state, replay, snapshots
from woundlog.replays.undo import Undo

from ..invariants import moves_stay_in_the_machine, replays_every_event
from ..strategies import mordheim_logs


def final(events: list[Event]) -> FightState[Any]:
    steps = list(replay(events))
    return steps[-1][0]


def characters_json(state: FightState[Any]) -> bytes:
    return msgspec.json.encode(state.characters)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mordheim_logs())
def test_same_log_gives_identical_json_in_fresh_processes_with_other_hash_seeds(
    tmp_path_factory: Any, log: list[Event]
) -> None:
    path = tmp_path_factory.mktemp("det") / "fight.jsonl"
    with open(path, "wb") as out:
        write_jsonl(out, log)
    script = (
        "import sys, msgspec\n"
        "from woundlog.replays import replay_file\n"
        "steps = list(replay_file(sys.argv[1]))\n"
        "sys.stdout.buffer.write(msgspec.json.encode([steps[-1][0], [c for _, c in steps]]))\n"
    )
    outputs = []
    for seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script, str(path)], env=env, capture_output=True, check=True
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])[0]["seq"] == len(log)


@settings(max_examples=60, deadline=None)
@given(mordheim_logs(), st.data())
def test_snapshot_plus_tail_equals_the_full_fold(log: list[Event], data: st.DataObject) -> None:
    at = data.draw(st.integers(1, len(log)))
    full = final(log)
    snapshot = snapshots.encode(final(log[:at]))
    undo = Undo(
        Stored(seq, e) for seq, e in enumerate(log, start=1) if isinstance(e, Retract | Amend)
    )
    targets = [(s.seq, _target_seq(s.event.event, log)) for s in undo.events]  # type: ignore[union-attr]
    if not snapshots.usable(at, targets):
        return  # an undo after the snapshot reaches back before it: the fold must start earlier
    tail = (Stored(seq, e) for seq, e in enumerate(log, start=1) if seq > at)
    resumed = fold_state(tail, undo, state=snapshots.decode(snapshot))
    assert msgspec.json.encode(resumed) == msgspec.json.encode(full)


def _target_seq(name: str, log: list[Event]) -> int | None:
    if name.startswith("#"):
        return int(name[1:])
    return next((i for i, e in enumerate(log, start=1) if e.id == name), None)


@settings(max_examples=80, deadline=None)
@given(mordheim_logs(undo=False, named=True, min_size=1), st.data())
def test_retract_equals_the_log_without_the_event(log: list[Event], data: st.DataObject) -> None:
    index = data.draw(st.integers(5, len(log) - 1))  # after the joins: nothing later names it
    retracted = final([*log, Retract(event=log[index].id or "")])
    removed = final(log[:index] + log[index + 1 :])
    assert characters_json(retracted) == characters_json(removed)


@settings(max_examples=80, deadline=None)
@given(mordheim_logs(undo=False, named=True, min_size=1), st.data())
def test_amend_equals_the_replacement_in_its_place(log: list[Event], data: st.DataObject) -> None:
    index = data.draw(st.integers(5, len(log) - 1))
    replacement = Hit(
        target=data.draw(st.sampled_from(["grim", "snik"])),
        damage=data.draw(st.integers(0, 3)),
        rolls={"injury": data.draw(st.lists(st.integers(1, 6), max_size=2))},
    )
    amended = final([*log, Amend(event=log[index].id or "", replacement=replacement)])
    in_place = final(
        [*log[:index], msgspec.structs.replace(replacement, id=log[index].id), *log[index + 1 :]]
    )
    assert characters_json(amended) == characters_json(in_place)


@settings(max_examples=80, deadline=None)
@given(mordheim_logs(undo=False, named=True, min_size=1), st.data())
def test_retracting_one_event_changes_no_other_events_drawn_dice(
    log: list[Event], data: st.DataObject
) -> None:
    index = data.draw(st.integers(5, len(log) - 1))
    before = {c.event: c.dice for _, c in replay(log)}
    after = {c.event: c.dice for _, c in replay([*log, Retract(event=log[index].id or "")])}
    for event, dice in before.items():
        if event == log[index].id:
            continue
        for old, new in zip(dice, after.get(event, []), strict=False):
            if old.source == new.source == "drawn":
                assert (old.purpose, old.value) == (new.purpose, new.value)


@settings(max_examples=150, deadline=None)
@given(mordheim_logs())
def test_no_fold_makes_a_transition_outside_the_rulesets_machine(log: list[Event]) -> None:
    moves_stay_in_the_machine("mordheim", log)


@settings(max_examples=150, deadline=None)
@given(mordheim_logs())
def test_a_random_stream_of_events_never_crashes_replay(log: list[Event]) -> None:
    replays_every_event(log)


def test_every_state_of_each_machine_is_reachable_from_its_first() -> None:
    for rules in RULESETS.values():
        reached, frontier = {rules.graph.initial}, [rules.graph.initial]
        while frontier:
            state = frontier.pop()
            for (source, _), dest in rules.graph.table.items():
                if source == state and dest not in reached:
                    reached.add(dest)
                    frontier.append(dest)
        assert reached == set(rules.graph.states), rules.name


def test_no_machine_leaves_dead_unless_its_ruleset_declares_it() -> None:
    for rules in RULESETS.values():
        leaves_dead = {dest for (source, _), dest in rules.graph.table.items() if source == "dead"}
        assert not leaves_dead or getattr(rules, "raises_the_dead", False), rules.name


def test_every_shipped_example_replays_identically_under_other_hash_seeds() -> None:
    from importlib.resources import files

    examples = sorted(
        str(path)
        for path in files("woundlog.replays").joinpath("data").iterdir()
        if str(path).endswith(".jsonl")
    )
    script = (
        "import sys, msgspec\n"
        "from woundlog.replays import replay_file\n"
        "for path in sys.argv[1:]:\n"
        "    steps = list(replay_file(path))\n"
        "    sys.stdout.buffer.write(msgspec.json.encode([steps[-1][0], [c for _, c in steps]]))\n"
    )
    outputs = [
        subprocess.run(
            [sys.executable, "-c", script, *examples],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            check=True,
        ).stdout
        for seed in ("0", "4242")
    ]
    assert len(examples) >= 5  # one or more per ruleset
    assert outputs[0] == outputs[1]

"""The invariants of DESIGN.md, as hypothesis properties over generated Mordheim fights."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.core import RULESETS, Changes, FightState, get_ruleset
from woundlog.events import (
    Amend,
    Event,
    FightStarted,
    GameEvent,
    Hit,
    Retract,
    TurnEnded,
    TurnStarted,
    event_ref,
    write_jsonl,
)
from woundlog.events.stores import Stored
from woundlog.replays import fold_state, replay, snapshots
from woundlog.replays.undo import Undo, resolve

from ..invariants import dice_of, replays_every_event, undo_moves_no_other_die
from ..strategies import FIGHTERS, FIRST_AFTER_JOINS, mordheim_logs

MORDHEIM = get_ruleset("mordheim")


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
    # an undo after the snapshot that names an event at or before it (or none at all) reaches
    # into what the snapshot folded: the fold must start earlier, and `usable` must say so
    reaches_back = any(seq > at and (t is None or t <= at) for seq, t in targets)
    assert snapshots.usable(at, targets) is not reaches_back
    if reaches_back:
        return
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
    index = data.draw(st.integers(FIRST_AFTER_JOINS, len(log) - 1))  # nothing later names it
    retracted = final([*log, Retract(event=log[index].id or "")])
    removed = final(log[:index] + log[index + 1 :])
    assert characters_json(retracted) == characters_json(removed)


@settings(max_examples=80, deadline=None)
@given(mordheim_logs(undo=False, named=True, min_size=1), st.data())
def test_amend_equals_the_replacement_in_its_place(log: list[Event], data: st.DataObject) -> None:
    index = data.draw(st.integers(FIRST_AFTER_JOINS, len(log) - 1))
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


def replacement_for(event: Event, data: st.DataObject) -> GameEvent:
    """Something else that could have been recorded in the event's place."""
    if isinstance(event, TurnStarted | TurnEnded):
        return type(event)(side=data.draw(st.sampled_from(["reavers", "skaven"])))
    given = data.draw(st.lists(st.integers(1, 6), max_size=2))
    return Hit(
        target=data.draw(st.sampled_from(sorted(FIGHTERS))),
        damage=data.draw(st.integers(0, 3)),
        rolls={"injury": given} if given else {},
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans().flatmap(lambda named: mordheim_logs(version=2, named=named)), st.data())
def test_retracting_or_amending_any_event_changes_no_die_of_any_other_event(
    log: list[Event], data: st.DataObject
) -> None:
    """DESIGN.md section 4 and issue 10 section 1, over version-2 fights."""
    seq = data.draw(st.integers(2, len(log)))  # fight_started cannot be undone
    event = log[seq - 1]
    name = event_ref(event, seq)
    if isinstance(event, Retract | Amend):
        # undoing an undo event gives back (or takes away) what it did to the events it
        # named: those may roll otherwise; no other event may
        undo: Event = Retract(event=name, reason="property")
        undone = {name} | fate_changed(log, [*log, undo])
        before, after = dice_of(log), dice_of([*log, undo])
        for key in before.keys() & after.keys() - {k for k in before if k[0] in undone}:
            old, new = before[key], after[key]
            assert old[: len(new)] == new[: len(old)], (key, old, new)
        return
    if data.draw(st.booleans()):
        undo = Retract(event=name, reason="property")
    else:
        undo = Amend(event=name, replacement=replacement_for(event, data), reason="property")
    undo_moves_no_other_die(log, undo, name)


def fate_changed(log: list[Event], undone: list[Event]) -> set[str]:
    """The events of `log` whose fate (standing, retracted, replaced by what) differs in
    `undone`, a longer log: what its last undo events did to the events they name."""

    def fates(events: list[Event]) -> dict[str, Any]:
        undo = resolve((seq, None, event) for seq, event in enumerate(events, start=1))
        return {
            event_ref(event, seq): (fate.replacement if fate else event, fate is None)
            for seq, event in enumerate(events, start=1)
            for fate in [undo.fate(seq, event)]
        }

    old, new = fates(log), fates(undone)
    return {name for name in old if old[name] != new[name]}


# --- replay never crashes, and every step says what it did --------------------------------------


def effective(log: list[Event]) -> list[Event | None]:
    """Per position, the event the fold applies there: the event, its replacement, or None
    for an event retracted (skipped) and for an undo event (a marker that changes nothing).

    Worked out here from DESIGN.md section 6, not by the code under test: an undo event names
    an earlier event (by `#N` or its id); a retract stands unless a later retract that stands
    names it (retracting a retract restores its event), so whether each stands is settled
    from the newest back; of the amends that stand, the newest names the replacement, which
    keeps the slot's id."""
    seq_of: dict[str, int] = {}
    for seq, event in enumerate(log, start=1):
        seq_of[f"#{seq}"] = seq
        if event.id is not None:
            seq_of[event.id] = seq
    stands = [True] * (len(log) + 1)
    for seq in range(len(log), 0, -1):  # every retract naming `seq` comes after it
        event = log[seq - 1]
        if isinstance(event, Retract) and stands[seq]:
            stands[seq_of[event.event]] = False
    replaced: dict[int, Event] = {}
    for seq, event in enumerate(log, start=1):  # in order: the newest amend is written last
        if isinstance(event, Amend) and stands[seq]:
            replaced[seq_of[event.event]] = event.replacement
    applied: list[Event | None] = []
    for seq, event in enumerate(log, start=1):
        if isinstance(event, Retract | Amend) or not stands[seq]:
            applied.append(None)
        elif seq in replaced:
            replacement = replaced[seq]
            if replacement.id is None and event.id is not None:
                replacement = msgspec.structs.replace(replacement, id=event.id)
            applied.append(replacement)
        else:
            applied.append(event)
    return applied


def fields(character: Any) -> dict[str, Any]:
    return msgspec.structs.asdict(character)


def check_changes_are_the_state_diff(
    before: dict[str, Any], after: dict[str, Any], changes: Changes
) -> None:
    """The characters an event reports are exactly those whose state data changed, each with
    its state before and after and every other field that changed, old and new."""
    changed = [cid for cid, now in after.items() if before.get(cid) != now]
    assert [c.character for c in changes.characters] == changed, changes
    for change in changes.characters:
        now, was = after[change.character], before.get(change.character)
        assert change.after == now.state and change.name == now.name
        if was is None:
            assert change.before is None
            continue
        assert change.before == was.state
        old, new = fields(was), fields(now)
        expected = {}
        for field in old:
            if field in ("state", "injuries") or old[field] == new[field]:
                continue
            if isinstance(new[field], dict):
                for key in {**old[field], **new[field]}:
                    if old[field].get(key) != new[field].get(key):
                        expected[f"{field}.{key}"] = (old[field].get(key), new[field].get(key))
            else:
                expected[field] = (old[field], new[field])
        assert change.counters == expected, (change, expected)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mordheim_logs())
def test_every_replayed_event_reports_exactly_what_it_changed(log: list[Event]) -> None:
    steps = replays_every_event(log)
    applied = effective(log)
    before: dict[str, Any] = {}
    for (state, changes), event in zip(steps, applied, strict=True):
        after = state.characters
        if changes.void is not None or event is None:  # void, skipped, or an undo marker
            assert after == before, changes
            assert changes.characters == [] and changes.dice == [], changes
        else:
            check_changes_are_the_state_diff(before, after, changes)
        if event is None and changes.void is None and changes.undone is not None:
            assert changes.explanation == "not replayed"
        before = after


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mordheim_logs())
def test_every_blow_rolls_one_injury_die_per_wound_at_or_past_zero_until_out_of_action(
    log: list[Event],
) -> None:
    steps = replays_every_event(log)
    before: dict[str, Any] = {}
    for (state, changes), event in zip(steps, effective(log), strict=True):
        if changes.void is None and isinstance(event, Hit):
            wounds = before[event.target].wounds
            past_zero = max(0, event.damage - wounds + 1) if wounds else event.damage
            values = [d.value for d in changes.dice]
            # one die per wound past zero, given dice first, until one is out of action (5-6)
            assert all(value <= 4 for value in values[:-1])
            assert len(values) == past_zero or (len(values) < past_zero and values[-1] >= 5)
            rolled = len(values)
            given = event.rolls.get("injury", [])
            assert [d.purpose for d in changes.dice] == ["injury"] * rolled
            assert all(1 <= d.value <= 6 and d.sides == 6 for d in changes.dice)
            assert [d.value for d in changes.dice[: len(given)]] == given[:rolled]
            sources = ["given"] * min(rolled, len(given)) + ["drawn"] * max(0, rolled - len(given))
            assert [d.source for d in changes.dice] == sources
            assert changes.unused == ({"injury": given[rolled:]} if given[rolled:] else {})
            assert state.characters[event.target].wounds == max(0, wounds - event.damage)
        else:
            assert changes.dice == [], changes  # recovery phases and turn ends roll nothing
        before = state.characters


WORSE = {"upright": 0, "knocked_down": 1, "stunned": 2, "out_of_action": 3}
"""Mordheim's injury results from least to most severe, as the text orders them (1-2 knocked
down, 3-4 stunned, 5-6 out of action): typed here, not read from the code under test."""


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mordheim_logs())
def test_blows_only_worsen_recoveries_only_raise_one_step_and_out_of_action_is_final(
    log: list[Event],
) -> None:
    steps = replays_every_event(log)
    before: dict[str, Any] = {}
    for (state, _), event in zip(steps, effective(log), strict=True):
        for cid, now in state.characters.items():
            was = before.get(cid)
            if was is None:
                continue
            assert 0 <= now.wounds <= now.stats["wounds"]
            rise = WORSE[was.state] - WORSE[now.state]
            if isinstance(event, Hit):
                assert rise <= 0, (event, was.state, now.state)
            elif isinstance(event, TurnStarted):
                assert rise in (0, 1), (event, was.state, now.state)
            else:
                assert rise == 0, (event, was.state, now.state)
            if was.state == "out_of_action":
                assert now.state == "out_of_action"
            if now.half_rate:
                assert now.state != "knocked_down" or was.half_rate  # only standing sets it
        before = state.characters


def test_generated_fights_are_real_and_reach_every_state_and_move_of_the_machine() -> None:
    """Over a fixed set of generated fights: every state and every declared move is reached,
    fights are long, void events are few, and every kind of undo comes up."""
    states: set[str] = set()
    moves: set[tuple[str, str]] = set()
    after_joins: list[int] = []
    hits_each: list[float] = []  # per fight, the median number of blows a fighter takes
    counts = dict.fromkeys(["events", "void", "retract", "amend", "unretract", "version 2"], 0)

    @settings(
        max_examples=100,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(mordheim_logs())
    def collect(log: list[Event]) -> None:
        after_joins.append(len(log) - FIRST_AFTER_JOINS)
        struck = [e.target for e in log if isinstance(e, Hit)]
        hits_each.append(statistics.median(struck.count(cid) for cid in FIGHTERS))
        start = log[0]
        assert isinstance(start, FightStarted)
        counts["version 2"] += start.version == 2
        retracts = {f"#{i}" for i, e in enumerate(log, 1) if isinstance(e, Retract)}
        for event in log:
            if isinstance(event, Retract):
                counts["unretract" if event.event in retracts else "retract"] += 1
            counts["amend"] += isinstance(event, Amend)
        for state, changes in replay(log):
            counts["events"] += 1
            counts["void"] += changes.void is not None
            states.update(c.state for c in state.characters.values())
            moves.update((c.before, c.after) for c in changes.characters if c.before)

    collect()
    assert states == set(MORDHEIM.graph.states)
    assert {(a, b) for a, b in moves if a != b} == set(MORDHEIM.graph.edges)
    assert min(after_joins) >= 10 and statistics.median(after_joins) >= 25, after_joins
    assert statistics.median(hits_each) >= 2, hits_each
    assert counts["void"] < 0.05 * counts["events"], counts
    assert min(counts["retract"], counts["amend"], counts["unretract"]) >= 10, counts
    assert 20 <= counts["version 2"] <= 80, counts


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
        assert not leaves_dead or rules.raises_the_dead, rules.name


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

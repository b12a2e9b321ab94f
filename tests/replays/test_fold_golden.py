"""Every state after each event, and every event's changes, are what they were before the fold
was made cheaper (issue 42), on recorded fights of every ruleset: the bundled examples, the
version-1 logs, the reports' and pages' fights, and three generated ones (the benchmark's
Mordheim fight, a Mordheim fight of 200 fighters, whose ticks a fold indexes, and a dnd5e fight
with heals and death saves).

`tests/data/golden/NAME.json` holds, per fight, a digest of each state and of each event's
changes as `replay` (the reducer's `apply`, every change worked out) gave them, written by the
code of the commit before issue 42's changes (515f7f9), where the state-only fold (`fold_pairs`,
`core.Fold`'s quick steps) gave the very same states:

    .venv/bin/python -m tests.replays.test_fold_golden --write

The state-only fold is asked three ways, with the tick index as a fold chooses it, always and
never (`Roster`'s `index_from`): each must give those states after every event.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import msgspec
import pytest

from woundlog.core import reducer
from woundlog.events import Event, read_jsonl
from woundlog.replays.fold import fold_pairs, replay
from woundlog.replays.undo import resolve

fold_module = importlib.import_module("woundlog.replays.fold")

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden"
BENCHMARKS = ROOT / "tests" / "benchmarks"
BUNDLED = Path(str(files("woundlog.replays") / "data"))  # the wheel's: CI tests no tree of it
RECORDED = [
    *sorted(BUNDLED.glob("*.jsonl")),
    *sorted(p for p in (ROOT / "tests" / "data" / "v1").glob("*.jsonl") if ".trace" not in p.name),
    *sorted((ROOT / "tests" / "data" / "report").glob("*.jsonl")),
    ROOT / "tests" / "data" / "mordheim_story.jsonl",
    ROOT / "tests" / "pages" / "data" / "roadside.jsonl",
]
GENERATED = ("generated_mordheim", "generated_mordheim_200", "generated_dnd5e")
GENERATED_EVENTS = 1500


def _benchmark(name: str) -> Any:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return __import__(name)


def generated(name: str, tmp: Path) -> list[Event]:
    """One of the generated fights, written by the benchmarks' own generators."""
    path = tmp / f"{name}.jsonl"
    if name == "generated_mordheim":
        _benchmark("generate").generate(path, GENERATED_EVENTS, seed=42)
    elif name == "generated_dnd5e":
        made = _benchmark("generate_dnd5e").generate(path, GENERATED_EVENTS, seed=42)
        path.write_bytes(b"\n".join(made["lines"]) + b"\n")
    else:
        cast = _benchmark("cast")
        log = [*cast.cast_of(200), *cast.turns(200, GENERATED_EVENTS)]
        return log
    return [event for _, event in read_jsonl(path)]


def fights(tmp: Path) -> Iterator[tuple[str, list[Event]]]:
    for path in RECORDED:
        folder = (
            "replays-data"
            if path.parent == BUNDLED
            else f"{path.parent.parent.name}-{path.parent.name}"
        )
        yield f"{folder}-{path.stem}", [event for _, event in read_jsonl(path)]
    for name in GENERATED:
        yield name, generated(name, tmp)


def digest(value: Any) -> str:
    return hashlib.sha256(msgspec.json.encode(value)).hexdigest()[:16]


def replayed(log: list[Event]) -> tuple[list[str], list[str]]:
    """Digests of the state after each event and of its changes, by `replay`."""
    states, changes = [], []
    for state, changed in replay(log):
        states.append(digest(state))
        changes.append(digest(changed))
    return states, changes


def folded(log: list[Event], index_from: int | str | None = "default") -> list[str]:
    """Digests of the state after each event, by `fold_pairs` (the state-only fold) read after
    each step of its own loop."""
    made: list[reducer.Fold] = []

    class Watched(reducer.Fold):
        def __init__(self, state: Any = None, **kwargs: Any) -> None:
            if index_from != "default":
                kwargs["index_from"] = index_from
            super().__init__(state, **kwargs)
            made.append(self)

    states: list[str] = []

    def pairs() -> Iterator[tuple[int, Event]]:
        for seq, event in enumerate(log, start=1):
            if seq > 1:
                states.append(digest(made[0].state))
            yield seq, event
        states.append(digest(made[0].state))

    undo = resolve((seq, None, event) for seq, event in enumerate(log, start=1))
    original = fold_module.Fold
    fold_module.Fold = Watched  # type: ignore[misc]
    try:
        fold_pairs(pairs(), undo)
    finally:
        fold_module.Fold = original  # type: ignore[misc]
    return states


def golden(name: str, log: list[Event]) -> dict[str, Any]:
    states, changes = replayed(log)
    return {
        "events": digest(log),
        "states": states,
        "changes": changes,
    }


@pytest.fixture(scope="module")
def every_fight(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, list[Event]]]:
    return list(fights(tmp_path_factory.mktemp("golden")))


def _first_difference(now: list[str], then: list[str]) -> str:
    for seq, (a, b) in enumerate(zip(now, then, strict=False), start=1):
        if a != b:
            return f"first at seq {seq}"
    return f"{len(now)} steps now, {len(then)} then"


def test_every_fight_has_its_golden_record(every_fight: list[tuple[str, list[Event]]]) -> None:
    names = {name for name, _ in every_fight}
    assert names == {path.stem for path in GOLDEN.glob("*.json")}
    rulesets = {log[0].ruleset for _, log in every_fight}  # type: ignore[union-attr]
    assert rulesets == {"contractor", "d26", "dnd5e", "dragonquest", "mordheim", "warhammer_quest"}


def test_replay_gives_every_state_and_change_it_gave_before(
    every_fight: list[tuple[str, list[Event]]],
) -> None:
    for name, log in every_fight:
        kept = json.loads((GOLDEN / f"{name}.json").read_text())
        assert digest(log) == kept["events"], f"{name}: the fight itself is not the one recorded"
        states, changes = replayed(log)
        assert states == kept["states"], (
            f"{name}: states, {_first_difference(states, kept['states'])}"
        )
        assert changes == kept["changes"], (
            f"{name}: changes, {_first_difference(changes, kept['changes'])}"
        )


@pytest.mark.parametrize("index_from", ["default", 0, None])
def test_the_state_only_fold_gives_every_state_it_gave_before(
    every_fight: list[tuple[str, list[Event]]], index_from: int | str | None
) -> None:
    for name, log in every_fight:
        kept = json.loads((GOLDEN / f"{name}.json").read_text())
        states = folded(log, index_from)
        assert states == kept["states"], f"{name}: {_first_difference(states, kept['states'])}"


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import tempfile

    GOLDEN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, log in fights(Path(tmp)):
            (GOLDEN / f"{name}.json").write_text(json.dumps(golden(name, log)) + "\n")
            print(name, len(log))

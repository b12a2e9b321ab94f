"""`woundlog replay FILE` and `woundlog import FILE` + `woundlog state` agree on every valid
JSON Lines file, however its keys and strings are spelled (DESIGN.md section 4: same log, same
result). The file replay's first pass looks for undo events and ids without decoding every line;
a JSON escape (`"r\\u0065tract"`) must not hide one from it (issue 11, item 4)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from woundlog.events import BatchRefused, Event, RuleError, WoundlogError
from woundlog.events.stores import SQLiteStore
from woundlog.replays import Fight
from woundlog.replays.application import Application
from woundlog.replays.cli import app
from woundlog.replays.cli.inputs import jsonl_items
from woundlog.replays.files import replay_file_state

from ..strategies import mordheim_logs

START = '{"type":"fight_started","ruleset":"mordheim","seed":7}'
GRIM = '{"type":"character_joined","character":"grim","side":"reavers","stats":{"wounds":1}}'
SNIK = '{"type":"character_joined","character":"snik","side":"skaven"}'


def cli(tmp_path: Path, *args: str) -> tuple[int, Any]:
    """Run the CLI in-process (a store: a SQLite file in tmp_path): (exit code, JSON or text)."""
    store = [] if args[0] == "replay" else ["--db", str(tmp_path / "fights.db")]
    result = CliRunner().invoke(app, [*store, *args])
    try:
        return result.exit_code, json.loads(result.stdout)
    except ValueError:
        return result.exit_code, result.output


def replay_and_import(tmp_path: Path, lines: list[str]) -> tuple[Any, Any]:
    """The state JSON (or exit code and error) of `replay FILE` and of `import FILE` + `state`."""
    path = tmp_path / "fight.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    code, replayed = cli(tmp_path, "replay", str(path), "--json")
    if code:
        replayed = (code, replayed)
    code, output = cli(tmp_path, "import", str(path))
    if code:
        return replayed, (code, output)
    code, state = cli(tmp_path, "state", "fight", "--json")
    assert code == 0, state
    return replayed, state


def test_a_retract_spelled_with_escapes_undoes_its_event_in_replay_as_in_import(
    tmp_path: Path,
) -> None:
    lines = [START, GRIM, SNIK, '{"type":"hit","target":"grim","damage":1,"rolls":{"injury":[6]}}']
    lines.append('{"type":"r\\u0065tract","event":"#4"}')
    replayed, imported = replay_and_import(tmp_path, lines)
    assert replayed == imported
    assert replayed["characters"]["grim"]["state"] == "upright"


def test_an_id_spelled_with_escapes_is_named_by_an_undo_in_replay_as_in_import(
    tmp_path: Path,
) -> None:
    hit = '{"type":"hit","\\u0069d":"blow","target":"grim","damage":1,"rolls":{"injury":[6]}}'
    lines = [START, GRIM, SNIK, hit, '{"type":"retract","event":"blow"}']
    replayed, imported = replay_and_import(tmp_path, lines)
    assert replayed == imported
    assert replayed["characters"]["grim"]["state"] == "upright"


def test_an_id_reused_with_escapes_is_refused_by_replay_as_by_import(tmp_path: Path) -> None:
    first = '{"type":"hit","id":"blow","target":"grim","damage":0}'
    again = '{"type":"hit","\\u0069d":"blow","target":"snik","damage":0}'
    replayed, imported = replay_and_import(tmp_path, [START, GRIM, SNIK, first, again])
    assert isinstance(replayed, tuple), "replay took an id import refuses"
    assert replayed[0] != 0 and imported[0] != 0  # refused: as structure (3), as a conflict (4)
    assert "blow" in replayed[1] and "blow" in imported[1]


def test_an_amend_spelled_with_escapes_replaces_its_event_in_replay_as_in_import(
    tmp_path: Path,
) -> None:
    amend = (
        '{"type":"\\u0061mend","event":"#4","replacement":'
        '{"type":"hit","target":"snik","damage":0}}'
    )
    lines = [START, GRIM, SNIK, '{"type":"hit","target":"grim","damage":1}', amend]
    replayed, imported = replay_and_import(tmp_path, lines)
    assert replayed == imported
    assert replayed["characters"]["grim"]["state"] == "upright"


# --- the property: random logs, randomly spelled ------------------------------------------------


def spelled(value: object, rng: random.Random, odds: float) -> str:
    """`value` as JSON with each character of every key and string escaped at these odds
    (`\\uXXXX`, or the short escape where JSON has one), and spaces here and there."""
    gap = (lambda: " " * rng.randint(0, 2)) if odds else (lambda: "")
    if isinstance(value, dict):
        pairs = (
            f"{spelled(k, rng, odds)}{gap()}:{gap()}{spelled(v, rng, odds)}"
            for k, v in value.items()
        )
        return "{" + ",".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + f",{gap()}".join(spelled(v, rng, odds) for v in value) + "]"
    if isinstance(value, str):
        out = []
        for char in value:
            if char in '"\\':
                out.append("\\" + char)
            elif rng.random() < odds:
                out.append(f"\\u{ord(char):04{rng.choice('xX')}}")
            else:
                out.append(char)
        return '"' + "".join(out) + '"'
    return json.dumps(value)


def outcome(run: Any) -> Any:
    """The state as JSON builtins, or why it was refused: a rule (on append; replay voids the
    event instead) or the log itself (structure, a reused id: refused on both paths)."""
    try:
        state = run()
    except WoundlogError as error:
        note(f"refused: {error!r}")
        each = error.errors if isinstance(error, BatchRefused) else [error]
        # a batch a rule refuses may also name undo events whose target it refused
        rule = any(isinstance(e, RuleError) for e in each)
        return ("refused", "rule" if rule else "log")
    return msgspec.to_builtins(state)


def imported_state(path: Path, store_path: Path) -> Any:
    """What `woundlog import FILE` then `woundlog state` gives, by the functions they use."""
    store = SQLiteStore(store_path)
    try:
        Application.over(store).import_log("fight", jsonl_items(path))
        return Fight(store, "fight").state()
    finally:
        store.close()


@st.composite
def logs_with_ids(draw: st.DrawFn) -> list[Event]:
    """Mordheim logs (with undo events) where some events carry ids, now and then reused, and
    some undo events name an event by its id."""
    log = draw(mordheim_logs(undo=True))
    names = [f"e{i}" for i in range(len(log))]
    out: list[Event] = []
    for i, event in enumerate(log):
        if i and draw(st.integers(0, 3)) == 0:
            reused = draw(st.integers(0, 9)) == 0 and i > 1
            event = msgspec.structs.replace(event, id=names[i - 1] if reused else names[i])
        ref = getattr(event, "event", None)
        if isinstance(ref, str) and ref.startswith("#"):
            target = out[int(ref[1:]) - 1] if int(ref[1:]) <= len(out) else None
            if target is not None and target.id is not None and draw(st.booleans()):
                event = msgspec.structs.replace(event, event=target.id)  # type: ignore[call-arg]
        out.append(event)
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=logs_with_ids(), seed=st.integers(0, 2**32), odds=st.sampled_from([0.0, 0.05, 0.5]))
def test_replaying_a_file_equals_importing_it_then_asking_its_state(
    log: list[Event], seed: int, odds: float
) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        path, plain = Path(tmp, "fight.jsonl"), Path(tmp, "plain.jsonl")
        path.write_text("".join(spelled(msgspec.to_builtins(e), rng, odds) + "\n" for e in log))
        plain.write_bytes(b"".join(msgspec.json.encode(e) + b"\n" for e in log))
        note(plain.read_text())
        replayed = outcome(lambda: replay_file_state(path))
        imported = outcome(lambda: imported_state(path, Path(tmp, "one.db")))
        # spelling changes nothing, on either path
        assert replayed == outcome(lambda: replay_file_state(plain))
        assert imported == outcome(lambda: imported_state(plain, Path(tmp, "two.db")))
    # where import takes the log, replay gives the same state; a log import refuses as a log
    # (not for a rule on append, which replay voids instead) replay refuses too
    if not isinstance(imported, tuple):
        assert replayed == imported
    elif imported == ("refused", "log"):
        assert replayed == ("refused", "log")

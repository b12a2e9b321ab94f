"""Issue 37: every `woundlog` command (the registry's: `woundlog --help`, `woundlog campaign
--help`, `woundlog import --help`) answers the most hostile shapes its bounds let through within
its budget, and never with a traceback. The CLI runs the application's use cases with the
application's own budgets (a report's moments within REPORT_STEPS, odds within core.odds'
LIMIT, a log file's lines within MAX_LINE); what this test adds is a time per command, in
`BUDGET_S`, so a command added without one fails here, as a route without a budget fails
tests/replays/service/test_every_route.py.

The shapes reach the bounds rather than brute-force sizes: a fight of REPORT_MAX events (built
by the store's own append, which does not fold), the issue's 300 one-wound characters hit for
1000, numbers at SAFE_INT, a line of input far past any name's bound."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from woundlog.events import convert
from woundlog.events.importers import IMPORTERS
from woundlog.events.model import SAFE_INT
from woundlog.events.stores.locate import open_store
from woundlog.replays.cli import app
from woundlog.replays.cli.commands import CAMPAIGN_COMMANDS, COMMANDS
from woundlog.replays.service.limits import REPORT_MAX

MARGIN_S = 10.0
"""Slack for a loaded CI machine's two shared cores."""
BUDGET_S: dict[str, float] = {
    **{command: 10.0 for command, _, _ in COMMANDS},
    **{f"campaign {command}": 10.0 for command in CAMPAIGN_COMMANDS},
    **{f"import {format_}": 10.0 for format_ in IMPORTERS},
    "import": 10.0,  # a log file: FILE.jsonl [--as FIGHT]
    "timeline": 20.0,  # a picture of every event: REPORT_MAX columns
}
"""Each command's time on its most hostile shape here, the margin aside."""
LONG = "x" * 10_000


def registered() -> list[str]:
    """Every command `woundlog --help` and its groups' help list."""
    from typer.main import get_command

    root = get_command(app)
    assert isinstance(root, typer.core.TyperGroup)
    found = []
    for name, command in root.commands.items():
        if isinstance(command, typer.core.TyperGroup):
            found += [f"{name} {sub}" for sub, each in command.commands.items() if not each.hidden]
            if name == "import":
                found.append("import")  # the log form: `woundlog import FILE.jsonl`
        else:
            found.append(name)
    return sorted(found)


def ticks(events: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = [
        {"type": "fight_started", "ruleset": "mordheim", "seed": 1},
        *(
            {"type": "character_joined", "character": c, "side": c, "stats": {"wounds": 3}}
            for c in ("a", "b")
        ),
    ]
    round_ = 1
    while len(found) < events:
        found += [
            {"type": "turn_started", "round": round_},
            {"type": "turn_ended", "round": round_},
        ]
        round_ += 1
    return found[:events]


def crowd() -> list[dict[str, Any]]:
    joined = [
        {"type": "character_joined", "character": f"c{n}", "side": "ab"[n % 2],
         "stats": {"wounds": 1}}
        for n in range(300)
    ]  # fmt: skip
    hits = [{"type": "hit", "target": f"c{n}", "damage": 1000} for n in range(300)]
    return [{"type": "fight_started", "ruleset": "mordheim", "seed": 1}, *joined, *hits]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("every-command")
    db = folder / "fights.db"
    opened = open_store(str(db))
    for fight, events in (("big", ticks(REPORT_MAX)), ("crowd", crowd())):
        converted = [convert(event, index=n) for n, event in enumerate(events)]
        opened.append(fight, converted, expected_version=0)
    opened.close()
    (folder / "records.json").write_text("[" + ",".join(["{}"] * 1000) + "]")
    (folder / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    yield db


def shapes(folder: Path) -> dict[str, list[tuple[list[str], str | None]]]:
    """Per command, its hostile runs: the arguments, and the standard input (None: none)."""
    records, deep, out = str(folder / "records.json"), str(folder / "deep.jsonl"), str(folder)
    campaign = "campaign"
    return {
        "new": [(["new", "n1", "--ruleset", "mordheim", "--seed", str(SAFE_INT)], None),
                (["new", LONG, "--ruleset", "mordheim"], None)],
        "play": [(["play", "big"], "state\n" + "hit a 0\nnext\n" * 50 + LONG + "\nquit\n")],
        "join": [(["join", "big", "z", "--side", "z", "--stat", f"wounds={SAFE_INT}"], None),
                 (["join", "big", "y", "--side", "y", "--initiative", str(SAFE_INT)], None)],
        "hit": [(["hit", "big", "a", str(SAFE_INT)], None), (["hit", "crowd", "c0", "1"], None)],
        "heal": [(["heal", "big", "a", str(SAFE_INT)], None)],
        "tick": [(["tick", "big", "start", "--round", str(SAFE_INT)], None)],
        "next": [(["next", "big", "--roll", f"injury@{LONG[:200]}=1"], None),
                 (["next", "crowd", "--id", LONG[:200]], None)],
        "order": [(["order", "crowd", *(f"c{n}" for n in range(300))], None),
                  (["order", "crowd", *(f"c{n}={SAFE_INT}" for n in range(300))], None),
                  (["order", "big", *[LONG[:200]] * 1000], None)],
        "choose": [(["choose", "big", "a", LONG], None)],
        "check": [(["check", "big", "a", LONG], None)],
        "set": [(["set", "big", "a", "hp", str(SAFE_INT), "--reason", LONG], None),
                (["set", "big", LONG, LONG[:200], "-1"], None)],
        "end": [(["end", "n1"], None)],
        "undo": [(["undo", "big", f"#{SAFE_INT}"], None), (["undo", "big", "#5"], None)],
        "amend": [(["amend", "big", "#4", "--with", '{"type": "turn_started", "round": 9}'], None)],
        "fights": [(["fights"], None)],
        "state": [(["state", "big", "--at", str(REPORT_MAX // 2)], None),
                  (["state", "big", "--at", str(SAFE_INT)], None)],
        "log": [(["log", "big"], None)],
        "delete": [(["delete", "n1", "--yes"], None)],
        "rename": [(["rename", "crowd", LONG], None)],
        "export": [(["export", "big", "-o", f"{out}/big.jsonl"], None)],
        "import": [(["import", f"{out}/big.jsonl", "--as", "big2"], None),
                   (["import", deep, "--as", "deep"], None)],
        "replay": [(["replay", f"{out}/big.jsonl"], None), (["replay", deep], None)],
        "odds": [(["odds", "crowd", *(["--hit", "c0:1000"] * 50)], None),
                 (["odds", "big", "--ticks", "20"], None),
                 (["odds", "big", "--hit", "a:1000000"], None)],
        "branch": [(["branch", "big", "--as", "b1"], None)],
        "diff": [(["diff", "big", "b1"], None)],
        "timeline": [(["timeline", "big", "-o", f"{out}/big.svg"], None)],
        "report": [(["report", "crowd"], None), (["report", "big", "--json"], None)],
        "rules": [(["rules"], None), (["rules", LONG], None)],
        "schema": [(["schema"], None)],
        "demo": [(["demo"], None)],
        "serve": [(["serve", "--port", "99999999"], None)],
        "share": [(["share", "big", "--list"], None)],
        "campaign new": [([campaign, "new", "camp", "--ruleset", "mordheim"], None)],
        "campaign join": [([campaign, "join", "camp", "a", "--side", "a", "--stat", "wounds=3"],
                           None)],
        "campaign record": [([campaign, "record", "camp", "big"], None)],
        "campaign rest": [([campaign, "rest", "camp"], None)],
        "campaign treat": [([campaign, "treat", "camp", "a", LONG], None)],
        "campaign repair": [([campaign, "repair", "camp", "a", LONG], None)],
        "campaign time": [([campaign, "time", "camp", str(SAFE_INT)], None)],
        "campaign retire": [([campaign, "retire", "camp", LONG], None)],
        "campaign died": [([campaign, "died", "camp", LONG], None)],
        "campaign undo": [([campaign, "undo", "camp", f"#{SAFE_INT}"], None)],
        "campaign show": [([campaign, "show", "camp"], None)],
        "campaign history": [([campaign, "history", "camp"], None)],
        "campaign report": [([campaign, "report", "camp"], None)],
        **{
            f"import {format_}": [(["import", format_, records, "--into", f"i-{format_}"], None)]
            for format_ in IMPORTERS
        },
    }  # fmt: skip


def test_every_command_has_a_budget_and_a_hostile_shape(tmp_path: Path) -> None:
    commands = registered()
    assert sorted(BUDGET_S) == commands, "each command declares its time in BUDGET_S"
    assert sorted(shapes(tmp_path)) == commands, "each command has its hostile shapes here"


def crashed(result: Result) -> bool:
    """A traceback, not an `error:` line and its exit code."""
    return result.exception is not None and not isinstance(result.exception, SystemExit)


def test_every_command_answers_hostile_shapes_within_its_budget(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    runner = CliRunner()
    late, failed = [], []
    for command, runs in shapes(store.parent).items():
        for args, given in runs:
            began = time.monotonic()
            result = runner.invoke(app, ["--db", str(store), *args], input=given)
            took = time.monotonic() - began
            if crashed(result):
                failed.append((args[:4], repr(result.exception)))
            if took > BUDGET_S[command] + MARGIN_S:
                late.append((args[:4], round(took, 1)))
    assert failed == [], failed
    assert late == [], late

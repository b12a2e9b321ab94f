"""Avrae, a GM's own game: the woundlog alias (replays/integrations/avrae/woundlog.alias) prints
the combat, `woundlog import avrae-snapshot` reads it. The alias's output is modelled on Avrae
v4.2.70's alias API (tests/data/importers/avrae_fixtures.py), and the alias text itself is run
through Avrae's own interpreter, draconic (installed with the test extra: PyPI has it inside
`avrae-ls`), against a port of that API, as well as through CPython with Avrae's builtins only."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from woundlog.core.importing import convert_records
from woundlog.events import CharacterJoined, StructuralError

DATA = Path(__file__).parent.parent / "data" / "importers"
sys.path.insert(0, str(DATA))
import avrae_fixtures as avrae  # noqa: E402

LINES = (DATA / "avrae_snapshots.txt").read_text().splitlines()
RECORDS = [json.loads(line) for line in (DATA / "avrae_combat.jsonl").read_text().splitlines()]
AID = [r for r in RECORDS if r["combat_id"] == avrae.aid_fight().id]


@pytest.mark.parametrize("interpreter", ["draconic", "python"])
def test_the_alias_text_run_as_avrae_runs_it_prints_what_the_fixture_holds(
    interpreter: str,
) -> None:
    """The fixture (avrae_fixtures.alias_output, a model of the alias) is what the alias text
    itself prints at every point of the fight, run by Avrae's own interpreter and as a CPython
    function with only Avrae's builtins."""
    if interpreter == "draconic":
        import draconic  # noqa: F401 (the test extra installs it; an ImportError fails here)

    def printer(combat: avrae.Combat) -> str:
        return avrae.run_alias(combat, interpreter=interpreter)

    avrae.Combat.printer = staticmethod(printer)
    try:
        printed = avrae.aid_fight().snapshots
    finally:
        avrae.Combat.printer = staticmethod(avrae.alias_output)
    assert printed == LINES


@pytest.mark.parametrize("interpreter", ["draconic", "python"])
def test_the_alias_pages_a_big_combat_as_modelled(interpreter: str) -> None:
    if interpreter == "draconic":
        import draconic  # noqa: F401 (the test extra installs it; an ImportError fails here)
    combat = big_combat()
    pages = [avrae.alias_output(combat, page) for page in (1, 2, 3)]
    printed = [avrae.run_alias(combat, page, interpreter=interpreter) for page in (1, 2, 3)]
    assert printed == pages
    assert "there are 3 pages, not 4" in avrae.run_alias(combat, 4, interpreter=interpreter)


def test_the_snapshots_give_the_fight_the_recorder_gives() -> None:
    snapshots = convert_records("avrae-snapshot", LINES, ruleset="dnd5e")
    recorded = convert_records("avrae", AID, ruleset="dnd5e")

    def what(events: list[Any]) -> list[tuple[Any, ...]]:  # the events, ids aside
        return [
            (type(e).__name__, getattr(e, "character", None) or getattr(e, "target", None),
             getattr(e, "damage", None), getattr(e, "amount", None))
            for e in events
        ]  # fmt: skip

    assert what(snapshots.events) == what(recorded.events)
    assert [e.stats for e in snapshots.events if isinstance(e, CharacterJoined)] == [
        {"hp": 10}, {"hp": 20}, {"hp": 7}, {"hp": 7},  # OR1 under Aid: its effective 20
    ]  # fmt: skip


def test_other_lines_are_skipped_and_a_resend_changes_nothing() -> None:
    whole = convert_records("avrae-snapshot", LINES, ruleset="dnd5e")
    pasted = ["Dana — Today at 21:05", *LINES[:9], "GM: !init next", *LINES[4:]]
    again = convert_records("avrae-snapshot", pasted, ruleset="dnd5e")
    assert again.events == whole.events
    assert any("the same as the last one taken in" in w for w in again.warnings)
    first = convert_records("avrae-snapshot", LINES[:9], ruleset="dnd5e")
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    rest = convert_records(
        "avrae-snapshot", LINES, ruleset="dnd5e", joined=joined, previous=first.previous
    )
    assert first.events + rest.events == whole.events


def big_combat() -> avrae.Combat:
    combat = avrae.Combat("big", 1700200000.0)
    for n in range(60):
        combat.add(
            avrae.Combatant(f"{n:08d}-0000-4000-8000-000000000000", f"GO{n + 1}", "monster", 10, 7)
        )
    combat.advance()
    return combat


def test_a_big_combat_comes_in_pages_each_within_discords_limit() -> None:
    combat = big_combat()
    first = avrae.alias_output(combat)
    pages = json.loads(first.split("`woundlog ", 1)[1].split("`", 1)[0])["page"][1]
    assert pages > 1 and "now !woundlog 2" in first
    printed = [avrae.alias_output(combat, page) for page in range(1, pages + 1)]
    assert all(len(p) <= 2000 for p in printed)  # a Discord message, !echo's prefix included
    converted = convert_records("avrae-snapshot", printed, ruleset="dnd5e")
    assert len([e for e in converted.events if isinstance(e, CharacterJoined)]) == 60
    with pytest.raises(StructuralError, match="page 2 of") as caught:
        convert_records("avrae-snapshot", printed[:1] + printed[2:], ruleset="dnd5e")
    assert caught.value.index == 0


def test_a_cut_message_is_refused_naming_its_line() -> None:
    with pytest.raises(StructuralError, match="not whole JSON") as caught:
        convert_records("avrae-snapshot", ["hello", LINES[0][:120]], ruleset="dnd5e")
    assert caught.value.index == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"t": float("nan")}, "$.t"),
        ({"n": 4}, "$.n"),
        ({"page": [2, 2, 0]}, "$.page"),
        ({"o": [[None, [["x", "X", "7", 7, 0, 0]]]]}, "$.o[0][1][0][2]"),
        ({"extra": 1}, "$"),
    ],
)
def test_a_page_that_is_not_the_alias_s_is_refused_naming_the_field(
    change: dict[str, Any], field: str
) -> None:
    page = json.loads(LINES[0].split("`woundlog ", 1)[1].rsplit("`", 1)[0])
    page.update(change)
    with pytest.raises(StructuralError) as caught:
        convert_records("avrae-snapshot", [page], ruleset="dnd5e")
    assert (caught.value.index, caught.value.field) == (0, field)


def test_the_readme_steps_from_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The messages as copied from Discord, their JSON kept (`grep -o '{.*}'`), imported twice
    with the CLI: the fight Avrae showed, and nothing the second time."""
    from typer.testing import CliRunner

    from woundlog.replays.cli import app

    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    copied = ["Dana — Today at 21:05", *LINES, "GM: !init end"]
    kept = [m.group(0) for line in copied if (m := re.search(r"\{.*\}", line))]
    (tmp_path / "fight.jsonl").write_text("".join(f"{line}\n" for line in kept))

    def run(*args: str) -> str:
        result = CliRunner().invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result.stdout

    path = str(tmp_path / "fight.jsonl")
    events = convert_records("avrae-snapshot", LINES, ruleset="dnd5e").events
    imported = run("import", "avrae-snapshot", path, "--into", "table")
    assert f"imported {len(events) + 1} events" in imported  # and the fight_started
    state = json.loads(run("state", "table", "--json"))["characters"]
    assert [(c["name"], c["state"], c["hp"]) for c in state.values()] == [
        ("Mira", "upright", 5),
        ("OR1", "upright", 12),
        ("GO1", "dead", 0),
        ("GO1", "upright", 7),
    ]
    assert "imported 0 events" in run("import", "avrae-snapshot", path, "--into", "table")


def test_the_alias_text_fits_one_discord_message() -> None:
    """A GM creates the alias by sending its text as one message (`!alias woundlog ...`):
    Discord takes at most 2,000 characters (Avrae's own limit, aliasing/constants.py
    ALIAS_SIZE_LIMIT, is 100,000)."""
    assert len(avrae.ALIAS.read_text().strip()) <= 2000

"""`woundlog import FORMAT FILE --into FIGHT`: another program's records into a fight, end to end;
and the form before it (`woundlog import FILE --from FORMAT`) refused with the new one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from woundlog.events import FightStarted
from woundlog.events.importers import IMPORTERS
from woundlog.events.stores import SQLiteStore
from woundlog.replays.cli import app

DATA = Path(__file__).parent.parent / "data" / "importers"
FOUNDRY = DATA / "foundry_d26.jsonl"
II = DATA / "improved_initiative_autosaves.json"
II_EXPORT = DATA / "improved_initiative_export.json"
II_ROUND_1 = DATA / "improved_initiative_export_round1.json"
II_ROUND_2 = DATA / "improved_initiative_export_round2.json"
AVRAE = DATA / "avrae_combat.jsonl"
TALI = "9e1d7c2a-0f4b-4a55-8a0e-1c2d3e4f5a6b"


@pytest.fixture(autouse=True)
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "fights.db"
    monkeypatch.setenv("WOUNDLOG_DB", str(path))
    monkeypatch.delenv("COLUMNS", raising=False)
    return path


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def characters(fight: str) -> dict[str, Any]:
    state: dict[str, Any] = json.loads(ok(run("state", fight, "--json")).stdout)
    return state["characters"]


def brief(fight: str, *counters: str) -> dict[str, tuple[Any, ...]]:
    return {cid: (c["state"], *(c[k] for k in counters)) for cid, c in characters(fight).items()}


def test_foundry_hooks_into_a_new_d26_fight() -> None:
    result = ok(run("import", "foundry", FOUNDRY, "--into", "ambush", "--ruleset", "d26"))
    assert "imported 16 events into fight `ambush`" in result.stdout
    token = "Scene.sceneMain0000001.Token."
    assert brief("ambush", "hp", "fatigued", "injuries") == {  # a token, a linked actor
        "Actor.actBrakka0000001": ("downed", 0, True, ["fatal internal"]),
        f"{token}tkGoblin00000001": ("upright", 4, False, []),  # two goblins of one actor
        f"{token}tkGoblin00000002": ("upright", 7, False, []),
    }


def test_improved_initiative_autosaves_into_a_new_fight_play_dnd5e_by_default() -> None:
    result = ok(run("import", "improved-initiative", II, "--into", "well", "--seed", "7"))
    assert "imported 39 events into fight `well`" in result.stdout
    state = json.loads(ok(run("state", "well", "--json")).stdout)
    assert state["ruleset"] == "dnd5e"
    assert brief("well", "hp", "successes", "failures", "kind") == {
        "grim-pc": ("upright", 4, 0, 0, "pc"),  # dropped in round 3, a potion in round 4
        "k2gob": ("dead", 0, 0, 0, "monster"),  # a monster at 0 hit points
        "k3gob": ("upright", 3, 0, 0, "monster"),
        "k5gob": ("upright", 7, 0, 0, "monster"),
    }
    assert "Lair Action (k4lair) has no hit points" in result.stderr


def dying(tmp_path: Path) -> Path:
    """The autosaves up to Grim's round-4 turn, at 0 HP, before the potion."""
    saves = json.loads(II.read_text())
    last = next(
        i for i, s in enumerate(saves)
        if s["RoundCounter"] == 4 and s["ActiveCombatantId"] == "k1grim"
    )  # fmt: skip
    path = tmp_path / "dying.json"
    path.write_text(json.dumps(saves[: last + 1]))
    return path


def fight_started(db: Path, fight: str) -> FightStarted:
    with SQLiteStore(db) as store:
        first = next(store.read(fight)).event
    assert isinstance(first, FightStarted)
    return first


def test_a_dnd5e_fight_made_for_improved_initiative_rolls_no_death_save(
    db: Path, tmp_path: Path
) -> None:
    """Improved Initiative has no death saves: the table rolls them. A fight made with
    death_saves=turn rolls one at Grim's turn (a PC dead in woundlog, alive at the table)."""
    ok(run("import", "improved-initiative", dying(tmp_path), "--into", "table", "--seed", "7"))
    assert fight_started(db, "table").options == {"death_saves": "table", "revival": True}
    assert brief("table", "hp", "successes", "failures")["grim-pc"] == ("downed", 0, 0, 0)


def test_a_dnd5e_fight_made_for_avrae_leaves_death_saves_to_the_table(db: Path) -> None:
    ok(run("import", "avrae", AVRAE, "--into", "table", "--seed", "7"))
    assert fight_started(db, "table").options == {"death_saves": "table", "revival": True}


def test_every_format_declares_the_options_of_the_fight_an_import_makes(db: Path) -> None:
    assert {name: i.fight_options("dnd5e") for name, i in IMPORTERS.items()} == {
        "foundry": {"death_saves": "table", "revival": True},  # the sheets' revivals (issue 41)
        "improved-initiative": {"death_saves": "table", "revival": True},
        "avrae": {"death_saves": "table", "revival": True},
        "avrae-snapshot": {"death_saves": "table", "revival": True},
        "owlbear": {"death_saves": "table", "revival": True},
    }
    assert all(i.fight_options("d26") == {} for i in IMPORTERS.values())
    ok(run("import", "foundry", FOUNDRY, "--into", "ambush", "--ruleset", "d26"))
    assert fight_started(db, "ambush").options == {}  # nothing to leave to a d26 table


def test_improved_initiative_autosaves_in_another_ruleset() -> None:
    ok(run("import", "improved-initiative", II, "--into", "well", "--ruleset", "d26"))
    assert brief("well", "hp", "kind")["k5gob"] == ("upright", 7, "npc")


def test_improved_initiative_export_file_gives_where_everyone_ended() -> None:
    result = ok(run("import", "improved-initiative", II_EXPORT, "--into", "after"))
    assert "imported 6 events" in result.stdout  # fight_started, three joins, two hurt
    assert brief("after", "hp") == {
        "grim-pc": ("upright", 4),
        "k3gob": ("upright", 3),
        "k5gob": ("upright", 7),
    }


def test_exports_imported_one_after_the_other_each_add_what_changed() -> None:
    """A GM who exports after every round and imports each file: the CLI keeps the cursor, so
    the second file's state is compared with the first's, and so on."""
    ok(run("import", "improved-initiative", II_ROUND_1, "--into", "rounds"))
    hp = {c["name"]: c["hp"] for c in characters("rounds").values()}
    assert hp == {"Grim": 10, "Goblin 1": 0, "Goblin 2": 7}
    second = ok(run("import", "improved-initiative", II_ROUND_2, "--into", "rounds"))
    assert "no cursor" not in second.stderr
    hp = {c["name"]: c["hp"] for c in characters("rounds").values()}
    assert hp == {"Grim": 4, "Goblin 1": 0, "Goblin 2": 3, "Goblin 3": 7}
    assert brief("rounds", "hp") == {
        "grim-pc": ("upright", 4),  # 10, hit for 9, then 3 back after the GM went back
        "k2gob": ("dead", 0),
        "k3gob": ("upright", 3),
        "k5gob": ("upright", 7),  # joins with the second file
    }
    ok(run("import", "improved-initiative", II_EXPORT, "--into", "rounds"))
    assert brief("rounds", "hp") == brief_of_autosaves()


def brief_of_autosaves() -> dict[str, tuple[Any, ...]]:
    ok(run("import", "improved-initiative", II, "--into", "whole"))
    return brief("whole", "hp")


def test_an_export_after_the_autosaves_is_compared_with_the_last_one_taken_in() -> None:
    """The export holds the last autosave: the CLI kept the cursor, so it is that state again."""
    ok(run("import", "improved-initiative", II, "--into", "well"))
    result = ok(run("import", "improved-initiative", II_EXPORT, "--into", "well"))
    assert "imported 0 events" in result.stdout
    assert "the same as the last one taken in" in result.stderr
    assert "no cursor" not in result.stderr


def test_avrae_into_an_existing_fight_joins_only_the_newcomers() -> None:
    ok(run("new", "moor", "--ruleset", "dnd5e", "--seed", "1"))
    ok(run("join", "moor", TALI, "--name", "Tali", "--stat", "hp=12"))
    result = ok(run("import", "avrae", AVRAE, "--into", "moor"))
    assert "imported 45 events" in result.stdout  # Tali was there: her join is not made
    assert [v[:2] for v in brief("moor", "hp").values()] == [
        ("upright", 9),  # her first record is the baseline, then 5 temporary HP and 8 damage
        ("dead", 0),
        ("upright", 11),
        ("upright", 9),  # the second combat of the file: a new combatant id
        ("upright", 2),
        ("upright", 5),  # the third: Mira and an orc under Aid, two goblins called GO1
        ("upright", 12),
        ("dead", 0),
        ("upright", 7),
    ]
    assert "Ghost light" in result.stderr


def test_reimporting_the_same_file_adds_nothing() -> None:
    ok(run("import", "avrae", AVRAE, "--into", "moor"))
    before = characters("moor")
    result = ok(run("import", "avrae", AVRAE, "--into", "moor"))
    assert "imported 0 events" in result.stdout
    # the cursor kept from the first import: each record is one taken in already
    assert "is the same as the last one taken in" in result.stderr
    assert characters("moor") == before


def test_a_new_fight_without_ruleset_plays_dnd5e() -> None:
    ok(run("import", "avrae", AVRAE, "--into", "moor"))
    assert json.loads(ok(run("state", "moor", "--json")).stdout)["ruleset"] == "dnd5e"


def test_the_ruleset_of_an_existing_fight_cannot_change() -> None:
    ok(run("import", "foundry", FOUNDRY, "--into", "ambush", "--ruleset", "d26"))
    result = run("import", "foundry", FOUNDRY, "--into", "ambush", "--ruleset", "mordheim")
    assert result.exit_code == 2
    assert "played with `d26`" in result.output


def test_an_unknown_format_names_the_known_ones() -> None:
    result = run("import", "fondry", FOUNDRY, "--into", "f", "--ruleset", "d26")
    assert result.exit_code == 2
    assert "`fondry` is no format, nor a file" in result.stderr
    assert "did you mean `foundry`?" in result.stderr
    assert "foundry, improved-initiative, avrae" in result.stderr


def test_a_malformed_record_names_its_line_and_field_and_writes_nothing(tmp_path: Path) -> None:
    lines = FOUNDRY.read_text().splitlines()
    bad = json.loads(lines[3])
    bad["prior"]["round"] = "one"
    lines[3] = json.dumps(bad)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    result = run("import", "foundry", broken, "--into", "broken", "--ruleset", "d26")
    assert result.exit_code == 3
    assert "line 4" in result.output and "$.prior.round" in result.output
    assert run("state", "broken").exit_code == 2  # not even the fight was created


def test_ruleset_and_seed_go_with_another_programs_records() -> None:
    result = run("import", FOUNDRY, "--ruleset", "d26")
    assert result.exit_code == 2
    assert "go with another program's records" in result.stderr
    assert "woundlog import FORMAT FILE --into FIGHT --ruleset NAME" in result.stderr


def test_the_old_from_form_is_refused_with_the_new_command_to_write() -> None:
    result = run("import", FOUNDRY, "--from", "foundry", "--as", "ambush", "--ruleset", "d26")
    assert result.exit_code == 2
    assert "is now `woundlog import FORMAT FILE`" in result.stderr
    assert f"hint: write 'woundlog import foundry {FOUNDRY} --into ambush --ruleset d26'" in (
        result.stderr
    )
    assert run("state", "ambush").exit_code == 2  # nothing was imported


def test_each_form_has_only_its_own_options() -> None:
    records = run("import", "foundry", "-h").stdout
    assert "--into" in records and "--ruleset" in records and "--as" not in records
    assert "--from" not in run("import", "jsonl", "-h").stdout
    assert run("import", "foundry", FOUNDRY, "--as", "x").exit_code == 2  # --as is the log's
    listed = run("import", "-h").stdout
    assert "FILE.jsonl | FORMAT FILE" in listed and "improved-initiative" in listed


def test_records_need_the_fight_they_go_into() -> None:
    result = run("import", "avrae", AVRAE)
    assert result.exit_code == 2 and "missing option '--into'" in result.stderr


def test_exports_one_after_the_other_into_a_postgresql_store(postgres_url: str) -> None:
    """The cursor lives in the PostgreSQL database too, committed with the events."""
    for export in (II_ROUND_1, II_ROUND_2, II_EXPORT):
        ok(run("--db", postgres_url, "import", "improved-initiative", export, "--into", "pg"))
    state = json.loads(ok(run("--db", postgres_url, "state", "pg", "--json")).stdout)
    hp = {c["name"]: c["hp"] for c in state["characters"].values()}
    assert hp == {"Grim": 4, "Goblin 1": 0, "Goblin 2": 3, "Goblin 3": 7}
    again = ok(
        run("--db", postgres_url, "import", "improved-initiative", II_EXPORT, "--into", "pg")
    )
    assert "imported 0 events" in again.stdout and "the same as the last one" in again.stderr


def test_a_cursor_that_cannot_be_kept_after_the_append_is_a_warning_not_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from woundlog.events.stores import side

    def broken(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(side.ImportCursors, "put", broken)
    result = ok(run("import", "improved-initiative", II, "--into", "goblins"))
    assert "where this import stopped was not kept: disk full" in result.stderr
    assert characters("goblins")  # the events it reported are there

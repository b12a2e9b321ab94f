"""The `woundlog` CLI, driven as a game master would: in-process through typer's CliRunner, and as
the installed console script in a real subprocess. Every store is a throwaway SQLite file named
by $WOUNDLOG_DB."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from woundlog.replays.cli.inputs import scalar

Run = Callable[..., Result]
DATA = Path(str(files("woundlog.replays") / "data"))
EXAMPLES = sorted(DATA.glob("*.jsonl"))


# --- fixtures and helpers ------------------------------------------------------------------------


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def state_json(run: Run, fight: str, *extra: str) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(ok(run("state", fight, "--json", *extra)).stdout)
    return decoded


def states(state: dict[str, Any]) -> dict[str, str]:
    return {cid: character["state"] for cid, character in state["characters"].items()}


def assert_refused(result: Result, exit_code: int, *words: str) -> None:
    """A clean refusal: the exit code, `error: ...` on stderr naming `words`, no traceback."""
    assert result.exit_code == exit_code, result.output
    assert result.stderr.startswith("error: "), result.stderr
    for word in words:
        assert word in result.stderr, result.stderr
    assert "Traceback" not in result.output


def write_lines(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


START = '{"type":"fight_started","ruleset":"mordheim","seed":1}'
JOIN_A = '{"type":"character_joined","character":"a","side":"x"}'


# --- a game master's Mordheim fight --------------------------------------------------------------


def test_given_injury_roll_of_3_stuns_and_a_recovery_phase_knocks_down(
    run: Run, skirmish: str
) -> None:
    hit = ok(run("hit", skirmish, "grim", "1", "--roll", "injury=3", "--attacker", "snitch"))
    assert "stunned" in hit.stdout
    assert "injury d6=3 given" in hit.stdout
    assert states(state_json(run, skirmish))["grim"] == "stunned"

    tick = ok(run("tick", skirmish, "--start", "--side", "reavers", "--round", "1"))
    assert "turns face up" in tick.stdout
    assert states(state_json(run, skirmish))["grim"] == "knocked_down"


def test_state_json_has_the_design_shape(run: Run, skirmish: str) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=3"))
    state = state_json(run, skirmish)
    assert state["ruleset"] == "mordheim"
    assert state["seq"] == 4
    assert list(state["characters"]) == ["grim", "snitch"]  # join order
    grim = state["characters"]["grim"]
    assert grim["state"] == "stunned"
    assert grim["name"] == "Grim"
    assert grim["side"] == "reavers"
    assert grim["wounds"] == 0
    assert grim["injuries"] == []


def test_state_table_shows_each_character_with_the_ruleset_counters(
    run: Run, skirmish: str
) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=5"))
    table = ok(run("state", skirmish)).stdout
    for word in ("id", "name", "side", "state", "wounds", "Grim", "reavers", "out_of_action"):
        assert word in table


def test_state_at_an_earlier_event_shows_the_fight_as_it_stood(run: Run, skirmish: str) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=3"))
    ok(run("tick", skirmish, "--start", "--side", "reavers"))
    assert states(state_json(run, skirmish, "--at", "4"))["grim"] == "stunned"
    assert state_json(run, skirmish, "--at", "4")["seq"] == 4


def test_hit_with_json_prints_the_appended_changes_and_their_dice(run: Run, skirmish: str) -> None:
    appended = json.loads(
        ok(run("hit", skirmish, "grim", "2", "--roll", "injury=1,6", "--json")).stdout
    )
    assert appended["version"] == 4
    (changes,) = appended["changes"]
    assert [d["value"] for d in changes["dice"]] == [1, 6]
    assert changes["characters"][0]["after"] == "out_of_action"  # two rolls, the highest stands


def test_a_die_nobody_gave_is_drawn_and_shown_as_drawn(run: Run, skirmish: str) -> None:
    assert "injury d6=" in ok(run("hit", skirmish, "grim", "1")).stdout
    assert " drawn" in ok(run("log", skirmish)).stdout


def test_option_values_are_typed_so_strict_dice_true_refuses_a_missing_die(run: Run) -> None:
    ok(run("new", "strict", "--ruleset", "mordheim", "--option", "strict_dice=true"))
    ok(run("join", "strict", "grim", "--side", "reavers"))
    assert_refused(run("hit", "strict", "grim", "1"), 3, "$.rolls.injury", "strict_dice")


@pytest.mark.parametrize(
    ("text", "value"),
    [("3", 3), ("-2", -2), ("true", True), ("False", False), ("axe", "axe"), ("3d6", "3d6")],
)
def test_key_value_option_values_are_ints_bools_or_strings(text: str, value: object) -> None:
    assert scalar(text) == value
    assert type(scalar(text)) is type(value)


def test_gear_values_stay_strings_even_when_they_look_like_numbers(run: Run, skirmish: str) -> None:
    ok(run("join", skirmish, "brute", "--side", "skaven", "--gear", "hand=2", "--json"))
    assert state_json(run, skirmish)["characters"]["brute"]["gear"] == {"hand": "2"}


# --- undo and amend ------------------------------------------------------------------------------


def test_undo_retracts_the_newest_event_prints_consequences_and_restores_state(
    run: Run, skirmish: str
) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=5"))
    assert states(state_json(run, skirmish))["grim"] == "out_of_action"

    undo = ok(run("undo", skirmish, "--reason", "wrong target"))
    assert "Grim: out_of_action -> upright" in undo.stdout
    assert "wrong target" in undo.stdout
    state = state_json(run, skirmish)
    assert states(state)["grim"] == "upright"
    assert state["characters"]["grim"]["wounds"] == 1


def test_undo_of_a_named_event_says_when_it_had_no_consequences(run: Run, skirmish: str) -> None:
    ok(run("tick", skirmish, "--end", "--side", "reavers", "--round", "1"))
    undo = ok(run("undo", skirmish, "#4"))
    assert "no consequences" in undo.stdout


def test_undo_of_an_unknown_event_is_refused_naming_the_field(run: Run, skirmish: str) -> None:
    assert_refused(run("undo", skirmish, "nothing-here"), 3, "$.event")


def test_amend_replays_the_replacement_in_the_events_place(run: Run, skirmish: str) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=5", "--id", "blow"))
    replacement = '{"type":"hit","target":"grim","damage":1,"rolls":{"injury":[1]}}'
    amend = ok(run("amend", skirmish, "blow", "--with", replacement, "--reason", "it was a 1"))
    assert "Grim: out_of_action -> knocked_down" in amend.stdout
    assert states(state_json(run, skirmish))["grim"] == "knocked_down"


def test_amend_with_a_malformed_replacement_names_the_field(run: Run, skirmish: str) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=5", "--id", "blow"))
    bad = '{"type":"hit","target":"grim","damage":-1}'
    assert_refused(run("amend", skirmish, "blow", "--replacement", bad), 3, "$.replacement.damage")
    assert_refused(run("amend", skirmish, "blow", "--replacement", "{not json"), 3, "--replacement")


# --- the log, export, import ---------------------------------------------------------------------


def test_log_json_lists_every_event_with_its_dice(run: Run, skirmish: str) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=3"))
    ok(run("undo", skirmish))
    *log, state = map(json.loads, ok(run("log", skirmish, "--json")).stdout.splitlines())
    assert [c["seq"] for c in log] == [1, 2, 3, 4, 5]
    assert state["seq"] == 5 and "characters" in state  # as `replay --trace --json` ends
    assert log[3]["dice"] == [{"purpose": "injury", "sides": 6, "value": 3, "source": "given"}]
    assert log[3]["undone"] == "retracted by #5"
    assert log[4]["consequences"][0]["after"] == "upright"


def test_log_text_shows_each_event_its_dice_and_what_it_changed(run: Run, skirmish: str) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=3"))
    log = ok(run("log", skirmish)).stdout
    assert "#4 hit" in log
    assert "injury d6=3 given" in log
    assert "Grim: upright -> stunned (wounds 1 -> 0)" in log


def test_export_then_import_gives_the_same_state(run: Run, skirmish: str, tmp_path: Path) -> None:
    ok(run("hit", skirmish, "grim", "1"))  # a drawn die: the copy must draw it the same
    ok(run("undo", skirmish))
    ok(run("hit", skirmish, "snitch", "1", "--roll", "injury=4", "--id", "blow"))
    exported = tmp_path / "copy.jsonl"
    ok(run("export", skirmish, "-o", str(exported)))
    assert ok(run("export", skirmish)).stdout == exported.read_text()

    imported = ok(run("import", str(exported)))
    assert "imported 6 events into fight `copy`" in imported.stdout
    assert state_json(run, "copy") == state_json(run, skirmish)


def test_import_is_refused_whole_naming_the_line_of_each_bad_event(
    run: Run, tmp_path: Path
) -> None:
    log = write_lines(
        tmp_path / "bad.jsonl",
        START,
        JOIN_A,
        '{"type":"hit","target":"b","damage":1}',
        '{"type":"heal","target":"a","amount":1}',
    )
    assert_refused(run("import", str(log)), 3, "line 3", "$.target", "line 4", "no healing")
    assert_refused(run("state", "bad"), 2, "no fight `bad`")


def test_import_of_an_id_already_used_with_other_content_is_a_conflict(
    run: Run, tmp_path: Path
) -> None:
    hit = '{"type":"hit","id":"blow","target":"a","damage":1,"rolls":{"injury":[%d]}}'
    ok(run("import", str(write_lines(tmp_path / "first.jsonl", START, JOIN_A, hit % 3))))
    other = write_lines(tmp_path / "second.jsonl", START, JOIN_A, hit % 5)
    assert_refused(run("import", str(other), "--as", "first"), 4, "blow")
    assert state_json(run, "first")["seq"] == 3


def test_the_apps_db_option_chooses_the_store(run: Run, tmp_path: Path) -> None:
    store = tmp_path / "logs"
    store.mkdir()
    ok(run("--db", f"jsonl:{store}", "new", "f", "--ruleset", "mordheim"))
    assert (store / "f.jsonl").exists()
    assert_refused(run("state", "f"), 2, "no fight `f`")  # not in $WOUNDLOG_DB
    ok(run("--db", f"jsonl:{store}", "state", "f"))


# --- replaying files -----------------------------------------------------------------------------


EXPECTED_FINAL = {
    "mordheim_skirmish.jsonl": {
        "aldric": "upright",  # the GM's slip against him was retracted
        "grim": "knocked_down",
        "brugo": "upright",
        "snikkit": "out_of_action",
        "skrat": "out_of_action",
        "gnash": "upright",
    },
    "mordheim_recovery.jsonl": {"marius": "knocked_down", "vex": "upright"},
    "mordheim_undo.jsonl": {"hilde": "stunned", "ulf": "knocked_down", "brand": "upright"},
    "contractor_cinder.jsonl": {"cinder": "upright"},
    "contractor_salvage.jsonl": {"brask": "upright", "mirel": "upright", "tomo": "dead"},
    "contractor_own_tables.jsonl": {"ash": "upright", "juno": "upright"},
    "dragonquest_rolf.jsonl": {"rolf": "upright", "orc": "upright"},
    "dragonquest_house_table.jsonl": {"hake": "upright", "morrow": "upright"},
    "dragonquest_skirmish.jsonl": {
        "rolf": "upright",
        "brannoc": "upright",
        "ysolde": "upright",
        "gorlag": "upright",
        "snag": "knocked_down",
        "cinderwing": "stunned",  # stunned in the last pulse: no attempt before the fight ends
    },
    "warhammer_quest_fire_chasm.jsonl": {
        "grundi": "upright",
        "elwen": "upright",
        "magnus": "stabilised",
        "brakk": "dead",
        "skarsnik": "dead",
        "snotgit": "dead",
        "grishnak": "dead",
        "gorbag": "upright",
    },
    "d26_agony.jsonl": {"bren": "dead", "ysolde": "upright", "troll": "upright"},
    "d26_ossuary_gate.jsonl": {
        "mira": "upright",
        "kael": "upright",
        "ghoul": "dead",
        "warden": "dead",
    },
    "dnd5e_goblin_ambush.jsonl": {
        "tordek": "upright",
        "mirabel": "upright",
        "lyra": "upright",
        "boss": "dead",
        "g1": "dead",
        "g2": "stabilised",
        "g3": "upright",
    },
}


def test_every_bundled_example_has_an_expected_outcome() -> None:
    assert sorted(EXPECTED_FINAL) == sorted(path.name for path in EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_replay_of_a_bundled_example_gives_the_states_the_rules_demand(
    run: Run, example: Path
) -> None:
    state = json.loads(ok(run("replay", str(example), "--json", "--strict")).stdout)
    assert states(state) == EXPECTED_FINAL[example.name]
    trace = ok(run("replay", str(example), "--trace")).stdout
    assert "#1 fight_started" in trace


def test_replay_at_shows_the_stunned_fighter_still_down_after_one_recovery_phase(
    run: Run,
) -> None:
    recovery = str(DATA / "mordheim_recovery.jsonl")
    at = {
        seq: json.loads(ok(run("replay", recovery, "--at", seq, "--json")).stdout) for seq in "459"
    }
    assert states(at["4"])["marius"] == "stunned"
    assert states(at["5"])["marius"] == "knocked_down"
    assert states(at["9"])["marius"] == "upright"


def test_replay_trace_json_prints_one_changes_object_per_event_then_the_state(run: Run) -> None:
    out = ok(run("replay", str(DATA / "mordheim_undo.jsonl"), "--trace", "--json")).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    assert [c["seq"] for c in lines[:-1]] == list(range(1, 10))
    assert lines[-1]["seq"] == 9 and "characters" in lines[-1]


def test_replay_voids_an_event_the_rules_refuse_unless_strict(run: Run, tmp_path: Path) -> None:
    log = write_lines(tmp_path / "f.jsonl", START, JOIN_A, '{"type":"hit","target":"b","damage":1}')
    assert "void: no character `b`" in ok(run("replay", str(log), "--trace")).stdout
    assert_refused(run("replay", str(log), "--strict"), 3, "line 3", "$.target")


def test_replay_of_a_bad_json_line_is_refused_naming_the_line(run: Run, tmp_path: Path) -> None:
    log = write_lines(tmp_path / "f.jsonl", START, JOIN_A, "{not json at all")
    assert_refused(run("replay", str(log)), 3, "line 3", "not a JSON event")


def test_replay_of_a_wrong_type_names_line_and_field(run: Run, tmp_path: Path) -> None:
    log = write_lines(
        tmp_path / "f.jsonl", START, JOIN_A, '{"type":"hit","target":"a","damage":"x"}'
    )
    assert_refused(run("replay", str(log)), 3, "line 3", "$.damage")


def test_replay_of_a_missing_file_is_a_usage_error(run: Run, tmp_path: Path) -> None:
    assert_refused(run("replay", str(tmp_path / "nope.jsonl")), 2, "nope.jsonl")


# --- reference commands --------------------------------------------------------------------------


def test_rules_lists_the_rulesets(run: Run) -> None:
    assert "mordheim" in ok(run("rules")).stdout


def test_rules_mordheim_shows_its_decisions_and_what_it_declares(run: Run) -> None:
    out = ok(run("rules", "mordheim")).stdout
    assert "Decisions where the text is silent" in out
    assert "injury (d6)" in out
    assert "wounds=1" in out
    assert "strict_dice=false" in out


def test_rules_diagram_prints_a_mermaid_state_diagram(run: Run) -> None:
    out = ok(run("rules", "mordheim", "--diagram")).stdout
    assert "stateDiagram-v2" in out
    assert "upright --> knocked_down: knock_down" in out


def test_rules_of_an_unknown_ruleset_is_a_usage_error(run: Run) -> None:
    assert_refused(run("rules", "warhammer"), 2, "warhammer", "mordheim")


def test_schema_is_valid_json_describing_every_event_type(run: Run) -> None:
    schema = json.loads(ok(run("schema")).stdout)
    assert {"FightStarted", "Hit", "Retract", "Amend"} <= set(schema["$defs"])


def test_demo_tells_the_skirmish_die_by_die_with_its_undo(run: Run) -> None:
    out = ok(run("demo")).stdout
    assert "injury d6=4 given, injury d6=2 given" in out  # two rolls, the highest stands
    assert "drawn" in out
    assert "is out of action" in out
    assert "retract" in out
    assert "consequence: Aldric Voss: out_of_action -> upright" in out
    assert "final state" in out


# --- refusals: nothing lost, nothing half-written ------------------------------------------------


def test_an_unknown_fight_is_a_usage_error(run: Run) -> None:
    assert_refused(run("state", "nowhere"), 2, "no fight `nowhere`")
    assert_refused(run("hit", "nowhere", "grim", "1"), 2, "no fight `nowhere`")


def test_starting_a_fight_twice_is_a_usage_error(run: Run, skirmish: str) -> None:
    assert_refused(run("new", skirmish, "--ruleset", "mordheim"), 2, "already exists")


def test_tables_file_is_read_into_fight_started_and_checked_by_the_ruleset(
    run: Run, tmp_path: Path
) -> None:
    tables = tmp_path / "house.toml"
    tables.write_text('injury = { 1 = "stunned" }\n')
    # Mordheim replaces no tables, so the table arriving in fight_started is what is refused
    assert_refused(
        run("new", "f", "--ruleset", "mordheim", "--tables", str(tables)), 3, "$.tables.injury"
    )
    tables.write_text("injury = [\n")
    assert_refused(run("new", "f", "--ruleset", "mordheim", "--tables", str(tables)), 2, "not TOML")


def test_an_unknown_ruleset_is_a_usage_error_naming_the_option_and_the_nearest(run: Run) -> None:
    assert_refused(run("new", "f", "--ruleset", "warhammer"), 2, "--ruleset", "warhammer_quest")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("heal", "skirmish", "grim", "1"), ("no healing",)),
        (("hit", "skirmish", "grim", "1", "--roll", "injury=7"), ("$.rolls.injury[0]", "not 7")),
        (("hit", "skirmish", "nobody", "1"), ("$.target", "nobody")),
        (("hit", "skirmish", "grim", "1", "--fact", "magic=true"), ("$.magic",)),
        (("hit", "skirmish", "grim", "1", "--fact", "colour=red"), ("colour",)),
        (("join", "skirmish", "rat", "--side", "skaven", "--stat", "luck=3"), ("$.stats.luck",)),
        (("tick", "skirmish", "--start", "--side", "elves"), ("$.side",)),
        (("choose", "skirmish", "grim", "last_stand"), ("choice",)),
    ],
    ids=[
        "heal",
        "die-out-of-range",
        "unknown-character",
        "unused-fact",
        "unknown-fact",
        "unknown-stat",
        "unknown-side",
        "choice",
    ],
)
def test_a_refused_event_exits_3_naming_why_and_leaves_the_log_unchanged(
    run: Run, skirmish: str, args: tuple[str, ...], words: tuple[str, ...]
) -> None:
    before = state_json(run, skirmish)
    assert_refused(run(*args), 3, *words)
    assert state_json(run, skirmish) == before
    assert len(ok(run("log", skirmish, "--json")).stdout.splitlines()) == before["seq"] + 1


@pytest.mark.parametrize(
    "args",
    [
        ("tick", "skirmish"),
        ("tick", "skirmish", "--start", "--end"),
        ("tick", "skirmish", "--start", "--side", "reavers", "--character", "grim"),
        ("hit", "skirmish", "grim", "1", "--roll", "injury"),
        ("hit", "skirmish", "grim", "1", "--fact", "damage=3"),
        ("join", "skirmish", "rat", "--stat", "wounds=1", "--stat", "wounds=2"),
    ],
    ids=[
        "no-start-or-end",
        "start-and-end",
        "side-and-character",
        "roll-without-value",
        "fact-that-is-a-field",
        "stat-twice",
    ],
)
def test_a_malformed_command_is_a_usage_error(
    run: Run, skirmish: str, args: tuple[str, ...]
) -> None:
    assert_refused(run(*args), 2)
    assert state_json(run, skirmish)["seq"] == 3


def test_a_missing_argument_keeps_typers_usage_exit_code(run: Run) -> None:
    result = run("hit", "skirmish")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


# --- the installed console script ----------------------------------------------------------------


def woundlog_command() -> list[str]:
    """The installed `woundlog` script beside this interpreter, else the same entry point."""
    script = shutil.which("woundlog", path=str(Path(sys.executable).parent))
    if script:
        return [script]
    return [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]


def woundlog(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WOUNDLOG_DB": str(db)}
    env.pop("COLUMNS", None)
    return subprocess.run(
        [*woundlog_command(), *args], capture_output=True, text=True, env=env, timeout=60
    )


def test_installed_script_runs_a_fight_in_the_sqlite_file_named_by_woundlog_db(
    tmp_path: Path,
) -> None:
    db = tmp_path / "fights.db"
    for args in (
        ("new", "f", "--ruleset", "mordheim", "--seed", "3"),
        ("join", "f", "grim", "--side", "reavers"),
        ("hit", "f", "grim", "1", "--roll", "injury=3"),
    ):
        done = woundlog(db, *args)
        assert done.returncode == 0, done.stderr
    assert db.exists()
    state = json.loads(woundlog(db, "state", "f", "--json").stdout)
    assert state["characters"]["grim"]["state"] == "stunned"


def test_installed_script_refuses_without_a_traceback_and_with_the_exit_code(
    tmp_path: Path,
) -> None:
    db = tmp_path / "fights.db"
    assert woundlog(db, "new", "f", "--ruleset", "mordheim").returncode == 0
    assert woundlog(db, "join", "f", "grim", "--side", "reavers").returncode == 0

    refused = woundlog(db, "hit", "f", "grim", "1", "--roll", "injury=7")
    assert refused.returncode == 3
    assert refused.stderr.startswith("error: ")
    assert "$.rolls.injury[0]" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert refused.stdout == ""

    unknown = woundlog(db, "state", "nowhere")
    assert unknown.returncode == 2
    assert "Traceback" not in unknown.stderr


def test_installed_script_demo_runs_from_package_data(tmp_path: Path) -> None:
    done = woundlog(tmp_path / "unused.db", "demo")
    assert done.returncode == 0, done.stderr
    assert "out of action" in done.stdout
    assert not (tmp_path / "unused.db").exists()  # the demo writes nothing


def test_tick_and_choose_carry_given_dice_and_an_id(run: Run, skirmish: str) -> None:
    tick = ok(
        run(
            "tick",
            skirmish,
            "--end",
            "--side",
            "reavers",
            "--roll",
            "injury=6",
            "--id",
            "t1",
            "--json",
        )
    )
    [changes] = json.loads(tick.stdout)["changes"]
    assert changes["event"] == "t1"
    assert changes["unused"] == {"injury": [6]}  # Mordheim rolls nothing at a turn's end
    refused = run("choose", skirmish, "grim", "last_stand", "--roll", "hold_on=1")
    assert refused.exit_code == 3

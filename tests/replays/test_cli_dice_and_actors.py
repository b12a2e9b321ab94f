"""The CLI side of scoped dice, who may act and void events (issue 10): what a game master types
and reads, through typer's CliRunner with a throwaway SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from woundlog.events import WIRE_VERSION
from woundlog.replays.cli import app

from .conftest import Run
from .test_cli import DATA, ok


def warriors(run: Run) -> str:
    """A Warhammer Quest fight with two warriors and an orc."""
    ok(run("new", "chasm", "--ruleset", "warhammer_quest", "--seed", "3"))
    for cid, kind, wounds in (
        ("grundi", "warrior", 3),
        ("brakk", "warrior", 3),
        ("orc", "monster", 9),
    ):
        ok(run("join", "chasm", cid, "--kind", kind, "--stat", f"wounds={wounds}"))
    return "chasm"


def test_a_new_fight_records_the_newest_wire_version(run: Run, skirmish: str) -> None:
    exported = ok(run("export", skirmish)).stdout.splitlines()
    assert json.loads(exported[0])["version"] == WIRE_VERSION == 3


def test_roll_takes_a_die_scoped_to_a_character_and_log_shows_whose_it_was(run: Run) -> None:
    fight = warriors(run)
    ok(run("hit", fight, "grundi", "3", "--attacker", "orc", "--roll", "serious_injury=3,3"))
    ok(run("hit", fight, "brakk", "3", "--attacker", "orc", "--roll", "serious_injury=3,3"))
    ended = ok(run("tick", fight, "--end", "--roll", "downed@brakk=1", "--roll", "downed@grundi=6"))
    assert "brakk: Downed 1: succumbs" in ended.stdout
    text = ok(run("log", fight)).stdout
    assert "downed@grundi d6=6 given" in text and "downed@brakk d6=1 given" in text
    state = json.loads(ok(run("state", fight, "--json")).stdout)
    assert state["characters"]["brakk"]["state"] == "dead"
    assert state["characters"]["grundi"]["state"] == "stabilised"


def test_a_stunned_attacker_is_refused_when_entered_and_nothing_is_written(
    run: Run, skirmish: str
) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=3"))  # Grim is stunned
    refused = run("hit", skirmish, "snitch", "1", "--attacker", "grim")
    assert refused.exit_code == 3
    assert "Grim is stunned and may do nothing at all" in refused.output
    assert "$.attacker" in refused.output
    assert len(ok(run("export", skirmish)).stdout.splitlines()) == 4


def test_an_attacker_who_is_no_character_is_accepted_and_named(run: Run, skirmish: str) -> None:
    hit = ok(run("hit", skirmish, "grim", "1", "--attacker", "ork", "--roll", "injury=1"))
    assert "attacker `ork` is not a character of this fight" in hit.stdout


def test_a_die_of_a_purpose_the_ruleset_never_rolls_is_refused_with_the_nearest(
    run: Run, skirmish: str
) -> None:
    refused = run("hit", skirmish, "grim", "1", "--roll", "injruy=3")
    assert refused.exit_code == 3
    assert "rolls no `injruy` dice (it rolls: injury); did you mean `injury`?" in refused.output


def test_a_d66_given_as_one_number_is_refused_with_how_to_give_it(run: Run) -> None:
    fight = warriors(run)
    refused = run("hit", fight, "grundi", "3", "--roll", "serious_injury=34")
    assert refused.exit_code == 3
    assert "a D66 is two d6, tens then units: give 34 as [3, 4]" in refused.output


def test_rules_prints_who_may_act_in_each_state(run: Run) -> None:
    out = ok(run("rules", "mordheim")).stdout
    assert "who may act in mordheim" in out
    stunned = next(line for line in out.splitlines() if "│ stunned" in line)
    assert "no" in stunned and "may do nothing at all" in stunned


def test_replay_json_names_each_void_event_on_stderr_and_keeps_stdout_the_state(
    tmp_path: Path,
) -> None:
    log = tmp_path / "typo.jsonl"
    log.write_text(
        '{"type":"fight_started","ruleset":"d26","version":2}\n'
        '{"type":"character_joined","character":"mira","stats":{"HP":5}}\n'
        '{"type":"hit","target":"mira","damage":2}\n'
    )
    result = CliRunner().invoke(app, ["replay", str(log), "--json"])
    assert result.exit_code == 0
    state = json.loads(result.stdout)  # standard output is the state JSON alone
    assert state["characters"] == {} and state["seq"] == 3
    lines = result.stderr.splitlines()
    assert lines[0] == (
        "warning: line 2: event #2 is void: d26 has no stat `HP` (it has: hp); did you mean `hp`?"
    )
    assert lines[1].startswith("warning: line 3: event #3 is void: no character `mira`")
    assert lines[2].startswith("warning: 2 events void")
    assert len(lines) == 3


def test_replay_of_a_log_with_nothing_void_says_nothing_on_stderr(tmp_path: Path) -> None:
    log = tmp_path / "fine.jsonl"
    log.write_text(
        '{"type":"fight_started","ruleset":"d26","version":2}\n'
        '{"type":"character_joined","character":"mira","stats":{"hp":5}}\n'
    )
    result = CliRunner().invoke(app, ["replay", str(log), "--trace", "--json"])
    assert result.exit_code == 0 and result.stderr == ""


def test_check_records_a_death_save_rolled_at_the_table_once(run: Run) -> None:
    ok(run("new", "trail", "--ruleset", "dnd5e", "--option", "death_saves=table"))
    ok(run("join", "trail", "mira", "--name", "Mira", "--stat", "hp=10"))
    ok(run("hit", "trail", "mira", "10"))
    first = ok(run("check", "trail", "mira", "death_save", "--roll", "death_save=20", "--id", "s1"))
    assert "Mira: death save 20: regains 1 hit point and consciousness" in first.stdout
    again = ok(run("check", "trail", "mira", "death_save", "--roll", "death_save=20", "--id", "s1"))
    assert "already" in again.output  # the same save resent is skipped, never rolled twice
    refused = run("check", "trail", "mira", "death_save")
    assert refused.exit_code == 3
    assert "Mira is upright and makes no death saving throws" in refused.output


def test_check_takes_what_the_table_added_to_the_die(run: Run) -> None:
    ok(run("new", "trail", "--ruleset", "dnd5e", "--option", "death_saves=table"))
    ok(run("join", "trail", "mira", "--name", "Mira", "--stat", "hp=10"))
    ok(run("hit", "trail", "mira", "10"))
    blessed = ok(
        run("check", "trail", "mira", "death_save", "--roll", "death_save=8", "--bonus", "3")
    )
    assert "Mira: death save 8 + 3 = 11: success" in blessed.stdout
    state = json.loads(ok(run("state", "trail", "--json")).stdout)
    assert state["characters"]["mira"]["successes"] == 1


def test_odds_of_a_hit_from_a_stored_fight_as_fractions_and_json(run: Run, skirmish: str) -> None:
    text = ok(run("odds", skirmish, "--hit", "grim:2", "--character", "grim")).stdout
    assert "odds once 1 more event has happened (the what-if), exact" in text
    assert "5/9" in text and "55.56" in text
    answer = json.loads(ok(run("odds", skirmish, "--hit", "grim:2", "--json")).stdout)
    states = {s["state"]: s["chance"] for s in answer["characters"]["grim"]["states"]}
    assert states == {"out_of_action": "5/9", "stunned": "1/3", "knocked_down": "1/9"}
    assert answer["exact"] is True and answer["void"] == []


def test_odds_of_a_file_at_an_event_with_ticks_and_an_estimate(tmp_path: Path) -> None:
    log = tmp_path / "f.jsonl"
    log.write_text(
        '{"type":"fight_started","ruleset":"dnd5e","version":2}\n'
        '{"type":"character_joined","character":"mira","side":"party","stats":{"hp":10}}\n'
        '{"type":"hit","target":"mira","damage":10}\n'
        '{"type":"fight_ended"}\n'
    )
    runner = CliRunner()
    exact = runner.invoke(app, ["odds", str(log), "--at", "3", "--ticks", "5", "--json"])
    assert exact.exit_code == 0, exact.output
    states = {
        s["state"]: s["chance"] for s in json.loads(exact.stdout)["characters"]["mira"]["states"]
    }
    assert states == {"stabilised": "331/800", "dead": "3239/8000", "upright": "1451/8000"}
    sampled = runner.invoke(
        app, ["odds", str(log), "--at", "3", "--ticks", "5", "--samples", "500"]
    )
    assert sampled.exit_code == 0, sampled.output
    assert "estimated from 500 samples" in sampled.stdout
    ended = runner.invoke(app, ["odds", str(log), "--hit", "mira:1"])
    assert "void on 100.00% of paths: the fight has ended" in ended.stdout


def test_odds_without_a_question_is_a_usage_error(run: Run, skirmish: str) -> None:
    refused = run("odds", skirmish)
    assert refused.exit_code == 2 and "--then, --then-file, --hit or --ticks" in refused.output
    unknown = run("odds", skirmish, "--hit", "grim:1", "--character", "ghost")
    assert unknown.exit_code == 2 and "no character `ghost`" in unknown.output


def test_branch_copies_the_log_up_to_n_then_the_what_if_and_diff_shows_it(
    run: Run, skirmish: str
) -> None:
    ok(run("hit", skirmish, "grim", "1", "--roll", "injury=1"))  # #4: Grim knocked down
    ok(run("tick", skirmish, "--start", "--side", "reavers"))  # #5: he stands
    made = ok(run("branch", skirmish, "--at", "4", "--as", "other", "--hit", "grim:1", "--json"))
    assert json.loads(made.stdout)["version"] == 5
    exported = [json.loads(line) for line in ok(run("export", "other")).stdout.splitlines()]
    assert exported[0]["note"] == "branch of fight `skirmish` at #4"
    assert exported[4]["type"] == "hit" and exported[3]["rolls"] == {"injury": [1]}
    differences = json.loads(ok(run("diff", skirmish, "other", "--json")).stdout)
    assert [d["character"] for d in differences] == ["grim"]
    assert differences[0]["before"] == "upright"
    assert len(ok(run("export", skirmish)).stdout.splitlines()) == 5  # the original untouched


def test_a_branch_whose_what_if_is_refused_is_not_made(run: Run, skirmish: str) -> None:
    refused = run("branch", skirmish, "--as", "other", "--hit", "ghost:1")
    assert refused.exit_code == 3 and "no character `ghost`" in refused.output
    assert run("state", "other").exit_code == 2
    taken = run("branch", skirmish, "--as", skirmish)
    assert taken.exit_code == 2 and "already exists" in taken.output


def test_import_of_a_log_names_every_refused_line_at_once(run: Run, tmp_path: Path) -> None:
    log = tmp_path / "f.jsonl"
    log.write_text(
        '{"type":"fight_started","ruleset":"mordheim","version":2}\n'
        '{"type":"character_joined","character":"a","side":"x"}\n'
        '{"type":"hit","target":"a","damage":-1}\n'
        '{"type":"hit","target":"b","damage":1}\n'
    )
    refused = run("import", str(log), "--as", "imp")
    assert refused.exit_code == 3
    assert "line 3, event #3, field $.damage" in refused.output
    assert "line 4, event #4, field $.target: no character `b`" in refused.output
    assert run("state", "imp").exit_code == 2  # nothing written


def test_odds_plot_draws_a_bar_per_character_split_by_state(run: Run, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    log = DATA / "mordheim_undo.jsonl"
    out = tmp_path / "odds.svg"
    ok(run("odds", str(log), "--at", "4", "--hit", "hilde:2", "--plot", str(out)))
    svg = ET.parse(out).getroot()
    bars = [r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.get("data-state")]
    hilde = [r.get("data-state") for r in bars][:3]
    assert hilde == ["out_of_action", "stunned", "knocked_down"]  # 5/9, 1/3, 1/9: widest first
    widths = [float(r.get("width", 0)) for r in bars[:3]]
    assert widths[0] > widths[1] > widths[2] and abs(sum(widths) - 560) < 0.5
    png = tmp_path / "odds.png"
    ok(run("odds", str(log), "--at", "4", "--hit", "hilde:2", "--plot", str(png)))
    assert png.read_bytes().startswith(b"\x89PNG")
    refused = run("odds", str(log), "--hit", "hilde:2", "--plot", str(tmp_path / "odds.gif"))
    assert refused.exit_code == 2 and "write .svg or .png" in refused.output


def test_odds_plot_names_every_state_under_its_bar_and_has_a_legend(
    run: Run, tmp_path: Path
) -> None:
    """Hilde's knocked down 1/9 is a sliver too narrow for its name: it is named, with every
    other state of her row, under the bar; the legend gives each colour shown its state."""
    import xml.etree.ElementTree as ET

    svg_ns = "{http://www.w3.org/2000/svg}"
    out = tmp_path / "odds.svg"
    ok(run("odds", str(DATA / "mordheim_undo.jsonl"), "--at", "4", "--hit", "hilde:2",
           "--plot", str(out)))  # fmt: skip
    svg = ET.parse(out).getroot()
    rows = [t.text for t in svg.iter(f"{svg_ns}text") if t.get("class") == "states"]
    assert rows == [
        "out of action 55.6% · stunned 33.3% · knocked down 11.1%",  # 5/9, 1/3, 1/9
        "upright 100.0%",
        "upright 100.0%",
    ]
    [legend] = [g for g in svg.iter(f"{svg_ns}g") if g.get("class") == "legend"]
    swatches = [r.get("data-legend") for r in legend.iter(f"{svg_ns}rect")]
    assert swatches == ["upright", "knocked_down", "stunned", "out_of_action"]
    assert [t.text for t in legend.iter(f"{svg_ns}text")] == [
        "upright", "knocked down", "stunned", "out of action"
    ]  # fmt: skip
    bars = {r.get("data-state"): r.get("fill") for r in svg.iter(f"{svg_ns}rect")
            if r.get("data-state")}  # fmt: skip
    for swatch in legend.iter(f"{svg_ns}rect"):
        assert swatch.get("fill") == bars[swatch.get("data-legend")]

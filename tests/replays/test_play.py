"""`woundlog play FIGHT` (issue 26, section 1), line by line: each line the CLI's own command,
with the fight bound, on one store kept open; refusals as the CLI's, nothing written, and the
session goes on; the status line; what another writer did shown as `meanwhile`; completion of
commands, options, ids and names; and prompt_toolkit reading the lines (a pipe input), with its
history. The real terminal is test_play_terminal.py; racing sessions, test_play_race.py."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from woundlog.replays.cli import app
from woundlog.replays.cli.application import kept_open
from woundlog.replays.cli.lines import completer, interactive
from woundlog.replays.cli.run import every_command
from woundlog.replays.cli.session import OUT_OF_SESSION, Session, status_line

from .conftest import Run
from .test_cli import ok
from .test_cli_names import events_of

CLI = [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]


@pytest.fixture
def session(db: Path, skirmish: str) -> Iterator[Session]:
    """A session on the skirmish (Grim `grim`, one wound; Snitch `snitch`), as `play` opens it."""
    with kept_open(None) as opened:
        yield Session(every_command(), opened, skirmish, None)


def lines(session: Session, capsys: pytest.CaptureFixture[str], *typed: str) -> tuple[str, str]:
    """Each line handled in turn (every one must leave the session open); stdout and stderr."""
    capsys.readouterr()
    for line in typed:
        assert session.handle(line), line
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_line_is_the_cli_command_without_woundlog_and_the_fight(
    session: Session, capsys: pytest.CaptureFixture[str], run: Run
) -> None:
    out, err = lines(session, capsys, "hit Grim 1 --attacker Snitch --roll injury=3")
    assert err == ""
    assert out.splitlines()[0].startswith("#4 hit: Grim")
    hit = events_of(run, "skirmish")[-1]
    assert (hit["target"], hit["attacker"], hit["rolls"]) == ("grim", "snitch", {"injury": [3]})


def test_after_a_writing_command_a_status_line_says_who_is_down_dying_or_out(
    session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = lines(session, capsys, "hit grim 1 --roll injury=3")
    assert out.splitlines()[-1] == "  down: Grim (stunned)"
    out, _ = lines(session, capsys, "hit snitch 1 --roll injury=6")
    assert out.splitlines()[-1] == "  down: Grim (stunned); out: Snitch (out of action)"
    out, _ = lines(session, capsys, "undo", "undo")
    assert out.splitlines()[-1] == "  nobody is down, dying or out"
    out, _ = lines(session, capsys, "log")  # a command that reads: no status line
    assert "nobody is down" not in out


def test_the_status_line_groups_by_what_each_state_means() -> None:
    from woundlog.core import Character

    people = {
        cid: Character(state=state, name=cid.title(), side="", kind="")  # type: ignore[arg-type]
        for cid, state in [("a", "upright"), ("b", "stabilised"), ("c", "downed"), ("d", "dead")]
    }
    assert status_line(people) == "  down: B (stabilised); dying: C (downed); out: D (dead)"


def test_a_refused_command_says_what_the_cli_says_writes_nothing_and_the_session_goes_on(
    session: Session, capsys: pytest.CaptureFixture[str], run: Run
) -> None:
    one_shot = CliRunner().invoke(app, ["hit", "skirmish", "Grm", "1"])
    before = events_of(run, "skirmish")
    for typed, cli in [
        ("hit Grm 1", ["hit", "skirmish", "Grm", "1"]),
        ("hit grim -1", ["hit", "skirmish", "grim", "-1"]),
        ("hit grim 1 --bogus", ["hit", "skirmish", "grim", "1", "--bogus"]),
        ("hti grim 1", ["hti", "skirmish", "grim", "1"]),
    ]:
        one_shot = CliRunner().invoke(app, cli)
        out, err = lines(session, capsys, typed)
        assert one_shot.exit_code in (2, 3)
        assert (out, err) == ("", one_shot.stderr), typed  # the same words, the same code
        assert session.code == one_shot.exit_code
    assert events_of(run, "skirmish") == before
    out, _ = lines(session, capsys, "hit grim 1 --roll injury=1")  # and it goes on
    assert out.startswith("#4 hit")


@pytest.mark.parametrize("word", sorted(OUT_OF_SESSION))
def test_a_command_that_makes_no_sense_in_a_session_is_refused_with_its_reason(
    word: str, session: Session, capsys: pytest.CaptureFixture[str], run: Run
) -> None:
    before = events_of(run, "skirmish")
    out, err = lines(session, capsys, f"{word} skirmish --yes")
    assert out == ""
    assert err.startswith(f"error: `{word}` is not for a session: ")
    assert events_of(run, "skirmish") == before
    assert ok(run("fights")).stdout.count("skirmish") == 1  # not deleted, renamed or doubled


def test_the_shells_words_typed_by_habit_are_refused_saying_how_to_write_the_line(
    session: Session, capsys: pytest.CaptureFixture[str], run: Run
) -> None:
    before = events_of(run, "skirmish")
    _, err = lines(session, capsys, "woundlog hit skirmish grim 1", "hit skirmish grim 1")
    assert "without `woundlog` and the fight: `hit grim 1`" in err
    assert "the fight is `skirmish` already: `hit grim 1`" in err
    assert events_of(run, "skirmish") == before


def test_state_help_and_quit(session: Session, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = lines(session, capsys, "state")
    assert "skirmish: mordheim, seq 3" in out and "Snitch" in out
    out, _ = lines(session, capsys, "help")
    listed = [line.split()[0] for line in out.splitlines()[1:-1]]
    assert {"hit", "undo", "tick", "state", "odds", "help", "quit"} <= set(listed)
    assert not set(OUT_OF_SESSION) & set(listed)
    out, _ = lines(session, capsys, "help hit")
    assert "Usage: woundlog hit" in out
    assert session.handle("quit") is False
    assert session.handle("exit") is False


def test_odds_and_undo_run_on_the_fight_as_the_issue_writes_them(
    session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = lines(session, capsys, "odds --hit Grim:1 --character grim")
    assert err == "" and "out_of_action" in out
    out, _ = lines(session, capsys, "hit snitch 1 --roll injury=6", "undo --reason missed")
    assert "consequence: Snitch: out_of_action -> upright" in out


def test_what_another_writer_did_is_shown_and_a_refusal_it_caused_names_it(
    session: Session, capsys: pytest.CaptureFixture[str], db: Path, run: Run
) -> None:
    # another process, with its own store: the CLI, as a second GM would type it
    knock = [*CLI, "--db", str(db), "hit", "skirmish", "snitch", "1", "--roll", "injury=6"]
    subprocess.run(knock, check=True, capture_output=True, timeout=60)
    before = events_of(run, "skirmish")
    out, err = lines(session, capsys, "hit grim 1 --attacker snitch")
    assert out.splitlines()[0].startswith("meanwhile: #4 hit: Snitch")
    assert "Snitch is out of action" in err or "out_of_action" in err, err
    assert "the fight changed since your last command (#4, above)" in out
    assert events_of(run, "skirmish") == before  # the refused hit wrote nothing
    out, _ = lines(session, capsys, "state")  # shown once: the session has caught up
    assert "meanwhile" not in out


def test_a_fight_deleted_elsewhere_ends_the_session_saying_so(
    session: Session, capsys: pytest.CaptureFixture[str], db: Path
) -> None:
    delete = [*CLI, "--db", str(db), "delete", "skirmish", "--yes"]
    subprocess.run(delete, check=True, capture_output=True, timeout=60)
    assert session.handle("state") is False
    assert "fight `skirmish` is gone" in capsys.readouterr().err


def test_completion_offers_commands_options_ids_and_display_names(
    session: Session, run: Run
) -> None:
    ok(run("join", "skirmish", "gorbag", "--name", "Gorbag the Shaman", "--side", "skaven"))
    assert session.candidates([], "ti") == ["tick", "timeline"]
    assert "new" not in session.candidates([], "")
    assert session.candidates(["hit"], "") == [
        "grim", "Grim", "snitch", "Snitch", "gorbag", "Gorbag the Shaman"
    ]  # fmt: skip
    assert session.candidates(["hit", "grim", "1", "--attacker"], "sn") == ["snitch", "Snitch"]
    assert session.candidates(["hit", "grim"], "") == []  # DAMAGE: no character
    assert "--attacker" in session.candidates(["hit", "grim", "1"], "--a")
    assert session.candidates(["tick"], "") == ["start", "end"]
    assert session.candidates(["tick", "start", "--side"], "") == ["reavers", "skaven"]
    assert session.candidates(["help"], "un") == ["undo"]


def test_completion_reads_the_fight_as_it_is_now(session: Session, run: Run) -> None:
    assert "ulf" not in session.candidates(["hit"], "")
    ok(run("join", "skirmish", "ulf", "--name", "Ulf", "--side", "reavers"))
    assert session.candidates(["hit"], "u") == ["ulf", "Ulf"]


def test_a_display_name_of_several_words_is_completed_quoted(session: Session, run: Run) -> None:
    from prompt_toolkit.document import Document

    ok(run("join", "skirmish", "gorbag", "--name", "Gorbag the Shaman", "--side", "skaven"))
    offered = list(completer(session).get_completions(Document("heal Gorb"), None))
    assert [c.text for c in offered] == ["gorbag", "'Gorbag the Shaman'"]
    assert {c.start_position for c in offered} == {-len("Gorb")}
    offered = list(completer(session).get_completions(Document('heal "Gorbag t'), None))
    assert [c.text for c in offered] == ["'Gorbag the Shaman'"]
    assert offered[0].start_position == -len('"Gorbag t')


def test_prompt_toolkit_reads_the_lines_keeps_history_and_ctrl_c_cancels_a_line(
    session: Session, capsys: pytest.CaptureFixture[str], run: Run, tmp_path: Path
) -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    history = tmp_path / "history"
    with create_pipe_input() as typed:
        typed.send_text("hit grim 1 --roll injury=3\r")
        typed.send_text("hit snitch 1 --roll injury=6")  # ...then Ctrl-C: not run
        typed.send_text("\x03")
        typed.send_text("state\r")
        typed.send_text("\x04")  # Ctrl-D on an empty line: the session ends
        interactive(session, history, input=typed, output=DummyOutput())
    out = capsys.readouterr().out
    assert "#4 hit: Grim" in out and "skirmish: mordheim, seq 4" in out
    assert [e["type"] for e in events_of(run, "skirmish")][-1] == "hit"
    assert len(events_of(run, "skirmish")) == 4  # the cancelled hit was never run
    kept = history.read_text()
    assert "+hit grim 1 --roll injury=3" in kept and "+state" in kept
    assert "snitch" not in kept


def test_a_session_started_where_an_event_loop_already_runs_still_reads_its_lines(
    db: Path, skirmish: str, capsys: pytest.CaptureFixture[str], run: Run
) -> None:
    import asyncio
    import threading

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    async def inside_a_loop() -> None:  # as in a notebook, or beside a sync Playwright
        with kept_open(None) as opened, create_pipe_input() as typed:
            session = Session(every_command(), opened, skirmish, None)
            typed.send_text("hit grim 1 --roll injury=3\r")
            typed.send_text("\x04")
            interactive(session, None, input=typed, output=DummyOutput())

    # The loop in a thread of its own: a worker of the test run may hold a sync Playwright,
    # whose loop would refuse this test's own asyncio.run. The session opens its store there.
    failed: list[BaseException] = []

    def host() -> None:
        try:
            asyncio.run(inside_a_loop())
        except BaseException as error:  # handed back to the test's thread
            failed.append(error)

    hosting = threading.Thread(target=host)
    hosting.start()
    hosting.join(timeout=60)
    assert not hosting.is_alive() and not failed, failed
    assert "#4 hit: Grim" in capsys.readouterr().out
    assert len(events_of(run, skirmish)) == 4


def test_lines_piped_into_play_run_in_turn_and_a_refused_one_fails_the_run(
    run: Run, skirmish: str, db: Path
) -> None:
    typed = "hit grim 1 --roll injury=3\nhit snitch 1 --attacker grim\ntick start --side reavers\n"
    done = CliRunner().invoke(app, ["play", skirmish], input=typed)
    assert done.exit_code == 3, done.output  # the refused hit's code, after the rest ran
    assert [e["type"] for e in events_of(run, skirmish)][-2:] == ["hit", "turn_started"]
    fine = CliRunner().invoke(app, ["play", skirmish], input="state\nquit\nhit grim 1\n")
    assert fine.exit_code == 0 and len(events_of(run, skirmish)) == 5  # quit: nothing after


def test_play_on_a_fight_not_there_is_refused_as_every_command_refuses_it(
    run: Run, skirmish: str
) -> None:
    played = CliRunner().invoke(app, ["play", "nowhere"], input="")
    hit = CliRunner().invoke(app, ["hit", "nowhere", "grim", "1"])
    assert played.exit_code == hit.exit_code == 2
    assert played.stderr == hit.stderr.replace("hit -h", "play -h")

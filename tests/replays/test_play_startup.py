"""What a `woundlog play` session loads before its first answer (issue 42: a session's first
answer costs what the same command costs run alone): the command its first line runs, and
nothing of the commands it has not run yet.

Each session runs in a fresh Python process through the console script's `main`, its lines piped
in or typed at a pseudo-terminal; the process writes down every module imported when its first
line has been answered. No time is measured here (tests/benchmarks/session_start.py counts the
instructions): a module that should not load is what makes the start slow, and unlike a time it
fails the same way on every machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from woundlog.replays.cli import app
from woundlog.replays.cli.ondemand import takes_fight
from woundlog.replays.cli.quick import PLAY, VALUED, read
from woundlog.replays.cli.run import every_command

from .test_cli_quick import rows
from .test_cli_startup import RICH, loaded_by, top_level
from .test_play_terminal import LIMIT, Terminal, without_readline

LIST_AFTER_THE_FIRST_LINE = """
import sys
out, args = sys.argv[1], sys.argv[2:]
sys.argv = ["woundlog", *args]
from woundlog.replays.cli import session

handle = session.Session.handle

def first_then_list(self, line):
    answered = handle(self, line)
    session.Session.handle = handle  # once: the modules as the first answer left them
    with open(out, "w") as written:
        written.write("\\n".join(sorted(sys.modules)))
    return answered

session.Session.handle = first_then_list
from woundlog.replays.cli import main
main()
"""

COMMAND_MODULES = (
    "fight undo turns importing whatif pictures reference demo report service campaign"
)
OTHER_COMMANDS = {  # modules of commands a session whose first line is a hit has not run
    f"woundlog.replays.cli.{module}": f"the module of `{module}`'s commands"
    for module in COMMAND_MODULES.split()
} | {
    "woundlog.replays.cli.run": "typer's app: a plain hit is read without it (quick.py)",
    "woundlog.replays.cli.commands": "the command table is typer's, made only when a line needs it",
    "woundlog.replays.whatif": "the odds load only for `odds` and `branch`",
    "woundlog.events.importers.base": "importers load only for `import`",
}
NOT_FOR_ONE_HIT = {  # what a hit, one-shot or a session's, does without (issue 42's cheap wins)
    "difflib": "the nearest names are looked for only when a name or a stat names no one (2.3 M)",
}
NOT_BEFORE_A_HIT = (
    NOT_FOR_ONE_HIT
    | {
        "typer": "a plain hit is read without typer, in a session as on the command line",
        RICH: "a hit's answer and the status line are plain lines",
    }
    | OTHER_COMMANDS
)


def first_answer(
    tmp_path: Path, db: Path, typed: str, *, terminal: bool = False, readline: bool = True
) -> set[str]:
    """The modules `woundlog play skirmish` has imported when its first line (`typed`) is
    answered, its lines piped in or typed at a terminal (`readline` False: in a Python where
    `import readline` fails)."""
    out = tmp_path / "modules.txt"
    argv = [sys.executable, "-c", LIST_AFTER_THE_FIRST_LINE, str(out), "--db", str(db)]
    argv += ["play", "skirmish"]
    env = {
        **(os.environ if readline else without_readline(tmp_path)),
        "XDG_STATE_HOME": str(tmp_path),
        "TERM": "xterm",
        "COLUMNS": "100",
    }
    if not terminal:
        done = subprocess.run(
            argv, input=typed + "\n", capture_output=True, text=True, timeout=LIMIT, env=env
        )
        assert done.returncode == 0, done.stderr
        return set(out.read_text().splitlines())
    at = Terminal()
    env.pop("PROMPT_TOOLKIT_NO_CPR", None)
    played = subprocess.Popen(
        argv, stdin=at.child, stdout=at.child, stderr=at.child, env=env, start_new_session=True
    )
    os.close(at.child)
    try:
        at.until(b"skirmish>")
        at.reading()
        at.type(typed.encode() + b"\r")
        at.until(b"skirmish>", at.until(b"#4"))
        at.reading()
        at.type(b"\x04")  # Ctrl-D: the session ends
        assert played.wait(timeout=LIMIT) == 0, bytes(at.seen)[-2000:]
    finally:
        if played.poll() is None:
            played.kill()
            played.wait()
        os.close(at.fd)
    return set(out.read_text().splitlines())


def loaded(modules: set[str], names: dict[str, str]) -> dict[str, str]:
    """The modules of `names` among `modules` (a top-level name: any of its package)."""
    tops = top_level(modules)
    return {name: why for name, why in names.items() if name in modules or name in tops}


def test_a_piped_sessions_first_hit_loads_no_typer_rich_or_other_command(
    tmp_path: Path, db: Path, skirmish: str
) -> None:
    modules = first_answer(tmp_path, db, "hit grim 0 --attacker snitch")
    assert loaded(modules, NOT_BEFORE_A_HIT) == {}
    assert "prompt_toolkit" not in top_level(modules)  # no line editor for lines piped in


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_a_sessions_first_hit_at_a_terminal_loads_the_line_editor_and_no_typer(
    tmp_path: Path, db: Path, skirmish: str
) -> None:
    # where Python has no readline (Windows): prompt_toolkit is the line editor
    modules = first_answer(
        tmp_path, db, "hit grim 0 --attacker snitch", terminal=True, readline=False
    )
    assert "prompt_toolkit" in top_level(modules)
    assert loaded(modules, NOT_BEFORE_A_HIT) == {}


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_with_readline_a_sessions_first_hit_at_a_terminal_loads_no_prompt_toolkit(
    tmp_path: Path, db: Path, skirmish: str
) -> None:
    """The standard library's readline reads the lines: prompt_toolkit (435 M instructions to
    import, asyncio's 168 M among them) never loads."""
    modules = first_answer(tmp_path, db, "hit grim 0 --attacker snitch", terminal=True)
    assert "readline" in modules
    assert loaded(modules, {**NOT_BEFORE_A_HIT, "prompt_toolkit": "", "asyncio": ""}) == {}


def test_a_first_line_typer_reads_makes_its_own_command_alone(
    tmp_path: Path, db: Path, skirmish: str
) -> None:
    """`log` is fight.py's: typer and that module load, no other command's."""
    modules = first_answer(tmp_path, db, "log")
    assert "typer" in top_level(modules) and "woundlog.replays.cli.fight" in modules
    typers = ("fight", "run", "commands")
    others = {
        name: why for name, why in OTHER_COMMANDS.items() if name.rpartition(".")[2] not in typers
    }
    assert loaded(modules, others) == {}


def test_the_commands_a_session_answers_without_making_them_take_the_fight_first() -> None:
    """A session binds the fight to a hit or a heal without making the command (ondemand.py):
    typer's own hit and heal must take it first, as quick.py reads them."""
    every = every_command().commands
    assert [word for word in VALUED if not takes_fight(every[word])] == []


@pytest.mark.parametrize(
    ("args", "fight"),
    [
        (["play", "skirmish"], "skirmish"),
        (["--db", "x.db", "play", "skirmish"], "skirmish"),
        (["--db=x.db", "play", "skirmish"], "skirmish"),
        (["play", "-h"], None),
        (["play"], None),
        (["play", "skirmish", "--db", "x.db"], None),  # the old place of --db: typer warns
        (["play", "skirmish", "more"], None),
        (["play", "bad/id"], None),
        (["play", ""], None),
        (["play", "--", "skirmish"], None),
    ],
)
def test_play_is_read_without_typer_only_as_fight_alone(args: list[str], fight: str | None) -> None:
    found = read(args)
    assert (found and (found[0], found[1]["fight"])) == ((PLAY, fight) if fight else None)


def test_a_session_read_without_typer_answers_and_stores_as_typers_play(
    tmp_path: Path, db: Path, skirmish: str
) -> None:
    """Lines piped into `woundlog play`, started through the console script's `main` (quick.py)
    and through typer with every command built: the same exit status, output and rows."""
    typed = "hit grim 1 --roll injury=3\nstate\nhit nobody 1\nhti grim\nundo\nheal grim 1\n"
    answers, kept = {}, {}
    entries = {
        "main": "from woundlog.replays.cli import main; main()",
        "typer": "from woundlog.replays.cli import app; app(prog_name='woundlog')",
    }
    for way, entry in entries.items():
        copy = tmp_path / way / "fights.db"
        copy.parent.mkdir()
        copy.write_bytes(db.read_bytes())
        code = f"import sys; sys.argv = ['woundlog', *sys.argv[1:]]; {entry}"
        done = subprocess.run(
            [sys.executable, "-c", code, "--db", str(copy), "play", skirmish],
            input=typed, capture_output=True, text=True, timeout=LIMIT,
            env={**os.environ, "COLUMNS": "120"},
        )  # fmt: skip
        answers[way] = (done.returncode, done.stdout, done.stderr.replace(str(copy), "DB"))
        kept[way] = rows(copy)
    assert answers["main"] == answers["typer"]
    assert answers["main"][0] == 3 and "no such command 'hti'" in answers["main"][2]
    assert kept["main"] == kept["typer"] != rows(db)


def test_help_in_a_session_still_lists_every_command(db: Path, skirmish: str) -> None:
    """Help reads every command: they are all made for it, as before."""
    done = CliRunner().invoke(app, ["play", skirmish], input="help\n")
    listed = {line.split()[0] for line in done.output.splitlines() if line.startswith("  ")}
    assert {"hit", "odds", "timeline", "campaign", "share", "quit"} <= listed


def test_a_one_shot_hit_does_not_load_difflib(tmp_path: Path, skirmish: str) -> None:
    modules = loaded_by(tmp_path, "hit", "skirmish", "snitch", "1", "--attacker", "grim")
    assert loaded(modules, NOT_FOR_ONE_HIT) == {}

"""The README's examples run as written (issue 18): every shell block of woundlog commands, line
by line, in one throwaway store, as a person pasting them would (a line whose comment says
"refused" must be refused, exit 3; every other line must succeed); the library example; the
HTTP walkthrough against a real server; the benchmark's options; and a command table that lists
every command `woundlog -h` shows."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from woundlog.replays.cli import app

from .replays.service.server import Server

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
SHELL = re.findall(r"```sh\n(.*?)```", README.read_text(), re.S)
BLOCKS = [  # the walkthroughs: blocks of woundlog commands (a `cd` may come first)
    block
    for block in SHELL
    if all(
        line.startswith(("woundlog ", "cd ", "#")) or not line.strip()
        for line in block.splitlines()
    )
    and "woundlog serve" not in block
    and "--serve" not in block  # a service in the foreground: run by its own test below
]


def lines_of(block: str) -> list[tuple[str, bool]]:
    """Each command of a block, and whether its comment says it is refused."""
    commands = []
    for line in block.splitlines():
        if not line.startswith(("woundlog ", "cd ")):
            continue  # a comment line showing output
        commands.append((line, "refused" in line.partition("#")[2] or "# refused" in line))
    return commands


def test_the_readme_has_its_walkthroughs() -> None:
    assert len(BLOCKS) >= 8
    assert any(block.startswith("cd tests/data/importers") for block in BLOCKS)


def test_every_walkthrough_of_the_readme_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    for folder in ("tests", "replays"):  # the files a clone has, for `cd` and bundled logs
        (tmp_path / folder).symlink_to(ROOT / folder)
    runner = CliRunner()
    for block in BLOCKS:
        monkeypatch.chdir(tmp_path)  # each block starts where a reader stands: the clone's top
        for line, refused in lines_of(block):
            args = shlex.split(line, comments=True)
            if args[0] == "cd":
                monkeypatch.chdir(args[1])
                continue
            if "--tables" in args:  # a book's table the reader has and the test has not
                continue
            result = runner.invoke(app, args[1:])
            expected = 3 if refused else 0
            assert result.exit_code == expected, (line, result.output)
            # a die the block gives is one the rules use, unless its comment says otherwise: a
            # die nobody rolls shows nothing of what the line means to show
            if "--roll" in args and "unused" not in line.partition("#")[2]:
                assert "unused:" not in result.stdout, (line, result.stdout)


def test_the_setup_blocks_demo_runs() -> None:
    [setup] = [block for block in SHELL if "pip install -e" in block]
    assert "woundlog demo" in setup
    first, _, rest = setup.partition("\n")
    # a virtual environment before anything is installed (issue 26): pip into the system's
    # Python is refused on current Debian and Ubuntu, and mixes with whatever else is there
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate"), first
    assert rest.index("pip install -e") < rest.index("pytest")
    [tests] = [line for line in setup.splitlines() if line.startswith("pytest")]
    assert re.search(r"about \d+-\d+ minutes on two cores", tests), tests
    assert CliRunner().invoke(app, ["demo"]).exit_code == 0


def test_the_benchmark_command_makes_its_environment_and_names_where_its_output_goes() -> None:
    [block] = [block for block in SHELL if "tests/benchmarks/run.py" in block]
    assert "python3 -m venv" in block and "pip install" in block  # how to make its environment
    command = shlex.split(block.splitlines()[1])
    assert "--results" in command  # the table goes where the reader says, not into the tree
    helped = subprocess.run(
        [sys.executable, str(ROOT / "tests/benchmarks/run.py"), "--help"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert helped.returncode == 0, helped.stderr
    for option in (word for word in command if word.startswith("--")):
        assert option in helped.stdout, option


def commands_in_help(*args: str) -> list[str]:
    """The commands `woundlog [ARGS] -h` lists, read from its Commands panel."""
    helped = CliRunner().invoke(app, [*args, "-h"], env={"COLUMNS": "200"}).stdout
    panel = helped.partition("Commands")[2]
    return re.findall(r"^│ ([a-z][a-z-]*) ", panel, re.M)


def test_the_command_table_lists_every_command_of_woundlog_help() -> None:
    table = README.read_text().partition("## Commands")[2].partition("\n## ")[0]
    listed = set(re.findall(r"`woundlog (?:\[--db URL\] )?([a-z][a-z-]*)", table))
    commands = commands_in_help()
    assert len(commands) >= 20 and "end" in commands and "import" in commands
    assert set(commands) <= listed, set(commands) - listed
    formats = commands_in_help("import")
    assert formats and all(f in table for f in formats), formats
    assert "`woundlog import FILE.jsonl" in table


def test_the_library_example_runs_and_runs_again() -> None:
    [example] = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    for _ in range(2):
        exec(compile(example, "README.md", "exec"), {})


def test_the_http_walkthrough_runs_against_a_real_server(tmp_path: Path) -> None:
    """The README's curl walkthrough, in bash against a real `woundlog serve` on loopback: every
    request answered 2xx (the live streams, which never end, are left out)."""
    if shutil.which("curl") is None:
        pytest.skip("no curl")
    [block] = [b for b in re.findall(r"```sh\n(.*?)```", README.read_text(), re.S) if "curl" in b]
    admin = "a-readme-token-of-16-or-more"
    script = ["set -euo pipefail", f"export WOUNDLOG_ADMIN_TOKEN={admin}"]
    for line in block.splitlines():
        if (
            line.startswith(("export WOUNDLOG_ADMIN_TOKEN", "woundlog serve", "woundlog --db"))
            or "-N " in line
        ):
            continue
        script.append(line)
    text = "\n".join(script)
    with Server(tmp_path / "fights.db", admin=admin) as server:
        text = text.replace("W=http://127.0.0.1:8000", f"W={server.url}")
        text = text.replace("curl ", "curl -sf ")  # -f: an HTTP error fails the script
        done = subprocess.run(
            ["bash", "-c", text], capture_output=True, text=True, timeout=120, env=os.environ
        )
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    assert '"version":3' in done.stdout
    # the Foundry dnd5e hook lands in a dnd5e fight: hit points, not a Mordheim warrior's wounds
    assert '"explanation":"Brakka takes 7 (22 -> 15 HP)"' in done.stdout


def test_the_session_transcript_is_what_play_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The `woundlog play` transcript: its `yard>` lines piped into the session on the fight
    its block makes print, in order, the lines under them."""
    section = README.read_text().partition("## At the table: `woundlog play`")[2]
    [setup] = re.findall(r"```sh\n(.*?)```", section, re.S)[:1]
    [transcript] = re.findall(r"```text\n(.*?)```", section, re.S)[:1]
    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    runner = CliRunner()
    for line, _ in lines_of(setup):
        args = shlex.split(line, comments=True)
        if args[1] != "play":
            assert runner.invoke(app, args[1:]).exit_code == 0, line
    typed = [
        line.partition("> ")[2] for line in transcript.splitlines() if line.startswith("yard> ")
    ]
    shown = [line for line in transcript.splitlines() if not line.startswith("yard> ")]
    played = runner.invoke(app, ["play", "yard"], input="\n".join(typed) + "\n")
    assert played.output.splitlines() == shown
    assert played.exit_code == 3  # the transcript's refused hit


def test_the_share_line_hands_out_links_that_open_the_fight_of_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The opening's `woundlog share ... --serve`, on the fight the session block makes, with a
    service already answering (so `--serve` leaves it be): the lines it prints are those the
    README shows, tokens apart, and the links open the fight, the gm's to write."""
    section = README.read_text().partition("## At the table: `woundlog play`")[2]
    setup, share = re.findall(r"```sh\n(.*?)```", section, re.S)[:2]
    shown = re.findall(r"```text\n(.*?)```", section, re.S)[1].splitlines()
    db = tmp_path / "fights.db"
    monkeypatch.setenv("WOUNDLOG_DB", str(db))
    runner = CliRunner()
    for line, _ in lines_of(setup):
        args = shlex.split(line, comments=True)
        if args[1] != "play":
            assert runner.invoke(app, args[1:]).exit_code == 0, line
    [(line, _)] = lines_of(share)
    args = shlex.split(line, comments=True)
    assert "--serve" in args
    with Server(db) as server:
        result = runner.invoke(app, [*args[1:], "--url", server.url])
        assert result.exit_code == 0, result.output
        printed = result.output.replace(server.url, "http://127.0.0.1:8000").splitlines()
        assert printed[0] == shown[0]
        links = {}
        for said, told in zip(printed[1:3], shown[1:3], strict=True):
            page, link, rest = said.split(maxsplit=2)
            assert told.split()[0] == page and told.split(maxsplit=2)[2] == rest
            assert link.startswith(told.split()[1].removesuffix("...").rpartition("=")[0] + "=")
            links[page] = link.replace("http://127.0.0.1:8000", server.url)
        assert "a service answers at" in result.output
        gm = {"Authorization": "Bearer " + links["timeline"].partition("#gm=")[2]}
        hit = {"type": "hit", "target": "grim", "damage": 1, "attacker": "snik"}
        wrote = httpx.post(f"{server.url}/fights/yard/events", json=hit, headers=gm)
        assert wrote.status_code == 200, wrote.text
        viewer = {"Authorization": "Bearer " + links["table"].partition("#viewer=")[2]}
        assert httpx.get(f"{server.url}/fights/yard/state", headers=viewer).status_code == 200

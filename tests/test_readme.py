"""The README's examples run as written (issue 18): every shell block of woundlog commands, line
by line, in one throwaway store, as a person pasting them would (a line whose comment says
"refused" must be refused, exit 3; every other line must succeed); the evening's `woundlog play`
transcript and `woundlog share` lines, as the fight its blocks make prints them; the library
example; the HTTP walkthrough against a real server; a command table that lists every command
`woundlog -h` shows; and the benchmark command of tests/benchmarks/README.md, where the
benchmarks moved."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from woundlog.replays.cli import app

from .replays.service.server import Server

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
BENCHMARKS = ROOT / "tests" / "benchmarks" / "README.md"
SHELL = re.findall(r"```sh\n(.*?)```", README.read_text(), re.S)
EVENING = "## Tonight: a dnd5e party against goblins"
PLAY = "### At the table: `woundlog play`"
SHARE = "### On the players' phones: `woundlog share`"
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


def section(heading: str) -> str:
    """The README from `heading` to the next heading of the same level or higher."""
    level = heading.split(" ", 1)[0]
    body = README.read_text().partition(f"\n{heading}\n")[2]
    assert body, heading
    ends = [body.find(f"\n{mark} ") for mark in ("#" * n for n in range(2, len(level) + 1))]
    return body[: min((end for end in ends if end >= 0), default=len(body))]


def evening_before_play() -> list[str]:
    """The commands of the evening's blocks before `woundlog play`: the fight the session and the
    share links open."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section(EVENING), re.S):
        for line, refused in lines_of(block):
            if line.startswith("woundlog play "):
                return commands
            assert not refused, line
            commands.append(line)
    raise AssertionError("the evening has no `woundlog play` line")


def make_the_evenings_fight(runner: CliRunner) -> None:
    for line in evening_before_play():
        assert runner.invoke(app, shlex.split(line, comments=True)[1:]).exit_code == 0, line


def test_the_readme_has_its_walkthroughs() -> None:
    assert len(BLOCKS) >= 8
    assert any(block.startswith("cd tests/data/importers") for block in BLOCKS)
    # the evening at the table comes first, and its blocks are among those run below
    assert README.read_text().index(EVENING) < min(
        README.read_text().index(f"```sh\n{block}") for block in BLOCKS
    )
    evening = re.findall(r"```sh\n(.*?)```", section(EVENING), re.S)
    assert [block for block in evening if block in BLOCKS] == [
        block for block in evening if "--serve" not in block
    ]
    lines = evening_before_play()
    assert any(" --kind monster " in line for line in lines)
    assert any(line.startswith("woundlog check ") and "death_save" in line for line in lines)
    assert any(line.startswith("woundlog state ") for line in lines)


def test_the_readme_names_no_issue_and_no_commit() -> None:
    """User documentation: what changed is said in words, not by the tracker's numbers."""
    text = README.read_text()
    assert not re.search(r"\bissues? \d+|#\d{2,} \(issue|\(issue", text, re.I), "an issue number"
    hashes = re.findall(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b", text)
    assert not hashes, hashes


def test_the_readme_is_at_most_500_lines_with_its_contents_first() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 500
    contents = section("## Contents")
    headings = re.findall(r"^## (.+)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M)
    listed = re.findall(r"^- \[(.+?)\]\(#([a-z0-9-]+)\)$", contents, re.M)
    assert [title for title, _ in listed] == [h for h in headings if h != "Contents"]
    for title, anchor in listed:  # GitHub's anchors: lower case, punctuation dropped
        assert anchor == re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-"), title


def test_every_walkthrough_of_the_readme_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # the clone's, for `cd`
    (tmp_path / "replays").mkdir()  # the bundled logs as the clone has them, from the package
    (tmp_path / "replays" / "data").symlink_to(Path(str(files("woundlog.replays") / "data")))
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
    shell = re.findall(r"```sh\n(.*?)```", BENCHMARKS.read_text(), re.S)
    [block] = [block for block in shell if "tests/benchmarks/run.py" in block]
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
    # the campaign's own commands, listed in one row as `woundlog campaign new|join|... CAMPAIGN`
    [row] = [row for row in table.splitlines() if row.startswith("| `woundlog campaign ")]
    named = row.replace("\\|", "|").partition("`woundlog campaign ")[2].partition(" ")[0]
    assert set(named.split("|")) == set(commands_in_help("campaign")), named


def test_the_library_example_runs_and_runs_again() -> None:
    [example] = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    for _ in range(2):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(example, "README.md", "exec"), {})
        hit, consequences, state = printed.getvalue().splitlines()
        # 20 damage on Mirabel's 18 hit points: down, dying; the undo gives her them back
        assert hit.startswith("#3 h1 hit: mirabel drops to 0 hit points")
        assert consequences == "['mirabel: downed -> upright (hp 0 -> 18)']"
        assert state == "upright"


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
    """The `woundlog play` transcript: its prompted lines piped into the session on the fight the
    evening's blocks make print, in order, the lines under them."""
    played_here = section(PLAY)
    [(line, _)] = lines_of(re.findall(r"```sh\n(.*?)```", played_here, re.S)[0])
    fight = shlex.split(line, comments=True)[2]
    prompt = f"{fight}> "
    [transcript] = re.findall(r"```text\n(.*?)```", played_here, re.S)[:1]
    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    runner = CliRunner()
    make_the_evenings_fight(runner)
    typed = [
        line.partition(prompt)[2] for line in transcript.splitlines() if line.startswith(prompt)
    ]
    shown = [line for line in transcript.splitlines() if not line.startswith(prompt)]
    assert len(typed) >= 4
    played = runner.invoke(app, ["play", fight], input="\n".join(typed) + "\n")
    assert played.output.splitlines() == shown
    assert played.exit_code == 3  # the transcript's refused hit


def test_the_share_line_hands_out_links_that_open_the_fight_of_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The evening's `woundlog share ... --serve`, on the fight its blocks make, with a service
    already answering (so `--serve` leaves it be): the lines it prints are those the README
    shows, tokens apart, and the links open the fight, the gm's to write."""
    shared_here = section(SHARE)
    [share] = re.findall(r"```sh\n(.*?)```", shared_here, re.S)[:1]
    shown = re.findall(r"```text\n(.*?)```", shared_here, re.S)[0].splitlines()
    db = tmp_path / "fights.db"
    monkeypatch.setenv("WOUNDLOG_DB", str(db))
    runner = CliRunner()
    make_the_evenings_fight(runner)
    [(line, _)] = lines_of(share)
    args = shlex.split(line, comments=True)
    assert "--serve" in args
    fight = args[2]
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
        state = httpx.get(
            f"{server.url}/fights/{fight}/state",
            headers={"Authorization": "Bearer " + links["table"].partition("#viewer=")[2]},
        )
        assert state.status_code == 200, state.text
        up = [cid for cid, c in state.json()["characters"].items() if c["state"] == "upright"]
        gm = {"Authorization": "Bearer " + links["timeline"].partition("#gm=")[2]}
        hit = {"type": "hit", "target": up[-1], "damage": 1, "attacker": up[0]}
        wrote = httpx.post(f"{server.url}/fights/{fight}/events", json=hit, headers=gm)
        assert wrote.status_code == 200, wrote.text

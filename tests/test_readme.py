"""The README's walkthroughs run as written (issue 18, in part): every shell block that starts a
fight (`woundlog new ...`) and the odds block after it, line by line, in one throwaway store, as
a person pasting them would. A line whose comment says "refused" must be refused (exit 3);
every other line must succeed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from woundlog.replays.cli import app

from .replays.service.server import Server

README = Path(__file__).parent.parent / "README.md"
BLOCKS = [
    block
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(), re.S)
    if block.startswith(("woundlog new ", "woundlog odds "))
]


def lines_of(block: str) -> list[tuple[str, bool]]:
    """Each command of a block, and whether its comment says it is refused."""
    commands = []
    for line in block.splitlines():
        if not line.startswith("woundlog "):
            continue  # a comment line showing output
        commands.append((line, "refused" in line.partition("#")[2] or "# refused" in line))
    return commands


def test_the_readme_has_its_walkthroughs() -> None:
    assert len(BLOCKS) >= 7


def test_every_walkthrough_of_the_readme_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for block in BLOCKS:
        for line, refused in lines_of(block):
            args = shlex.split(line, comments=True)[1:]
            if "--tables" in args:  # a book's table the reader has and the test has not
                continue
            result = runner.invoke(app, args)
            expected = 3 if refused else 0
            assert result.exit_code == expected, (line, result.output)


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

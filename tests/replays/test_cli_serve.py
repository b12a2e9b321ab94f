"""`woundlog serve`'s admin token and CORS origins as options with their variables (issue 18, in
part): a real `woundlog serve` on loopback for each, and the token never printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from .service.server import Server, bearer

TOKEN = "a-token-read-from-a-file-0123"
FOUNDRY = "http://localhost:30000"
CLI = [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]


def woundlog(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    whole = {k: v for k, v in os.environ.items() if not k.startswith("WOUNDLOG_")} | env
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60, env=whole)


def preflight(url: str, origin: str) -> httpx.Response:
    headers = {"Origin": origin, "Access-Control-Request-Method": "POST"}
    return httpx.options(f"{url}/fights/f/events", headers=headers)


def test_the_admin_token_is_read_from_admin_token_file(tmp_path: Path) -> None:
    file = tmp_path / "admin-token"
    file.write_text(TOKEN + "\n")
    file.chmod(0o600)  # a token file others can read is refused, as ssh refuses a key
    with Server(tmp_path / "f.db", admin=None, args=("--admin-token-file", str(file))) as running:
        body = {"fight": "f-1", "ruleset": "mordheim"}
        made = httpx.post(f"{running.url}/fights", json=body, headers=bearer(TOKEN))
        assert made.status_code == 201, made.text
        assert TOKEN not in running.log.read_text()
    assert not (tmp_path / "f.db.admin-token").exists()  # given, so no token file is made


def test_cors_origin_is_repeatable_and_its_variable_is_comma_separated(tmp_path: Path) -> None:
    other = "https://vtt.example"
    repeated = ("--cors-origin", FOUNDRY, "--cors-origin", other)
    with Server(tmp_path / "a.db", args=repeated) as running:
        for origin in (FOUNDRY, other):
            assert preflight(running.url, origin).headers["access-control-allow-origin"] == origin
        assert "access-control-allow-origin" not in preflight(running.url, "https://evil").headers
    env = {"WOUNDLOG_CORS_ORIGINS": f"{FOUNDRY},{other}"}
    with Server(tmp_path / "b.db", env=env) as running:
        assert preflight(running.url, other).headers["access-control-allow-origin"] == other


def test_serve_help_names_the_variables_and_never_shows_the_token(tmp_path: Path) -> None:
    helped = woundlog("serve", "-h", env={"WOUNDLOG_ADMIN_TOKEN": TOKEN, "COLUMNS": "200"})
    assert helped.returncode == 0, helped.stderr
    for name in ("--admin-token-file", "WOUNDLOG_ADMIN_TOKEN", "--cors-origin", "CORS_ORIGINS"):
        assert name in helped.stdout
    assert TOKEN not in helped.stdout + helped.stderr


@pytest.mark.parametrize("given", ["option", "file"])
def test_a_short_admin_token_is_refused_with_exit_2_and_not_echoed(
    tmp_path: Path, given: str
) -> None:
    short = "hunter2x"
    file = tmp_path / "token"
    file.write_text(short)
    file.chmod(0o600)
    how = ["--admin-token", short] if given == "option" else ["--admin-token-file", str(file)]
    served = woundlog("--db", str(tmp_path / "f.db"), "serve", "--port", "0", *how, env={})
    assert served.returncode == 2, served.stderr
    assert "at least 16" in served.stderr and short not in served.stderr
    if given == "option":  # a token typed on the command line is visible in `ps`
        assert "visible to other users" in served.stderr


def test_admin_token_and_admin_token_file_together_are_refused(tmp_path: Path) -> None:
    file = tmp_path / "token"
    file.write_text(TOKEN)
    both = ["--admin-token", TOKEN, "--admin-token-file", str(file)]
    served = woundlog("--db", str(tmp_path / "f.db"), "serve", *both, env={})
    assert served.returncode == 2 and "give the admin token once" in served.stderr
    assert TOKEN not in served.stderr


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_an_admin_token_file_others_can_read_is_refused_as_ssh_refuses_a_key(
    tmp_path: Path, mode: int
) -> None:
    """Issue 24: accepted without a word before."""
    file = tmp_path / "token"
    file.write_text(TOKEN)
    file.chmod(mode)
    served = woundlog(
        "--db", str(tmp_path / "f.db"), "serve", "--port", "0", "--admin-token-file", str(file),
        env={},
    )  # fmt: skip
    assert served.returncode == 2, served.stderr
    assert f"mode {mode:04o}" in served.stderr and "chmod 600" in served.stderr
    assert TOKEN not in served.stderr and "Traceback" not in served.stderr
    assert not (tmp_path / "f.db").exists()


@pytest.mark.parametrize(
    ("content", "said"),
    [(b"\xff\xfe\x00\x01binary", "is not text"), (b"tok\x1ben-1234567890abcdef", "printable")],
)
def test_an_admin_token_file_that_is_no_token_is_a_clear_error(
    tmp_path: Path, content: bytes, said: str
) -> None:
    file = tmp_path / "token"
    file.write_bytes(content)
    file.chmod(0o600)
    served = woundlog(
        "--db", str(tmp_path / "f.db"), "serve", "--port", "0", "--admin-token-file", str(file),
        env={},
    )  # fmt: skip
    assert served.returncode == 2, served.stderr
    assert said in served.stderr and "Traceback" not in served.stderr

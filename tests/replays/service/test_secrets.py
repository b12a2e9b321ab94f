"""Issue 11, secrets: a weak admin token is refused, and a page whose name was rebound to
127.0.0.1 (DNS rebinding) is not answered."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx

from .server import Server


def test_an_admin_token_shorter_than_16_characters_is_refused_with_exit_2(
    tmp_path: Path,
) -> None:
    command = [
        sys.executable, "-c", "from woundlog.replays.cli import main; main()",
        "--db", str(tmp_path / "weak.db"), "serve", "--port", "0",
    ]  # fmt: skip
    env = {**os.environ, "WOUNDLOG_ADMIN_TOKEN": "hunter2"}
    served = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert served.returncode == 2, served.stderr
    assert "at least 16" in served.stderr and "Traceback" not in served.stderr


def test_bound_to_loopback_only_loopback_host_names_are_answered(tmp_path: Path) -> None:
    with Server(tmp_path / "hosts.db", args=("--allowed-host", "table.example")) as running:
        url = f"{running.url}/health"
        port = running.port
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", "table.example"):
            assert httpx.get(url, headers={"Host": host}).status_code == 200, host
        for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}"):
            refused = httpx.get(url, headers={"Host": host})
            assert refused.status_code == 400, host
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.json()["error"] == "InvalidHost", refused.text
            assert "does not answer to that Host header" in refused.json()["detail"]
        for host in (f"LOCALHOST:{port}", "LocalHost", "TABLE.example"):  # case is no matter
            assert httpx.get(url, headers={"Host": host}).status_code == 200, host


def test_the_service_database_of_a_json_lines_store_is_readable_by_its_owner_only(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    with Server(f"jsonl:{store}", logs=tmp_path):  # a bare empty directory is no store
        assert stat.S_IMODE((store / "service.db").stat().st_mode) == 0o600  # token hashes

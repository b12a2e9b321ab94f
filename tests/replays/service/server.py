"""A real `woundlog serve` on loopback, in its own process, for the service tests."""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

ADMIN = "test-admin-token"
START_TIMEOUT_S = 20.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """`woundlog --db DB serve` on 127.0.0.1 and a free port; `start`, `kill`, `stop`. DB is an
    SQLite file, or a PostgreSQL URL (then `logs` says where the server's log goes)."""

    def __init__(
        self,
        db: Path | str,
        *,
        logs: Path | None = None,
        admin: str | None = ADMIN,
        port: int | None = None,
        env: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
        open_files: int | None = None,
    ) -> None:
        self.db = db
        self.env = env or {}
        self.args = args  # more `woundlog serve` options
        self.open_files = open_files  # the server's `ulimit -n`, soft and hard
        self.admin = admin
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # a PostgreSQL URL (a str) has no folder of its own to keep the log in: `logs`
        self.log = (logs or Path(db).parent) / f"server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Self:
        env = {**os.environ, **self.env}
        env.pop("WOUNDLOG_ADMIN_TOKEN", None)
        if self.admin is not None:
            env["WOUNDLOG_ADMIN_TOKEN"] = self.admin
        command = [
            sys.executable, "-c", "from woundlog.replays.cli import main; main()",
            "--db", str(self.db), "serve", "--host", "127.0.0.1", "--port", str(self.port),
            *self.args,
        ]  # fmt: skip
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                command, env=env, stdout=log, stderr=log, preexec_fn=self._limit_open_files
            )
        self._wait_ready()
        return self

    def _limit_open_files(self) -> None:
        if self.open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"server not up in {START_TIMEOUT_S}s: {self.log.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flushing, as a crash or a power cut."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}

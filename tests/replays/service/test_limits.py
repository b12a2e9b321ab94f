"""Issue 11, item 6: a slow or idle client is dropped while every other is served, and past the
connection limit the server answers 503 instead of falling over. Loopback only, bounded."""

from __future__ import annotations

import resource
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from .conftest import new_fight
from .server import Server

HALF_A_HEAD = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # no blank line: never complete
IDLE = 300
SMALL_FILE_LIMIT = 256
RECOVER_S = 15.0


@contextmanager
def raw(server: Server, first: bytes = b"") -> Iterator[socket.socket]:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        if first:
            sock.sendall(first)
        yield sock


def answer_of(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def test_a_client_that_sends_half_a_head_and_stalls_is_dropped_while_others_are_served(
    tmp_path: Path,
) -> None:
    with Server(tmp_path / "slow.db", args=("--header-timeout", "1")) as running:
        with raw(running, HALF_A_HEAD) as slow:
            started = time.monotonic()
            with httpx.Client(base_url=running.url, timeout=5) as others:
                for _ in range(5):
                    assert others.get("/health").status_code == 200
            assert time.monotonic() - started < 1  # nobody waited for the slow one
            dropped = answer_of(slow)
            assert dropped.startswith(b"HTTP/1.1 408 ")
            assert 0.8 < time.monotonic() - started < 5
        assert "Traceback" not in running.log.read_text()


def test_a_client_that_stalls_in_the_middle_of_its_body_is_dropped(tmp_path: Path) -> None:
    with Server(tmp_path / "body.db", args=("--body-timeout", "1")) as running:
        with httpx.Client(base_url=running.url, timeout=10) as client:
            fight = new_fight(client, "body-1")
        head = (
            "POST /fights/body-1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: {fight.gm['Authorization']}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        )
        with raw(running, head.encode() + b'{"type": "hit"') as slow:
            started = time.monotonic()
            assert answer_of(slow).startswith(b"HTTP/1.1 408 ")
            assert time.monotonic() - started < 5
        with httpx.Client(base_url=running.url, timeout=10) as client:
            assert client.get("/fights/body-1/state", headers=fight.viewer).json()["seq"] == 3


def test_past_the_connection_limit_the_server_answers_503_and_then_recovers(
    tmp_path: Path,
) -> None:
    args = ("--max-connections", "4", "--header-timeout", "30")
    with Server(tmp_path / "full.db", args=args) as running:
        idle = [socket.create_connection(("127.0.0.1", running.port)) for _ in range(3)]
        try:
            time.sleep(0.3)  # let the server accept them
            full = httpx.get(f"{running.url}/health", timeout=5)
            assert full.status_code == 503
        finally:
            for sock in idle:
                sock.close()
        time.sleep(0.3)
        assert httpx.get(f"{running.url}/health", timeout=5).status_code == 200
        assert "Traceback" not in running.log.read_text()


def test_hundreds_of_idle_connections_under_a_small_file_limit_lock_nobody_out_for_long(
    tmp_path: Path,
) -> None:
    """The probe of issue 11: 300 idle connections under `ulimit -n 256` made /health time out,
    and the accept loop wrote 84 MB of "Too many open files" tracebacks in 15 s."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2 * IDLE:  # this test's own side of the connections
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4 * IDLE), hard))
    args = ("--header-timeout", "2")
    with Server(tmp_path / "fds.db", args=args, open_files=SMALL_FILE_LIMIT) as running:
        idle = [socket.create_connection(("127.0.0.1", running.port)) for _ in range(IDLE)]
        try:
            deadline = time.monotonic() + RECOVER_S
            status = None
            while status != 200 and time.monotonic() < deadline:
                try:
                    status = httpx.get(f"{running.url}/health", timeout=3).status_code
                except httpx.TransportError:
                    status = None
            assert status == 200, f"/health not served within {RECOVER_S}s"
            assert running.process is not None and running.process.poll() is None
        finally:
            for sock in idle:
                sock.close()
        log = running.log.read_text()
        assert "Traceback" not in log
        assert len(log) < 20_000, f"{len(log)} bytes of log"


def test_a_request_head_growing_past_max_header_bytes_is_400_at_once(tmp_path: Path) -> None:
    """The limit bounds what is held of a head not yet complete (h11's incomplete event)."""
    with Server(tmp_path / "head.db", args=("--max-header-bytes", "2048")) as running:
        with raw(running, HALF_A_HEAD + b"X-Padding: " + b"a" * 4096) as big:
            started = time.monotonic()
            assert answer_of(big).startswith(b"HTTP/1.1 400 ")
            assert time.monotonic() - started < 1  # not left to the head's timeout
        assert httpx.get(f"{running.url}/health", timeout=5).status_code == 200

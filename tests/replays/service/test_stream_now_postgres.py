"""Each event fanned out by every process (issue 42): streams on two `woundlog serve` processes
on one PostgreSQL database, woken by its NOTIFY, are each sent the same `now` and `changes`
messages of an append made through either process."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import new_fight
from .server import Server
from .test_stream_now import both

STREAMS = 4  # on each process
APPENDS = 5


@pytest.fixture
def pair(postgres_url: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    with Server(postgres_url, logs=tmp_path) as first, Server(postgres_url, logs=tmp_path) as other:
        yield first, other


def test_the_streams_of_both_processes_are_sent_the_same_messages_of_each_append(
    pair: tuple[Server, Server],
) -> None:
    with httpx.Client(base_url=pair[0].url, timeout=30) as client:
        fight = new_fight(client, "fan-pg")
    got: list[list[tuple[dict[str, Any], dict[str, Any]]]] = []
    ready = threading.Barrier(2 * STREAMS + 1, timeout=30)

    def follow(server: Server) -> None:
        with httpx.stream(
            "GET", f"{server.url}/fights/fan-pg/stream", params={"from": 4},
            headers=fight.viewer, timeout=httpx.Timeout(30, read=20),
        ) as response:  # fmt: skip
            ready.wait()
            got.append(both(response, 3 + APPENDS))

    readers = [
        threading.Thread(target=follow, args=(server,), daemon=True)
        for server in pair
        for _ in range(STREAMS)
    ]
    for reader in readers:
        reader.start()
    ready.wait()
    for n in range(APPENDS):
        with httpx.Client(base_url=pair[n % 2].url, timeout=30) as writer:
            blow = {"type": "hit", "target": "grim", "damage": 1 - n % 2}
            answer = writer.post("/fights/fan-pg/events", json=blow, headers=fight.gm)
            assert answer.status_code == 200, answer.text
    for reader in readers:
        reader.join(60)
    assert len(got) == 2 * STREAMS
    assert [changes["seq"] for _, changes in got[0]] == list(range(4, 4 + APPENDS))
    assert all(each == got[0] for each in got)
    assert got[0][0][0]["characters"]["grim"]["wounds"] == 2  # the state after the first hit

"""Issue 24: an open stream met a PostgreSQL restart with an unhandled `AdminShutdown`, its body
cut mid-chunk. Now the stream ends cleanly (the chunked body properly closed, after a `retry`
hint), and the client reconnects with `from` and misses nothing."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from tests.postgres_server import Cluster, fresh_database

from .conftest import new_fight
from .server import Server
from .sse import messages

FIGHT = "restarted"
DEADLINE_S = 30.0  # a bound on liveness on a loaded machine, not a timing


def append_until_committed(client: httpx.Client, gm: dict[str, str], event_id: str) -> int:
    """Send the hit until answered 200 (503 while the database comes back): its seq."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        hit = {"type": "hit", "id": event_id, "target": "grim", "damage": 0}
        answer = client.post(f"/fights/{FIGHT}/events", json=hit, headers=gm)
        if answer.status_code == 200:
            version: int = answer.json()["version"]
            return version
        assert answer.status_code == 503, answer.text
        time.sleep(0.1)
    raise AssertionError("the service never took an append after the restart")


def test_an_open_stream_ends_cleanly_at_a_postgresql_restart_and_resumes_with_from(
    postgres_cluster: Cluster, tmp_path: Path
) -> None:
    url = fresh_database(postgres_cluster.url)
    with (
        Server(url, logs=tmp_path) as service,
        httpx.Client(base_url=service.url, timeout=DEADLINE_S) as client,
    ):
        fight = new_fight(client, FIGHT)
        seen: list[int] = []
        with client.stream("GET", f"/fights/{FIGHT}/stream?from=1", headers=fight.viewer) as live:
            assert live.status_code == 200
            for seq, _ in messages(live):
                seen.append(seq)
                if seq == 3:  # the whole fight so far: now the database restarts under it
                    postgres_cluster.restart()
                    append_until_committed(client, fight.gm, "after-restart")
                if seq == 4:
                    break  # this stream's reads happened to live through the restart
            # else the loop ended: the body was closed whole (a cut one raises
            # RemoteProtocolError, "incomplete chunked read")
        assert seen[:3] == [1, 2, 3]
        if seen[-1] == 3:
            with client.stream(
                "GET", f"/fights/{FIGHT}/stream?from=4", headers=fight.viewer
            ) as again:
                assert again.status_code == 200, again.read()
                for seq, _ in messages(again):
                    seen.append(seq)
                    break
        assert seen == [1, 2, 3, 4]
        assert "AdminShutdown" not in service.log.read_text()

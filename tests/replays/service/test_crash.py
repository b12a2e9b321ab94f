"""The server killed with SIGKILL in the middle of appends, then restarted: every batch it
acknowledged is there, and no batch is there in part."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import httpx

from .conftest import new_fight
from .server import Server

BATCH = 5
RUN_BEFORE_KILL_S = 1.5


def batch(writer: str, number: int) -> list[dict[str, object]]:
    return [
        {"type": "hit", "id": f"{writer}-{number}-{i}", "target": "grim", "damage": 0}
        for i in range(BATCH)
    ]


def keep_appending(url: str, writer: str, gm: dict[str, str], acknowledged: list[int]) -> None:
    """Append batches until the server goes away; remember every batch it answered 200 to."""
    with httpx.Client(base_url=url, timeout=10, headers=gm) as client:
        for number in range(100_000):
            try:
                answer = client.post("/fights/crash-1/events", json=batch(writer, number))
            except httpx.TransportError:
                return
            assert answer.status_code == 200, answer.text
            acknowledged.append(number)


def test_a_killed_server_keeps_every_acknowledged_batch_and_no_half_batch(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    first = Server(db).start()
    try:
        with httpx.Client(base_url=first.url, timeout=30) as client:
            fight = new_fight(client, "crash-1")
        acknowledged: dict[str, list[int]] = {"a": [], "b": [], "c": []}
        writers = [
            threading.Thread(target=keep_appending, args=(first.url, w, fight.gm, acked))
            for w, acked in acknowledged.items()
        ]
        for writer in writers:
            writer.start()
        time.sleep(RUN_BEFORE_KILL_S)
        first.kill()
        for writer in writers:
            writer.join(30)
            assert not writer.is_alive()
    finally:
        first.kill()
    assert all(acked for acked in acknowledged.values()), "no append got through before the kill"

    with Server(db) as second, httpx.Client(base_url=second.url, timeout=30) as client:
        page = client.get(
            "/fights/crash-1/events", params={"from": 4, "limit": 5000}, headers=fight.viewer
        ).json()
        assert page["next"] is None
        ids = [e["event"]["id"] for e in page["events"]]
        per_batch = Counter(i.rsplit("-", 1)[0] for i in ids)
        assert set(per_batch.values()) == {BATCH}  # whole batches only
        for name, acked in acknowledged.items():
            assert all(per_batch[f"{name}-{n}"] == BATCH for n in acked)
        # the fight still takes appends after the crash
        assert (
            client.post(
                "/fights/crash-1/events", json=batch("after", 0), headers=fight.gm
            ).status_code
            == 200
        )

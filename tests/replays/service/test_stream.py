"""`GET /fights/{fight}/stream`: every event's changes, in seq order, as they are appended."""

from __future__ import annotations

import threading
from typing import Any

import httpx

from .conftest import new_fight
from .server import Server
from .sse import messages

WRITERS = 4
PER_WRITER = 25


def hit(event_id: str) -> dict[str, Any]:
    return {"type": "hit", "id": event_id, "target": "grim", "damage": 0}


def collect(
    server: Server,
    fight: str,
    headers: dict[str, str],
    params: dict[str, Any],
    until: int,
    out: list[tuple[int, dict[str, Any]]],
    ready: threading.Event,
) -> None:
    """Read the stream into `out` until the message with id `until`."""
    timeout = httpx.Timeout(30, read=15)  # a stalled stream fails the test instead of hanging
    with httpx.stream(
        "GET", f"{server.url}/fights/{fight}/stream", params=params, headers=headers,
        timeout=timeout,
    ) as response:  # fmt: skip
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        ready.set()
        for seq, data in messages(response):
            out.append((seq, data))
            if seq >= until:
                return


def test_the_stream_delivers_every_appends_changes_in_order(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "stream-1")
        total = 3 + WRITERS * PER_WRITER
        got: list[tuple[int, dict[str, Any]]] = []
        ready = threading.Event()
        reader = threading.Thread(
            target=collect, args=(server, "stream-1", fight.viewer, {}, total, got, ready)
        )
        reader.start()
        assert ready.wait(15)

        def write(name: str) -> None:
            with httpx.Client(base_url=server.url, timeout=30) as own:
                for i in range(PER_WRITER):
                    answer = own.post(
                        "/fights/stream-1/events", json=hit(f"{name}-{i}"), headers=fight.gm
                    )
                    assert answer.status_code == 200

        writers = [threading.Thread(target=write, args=(f"w{n}",)) for n in range(WRITERS)]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join(60)
        reader.join(30)
        assert not reader.is_alive()
        assert [seq for seq, _ in got] == list(range(4, total + 1))
        assert all(data["seq"] == seq and data["type"] == "hit" for seq, data in got)
        logged = client.get(
            "/fights/stream-1/events", params={"from": 4}, headers=fight.viewer
        ).json()["events"]
        assert [data["event"] for _, data in got] == [e["event"]["id"] for e in logged]


def test_a_stream_resumes_after_last_event_id_and_can_start_from_the_beginning(
    server: Server,
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "stream-2")
        blow = {**hit("a"), "damage": 1, "rolls": {"injury": [1]}}
        appended = client.post("/fights/stream-2/events", json=blow, headers=fight.gm).json()
        undone = client.post("/fights/stream-2/undo", headers=fight.gm).json()
        everything: list[tuple[int, dict[str, Any]]] = []
        collect(server, "stream-2", fight.viewer, {"from": 1}, 5, everything, threading.Event())
        assert [(seq, d["type"]) for seq, d in everything] == [
            (1, "fight_started"), (2, "character_joined"), (3, "character_joined"),
            (4, "hit"), (5, "retract"),
        ]  # fmt: skip
        # the stream says what the appends answered, an undo's consequences included
        assert [d for _, d in everything[3:]] == appended["changes"] + undone["changes"]
        assert undone["changes"][0]["consequences"]
        resumed: list[tuple[int, dict[str, Any]]] = []
        headers = {**fight.viewer, "Last-Event-ID": "3"}
        collect(server, "stream-2", headers, {}, 5, resumed, threading.Event())
        assert resumed == everything[3:]


def test_a_stream_from_beyond_the_fights_end_is_refused_like_state_at(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "stream-3")  # events 1 to 3
        url = "/fights/stream-3/stream"
        # a short read timeout: a stream that is not refused would hang the test
        beyond = client.get(url, params={"from": 9}, headers=fight.viewer, timeout=5)
        assert beyond.status_code == 422 and "events 1 to 3" in beyond.json()["message"]
        stale = client.get(url, headers={**fight.viewer, "Last-Event-ID": "7"}, timeout=5)
        assert stale.status_code == 422 and "Last-Event-ID 7" in stale.json()["message"]
        with client.stream("GET", url, params={"from": 4}, headers=fight.viewer) as waiting:
            assert waiting.status_code == 200  # the next event to come is not beyond the end

"""Many clients appending to one fight at once, each with `expected_version` and retrying on
409: every event lands exactly once."""

from __future__ import annotations

import threading
import time
from collections import Counter

import httpx

from .conftest import new_fight
from .server import Server

CLIENTS = 8
PER_CLIENT = 200
DEADLINE_S = 300.0  # a bound on liveness on a loaded machine, not a timing


def append_all(
    url: str,
    name: str,
    gm: dict[str, str],
    done: list[str],
    *,
    fight: str = "crowd-1",
    count: int = PER_CLIENT,
    deadline_s: float = DEADLINE_S,
) -> None:
    """Append `count` hits to `fight` one by one, each at the version the last answer (or 409)
    gave; each id appended goes into `done`."""
    version: int | None = None
    deadline = time.monotonic() + deadline_s
    with httpx.Client(base_url=url, timeout=30, headers=gm) as client:
        for i in range(count):
            event = {"type": "hit", "id": f"{name}-{i}", "target": "grim", "damage": 0}
            while time.monotonic() < deadline:
                params = {} if version is None else {"expected_version": version}
                answer = client.post(f"/fights/{fight}/events", params=params, json=event)
                if answer.status_code == 409:
                    version = answer.json()["current_version"]
                    continue
                assert answer.status_code == 200, answer.text
                version = answer.json()["version"]
                done.append(event["id"])
                break
            else:
                raise TimeoutError(f"{name} gave up at event {i}")


def test_eight_clients_appending_200_events_each_lose_and_double_nothing(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "crowd-1")
        done: list[str] = []
        clients = [
            threading.Thread(target=append_all, args=(server.url, f"c{n}", fight.gm, done))
            for n in range(CLIENTS)
        ]
        for each in clients:
            each.start()
        for each in clients:
            each.join(DEADLINE_S + 30)
        assert len(done) == CLIENTS * PER_CLIENT
        ids: list[str] = []
        start = 4
        while start:
            page = client.get(
                "/fights/crowd-1/events",
                params={"from": start, "limit": 5000},
                headers=fight.viewer,
            ).json()
            ids += [e["event"]["id"] for e in page["events"]]
            start = page["next"]
        assert len(ids) == CLIENTS * PER_CLIENT == page["version"] - 3
        assert Counter(ids).most_common(1)[0][1] == 1
        assert set(ids) == {f"c{n}-{i}" for n in range(CLIENTS) for i in range(PER_CLIENT)}

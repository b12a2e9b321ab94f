"""Crash safety on PostgreSQL (issue 14): a `woundlog serve` killed with SIGKILL in the middle of
appends, and PostgreSQL itself restarted (`pg_ctl restart`) under a running service. Every event
the service acknowledged is there, no batch is there in part, seq has no gap, and the service
goes on (after a restart of the database, by itself)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.postgres_server import Cluster, fresh_database

from .conftest import new_fight
from .server import Server
from .test_postgres import all_events

BATCH = 5
RUN_BEFORE_KILL_S = 1.5
RUN_AROUND_RESTART_S = 1.0
DEADLINE_S = 30.0  # a bound on liveness on a loaded machine, not a timing
FIGHT = "crash-pg"


def events_of(writer: str, number: int, size: int) -> list[dict[str, object]]:
    """Writer `writer`'s append `number`: one event (`size` 1, sent bare) or a batch."""
    return [
        {"type": "hit", "id": f"{writer}-{number}-{i}", "target": "grim", "damage": 0}
        for i in range(size)
    ]


class Writer(threading.Thread):
    """Appends until told to stop or until the server goes away; remembers every append the
    service answered 200 to. A 503 (the database out of reach) is sent again, as its
    Retry-After says: the ids make a resend of what was committed after all harmless; so is a
    409 of a batch that lost the race to the other writers every time the service tried it."""

    def __init__(self, url: str, name: str, gm: dict[str, str], size: int) -> None:
        super().__init__(daemon=True)
        self.url, self.name, self.gm, self.size = url, name, gm, size
        self.acknowledged: list[int] = []
        self.unavailable = 0  # answers 503
        self.unexpected: list[str] = []  # any other answer
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=10, headers=self.gm) as client:
            number = 0
            deadline = time.monotonic() + DEADLINE_S
            while not self.stop.is_set() and time.monotonic() < deadline:
                events = events_of(self.name, number, self.size)
                body = events[0] if self.size == 1 else events
                try:
                    answer = client.post(f"/fights/{FIGHT}/events", json=body)
                except httpx.TransportError:
                    return  # the server is gone
                if answer.status_code == 503:
                    assert answer.headers.get("Retry-After") == "1"
                    self.unavailable += 1
                    time.sleep(0.05)  # sooner than Retry-After says: the test is bounded
                    continue
                if answer.status_code == 409 and "the fight kept changing" in answer.text:
                    continue  # lost every race to the other writers: nothing written, send again
                if answer.status_code != 200:
                    self.unexpected.append(f"{answer.status_code} {answer.text}")
                    return
                self.acknowledged.append(number)
                number += 1


def writers(url: str, gm: dict[str, str]) -> list[Writer]:
    """Two writers of single events and two of batches."""
    sizes = {"one-a": 1, "one-b": 1, "batch-a": BATCH, "batch-b": BATCH}
    return [Writer(url, name, gm, size) for name, size in sizes.items()]


def check_log(client: httpx.Client, viewer: dict[str, str], done: list[Writer]) -> int:
    """Every acknowledged append there whole, none in part, none twice, seq gapless; the
    number of events."""
    events = all_events(client, FIGHT, viewer)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # gapless
    ids = [e["event"]["id"] for e in events[3:]]
    assert Counter(ids).most_common(1)[0][1] == 1  # nothing doubled
    per_append = Counter(i.rsplit("-", 1)[0] for i in ids)
    sizes = {w.name: w.size for w in done}
    for append, count in per_append.items():
        assert count == sizes[append.rsplit("-", 1)[0]], append  # whole batches only
    for writer in done:
        assert writer.acknowledged, f"{writer.name}: no append got through"
        for number in writer.acknowledged:
            assert per_append[f"{writer.name}-{number}"] == writer.size, (writer.name, number)
    return len(events)


def test_a_killed_service_on_postgresql_keeps_every_acknowledged_event_and_no_half_batch(
    postgres_url: str, tmp_path: Path
) -> None:
    first = Server(postgres_url, logs=tmp_path).start()
    try:
        with httpx.Client(base_url=first.url, timeout=30) as client:
            fight = new_fight(client, FIGHT)
        crowd = writers(first.url, fight.gm)
        for writer in crowd:
            writer.start()
        time.sleep(RUN_BEFORE_KILL_S)
        first.kill()
        for writer in crowd:
            writer.join(DEADLINE_S)
            assert not writer.is_alive()
    finally:
        first.kill()
    assert [w.unexpected for w in crowd] == [[]] * len(crowd)

    with (
        Server(postgres_url, logs=tmp_path) as second,
        httpx.Client(base_url=second.url, timeout=30) as client,
    ):
        count = check_log(client, fight.viewer, crowd)
        again = client.post(
            f"/fights/{FIGHT}/events", json=events_of("after", 0, BATCH), headers=fight.gm
        )
        assert again.status_code == 200, again.text
        assert again.json()["version"] == count + BATCH  # the fight goes on, gapless


def test_a_postgresql_restart_under_a_running_service_loses_nothing_and_it_reconnects(
    postgres_cluster: Cluster, tmp_path: Path
) -> None:
    """Requests that meet the restart are answered 503 with Retry-After (never a refusal);
    once the database is back, every writer's appends go through again, through the same
    service process."""
    url = fresh_database(postgres_cluster.url)
    with (
        Server(url, logs=tmp_path) as service,
        httpx.Client(base_url=service.url, timeout=30) as client,
    ):
        fight = new_fight(client, FIGHT)
        crowd = writers(service.url, fight.gm)
        for writer in crowd:
            writer.start()
        time.sleep(RUN_AROUND_RESTART_S)
        postgres_cluster.restart()
        after_restart = {w.name: len(w.acknowledged) for w in crowd}
        time.sleep(RUN_AROUND_RESTART_S)
        for writer in crowd:
            writer.stop.set()
            writer.join(DEADLINE_S)
            assert not writer.is_alive()
        assert [w.unexpected for w in crowd] == [[]] * len(crowd)
        for writer in crowd:  # each went on after the restart, through the same process
            assert len(writer.acknowledged) > after_restart[writer.name], writer.name
        assert service.process is not None and service.process.poll() is None
        check_log(client, fight.viewer, crowd)


def test_while_postgresql_is_down_every_request_is_a_503_to_retry_never_a_refusal(
    postgres_cluster: Cluster, tmp_path: Path
) -> None:
    """A request that finds its connection gone and one that must open a new connection (the
    server not there at all) are both the database out of reach: 503 with Retry-After, which a
    client sends again. A 422 would tell it the request itself was wrong, and it would drop it."""
    url = fresh_database(postgres_cluster.url)
    with (
        Server(url, logs=tmp_path) as service,
        httpx.Client(base_url=service.url, timeout=DEADLINE_S) as client,
    ):
        fight = new_fight(client, FIGHT)
        postgres_cluster.stop()
        try:
            # at once, so that the service's worker threads that have no connection yet must
            # open one: the server is not there for it
            with ThreadPoolExecutor(max_workers=8) as pool:
                answers = list(pool.map(lambda n: send(client, fight.gm, f"down-{n}"), range(8)))
            answers.append(client.get(f"/fights/{FIGHT}/state", headers=fight.viewer))
        finally:
            postgres_cluster.start()
        assert [(a.status_code, a.headers.get("Retry-After")) for a in answers] == [
            (503, "1")
        ] * len(answers), [a.text for a in answers]
        again = send(client, fight.gm, "down-0")
        assert again.status_code in (200, 503), again.text  # back, or still reconnecting


def send(client: httpx.Client, gm: dict[str, str], event_id: str) -> httpx.Response:
    hit = {"type": "hit", "id": event_id, "target": "grim", "damage": 0}
    return client.post(f"/fights/{FIGHT}/events", json=hit, headers=gm)

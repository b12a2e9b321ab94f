"""Several `woundlog serve` processes on one PostgreSQL database (issue 14): what one writes, the
others see, take turns on and stream, with nothing lost or doubled."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import new_fight
from .server import ADMIN, Server, bearer
from .sse import messages
from .test_concurrency import append_all as crowd
from .test_import import snapshot

CLIENTS = 8
PER_CLIENT = 50
APPENDS = 10
DEADLINE_S = 120.0  # a bound on liveness on a loaded machine, not a timing


@pytest.fixture
def pair(postgres_url: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    """Two servers, two processes, one database."""
    with Server(postgres_url, logs=tmp_path) as first, Server(postgres_url, logs=tmp_path) as other:
        yield first, other


def all_events(client: httpx.Client, fight: str, viewer: dict[str, str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    start: int | None = 1
    while start:
        page = client.get(
            f"/fights/{fight}/events", params={"from": start, "limit": 5000}, headers=viewer
        ).json()
        events += page["events"]
        start = page["next"]
    return events


def test_a_fight_created_through_one_process_is_read_and_written_through_the_other(
    pair: tuple[Server, Server],
) -> None:
    first, other = pair
    with (
        httpx.Client(base_url=first.url, timeout=30) as a,
        httpx.Client(base_url=other.url, timeout=30) as b,
    ):
        tokens = new_fight(a, "shared-1")
        hurt = b.post(
            "/fights/shared-1/events",
            json={"type": "hit", "target": "grim", "damage": 1},
            headers=tokens.gm,
        )
        assert hurt.status_code == 200, hurt.text
        assert a.get("/fights/shared-1/state", headers=tokens.viewer).json()["seq"] == 4


def append_all(url: str, name: str, gm: dict[str, str], done: list[str]) -> None:
    crowd(url, name, gm, done, fight="crowd-pg", count=PER_CLIENT, deadline_s=DEADLINE_S)


def test_eight_clients_on_two_processes_lose_and_double_nothing_and_a_viewer_sees_every_append(
    pair: tuple[Server, Server],
) -> None:
    first, other = pair
    with httpx.Client(base_url=first.url, timeout=30) as client:
        fight = new_fight(client, "crowd-pg")
        seen: list[int] = []
        expected = 3 + CLIENTS * PER_CLIENT

        def watch() -> None:  # a viewer of the first process
            with client.stream(
                "GET", "/fights/crowd-pg/stream", params={"from": 4}, headers=fight.viewer
            ) as response:
                for seq, _ in messages(response):
                    seen.append(seq)
                    if seq == expected:
                        return

        viewer = threading.Thread(target=watch, daemon=True)
        viewer.start()
        done: list[str] = []
        clients = [  # every other client through the second process
            threading.Thread(
                target=append_all,
                args=((first, other)[n % 2].url, f"c{n}", fight.gm, done),
            )
            for n in range(CLIENTS)
        ]
        for each in clients:
            each.start()
        for each in clients:
            each.join(DEADLINE_S + 30)
        assert len(done) == CLIENTS * PER_CLIENT
        events = all_events(client, "crowd-pg", fight.viewer)
        assert [e["seq"] for e in events] == list(range(1, expected + 1))  # gapless
        ids = [e["event"]["id"] for e in events[3:]]
        assert Counter(ids).most_common(1)[0][1] == 1
        assert set(ids) == set(done)
        viewer.join(30)
        assert seen == list(range(4, expected + 1))  # every append, in order


def test_a_stream_on_one_process_hears_an_append_through_the_other_at_once(
    pair: tuple[Server, Server],
) -> None:
    """Not by polling: with LISTEN connected, a stream looks again unwoken only every 15 s. (Were
    it polling every second, as on other stores, ten waits would add up to about 5 s; they add
    up to a few hundredths.)"""
    first, other = pair
    with (
        httpx.Client(base_url=first.url, timeout=30) as a,
        httpx.Client(base_url=other.url, timeout=30) as b,
    ):
        fight = new_fight(a, "live-pg")
        heard: list[tuple[int, float]] = []
        ready = threading.Event()

        def watch() -> None:
            with a.stream("GET", "/fights/live-pg/stream", headers=fight.viewer) as response:
                ready.set()
                for seq, _ in messages(response):
                    heard.append((seq, time.monotonic()))
                    if seq == 3 + APPENDS:
                        return

        viewer = threading.Thread(target=watch, daemon=True)
        viewer.start()
        assert ready.wait(10)
        time.sleep(0.5)  # the stream is waiting, past its first read
        sent: list[float] = []
        for _ in range(APPENDS):
            sent.append(time.monotonic())
            answer = b.post(
                "/fights/live-pg/events",
                json={"type": "hit", "target": "grim", "damage": 0},
                headers=fight.gm,
            )
            assert answer.status_code == 200, answer.text
            time.sleep(0.2)
        viewer.join(20)
        assert [seq for seq, _ in heard] == list(range(4, 4 + APPENDS))
        waits = [at - then for (_, at), then in zip(heard, sent, strict=True)]
        assert sum(waits) < 2.5, waits


def test_the_importers_cursor_is_shared_by_the_processes_and_taken_in_turn(
    pair: tuple[Server, Server],
) -> None:
    first, other = pair
    with httpx.Client(base_url=first.url, timeout=30) as a:
        created = a.post(
            "/fights", json={"fight": "ii-pg", "ruleset": "d26", "seed": 3}, headers=bearer(ADMIN)
        )
        gm = bearer(created.json()["gm_token"])
        url = "/fights/ii-pg/import/improved-initiative"
        assert a.post(url, json=snapshot(1, 3), headers=gm).status_code == 200
        answers: list[httpx.Response] = []

        def send(server: Server) -> None:
            with httpx.Client(base_url=server.url, timeout=30) as client:
                answers.append(client.post(url, json=snapshot(1, 1), headers=gm))

        senders = [threading.Thread(target=send, args=((first, other)[n % 2],)) for n in range(6)]
        for each in senders:
            each.start()
        for each in senders:
            each.join(60)
        assert [answer.status_code for answer in answers] == [200] * 6
        hits = [c for answer in answers for c in answer.json()["changes"] if c["type"] == "hit"]
        assert len(hits) == 1  # the one that came first saw 3 -> 1; the others, 1 -> 1
        state = a.get("/fights/ii-pg/state", headers=gm).json()
        assert state["characters"]["gob1"]["hp"] == 1


def test_two_processes_creating_one_fight_make_it_once_and_answer_the_other_as_a_retry(
    pair: tuple[Server, Server],
) -> None:
    answers: list[httpx.Response] = []

    def create(server: Server) -> None:
        answers.append(
            httpx.post(
                f"{server.url}/fights",
                json={"fight": "twice-pg", "ruleset": "mordheim", "seed": 5},
                headers=bearer(ADMIN),
                timeout=30,
            )
        )

    creators = [threading.Thread(target=create, args=(pair[n % 2],)) for n in range(6)]
    for each in creators:
        each.start()
    for each in creators:
        each.join(60)
    assert sorted(answer.status_code for answer in answers) == [200] * 5 + [201]
    assert {answer.json()["version"] for answer in answers} == {1}


def test_a_branch_made_through_one_process_is_served_by_the_other_with_its_tokens(
    pair: tuple[Server, Server],
) -> None:
    first, other = pair
    with (
        httpx.Client(base_url=first.url, timeout=30) as a,
        httpx.Client(base_url=other.url, timeout=30) as b,
    ):
        fight = new_fight(a, "trunk-pg")
        asked = {"as": "twig-pg", "then": [{"type": "hit", "target": "grim", "damage": 1}]}
        made = a.post("/fights/trunk-pg/branch", json=asked, headers=fight.gm)
        assert made.status_code == 201, made.text
        taken = b.post("/fights/trunk-pg/branch", json=asked, headers=fight.gm)
        assert taken.status_code == 409, taken.text  # a gm never re-tokens a fight (issue 24)
        again = b.post("/fights/trunk-pg/branch", json=asked, headers=bearer(ADMIN))
        assert again.status_code == 200, again.text
        viewer = bearer(again.json()["viewer_token"])
        assert a.get("/fights/twig-pg/state", headers=viewer).json()["seq"] == 4
        old = bearer(made.json()["viewer_token"])
        assert b.get("/fights/twig-pg/state", headers=old).status_code == 401


def test_after_the_database_drops_every_connection_the_service_reconnects_by_itself(
    pair: tuple[Server, Server], postgres_url: str
) -> None:
    """As a PostgreSQL restart does to its clients: the request that meets a dead connection may
    be answered 503 (send it again), the next ones work, and live streams hear appends again."""
    import psycopg

    first, other = pair
    with (
        httpx.Client(base_url=first.url, timeout=30) as a,
        httpx.Client(base_url=other.url, timeout=30) as b,
    ):
        fight = new_fight(a, "restart-pg")
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        hit = {"type": "hit", "target": "grim", "damage": 0}
        codes = [
            a.post("/fights/restart-pg/events", json=hit, headers=fight.gm).status_code
            for _ in range(6)
        ]
        assert set(codes) <= {200, 503} and codes[-3:] == [200] * 3, codes
        time.sleep(2.0)  # the LISTEN connection is opened again after RECONNECT_S
        written = a.get("/fights/restart-pg/state", headers=fight.viewer).json()["seq"]
        heard: list[int] = []
        opened = threading.Event()

        def watch() -> None:
            with a.stream("GET", "/fights/restart-pg/stream", headers=fight.viewer) as response:
                opened.set()  # its head is here: it starts at the next append, not one after
                for seq, _ in messages(response):
                    heard.append(seq)
                    return

        viewer = threading.Thread(target=watch, daemon=True)
        viewer.start()
        assert opened.wait(15), "the stream did not open"
        for _ in range(3):  # the second process's connections were dropped too
            answer = b.post("/fights/restart-pg/events", json=hit, headers=fight.gm)
            if answer.status_code == 200:
                break
        assert answer.status_code == 200, answer.text
        viewer.join(5)  # well before the 15 s a stream waits unwoken
        assert heard == [written + 1]

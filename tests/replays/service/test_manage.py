"""Issue 13: what the admin manages over HTTP, against a real `woundlog serve` on loopback.

`GET /fights` (the fights a token may see), `DELETE /fights/{fight}` (the fight with its tokens,
and its open streams ended), `POST` and `DELETE /fights/{fight}/tokens` (reissued, revoked)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx

from .conftest import new_fight
from .server import ADMIN, Server, bearer

ADMIN_HEADERS = bearer(ADMIN)


def names(page: dict[str, Any]) -> list[str]:
    return [fight["fight"] for fight in page["fights"]]


def test_the_admin_lists_every_fight_with_ruleset_events_and_last_change(tmp_path: Path) -> None:
    with Server(tmp_path / "list.db") as running, httpx.Client(base_url=running.url) as client:
        new_fight(client, "list-a")
        tokens = new_fight(client, "list-b")
        client.post(
            "/fights/list-b/events",
            json={"type": "hit", "target": "grim", "damage": 0, "at": "2026-01-02T03:04:05Z"},
            headers=tokens.gm,
        ).raise_for_status()
        page = client.get("/fights", headers=ADMIN_HEADERS).json()
        assert names(page) == ["list-a", "list-b"]
        assert page["next"] is None
        last = page["fights"][1]
        assert (last["ruleset"], last["events"]) == ("mordheim", 4)
        assert last["last_change"] == {"seq": 4, "type": "hit", "at": "2026-01-02T03:04:05Z"}
        # its newest event has no `at`: the change is still named, by its seq and type
        assert page["fights"][0]["last_change"] == {"seq": 3, "type": "character_joined"}


def test_the_admin_pages_through_the_fights_with_offset_and_next(tmp_path: Path) -> None:
    with Server(tmp_path / "pages.db") as running, httpx.Client(base_url=running.url) as client:
        for name in ("p1", "p2", "p3"):
            client.post(
                "/fights", json={"fight": name, "ruleset": "mordheim"}, headers=ADMIN_HEADERS
            ).raise_for_status()
        first = client.get("/fights", params={"limit": 2}, headers=ADMIN_HEADERS).json()
        assert (names(first), first["next"]) == (["p1", "p2"], 2)
        rest = client.get(
            "/fights", params={"limit": 2, "offset": first["next"]}, headers=ADMIN_HEADERS
        ).json()
        assert (names(rest), rest["next"]) == (["p3"], None)
        too_many = client.get("/fights", params={"limit": 10_000}, headers=ADMIN_HEADERS)
        assert too_many.status_code == 422


def test_a_fights_gm_and_viewer_tokens_list_only_their_own_fight(client: httpx.Client) -> None:
    mine = new_fight(client, "own-list")
    new_fight(client, "not-mine")
    assert names(client.get("/fights", headers=mine.gm).json()) == ["own-list"]
    assert names(client.get("/fights", headers=mine.viewer).json()) == ["own-list"]
    assert client.get("/fights", headers=bearer("nobody's")).status_code == 401


def test_deleting_a_fight_answers_204_then_404_and_its_tokens_stop_working(
    client: httpx.Client,
) -> None:
    tokens = new_fight(client, "doomed")
    assert client.delete("/fights/doomed", headers=ADMIN_HEADERS).status_code == 204
    assert client.get("/fights/doomed/state", headers=ADMIN_HEADERS).status_code == 404
    assert client.delete("/fights/doomed", headers=ADMIN_HEADERS).status_code == 404  # a retry
    # a new fight of the same id is another fight: the old tokens do not open it
    again = new_fight(client, "doomed")
    assert client.get("/fights/doomed/state", headers=tokens.viewer).status_code == 401
    state = client.get("/fights/doomed/state", headers=again.viewer).json()
    assert state["seq"] == 3  # folded from its own log, not the deleted fight's kept state


def test_only_the_admin_deletes_a_fight(client: httpx.Client) -> None:
    tokens = new_fight(client, "kept")
    assert client.delete("/fights/kept", headers=tokens.gm).status_code == 403
    assert client.delete("/fights/kept", headers=tokens.viewer).status_code == 403
    assert client.get("/fights/kept/state", headers=tokens.viewer).status_code == 200


def stream_reader(
    url: str, start: int, headers: dict[str, str], seen: list[str]
) -> threading.Thread:
    """A thread reading the fight stream at `url` from event `start`, putting each `event:`
    line in `seen` until the stream ends; returned once the stream is open."""
    opened = threading.Event()

    def read() -> None:
        timeout = httpx.Timeout(30, read=20)  # a stream left open fails the test, never hangs
        with httpx.stream(
            "GET", url, params={"from": start}, headers=headers, timeout=timeout
        ) as response:
            opened.set()
            seen.extend(line for line in response.iter_lines() if line.startswith("event:"))

    reader = threading.Thread(target=read)
    reader.start()
    assert opened.wait(15), "the stream did not open"
    return reader


def test_deleting_a_fight_ends_its_open_stream_with_a_deleted_message(
    server: Server, client: httpx.Client
) -> None:
    tokens = new_fight(client, "streamed-away")
    seen: list[str] = []
    reader = stream_reader(f"{server.url}/fights/streamed-away/stream", 1, tokens.viewer, seen)
    deadline = time.monotonic() + 30  # the stream open, its three events delivered: then delete
    while seen.count("event: changes") < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.delete("/fights/streamed-away", headers=ADMIN_HEADERS).status_code == 204
    reader.join(30)
    assert not reader.is_alive(), "the stream of a deleted fight stayed open"
    assert seen[-1] == "event: deleted"
    assert seen.count("event: changes") == 3


def test_reissued_tokens_work_and_the_old_pair_stops(client: httpx.Client) -> None:
    old = new_fight(client, "reissued")
    answer = client.post("/fights/reissued/tokens", headers=ADMIN_HEADERS)
    assert answer.status_code == 200, answer.text
    fresh = answer.json()
    assert (fresh["fight"], fresh["version"]) == ("reissued", 3)
    assert client.get("/fights/reissued/state", headers=old.viewer).status_code == 401
    assert client.get("/fights/reissued/state", headers=old.gm).status_code == 401
    assert client.get("/fights/reissued/state", headers=bearer(fresh["viewer_token"])).is_success
    hurt = client.post(
        "/fights/reissued/events",
        json={"type": "hit", "target": "grim", "damage": 0},
        headers=bearer(fresh["gm_token"]),
    )
    assert hurt.status_code == 200, hurt.text


def test_revoked_tokens_stop_working_and_only_the_admin_reaches_the_fight(
    client: httpx.Client,
) -> None:
    tokens = new_fight(client, "revoked")
    assert client.delete("/fights/revoked/tokens", headers=tokens.gm).status_code == 403
    assert client.delete("/fights/revoked/tokens", headers=ADMIN_HEADERS).status_code == 204
    assert client.get("/fights/revoked/state", headers=tokens.viewer).status_code == 401
    assert client.get("/fights/revoked/state", headers=tokens.gm).status_code == 401
    assert client.get("/fights/revoked/state", headers=ADMIN_HEADERS).status_code == 200


def test_a_fights_own_token_cannot_reissue_its_tokens(client: httpx.Client) -> None:
    tokens = new_fight(client, "no-self-service")
    assert client.post("/fights/no-self-service/tokens", headers=tokens.gm).status_code == 403
    assert client.get("/fights/no-self-service/state", headers=tokens.gm).status_code == 200


def test_deleting_through_one_postgresql_process_ends_the_stream_open_on_another(
    postgres_url: str, tmp_path: Path
) -> None:
    with (
        Server(postgres_url, logs=tmp_path) as one,
        Server(postgres_url, logs=tmp_path) as other,
        httpx.Client(base_url=one.url, timeout=30) as a,
    ):
        tokens = new_fight(a, "pg-doomed")
        seen: list[str] = []
        reader = stream_reader(f"{other.url}/fights/pg-doomed/stream", 4, tokens.viewer, seen)
        assert a.delete("/fights/pg-doomed", headers=ADMIN_HEADERS).status_code == 204
        reader.join(30)
        assert not reader.is_alive(), "the other process's stream stayed open"
        assert seen == ["event: deleted"]

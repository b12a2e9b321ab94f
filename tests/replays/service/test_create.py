"""Issue 11, item 3: `POST /fights` never leaves a fight without tokens, and is safe to retry.

A retry (same fight, same settings) answers 200 with the same fight and a new pair of tokens,
which replaces the pair of any earlier answer: tokens are kept only as hashes, so the first pair
cannot be shown again."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from .server import ADMIN, Server, bearer

KILL_AFTER_S = 1.0
CREATORS = 3


def create(client: httpx.Client, fight: str, **settings: object) -> httpx.Response:
    body = {"fight": fight, "ruleset": "mordheim", **settings}
    return client.post("/fights", json=body, headers=bearer(ADMIN))


def woundlog(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from woundlog.replays.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def works(client: httpx.Client, fight: str, answer: dict[str, str]) -> bool:
    viewer = client.get(f"/fights/{fight}/state", headers=bearer(answer["viewer_token"]))
    gm = client.post(
        f"/fights/{fight}/undo", json={"event": "#99"}, headers=bearer(answer["gm_token"])
    )  # 422 (no such event) proves the gm token passed the guard without writing anything
    return viewer.status_code == 200 and gm.status_code == 422


def test_a_fight_left_without_tokens_gets_them_from_the_same_request_again(
    tmp_path: Path,
) -> None:
    """What a crash between the fight's commit and its tokens' left: a fight nobody could reach,
    and `POST /fights` answering 409 for it forever."""
    db = tmp_path / "orphan.db"
    made = woundlog("--db", str(db), "new", "orphan-1", "--ruleset", "mordheim", "--seed", "7")
    assert made.returncode == 0, made.stderr
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        again = create(client, "orphan-1", seed=7)
        assert again.status_code == 200, again.text
        assert again.json()["seed"] == 7 and again.json()["version"] == 1
        assert works(client, "orphan-1", again.json())


def test_a_retry_after_a_lost_answer_gets_the_same_fight_and_new_tokens(
    tmp_path: Path,
) -> None:
    with (
        Server(tmp_path / "retry.db") as running,
        httpx.Client(base_url=running.url, timeout=30) as client,
    ):
        first = create(client, "retry-1")  # no seed: the server draws one
        assert first.status_code == 201
        lost = first.json()
        retried = create(client, "retry-1")
        assert retried.status_code == 200, retried.text
        answer = retried.json()
        assert (answer["fight"], answer["seed"]) == (lost["fight"], lost["seed"])
        assert works(client, "retry-1", answer)
        stale = client.get("/fights/retry-1/state", headers=bearer(lost["viewer_token"]))
        assert stale.status_code == 401  # the lost pair was replaced
        events = client.get("/fights/retry-1/events", headers=bearer(answer["viewer_token"]))
        assert events.json()["version"] == 1  # one fight_started, not two


def test_the_same_id_with_other_settings_is_409_naming_them_and_changes_nothing(
    tmp_path: Path,
) -> None:
    with (
        Server(tmp_path / "other.db") as running,
        httpx.Client(base_url=running.url, timeout=30) as client,
    ):
        first = create(client, "other-1", seed=3).json()
        other = create(client, "other-1", seed=3, ruleset="d26")
        assert other.status_code == 409
        assert "'mordheim', not 'd26'" in other.json()["message"]
        assert other.json()["current_version"] == 1
        assert works(client, "other-1", first)  # the first pair still holds


def keep_creating(url: str, name: str, answered: list[str]) -> None:
    with httpx.Client(base_url=url, timeout=10) as client:
        for number in range(100_000):
            try:
                answer = create(client, f"{name}-{number}")
            except httpx.TransportError:
                return
            assert answer.status_code == 201, answer.text
            answered.append(f"{name}-{number}")


def test_no_fight_is_left_without_tokens_when_the_server_is_killed_while_creating(
    tmp_path: Path,
) -> None:
    db = tmp_path / "kill.db"
    server = Server(db).start()
    answered: list[str] = []
    try:
        creators = [
            threading.Thread(target=keep_creating, args=(server.url, f"k{n}", answered))
            for n in range(CREATORS)
        ]
        for creator in creators:
            creator.start()
        time.sleep(KILL_AFTER_S)
        server.kill()
        for creator in creators:
            creator.join(30)
    finally:
        server.kill()
    assert answered, "no fight was created before the kill"
    with sqlite3.connect(db) as look:
        fights = {row[0] for row in look.execute("SELECT fight FROM fights")}
        with_tokens = {row[0] for row in look.execute("SELECT fight FROM service_tokens")}
    assert set(answered) <= fights
    assert fights <= with_tokens, f"fights without tokens: {sorted(fights - with_tokens)}"

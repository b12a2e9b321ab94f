"""Through the HTTP service: a batch that lost a race is revalidated against the winner's events
(issue 11, item 10). A real `woundlog serve` on loopback, on each store; two gm requests hit
one-wound Grim while the store's write lock is held (race.py), both validated against the same
version; then the lock goes. One is 200; the other a 422 naming the rule, and not written."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest

from .race import store_url, wait_until_blocked, write_lock_held
from .service.server import ADMIN, Server, bearer

FIGHT = "brawl"


def knockout(writer: str, die: int) -> dict[str, object]:
    return {
        "type": "hit",
        "id": writer,
        "target": "grim",
        "damage": 1,
        "attacker": "snik",
        "rolls": {"injury": [die]},
    }


def served_brawl(client: httpx.Client) -> dict[str, str]:
    """The fight made through the service: Grim (one wound, reavers) and Snik (skaven); the
    gm's headers."""
    created = client.post(
        "/fights", json={"fight": FIGHT, "ruleset": "mordheim"}, headers=bearer(ADMIN)
    )
    assert created.status_code == 201, created.text
    gm = bearer(created.json()["gm_token"])
    joined = client.post(
        f"/fights/{FIGHT}/events",
        json=[
            {"type": "character_joined", "character": "grim", "name": "Grim", "side": "reavers",
             "stats": {"wounds": 1}},
            {"type": "character_joined", "character": "snik", "name": "Snik", "side": "skaven"},
        ],
        headers=gm,
    )  # fmt: skip
    assert joined.status_code == 200, joined.text
    return gm


@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_over_http_the_hit_that_lost_the_race_is_refused_against_the_winners(
    kind: str, tmp_path: Path
) -> None:
    url = store_url(kind, tmp_path)
    with (
        Server(url, logs=tmp_path) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        gm = served_brawl(client)
        answers: dict[str, httpx.Response] = {}

        def send(writer: str, die: int) -> None:
            with httpx.Client(base_url=server.url, timeout=60) as own:
                answers[writer] = own.post(
                    f"/fights/{FIGHT}/events", json=knockout(writer, die), headers=gm
                )

        senders = [threading.Thread(target=send, args=args) for args in (("a", 6), ("b", 5))]
        assert server.process is not None
        with write_lock_held(kind, url, FIGHT):
            for sender in senders:
                sender.start()
            wait_until_blocked(kind, [server.process.pid], writers=2)
        for sender in senders:
            sender.join(timeout=60)
        codes = sorted(answer.status_code for answer in answers.values())
        assert codes == [200, 422], {w: a.text for w, a in answers.items()}
        [refused] = [a for a in answers.values() if a.status_code == 422]
        assert "out of action" in refused.text
        [winner] = [w for w, a in answers.items() if a.status_code == 200]
        events = client.get(f"/fights/{FIGHT}/events", headers=gm)
        assert events.status_code == 200, events.text
        assert [s["event"]["id"] for s in events.json()["events"][3:]] == [winner]

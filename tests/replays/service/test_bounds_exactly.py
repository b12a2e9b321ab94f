"""Every "at most N" bound of the service at exactly N and at N + 1 (issue 39): a bound off by
one passes a test that only tries N + k. Each N is the constant the README's bounds table shows
(test_odds_bounds.py holds the table to the constants); what is asked at N is answered, at N + 1
refused with the bound named, never a 5xx. A real server on loopback, its fights written to the
store directly where a test needs a long one (a store's append does not fold)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from woundlog.events import convert
from woundlog.events.model import NAME_LENGTH
from woundlog.events.stores.locate import open_store
from woundlog.replays.application import TIMELINE_MAX
from woundlog.replays.service.idempotency import HEADER, MAX_KEY
from woundlog.replays.service.limits import (
    BRANCH_MAX,
    LIST_MAX,
    MAX_BATCH,
    MAX_BODY,
    PAGE_MAX,
)

from .server import ADMIN, Server, bearer

LONG_FIGHT = BRANCH_MAX + 2  # past every bound that counts a fight's events here


def ticks(events: int) -> list[dict[str, Any]]:
    """A Mordheim fight of one warrior, then turn ticks: `events` events after its start."""
    found: list[dict[str, Any]] = [
        {"type": "character_joined", "character": "a", "side": "a", "stats": {"wounds": 3}}
    ]
    round_ = 1
    while len(found) < events:
        found.append({"type": "turn_started", "round": round_})
        found.append({"type": "turn_ended", "round": round_})
        round_ += 1
    return found[:events]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    db = tmp_path_factory.mktemp("bounds") / "fights.db"
    with Server(db) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        made = client.post("/fights", json={"fight": "long", "ruleset": "mordheim"},
                           headers=bearer(ADMIN))  # fmt: skip
        assert made.status_code == 201, made.text
        with open_store(str(db)) as store:
            events = [convert(e, index=n) for n, e in enumerate(ticks(LONG_FIGHT - 1))]
            store.append("long", events, expected_version=1)
        yield server.url, bearer(ADMIN)


def refused(answer: httpx.Response, *statuses: int) -> None:
    assert answer.status_code in statuses, (answer.status_code, answer.text[:300])


def test_a_page_of_the_log_is_at_most_page_max_events(running: tuple[str, dict[str, str]]) -> None:
    url, admin = running
    with httpx.Client(base_url=url, timeout=60, headers=admin) as client:
        page = client.get("/fights/long/events", params={"limit": PAGE_MAX})
        assert page.status_code == 200, page.text
        assert len(page.json()["events"]) == PAGE_MAX
        refused(client.get("/fights/long/events", params={"limit": PAGE_MAX + 1}), 400, 422)


def test_a_timeline_window_is_at_most_timeline_max_events(
    running: tuple[str, dict[str, str]],
) -> None:
    url, admin = running
    with httpx.Client(base_url=url, timeout=60, headers=admin) as client:
        window = client.get("/fights/long/timeline", params={"limit": TIMELINE_MAX})
        assert window.status_code == 200, window.text
        assert len(window.json()["moments"]) == TIMELINE_MAX
        refused(client.get("/fights/long/timeline", params={"limit": TIMELINE_MAX + 1}), 400, 422)


def test_a_list_of_fights_is_at_most_list_max(running: tuple[str, dict[str, str]]) -> None:
    url, admin = running
    with httpx.Client(base_url=url, timeout=60, headers=admin) as client:
        assert client.get("/fights", params={"limit": LIST_MAX}).status_code == 200
        refused(client.get("/fights", params={"limit": LIST_MAX + 1}), 400, 422)


def hits(count: int) -> list[dict[str, Any]]:
    return [{"type": "hit", "target": "a", "damage": 0} for _ in range(count)]


def test_an_append_is_at_most_max_batch_events(running: tuple[str, dict[str, str]]) -> None:
    url, admin = running
    with httpx.Client(base_url=url, timeout=60, headers=admin) as client:
        made = client.post("/fights", json={"fight": "batch", "ruleset": "mordheim"})
        assert made.status_code == 201, made.text
        joined = client.post("/fights/batch/events", json=ticks(1))
        assert joined.status_code == 200, joined.text
        over = client.post("/fights/batch/events", json=hits(MAX_BATCH + 1))
        refused(over, 413)
        assert f"{MAX_BATCH:,}" in over.text or str(MAX_BATCH) in over.text
        at = client.post("/fights/batch/events", json=hits(MAX_BATCH))
        assert at.status_code == 200, at.text
        assert at.json()["version"] == 2 + MAX_BATCH  # nothing of the refused one was written


def body_of_size(size: int) -> bytes:
    """A JSON list of hits whose notes pad it to exactly `size` bytes."""
    note = "n" * 1900
    one = json.dumps({"type": "hit", "target": "a", "damage": 0, "note": note})
    count = size // (len(one) + 1)
    events = [json.loads(one) for _ in range(count)]
    text = json.dumps(events, separators=(",", ":"))
    short = size - len(text)
    assert short >= 0
    # pad with spaces, which JSON allows between values
    return (text[:-1] + " " * short + "]").encode()


def test_a_body_is_at_most_max_body_bytes(running: tuple[str, dict[str, str]]) -> None:
    url, admin = running
    with httpx.Client(base_url=url, timeout=60, headers=admin) as client:
        made = client.post("/fights", json={"fight": "body", "ruleset": "mordheim"})
        assert made.status_code == 201, made.text
        assert client.post("/fights/body/events", json=ticks(1)).status_code == 200
        at = body_of_size(MAX_BODY)
        assert len(at) == MAX_BODY
        answered = client.post("/fights/body/events", content=at,
                               headers={"content-type": "application/json"})  # fmt: skip
        assert answered.status_code == 200, answered.text[:300]
        over = body_of_size(MAX_BODY + 1)
        assert len(over) == MAX_BODY + 1
        refused(client.post("/fights/body/events", content=over,
                            headers={"content-type": "application/json"}), 413)  # fmt: skip


def test_a_branch_copies_at_most_branch_max_events(running: tuple[str, dict[str, str]]) -> None:
    url, admin = running
    with httpx.Client(base_url=url, timeout=60, headers=admin) as client:
        at = client.post("/fights/long/branch", json={"as": "b-at", "at": BRANCH_MAX})
        assert at.status_code in (200, 201), at.text[:300]
        over = client.post("/fights/long/branch", json={"as": "b-over", "at": BRANCH_MAX + 1})
        refused(over, 413)
        assert f"{BRANCH_MAX:,}" in over.text
        assert client.get("/fights/b-over/state").status_code == 404  # nothing was made


def test_a_name_is_at_most_name_length_characters(running: tuple[str, dict[str, str]]) -> None:
    url, admin = running
    with httpx.Client(base_url=url, timeout=60, headers=admin) as client:
        made = client.post("/fights", json={"fight": "names", "ruleset": "mordheim"})
        assert made.status_code == 201, made.text

        def join(character: str, name: str) -> httpx.Response:
            return client.post("/fights/names/events", json=[{
                "type": "character_joined", "character": character, "name": name,
                "side": "a", "stats": {"wounds": 1}}])  # fmt: skip

        assert join("a", "x" * NAME_LENGTH).status_code == 200
        over = join("b", "x" * (NAME_LENGTH + 1))
        refused(over, 422)
        assert str(NAME_LENGTH) in over.text


def test_an_idempotency_key_is_at_most_max_key_characters(
    running: tuple[str, dict[str, str]],
) -> None:
    url, admin = running
    with httpx.Client(base_url=url, timeout=60, headers=admin) as client:
        at = client.post("/fights", json={"fight": "keyed", "ruleset": "mordheim"},
                         headers={HEADER: "k" * MAX_KEY})  # fmt: skip
        assert at.status_code == 201, at.text
        over = client.post("/fights", json={"fight": "keyed-2", "ruleset": "mordheim"},
                           headers={HEADER: "k" * (MAX_KEY + 1)})  # fmt: skip
        refused(over, 400, 422)

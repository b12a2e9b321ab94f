"""Named tokens (issue 26): a fight holds several tokens of a role, each named, issued at a
time, listed without the token, revoked by name while the others keep working; gm tokens hand
out and revoke viewer tokens, only the admin's token gm ones. On SQLite and PostgreSQL, and on a
database made before tokens had names."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from .conftest import new_fight
from .server import ADMIN, Server, bearer


@pytest.fixture(params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[httpx.Client]:
    if request.param == "sqlite":
        db: str | Path = tmp_path / "fights.db"
    else:
        db = request.getfixturevalue("postgres_url")
    with Server(db, logs=tmp_path) as server, httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def reads(client: httpx.Client, fight: str, token: str) -> int:
    return client.get(f"/fights/{fight}/state", headers=bearer(token)).status_code


def test_a_named_token_is_issued_beside_the_pair_and_revoked_alone(served: httpx.Client) -> None:
    pair = new_fight(served, "named")
    first = served.post("/fights/named/tokens/alice", headers=pair.gm)
    assert first.status_code == 201, first.text
    second = served.post("/fights/named/tokens/bob", json={"role": "viewer"}, headers=pair.gm)
    alice, bob = first.json(), second.json()
    assert (alice["name"], alice["role"], bob["name"]) == ("alice", "viewer", "bob")
    assert alice["token"] != bob["token"]
    datetime.fromisoformat(alice["issued"])  # an RFC 3339 time
    assert reads(served, "named", alice["token"]) == reads(served, "named", bob["token"]) == 200

    listed = served.get("/fights/named/tokens", headers=pair.gm)
    assert listed.status_code == 200
    assert [(t["name"], t["role"]) for t in listed.json()] == [
        ("gm", "gm"), ("viewer", "viewer"), ("alice", "viewer"), ("bob", "viewer"),
    ]  # fmt: skip
    assert alice["token"] not in listed.text and "token" not in listed.json()[0]

    assert served.delete("/fights/named/tokens/alice", headers=pair.gm).status_code == 204
    assert reads(served, "named", alice["token"]) == 401
    assert reads(served, "named", bob["token"]) == 200
    assert served.get("/fights/named/state", headers=pair.viewer).status_code == 200
    again = served.delete("/fights/named/tokens/alice", headers=pair.gm)
    assert again.status_code == 404
    assert "`bob` (viewer)" in again.json()["message"]


def test_a_name_the_fight_holds_is_refused_and_the_token_kept(served: httpx.Client) -> None:
    pair = new_fight(served, "taken")
    kept = served.post("/fights/taken/tokens/table", headers=pair.gm).json()["token"]
    twice = served.post("/fights/taken/tokens/table", headers=pair.gm)
    assert twice.status_code == 409
    assert "already has a token named `table`" in twice.json()["message"]
    assert served.post("/fights/taken/tokens/viewer", headers=pair.gm).status_code == 409
    assert reads(served, "taken", kept) == 200


def test_a_gm_token_hands_out_viewer_tokens_only(served: httpx.Client) -> None:
    pair = new_fight(served, "roles")
    refused = served.post("/fights/roles/tokens/gm2", json={"role": "gm"}, headers=pair.gm)
    assert refused.status_code == 403
    assert "a gm token cannot issue a gm token" in refused.json()["message"]
    assert served.delete("/fights/roles/tokens/gm", headers=pair.gm).status_code == 403
    made = served.post("/fights/roles/tokens/gm2", json={"role": "gm"}, headers=bearer(ADMIN))
    assert made.status_code == 201
    gm2 = bearer(made.json()["token"])
    wrote = served.post(
        "/fights/roles/events", json={"type": "hit", "target": "grim", "damage": 1}, headers=gm2
    )
    assert wrote.status_code == 200
    assert served.delete("/fights/roles/tokens/gm2", headers=bearer(ADMIN)).status_code == 204
    assert served.get("/fights/roles/state", headers=gm2).status_code == 401


def test_a_viewer_token_neither_lists_nor_hands_out(served: httpx.Client) -> None:
    pair = new_fight(served, "viewers")
    assert served.get("/fights/viewers/tokens", headers=pair.viewer).status_code == 403
    assert served.post("/fights/viewers/tokens/x", headers=pair.viewer).status_code == 403
    other = new_fight(served, "others")
    assert served.post("/fights/viewers/tokens/x", headers=other.gm).status_code == 403


def test_reissuing_the_pair_keeps_the_named_tokens(served: httpx.Client) -> None:
    pair = new_fight(served, "reissued")
    named = served.post("/fights/reissued/tokens/phone", headers=pair.gm).json()["token"]
    reissued = served.post("/fights/reissued/tokens", headers=bearer(ADMIN))
    assert reissued.status_code == 200
    assert served.get("/fights/reissued/state", headers=pair.viewer).status_code == 401
    assert reads(served, "reissued", named) == 200
    assert served.delete("/fights/reissued/tokens", headers=bearer(ADMIN)).status_code == 204
    assert reads(served, "reissued", named) == 401


def test_a_bad_token_name_is_refused(served: httpx.Client) -> None:
    pair = new_fight(served, "badname")
    refused = served.post("/fights/badname/tokens/-x", headers=pair.gm)
    assert refused.status_code in (400, 422)
    unknown_field = served.post("/fights/badname/tokens/x", json={"rol": "gm"}, headers=pair.gm)
    assert unknown_field.status_code in (400, 422)


OLD_SCHEMA = """
CREATE TABLE service_tokens (hash TEXT PRIMARY KEY, fight TEXT NOT NULL, role TEXT NOT NULL);
"""


def test_a_database_from_before_named_tokens_keeps_its_pair(tmp_path: Path) -> None:
    """A database whose tokens table has no names: opening it adds the columns, its pair keeps
    working under the names `gm` and `viewer`, and named tokens go beside it."""
    db = tmp_path / "old.db"
    with Server(db) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        pair = new_fight(client, "old")
    with sqlite3.connect(db) as old:  # back to the table of before: the same rows, no names
        rows = old.execute("SELECT hash, fight, role FROM service_tokens").fetchall()
        old.execute("DROP TABLE service_tokens")
        old.executescript(OLD_SCHEMA)
        old.executemany("INSERT INTO service_tokens VALUES (?, ?, ?)", rows)
    with Server(db) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get("/fights/old/state", headers=pair.viewer).status_code == 200
        listed = client.get("/fights/old/tokens", headers=pair.gm).json()
        assert [(t["name"], t["issued"]) for t in listed] == [("gm", None), ("viewer", None)]
        assert client.post("/fights/old/tokens/viewer", headers=pair.gm).status_code == 409
        assert client.post("/fights/old/tokens/new", headers=pair.gm).status_code == 201


def test_one_name_asked_of_two_postgresql_processes_at_once_is_one_token_and_one_409(
    postgres_url: str, tmp_path: Path
) -> None:
    """Both requests read the name as free before either writes it: the unique name decides,
    and the one that loses is told the name is taken, never a server error."""
    with (
        Server(postgres_url, logs=tmp_path) as one,
        Server(postgres_url, logs=tmp_path) as other,
        httpx.Client(base_url=one.url, timeout=30) as a,
        httpx.Client(base_url=other.url, timeout=30) as b,
    ):
        pair = new_fight(a, "raced-names")
        for round_ in range(10):
            together = threading.Barrier(2)
            answers: dict[int, httpx.Response] = {}

            def ask(
                index: int,
                client: httpx.Client,
                name: str = f"table-{round_}",
                together: threading.Barrier = together,
                answers: dict[int, httpx.Response] = answers,
            ) -> None:
                together.wait()
                answers[index] = client.post(f"/fights/raced-names/tokens/{name}", headers=pair.gm)

            racers = [threading.Thread(target=ask, args=pair_) for pair_ in enumerate((a, b))]
            for racer in racers:
                racer.start()
            for racer in racers:
                racer.join(60)
            assert sorted(answer.status_code for answer in answers.values()) == [201, 409]
            won = next(answer for answer in answers.values() if answer.status_code == 201)
            assert reads(b, "raced-names", won.json()["token"]) == 200
        listed = a.get("/fights/raced-names/tokens", headers=pair.gm).json()
        assert sorted(t["name"] for t in listed) == sorted(
            ["gm", "viewer", *(f"table-{n}" for n in range(10))]
        )

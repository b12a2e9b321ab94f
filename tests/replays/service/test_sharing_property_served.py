"""Sharing across fights and campaigns named alike, against a real `woundlog serve` (issue 39):
the application-level property (`tests/replays/test_sharing_property.py`) over HTTP, for a few
examples, each under its own prefix.

Fights `f1`, `f10`, `f1-x` and `F1` are made with Idempotency-Keys alike (`k1`, `k10`, `k1-x`,
`K1`), and a campaign `f1`; tokens are handed out and revoked by names alike, in any order.
Promised (README "The HTTP service and its pages", "Tokens"): a retry with its key gets its
own first answer, tokens and all, never another key's; a token reads its own fight or campaign
(200), not another's (403); a revoked one reads nothing (401), while the same name in another
fight still reads its own.

Defects this catches (each checked by breaking the code, then restoring it):
- a kept answer found by a key's first characters (`Answers._row` hashing a prefix of the key);
- a token that opens a fight whose id begins with its fight's (`Grant.covers` comparing
  prefixes)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .server import ADMIN, Server, bearer

FIGHTS = {"f1": "k1", "f10": "k10", "f1-x": "k1-x", "F1": "K1"}
NAMES = ["viewer-2", "viewer-20", "Viewer-2", "v"]
_prefix = itertools.count(1)


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        yield http


def create(client: httpx.Client, fight: str, key: str) -> httpx.Response:
    return client.post(
        "/fights",
        json={"fight": fight, "ruleset": "mordheim"},
        headers={**bearer(ADMIN), "Idempotency-Key": key},
    )


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    done=st.lists(
        st.tuples(st.sampled_from(sorted(FIGHTS)), st.sampled_from(NAMES), st.booleans()),
        min_size=1,
        max_size=8,
    )
)
def test_over_http_a_token_reads_its_own_fight_alone_and_a_key_gets_its_own_answer(
    client: httpx.Client, done: list[tuple[str, str, bool]]
) -> None:
    p = f"e{next(_prefix)}"
    first: dict[str, dict[str, str]] = {}
    for fight, key in FIGHTS.items():
        made = create(client, p + fight, p + key)
        assert made.status_code == 201, made.text
        first[p + fight] = made.json()
    for fight, key in FIGHTS.items():  # each retry: its own first answer
        again = create(client, p + fight, p + key)
        assert again.status_code == 201 and again.json() == first[p + fight], fight
    campaign = client.post(
        "/campaigns", json={"campaign": p + "f1", "ruleset": "mordheim"}, headers=bearer(ADMIN)
    )
    assert campaign.status_code == 201, campaign.text

    held: dict[tuple[str, str], str] = {}
    for fight, answer in first.items():
        held[fight, "gm"] = answer["gm_token"]
        held[fight, "viewer"] = answer["viewer_token"]
    revoked: list[str] = []
    for fight, name, add in done:
        fight = p + fight
        gm = bearer(first[fight]["gm_token"])
        if add and (fight, name) not in held:
            issued = client.post(f"/fights/{fight}/tokens/{name}", headers=gm)
            assert issued.status_code == 201, issued.text
            held[fight, name] = issued.json()["token"]
        elif not add and (fight, name) in held:
            assert client.delete(f"/fights/{fight}/tokens/{name}", headers=gm).status_code == 204
            revoked.append(held.pop((fight, name)))

    for (fight, name), token in held.items():
        for other in first:
            got = client.get(f"/fights/{other}/state", headers=bearer(token)).status_code
            assert got == (200 if other == fight else 403), (fight, name, other)
        record = client.get(f"/campaigns/{p}f1/record", headers=bearer(token))
        assert record.status_code == 403, (fight, name)
    for token in revoked:
        assert client.get(f"/fights/{p}f1/state", headers=bearer(token)).status_code == 401
    ours = bearer(campaign.json()["viewer_token"])
    assert client.get(f"/campaigns/{p}f1/record", headers=ours).status_code == 200
    assert client.get(f"/fights/{p}f1/state", headers=ours).status_code == 403

"""`GET /fights/{fight}/odds` and `POST /fights/{fight}/branch` (issue 17), on a real server."""

from __future__ import annotations

import json
from typing import Any

import httpx

from .conftest import new_fight
from .server import ADMIN, Server, bearer

HAND_DERIVED = {"out_of_action": "5/9", "stunned": "1/3", "knocked_down": "1/9"}
"""A 2-wound hit on a 1-wound Mordheim fighter: two injury dice, the worse counts."""


def states(answer: dict[str, Any], who: str) -> dict[str, str]:
    return {s["state"]: s["chance"] for s in answer["characters"][who]["states"]}


def test_the_odds_of_a_hit_in_the_query_are_the_hand_derived_fractions(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "odds-1")
        answer = client.get(
            "/fights/odds-1/odds",
            params={"hit": "snikkit:2", "character": "snikkit"},
            headers=fight.viewer,
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["exact"] is True
        assert list(answer.json()["characters"]) == ["snikkit"]
        assert states(answer.json(), "snikkit") == HAND_DERIVED


def test_the_same_what_if_as_events_in_a_json_body_or_the_query_answers_the_same(
    server: Server,
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "odds-2")
        whatif = [{"type": "hit", "target": "snikkit", "damage": 2}]
        in_body = client.request(
            "GET", "/fights/odds-2/odds", json={"events": whatif}, headers=fight.viewer
        )
        in_query = client.get(
            "/fights/odds-2/odds", params={"events": json.dumps(whatif)}, headers=fight.viewer
        )
        assert in_body.status_code == in_query.status_code == 200, in_body.text
        assert in_body.json() == in_query.json()
        assert states(in_body.json(), "snikkit") == HAND_DERIVED


def test_odds_at_an_earlier_event_and_estimated_from_samples(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "odds-3")
        client.post(
            "/fights/odds-3/events",
            json={"type": "hit", "target": "grim", "damage": 2},
            headers=fight.gm,
        )
        back = client.get(
            "/fights/odds-3/odds", params={"hit": "grim:4", "at": 3}, headers=fight.viewer
        ).json()
        now = client.get("/fights/odds-3/odds", params={"hit": "grim:4"}, headers=fight.viewer)
        assert states(back, "grim") == HAND_DERIVED  # 3 wounds, a 4-wound hit: as 2 on 1
        assert states(now.json(), "grim") != HAND_DERIVED  # grim has 1 wound left now
        drawn = client.get(
            "/fights/odds-3/odds",
            params={"hit": "snikkit:1", "samples": 600},
            headers=fight.viewer,
        ).json()
        assert drawn["exact"] is False and drawn["samples"] == 600
        for each in drawn["characters"]["snikkit"]["states"]:
            assert each["low"] <= 100 / 3 <= each["high"]  # 1/3 each, within the 95% interval


def test_a_question_too_large_is_422_with_the_way_out_not_a_500(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=60) as client:
        fight = new_fight(client, "odds-4")
        too_many_dice = client.get(
            "/fights/odds-4/odds", params={"hit": "snikkit:8"}, headers=fight.viewer
        )
        assert too_many_dice.status_code == 422, too_many_dice.text
        assert "estimate it with samples=N" in too_many_dice.json()["message"]
        too_many_samples = client.get(
            "/fights/odds-4/odds",
            params={"hit": "snikkit:1", "samples": 10**9},
            headers=fight.viewer,
        )
        assert too_many_samples.status_code == 422, too_many_samples.text
        assert "at most 25,000 samples" in too_many_samples.json()["message"]
        nothing = client.get("/fights/odds-4/odds", headers=fight.viewer)
        assert nothing.status_code == 422
        assert "say what happens" in nothing.json()["message"]
        both = client.request(
            "GET",
            "/fights/odds-4/odds",
            params={"ticks": 1},
            json={"hit": ["grim:1"]},
            headers=fight.viewer,
        )
        assert both.status_code == 422
        assert "in the body and in the query (ticks)" in both.json()["message"]
        unknown = client.get(
            "/fights/odds-4/odds", params={"character": "nobody", "hit": "grim:1"},
            headers=fight.viewer,
        )  # fmt: skip
        assert unknown.status_code == 422, unknown.text
        assert "no character `nobody`" in unknown.json()["message"]


def test_a_branch_is_a_new_fight_with_its_own_tokens_and_the_original_is_untouched(
    server: Server,
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "trunk-1")
        asked = {"as": "twig-1", "at": 3, "then": [{"type": "hit", "target": "grim", "damage": 3}]}
        refused = client.post("/fights/trunk-1/branch", json=asked, headers=fight.viewer)
        assert refused.status_code == 403
        made = client.post("/fights/trunk-1/branch", json=asked, headers=fight.gm)
        assert made.status_code == 201, made.text
        twig = made.json()
        assert twig["fight"] == "twig-1" and twig["version"] == 4
        state = client.get("/fights/twig-1/state", headers=bearer(twig["viewer_token"])).json()
        assert state["characters"]["grim"]["state"] != "upright"
        original = client.get("/fights/trunk-1/state", headers=fight.viewer).json()
        assert original["seq"] == 3 and original["characters"]["grim"]["state"] == "upright"
        assert (
            client.get("/fights/trunk-1/state", headers=bearer(twig["gm_token"])).status_code == 403
        )


def test_a_branch_retried_by_the_admin_gets_a_new_pair_and_another_log_of_its_name_is_409(
    server: Server,
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "trunk-2")
        asked = {"as": "twig-2", "then": [{"type": "hit", "target": "grim", "damage": 1}]}
        first = client.post("/fights/trunk-2/branch", json=asked, headers=fight.gm)
        again = client.post("/fights/trunk-2/branch", json=asked, headers=bearer(ADMIN))
        assert (first.status_code, again.status_code) == (201, 200), again.text
        assert again.json()["version"] == first.json()["version"] == 4
        old = bearer(first.json()["viewer_token"])
        assert client.get("/fights/twig-2/state", headers=old).status_code == 401
        new = bearer(again.json()["viewer_token"])
        assert client.get("/fights/twig-2/state", headers=new).status_code == 200
        other = {"as": "twig-2", "then": [{"type": "hit", "target": "grim", "damage": 2}]}
        clash = client.post("/fights/trunk-2/branch", json=other, headers=bearer(ADMIN))
        assert clash.status_code == 409, clash.text
        assert "is not this branch" in clash.json()["message"]
        refused = {"as": "twig-3", "then": [{"type": "hit", "target": "nobody", "damage": 1}]}
        bad = client.post("/fights/trunk-2/branch", json=refused, headers=fight.gm)
        assert bad.status_code == 422
        assert client.get("/fights/twig-3/state", headers=fight.gm).status_code in (401, 403, 404)


def test_a_gm_cannot_branch_onto_an_existing_fight_and_its_tokens_stay_as_they_were(
    server: Server,
) -> None:
    """Issue 24: A's gm branching `as` C, a fight the admin gave to another group with the very
    log the branch would write, is 409; C keeps its tokens (before: 200, C re-tokened)."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "trunk-4")
        asked = {"as": "given-4", "then": [{"type": "hit", "target": "grim", "damage": 1}]}
        given = client.post("/fights/trunk-4/branch", json=asked, headers=bearer(ADMIN))
        assert given.status_code == 201, given.text
        theirs = bearer(given.json()["gm_token"])
        for body in (asked, {"as": "given-4"}):
            taken = client.post("/fights/trunk-4/branch", json=body, headers=fight.gm)
            assert taken.status_code == 409, taken.text
            assert "never replaces or re-tokens" in taken.json()["message"]
            assert "gm_token" not in taken.json()
        assert client.get("/fights/given-4/state", headers=theirs).status_code == 200
        assert client.get("/fights/given-4/events", headers=theirs).json()["version"] == 4

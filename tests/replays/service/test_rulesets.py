"""`GET /rulesets` (issue 36): each ruleset's declarations, public, bounded and documented, the
one place pages and bridges learn a game's pools, kinds, sides and what a page shows."""

from __future__ import annotations

import httpx
import msgspec

from woundlog.core import RULESETS
from woundlog.core.summary import RulesetSummary, summarize


def test_every_ruleset_is_served_without_a_token_in_the_registrys_order(
    client: httpx.Client,
) -> None:
    answer = client.get("/rulesets")
    assert answer.status_code == 200, answer.text
    served = msgspec.convert(answer.json(), list[RulesetSummary])
    assert [summary.name for summary in served] == list(RULESETS)
    assert served == [summarize(rules) for rules in RULESETS.values()]


def test_one_ruleset_says_its_pools_kinds_sides_page_and_who_may_act(
    client: httpx.Client,
) -> None:
    dnd5e = client.get("/rulesets/dnd5e").json()
    assert dnd5e["states"] == ["upright", "downed", "stabilised", "dead"]
    assert dnd5e["kinds"] == ["pc", "monster"]
    page = dnd5e["presentation"]
    assert (page["pools"], page["gm_kinds"]) == (["hp"], ["monster"])
    assert page["sides"] == {"players": "players", "gm": "monsters"}
    assert page["pips"] == {
        "name": "death saves",
        "state": "downed",
        "out_of": 3,
        "counters": {"successes": "passed", "failures": "failed"},
    }
    assert dnd5e["who_may_act"]["upright"] == {"attack": True, "heal": True, "why": ""}
    assert dnd5e["who_may_act"]["downed"]["attack"] is False
    quest = client.get("/rulesets/warhammer_quest").json()
    assert quest["presentation"]["pools"] == ["wounds"]
    assert quest["presentation"]["sides"] == {"players": "warriors", "gm": "monsters"}
    assert quest["importing"]["stat"] == "wounds"
    assert client.get("/rulesets/dragonquest").json()["importing"] is None


def test_an_unknown_ruleset_is_404_naming_the_known_ones_and_a_bad_name_422(
    client: httpx.Client,
) -> None:
    missing = client.get("/rulesets/chess")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    assert "known: mordheim, warhammer_quest" in missing.json()["message"]
    for bad in ("x" * 65, "Dnd5e", "a%20b"):
        refused = client.get(f"/rulesets/{bad}")
        assert refused.status_code == 422, (bad, refused.text)


def test_the_routes_are_in_the_openapi_document_public_and_bounded(client: httpx.Client) -> None:
    document = client.get("/schema/openapi.json").json()
    listing = document["paths"]["/rulesets"]["get"]
    one = document["paths"]["/rulesets/{name}"]["get"]
    assert "security" not in listing and "security" not in one
    assert {"404", "422"} <= set(one["responses"])
    (name,) = one["parameters"]
    assert name["schema"]["maxLength"] == 64 and name["schema"]["pattern"]

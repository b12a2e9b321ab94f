"""Issue 40: what players must not see never leaves the server. A real `woundlog serve`, a dnd5e
fight with goblins of known hit points (numbers no other figure of the fight takes), and a viewer
token reading every route a viewer token can read, found from the service's route table: no
body holds a goblin's current or maximum hit points under `hidden` or `bands`, while the gm
token reads them whole, and under `shown` the viewer reads them too. A viewer-readable route
missing from `READS` fails the test, so a new one is covered the day it is added."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from litestar.routes import HTTPRoute

from woundlog.replays.service.app import create_app

from .server import ADMIN, Server, bearer

FIGHT = "ambush"
CAMPAIGN = "trail"
GOBLINS = {"gob1": 7919, "gob2": 6827}
"""The goblins' maximum hit points: numbers nothing else in the fight is."""
SETTINGS = ("hidden", "bands", "shown")
BANDS = ("Healthy", "Hurt", "Bloodied", "Defeated")

EVENTS: list[dict[str, Any]] = [
    {"type": "character_joined", "id": "j1", "character": "tordek", "name": "Tordek",
     "side": "party", "kind": "pc", "stats": {"hp": 28}},
    {"type": "character_joined", "id": "j2", "character": "mirabel", "name": "Mirabel",
     "side": "party", "kind": "pc", "stats": {"hp": 18}},
    *[{"type": "character_joined", "id": f"j-{gob}", "character": gob, "name": f"Goblin {n}",
       "side": "goblins", "kind": "monster", "stats": {"hp": hp}, "note": f"{hp} hit points"}
      for n, (gob, hp) in enumerate(GOBLINS.items(), 1)],
    {"type": "hit", "id": "h1", "target": "gob1", "damage": 1234, "attacker": "tordek"},
    {"type": "hit", "id": "h2", "target": "gob1", "damage": 3000, "attacker": "mirabel"},
    {"type": "heal", "id": "h3", "target": "gob1", "amount": 11, "means": "potion"},
    {"type": "hit", "id": "h4", "target": "mirabel", "damage": 5, "attacker": "gob2"},
    {"type": "turn_started", "id": "t1", "round": 1},
    {"type": "hit", "id": "h5", "target": "gob2", "damage": 4000, "attacker": "tordek"},
    {"type": "amend", "id": "a1", "event": "h5", "reason": "it was less",
     "replacement": {"type": "hit", "target": "gob2", "damage": 3500, "attacker": "tordek"}},
    {"type": "retract", "id": "r1", "event": "h2", "reason": "missed"},
    {"type": "hit", "id": "h6", "target": "gob2", "damage": 0, "attacker": "tordek"},
    {"type": "hit", "id": "h7", "target": "gob1", "damage": 9000, "attacker": "mirabel"},
    {"type": "turn_ended", "id": "t2", "round": 1},
]  # fmt: skip


HEAL_GOB2 = '[{"type": "heal", "target": "gob2", "amount": 1, "means": "potion"}]'
Read = Callable[[httpx.Client, dict[str, str]], list[str]]
"""A route read with a token: the bodies it answered."""


def body(response: httpx.Response) -> str:
    assert response.status_code in (200, 403), response.text
    return response.text


def stream(
    client: httpx.Client, headers: dict[str, str], path: str, count: int, ticket: str = ""
) -> str:
    """The stream from the first event, read till `count` changes have come."""
    got, seen = [], 0
    params = {"from": 1, **({"ticket": ticket} if ticket else {})}
    with client.stream("GET", path, params=params, headers=headers) as live:
        assert live.status_code == 200
        for line in live.iter_lines():
            got.append(line)
            seen += line.startswith("event: changes")
            if seen == count:
                break
    return "\n".join(got)


def ticketed(client: httpx.Client, headers: dict[str, str]) -> list[str]:
    answer = client.post(f"/fights/{FIGHT}/stream-ticket", headers=headers)
    ticket = answer.json()["ticket"]
    path = f"/fights/{FIGHT}/stream"
    return [answer.text, stream(client, {}, path, len(EVENTS) + 1, ticket)]


def get(path: str, **params: Any) -> Read:
    return lambda client, headers: [body(client.get(path, params=params, headers=headers))]


READS: dict[str, Read] = {
    "GET /fights": get("/fights"),
    "GET /fights/{fight}/state": lambda client, headers: (
        [
            body(client.get(f"/fights/{FIGHT}/state", params={"at": at}, headers=headers))
            for at in range(1, len(EVENTS) + 2)
        ]
        + [body(client.get(f"/fights/{FIGHT}/state", headers=headers))]
    ),
    "GET /fights/{fight}/events": get(f"/fights/{FIGHT}/events"),
    "GET /fights/{fight}/timeline": get(f"/fights/{FIGHT}/timeline"),
    "GET /fights/{fight}/report": get(f"/fights/{FIGHT}/report"),
    "GET /fights/{fight}/report/fragment": get(f"/fights/{FIGHT}/report/fragment"),
    "GET /fights/{fight}/odds": lambda client, headers: [
        body(client.get(f"/fights/{FIGHT}/odds", params=asked, headers=headers))
        for asked in ({"hit": "gob1:3"}, {"events": HEAL_GOB2}, {"hit": "mirabel:3", "ticks": 1})
    ],
    "GET /fights/{fight}/players-view": get(f"/fights/{FIGHT}/players-view"),
    "GET /fights/{fight}/stream": lambda client, headers: [
        stream(client, headers, f"/fights/{FIGHT}/stream", len(EVENTS) + 1)
    ],
    "POST /fights/{fight}/stream-ticket": ticketed,
    "GET /campaigns/{campaign}/record": get(f"/campaigns/{CAMPAIGN}/record"),
    "GET /campaigns/{campaign}/history": get(f"/campaigns/{CAMPAIGN}/history"),
    "GET /campaigns/{campaign}/consequences": get(
        f"/campaigns/{CAMPAIGN}/consequences", since=f"{FIGHT}:4"
    ),
    "GET /campaigns/{campaign}/report": get(f"/campaigns/{CAMPAIGN}/report"),
}
"""Every route a viewer token can read, and how this test reads it."""


def viewer_readable() -> list[str]:
    """Every route of the service a viewer token may call, from its route table."""
    app = create_app("sqlite:///:memory:", ADMIN)
    found = set()
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        path = re.sub(r"\{(\w+):[^}]*\}", r"{\1}", route.path)
        for handler in route.route_handlers:
            if handler.opt.get("role") == "viewer":
                found |= {f"{method} {path}" for method in handler.http_methods}
    return sorted(found)


def test_every_route_a_viewer_token_can_read_is_read_by_this_test() -> None:
    assert sorted(READS) == viewer_readable()


class World:
    def __init__(self, url: str) -> None:
        self.url = url
        with httpx.Client(base_url=url, timeout=30) as client:
            made = client.post(
                "/fights",
                json={"fight": FIGHT, "ruleset": "dnd5e", "seed": 3},
                headers=bearer(ADMIN),
            )
            assert made.status_code == 201, made.text
            self.gm = bearer(made.json()["gm_token"])
            self.viewer = bearer(made.json()["viewer_token"])
            appended = client.post(f"/fights/{FIGHT}/events", json=EVENTS, headers=self.gm)
            assert appended.status_code == 200, appended.text
            started = client.post(
                "/campaigns",
                json={"campaign": CAMPAIGN, "ruleset": "dnd5e"},
                headers=bearer(ADMIN),
            )
            assert started.status_code == 201, started.text
            campaign_gm = bearer(started.json()["gm_token"])
            self.campaign_viewer = bearer(started.json()["viewer_token"])
            members = [("tordek", "pc", 28), ("mirabel", "pc", 18), ("gob1", "monster", 7919)]
            for member, kind, hp in members:  # a goblin who outlives fights: the GM's too
                joined = client.post(
                    f"/campaigns/{CAMPAIGN}/members",
                    json={"member": member, "kind": kind, "stats": {"hp": hp}},
                    headers=campaign_gm,
                )
                assert joined.status_code == 200, joined.text
            played = client.post(
                f"/campaigns/{CAMPAIGN}/fights",
                json={"fight": FIGHT},
                headers={**campaign_gm, "Woundlog-Fight-Token": made.json()["viewer_token"]},
            )
            assert played.status_code == 200, played.text
            self.numbers = self._goblins_numbers(client)

    def _goblins_numbers(self, client: httpx.Client) -> set[int]:
        """Every hit point figure a goblin had, as the gm token reads the fight at each event."""
        found = set(GOBLINS.values())
        for at in range(1, len(EVENTS) + 2):
            state = client.get(f"/fights/{FIGHT}/state", params={"at": at}, headers=self.gm)
            for gob in GOBLINS:
                character = state.json()["characters"].get(gob)
                if character is not None:
                    found.add(character["hp"])
        return found - {0}  # 0, Defeated, is no secret (and every count starts there)

    def read_all(self, headers: dict[str, str], campaign: dict[str, str]) -> dict[str, str]:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            return {
                route: "\n".join(read(client, campaign if "campaign}" in route else headers))
                for route, read in READS.items()
            }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with Server(tmp_path_factory.mktemp("players-view") / "fights.db") as server:
        yield World(server.url)


def told(numbers: set[int], text: str) -> set[int]:
    """The numbers of `numbers` that `text` holds as a whole number."""
    return {n for n in numbers if re.search(rf"(?<![\d.]){n}(?![\d.])", text)}


def set_view(world: World, monsters: str) -> None:
    with httpx.Client(base_url=world.url, timeout=30) as client:
        answer = client.put(
            f"/fights/{FIGHT}/players-view", json={"monsters": monsters}, headers=world.gm
        )
        assert answer.json() == {"fight": FIGHT, "monsters": monsters}, answer.text


@pytest.mark.parametrize("monsters", ["hidden", "bands"])
def test_a_viewer_reads_no_goblins_hit_points_in_any_route_while_the_gm_reads_them(
    world: World, monsters: str
) -> None:
    set_view(world, monsters)
    assert len(world.numbers) > 4  # the maximums and the hits between
    seen = world.read_all(world.viewer, world.campaign_viewer)
    leaks = {route: told(world.numbers, text) for route, text in seen.items()}
    assert {route: found for route, found in leaks.items() if found} == {}
    gm = world.read_all(world.gm, world.campaign_viewer)
    for route in (
        "GET /fights/{fight}/state",
        "GET /fights/{fight}/events",
        "GET /fights/{fight}/timeline",
        "GET /fights/{fight}/stream",
        "POST /fights/{fight}/stream-ticket",
    ):  # fmt: skip  (a gm's ticket: whole)
        assert told(world.numbers, gm[route]), route
    worded = [word for word in BANDS if word in seen["GET /fights/{fight}/state"]]
    assert worded == ([] if monsters == "hidden" else list(BANDS))
    assert '"gob1"' in seen["GET /fights/{fight}/state"]  # the goblin is there, its numbers not
    assert seen["GET /fights/{fight}/odds"].count('"status":403') == 2  # aimed at a goblin
    assert '"mirabel"' in seen["GET /fights/{fight}/odds"]  # the rest answered, goblins left out


def test_a_viewer_reads_the_goblins_hit_points_when_the_gm_shows_them(world: World) -> None:
    set_view(world, "shown")
    seen = world.read_all(world.viewer, world.campaign_viewer)
    for route in ("GET /fights/{fight}/state", "GET /fights/{fight}/events",
                  "GET /fights/{fight}/timeline", "GET /fights/{fight}/stream",
                  "GET /fights/{fight}/report"):  # fmt: skip
        assert told(world.numbers, seen[route]), route
    assert not any(word in seen["GET /fights/{fight}/state"] for word in BANDS)
    set_view(world, "bands")  # the default, as the other tests expect


def test_the_players_view_is_bands_till_the_gm_says_otherwise_and_only_the_gm_sets_it(
    world: World,
) -> None:
    with httpx.Client(base_url=world.url, timeout=30) as client:
        made = client.post(
            "/fights", json={"fight": "fresh", "ruleset": "dnd5e"}, headers=bearer(ADMIN)
        )
        viewer = bearer(made.json()["viewer_token"])
        read = client.get("/fights/fresh/players-view", headers=viewer)
        assert read.json() == {"fight": "fresh", "monsters": "bands"}
        refused = client.put(
            "/fights/fresh/players-view", json={"monsters": "shown"}, headers=viewer
        )
        assert refused.status_code == 403
        wrong = client.put(
            "/fights/fresh/players-view",
            json={"monsters": "numbers"},
            headers=bearer(made.json()["gm_token"]),
        )
        assert wrong.status_code == 422


def test_a_campaigns_gm_hands_out_viewer_tokens_of_its_page_and_only_the_admin_gm_ones(
    world: World,
) -> None:
    with httpx.Client(base_url=world.url, timeout=30) as client:
        started = client.post(
            "/campaigns", json={"campaign": "road", "ruleset": "dnd5e"}, headers=bearer(ADMIN)
        )
        gm = bearer(started.json()["gm_token"])
        issued = client.post("/campaigns/road/tokens/phones", headers=gm)
        assert issued.status_code == 201, issued.text
        assert (issued.json()["name"], issued.json()["role"]) == ("phones", "viewer")
        phones = bearer(issued.json()["token"])
        assert client.get("/campaigns/road/record", headers=phones).status_code == 200
        assert client.post("/campaigns/road/tokens/more", headers=phones).status_code == 403
        again = client.post("/campaigns/road/tokens/phones", headers=gm)
        assert again.status_code == 409
        as_gm = client.post("/campaigns/road/tokens/co-gm", json={"role": "gm"}, headers=gm)
        assert as_gm.status_code == 403
        admin = client.post(
            "/campaigns/road/tokens/co-gm", json={"role": "gm"}, headers=bearer(ADMIN)
        )
        assert admin.status_code == 201 and admin.json()["role"] == "gm"


def test_a_monster_whose_joining_was_undone_keeps_its_numbers_from_a_viewer(
    world: World,
) -> None:
    with httpx.Client(base_url=world.url, timeout=30) as client:
        made = client.post(
            "/fights", json={"fight": "undone", "ruleset": "dnd5e"}, headers=bearer(ADMIN)
        )
        gm, viewer = bearer(made.json()["gm_token"]), bearer(made.json()["viewer_token"])
        events = [
            {"type": "character_joined", "id": "j", "character": "ogre", "kind": "monster",
             "stats": {"hp": 5903}},
            {"type": "hit", "id": "h", "target": "ogre", "damage": 4441},
            {"type": "retract", "event": "j", "reason": "not in this fight"},
        ]  # fmt: skip
        assert client.post("/fights/undone/events", json=events, headers=gm).status_code == 200
        for route in ("events", "timeline", "state?at=2"):
            seen = client.get(f"/fights/undone/{route}", headers=viewer).text
            assert told({5903, 5903 - 4441, 4441}, seen) == set(), route
        whole = client.get("/fights/undone/events", headers=gm).text
        assert told({5903, 4441}, whole) == {5903, 4441}

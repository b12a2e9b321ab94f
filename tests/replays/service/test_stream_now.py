"""A follower updates itself from the stream alone (issue 42): each event's `now` message,
applied to the state before it as the pages apply it (replays/web/live.js), gives what
`GET /state` answers at that event, for the GM's token and for a viewer's (the monsters'
numbers redacted), through hits, heals, turns, a join, and undos (retract, amend, a joining
retracted and given back)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from .server import ADMIN, Server, bearer

ROADSIDE = Path(__file__).parents[2] / "pages" / "data" / "roadside.jsonl"
BOSS = "Scene.sceneMain0000001.Token.tkGoblinBoss0000001"
GOBLIN = "Scene.sceneMain0000001.Token.tkGoblin00000001"


def applied(state: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """live.js's `applied`, line for line: the state after `now`'s event."""
    order = now.get("order") or list(state["characters"])
    characters = {}
    for cid in order:
        character = (
            now["characters"][cid] if cid in now["characters"] else state["characters"].get(cid)
        )
        if character is not None:
            characters[cid] = character
    after = {**state, "characters": characters}
    for key, value in now["fight"].items():
        if value is None:
            after.pop(key, None)
        else:
            after[key] = value
    return after


def both(response: httpx.Response, until: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each event's (`now`, `changes`) messages, up to the event `until`."""
    got: list[tuple[dict[str, Any], dict[str, Any]]] = []
    fields: dict[str, str] = {}
    now: dict[str, Any] = {}
    for line in response.iter_lines():
        if line == "":
            if fields.get("event") == "now":
                assert "id" not in fields  # a reconnect after it sends it again
                now = json.loads(fields["data"])
            elif fields.get("event") == "changes":
                got.append((now, json.loads(fields["data"])))
                assert now["seq"] == int(fields["id"])
                if int(fields["id"]) >= until:
                    return got
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
    return got


def made(client: httpx.Client) -> tuple[str, str, int]:
    lines = [json.loads(line) for line in ROADSIDE.read_text().splitlines() if line.strip()]
    started = {k: lines[0][k] for k in ("ruleset", "seed", "name")}
    created = client.post("/fights", json={"fight": "live", **started}, headers=bearer(ADMIN))
    assert created.status_code == 201, created.text
    gm, viewer = created.json()["gm_token"], created.json()["viewer_token"]
    later = [
        {"type": "hit", "id": "cut", "target": GOBLIN, "damage": 3, "attacker": "tordek"},
        {"type": "heal", "id": "potion", "target": "mirabel", "amount": 4, "means": "potion"},
        {"type": "retract", "event": "cut", "reason": "missed after all"},
        {"type": "amend", "event": "#7", "reason": "less", "replacement": {
            "type": "hit", "target": BOSS, "damage": 5, "attacker": "tordek"}},
        {"type": "character_joined", "id": "late", "character": "wolf", "name": "Wolf",
         "side": "goblins", "kind": "monster", "stats": {"hp": 11, "ac": 13}},
        {"type": "hit", "id": "bite", "target": "tordek", "damage": 6, "attacker": "wolf"},
        {"type": "retract", "id": "gone", "event": "late", "reason": "not here yet"},
        {"type": "retract", "event": "gone", "reason": "here after all"},
        {"type": "turn_ended", "character": "mirabel"},
    ]  # fmt: skip
    written = client.post("/fights/live/events", json=lines[1:] + later, headers=bearer(gm))
    assert written.status_code == 200, written.text
    return gm, viewer, written.json()["version"]


def test_every_events_now_applied_to_the_state_before_it_is_the_state_at_it(
    server: Server,
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        gm, viewer, version = made(client)
        for token in (gm, viewer):
            state = client.get("/fights/live/state", params={"at": 1}, headers=bearer(token))
            held = state.json()
            with httpx.stream(
                "GET", f"{server.url}/fights/live/stream", params={"from": 2},
                headers=bearer(token), timeout=httpx.Timeout(30, read=15),
            ) as response:  # fmt: skip
                got = both(response, version)
            assert [changes["seq"] for _, changes in got] == list(range(2, version + 1))
            kinds = {now["recorded"]["type"] for now, _ in got}
            assert {"hit", "heal", "retract", "amend", "character_joined"} <= kinds
            for now, _ in got:
                held = applied(held, now)
                fresh = client.get(
                    "/fights/live/state", params={"at": now["seq"]}, headers=bearer(token)
                ).json()
                assert held == fresh, f"at {now['seq']} ({now['recorded']['type']})"
                assert list(held["characters"]) == list(fresh["characters"])  # join order
            shown = json.dumps([now for now, _ in got])
            if token == viewer:  # the goblins' numbers never leave the server
                assert '"hp": 21' not in shown and '"hp":21' not in shown
                assert {now["view"] for now, _ in got[3:]} == {"bands"}
            else:
                assert '"hp":21' in shown.replace(" ", "")
                assert {now["view"] for now, _ in got} == {"whole"}


def test_a_viewers_now_tells_the_event_as_the_viewer_reads_it(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = client.post("/fights", json={"fight": "told", "ruleset": "dnd5e"},
                            headers=bearer(ADMIN)).json()  # fmt: skip
        gm, viewer = bearer(fight["gm_token"]), bearer(fight["viewer_token"])
        joined = {"type": "character_joined", "character": "ogre", "name": "Ogre",
                  "side": "foes", "kind": "monster", "stats": {"hp": 59, "ac": 11}}  # fmt: skip
        blow = {"type": "hit", "target": "ogre", "damage": 20, "note": "a crit: 20 of 59"}
        assert client.post("/fights/told/events", json=[joined, blow], headers=gm).is_success
        with httpx.stream(
            "GET", f"{server.url}/fights/told/stream", params={"from": 2}, headers=viewer,
            timeout=httpx.Timeout(30, read=15),
        ) as response:  # fmt: skip
            got = both(response, 3)
        events = client.get("/fights/told/events", params={"from": 2}, headers=viewer).json()
        assert [now["recorded"] for now, _ in got] == [e["event"] for e in events["events"]]
        assert "59" not in json.dumps(got) and "20" not in json.dumps(got[1][0]["recorded"])


def test_each_events_now_names_what_undo_and_redo_take_back_as_the_timeline_did_then(
    server: Server,
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = client.post("/fights", json={"fight": "targets", "ruleset": "mordheim"},
                            headers=bearer(ADMIN)).json()  # fmt: skip
        gm = bearer(fight["gm_token"])
        steps: list[dict[str, Any]] = [
            {"type": "character_joined", "character": "grim", "side": "a"},
            {"type": "hit", "id": "h1", "target": "grim", "damage": 0},
            {"type": "hit", "id": "h2", "target": "grim", "damage": 0},
            {"type": "retract", "id": "r2", "event": "h2"},
            {"type": "retract", "id": "r1", "event": "h1"},
            {"type": "retract", "event": "r1"},
            {"type": "amend", "event": "h1", "replacement": {
                "type": "hit", "target": "grim", "damage": 0, "note": "again"}},
        ]  # fmt: skip
        said: list[tuple[int | None, int | None]] = []
        for step in steps:
            assert client.post("/fights/targets/events", json=step, headers=gm).is_success
            page = client.get("/fights/targets/timeline", params={"from": 1}, headers=gm).json()
            said.append((page["undo"], page["redo"]))
        with httpx.stream(
            "GET", f"{server.url}/fights/targets/stream", params={"from": 2}, headers=gm,
            timeout=httpx.Timeout(30, read=15),
        ) as response:  # fmt: skip
            got = both(response, 1 + len(steps))
        assert [(now.get("undo"), now.get("redo")) for now, _ in got] == said
        assert said[3] == (3, 5) and said[4] == (2, 6)  # after an undo: the next, and a redo

"""The Owlbear Rodeo extension: node's test runner runs tests/integrations/owlbear/ against a real
`woundlog serve` on loopback, from which the extension installs (its manifest, pages and
scripts, the vendored Owlbear Rodeo SDK among them); and the routes that serve it.

Without node these tests skip on a developer's machine and fail under CI (`$CI` set), which must
have it (`.ci/run` installs it from the system's packages)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integrations.test_foundry_module import NODE_TIMEOUT_S, node
from tests.replays.service.server import ADMIN, Server

NODE_TESTS = Path(__file__).parent / "owlbear"
EXTENSION = files("woundlog.replays") / "integrations" / "owlbear"
OWLBEAR = "https://www.owlbear.rodeo"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("owlbear") / "fights.db") as running:
        yield running


def test_the_extension_works_against_a_real_server(server: Server) -> None:
    program = node()
    env = {**os.environ, "WOUNDLOG_URL": server.url, "WOUNDLOG_ADMIN_TOKEN": ADMIN}
    done = subprocess.run(
        [program, "--test", str(NODE_TESTS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout


def test_the_manifest_names_its_pages_by_the_address_asked_with_woundlogs_version(
    server: Server,
) -> None:
    manifest = httpx.get(f"{server.url}/integrations/owlbear/manifest.json").json()
    root = f"{server.url}/integrations/owlbear"
    assert manifest["version"] == version("woundlog")
    assert manifest["manifest_version"] == 2  # background_url, as Stat Bubbles 1.9.13's
    assert (manifest["background_url"], manifest["icon"]) == (
        f"{root}/background.html",
        f"{root}/icon.svg",
    )
    assert manifest["action"]["popover"] == f"{root}/popover.html"
    # a browser that reaches the service by another name is told that name
    named = server.url.replace("127.0.0.1", "localhost")
    other = httpx.get(f"{named}/integrations/owlbear/manifest.json").json()
    assert other["background_url"] == f"{named}/integrations/owlbear/background.html"


def test_only_owlbear_rodeo_may_read_and_frame_the_extension(server: Server) -> None:
    """Owlbear Rodeo's page fetches the manifest and icon from its own origin and frames the
    pages; the API itself answers no other origin (same origin: the pages are the service's)."""
    for name in ("manifest.json", "icon.svg", "background.html", "bridge.mjs"):
        answer = httpx.get(f"{server.url}/integrations/owlbear/{name}", headers={"Origin": OWLBEAR})
        assert answer.status_code == 200, name
        assert answer.headers["access-control-allow-origin"] == OWLBEAR
        policy = answer.headers["content-security-policy"]
        assert policy == (
            "default-src 'self'; frame-ancestors https://www.owlbear.rodeo https://owlbear.rodeo"
        )
    api = httpx.get(f"{server.url}/rulesets", headers={"Origin": OWLBEAR})
    assert "access-control-allow-origin" not in api.headers


def test_every_file_is_served_as_the_package_holds_it_and_nothing_else(server: Server) -> None:
    for name in ("background.mjs", "bridge.mjs", "obr-sdk-3.1.0.mjs", "popover.html", "NOTICE"):
        answer = httpx.get(f"{server.url}/integrations/owlbear/{name}")
        assert answer.content == (EXTENSION / name).read_bytes(), name
    assert (
        httpx.get(f"{server.url}/integrations/owlbear/obr-sdk-3.1.0.mjs")
        .headers["content-type"]
        .startswith("text/javascript")
    )
    for name in ("nothing.mjs", "..%2F..%2Fpyproject.toml", "README.md.bak"):
        assert httpx.get(f"{server.url}/integrations/owlbear/{name}").status_code == 404, name


def test_the_vendored_sdk_names_its_release_and_ships_its_licences() -> None:
    sdk = (EXTENSION / "obr-sdk-3.1.0.mjs").read_text(encoding="utf-8")
    assert sdk.startswith("// @owlbear-rodeo/sdk 3.1.0 (MIT, Owlbear Rodeo)")
    notice = (EXTENSION / "NOTICE").read_text(encoding="utf-8")
    for package in ("@owlbear-rodeo/sdk 3.1.0", "events", "immer", "js-base64", "uuid"):
        assert f"== {package}" in notice
    assert 'from "./obr-sdk-3.1.0.mjs"' in (EXTENSION / "background.mjs").read_text()


# --- in real Chromium, framed by a stand-in of Owlbear Rodeo's page --------------------------

ROOM_PAGE = f"{OWLBEAR}/room/standin"
HOST = """<!doctype html>
<html><body>
<iframe id="popover" src="@POPOVER@?obrref=@REF@"></iframe>
<iframe id="background" src="@BACKGROUND@?obrref=@REF@"></iframe>
<script>
// Owlbear Rodeo's side of the SDK's messages (tests/integrations/owlbear/owlbear.mjs says where
// each is read from), for one GM alone in the room.
const service = new URL(document.getElementById("background").src).origin;
const items = @ITEMS@;
const subscribed = new Set();
const listening = [];
window.notes = [];
window.addEventListener("message", (event) => {
  const { id, data, nonce } = event.data ?? {};
  if (typeof id !== "string" || event.origin !== service) return;
  const reply = (answer) =>
    event.source.postMessage({ id: `${id}_RESPONSE${nonce}`, data: answer }, service);
  if (id === "OBR_PLAYER_GET_ROLE") reply({ role: "GM" });
  else if (id === "OBR_PLAYER_GET_CONNECTION_ID") reply({ connectionId: "conn1" });
  else if (id === "OBR_PARTY_GET_PLAYERS") reply({ players: [] });
  else if (id === "OBR_SCENE_IS_READY") reply({ ready: true });
  else if (id === "OBR_SCENE_ITEMS_GET_ALL_ITEMS") reply({ items });
  else if (id === "OBR_NOTIFICATION_SHOW") { window.notes.push(data.message); reply({ id: "n" }); }
  else if (id === "OBR_SCENE_ITEMS_SUBSCRIBE") subscribed.add(event.source);
  else if (id === "OBR_BROADCAST_SUBSCRIBE") listening.push([data.channel, event.source]);
  else if (id === "OBR_BROADCAST_SEND_MESSAGE") {
    // to this browser's frames of the extension ("LOCAL"), each that listens on the channel
    const message = { id: `OBR_BROADCAST_MESSAGE_${data.channel}`,
                      data: { data: data.data, connectionId: "conn1" } };
    for (const [channel, frame] of listening) {
      if (channel === data.channel) frame.postMessage(message, service);
    }
    reply({});
  }
});
for (const frame of document.querySelectorAll("iframe")) {
  const ready = { id: "OBR_READY", data: { userId: "u1", ref: frame.id } };
  frame.addEventListener("load", () => frame.contentWindow.postMessage(ready, service));
}
window.hurt = (health) => {
  items[0].metadata[BUBBLES].health = health;
  items[0].lastModified = new Date().toISOString();
  const change = { id: "OBR_SCENE_ITEMS_EVENT_CHANGE", data: { items } };
  for (const frame of subscribed) frame.postMessage(change, service);
};
const BUBBLES = "com.owlbear-rodeo-bubbles-extension/metadata";
</script>
</body></html>"""


def test_in_chromium_the_extension_loads_framed_by_owlbear_rodeo_and_sends(
    server: Server, browser: Any
) -> None:
    """Owlbear Rodeo's HTTPS page frames the popover and the background page from the service
    on loopback: the frames load (CSP, mixed content), the SDK talks to the page, the popover's
    fight and token reach the background page (the same storage partition), and a blow dealt
    in Stat Bubbles reaches the fight."""
    import base64

    made = httpx.post(
        f"{server.url}/fights",
        json={"fight": "chromium-owlbear", "ruleset": "dnd5e", "options": {"death_saves": "table"}},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert made.status_code == 201, made.text
    gm = made.json()["gm_token"]
    manifest = httpx.get(f"{server.url}/integrations/owlbear/manifest.json").json()
    ref = base64.b64encode(f"{OWLBEAR} standinRoom".encode()).decode()
    goblin = {
        "id": "gob1", "type": "IMAGE", "name": "Goblin", "layer": "CHARACTER",
        "lastModified": "2026-12-07T20:00:00.000Z", "text": {"plainText": ""},
        "metadata": {"com.owlbear-rodeo-bubbles-extension/metadata": {
            "health": 7, "max health": 7, "temporary health": 0, "hide": True}},
    }  # fmt: skip
    html = (
        HOST.replace("@POPOVER@", manifest["action"]["popover"])
        .replace("@BACKGROUND@", manifest["background_url"])
        .replace("@REF@", ref)
        .replace("@ITEMS@", json.dumps([goblin]))
    )
    context = browser.new_context()
    # Chromium asks whether owlbear.rodeo may reach devices on the local network (Local
    # Network Access; refused until allowed: net::ERR_BLOCKED_BY_LOCAL_NETWORK_ACCESS_CHECKS):
    # the GM allows it, as the extension's README says
    context.grant_permissions(["local-network-access"], origin=OWLBEAR)
    context.route(ROOM_PAGE, lambda route: route.fulfill(body=html, content_type="text/html"))
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    try:
        page.goto(ROOM_PAGE)
        # whether this Chromium keeps storage for a frame of another site (third-party storage)
        frame = next(f for f in page.frames if f.url.startswith(manifest["background_url"]))
        kept = frame.evaluate(
            "() => { try { localStorage.getItem('x'); return true } catch { return false } }"
        )
        popover = page.frame_locator("#popover")
        popover.locator("#fight").fill("chromium-owlbear")
        popover.locator("#token").fill(gm)
        popover.locator("button[type=submit]").click()

        def state() -> dict[str, Any]:
            answer = httpx.get(
                f"{server.url}/fights/chromium-owlbear/state",
                headers={"Authorization": f"Bearer {gm}"},
            )
            characters: dict[str, Any] = answer.json()["characters"]
            return characters

        try:
            wait_for(lambda: "gob1" in state(), "the goblin joined")
        except AssertionError as error:
            raise AssertionError(f"{error}: {errors}, {page.evaluate('notes')}, {seen}") from None
        page.evaluate("hurt(-2)")
        wait_for(lambda: state()["gob1"]["state"] == "dead", "the blow arrived")
        notes = page.evaluate("notes")
    finally:
        context.close()
    assert errors == []
    told = [n for n in notes if "keeps no storage" in n]
    assert len(told) == (0 if kept else 1), notes
    assert not [url for url in seen if gm in url]  # the token never in a URL


def wait_for(check: Any, what: str, seconds: float = 20.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {what}")

"""The pages against a real server, in the session's real headless Chromium (the `browser`
fixture of tests/conftest.py, tests/chromium.py says how it is found)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from importlib.resources import files
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.replays.service.server import ADMIN, bearer

from .server import PagesServer


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """What the page tests kept to say (a test's `user_properties`): the axe-core counts
    (test_accessibility.py's `serious`), a line per page, colour scheme and size, and what was
    measured on the pages (contrast, widths, heights); read from the test reports, which
    pytest-xdist's workers send back whole."""
    kept: dict[str, set[str]] = {"axe": set(), "measured": set()}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) == "call":
                for name, value in getattr(report, "user_properties", []):
                    kept.get(name, set()).add(value)
    titles = {
        "axe": "axe-core: violations of {} page views",
        "measured": "measured on the pages: {} figures",
    }
    for name, lines in kept.items():
        if lines:
            terminalreporter.write_sep("-", titles[name].format(len(lines)))
            for line in sorted(lines):
                terminalreporter.write_line(line)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PagesServer]:
    with PagesServer(tmp_path_factory.mktemp("pages") / "fights.db") as running:
        yield running


@pytest.fixture
def client(server: PagesServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        yield http


class Watched:
    """A page and every console error or uncaught exception it had."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    """A fresh page (phone-sized screens are tested separately); no console errors allowed."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = Watched(context.new_page())
    yield page
    context.close()
    assert page.errors == [], f"console errors: {page.errors}"


class Tokens:
    def __init__(self, fight: str, created: dict[str, Any]) -> None:
        self.fight = fight
        self.gm = created["gm_token"]
        self.viewer = created["viewer_token"]


DATA = Path(__file__).parent / "data"


def bundled_fight(client: httpx.Client, fight: str, name: str) -> Tokens:
    """A fight made through the API from a bundled log (`woundlog/replays/data/NAME`)."""
    return logged_fight(client, fight, (files("woundlog.replays") / "data" / name).read_text())


def page_fight(client: httpx.Client, fight: str, name: str) -> Tokens:
    """A fight made through the API from a log of the page tests (`tests/pages/data/NAME`)."""
    return logged_fight(client, fight, (DATA / name).read_text())


def logged_fight(client: httpx.Client, fight: str, text: str) -> Tokens:
    """A fight made through the API from the text of a log."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    started, rest = lines[0], lines[1:]
    asked = {k: started[k] for k in ("ruleset", "seed", "options", "name") if k in started}
    created = client.post("/fights", json={"fight": fight, **asked}, headers=bearer(ADMIN))
    assert created.status_code == 201, created.text
    tokens = Tokens(fight, created.json())
    appended = client.post(f"/fights/{fight}/events", json=rest, headers=bearer(tokens.gm))
    assert appended.status_code == 200, appended.text
    return tokens


def one_place(percent: float) -> str:
    """A percentage as the pages show it, JavaScript's `toFixed(1)`: the number's exact binary
    value rounded halves up (Python's `:.1f` rounds halves to even: 4.25 is "4.2" there and
    "4.3" on the page)."""
    return str(Decimal(percent).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


class Campaign:
    def __init__(self, campaign: str, fight: Tokens, created: dict[str, Any]) -> None:
        self.campaign = campaign
        self.fight = fight
        self.gm = created["gm_token"]
        self.viewer = created["viewer_token"]


def bundled_campaign(client: httpx.Client, campaign: str, name: str) -> Campaign:
    """A campaign of one fight, the bundled log `name`, through the API: each character of its
    side `warriors` (or of every side) joins the roster as they joined the fight."""
    log = (files("woundlog.replays") / "data" / name).read_text()
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]
    made = client.post(
        "/campaigns",
        json={"campaign": campaign, "ruleset": lines[0]["ruleset"]},
        headers=bearer(ADMIN),
    )
    assert made.status_code == 201, made.text
    fight = logged_fight(client, f"{campaign}-1", log)
    joined = [line for line in lines if line["type"] == "character_joined"]
    warriors = [line for line in joined if line.get("kind") == "warrior"] or joined
    for line in warriors:
        member = {k: line[k] for k in ("name", "side", "kind", "stats", "gear") if k in line}
        sent = client.post(
            f"/campaigns/{campaign}/members",
            json={"member": line["character"], **member},
            headers=bearer(made.json()["gm_token"]),
        )
        assert sent.status_code == 200, sent.text
    played = client.post(
        f"/campaigns/{campaign}/fights",
        json={"fight": fight.fight},
        headers={**bearer(made.json()["gm_token"]), "Woundlog-Fight-Token": fight.viewer},
    )
    assert played.status_code == 200, played.text
    return Campaign(campaign, fight, made.json())

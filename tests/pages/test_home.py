"""The front page, `GET /`, in real Chromium (issue 26): what woundlog is, how to open a fight's
pages, the API docs; no fight listed, and no token held."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import expect

from .conftest import Watched, bundled_fight


def test_the_front_page_says_what_woundlog_is_and_lists_no_fight(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    bundled_fight(client, "home-secret", "mordheim_undo.jsonl")
    answer = client.get("/")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in answer.headers["content-security-policy"]
    page = watched.page
    page.goto(f"{server.url}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("woundlog")
    expect(page.locator(".lede")).to_contain_text("once they get hurt")
    # how to open a fight's pages: the token after `#`, where the tokens come from
    opening = page.locator("section[aria-labelledby='open-heading']")
    expect(opening).to_contain_text("/fights/FIGHT/table#viewer=VIEWER_TOKEN")
    expect(opening).to_contain_text("POST /fights")
    text = page.locator("body").inner_text()
    assert "home-secret" not in text and "mordheim" not in text.lower()


def test_every_link_of_the_front_page_is_served_here_and_none_leaves_it(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    page = watched.page
    page.goto(f"{server.url}/")
    links = page.locator("a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert "/schema/swagger" in links and "/schema/openapi.json" in links
    for href in links:
        assert href.startswith("/"), href  # no CDN, no other site
        assert client.get(href).status_code == 200, href
    sources = page.locator("script[src], link[href]").evaluate_all(
        "es => es.map(e => e.getAttribute('src') ?? e.getAttribute('href'))"
    )
    assert all(s.startswith(("/web/", "data:")) for s in sources), sources


def test_the_addresses_to_paste_are_whole_under_the_name_the_page_was_reached_by(
    watched: Watched, server: Any
) -> None:
    page = watched.page
    page.goto(f"{server.url}/")
    manifest = f"{server.url}/integrations/foundry/module.json"
    expect(page.locator("code.address", has_text="module.json")).to_have_text(manifest)
    assert httpx.get(manifest).json()["manifest"] == manifest  # what Foundry is told, too


def test_a_fight_id_opens_its_pages_which_ask_for_the_token(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "home-open", "mordheim_undo.jsonl")
    page = watched.page
    for button, path, asked in (
        ("Open its timeline", "", "GM token (optional)"),
        ("Open its table view", "table", "Viewer token"),
    ):
        page.goto(f"{server.url}/")
        page.get_by_label("Fight id").fill(f" {tokens.fight} ")  # as pasted, with spaces
        page.get_by_role("button", name=button).click()
        page.wait_for_url(f"{server.url}/fights/home-open/{path}")
        expect(page.get_by_label(asked)).to_be_visible()
    page.get_by_label("Viewer token").fill(tokens.viewer)
    page.get_by_role("button", name="Show the fight").click()
    expect(page.locator(".cards li")).to_have_count(3)


README = Path(__file__).parents[2] / "README.md"


def test_the_front_page_names_each_page_of_a_fight_and_the_share_command_as_it_is(
    watched: Watched, server: Any
) -> None:
    """It said a command printing the links, `woundlog share`, "is coming": it came. Each page
    of a fight and a campaign's page are named by their address, and what the page says of
    `woundlog share` is what the README's command table gives it."""
    page = watched.page
    page.goto(f"{server.url}/")
    opening = page.locator("section[aria-labelledby='open-heading']")
    text = opening.inner_text()
    assert "coming" not in text
    for address in (
        "/fights/FIGHT/",
        "/fights/FIGHT/table",
        "/fights/FIGHT/report.html",
        "/campaigns/CAMPAIGN/",
    ):
        expect(opening.locator("code", has_text=address).first).to_be_visible()
    row = next(
        line for line in README.read_text().splitlines() if line.startswith("| `woundlog share")
    )
    said = opening.locator("code").all_inner_texts()
    options = [word for code in said if "woundlog share" in code or code.startswith("--")
               for word in code.split() if word.startswith("--")]  # fmt: skip
    assert "woundlog share FIGHT" in said and options
    assert all(option in row for option in options), (options, row)
    for path in ("", "table", "report.html"):  # the served pages exist
        assert httpx.get(f"{server.url}/fights/any/{path}").status_code == 200


def test_the_front_page_opens_a_fights_report(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "home-report", "mordheim_undo.jsonl")
    page = watched.page
    page.goto(f"{server.url}/")
    page.get_by_label("Fight id").fill(tokens.fight)
    page.get_by_role("button", name="Open its report").click()
    page.wait_for_url(f"{server.url}/fights/home-report/report.html")
    expect(page.get_by_label("Viewer token")).to_be_visible()

"""Issue 13, in a real headless Chromium (Debian's, driven by Playwright; tests/chromium.py
says why by path): a page's EventSource opens the stream with a ticket, and the docs page
renders from the server alone, asking no other host for anything."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Browser

from .conftest import new_fight
from .server import Server

READ_THREE = """async (path) => await new Promise((resolve, reject) => {
  const source = new EventSource(path);
  const seen = [];
  source.addEventListener("changes", (message) => {
    seen.push(Number(message.lastEventId));
    if (seen.length === 3) { source.close(); resolve(seen); }
  });
  source.onerror = () => { source.close(); reject(new Error("the stream failed")); };
  setTimeout(() => { source.close(); reject(new Error("no messages")); }, 15000);
})"""


def test_a_browsers_eventsource_opens_the_stream_with_a_ticket(
    browser: Browser, server: Server, client: httpx.Client
) -> None:
    tokens = new_fight(client, "in-chromium")
    ticket = client.post("/fights/in-chromium/stream-ticket", headers=tokens.viewer).json()
    page = browser.new_page()
    try:
        page.goto(f"{server.url}/health")  # the service's own origin
        seqs = page.evaluate(READ_THREE, ticket["stream"] + "&from=1")
    finally:
        page.close()
    assert seqs == [1, 2, 3]


def test_the_docs_page_renders_every_route_loading_nothing_from_another_host(
    browser: Browser, server: Server
) -> None:
    page = browser.new_page()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    try:
        page.goto(f"{server.url}/schema/swagger")
        page.wait_for_selector(".opblock", timeout=15000)
        shown = page.locator(".opblock-summary-path").all_inner_texts()
    finally:
        page.close()
    hosts = {urlsplit(url).netloc for url in asked if not url.startswith("data:")}
    assert hosts == {urlsplit(server.url).netloc}, asked
    assert "/fights/{fight}/stream-ticket" in [text.replace("\u200b", "") for text in shown]

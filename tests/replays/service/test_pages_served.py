"""Every page is served at the address its own head names (issue 36: a page is its HTML and its
script), and a page that names none stops the service from starting."""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import pytest
from litestar.testing import TestClient

from woundlog.replays.service.app import create_app
from woundlog.replays.service.routes import pages

ADMIN = "an-admin-token-of-32-characters-or-so"
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WEB = files("woundlog.replays") / "web"
NAMED = re.compile(r'<meta name="woundlog-page" content="([^"]+)">')


def shipped() -> dict[str, str]:
    """Each page the package ships and the address its head names, read here, not by the code."""
    found = {}
    for page in WEB.iterdir():
        if page.name.endswith(".html"):
            (address,) = NAMED.findall(page.read_text(encoding="utf-8"))
            found[page.name] = address
    return found


def test_the_six_pages_name_the_addresses_the_readme_gives() -> None:
    assert shipped() == {
        "home.html": "/",
        "timeline.html": "/fights/{fight}/",
        "table.html": "/fights/{fight}/table",
        "report.html": "/fights/{fight}/report.html",
        "campaign.html": "/campaigns/{campaign}/",
        "console.html": "/fights/{fight}/console",
    }


def test_every_page_is_served_at_its_address_with_the_page_headers(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "fights.db"), ADMIN)) as client:
        for name, address in shipped().items():
            answer = client.get(address.format(fight="yard", campaign="quest"))
            assert answer.status_code == 200, name
            assert answer.text == (WEB / name).read_text(encoding="utf-8")
            assert answer.headers["content-type"].startswith("text/html")
            assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
            assert answer.headers["referrer-policy"] == "no-referrer"


def test_a_page_that_names_no_address_stops_the_start_and_says_what_to_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes.html").write_text("<!doctype html><title>notes</title>", encoding="utf-8")
    monkeypatch.setattr(pages, "WEB", tmp_path)
    with pytest.raises(pages.PageWithoutAddress, match=r"notes\.html names no address: add <meta"):
        create_app(str(tmp_path / "fights.db"), ADMIN)


def test_a_new_page_is_served_from_its_file_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "console.html").write_text(
        '<meta name="woundlog-page" content="/fights/{fight}/console"><p>console</p>',
        encoding="utf-8",
    )
    monkeypatch.setattr(pages, "WEB", tmp_path)
    with TestClient(create_app(str(tmp_path / "fights.db"), ADMIN)) as client:
        assert "<p>console</p>" in client.get("/fights/yard/console").text
        assert client.get("/fights/yard/table").status_code == 404


def test_the_front_page_is_where_serve_says_it_is() -> None:
    assert shipped()["home.html"] == pages.HOME

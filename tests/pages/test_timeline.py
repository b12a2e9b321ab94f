"""The timeline page in real Chromium against a real `woundlog serve`."""

from __future__ import annotations

import re
import struct
from typing import Any

import httpx
import pytest
from playwright.sync_api import Request, expect

from tests.replays.service.server import bearer

from .conftest import Tokens, Watched, bundled_fight, one_place

UNDO_LOG = "mordheim_undo.jsonl"  # an amend, a retract and a retract of the retract
STATES_OF_ROWS = """tds => Object.fromEntries(
    tds.map(td => [td.parentElement.dataset.character, td.dataset.state]))"""
STATES_OF_CELLS = (
    """tds => Object.fromEntries(tds.map(td => [td.dataset.character, td.dataset.state]))"""
)


@pytest.fixture(scope="module")
def undo_fight(server: Any) -> Tokens:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return bundled_fight(client, "undo-fight", UNDO_LOG)


def state_at(client: httpx.Client, tokens: Tokens, at: int | None = None) -> dict[str, Any]:
    query = f"?at={at}" if at else ""
    answer = client.get(f"/fights/{tokens.fight}/state{query}", headers=bearer(tokens.viewer))
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def open_timeline(
    watched: Watched, url: str, tokens: Tokens, query: str = "", gm: bool = False
) -> None:
    fragment = f"gm={tokens.gm}" if gm else f"viewer={tokens.viewer}"
    watched.page.goto(f"{url}/fights/{tokens.fight}/{query}#{fragment}")
    expect(watched.page.locator("#then caption")).to_be_visible()


def test_timeline_shows_every_character_and_every_event(
    watched: Watched, server: Any, client: httpx.Client, undo_fight: Tokens
) -> None:
    open_timeline(watched, server.url, undo_fight)
    page = watched.page
    now = state_at(client, undo_fight)
    names = page.locator("#grid tbody th").all_inner_texts()
    assert names == [c["name"] for c in now["characters"].values()]
    assert page.locator("#grid thead th[data-seq]").count() == now["seq"]
    assert page.locator("#grid tbody td").count() == now["seq"] * len(names)
    # the amended hit (#5) and the retract that was itself retracted (#8) are struck through
    assert page.locator("#grid thead th.undone").evaluate_all(
        "hs => hs.map(h => h.dataset.seq)"
    ) == ["5", "8"]
    expect(page.locator("#grid thead th[data-seq='5'] s")).to_have_text("#5")


def test_token_leaves_the_address_bar_and_is_never_sent_in_a_url(
    watched: Watched, server: Any, undo_fight: Tokens
) -> None:
    asked: list[str] = []
    watched.page.on("request", lambda request: asked.append(request.url))
    open_timeline(watched, server.url, undo_fight)
    assert undo_fight.viewer not in watched.page.url
    assert not [url for url in asked if undo_fight.viewer in url.split("#")[0]]


def test_each_position_shows_the_state_the_api_gives_at_that_seq(
    watched: Watched, server: Any, client: httpx.Client, undo_fight: Tokens
) -> None:
    page = watched.page
    version = state_at(client, undo_fight)["seq"]
    for at in range(2, version + 1):
        open_timeline(watched, server.url, undo_fight, f"?at={at}")
        expected = {
            k: c["state"] for k, c in state_at(client, undo_fight, at)["characters"].items()
        }
        expect(page.locator("#then caption")).to_have_text(f"After event #{at}")
        table = page.locator("#then td[data-state]").evaluate_all(STATES_OF_ROWS)
        assert table == expected, f"state table at {at}"
        # the grid's column folds the changes in the page: it must agree with the server's fold
        column = page.locator(f"#grid td[data-seq='{at}'][data-state]").evaluate_all(
            STATES_OF_CELLS
        )
        assert column == expected, f"grid column {at}"


def test_slider_and_arrow_keys_step_through_time_and_the_url_keeps_the_position(
    watched: Watched, server: Any, undo_fight: Tokens
) -> None:
    page = watched.page
    open_timeline(watched, server.url, undo_fight, "?at=6")
    expect(page.locator("#slider")).to_have_value("6")
    page.locator("#grid td[data-seq='6']").first.focus()
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"\?at=5$"))
    expect(page.locator("#then caption")).to_have_text("After event #5")
    expect(page.locator("#grid td[data-seq='5']").first).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"\?at=7$"))
    page.locator("#slider").fill("3")
    expect(page).to_have_url(re.compile(r"\?at=3$"))
    expect(page.locator("#then caption")).to_have_text("After event #3")
    # the address bar is the shared link: reloading it comes back to the same place
    page.reload()
    expect(page.locator("#slider")).to_have_value("3")
    expect(page.locator("#details h2")).to_contain_text("#3 character_joined")


def test_focusing_a_cell_shows_the_event_its_dice_and_what_changed(
    watched: Watched, server: Any, undo_fight: Tokens
) -> None:
    page = watched.page
    open_timeline(watched, server.url, undo_fight, "?at=7")
    cell = page.locator("#grid td[data-seq='7'][data-character='hilde']")
    expect(cell).to_contain_text("◆")  # Hilde's injury die was rolled here
    cell.hover()
    details = page.locator("#details")
    expect(details.locator("h2")).to_have_text("#7 hit")
    expect(details.locator(".event-id")).to_have_text("id h2")
    expect(details).to_contain_text("injury d6=3 given")
    expect(details).to_contain_text("Hilde: upright -> stunned")
    expect(page.locator("#grid td[data-seq='5'][data-character='ulf']")).to_have_attribute(
        "aria-label", re.compile("undone: amended by #6")
    )


def test_screenshot_is_a_png_of_the_whole_page(
    watched: Watched, server: Any, undo_fight: Tokens, tmp_path: Any
) -> None:
    open_timeline(watched, server.url, undo_fight)
    shot = watched.page.screenshot(path=tmp_path / "timeline.png", full_page=True)
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", shot[16:24])  # the IHDR chunk, right after the signature
    assert width == 1200
    assert height >= watched.page.evaluate("document.documentElement.scrollHeight")


def test_a_phone_sees_the_grid_scroll_sideways_not_the_page(
    browser: Any, server: Any, undo_fight: Tokens
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{server.url}/fights/{undo_fight.fight}/#viewer={undo_fight.viewer}")
    expect(page.locator("#then caption")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()


def test_without_a_token_the_page_asks_for_one(
    watched: Watched, server: Any, undo_fight: Tokens
) -> None:
    page = watched.page
    page.goto(f"{server.url}/fights/{undo_fight.fight}/")
    expect(page.get_by_label("Viewer token")).to_be_visible()
    page.get_by_label("Viewer token").fill(undo_fight.viewer)
    page.get_by_role("button", name="Open the fight").click()
    expect(page.locator("#then caption")).to_be_visible()
    expect(page.locator("#gm-actions")).to_be_hidden()  # a viewer cannot undo


def test_a_second_page_sees_a_new_event_within_a_second(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "live-fight", UNDO_LOG)
    open_timeline(watched, server.url, tokens)
    page = watched.page
    before = page.locator("#grid thead th[data-seq]").count()
    hit = {
        "type": "hit",
        "id": "late",
        "target": "brand",
        "damage": 1,
        "attacker": "a falling beam",
        "rolls": {"injury": [6]},
    }
    appended = client.post(f"/fights/{tokens.fight}/events", json=hit, headers=bearer(tokens.gm))
    assert appended.status_code == 200, appended.text
    expect(page.locator("#grid thead th[data-seq]")).to_have_count(before + 1, timeout=1000)
    expect(
        page.locator(f"#grid td[data-seq='{before + 1}'][data-character='brand']")
    ).to_have_attribute("data-state", "out_of_action")
    expect(page).not_to_have_url(re.compile(r"\?at="))  # following live


def test_undo_takes_back_the_newest_event_the_cli_would_after_naming_it(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    """The CLI's rule (Fight.newest_live): the newest event that is not the fight's start nor a
    retract, and that no retract in effect has taken back. In the undo log, #9 retracts the
    retract #8, so the hit #7 is in effect again: Undo names and takes back #7, whatever event
    is selected (#3 here), and only once confirmed."""
    tokens = bundled_fight(client, "undo-from-page", UNDO_LOG)
    page = watched.page
    open_timeline(watched, server.url, tokens, "?at=3", gm=True)
    undo = page.locator("#undo")
    expect(undo).to_have_text("Undo #7 hit on Hilde (1 damage, by Brand)…")
    undo.click()
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text("Undo #7 hit on Hilde (1 damage, by Brand)?")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    version = client.get(f"/fights/{tokens.fight}/events", headers=bearer(tokens.viewer)).json()
    assert version["version"] == 9  # cancelled: nothing written
    undo.click()
    dialog.get_by_role("button", name="Undo it").click()
    expect(page.locator("#status")).to_have_text(
        "Undid #7 hit on Hilde (1 damage, by Brand): Hilde: stunned -> upright (wounds 0 -> 1)"
    )
    events = client.get(f"/fights/{tokens.fight}/events", headers=bearer(tokens.viewer)).json()
    newest = events["events"][-1]["event"]
    assert (newest["type"], newest["event"]) == ("retract", "#7")
    expect(page.locator("#grid thead th[data-seq='7']")).to_have_class(re.compile("undone"))
    expect(page.locator("#grid thead th[data-seq]")).to_have_count(events["version"])
    # the next undo is the next event back by the same rule: the amend #6
    expect(undo).to_have_text("Undo #6 amend of #5…")


def test_redo_takes_back_the_undo_and_restores_the_event(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "redo-from-page", UNDO_LOG)
    page = watched.page
    open_timeline(watched, server.url, tokens, gm=True)
    # the newest event in effect is the retract #9 (an undo): Redo is offered, naming what it
    # brings back, the retract #8 it took back
    redo = page.locator("#redo")
    expect(redo).to_have_text("Redo #8 retract of #7…")
    page.locator("#undo").click()
    page.locator("#confirm-dialog").get_by_role("button", name="Undo it").click()
    expect(page.locator("#status")).to_contain_text("Undid #7 hit on Hilde")
    expect(redo).to_have_text("Redo #7 hit on Hilde (1 damage, by Brand)…")
    redo.click()
    expect(page.locator("#confirm-dialog h2")).to_have_text(
        "Redo #7 hit on Hilde (1 damage, by Brand)?"
    )
    page.locator("#confirm-dialog").get_by_role("button", name="Redo it").click()
    expect(page.locator("#status")).to_have_text(
        "Redid #7 hit on Hilde (1 damage, by Brand): Hilde: upright -> stunned (wounds 1 -> 0)"
    )
    events = client.get(f"/fights/{tokens.fight}/events", headers=bearer(tokens.viewer)).json()
    newest = events["events"][-1]["event"]
    assert (newest["type"], newest["event"]) == ("retract", "#10")
    assert state_at(client, tokens)["characters"]["hilde"]["state"] == "stunned"


def test_an_amend_from_the_page_is_a_form_of_the_events_fields(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "amend-from-page", UNDO_LOG)
    page = watched.page
    open_timeline(watched, server.url, tokens, "?at=7", gm=True)
    page.get_by_role("button", name="Amend this event…").click()
    dialog = page.locator("#amend-dialog")
    expect(dialog.locator("textarea")).to_have_count(0)  # no JSON to type
    expect(dialog.get_by_label("target")).to_have_value("hilde")
    expect(dialog.get_by_label("damage")).to_have_value("1")
    expect(dialog.get_by_label("dice for injury (comma-separated)")).to_have_value("3")
    dialog.get_by_label("dice for injury (comma-separated)").fill("1")
    dialog.get_by_label("Reason").fill("the die showed 1")
    dialog.get_by_role("button", name="Amend", exact=True).click()
    expect(page.locator("#status")).to_have_text("Amended #7: Hilde: stunned -> knocked_down")
    newest = client.get(f"/fights/{tokens.fight}/events", headers=bearer(tokens.viewer)).json()
    amended = newest["events"][-1]["event"]
    assert amended["type"] == "amend" and amended["event"] == "#7"
    assert amended["replacement"]["rolls"] == {"injury": [1]}
    assert amended["replacement"]["target"] == "hilde"
    assert amended["replacement"]["attacker"] == "brand"
    assert state_at(client, tokens)["characters"]["hilde"]["state"] == "knocked_down"


def test_an_amend_field_that_is_not_a_number_is_refused_on_the_page(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "amend-refused", UNDO_LOG)
    page = watched.page
    open_timeline(watched, server.url, tokens, "?at=7", gm=True)
    page.get_by_role("button", name="Amend this event…").click()
    dialog = page.locator("#amend-dialog")
    dialog.get_by_label("dice for injury (comma-separated)").fill("three")
    dialog.get_by_role("button", name="Amend", exact=True).click()
    expect(page.locator("#amend-error")).to_have_text(
        "dice for injury: whole numbers, comma-separated"
    )
    events = client.get(f"/fights/{tokens.fight}/events", headers=bearer(tokens.viewer)).json()
    assert events["version"] == 9


def test_the_grid_is_one_tab_stop_and_up_and_down_move_between_characters(
    watched: Watched, server: Any, undo_fight: Tokens
) -> None:
    page = watched.page
    open_timeline(watched, server.url, undo_fight, "?at=6")
    assert page.locator("#grid td[tabindex='0']").count() == 1
    page.locator("#grid td[tabindex='0']").focus()
    expect(page.locator("#grid td[data-seq='6'][data-character='hilde']")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.locator("#grid td[data-seq='6'][data-character='ulf']")).to_be_focused()
    expect(page.locator("#details h2")).to_have_text("#6 amend")
    page.keyboard.press("Home")
    expect(page.locator("#grid td[data-seq='1'][data-character='ulf']")).to_be_focused()
    assert page.locator("#grid td[tabindex='0']").count() == 1


def test_odds_from_here_shows_the_exact_chances_the_api_gives_and_folds_the_rest(
    watched: Watched, server: Any, client: httpx.Client, undo_fight: Tokens
) -> None:
    open_timeline(watched, server.url, undo_fight, "?at=4")
    page = watched.page
    page.select_option("#step-target", "ulf")
    page.click("#step-add")  # Ulf is hit for 1: only his odds differ from how he stands
    page.select_option("#odds-rounds", "1")
    page.click("#odds")
    expect(page.locator("#odds-table caption")).to_contain_text(
        "After #4, 1 step(s) and 1 round(s)"
    )
    answer = client.get(
        f"/fights/{undo_fight.fight}/odds",
        params={"at": 4, "ticks": 1, "events": '[{"type": "hit", "target": "ulf", "damage": 1}]'},
        headers=bearer(undo_fight.viewer),
    ).json()
    rows = page.locator("#odds-table tr").all_inner_texts()
    assert len(rows) == 1
    ulf = answer["characters"]["ulf"]
    assert ulf["name"] in rows[0]
    for state in ulf["states"]:
        assert f"{state['state']} {one_place(state['percent'])}% ({state['chance']})" in rows[0]
    for cid in ("hilde", "brand"):  # certain to stay upright at 1 wound
        assert [s["state"] for s in answer["characters"][cid]["states"]] == ["upright"]
    expect(page.locator("#odds-folded")).to_have_text("Certain to stay as they are: Hilde, Brand")


def test_the_timeline_answers_a_window_at_a_time_and_says_where_the_next_starts(
    server: Any, client: httpx.Client, undo_fight: Tokens
) -> None:
    """Issue 24: 200,000 events in one answer took 14 s and 316 MiB. Windows of `limit` events
    from `from`, at most 1000, pieced together, are the whole timeline, undone marks included."""
    viewer = bearer(undo_fight.viewer)
    path = f"/fights/{undo_fight.fight}/timeline"
    whole = client.get(path, params={"limit": 1000}, headers=viewer).json()
    assert whole["next"] is None and len(whole["moments"]) == whole["version"]
    pieced, start = [], 1
    while start is not None:
        window = client.get(path, params={"from": start, "limit": 3}, headers=viewer).json()
        assert len(window["moments"]) <= 3
        assert [m["seq"] for m in window["moments"]] == list(
            range(start, start + len(window["moments"]))
        )
        pieced += window["moments"]
        start = window["next"]
    assert pieced == whole["moments"]
    assert any(m["changes"].get("undone") for m in pieced)  # a later undo's mark, in any window
    for bad in ({"limit": 1001}, {"limit": 0}, {"from": 0}, {"from": 2**60}):
        refused = client.get(path, params=bad, headers=viewer)
        assert refused.status_code in (400, 422), (bad, refused.text)


def test_the_page_asks_for_the_timeline_in_windows_and_draws_them_all(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "long-fight", UNDO_LOG)
    ticks = [{"type": "turn_started", "round": n} for n in range(1, 521)]
    appended = client.post(f"/fights/{tokens.fight}/events", json=ticks, headers=bearer(tokens.gm))
    assert appended.status_code == 200, appended.text
    version = appended.json()["version"]
    asked: list[str] = []

    def seen(request: Request) -> None:
        if "/timeline?" in request.url:
            asked.append(request.url)

    watched.page.on("request", seen)
    open_timeline(watched, server.url, tokens)
    expect(watched.page.locator("#grid thead th[data-seq]")).to_have_count(version)
    froms = [re.search(r"from=(\d+)", url).group(1) for url in asked]  # type: ignore[union-attr]
    assert froms == ["1", "501"]
    assert all("limit=500" in url for url in asked)

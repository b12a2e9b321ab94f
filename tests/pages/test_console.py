"""The GM console (issue 40) in real Chromium on a phone's 390 x 844 screen: a fight run through
the console alone, the table's dice typed in as the rules ask for each, ends in the log the
same fight entered with the CLI ends in; a refusal is shown as the CLI words it, nothing
written; undo shows what it changed; the table view follows live."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.replays.service.server import ADMIN, bearer

PHONE = {"width": 390, "height": 844}


class Opened:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))


@pytest.fixture
def phone(browser: Browser) -> Any:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    yield context
    context.close()


def new_fight(
    client: httpx.Client, fight: str, ruleset: str, events: list[dict[str, Any]], **options: Any
) -> dict[str, str]:
    made = client.post(
        "/fights",
        json={"fight": fight, "ruleset": ruleset, "seed": 11, **options},
        headers=bearer(ADMIN),
    )
    assert made.status_code == 201, made.text
    tokens: dict[str, str] = made.json()
    if events:
        joined = client.post(
            f"/fights/{fight}/events", json=events, headers=bearer(tokens["gm_token"])
        )
        assert joined.status_code == 200, joined.text
    return tokens


def log_of(client: httpx.Client, fight: str, token: str) -> list[dict[str, Any]]:
    events = client.get(f"/fights/{fight}/events", headers=bearer(token)).json()["events"]
    return [{k: v for k, v in e["event"].items() if k not in ("id", "at")} for e in events]


def console(context: Any, url: str, fight: str, gm: str) -> Opened:
    opened = Opened(context.new_page())
    opened.page.goto(f"{url}/fights/{fight}/console#gm={gm}")
    expect(opened.page.locator("#roster li").first).to_be_visible()
    return opened


MORDHEIM = [
    {"type": "character_joined", "character": "grim", "name": "Grim", "side": "reavers",
     "stats": {"wounds": 1}},
    {"type": "character_joined", "character": "snik", "name": "Snik", "side": "eshin",
     "stats": {"wounds": 2}},
]  # fmt: skip


def test_a_hit_with_the_tables_dice_asks_for_each_die_by_name_and_sides(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    tokens = new_fight(client, "console-dice", "mordheim", MORDHEIM)
    opened = console(phone, server.url, "console-dice", tokens["gm_token"])
    page = opened.page
    page.get_by_text("Dice and initiative").click()
    page.get_by_label("The table rolls").check()
    page.locator("#roster li[data-character='grim'] .pick").click()
    page.get_by_role("button", name="Hit", exact=True).click()
    page.get_by_label("Damage", exact=True).fill("2")
    page.get_by_label("Attacker (optional)").select_option("snik")
    page.get_by_role("button", name="Record").click()
    expect(page.locator("#die-heading")).to_have_text("Injury roll for Grim, d6")
    page.get_by_role("button", name="1 on the d6").click()
    expect(page.locator("#die-heading")).to_have_text("Injury roll for Grim, d6")
    page.get_by_label("The d6 shows").fill("4")
    page.get_by_label("The d6 shows").press("Enter")
    expect(page.locator("#status")).to_contain_text("#4 hit:")
    expect(page.locator("#status")).to_contain_text("injury d6=4 given")
    expect(page.locator("li[data-character='grim']")).to_have_attribute("data-state", "stunned")
    assert log_of(client, "console-dice", tokens["gm_token"])[-1] == {
        "type": "hit", "target": "grim", "damage": 2, "attacker": "snik",
        "rolls": {"injury": [1, 4]},
    }  # fmt: skip
    assert opened.errors == []


def test_when_woundlog_rolls_a_die_is_drawn_from_the_seed_and_said_and_the_choice_is_kept(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    tokens = new_fight(client, "console-drawn", "mordheim", MORDHEIM)
    page = console(phone, server.url, "console-drawn", tokens["gm_token"]).page
    page.get_by_text("Dice and initiative").click()
    expect(page.get_by_label("woundlog rolls them")).to_be_checked()  # a fight's first choice
    page.locator("#roster li[data-character='grim'] .pick").click()
    page.get_by_role("button", name="Hit", exact=True).click()
    page.get_by_label("Damage", exact=True).fill("1")
    page.get_by_role("button", name="Record").click()
    expect(page.locator("#status")).to_contain_text(re.compile(r"injury d6=[1-6] drawn"))
    assert "rolls" not in log_of(client, "console-drawn", tokens["gm_token"])[-1]
    page.get_by_label("The table rolls").check()
    page.reload()  # the GM's choice is kept for this fight, in this browser
    page.get_by_text("Dice and initiative").click()
    expect(page.get_by_label("The table rolls")).to_be_checked()


def test_a_refused_event_is_shown_as_the_cli_words_it_and_nothing_is_written(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    events = [*MORDHEIM, {"type": "hit", "target": "grim", "damage": 1, "rolls": {"injury": [6]}}]
    tokens = new_fight(client, "console-refused", "mordheim", events)
    opened = console(phone, server.url, "console-refused", tokens["gm_token"])
    page = opened.page
    page.keyboard.press("2")  # Snik
    page.keyboard.press("h")
    page.get_by_label("Damage", exact=True).fill("1")
    page.get_by_label("Attacker (optional)").select_option("grim")  # out of action: cannot act
    page.get_by_role("button", name="Record").click()
    expect(page.locator("#act-error")).to_contain_text("Refused, nothing written: event #5")
    expect(page.locator("#act-error")).to_contain_text("field $.attacker")
    assert len(log_of(client, "console-refused", tokens["gm_token"])) == 4
    # the browser logs the refused request itself; the page had no error of its own
    assert [e for e in opened.errors if "status of 422" not in e] == []


def test_undo_names_the_event_and_shows_each_character_before_and_after(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    events = [*MORDHEIM, {"type": "hit", "target": "grim", "damage": 1, "rolls": {"injury": [6]}}]
    tokens = new_fight(client, "console-undo", "mordheim", events)
    opened = console(phone, server.url, "console-undo", tokens["gm_token"])
    page = opened.page
    page.keyboard.press("u")
    expect(page.locator("#confirm-heading")).to_have_text("Undo #4 hit on Grim (1 damage)?")
    page.get_by_label("Reason (optional)").fill("a mistaken hit")
    page.get_by_role("button", name="Undo it").click()
    expect(page.locator("#status")).to_have_text(
        "Undid #4 hit on Grim (1 damage): Grim: out_of_action -> upright (wounds 0 -> 1)"
    )
    assert log_of(client, "console-undo", tokens["gm_token"])[-1] == {
        "type": "retract", "event": "#4", "reason": "a mistaken hit",
    }  # fmt: skip
    # any earlier event, by its number: Snik's joining, and with him out of the fight
    page.get_by_label("Undo an earlier event, by its number: #").fill("3")
    page.get_by_role("button", name="Undo…").click()
    expect(page.locator("#confirm-heading")).to_have_text("Undo #3 Snik joins?")
    page.get_by_role("button", name="Undo it").click()
    expect(page.locator("#status")).to_have_text("Undid #3 Snik joins: Snik: upright -> not joined")
    expect(page.locator("#roster li")).to_have_count(1)
    assert opened.errors == []


def test_the_console_fits_a_phone_and_its_actions_sit_under_the_thumb(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    tokens = new_fight(client, "console-fit", "mordheim", MORDHEIM)
    page = console(phone, server.url, "console-fit", tokens["gm_token"]).page
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    for name in ("Hit", "Heal", "Next turn", "Undo"):
        box = page.get_by_role("button", name=name, exact=True).bounding_box()
        assert box is not None and box["height"] >= 44 and box["y"] > PHONE["height"] * 0.8, name


def test_the_timeline_links_the_console_for_a_gm_token_only(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    tokens = new_fight(client, "console-linked", "mordheim", MORDHEIM)
    page = phone.new_page()
    page.goto(f"{server.url}/fights/console-linked/#gm={tokens['gm_token']}")
    link = page.get_by_role("link", name="GM console")
    expect(link).to_be_visible()
    link.click()
    expect(page.locator("#roster li")).to_have_count(2)  # the GM's token came along
    viewer = phone.new_page()
    viewer.goto(f"{server.url}/fights/console-linked/#viewer={tokens['viewer_token']}")
    expect(viewer.locator("#then caption")).to_be_visible()
    expect(viewer.get_by_role("link", name="GM console")).to_be_hidden()


# --- the done-means: a whole fight through the console, and the same through the CLI --

PARTY = [("tordek", "Tordek", 28), ("mirabel", "Mirabel", 18), ("lyra", "Lyra", 20),
         ("brom", "Brom", 24)]  # fmt: skip
GOBLINS = [("g1", "Goblin 1"), ("g2", "Goblin 2"), ("g3", "Goblin 3")]
INITIATIVE = {"tordek": 15, "mirabel": 12, "lyra": 18, "brom": 8, "g1": 14, "g2": 10, "g3": 8}
ORDER = ["lyra", "tordek", "g1", "mirabel", "g2", "brom", "g3"]
"""INITIATIVE by hand: highest first, Brom before Goblin 3 at 8 (he joined first)."""
AMBUSH = "Ambush at the ford"


def joins() -> list[dict[str, Any]]:
    pcs = [{"type": "character_joined", "character": cid, "name": name, "side": "party",
            "stats": {"hp": hp}} for cid, name, hp in PARTY]  # fmt: skip
    goblins = [{"type": "character_joined", "character": cid, "name": name, "side": "goblins",
                "kind": "monster", "stats": {"hp": 7}} for cid, name in GOBLINS]  # fmt: skip
    return [*pcs, *goblins]


class Table:
    """The GM at the console, on a phone, and the same step as the CLI would enter it."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.seq = 1 + len(PARTY) + len(GOBLINS)  # the fight's start and its joins
        self.cli: list[list[str]] = []
        self.current: str | None = None

    def recorded(self, count: int, type_: str) -> None:
        self.seq += count
        expect(self.page.locator("#status")).to_contain_text(f"#{self.seq} {type_}:")

    def pick(self, character: str) -> None:
        self.page.keyboard.press(str(ORDER.index(character) + 1))
        row = self.page.locator(f"#roster li[data-character='{character}'] .pick")
        expect(row).to_have_attribute("aria-pressed", "true")

    def next_turn(self, character: str, death_save: tuple[int, str] | None = None) -> None:
        """Next turn (`n`): `character`'s starts, as the order (by hand) says; a dying
        character's death save is asked for by name and given from the table's d20."""
        self.page.keyboard.press("n")
        roll = []
        if death_save is not None:
            face, asked = death_save
            expect(self.page.locator("#die-heading")).to_have_text(asked)
            self.page.get_by_role("button", name=f"{face} on the d20", exact=True).click()
            roll = ["--roll", f"death_save@{character}={face}"]
        self.cli.append(["next", *roll])
        self.recorded(1 if self.current is None else 2, "turn_started")
        self.current = character
        expect(self.page.locator(f"#roster li[data-character='{character}']")).to_have_class(
            "row acting"
        )

    def hit(self, target: str, damage: int, attacker: str, *, critical: bool = False) -> None:
        self.pick(target)
        self.page.keyboard.press("h")
        self.page.get_by_label("Damage", exact=True).fill(str(damage))
        self.page.get_by_label("Attacker (optional)").select_option(attacker)
        if critical:
            self.page.get_by_label("critical").check()
        self.page.get_by_role("button", name="Record").click()
        self.recorded(1, "hit")
        fact = ["--fact", "critical=true"] if critical else []
        self.cli.append(["hit", target, str(damage), "--attacker", attacker, *fact])

    def heal(self, target: str, amount: int, healer: str, means: str) -> None:
        self.pick(target)
        self.page.get_by_role("button", name="Heal", exact=True).click()  # a thumb, not a key
        self.page.get_by_label("Amount").fill(str(amount))
        self.page.get_by_label("Healer (optional)").select_option(healer)
        self.page.get_by_label("Means (optional)").fill(means)
        self.page.get_by_role("button", name="Record").click()
        self.recorded(1, "heal")
        self.cli.append(["heal", target, str(amount), "--means", means, "--healer", healer])

    def undo_last(self, reason: str, said: str) -> None:
        self.page.get_by_role("button", name="Undo", exact=True).click()
        self.page.get_by_label("Reason (optional)").fill(reason)
        self.page.get_by_role("button", name="Undo it").click()
        expect(self.page.locator("#status")).to_have_text(said)
        self.cli.append(["undo", f"#{self.seq}", "--reason", reason])
        self.seq += 1


def test_a_three_round_dnd5e_fight_run_from_the_console_ends_in_the_clis_log(
    server: Any, client: httpx.Client, browser: Browser, phone: Any, tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    made = client.post(
        "/fights",
        json={"fight": "ford", "ruleset": "dnd5e", "seed": 40, "name": AMBUSH},
        headers=bearer(ADMIN),
    )  # fmt: skip
    assert made.status_code == 201, made.text
    gm, viewer = made.json()["gm_token"], made.json()["viewer_token"]
    joined = client.post("/fights/ford/events", json=joins(), headers=bearer(gm))
    assert joined.status_code == 200, joined.text

    players = browser.new_context(viewport=PHONE)  # the table view, on a second screen
    table = players.new_page()
    table.goto(f"{server.url}/fights/ford/table#viewer={viewer}")
    expect(table.locator(".cards li")).to_have_count(7)

    opened = console(phone, server.url, "ford", gm)
    page = opened.page
    page.get_by_text("Dice and initiative").click()
    page.get_by_label("The table rolls").check()
    for character, value in INITIATIVE.items():
        page.locator(f"#init-{character}").fill(str(value))
    page.get_by_role("button", name="Set the turn order").click()
    gm_at = Table(page)
    gm_at.recorded(1, "turn_order")
    order = page.locator("#roster li").evaluate_all("rows => rows.map(r => r.dataset.character)")
    assert order == ORDER
    page.get_by_text("Dice and initiative").click()  # folded away again

    # round 1
    gm_at.next_turn("lyra")
    gm_at.hit("g1", 7, "lyra")
    gm_at.next_turn("tordek")
    gm_at.hit("g2", 5, "tordek", critical=True)
    gm_at.next_turn("mirabel")  # Goblin 1 is dead: his turn is passed over
    gm_at.next_turn("g2")
    gm_at.hit("mirabel", 18, "g2")
    expect(table.locator("li[data-character='mirabel']")).to_have_attribute("data-state", "downed")
    gm_at.hit("brom", 6, "g2")  # the wrong goblin: Goblin 2 struck no one else this turn
    gm_at.undo_last(
        "mistaken hit", "Undid #20 hit on Brom (6 damage, by Goblin 2): Brom: upright -> upright "
        "(hp 18 -> 24)",
    )  # fmt: skip
    gm_at.next_turn("brom")
    gm_at.hit("g2", 2, "brom")
    gm_at.next_turn("g3")
    gm_at.hit("tordek", 3, "g3")
    # round 2
    gm_at.next_turn("lyra")
    gm_at.hit("g3", 3, "lyra")
    gm_at.next_turn("tordek")
    gm_at.next_turn("mirabel", death_save=(12, "Death save for Mirabel, d20"))
    gm_at.next_turn("brom")
    gm_at.heal("mirabel", 0, "brom", "healers_kit")
    expect(page.locator("#roster li[data-character='mirabel']")).to_have_attribute(
        "data-state", "stabilised"
    )
    gm_at.next_turn("g3")
    gm_at.hit("brom", 4, "g3")
    # round 3
    gm_at.next_turn("lyra")
    gm_at.heal("mirabel", 6, "lyra", "cure_wounds")  # saved
    gm_at.next_turn("tordek")
    gm_at.hit("g3", 4, "tordek")
    gm_at.next_turn("mirabel")

    expect(page.locator("#turn")).to_have_text("Round 3 · Mirabel's turn")
    expect(page.locator("#roster li[data-character='mirabel'] .numbers")).to_have_text("hp 6 of 18")
    # the players' view followed every event live
    expect(table.locator("#turn")).to_have_text("Round 3 · Mirabel's turn")
    states = table.locator(".cards li").evaluate_all(
        "cards => Object.fromEntries(cards.map(c => [c.dataset.character, c.dataset.state]))"
    )
    assert states == {**dict.fromkeys(["tordek", "mirabel", "lyra", "brom"], "upright"),
                      **dict.fromkeys(["g1", "g2", "g3"], "dead")}  # fmt: skip
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert opened.errors == []
    players.close()

    # the same fight entered with the CLI
    from typer.testing import CliRunner

    from woundlog.replays.cli import app

    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "cli.db"))
    runner = CliRunner()
    setup = [["new", "ford", "--ruleset", "dnd5e", "--seed", "40", "--name", AMBUSH]]
    for cid, name, hp in PARTY:
        setup.append(["join", "ford", cid, "--name", name, "--side", "party", "--stat", f"hp={hp}"])
    for cid, name in GOBLINS:
        setup.append(["join", "ford", cid, "--name", name, "--side", "goblins",
                      "--kind", "monster", "--stat", "hp=7"])  # fmt: skip
    setup.append(["order", "ford", *(f"{cid}={value}" for cid, value in INITIATIVE.items())])
    for args in [*setup, *([args[0], "ford", *args[1:]] for args in gm_at.cli)]:
        done = runner.invoke(app, args)
        assert done.exit_code == 0, (args, done.output)
    exported = runner.invoke(app, ["export", "ford"])
    assert exported.exit_code == 0, exported.output
    cli_log = [
        {k: v for k, v in json.loads(line).items() if k not in ("id", "at")}
        for line in exported.output.splitlines()
    ]
    assert log_of(client, "ford", gm) == cli_log
    assert len(cli_log) == gm_at.seq


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desk", "phone"])
def test_the_console_has_no_serious_accessibility_violation(
    browser: Browser, server: Any, client: httpx.Client, size: str, scheme: str
) -> None:
    from .test_accessibility import opened, serious

    fight = f"console-axe-{size}-{scheme}"
    events = [*MORDHEIM, {"type": "hit", "target": "grim", "damage": 1, "rolls": {"injury": [4]}}]
    tokens = new_fight(client, fight, "mordheim", events)
    context = opened(browser, size, scheme)
    page = context.new_page()
    page.goto(f"{server.url}/fights/{fight}/console")
    expect(page.get_by_label("GM token")).to_be_visible()
    assert serious(page) == []  # its token form
    page = context.new_page()
    page.goto(f"{server.url}/fights/{fight}/console#gm={tokens['gm_token']}")
    expect(page.locator("#roster li")).to_have_count(2)
    page.get_by_text("Dice and initiative").click()
    page.get_by_text("Keyboard").click()
    assert serious(page) == []
    page.get_by_label("The table rolls").check()
    page.locator("#roster li[data-character='snik'] .pick").click()
    page.get_by_role("button", name="Hit", exact=True).click()
    assert serious(page) == []  # the hit form
    page.get_by_label("Damage", exact=True).fill("3")
    page.get_by_role("button", name="Record").click()
    expect(page.locator("#die-heading")).to_have_text("Injury roll for Snik, d6")
    assert serious(page) == []  # the die asked for
    context.close()


def test_a_check_the_rules_leave_to_the_table_is_recorded_with_its_die_asked_for(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    events = [
        {"type": "character_joined", "character": "mira", "name": "Mira", "stats": {"hp": 5}},
        {"type": "character_joined", "character": "gob", "name": "Goblin", "kind": "monster",
         "stats": {"hp": 7}},
        {"type": "hit", "target": "mira", "damage": 5, "attacker": "gob"},
    ]  # fmt: skip
    tokens = new_fight(client, "console-check", "dnd5e", events, options={"death_saves": "table"})
    page = console(phone, server.url, "console-check", tokens["gm_token"]).page
    page.get_by_text("Dice and initiative").click()
    page.get_by_label("The table rolls").check()
    page.locator("#roster li[data-character='mira'] .pick").click()
    page.get_by_role("button", name="Check…").click()
    page.get_by_role("button", name="Record").click()
    expect(page.locator("#die-heading")).to_have_text("Death save for Mira, d20")
    page.get_by_role("button", name="20 on the d20", exact=True).click()
    expect(page.locator("#status")).to_contain_text("#5 check:")
    expect(page.locator("li[data-character='mira']")).to_have_attribute("data-state", "upright")
    assert log_of(client, "console-check", tokens["gm_token"])[-1] == {
        "type": "check", "character": "mira", "check": "death_save",
        "rolls": {"death_save": [20]},
    }  # fmt: skip


def test_a_choice_form_offers_the_rulesets_choices_and_the_rules_decide(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    events = [{"type": "character_joined", "character": "kael", "name": "Kael", "stats": {"hp": 9}}]
    tokens = new_fight(client, "console-choice", "d26", events)
    opened = console(phone, server.url, "console-choice", tokens["gm_token"])
    page = opened.page
    page.locator("#roster li[data-character='kael'] .pick").click()
    page.get_by_role("button", name="Check…").click()
    expect(page.locator("#act-heading")).to_have_text("Kael chooses")
    options = page.get_by_label("Chooses", exact=True).locator("option").all_inner_texts()
    assert options == ["last stand", "hold on"]
    page.get_by_label("Chooses", exact=True).select_option("hold_on")
    page.get_by_role("button", name="Record").click()  # upright: nothing to choose yet
    expect(page.locator("#act-error")).to_contain_text(
        "Refused, nothing written: event #3, field $.character: Kael"
    )
    assert len(log_of(client, "console-choice", tokens["gm_token"])) == 2

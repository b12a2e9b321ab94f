"""`woundlog share` (issue 26): a fight's pages handed out with a token of their own, through
the store `woundlog serve` reads, beside the tokens already out; the links open the fight on a
real service on loopback, the QR code in the terminal is the table link, `--list` and
`--revoke` manage the tokens, `--serve` starts the service unless one answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import segno

from .conftest import Run
from .service.server import ADMIN, Server, bearer, free_port

CLI = [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]
BLOCKS = {" ": (1, 1), "\u2580": (0, 1), "\u2584": (1, 0), "\u2588": (0, 0)}
"""segno's compact terminal writer: a character is two modules, top and bottom, 1 dark."""
WAIT_S = 20.0


def token_in(link: str, role: str = "viewer") -> str:
    return parse_qs(urlsplit(link).fragment)[role][0]


def qr_modules(output: str) -> list[list[int]]:
    """The QR code drawn in `output`, back to rows of modules (1 dark), quiet zone and all."""
    lines = [line for line in output.splitlines() if line and set(line) <= set(BLOCKS)]
    rows: list[list[int]] = []
    for line in lines:
        pairs = [BLOCKS[char] for char in line]
        rows += [[top for top, _ in pairs], [bottom for _, bottom in pairs]]
    return rows


def test_share_prints_links_that_open_the_fight_and_a_qr_code_of_the_table(
    run: Run, skirmish: str, db: Path
) -> None:
    with Server(db) as server:
        first = run("share", skirmish, "--url", server.url)
        assert first.exit_code == 0, first.output
        links = dict(
            line.split()[:2] for line in first.output.splitlines()
            if line.startswith(("timeline ", "table "))
        )  # fmt: skip
        assert (
            links["table"]
            == f"{server.url}/fights/{skirmish}/table#viewer={token_in(links['table'])}"
        )
        assert links["timeline"].startswith(f"{server.url}/fights/{skirmish}/#viewer=")
        viewer = bearer(token_in(links["table"]))
        assert httpx.get(f"{server.url}/fights/{skirmish}/state", headers=viewer).status_code == 200
        assert httpx.get(f"{server.url}/fights/{skirmish}/table").status_code == 200  # the page

        drawn = qr_modules(first.output)
        expected = segno.make_qr(links["table"])
        border = 4
        size = len(expected.matrix)
        inner = [row[border : border + size] for row in drawn[border : border + size]]
        assert inner == [list(row) for row in expected.matrix]
        assert all(not any(row) for row in drawn[:border])  # the quiet zone is light

        second = run("share", skirmish, "--gm", "--name", "table", "--url", server.url, "--json")
        assert second.exit_code == 0, second.output
        handed = json.loads(second.output)
        assert (handed["viewer"]["name"], handed["gm"]["name"]) == ("table", "table-gm")
        gm = bearer(token_in(handed["timeline"], "gm"))
        hit = {"type": "hit", "target": "grim", "damage": 1}
        wrote = httpx.post(f"{server.url}/fights/{skirmish}/events", json=hit, headers=gm)
        assert wrote.status_code == 200, wrote.text
        # the first link still works: sharing again revokes nothing
        assert httpx.get(f"{server.url}/fights/{skirmish}/state", headers=viewer).status_code == 200


def test_share_lists_and_revokes_by_name(run: Run, skirmish: str, db: Path) -> None:
    kept = json.loads(run("share", skirmish, "--name", "alice", "--json").output)
    gone = json.loads(run("share", skirmish, "--name", "bob", "--json").output)
    listed = run("share", skirmish, "--list", "--json")
    assert [(t["name"], t["role"]) for t in json.loads(listed.output)] == [
        ("alice", "viewer"), ("bob", "viewer"),
    ]  # fmt: skip
    assert kept["viewer"]["token"] not in listed.output
    table = run("share", skirmish, "--list")
    assert "alice" in table.output and "bob" in table.output

    revoked = run("share", skirmish, "--revoke", "bob")
    assert revoked.exit_code == 0 and "revoked the viewer token `bob`" in revoked.output
    with Server(db) as server:
        state = f"{server.url}/fights/{skirmish}/state"
        assert httpx.get(state, headers=bearer(kept["viewer"]["token"])).status_code == 200
        assert httpx.get(state, headers=bearer(gone["viewer"]["token"])).status_code == 401
    again = run("share", skirmish, "--revoke", "bob")
    assert again.exit_code == 2 and "no token named `bob`" in again.output
    taken = run("share", skirmish, "--name", "alice")
    assert taken.exit_code == 2 and "already has a token named `alice`" in taken.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--list", "--gm"), "--list and --gm: give --list or --revoke NAME alone"),
        (("--revoke", "x", "--name", "y"), "--revoke and --name"),
        (("--url", "127.0.0.1:8000"), "give the service's base"),
        (("--name", "-x"), "token name '-x'"),
    ],
)
def test_share_refuses_what_it_cannot_do(
    run: Run, skirmish: str, args: tuple[str, ...], said: str
) -> None:
    refused = run("share", skirmish, *args)
    assert refused.exit_code == 2
    assert said in refused.output


def test_share_of_a_fight_not_there_names_the_fights(run: Run, skirmish: str) -> None:
    refused = run("share", "nope")
    assert refused.exit_code == 2 and f"no fight `nope` (fights: {skirmish})" in refused.output


def test_share_on_postgres_hands_out_tokens_the_service_there_takes(
    postgres_url: str, tmp_path: Path
) -> None:
    env = {**os.environ, "WOUNDLOG_DB": postgres_url}
    made = subprocess.run(
        [*CLI, "new", "pg", "--ruleset", "mordheim"], env=env, capture_output=True
    )
    assert made.returncode == 0, made.stderr
    shared = subprocess.run([*CLI, "share", "pg", "--json"], env=env, capture_output=True)
    assert shared.returncode == 0, shared.stderr
    token = json.loads(shared.stdout)["viewer"]["token"]
    with Server(postgres_url, logs=tmp_path) as server:
        assert httpx.get(f"{server.url}/fights/pg/state", headers=bearer(token)).status_code == 200
        listed = httpx.get(f"{server.url}/fights/pg/tokens", headers=bearer(ADMIN))
        assert [t["name"] for t in listed.json()] == ["viewer-2"]


def test_share_serve_starts_the_service_when_none_answers(skirmish: str, db: Path) -> None:
    base = f"http://127.0.0.1:{free_port()}"
    env = {**os.environ, "WOUNDLOG_DB": str(db), "WOUNDLOG_ADMIN_TOKEN": ADMIN}
    log = db.parent / "share.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [*CLI, "share", skirmish, "--serve", "--url", base], env=env, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + WAIT_S
        while "front page" not in log.read_text():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        table = next(
            line.split()[1] for line in log.read_text().splitlines() if line.startswith("table ")
        )
        viewer = bearer(token_in(table))
        assert httpx.get(f"{base}/fights/{skirmish}/state", headers=viewer).status_code == 200

        # a service answers there now: a second share only prints, and returns
        again = subprocess.run(
            [*CLI, "share", skirmish, "--serve", "--url", base], env=env, capture_output=True,
            timeout=WAIT_S,
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert f"a service answers at {base}" in again.stdout.decode()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_share_whose_gm_name_would_be_too_long_issues_nothing(run: Run, skirmish: str) -> None:
    name = "t" * 62  # a valid viewer name (64 at most); its gm token's `NAME-gm` is 65
    refused = run("share", skirmish, "--gm", "--name", name)
    assert refused.exit_code == 2 and f"token name '{name}-gm'" in refused.output
    assert json.loads(run("share", skirmish, "--list", "--json").output) == []


def test_share_gm_links_the_gm_console_with_the_gm_token(run: Run, skirmish: str, db: Path) -> None:
    with Server(db) as server:
        shared = run("share", skirmish, "--gm", "--url", server.url)
        assert shared.exit_code == 0, shared.output
        links = dict(
            line.split()[:2] for line in shared.output.splitlines()
            if line.startswith(("timeline ", "console "))
        )  # fmt: skip
        gm = token_in(links["timeline"], "gm")
        assert links["console"] == f"{server.url}/fights/{skirmish}/console#gm={gm}"
        assert httpx.get(links["console"].partition("#")[0]).status_code == 200  # the page
        viewer_only = run("share", skirmish, "--url", server.url)
        assert "console " not in viewer_only.output  # a viewer token runs no fight


def test_share_campaign_gives_a_campaign_made_from_the_cli_a_link_to_its_page(
    run: Run, skirmish: str, db: Path
) -> None:
    made = run("campaign", "new", "trail", "--ruleset", "mordheim")
    assert made.exit_code == 0, made.output
    with Server(db) as server:
        shared = run("share", "--campaign", "trail", "--gm", "--url", server.url, "--json")
        assert shared.exit_code == 0, shared.output
        handed = json.loads(shared.output)
        assert handed["page"] == f"{server.url}/campaigns/trail/#gm={handed['gm']['token']}"
        viewer, gm = bearer(handed["viewer"]["token"]), bearer(handed["gm"]["token"])
        read = httpx.get(f"{server.url}/campaigns/trail/record", headers=viewer)
        assert read.status_code == 200, read.text
        member = {"member": "grim", "side": "reavers", "stats": {"wounds": 1}}
        joined = httpx.post(f"{server.url}/campaigns/trail/members", json=member, headers=gm)
        assert joined.status_code == 200, joined.text
        refused = httpx.get(f"{server.url}/fights/{skirmish}/state", headers=viewer)
        assert refused.status_code == 403  # the campaign's token opens the campaign alone
        said = run("share", "--campaign", "trail", "--url", server.url)
        assert said.exit_code == 0 and f"{server.url}/campaigns/trail/#viewer=" in said.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("share",), "name a fight, or a campaign with --campaign"),
        (("share", "skirmish", "--campaign", "trail"), "name a fight, or a campaign"),
        (("share", "--campaign", "nope"), "no campaign `nope`"),
        (("share", "--campaign", "nope", "--list"), "--campaign and --list: give them with"),
        (("share", "skirmish", "--list", "--monsters", "shown"), "--list and --monsters"),
        (("share", "skirmish", "--monsters", "numbers"), "'numbers' is not one of"),
    ],
)
def test_share_refuses_a_campaign_and_a_players_view_it_cannot_give(
    run: Run, skirmish: str, args: tuple[str, ...], said: str
) -> None:
    refused = run(*args)
    assert refused.exit_code == 2
    assert said in refused.output


def test_share_monsters_sets_what_viewer_tokens_see_of_monsters_for_the_service(
    run: Run, db: Path
) -> None:
    for args in (
        ("new", "yard", "--ruleset", "dnd5e"),
        ("join", "yard", "gob", "--kind", "monster", "--stat", "hp=7717"),
    ):
        assert run(*args).exit_code == 0
    shared = run("share", "yard", "--monsters", "hidden")
    assert shared.exit_code == 0, shared.output
    assert "see monsters' hit points not at all" in shared.output
    with Server(db) as server:
        viewer = bearer(token_in(next(w for w in shared.output.split() if "#viewer=" in w)))
        state = httpx.get(f"{server.url}/fights/yard/state", headers=viewer)
        assert "7717" not in state.text and "health" not in state.text
        assert run("share", "yard", "--monsters", "shown").exit_code == 0
        state = httpx.get(f"{server.url}/fights/yard/state", headers=viewer)
        assert state.json()["characters"]["gob"]["hp"] == 7717


def test_share_campaign_monsters_sets_what_its_viewer_tokens_see_of_its_monsters(
    run: Run, db: Path
) -> None:
    for args in (
        ("campaign", "new", "road", "--ruleset", "dnd5e"),
        ("campaign", "join", "road", "ogre", "--kind", "monster", "--stat", "hp=6113"),
    ):
        made = run(*args)
        assert made.exit_code == 0, made.output
    shared = run("share", "--campaign", "road", "--monsters", "hidden", "--json")
    assert shared.exit_code == 0, shared.output
    viewer = bearer(json.loads(shared.output)["viewer"]["token"])
    with Server(db) as server:
        record = httpx.get(f"{server.url}/campaigns/road/record", headers=viewer)
        assert record.status_code == 200 and "6113" not in record.text
        assert "health" not in record.text  # hidden: not even a band
        said = run("share", "--campaign", "road", "--monsters", "shown")
        assert "its monsters' hit points as numbers" in said.output
        record = httpx.get(f"{server.url}/campaigns/road/record", headers=viewer)
        assert record.json()["members"][0]["hp"] == 6113

"""A campaign's report (issue 30, last bullet), over a real SQLite file: each member's numbers
summed over the fights the campaign records, counted by hand from two dnd5e fights; a member
playing under another id in one of them; a fight whose `fight_played` the GM took back left
out; a fight's own undone hit left out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.events import CharacterJoined, FightStarted, Heal, Hit
from woundlog.replays.application import Application
from woundlog.replays.application.values import CampaignNotFoundError
from woundlog.replays.report import Length, Tally
from woundlog.replays.report.campaign import FightBlow

from .conftest import Run


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "campaign.db")) as opened:
        yield opened


def fight(app: Application, name: str, *events: object) -> None:
    app.create(name, FightStarted(ruleset="dnd5e", name=name.upper()))
    app.record(name, list(events))  # type: ignore[arg-type]


def two_fights(app: Application) -> None:
    """f1: Mira hits the goblin for 4 (#5), the goblin drops Oro's 9 hp to 0 (#6), Mira heals
    Oro 3 (#7). f2, Mira as `m`: 5 and 6 to the wolf (#4, #6), 6 from it (#5), 3 more (#7)
    taken back (#8). f3: recorded, then its `fight_played` retracted."""
    app.campaign_new("west", "dnd5e", name="Westmarch")
    app.campaign_join("west", "mira", name="Mira", side="party", stats={"hp": 20})
    app.campaign_join("west", "oro", name="Oro", side="party", stats={"hp": 9})
    fight(
        app, "f1",
        CharacterJoined(character="mira", side="party", stats={"hp": 20}),
        CharacterJoined(character="oro", side="party", stats={"hp": 9}),
        CharacterJoined(character="gob", side="goblins", stats={"hp": 7}),
        Hit(target="gob", damage=4, attacker="mira"),
        Hit(target="oro", damage=9, attacker="gob"),
        Heal(target="oro", amount=3, healer="mira"),
    )  # fmt: skip
    app.campaign_record("west", "f1")
    fight(
        app, "f2",
        CharacterJoined(character="m", side="party", stats={"hp": 20}),
        CharacterJoined(character="wolf", side="wolves", stats={"hp": 30}),
        Hit(target="wolf", damage=5, attacker="m"),
        Hit(target="m", damage=6, attacker="wolf"),
        Hit(target="wolf", damage=6, attacker="m"),
        Hit(target="wolf", damage=3, attacker="m"),
    )  # fmt: skip
    app.undo("f2")
    app.campaign_record("west", "f2", {"mira": "m"})
    fight(
        app, "f3",
        CharacterJoined(character="mira", side="party", stats={"hp": 20}),
        Hit(target="mira", damage=2),
    )  # fmt: skip
    app.campaign_record("west", "f3", {"mira": "mira"})
    app.campaign_undo("west")  # the f3 fight_played: the GM took it back


def test_each_members_numbers_are_summed_over_the_fights_the_campaign_records(
    app: Application,
) -> None:
    two_fights(app)
    report = app.campaign_report("west")
    assert (report.campaign, report.name, report.ruleset) == ("west", "Westmarch", "dnd5e")
    assert [(f.fight, f.name, f.members) for f in report.fights] == [
        ("f1", "F1", {"mira": "mira", "oro": "oro"}),
        ("f2", "F2", {"mira": "m"}),
    ]
    mira, oro = report.members
    assert (mira.member, mira.name, mira.side) == ("mira", "Mira", "party")
    assert mira.fights == ["f1", "f2"]
    # f1: 4 to the goblin, 3 healed to Oro; f2: 5 + 6 to the wolf (the 3 undone), 6 taken
    assert mira.tally == Tally(
        hits_dealt=3, damage_dealt=15, hits_taken=1, damage_taken=6, heals_given=1,
        healing_given=3,
    )  # fmt: skip
    assert oro.fights == ["f1"]
    # no tick in f1: no round to count him down in
    assert oro.tally == Tally(
        hits_taken=1, damage_taken=9, heals_taken=1, healing_taken=3, downed=1
    )
    assert oro.put_out_by == [
        FightBlow(fight="f1", seq=6, character="oro", by="gob", state="downed")
    ]
    assert (mira.put_out_by, mira.put_out, oro.put_out) == ([], [], [])
    assert report.total == Tally(
        hits_dealt=3, damage_dealt=15, hits_taken=2, damage_taken=15, heals_given=1,
        healing_given=3, heals_taken=1, healing_taken=3, downed=1,
    )  # fmt: skip
    # f1: 7 events; f2: 8, the last a retract of the 7th
    assert report.length == Length(rounds=0, events=15, undo_events=1, undone=1, void=0)


def test_a_member_who_played_no_fight_is_listed_with_nothing(app: Application) -> None:
    two_fights(app)
    app.campaign_join("west", "ash", name="Ash", stats={"hp": 12})
    ash = app.campaign_report("west").members[2]
    assert (ash.name, ash.fights, ash.tally) == ("Ash", [], Tally())


def test_an_unknown_campaign_is_refused(app: Application) -> None:
    with pytest.raises(CampaignNotFoundError, match="no campaign `east`"):
        app.campaign_report("east")


# --- woundlog campaign report, as typed ---------------------------------------------------


def test_the_command_prints_markdown_json_and_writes_a_file(
    run: Run, db: Path, tmp_path: Path
) -> None:
    with Application.opened(str(db)) as app:
        two_fights(app)

    def ok(*args: str) -> str:
        result = run(*args)
        assert result.exit_code == 0, result.output
        return result.output

    text = ok("campaign", "report", "west")
    assert "# Westmarch" in text
    assert "dnd5e, 2 fights: 0 rounds, 15 events" in text
    # Mira: 3 hits for 15, 1 taken for 6, 1 heal of 3; no one put out
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| ")}
    assert rows["| Mira"] == (
        "| Mira | party | 2 | 3 (15) | 1 (6) | 1 (3) | 0 (0) | 0 | 0 | 0 | 0 | 0 | 0 | 0 |"
    )
    assert rows["| Oro"] == (
        "| Oro | party | 1 | 0 (0) | 1 (9) | 0 (0) | 1 (3) | 0 | 0 | 1 | 0 | 0 | 1 | 0 |"
    )
    assert rows["| All"] == (
        "| All | | 2 | 3 (15) | 2 (15) | 1 (3) | 1 (3) | 0 | 0 | 1 | 0 | 0 | 1 | 0 |"
    )
    assert "- F2 (`f2`): 0 rounds, 8 events (1 undo event took back 1 event" in text
    shown = json.loads(ok("campaign", "report", "west", "--json"))
    assert shown["total"]["damage_dealt"] == 15
    assert [f["fight"] for f in shown["fights"]] == ["f1", "f2"]
    out = tmp_path / "west.md"
    assert f"wrote {out}" in ok("campaign", "report", "west", "-o", str(out))
    assert out.read_text(encoding="utf-8") == text

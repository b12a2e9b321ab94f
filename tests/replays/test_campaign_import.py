"""An import naming a campaign, through `Application` over a real SQLite file: the fight is
recorded on the roster once (a resent or continued import does not record it again), with the
members who are its characters under their own ids; characters who are no members (a Foundry
world's goblins) stay off the roster; a campaign that is not there, or plays other rules, is
refused before anything is written.

The records are Foundry VTT dnd5e hook payloads in the shape of tests/data/importers/
foundry_dnd5e.jsonl (foundry_fixtures.py names the Foundry release and files they follow)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from woundlog.events import UsageError
from woundlog.replays.application import Application
from woundlog.replays.application.values import CampaignNotFoundError

BRAKKA = "Actor.actBrakka0000001"
GOBLIN = "Scene.sceneMain0000001.Token.tkGoblin00000001"


def actor(uuid: str, name: str, hp: int, *, player: bool) -> dict[str, Any]:
    short = uuid.rsplit(".", 1)[-1]
    return {
        "token": {"uuid": uuid, "name": name, "player": player},
        "actor": {"id": short, "name": name, "type": "character" if player else "npc",
                  "hp": {"value": hp, "max": 12 if player else 7, "temp": 0, "tempmax": 0}},
    }  # fmt: skip


def turn(id: str) -> dict[str, Any]:
    return {
        "hook": "combatTurnChange", "id": id, "combat": "combat0000000001",
        "prior": {"round": 0, "turn": None, "combatantId": None, "tokenId": None},
        "current": {"round": 1, "turn": 0, "combatantId": "cb-brakka", "tokenId": "tkBrakka"},
        "turns": [
            {"combatantId": "cb-brakka", **actor(BRAKKA, "Brakka", 12, player=True)},
            {"combatantId": "cb-gob1", **actor(GOBLIN, "Goblin (1)", 7, player=False)},
        ],
    }  # fmt: skip


def damage(id: str, hp_after: int, amount: int) -> dict[str, Any]:
    return {
        "hook": "dnd5e.applyDamage", "id": id, **actor(BRAKKA, "Brakka", hp_after, player=True),
        "amount": amount, "attacker": GOBLIN,
        "changes": {"hp": -amount, "temp": 0, "total": -amount},
    }  # fmt: skip


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "campaign.db")) as opened:
        opened.campaign_new("world", "dnd5e", name="The Foundry world")
        opened.campaign_join("world", BRAKKA, name="Brakka", stats={"hp": 12})
        yield opened


def hp(app: Application, member: str) -> int:
    record = next(r for r in app.campaign_show("world").members if r.member == member)
    return int(record.current["current_hp"])


def test_an_imported_fight_is_recorded_with_the_members_among_its_characters(
    app: Application,
) -> None:
    appended = app.import_records(
        "ambush", "foundry", [turn("e1"), damage("e2", 7, 5)], create=True, campaign="world"
    )
    assert appended.recorded_in == "world" and appended.warnings == []
    view = app.campaign_show("world")
    assert view.fights == ["ambush"]
    assert [r.member for r in view.members] == [BRAKKA]  # the goblin is not joined
    assert hp(app, BRAKKA) == 7  # 12 - 5: the fight's result, folded from its log
    assert app.state("ambush").ruleset == "dnd5e"


def test_a_resent_or_continued_import_records_the_fight_once(app: Application) -> None:
    app.import_records("ambush", "foundry", [turn("e1")], create=True, campaign="world")
    version = app.campaign_show("world").version
    resent = app.import_records("ambush", "foundry", [turn("e1")], create=True, campaign="world")
    assert resent.recorded_in is msgspec.UNSET and resent.changes == []
    more = app.import_records(
        "ambush", "foundry", [damage("e2", 9, 3)], create=True, campaign="world"
    )
    assert more.recorded_in is msgspec.UNSET and len(more.changes) >= 1
    view = app.campaign_show("world")
    assert view.version == version and view.fights == ["ambush"]
    assert hp(app, BRAKKA) == 9  # 12 - 3: the record folds the fight as it stands now


def test_a_fight_without_members_is_imported_and_the_warning_says_how_to_record_it(
    app: Application,
) -> None:
    app.campaign_new("other", "dnd5e")
    appended = app.import_records("ambush", "foundry", [turn("e1")], create=True, campaign="other")
    assert appended.recorded_in is msgspec.UNSET and app.exists("ambush")
    [warning] = appended.warnings
    assert "not recorded in campaign `other`" in warning
    assert "'woundlog campaign record other ambush'" in warning


def test_a_campaign_that_cannot_be_written_after_the_import_committed_is_a_warning(
    app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    # The campaign's append fails as a full disk would, after the fight's events committed.
    monkeypatch.setattr(app, "campaign_record", disk_full)
    appended = app.import_records(
        "ambush", "foundry", [turn("e1"), damage("e2", 7, 5)], create=True, campaign="world"
    )
    assert appended.recorded_in is msgspec.UNSET and len(appended.changes) >= 1
    [warning] = appended.warnings
    assert "not recorded in campaign `world`" in warning and "No space left" in warning
    assert "'woundlog campaign record world ambush'" in warning
    assert app.state("ambush").characters  # the fight itself is kept


def test_a_campaign_not_there_or_of_other_rules_is_refused_before_anything_is_written(
    app: Application,
) -> None:
    with pytest.raises(CampaignNotFoundError):
        app.import_records("ambush", "foundry", [turn("e1")], create=True, campaign="nowhere")
    with pytest.raises(UsageError, match="`world` plays dnd5e; fight `ambush` would play d26"):
        app.import_records(
            "ambush", "foundry", [turn("e1")], ruleset="d26", create=True, campaign="world"
        )
    assert not app.exists("ambush")
    assert app.campaign_show("world").fights == []

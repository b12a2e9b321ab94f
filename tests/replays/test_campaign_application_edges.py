"""The campaign's use cases at their edges (issue 39, found missing by the mutation run): the
ruleset an import into a campaign plays, the same rules taken and other rules refused; a fight an
import records once, a resend recording nothing; a record the rules refuse after an import coming
back as a warning naming the fight's characters; and a name that cannot be shown refused naming
its field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.events import CharacterJoined, FightStarted, Hit, StructuralError, UsageError
from woundlog.replays.application import Application


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "campaign.db")) as opened:
        opened.campaign_new("west", "dnd5e", name="Westmarch")
        opened.campaign_join("west", "mira", name="Mira", stats={"hp": 20})
        yield opened


def test_an_import_plays_the_campaigns_ruleset_and_a_fight_of_other_rules_is_refused(
    app: Application,
) -> None:
    assert app.campaign_ruleset_for("west", "new-fight", None) == "dnd5e"
    assert app.campaign_ruleset_for("west", "new-fight", "dnd5e") == "dnd5e"
    app.create("same", FightStarted(ruleset="dnd5e"))
    assert app.campaign_ruleset_for("west", "same", None) == "dnd5e"
    with pytest.raises(UsageError, match="campaign `west` plays dnd5e; fight `x` would play d26"):
        app.campaign_ruleset_for("west", "x", "d26")
    app.create("other", FightStarted(ruleset="mordheim"))
    with pytest.raises(UsageError, match="fight `other` would play mordheim"):
        app.campaign_ruleset_for("west", "other", None)


def test_an_imported_fight_is_recorded_once_and_a_resend_records_nothing(
    app: Application,
) -> None:
    app.create("f1", FightStarted(ruleset="dnd5e"))
    app.record(
        "f1", [CharacterJoined(character="mira", stats={"hp": 20}), Hit(target="mira", damage=3)]
    )
    assert app.campaign_record_imported("west", "f1") == (True, [])
    assert app.campaign_record_imported("west", "f1") == (False, [])
    assert app.campaign_show("west").fights == ["f1"]


def test_an_import_no_member_played_is_a_warning_naming_the_fights_characters(
    app: Application,
) -> None:
    app.create("f1", FightStarted(ruleset="dnd5e"))
    app.record("f1", [CharacterJoined(character="goblin", stats={"hp": 7})])
    recorded, warnings = app.campaign_record_imported("west", "f1")
    assert recorded is False
    [warning] = warnings
    assert "fight `f1` is not recorded in campaign `west`" in warning
    assert "(members: mira; characters: goblin)" in warning
    assert "'woundlog campaign record west f1' records it" in warning


def test_an_import_the_campaigns_rules_refuse_to_record_is_a_warning(app: Application) -> None:
    """Its events are committed: the rules' refusal (a fight of other rules) is told, not
    raised, and nothing is recorded."""
    app.create("m1", FightStarted(ruleset="mordheim"))
    app.record("m1", [CharacterJoined(character="mira", side="a", stats={"wounds": 1})])
    recorded, warnings = app.campaign_record_imported("west", "m1")
    assert recorded is False
    [warning] = warnings
    assert "fight `m1` is not recorded in campaign `west`" in warning
    assert "plays mordheim, the campaign dnd5e" in warning
    assert app.campaign_show("west").fights == []


def test_a_name_that_cannot_be_shown_is_refused_naming_its_field(app: Application) -> None:
    with pytest.raises(StructuralError) as refused:
        app.campaign_join("west", "tam", name="T\x1bam", stats={"hp": 9})
    assert refused.value.field == "$.name"
    assert [m.member for m in app.campaign_show("west").members] == ["mira"]

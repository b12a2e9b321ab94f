"""A campaign's promises at their edges, each written against a plausible slip that no test
noticed (issue 39, `tests/mutation/handwritten.py`): the roster, a member's record across
fights, rests and time, the refusals, an undo's consequences and a member's history. Expected
values are the README's and the rule texts' (SRD 5.1 for dnd5e, d26's Fatigued)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from woundlog.events import ConflictError, FightStarted, RuleError, UsageError
from woundlog.replays.application import Application, TooLarge


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "campaign.db")) as opened:
        yield opened


def member(app: Application, name: str, at: int | None = None) -> Any:
    return next(m for m in app.campaign_show("c", at).members if m.member == name)


def played(app: Application, fight: str, *lines: dict[str, Any], members: Any = None) -> None:
    """Fight `fight` (the campaign's ruleset): `members` (default: every active member) join
    from the roster, `lines` are recorded, the fight goes on the campaign's record."""
    shown = app.campaign_show("c")
    app.create(fight, FightStarted(ruleset=shown.ruleset))
    who = members or [m.member for m in shown.members if m.dead is None and m.retired is None]
    for one in who:
        app.join_from_campaign(fight, one, "c")
    for fields in lines:
        app.record_named(fight, [fields])
    app.campaign_record("c", fight, {m: m for m in who})


def hit(target: str, damage: int, **more: Any) -> dict[str, Any]:
    return {"type": "hit", "target": target, "damage": damage, **more}


def party(app: Application) -> None:
    """A dnd5e campaign of two: Mira (10 hit points) and Tam (12)."""
    app.campaign_new("c", "dnd5e")
    app.campaign_join("c", "mira", name="Mira", stats={"hp": 10})
    app.campaign_join("c", "tam", name="Tam", stats={"hp": 12})


# --- the record across fights ------------------------------------------------------------------


def test_a_members_record_lists_every_fight_they_played_in_order(app: Application) -> None:
    party(app)
    played(app, "f1", hit("mira", 2))
    played(app, "f2", hit("tam", 1), members=["tam"])
    played(app, "f3", hit("mira", 1))
    assert member(app, "mira").fights == ("f1", "f3")
    assert member(app, "tam").fights == ("f1", "f2", "f3")


def test_a_rest_of_no_kind_is_the_rulesets_first_a_dnd5e_long_rest(app: Application) -> None:
    # dnd5e's rests are `long` and `short` (its first is the default): a long rest gives every
    # hit point back, a short one only the Hit Dice the table rolled (none given here)
    party(app)
    played(app, "f1", hit("mira", 6))
    app.campaign_rest("c")
    assert member(app, "mira").current["current_hp"] == 10


def test_days_passing_leave_the_dead_and_the_retired_as_they_are(app: Application) -> None:
    # dnd5e: a stable creature at 0 regains 1 hit point after 1d4 hours; the dead do not
    party(app)
    app.campaign_join("c", "oro", name="Oro", stats={"hp": 8})
    played(app, "f1", hit("mira", 30), hit("oro", 8))  # Mira dies outright, Oro is dying
    app.campaign_retire("c", "oro", reason="opens an inn")
    app.campaign_time("c", 3)
    assert member(app, "mira").dead is not None
    assert member(app, "mira").current["current_hp"] == 0
    assert member(app, "oro").current["current_hp"] == 0


def test_a_retired_member_is_refused_a_rest_a_treatment_and_a_fight(app: Application) -> None:
    party(app)
    played(app, "f1", hit("tam", 4))
    app.campaign_retire("c", "tam", reason="opens an inn")
    with pytest.raises(RuleError, match="Tam has retired: opens an inn"):
        app.campaign_treat("c", "tam", amount=2)
    with pytest.raises(RuleError, match="Tam has retired"):
        app.campaign_rest("c", "long", member="tam")
    app.create("f2", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f2", "mira", "c")
    app.record_named("f2", [{"type": "character_joined", "character": "tam", "stats": {"hp": 12}}])
    with pytest.raises(RuleError, match="Tam has retired"):
        app.campaign_record("c", "f2", {"mira": "mira", "tam": "tam"})
    assert member(app, "tam").current["current_hp"] == 8  # nothing of it reached him


def test_a_void_part_of_a_fight_is_not_counted_in_the_campaigns_report(app: Application) -> None:
    # Mira's death in f2, taken back, then restored by an undo: her part of f3 is void, so the
    # report counts f3 for Tam alone
    party(app)
    app.create("f2", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f2", "mira", "c")
    app.record_named("f2", [hit("mira", 30)])
    app.record_named("f2", [{"type": "retract", "event": "#3"}])
    app.campaign_record("c", "f2", {"mira": "mira"})
    played(app, "f3", hit("tam", 3), hit("mira", 2))
    app.campaign_undo("c", "#4", fight="f2")
    report = app.campaign_report("c")
    by = {m.member: m for m in report.members}
    assert by["mira"].fights == ["f2"]
    assert by["tam"].fights == ["f3"]
    assert by["mira"].tally.damage_taken == 30  # f2's blow alone, not f3's 2


def test_a_member_killed_in_a_fight_is_dead_at_the_event_that_killed_them(
    app: Application,
) -> None:
    # SRD 5.1: damage that leaves as much as the hit point maximum past 0 kills outright
    party(app)
    played(app, "f1", hit("tam", 2), hit("mira", 30, id="the-owlbear"))
    assert member(app, "mira").dead == "fight f1, the-owlbear"
    assert member(app, "tam").dead is None


def test_a_retired_member_is_left_out_of_a_rest_of_everyone(app: Application) -> None:
    party(app)
    played(app, "f1", hit("tam", 4), hit("mira", 3))
    app.campaign_retire("c", "tam", reason="opens an inn")
    rested = app.campaign_rest("c", "long")
    assert [m.member for m in rested.members] == ["mira"]
    assert member(app, "tam").current["current_hp"] == 8
    assert member(app, "mira").current["current_hp"] == 10


# --- d26 treatments: by the injury's name or the event that dealt it --------------------------


def d26_blow(target: str, location: int, eid: str) -> dict[str, Any]:
    """15 damage on 12 HP: 3 over at 0 HP, a Severe Injury at d26 location `location`."""
    return hit(target, 15, id=eid, rolls={"location": [location]})


def test_a_treatment_names_the_injury_by_the_event_that_dealt_it(app: Application) -> None:
    app.campaign_new("c", "d26")
    app.campaign_join("c", "mira", name="Mira", stats={"hp": 12})
    played(app, "f1", d26_blow("mira", 2, "leg-blow"))
    app.campaign_rest("c")
    played(app, "f2", d26_blow("mira", 4, "other-blow"))
    assert [i.event for i in member(app, "mira").injuries] == ["leg-blow", "other-blow"]
    with pytest.raises(RuleError, match="has 2 injuries: name the one treated"):
        app.campaign_treat("c", "mira")
    app.campaign_treat("c", "mira", injury="other-blow")
    assert [i.event for i in member(app, "mira").injuries] == ["leg-blow"]
    with pytest.raises(RuleError, match="no injury `other-blow`"):
        app.campaign_treat("c", "mira", injury="other-blow")


def test_a_treatment_of_one_of_two_same_named_injuries_treats_the_oldest_alone(
    app: Application,
) -> None:
    # the contractor text: a wound at 0 HP takes 4 Constitution, a weapon-arm Fracture (wound
    # roll 37) 2 Dexterity more. The blow is #3 in each fight, so both wounds have one name
    app.campaign_new("c", "contractor")
    app.campaign_join("c", "cinder", name="Cinder", stats={"constitution": 14, "dexterity": 5})
    played(app, "f1", hit("cinder", 14, rolls={"wound": [37]}))
    played(app, "f2", hit("cinder", 10, rolls={"wound": [37]}))
    first, second = member(app, "cinder").injuries
    assert first.name == second.name and (first.fight, second.fight) == ("f1", "f2")
    assert member(app, "cinder").current["constitution"] == 6
    app.campaign_treat("c", "cinder", injury=first.name, means="treat_wound")
    cinder = member(app, "cinder")
    assert [i.fight for i in cinder.injuries] == ["f2"]
    assert (cinder.current["constitution"], cinder.current["dexterity"]) == (10, 3)


# --- an undo's consequences ---------------------------------------------------------------------


def three_fights(app: Application) -> None:
    """Mira hit for 5 in f1 (`h`), 1 in f2 and 1 in f3, each fight joined from her record."""
    party(app)
    played(app, "f1", hit("mira", 5, id="h"), members=["mira"])
    played(app, "f2", hit("mira", 1), members=["mira"])
    played(app, "f3", hit("mira", 1), members=["mira"])
    assert member(app, "mira").current["current_hp"] == 3


def test_an_undos_consequence_for_a_stat_is_said_once_from_the_first_fight_it_reaches(
    app: Application,
) -> None:
    three_fights(app)
    undone = app.campaign_undo("c", "h", fight="f1")
    assert [c.line() for c in undone.consequences.changes] == ["Mira: HP 5 -> 10 from fight f2 on"]
    assert [p.fight for p in undone.consequences.stale] == ["f2", "f3"]
    assert member(app, "mira").current["current_hp"] == 8


def test_consequences_compare_the_fights_now_with_the_fights_at_the_versions_given(
    app: Application,
) -> None:
    three_fights(app)
    assert app.campaign_consequences("c").changes == []  # nothing to compare with
    before = app.version("f1")
    app.record_named("f1", [{"type": "retract", "event": "h"}])
    found = app.campaign_consequences("c", {"f1": before})
    assert [c.line() for c in found.changes] == ["Mira: HP 5 -> 10 from fight f2 on"]
    with pytest.raises(UsageError, match="fight `f9` is not played in campaign `c`"):
        app.campaign_consequences("c", {"f9": 1})


def test_an_undo_that_takes_a_death_back_says_the_member_lives(app: Application) -> None:
    party(app)
    played(app, "f1", hit("mira", 30, id="owlbear"), members=["mira"])
    assert member(app, "mira").dead is not None
    undone = app.campaign_undo("c", "owlbear", fight="f1")
    assert undone.consequences.records == ["Mira: dead fight f1, owlbear -> None"]
    assert member(app, "mira").dead is None
    again = app.campaign_undo("c", "#4", fight="f1")  # the retract taken back: dead again
    assert again.consequences.records == ["Mira: dead None -> fight f1, owlbear"]


def test_an_undo_says_which_injury_a_member_no_longer_has_and_its_undo_which_they_have(
    app: Application,
) -> None:
    app.campaign_new("c", "d26")
    app.campaign_join("c", "mira", name="Mira", stats={"hp": 12})
    played(app, "f1", d26_blow("mira", 2, "leg-blow"))
    undone = app.campaign_undo("c", "leg-blow", fight="f1")
    assert [r for r in undone.consequences.records if "has" in r] == [
        "Mira: no longer has severe leg"
    ]
    again = app.campaign_undo("c", "#4", fight="f1")
    assert [r for r in again.consequences.records if "has" in r] == ["Mira: now has severe leg"]


# --- the refusals -------------------------------------------------------------------------------


def test_a_campaign_holding_only_its_start_is_not_started_again(app: Application) -> None:
    app.campaign_new("c", "dnd5e", event_id="start")
    with pytest.raises(ConflictError, match="campaign `c` is already there"):
        app.campaign_new("c", "d26")
    assert app.campaign_new("c", "dnd5e", event_id="start").skipped  # a retry of the same start
    assert app.campaign_show("c").version == 1


def test_a_fight_recorded_without_naming_members_takes_the_active_ones_alone(
    app: Application,
) -> None:
    party(app)
    app.campaign_died("c", "mira", cause="the owlbear")
    app.create("f2", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f2", "tam", "c")
    app.record_named("f2", [{"type": "character_joined", "character": "mira", "stats": {"hp": 9}}])
    app.record_named("f2", [hit("tam", 2)])
    recorded = app.campaign_record("c", "f2")
    assert recorded.event.members == {"tam": "tam"}
    assert member(app, "tam").current["current_hp"] == 10


def test_a_member_is_not_joined_into_a_fight_of_another_ruleset(app: Application) -> None:
    party(app)  # dnd5e; a d26 character has hit points too, so only the ruleset tells them apart
    app.create("f1", FightStarted(ruleset="d26"))
    with pytest.raises(UsageError, match="fight `f1` plays d26, campaign `c` dnd5e"):
        app.join_from_campaign("f1", "mira", "c")
    assert app.version("f1") == 1


def test_a_member_joins_as_the_campaign_stood_at_the_event_given(app: Application) -> None:
    party(app)  # events 1 to 3
    played(app, "f1", hit("mira", 6), members=["mira"])  # event 4
    app.create("f2", FightStarted(ruleset="dnd5e"))
    app.join_from_campaign("f2", "mira", "c", at=3)
    assert app.state("f2").characters["mira"].hp == 10  # before fight f1 was recorded
    app.join_from_campaign("f2", "m2", "c", member="mira")
    assert app.state("f2").characters["m2"].hp == 4


def test_an_undo_of_a_fight_the_campaign_never_played_is_refused_and_undoes_nothing(
    app: Application,
) -> None:
    party(app)
    played(app, "f1", hit("mira", 2))
    app.create("elsewhere", FightStarted(ruleset="dnd5e"))
    app.record_named(
        "elsewhere", [{"type": "character_joined", "character": "x", "stats": {"hp": 5}}]
    )
    with pytest.raises(UsageError, match="fight `elsewhere` is not played in campaign `c`"):
        app.campaign_undo("c", fight="elsewhere")
    assert app.version("elsewhere") == 2


# --- reading it ---------------------------------------------------------------------------------


def test_the_campaign_is_shown_at_any_of_its_events_first_to_newest_and_no_other(
    app: Application,
) -> None:
    party(app)  # events 1 to 3
    assert [m.member for m in app.campaign_show("c", 3).members] == ["mira", "tam"]
    assert [m.member for m in app.campaign_show("c", 2).members] == ["mira"]
    assert app.campaign_show("c", 1).members == []
    for outside in (0, 4):
        with pytest.raises(UsageError, match="campaign `c` has events 1 to 3"):
            app.campaign_show("c", outside)


def test_one_members_history_is_every_event_that_names_or_moves_them_and_only_their_part(
    app: Application,
) -> None:
    party(app)  # 1 to 3
    played(app, "f1", hit("mira", 3), hit("tam", 2))  # 4
    app.campaign_rest("c", "long")  # 5: both back to full
    app.campaign_rest("c", "long")  # 6: changes nobody, but names everyone
    app.campaign_rest("c", "short", member="tam", amount=0)  # 7: Tam's alone
    history = app.campaign_history("c", "mira")
    assert [e.seq for e in history.entries] == [2, 4, 5, 6]
    assert {c.member for e in history.entries for c in e.changes} == {"mira"}
    [fight] = [e for e in history.entries if e.seq == 4]
    assert [(s.stat, s.after) for s in fight.changes[0].stats] == [("current_hp", 7)]


def test_a_history_entry_says_what_a_treatment_took_off_and_whom_a_rest_left_unmoved(
    app: Application,
) -> None:
    party(app)  # 1 to 3
    played(app, "f1", hit("mira", 10), hit("tam", 2))  # 4: Mira at 0, dying
    app.campaign_rest("c", "long")  # 5: Mira at 0 gains nothing
    app.campaign_treat("c", "mira", amount=3)  # 6
    entries = {e.seq: e for e in app.campaign_history("c").entries}
    assert [u.member for u in entries[5].unmoved] == ["mira"]
    assert entries[6].unmoved == [] and entries[4].unmoved == []


def test_a_treatment_history_entry_names_the_injury_lost(app: Application) -> None:
    app.campaign_new("c", "d26")
    app.campaign_join("c", "mira", name="Mira", stats={"hp": 12})
    played(app, "f1", d26_blow("mira", 2, "leg-blow"))
    app.campaign_treat("c", "mira")
    last = app.campaign_history("c").entries[-1]
    assert [(c.member, c.lost) for c in last.changes] == [("mira", ["severe leg"])]


def test_a_campaign_reports_events_bound_is_for_its_fights_in_all(app: Application) -> None:
    party(app)
    played(app, "f1", hit("mira", 1))  # 4 events: its start, two joins, the hit
    played(app, "f2", hit("tam", 1))  # 4 events
    assert len(app.campaign_report("c", most=8).fights) == 2
    with pytest.raises(TooLarge):
        app.campaign_report("c", most=7)


def test_a_campaign_report_sums_each_member_as_they_played_over_every_fight(
    app: Application,
) -> None:
    party(app)
    app.create("f1", FightStarted(ruleset="dnd5e"))
    app.record_named("f1", [{"type": "character_joined", "character": "mira", "stats": {"hp": 4}}])
    app.join_from_campaign("f1", "m", "c", member="mira")  # Mira plays as `m`; `mira` is another
    app.join_from_campaign("f1", "tam", "c")
    app.record_named("f1", [hit("mira", 4, attacker="m"), hit("tam", 2, attacker="m")])
    app.campaign_record("c", "f1", {"mira": "m", "tam": "tam"})
    played(app, "f2", hit("tam", 12, attacker="mira"))  # Tam down
    report = app.campaign_report("c")
    by = {m.member: m for m in report.members}
    assert (by["mira"].tally.hits_dealt, by["mira"].tally.damage_dealt) == (3, 18)
    assert [(b.fight, b.character) for b in by["mira"].put_out] == [("f1", "mira"), ("f2", "tam")]
    assert by["tam"].tally.damage_taken == 14
    assert (report.total.hits_dealt, report.total.damage_taken) == (3, 14)
    assert report.length.events == sum(app.version(f) for f in ("f1", "f2"))

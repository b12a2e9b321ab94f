"""In every ruleset, a campaign's roster keeps its dead and retired as its fights and the GM's
word say, for any undo (issue 39): a death in a fight, `died`, `retire`, a rest of everyone,
the same fight recorded twice, and retracts in any fight and of the campaign's own events.

Three members play several fights of one ruleset; in each, a member may take the ruleset's
killing blow (dnd5e's damage of twice the maximum, contractor's wound at Constitution 4, d26's
0 HP for an `npc`, DragonQuest's Endurance to 0, Warhammer Quest's Serious Injury 11 on 0
wounds; Mordheim kills nobody in a fight) or a blow of 0 damage; between fights the party
rests (refused where the game has no rest), a member retires or the GM records a death. Then
any killing blows are retracted in their fights, and any of the GM's deaths and retirements in
the campaign's log. Worked out here from README "Campaigns" and DESIGN section 7's contract:

- a member is dead when a fight they played, as its log stands, ends with them dead, or when
  the GM's `died` (not retracted) said so while they were active; retired likewise;
- a dead or retired member joins no fight (refused), and a rest of everyone leaves their record
  exactly as it was; anything recorded for them is refused;
- the same fight recorded again is refused, a retry with its id skipped: it counts once; a
  fight of another ruleset is refused;
- a member's fights are those whose part was not void (dead or retired by then, as the log now
  stands).

Defects this catches (each checked by breaking the code, then restoring it):
- a retracted `died` still killing (`core/campaign.py` treating a retracted campaign event as
  standing);
- a retired member let into a fight from the roster (`join_from_campaign` not asking whether
  the record is retired)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted, RuleError, UsageError
from woundlog.replays.application import Application

DQ = {"fatigue": 20, "endurance": 10, "willpower": 12, "protection": 0, "shield": 0}
RULESETS: dict[str, tuple[str, dict[str, int], dict[str, Any] | None]] = {
    "dnd5e": ("pc", {"hp": 30}, {"damage": 60}),
    "contractor": ("", {"constitution": 4}, {"damage": 50, "rolls": {"wound": [37]}}),
    "d26": ("npc", {"hp": 12}, {"damage": 40}),
    "dragonquest": ("", DQ, {"damage": 30, "band": "endurance", "weapon": "A"}),
    "warhammer_quest": (
        "",
        {"wounds": 5, "toughness": 3},
        {"damage": 5, "rolls": {"serious_injury": [1, 1]}},
    ),
    "mordheim": ("", {"wounds": 1}, None),
}
"""Each ruleset: the members' kind and stats, and its killing blow (None: none in a fight)."""
MEMBERS = ("ann", "bo", "cy")

campaigns = st.lists(
    st.tuples(
        st.lists(st.tuples(st.sampled_from(MEMBERS), st.booleans()), max_size=3),  # kill?
        st.lists(
            st.tuples(st.sampled_from(["rest", "retire", "died"]), st.sampled_from(MEMBERS)),
            max_size=2,
        ),
    ),
    min_size=1,
    max_size=4,
)


@dataclass
class Fight:
    name: str
    joined: list[str]
    kills: list[tuple[str, str]] = field(default_factory=list)  # blow id, on whom


@dataclass
class Member:
    dead: bool = False
    retired: bool = False
    fights: list[str] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return not self.dead and not self.retired


def fold(logged: list[Fight | tuple[str, str, str]], undone: set[str]) -> dict[str, Member]:
    roster = {m: Member() for m in MEMBERS}
    for item in logged:
        if isinstance(item, Fight):
            for m in item.joined:
                if not roster[m].active:
                    continue  # their part is void
                roster[m].fights.append(item.name)
                if any(who == m and blow not in undone for blow, who in item.kills):
                    roster[m].dead = True
            continue
        event, kind, m = item
        if event in undone or not roster[m].active:
            continue
        if kind == "died":
            roster[m].dead = True
        elif kind == "retire":
            roster[m].retired = True
    return roster


def gm_says(app: Application, what: str, member: str, event: str) -> None:
    if what == "died":
        app.campaign_died("c", member, event_id=event)
    else:
        app.campaign_retire("c", member, event_id=event)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(played=campaigns, data=st.data())
def test_the_dead_and_retired_are_as_the_fights_and_the_gm_say_after_any_undo(
    ruleset: str, played: list[Any], data: st.DataObject
) -> None:
    kind, stats, kill = RULESETS[ruleset]
    rests = ruleset in ("dnd5e", "d26")
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("c", ruleset)
        for m in MEMBERS:
            app.campaign_join("c", m, side="party", kind=kind, stats=stats)
        logged: list[Fight | tuple[str, str, str]] = []
        for n, (blows, ops) in enumerate(played, start=1):
            now = fold(logged, set())
            fight = Fight(f"f{n}", [m for m in MEMBERS if now[m].active])
            app.create(fight.name, FightStarted(ruleset=ruleset))
            for m in MEMBERS:
                if m in fight.joined:
                    app.join_from_campaign(fight.name, m, "c")
                else:
                    with pytest.raises(RuleError):
                        app.join_from_campaign(fight.name, m, "c")
            for k, (m, kills) in enumerate(blows):
                if m not in fight.joined or any(who == m for _, who in fight.kills):
                    continue
                blow = {"type": "hit", "id": f"h{n}x{k}", "target": m, "damage": 0}
                if kills and kill is not None:
                    blow.update(kill)
                    fight.kills.append((f"h{n}x{k}", m))
                app.record_named(fight.name, [blow])
            if fight.joined:
                first = app.campaign_record("c", fight.name, event_id=f"rec{n}")
                assert app.campaign_record("c", fight.name, event_id=f"rec{n}").skipped
                with pytest.raises(RuleError, match="already played"):
                    app.campaign_record("c", fight.name)
                assert app.campaign_show("c").version == first.version
                logged.append(fight)
            for j, (what, m) in enumerate(ops):
                event = f"o{n}x{j}"
                now = fold(logged, set())
                if what == "rest":
                    before = {r.member: r for r in app.campaign_show("c").members}
                    if not rests:
                        with pytest.raises(RuleError):
                            app.campaign_rest("c", event_id=event)
                        continue
                    app.campaign_rest("c", event_id=event)
                    after = {r.member: r for r in app.campaign_show("c").members}
                    for who in MEMBERS:
                        if not now[who].active:  # the dead and retired: as they were
                            assert after[who] == before[who], who
                    continue
                if not now[m].active:  # for the dead or retired: refused
                    with pytest.raises(RuleError):
                        gm_says(app, what, m, event)
                    continue
                gm_says(app, what, m, event)
                logged.append((event, what, m))

        undone: set[str] = set()
        for item in logged:
            if isinstance(item, Fight):
                for blow, _ in item.kills:
                    if data.draw(st.booleans()):
                        app.campaign_undo("c", blow, fight=item.name)
                        undone.add(blow)
            elif data.draw(st.booleans()):
                app.campaign_undo("c", item[0])
                undone.add(item[0])

        expected = fold(logged, undone)
        shown = {r.member: r for r in app.campaign_show("c").members}
        for m, member in expected.items():
            record = shown[m]
            assert (record.dead is not None, record.retired is not None) == (
                member.dead,
                member.retired,
            ), m
            assert list(record.fights) == member.fights, m


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_a_fight_of_another_ruleset_is_refused_by_every_ruleset(ruleset: str) -> None:
    kind, stats, _ = RULESETS[ruleset]
    other = "mordheim" if ruleset != "mordheim" else "dnd5e"
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("c", ruleset)
        app.campaign_join("c", "ann", side="party", kind=kind, stats=stats)
        app.create("x", FightStarted(ruleset=other))
        with pytest.raises(UsageError, match=f"plays {other}"):
            app.join_from_campaign("x", "ann", "c")
        joined = {"type": "character_joined", "character": "ann", "side": "party"}
        app.record_named("x", [{**joined, "stats": {"wounds": 1} if other == "mordheim" else
                                {"hp": 9}}])  # fmt: skip
        with pytest.raises(RuleError, match=f"plays {other}, the campaign {ruleset}"):
            app.campaign_record("c", "x", {"ann": "ann"})
        assert app.campaign_show("c").fights == []

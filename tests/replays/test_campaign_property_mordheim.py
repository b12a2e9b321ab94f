"""A Mordheim campaign's roster is its battles folded in order with what the GM records after
each, for any undo in any battle (issue 39): the after-battle test owed by a warrior taken out
of action, its result (dead, or a survivor's treatment), retirements.

Two one-wound warriors fight several battles; in each, blows fall on whoever joined, each
wound's injury die given; after each battle the GM records, for a warrior taken out of action,
that he died or survived (a treatment), or not yet, and now and then something more (a
treatment owed by nobody, a rest, a retirement). Then any blows are retracted or amended
(another die), in any battle, after all were played. Worked out here from the text as the
ruleset's docstring words it:

- a wound past zero rolls a D6: 5-6 out of action, final for the battle: a blow after it is
  refused (void when an undo leaves one behind); wounds come back after the battle;
- a warrior taken out of action owes the after-battle test: "out of action: the after-battle
  test is owed" is on his record until a treatment (he survived) or `died`, and he cannot join a
  battle from the roster until then;
- a treatment for one who owes nothing is refused, and so is a rest (there is none); anything
  for the dead or retired is refused, and their part of a later battle is void (an amend in an
  earlier battle that takes a warrior out of action leaves him owing the test, whatever he
  played since).

Defects this catches (each checked by breaking the code, then restoring it):
- a warrior taken out of action owing nothing (`AFTER_THE_BATTLE.conditions` in
  `core/rulesets/mordheim.py` not reading the state);
- a warrior who owes the test joining the next battle (`join_from_campaign` not asking the
  ruleset's `cannot_join`)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted, Hit, RuleError
from woundlog.replays.application import Application

OWED = "out of action: the after-battle test is owed"
WARRIORS = ("grim", "ulf")

blows = st.lists(st.tuples(st.sampled_from(WARRIORS), st.integers(1, 6)), max_size=4)
more = st.lists(
    st.tuples(st.sampled_from(["treat", "rest", "retire"]), st.sampled_from(WARRIORS)), max_size=1
)
battles = st.lists(
    st.tuples(
        blows, st.lists(st.sampled_from(["died", "treat", "later"]), min_size=2, max_size=2), more
    ),  # the test's result recorded for each (or not yet)
    min_size=1,
    max_size=4,
)


@dataclass
class Warrior:
    owed: bool = False
    dead: bool = False
    retired: bool = False
    battles: list[str] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return not self.dead and not self.retired


@dataclass
class Battle:
    name: str
    joined: list[str]
    blows: list[tuple[str, str]] = field(default_factory=list)  # blow id, on whom


def out_of_action(battle: Battle, dice: dict[str, int | None], upto: int | None = None) -> set[str]:
    """Who the battle's live blows (the first `upto` of them) take out of action."""
    out: set[str] = set()
    for blow, who in battle.blows[:upto]:
        die = dice[blow]
        if die is not None and who not in out and die >= 5:
            out.add(who)
    return out


def after_battle(roster: dict[str, Warrior], battle: Battle, dice: dict[str, int | None]) -> None:
    out = out_of_action(battle, dice)
    for who in battle.joined:
        if not roster[who].active:
            continue  # their part of this battle is void
        roster[who].battles.append(battle.name)
        if who in out:
            roster[who].owed = True


def between(roster: dict[str, Warrior], op: tuple[str, str]) -> bool:
    """Apply what the GM records after a battle; False if the rules refuse it."""
    kind, who = op
    warrior = roster[who]
    if kind == "rest" or not warrior.active:
        return False
    if kind == "treat":
        if not warrior.owed:
            return False
        warrior.owed = False
    elif kind == "died":
        warrior.dead = True
    else:
        warrior.retired = True
    return True


def record_between(app: Application, op: tuple[str, str]) -> None:
    kind, who = op
    if kind == "treat":
        app.campaign_treat("c", who, means="survived")
    elif kind == "died":
        app.campaign_died("c", who, cause="the after-battle test")
    elif kind == "rest":
        app.campaign_rest("c", member=who)
    else:
        app.campaign_retire("c", who)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played=battles, data=st.data())
def test_the_roster_is_its_battles_and_their_aftermath_folded_after_any_undo(
    played: list[tuple[list[tuple[str, int]], list[str], list[tuple[str, str]]]],
    data: st.DataObject,
) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("c", "mordheim")
        for who in WARRIORS:
            app.campaign_join("c", who, side="reavers", stats={"wounds": 1})
        roster = {who: Warrior() for who in WARRIORS}
        dice: dict[str, int | None] = {}
        logged: list[Battle | tuple[str, str]] = []
        for n, (falling, died, extra) in enumerate(played, start=1):
            battle = Battle(f"b{n}", [w for w in WARRIORS if roster[w].active])
            if not battle.joined:
                break
            app.create(battle.name, FightStarted(ruleset="mordheim"))
            for who in list(battle.joined):
                if roster[who].owed:  # not until the test's result is recorded
                    with pytest.raises(RuleError, match="owes the after-battle test"):
                        app.join_from_campaign(battle.name, who, "c")
                    battle.joined.remove(who)
                else:
                    app.join_from_campaign(battle.name, who, "c")
            if not battle.joined:
                break
            for k, (who, die) in enumerate(falling):
                if who not in battle.joined:
                    continue
                blow = Hit(id=f"h{n}x{k}", target=who, damage=1, attacker="trap",
                           rolls={"injury": [die]})  # fmt: skip
                if who in out_of_action(battle, dice):
                    with pytest.raises(RuleError):
                        app.record(battle.name, [blow])
                    continue
                app.record(battle.name, [blow])
                battle.blows.append((f"h{n}x{k}", who))
                dice[f"h{n}x{k}"] = die
            app.campaign_record("c", battle.name)
            logged.append(battle)
            after_battle(roster, battle, dice)
            ops = [(d, w) for w, d in zip(WARRIORS, died, strict=True)
                   if roster[w].owed and roster[w].active and d != "later"]  # fmt: skip
            for op in [*ops, *extra]:
                if between(roster, op):
                    record_between(app, op)
                    logged.append(op)
                else:
                    with pytest.raises(RuleError):
                        record_between(app, op)

        for battle in (b for b in logged if isinstance(b, Battle)):
            for i, (blow, who) in enumerate(battle.blows):
                undo = data.draw(st.sampled_from(["keep", "keep", "retract", "amend"]))
                if undo == "retract":
                    app.campaign_undo("c", blow, fight=battle.name)
                    dice[blow] = None
                elif undo == "amend":
                    die = data.draw(st.integers(1, 6))
                    again = Hit(target=who, damage=1, attacker="trap", rolls={"injury": [die]})
                    if who in out_of_action(battle, dice, upto=i):  # out already, by an amend
                        with pytest.raises(RuleError):
                            app.amend(battle.name, blow, again)
                    else:
                        app.amend(battle.name, blow, again)
                        dice[blow] = die

        expected = {who: Warrior() for who in WARRIORS}
        for item in logged:
            if isinstance(item, Battle):
                after_battle(expected, item, dice)
            else:
                between(expected, item)  # refused now: void
        shown = {r.member: r for r in app.campaign_show("c").members}
        for who, warrior in expected.items():
            record = shown[who]
            assert record.conditions == ((OWED,) if warrior.owed else ()), who
            assert (record.dead is not None, record.retired is not None) == (
                warrior.dead,
                warrior.retired,
            ), who
            assert record.fights == tuple(warrior.battles), who
            assert record.current == {"wounds": 1}, who  # wounds come back after the battle

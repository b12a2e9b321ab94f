"""A dnd5e campaign's roster is its fights and what happened between them folded in order, for
any undo in any fight: deaths, rests, treatments, retirements (issue 39).

Two members (20 and 30 hit points) play several fights; in each, blows and potions fall on
whoever joined; between fights the party or one member rests (short, with what the Hit Dice
gave, or long), a member is treated, time passes, a member retires or the GM records a death.
Then any of the fights' blows and potions are retracted or amended (other damage), after all
were played. Worked out here from the text alone (SRD 5.1 as the ruleset's docstring words it):

- a blow lowers hit points, never below 0; at 0 a creature is dying; damage left over of at
  least the maximum kills; damage at 0 is a failed death save, three of them kill, and damage
  of at least the maximum at 0 kills; a potion gives back hit points, to the maximum, and the
  failures; the dead take no blow and no potion (refused on append, void when an undo leaves
  one behind);
- the record carries hit points: each fight moves them by how it ended less how it began (a
  fight's log is history: it began from the record of its day); one dying at its end is carried
  at 0, and cannot join a fight until healed; a death in a fight is on the record, "fight F,
  EVENT";
- a short rest gives back its amount, a long rest everything but needs 1 hit point; a treatment
  gives back its amount; a day makes 0 hit points 1; a rest of the party rests the active
  members only: the dead and retired stay as they were; an event for a dead or retired member
  is refused (on append) or void (on replay), and so is their part of a later fight.
- recording the same fight again is refused, and a retry with the same id is skipped: either
  way it counts once. A fight of another ruleset is refused.

Defects this catches (each checked by breaking the code, then restoring it):
- a party rest that also rests the dead or retired (`core/campaign.py`, `Rest`: every member
  rather than the active ones);
- a death inside a fight not marked on the roster (`after_the_fight` not reading
  `final.state`).
It found one: a retried `campaign record` (the same id) of a fight in which a member died was
refused as another event, the retry asking again who is active (now without the dead)."""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted, Heal, Hit, RuleError, UsageError
from woundlog.replays.application import Application

MAXIMUM = {"mira": 20, "tor": 30}

steps = st.lists(
    st.tuples(
        st.sampled_from(["hit", "hit", "hit", "potion"]),
        st.sampled_from(sorted(MAXIMUM)),
        st.sampled_from([3, 8, 15, 25, 40]),
    ),
    max_size=4,
)
between = st.lists(
    st.one_of(
        st.tuples(
            st.just("rest"), st.sampled_from(["short", "long"]), st.none(), st.integers(1, 9)
        ),
        st.tuples(st.just("rest"), st.just("long"), st.sampled_from(sorted(MAXIMUM)), st.none()),
        st.tuples(st.just("treat"), st.sampled_from(sorted(MAXIMUM)), st.integers(1, 12)),
        st.tuples(
            st.just("time"),
        ),
        st.tuples(st.just("retire"), st.sampled_from(sorted(MAXIMUM))),
        st.tuples(st.just("died"), st.sampled_from(sorted(MAXIMUM))),
    ),
    max_size=2,
)
campaigns = st.lists(st.tuples(steps, between), min_size=1, max_size=4)


@dataclass
class Member:
    hp: int
    maximum: int
    dead: str | None = None
    retired: bool = False

    @property
    def active(self) -> bool:
        return self.dead is None and not self.retired


@dataclass
class InFight:
    hp: int
    maximum: int
    failures: int = 0
    dead: str | None = None

    def hit(self, damage: int, event: str) -> None:
        if self.hp > 0:
            left = damage - self.hp
            self.hp = max(0, self.hp - damage)
            if self.hp == 0 and left >= self.maximum:
                self.dead = event
        elif damage >= self.maximum:
            self.dead = event
        else:
            self.failures += 1
            if self.failures >= 3:
                self.dead = event

    def potion(self, amount: int) -> None:
        self.hp = min(self.maximum, self.hp + amount)
        self.failures = 0


@dataclass
class Fight:
    name: str
    joined: dict[str, int]  # member: hit points they joined with
    events: list[tuple[str, str, str, int]] = field(default_factory=list)  # id, kind, who, n


def fold_fight(fight: Fight, live: dict[str, tuple[str, int] | None]) -> dict[str, InFight]:
    """Each joined member as the fight's live events leave them; `live` maps an event id to its
    kind and amount now (None: retracted)."""
    them = {m: InFight(hp, MAXIMUM[m]) for m, hp in fight.joined.items()}
    for event, _, who, _ in fight.events:
        now = live.get(event)
        if now is None or them[who].dead is not None:
            continue  # retracted, or on the dead: void
        kind, amount = now
        if kind == "hit":
            them[who].hit(amount, event)
        else:
            them[who].potion(amount)
    return them


def between_fights(roster: dict[str, Member], op: tuple[object, ...]) -> bool:
    """Apply one event between fights; False if the rules refuse it (nothing changes)."""
    match op:
        case ("rest", kind, None, amount):
            resting = [m for m in roster.values() if m.active]
            if kind == "long" and resting and all(m.hp < 1 for m in resting):
                return False  # nobody can rest
            for m in resting:
                if kind == "short":
                    m.hp = min(m.maximum, m.hp + amount)  # type: ignore[operator]
                elif m.hp >= 1:
                    m.hp = m.maximum
        case ("rest", "long", who, None):
            m = roster[str(who)]
            if not m.active or m.hp < 1:
                return False
            m.hp = m.maximum
        case ("treat", who, amount):
            m = roster[str(who)]
            if not m.active:
                return False
            m.hp = min(m.maximum, m.hp + amount)  # type: ignore[operator]
        case ("time",):
            for m in roster.values():
                if m.active and m.hp == 0:
                    m.hp = 1
        case ("retire", who):
            m = roster[str(who)]
            if not m.active:
                return False
            m.retired = True
        case ("died", who):
            m = roster[str(who)]
            if not m.active:
                return False
            m.dead = "the GM"
    return True


def record_between(app: Application, op: tuple[object, ...]) -> None:
    match op:
        case ("rest", kind, who, amount):
            app.campaign_rest("c", str(kind), member=who, amount=amount)  # type: ignore[arg-type]
        case ("treat", who, amount):
            app.campaign_treat("c", str(who), amount=amount)  # type: ignore[arg-type]
        case ("time",):
            app.campaign_time("c", 1)
        case ("retire", who):
            app.campaign_retire("c", str(who))
        case ("died", who):
            app.campaign_died("c", str(who))


def play(
    app: Application, played: list[tuple[list[tuple[str, str, int]], list[tuple[object, ...]]]]
) -> list[Fight | tuple[object, ...]]:
    """Play the campaign, checking every join and refusal against the hand fold as it goes;
    return the campaign's log as played: its fights and the events between them it holds."""
    roster = {m: Member(hp, hp) for m, hp in MAXIMUM.items()}
    logged: list[Fight | tuple[object, ...]] = []
    for n, (fight_steps, ops) in enumerate(played, start=1):
        joining = [m for m, r in roster.items() if r.active and r.hp >= 1]
        if not joining:
            break
        fight = Fight(f"f{n}", {})
        app.create(fight.name, FightStarted(ruleset="dnd5e"))
        for m in MAXIMUM:
            if m in joining:
                app.join_from_campaign(fight.name, m, "c")
                fight.joined[m] = app.state(fight.name).characters[m].hp
                assert fight.joined[m] == roster[m].hp, (fight.name, m)
            else:  # dead, retired or at 0: the campaign will not send them
                with pytest.raises(RuleError):
                    app.join_from_campaign(fight.name, m, "c")
        them = {m: InFight(hp, MAXIMUM[m]) for m, hp in fight.joined.items()}
        for k, (kind, who, amount) in enumerate(fight_steps):
            if who not in them:
                continue
            event = f"e{n}x{k}"
            one = (
                Hit(id=event, target=who, damage=amount)
                if kind == "hit"
                else Heal(id=event, target=who, amount=amount, means="potion")
            )
            if them[who].dead is not None:
                with pytest.raises(RuleError):
                    app.record(fight.name, [one])
                continue
            app.record(fight.name, [one])
            fight.events.append((event, kind, who, amount))
            them[who].hit(amount, event) if kind == "hit" else them[who].potion(amount)
        first = app.campaign_record("c", fight.name, event_id=f"rec-{n}")
        again = app.campaign_record("c", fight.name, event_id=f"rec-{n}")
        assert again.skipped and again.version == first.version  # a retry: counted once
        with pytest.raises(RuleError, match="already played"):
            app.campaign_record("c", fight.name)
        logged.append(fight)
        for m, end in them.items():
            roster[m].hp += end.hp - fight.joined[m]
            if end.dead is not None:
                roster[m].dead = f"fight {fight.name}, {end.dead}"
        for op in ops:
            if between_fights(roster, op):
                record_between(app, op)
                logged.append(op)
            else:
                with pytest.raises(RuleError):
                    record_between(app, op)
    return logged


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played=campaigns, data=st.data())
def test_the_roster_is_its_fights_and_the_time_between_folded_after_any_undo(
    played: list[tuple[list[tuple[str, str, int]], list[tuple[object, ...]]]],
    data: st.DataObject,
) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("c", "dnd5e")
        for m, hp in MAXIMUM.items():
            app.campaign_join("c", m, stats={"hp": hp})
        logged = play(app, played)
        fights = [f for f in logged if isinstance(f, Fight)]

        live: dict[str, tuple[str, int] | None] = {}
        for fight in fights:
            for event, kind, who, amount in fight.events:
                live[event] = (kind, amount)
                undo = data.draw(st.sampled_from(["keep", "keep", "retract", "amend"]))
                if undo == "retract":
                    app.campaign_undo("c", event, fight=fight.name)
                    live[event] = None
                elif undo == "amend" and kind == "hit":
                    damage = data.draw(st.sampled_from([0, 3, 8, 25]))
                    with contextlib.suppress(RuleError):  # the target already dead there
                        app.amend(fight.name, event, Hit(target=who, damage=damage))
                        live[event] = ("hit", damage)

        # the roster now: every fight's live events from what it began with, in order, with
        # the events between fights as the campaign's log holds them
        roster = {m: Member(hp, hp) for m, hp in MAXIMUM.items()}
        played_in: dict[str, list[str]] = {m: [] for m in MAXIMUM}
        for item in logged:
            if not isinstance(item, Fight):
                between_fights(roster, item)  # refused now: void, nothing changes
                continue
            for m, end in fold_fight(item, live).items():
                if not roster[m].active:
                    continue  # their part of this fight is void
                roster[m].hp += end.hp - item.joined[m]
                played_in[m].append(item.name)
                if end.dead is not None:
                    roster[m].dead = f"fight {item.name}, {end.dead}"
        shown = {r.member: r for r in app.campaign_show("c").members}
        for m, expected in roster.items():
            record = shown[m]
            assert (record.dead is not None) == (expected.dead is not None), m
            if expected.dead is not None and expected.dead != "the GM":
                assert record.dead == expected.dead, m
            assert (record.retired is not None) == expected.retired, m
            assert record.current.get("current_hp", MAXIMUM[m]) == expected.hp, m
            assert record.fights == tuple(played_in[m]), m


def test_a_fight_of_another_ruleset_is_refused() -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("c", "dnd5e")
        app.campaign_join("c", "mira", stats={"hp": 20})
        app.create("m", FightStarted(ruleset="mordheim"))
        with pytest.raises(UsageError, match="plays mordheim"):
            app.join_from_campaign("m", "mira", "c")
        app.record_named("m", [{"type": "character_joined", "character": "mira", "side": "a"}])
        with pytest.raises(RuleError, match="plays mordheim, the campaign dnd5e"):
            app.campaign_record("c", "m", {"mira": "mira"})
        assert app.campaign_show("c").fights == []


def test_a_retried_record_of_a_fight_a_member_died_in_is_skipped() -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("c", "dnd5e")
        app.campaign_join("c", "mira", stats={"hp": 20})
        app.create("f1", FightStarted(ruleset="dnd5e"))
        app.join_from_campaign("f1", "mira", "c")
        app.record("f1", [Hit(target="mira", damage=40)])  # 20 past 0: dead
        first = app.campaign_record("c", "f1", event_id="rec")
        again = app.campaign_record("c", "f1", event_id="rec")
        assert (again.skipped, again.version) == (True, first.version)
        [mira] = app.campaign_show("c").members
        assert mira.dead == "fight f1, #3"  # the start, her join, the blow

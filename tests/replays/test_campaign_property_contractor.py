"""A contractor campaign's record is its fights' wounds folded in order, with the treatments
between them, for any undo in any fight (issue 39): lasting wounds, Maimed wounds and their
prosthetics, death at Constitution 0.

A contractor with Constitution 13 is taken to 0 HP by every blow of several fights (each rolls
one wound on the d100 Wound Table, its die given); between fights a wound on the record may be
treated (`treat_wound`, `prosthetic`, `coiltech`), or the contractor retires or dies by the GM's
word. Then any blows are retracted or amended (another roll), in any fight, after all were
played. Worked out here from the text as the ruleset's docstring words it:

- 1-10 Lucky: no wound, +5 Motivation, carried; 11-90 a wound; 91-100 Maimed, permanent; every
  wound is -4 Constitution (the Wound Counter's layer), and Constitution 0 or less is death,
  after which blows are refused (void when an undo leaves one behind);
- each fight moves the record's Constitution and Motivation by how it ended less how it began
  (it began from the record of its day), adds its wounds, each named by the blow that dealt it,
  and a death, "fight F, EVENT";
- a treatment of a wound that is not Maimed removes it and gives back its 4 Constitution; a
  Maimed wound refuses normal treatment, a prosthetic offsets its penalty but not the counter
  (Constitution stays), one prosthetic a wound, and Coiltech removes it as a treatment does; a
  treatment naming a wound no longer on the record (an undo since) is void, as is anything for
  the dead or retired.

Defects this catches (each checked by breaking the code, then restoring it):
- a prosthetic that gives back the Wound Counter's 4 Constitution (`treat_wound` in
  `core/rulesets/contractor.py` dropping the counter from the offset wound's effect);
- a Maimed wound taken off the record by a prosthetic or a normal treatment (`treat_wound`
  treating every wound as it treats one that is not Maimed)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted, Hit, RuleError
from woundlog.replays.application import Application

CONSTITUTION = 13
ROLLS = [5, 23, 37, 64, 95, 97]
"""Lucky; Laceration, chest; Fracture, weapon arm; Concussion, abdomen; Maimed, back; Maimed,
weapon arm (no location 10: that waits on the Foreman)."""

treat = st.tuples(
    st.just("treat"),
    st.integers(0, 5),  # which wound on the record, in order
    st.sampled_from(["treat_wound", "clinic", "prosthetic", "prosthetic", "coiltech"]),
)
between = st.lists(
    st.one_of(treat, treat, treat, treat, st.tuples(st.sampled_from(["retire", "died"]))),
    max_size=3,
)
campaigns = st.lists(
    st.tuples(st.lists(st.sampled_from(ROLLS), min_size=1, max_size=3), between),
    min_size=1,
    max_size=4,
)


@dataclass
class Wound:
    event: str
    fight: str
    maimed: bool
    prosthetic: bool = False


@dataclass
class Contractor:
    constitution: int = CONSTITUTION
    motivation: int = 0
    wounds: list[Wound] = field(default_factory=list)
    dead: str | None = None
    retired: bool = False


@dataclass
class Fight:
    name: str
    constitution: int  # as joined
    motivation: int
    blows: list[str] = field(default_factory=list)


def fold_fight(fight: Fight, rolls: dict[str, int | None]) -> tuple[int, int, list[Wound], str]:
    """Constitution and Motivation as the fight ends, its wounds, and the blow that killed."""
    constitution, motivation, wounds, dead = fight.constitution, fight.motivation, [], ""
    for blow in fight.blows:
        roll = rolls[blow]
        if roll is None or dead:
            continue  # retracted, or on the dead: void
        if roll <= 10:
            motivation += 5
            continue
        constitution -= 4
        wounds.append(Wound(blow, fight.name, maimed=roll >= 91))
        if constitution <= 0:
            dead = blow
    return constitution, motivation, wounds, dead


def after(record: Contractor, fight: Fight, rolls: dict[str, int | None]) -> None:
    if record.dead is not None or record.retired:
        return  # their part of the fight is void
    constitution, motivation, wounds, dead = fold_fight(fight, rolls)
    record.constitution += constitution - fight.constitution
    record.motivation += motivation - fight.motivation
    record.wounds += wounds
    if dead:
        record.dead = f"fight {fight.name}, {dead}"


def between_fights(record: Contractor, op: tuple[object, ...]) -> bool:
    """Apply one event between fights; False if the rules refuse it (nothing changes)."""
    if record.dead is not None or record.retired:
        return False
    match op:
        case ("treat", event, means):
            wound = next((w for w in record.wounds if w.event == event), None)
            if wound is None:
                return False
            if not wound.maimed or means == "coiltech":
                record.wounds.remove(wound)
                record.constitution += 4
            elif means != "prosthetic" or wound.prosthetic:
                return False
            else:
                wound.prosthetic = True
        case ("retire",):
            record.retired = True
        case ("died",):
            record.dead = "the GM"
    return True


def record_between(app: Application, op: tuple[object, ...]) -> None:
    match op:
        case ("treat", event, means):
            app.campaign_treat("c", "cin", injury=str(event), means=str(means))
        case ("retire",):
            app.campaign_retire("c", "cin")
        case ("died",):
            app.campaign_died("c", "cin")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played=campaigns, data=st.data())
def test_the_record_is_the_fights_wounds_and_treatments_folded_after_any_undo(
    played: list[tuple[list[int], list[tuple[object, ...]]]], data: st.DataObject
) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("c", "contractor")
        app.campaign_join("c", "cin", stats={"constitution": CONSTITUTION})
        rolls: dict[str, int | None] = {}
        logged: list[Fight | tuple[object, ...]] = []
        record = Contractor()
        for n, (blows, ops) in enumerate(played, start=1):
            fight = Fight(f"f{n}", record.constitution, record.motivation)
            app.create(fight.name, FightStarted(ruleset="contractor"))
            if record.dead is not None or record.retired:
                with pytest.raises(RuleError):
                    app.join_from_campaign(fight.name, "cin", "c")
                break
            app.join_from_campaign(fight.name, "cin", "c")
            joined = app.state(fight.name).characters["cin"]
            assert (joined.constitution, joined.motivation) == (
                record.constitution,
                record.motivation,
            )
            assert joined.injuries == ()  # the wounds are in the Constitution it joins with
            for k, roll in enumerate(blows):
                blow = Hit(id=f"h{n}x{k}", target="cin", damage=50, rolls={"wound": [roll]})
                if fold_fight(fight, rolls)[3]:
                    with pytest.raises(RuleError):
                        app.record(fight.name, [blow])
                    continue
                app.record(fight.name, [blow])
                fight.blows.append(blow.id or "")
                rolls[blow.id or ""] = roll
            app.campaign_record("c", fight.name)
            logged.append(fight)
            after(record, fight, rolls)
            for op in ops:
                if op[0] == "treat":  # a wound on the record as it stands, by its blow
                    wounds = record.wounds
                    event = wounds[int(str(op[1])) % len(wounds)].event if wounds else "none"
                    op = ("treat", event, op[2])
                if between_fights(record, op):
                    record_between(app, op)
                    logged.append(op)
                else:
                    with pytest.raises(RuleError):
                        record_between(app, op)

        for fight in (f for f in logged if isinstance(f, Fight)):
            for i, blow in enumerate(fight.blows):
                undo = data.draw(st.sampled_from(["keep", "keep", "retract", "amend"]))
                if undo == "retract":
                    app.campaign_undo("c", blow, fight=fight.name)
                    rolls[blow] = None
                elif undo == "amend":
                    roll = data.draw(st.sampled_from(ROLLS))
                    replacement = Hit(target="cin", damage=50, rolls={"wound": [roll]})
                    before = Fight(fight.name, fight.constitution, fight.motivation)
                    before.blows = fight.blows[:i]
                    if fold_fight(before, rolls)[3]:  # dead there since an earlier amend
                        with pytest.raises(RuleError):
                            app.amend(fight.name, blow, replacement)
                    else:
                        app.amend(fight.name, blow, replacement)
                        rolls[blow] = roll

        expected = Contractor()
        for item in logged:
            if isinstance(item, Fight):
                after(expected, item, rolls)
            else:
                between_fights(expected, item)  # refused now: void
        [cin] = app.campaign_show("c").members
        assert (cin.dead is None, cin.retired is None) == (
            expected.dead is None,
            not expected.retired,
        )
        if expected.dead not in (None, "the GM"):
            assert cin.dead == expected.dead
        if expected.dead is None:
            assert cin.current["constitution"] == expected.constitution
        assert cin.current["motivation"] == expected.motivation
        assert [(i.event, i.fight, i.permanent, i.prosthetic) for i in cin.injuries] == [
            (w.event, w.fight, w.maimed, w.prosthetic) for w in expected.wounds
        ]

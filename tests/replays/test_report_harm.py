"""Luck by harm (issue 38): a report ranks what the dice did by the rules' order of harm, not by
a die's number or a state alone. Every expected figure is counted here by hand from the texts.

- dnd5e (SRD 5.1): "If you roll a 1 on the d20, it counts as two failures"; 2-9 one failure;
  10-19 a success; "If you roll a 20, you regain 1 hit point".
- Warhammer Quest: the D66 Serious Injuries, read by what each result does (the ruleset's
  severity tiers, `tables.SEVERITY`): 16 Internal Injury is worse than 21 Stupidity, 61-63
  Nothing Too Serious and 66 What Doesn't Kill Me are no harm at all.
- Mordheim: one injury roll per wound past zero, the worst standing; the rolls stop once one
  takes him out of action, so a reading counts every roll the wounds ask for, whatever order
  the dice were written in."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted
from woundlog.replays.application import Application

READ_AT_ONCE = {"deadline": None, "max_examples": 40}


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "fights.db")) as opened:
        yield opened


def played(app: Application, fight: str, ruleset: str, *lines: dict[str, Any], **options: Any):
    app.create(fight, FightStarted(ruleset=ruleset, seed=1, options=options))
    for line in lines:
        app.record_named(fight, [line])
    return app.report(fight)


def save(face: int) -> dict[str, Any]:
    """A death save rolled at the table."""
    return {"type": "check", "character": "mira", "check": "death_save",
            "rolls": {"death_save": [face]}}  # fmt: skip


def test_a_natural_1_on_a_death_save_is_the_1_in_20_it_is_not_19_in_20(app: Application) -> None:
    report = played(
        app, "f", "dnd5e",
        {"type": "character_joined", "character": "mira", "stats": {"hp": 10}},
        {"type": "hit", "target": "mira", "damage": 10},
        save(1),
        death_saves="table",
    )  # fmt: skip
    unlucky = report.luck.unluckiest
    # as bad as two failures: the 1 alone
    assert unlucky is not None and (unlucky.seq, str(unlucky.chance)) == (4, "1/20")
    [natural_1] = [d for d in report.luck.dice if d.purpose == "death_save"]
    assert (str(natural_1.as_bad), str(natural_1.as_good)) == ("1/20", "1/1")


def test_a_death_save_of_7_is_as_bad_as_every_failure_and_a_13_as_good_as_every_success(
    app: Application,
) -> None:
    report = played(
        app, "f", "dnd5e",
        {"type": "character_joined", "character": "mira", "stats": {"hp": 10}},
        {"type": "hit", "target": "mira", "damage": 10},
        save(7),
        save(13),
        death_saves="table",
    )  # fmt: skip
    seven, thirteen = [d for d in report.luck.dice if d.purpose == "death_save"]
    assert (str(seven.as_bad), str(seven.as_good)) == ("9/20", "19/20")  # 1-9; 2-20
    assert (str(thirteen.as_bad), str(thirteen.as_good)) == ("19/20", "11/20")  # 1-19; 10-20


WHQ = {"type": "character_joined", "character": "grim", "stats": {"wounds": 10}}


def d66(tens: int, units: int) -> dict[str, Any]:
    return {"type": "hit", "target": "grim", "damage": 10,
            "rolls": {"serious_injury": [tens, units], "downed": [5]}}  # fmt: skip


@pytest.mark.parametrize(
    ("tens", "units", "as_bad", "as_good"),
    [
        # 16 Internal Injury (tier 3): as bad or worse, 11-13 Decapitated, 14 and 15 a limb,
        # 16, 32 Eye Loss, 34 Foot, 35 Hand: 9 of 36; better or as bad, all but those 5 above it
        (1, 6, "1/4", "31/36"),
        # 21 Stupidity (tier 2 of 13 results): as bad or worse, tiers 2-5: 13+4+2+3 = 22 of 36;
        # as good or better, tiers 0-2: 5+9+13 = 27 of 36
        (2, 1, "11/18", "3/4"),
        # 61 Nothing Too Serious (tier 0): every result is as bad or worse; as good: 5 of 36
        (6, 1, "1/1", "5/36"),
    ],
)
def test_a_serious_injury_is_read_by_what_it_does_not_by_its_number(
    app: Application, tens: int, units: int, as_bad: str, as_good: str
) -> None:
    report = played(app, "f", "warhammer_quest", WHQ, d66(tens, units))
    [roll] = [d for d in report.luck.dice if d.purpose == "serious_injury"]
    assert (str(roll.as_bad), str(roll.as_good)) == (as_bad, as_good)


def test_the_serious_injury_tiers_count_as_the_test_says() -> None:
    from woundlog.core.rulesets.warhammer_quest.tables import SERIOUS_INJURIES_TABLE, SEVERITY

    table = SERIOUS_INJURIES_TABLE.ranges()
    faces = [10 * a + b for a in range(1, 7) for b in range(1, 7)]
    tiers = [SEVERITY[table[face]] for face in faces]
    # tier 0: 61-63, 64, 66; 1: 31, 42, 43, 51, 53-56, 65; 2: 21-26, 33, 36, 41, 44-46, 52;
    # 3: 16, 32, 34, 35; 4: 14, 15; 5: 11-13
    assert [tiers.count(t) for t in range(6)] == [5, 9, 13, 4, 2, 3]


def mordheim_hit(dice: list[int], damage: int) -> list[dict[str, Any]]:
    return [
        {"type": "character_joined", "character": "ulf", "side": "a", "stats": {"wounds": 1}},
        {"type": "hit", "target": "ulf", "damage": damage, "rolls": {"injury": dice}},
    ]


@settings(**READ_AT_ONCE)
@given(
    dice=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    extra=st.integers(0, 2),
    data=st.data(),
)
def test_a_mordheim_reading_does_not_depend_on_the_order_the_dice_were_written(
    tmp_path_factory: pytest.TempPathFactory, dice: list[int], extra: int, data: st.DataObject
) -> None:
    other = data.draw(st.permutations(dice))
    damage = len(dice) + extra  # on 1 wound: every wound past zero asks a roll
    figures = []
    with Application.opened(str(tmp_path_factory.mktemp("m") / "f.db")) as app:
        for n, written in enumerate((dice, other)):
            report = played(app, f"f{n}", "mordheim", *mordheim_hit(written, damage))
            [read] = [d for d in report.luck.dice if d.purpose == "injury"]
            figures.append((read.as_bad, read.as_good, read.dice))
    # by harm, alike (by face they may differ: [5, 6] stops at the 5, never rolling the 6)
    assert figures[0][:2] == figures[1][:2]
    # by hand: the worst of `damage` rolls stands; faces 1-2 knock down, 3-4 stun, 5-6 take
    # out of action; at least as bad unless every one of the `damage` rolls is milder
    as_bad, as_good, rolled = figures[0]
    worst = max((face + 1) // 2 for face in rolled)  # 1, 2 or 3
    milder = 2 * (worst - 1)  # faces below the worst tier
    assert as_bad is not None and as_good is not None
    assert as_bad.fraction() == 1 - Fraction(milder, 6) ** damage
    assert as_good.fraction() == Fraction(2 * worst, 6) ** damage

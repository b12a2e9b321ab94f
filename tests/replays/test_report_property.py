"""A report's numbers against a hand count, on random small fights (issue 39).

Mordheim fights as `tests/strategies.py` makes them (blows, recovery phases, heals Mordheim
refuses, retracts, amends and retracts of retracts): which events stand is worked out here from
DESIGN section 6 alone (a retract takes its event back unless it is itself taken back, an amend
plays its replacement in its place), and what each standing event does is the reducer's (`core`,
tested against the rule texts elsewhere); the counting is the test's. The report's numbers
(README "After the fight"; `replays/report/numbers.py`'s docstring) must agree: hits and damage
taken and dealt, what the rules voided counting for nothing; each move into knocked down or
stunned; the state each ends in; a side's standing; the events and undo events; every injury
roll read, by what it does, "the worst of every roll the wounds past zero ask for".

dnd5e fights of one dying character's death saves (dice given) and blows at 0 hit points: the
luck figures are counted here by walking every d20 the saves could show: a luck figure is "how
often the same blows, every die free, leave you at least as badly off (or as well) by what your
game counts as worse", dnd5e's order being "the state, then failed death saves, successes, hit
points" with the states from better to worse upright, stabilised, dying, dead; and each save's
reading by what it does: a 1 two failures, 2-9 one, 10-19 a success, a 20 wakes.

Defects this catches (each checked by breaking the code, then restoring it):
- a voided hit counted (`Numbers.add` in `replays/report/numbers.py` not passing over
  `changes.void`);
- stabilised and downed ranked the wrong way round (`HARM` in `core/states.py`, the first key
  of every order of harm)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.strategies import mordheim_logs
from woundlog.core import FightState, apply_or_void
from woundlog.events import (
    Amend,
    CharacterJoined,
    Event,
    FightStarted,
    Heal,
    Hit,
    Retract,
    TurnStarted,
)
from woundlog.events.codec import write_jsonl
from woundlog.replays.application import Application
from woundlog.replays.cli import app as cli
from woundlog.replays.report import Report
from woundlog.replays.report import luck as luck_module

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


@pytest.fixture(scope="module")
def app(folder: Path) -> Iterator[Application]:
    with Application.opened(str(folder / "r.db")) as one:
        yield one


def report_of(app: Application, log: list[Event], folder: Path) -> Report:
    """The report of `log` as a file (a log whose undo left events the rules now refuse)."""
    file = folder / f"fight{len(list(folder.glob('*.jsonl')))}.jsonl"
    with file.open("wb") as out:
        write_jsonl(out, log)
    return app.report(file)


# --- which events stand, from DESIGN section 6 ----------------------------------------------


def _position(ref: str, log: list[Event]) -> int:
    if ref.startswith("#"):
        return int(ref[1:])
    return next(n for n, e in enumerate(log, 1) if e.id == ref)


def standing(log: list[Event]) -> list[Event | None]:
    """Each event as the fight now plays it in its place: itself, an amend's replacement, or
    None (taken back). Undo events themselves are None here: they move no one."""
    taken: set[int] = set()
    replaced: dict[int, Event] = {}
    for n in range(len(log), 0, -1):  # an undo is taken back only by a later one
        event = log[n - 1]
        if n in taken or not isinstance(event, Retract | Amend):
            continue
        target = _position(event.event, log)
        if isinstance(event, Retract):
            taken.add(target)
        elif target not in replaced:  # the newest standing amend wins
            replaced[target] = event.replacement  # type: ignore[assignment]
    return [
        None
        if n in taken or isinstance(e, Retract | Amend)
        else (msgspec.structs.replace(replaced[n], id=e.id) if n in replaced else e)
        for n, e in enumerate(log, 1)
    ]


def folded(log: list[Event]) -> Iterator[tuple[Event | None, FightState[Any], Any, Any]]:
    """(the event played, the state before, the state after, its changes) at each place."""
    state: FightState[Any] | None = None
    for n, event in enumerate(standing(log), 1):
        before = state
        if event is None:
            assert state is not None
            state = msgspec.structs.replace(state, seq=n)
            yield None, before, state, None  # type: ignore[misc]
            continue
        if event.id is None:  # its id is its place, whatever was passed over before it
            event = msgspec.structs.replace(event, id=f"#{n}")
        state, changes = apply_or_void(state, event)
        yield event, before, state, changes  # type: ignore[misc]


# --- Mordheim: the numbers ----------------------------------------------------------------


@settings(SETTINGS, max_examples=40)
@given(log=mordheim_logs(named=True))
def test_a_mordheim_reports_numbers_are_its_standing_events_counted(
    app: Application, folder: Path, monkeypatch: pytest.MonkeyPatch, log: list[Event]
) -> None:
    # the numbers and dice readings alone: the fighters' luck and the moments (weighed within
    # their budgets, whichever way) are the dnd5e property's and test_report.py's
    for budget in ("FIGHT_STEPS", "SAMPLE_STEPS", "MOMENT_STEPS", "REPORT_STEPS"):
        monkeypatch.setattr(luck_module, budget, 1)
    report = report_of(app, log, folder)
    count: dict[str, dict[str, int]] = {}
    sides: dict[str, str] = {}
    final: FightState[Any] | None = None
    readings: list[tuple[int, list[int], int]] = []  # seq, dice, rolls the wounds asked
    for n, (event, before, after, changes) in enumerate(folded(log), 1):
        final = after
        if isinstance(event, CharacterJoined):
            sides[event.character] = event.side
        if event is None or changes.void is not None:
            continue
        if isinstance(event, Hit):
            tally = count.setdefault(event.target, {})
            tally["hits_taken"] = tally.get("hits_taken", 0) + 1
            tally["damage_taken"] = tally.get("damage_taken", 0) + event.damage
            if event.attacker in after.characters:
                dealt = count.setdefault(event.attacker, {})
                dealt["hits_dealt"] = dealt.get("hits_dealt", 0) + 1
                dealt["damage_dealt"] = dealt.get("damage_dealt", 0) + event.damage
            wounds = before.characters[event.target].wounds
            asked = max(0, event.damage - max(wounds - 1, 0))
            dice = [d.value for d in changes.dice if d.purpose == "injury"]
            if asked:
                readings.append((n, dice, asked))
        if isinstance(event, Heal):
            tally = count.setdefault(event.target, {})
            tally["heals_taken"] = tally.get("heals_taken", 0) + 1
        for cid, now in after.characters.items():
            was = before.characters.get(cid) if before is not None else None
            if was is not None and was.state != now.state and now.state in ("knocked_down",
                                                                            "stunned"):  # fmt: skip
                tally = count.setdefault(cid, {})
                tally[now.state] = tally.get(now.state, 0) + 1
    assert final is not None
    for one in report.characters:
        expected = {k: v for k, v in count.get(one.character, {}).items() if v}
        got = {k: v for k, v in msgspec.structs.asdict(one.tally).items() if v}
        got.pop("rounds_down", None)
        assert got == expected, one.character
        assert one.state == final.characters[one.character].state
    for side in report.sides:
        members = [c for c, s in sides.items() if s == side.side]
        assert side.characters == members
        up = ("upright", "knocked_down", "stunned")
        assert side.standing == sum(final.characters[c].state in up for c in members)
    assert report.length.events == len(log)
    assert report.length.undo_events == sum(isinstance(e, Retract | Amend) for e in log)
    injury = [d for d in report.luck.dice if d.purpose == "injury"]
    assert [(d.seq, d.dice) for d in injury] == [(n, dice) for n, dice, _ in readings]
    for d, (_, dice, asked) in zip(injury, readings, strict=True):
        worst = max((face + 1) // 2 for face in dice)  # 1-2, 3-4, 5-6: tiers 1, 2, 3
        assert d.as_bad is not None and d.as_good is not None
        assert d.as_bad.fraction() == 1 - Fraction(2 * (worst - 1), 6) ** asked
        assert d.as_good.fraction() == Fraction(2 * worst, 6) ** asked


# --- dnd5e: the death saves' luck ----------------------------------------------------------

STATE = {"upright": 0, "stabilised": 1, "downed": 2, "dead": 3}
"""dnd5e's states, better to worse."""
HP = 10


def saves_and_blows(steps: list[int | str], dice: list[int]) -> tuple[str, int, int, int]:
    """Mira, dying at 0 hit points, through `steps` (a death save, "blow": 1 damage): her
    state, failures, successes and hit points, the saves reading `dice` in order."""
    state, failures, successes, hp = "downed", 0, 0, 0
    rolled = iter(dice)
    for step in steps:
        if state == "dead":
            break
        if step == "blow":
            if hp > 0:
                hp -= 1
                if hp == 0:
                    state, failures, successes = "downed", 0, 0
            else:
                if state == "stabilised":
                    state, failures, successes = "downed", 0, 0
                failures += 1
        elif state == "downed":
            d = next(rolled)
            if d == 20:
                state, failures, successes, hp = "upright", 0, 0, 1
            elif d >= 10:
                successes += 1
            else:
                failures += 2 if d == 1 else 1
        if state == "downed" and successes >= 3:
            state, failures, successes = "stabilised", 0, 0
        if failures >= 3:
            state, failures = "dead", 3
    return state, failures, successes, hp


def harm(lot: tuple[str, int, int, int]) -> tuple[int, int, int, int]:
    state, failures, successes, hp = lot
    return STATE[state], failures, -successes, -hp


def every_path(steps: list[int | str]) -> Iterator[tuple[Fraction, tuple[str, int, int, int]]]:
    """Every lot the saves can bring, each with its chance: a save is asked only of one dying."""

    def walk(dice: list[int]) -> Iterator[tuple[Fraction, tuple[str, int, int, int]]]:
        try:
            yield Fraction(1), saves_and_blows(steps, dice)
        except StopIteration:  # one more die is asked
            for d in range(1, 21):
                for p, lot in walk([*dice, d]):
                    yield p / 20, lot

    return walk([])


@settings(SETTINGS, max_examples=12)
@given(
    steps=st.lists(st.sampled_from(["save", "save", "save", "blow"]), min_size=1, max_size=4),
    faces=st.lists(st.integers(1, 20), min_size=4, max_size=4),
)
def test_dnd5e_luck_is_every_death_save_walked_by_hand(
    app: Application, folder: Path, steps: list[int | str], faces: list[int]
) -> None:
    log: list[Event] = [
        FightStarted(ruleset="dnd5e"),
        CharacterJoined(character="mira", name="Mira", side="party", stats={"hp": HP}),
        Hit(target="mira", damage=HP),  # to 0, no damage left over: dying
    ]
    dice = iter(faces)
    given_dice: list[int] = []
    played: list[int | str] = []  # the steps the log holds
    for n, step in enumerate(steps):
        now = saves_and_blows(played, given_dice)[0]
        if step == "blow":
            if now == "dead":
                continue  # the dead take no blow
            log.append(Hit(target="mira", damage=1))
        else:
            face = next(dice)
            log.append(TurnStarted(round=n + 1, character="mira", rolls={"death_save": [face]}))
            if now == "downed":
                given_dice.append(face)
        played.append(step)
    lot = saves_and_blows(played, given_dice)
    report = report_of(app, log, folder)
    [mira] = [c for c in report.luck.characters if c.character == "mira"]
    assert mira.state == lot[0]
    paths = list(every_path(played))
    assert sum(p for p, _ in paths) == 1
    as_bad = sum(p for p, other in paths if harm(other) >= harm(lot))
    as_good = sum(p for p, other in paths if harm(other) <= harm(lot))
    assert (mira.method, mira.as_bad.fraction(), mira.as_good.fraction()) == (
        "exact",
        as_bad,
        as_good,
    )
    # the CLI gives the same figures, as JSON and as the Markdown's luck table
    file = str(sorted(folder.glob("*.jsonl"), key=lambda f: f.stat().st_mtime)[-1])
    db = str(folder / "cli.db")
    told = CliRunner().invoke(cli, ["--db", db, "report", file, "--json"])
    [luck] = [c for c in json.loads(told.output)["luck"]["characters"] if c["character"] == "mira"]
    assert (luck["as_bad"], luck["as_good"]) == (
        {"num": as_bad.numerator, "den": as_bad.denominator},
        {"num": as_good.numerator, "den": as_good.denominator},
    )
    shown = CliRunner().invoke(cli, ["--db", db, "report", file]).output
    figures = f"{as_bad.numerator}/{as_bad.denominator} | {as_good.numerator}/{as_good.denominator}"
    assert "| Mira | " in shown and f" | {figures} | exact |" in shown
    saves = [d for d in report.luck.dice if d.purpose == "death_save"]
    assert [d.value for d in saves] == given_dice
    tier = {1: 3, **dict.fromkeys(range(2, 10), 2), **dict.fromkeys(range(10, 20), 1), 20: 0}
    for d in saves:
        assert d.as_bad is not None and d.as_good is not None
        assert d.as_bad.fraction() == Fraction(sum(tier[f] >= tier[d.value] for f in tier), 20)
        assert d.as_good.fraction() == Fraction(sum(tier[f] <= tier[d.value] for f in tier), 20)
        assert (d.at_least.fraction(), d.at_most.fraction()) == (
            Fraction(21 - d.value, 20),
            Fraction(d.value, 20),
        )

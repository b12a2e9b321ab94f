"""Issue 40: turns in initiative order from the CLI and `woundlog play`: `join --initiative`,
`next` (printing what the rules did at each tick, as `hit` prints), `order`; and undo of a
turn order or a next like any event."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from woundlog.replays.cli.application import kept_open
from woundlog.replays.cli.run import every_command
from woundlog.replays.cli.session import Session

from .conftest import Run
from .test_cli import ok
from .test_cli_names import events_of


@pytest.fixture
def tavern(run: Run) -> str:
    """A dnd5e fight: Mirabel (a pc, 8 hp, initiative 12), a goblin (15), Brakk (a pc, 12)."""
    for args in (
        ("new", "tavern", "--ruleset", "dnd5e", "--seed", "4"),
        ("join", "tavern", "mirabel", "--name", "Mirabel", "--kind", "pc", "--stat", "hp=8",
         "--initiative", "12"),
        ("join", "tavern", "gob", "--name", "Goblin", "--kind", "monster", "--stat", "hp=7",
         "--initiative", "15"),
        ("join", "tavern", "brakk", "--kind", "pc", "--stat", "hp=12", "--initiative", "12"),
    ):  # fmt: skip
        ok(run(*args))
    return "tavern"


def turn(run: Run, fight: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(ok(run("state", fight, "--json")).stdout)["turn"]
    return found


def test_join_takes_an_initiative_and_the_order_is_by_it_ties_by_join_order(
    run: Run, tavern: str
) -> None:
    assert turn(run, tavern)["order"] == ["gob", "mirabel", "brakk"]
    assert events_of(run, tavern)[1]["initiative"] == 12


def test_next_prints_each_tick_and_whose_turn_it_is_wrapping_to_the_next_round(
    run: Run, tavern: str
) -> None:
    first = ok(run("next", tavern)).stdout.splitlines()
    assert first[0].startswith("#5 turn_started") and first[-1] == "round 1: Goblin's turn"
    said = [ok(run("next", tavern)).stdout.splitlines()[-1] for _ in range(3)]
    assert said == ["round 1: Mirabel's turn", "round 1: brakk's turn", "round 2: Goblin's turn"]
    assert events_of(run, tavern)[-2:] == [
        {"type": "turn_ended", "round": 1, "character": "brakk"},
        {"type": "turn_started", "round": 2, "character": "gob"},
    ]


def test_a_dying_pcs_death_save_is_rolled_at_her_turn_start_by_next_with_the_tables_die(
    run: Run, tavern: str
) -> None:
    ok(run("next", tavern))
    ok(run("hit", tavern, "mirabel", "9", "--attacker", "gob"))
    out = ok(run("next", tavern, "--roll", "death_save@mirabel=20")).stdout
    assert "#8 turn_started: Mirabel" in out and "death_save@mirabel d20=20 given" in out
    state = json.loads(ok(run("state", tavern, "--json")).stdout)
    assert state["characters"]["mirabel"]["hp"] == 1  # a natural 20: back with 1 hit point


def test_next_passes_over_the_dead_and_keeps_the_dying(run: Run, tavern: str) -> None:
    ok(run("hit", tavern, "gob", "20", "--attacker", "brakk"))  # a monster at 0: dead
    ok(run("hit", tavern, "brakk", "12", "--attacker", "mirabel"))  # a pc at 0: dying
    said = [ok(run("next", tavern)).stdout.splitlines()[-1] for _ in range(3)]
    assert said == ["round 1: Mirabel's turn", "round 1: brakk's turn", "round 2: Mirabel's turn"]


def test_order_by_ids_or_names_or_by_initiative_values_and_not_both(run: Run, tavern: str) -> None:
    ok(run("next", tavern))
    out = ok(run("order", tavern, "Brakk", "goblin")).stdout
    assert "turn order from now: brakk, gob, mirabel" in out
    assert turn(run, tavern)["current"] == "gob"  # the turn stays with whoever has it
    ok(run("order", tavern, "gob=3", "mirabel=3", "brakk=9"))
    assert turn(run, tavern)["order"] == ["brakk", "mirabel", "gob"]
    mixed = run("order", tavern, "gob=3", "mirabel")
    assert mixed.exit_code == 2 and "or none" in mixed.output
    twice = run("order", tavern, "gob", "gob")
    assert twice.exit_code == 3 and "$.order[1]" in twice.output


def test_undoing_a_turn_order_or_a_next_works_as_any_undo(run: Run, tavern: str) -> None:
    ok(run("next", tavern))
    ok(run("order", tavern, "brakk"))
    undone = ok(run("undo", tavern)).stdout
    assert "retracts #6" in undone
    assert turn(run, tavern)["order"] == ["gob", "mirabel", "brakk"]
    ok(run("next", tavern))  # ends the goblin's turn, starts Mirabel's
    ok(run("undo", tavern))  # her start taken back: nobody's turn is under way
    assert turn(run, tavern)["current"] is None
    again = ok(run("next", tavern)).stdout.splitlines()[-1]
    assert again == "round 1: Mirabel's turn"  # after the last whose turn started: the goblin


def test_a_retried_next_with_its_id_moves_the_turn_on_once(run: Run, tavern: str) -> None:
    ok(run("next", tavern, "--id", "n1"))
    again = ok(run("next", tavern, "--id", "n1")).stdout
    assert "already recorded" in again
    assert turn(run, tavern)["current"] == "gob"
    too_long = run("next", tavern, "--id", "x" * 200)
    assert too_long.exit_code == 2 and "at most 196" in too_long.output


@pytest.fixture
def session(db: Path, tavern: str) -> Iterator[Session]:
    with kept_open(None) as opened:
        yield Session(every_command(), opened, tavern, None)


def test_play_has_next_and_order_and_completes_order_with_characters(
    session: Session, capsys: pytest.CaptureFixture[str], run: Run
) -> None:
    for line in ("next", "order brakk", "next"):
        assert session.handle(line), line
    out = capsys.readouterr().out
    # the goblin's turn stays his; after him in the new order, Mirabel
    assert "round 1: Goblin's turn" in out and "round 1: Mirabel's turn" in out
    assert "turn order from now: brakk, gob, mirabel" in out
    assert session.candidates(["order"], "Mi") == ["mirabel", "Mirabel"]
    assert session.candidates(["order", "gob"], "b") == ["brakk"]  # and every one after
    assert turn(run, "tavern")["current"] == "mirabel"

"""One path for an event's checks (issue 28): `apply` and a Fold's quick steps ask the same
checks (`core.reducer.Checks`), so each one is proved here by example through both, with the
same words and field: a fact the ruleset does not read, a target not in the fight, an
attacker who may not act and one from outside the fight, a turn's scope, and a move the
ruleset's Machine does not declare; and whose turn a side's tick starts, which the fast fold no
longer works out fighter by fighter. Each example fails if the shared check is broken, whichever
way the event goes.

The fights are Mordheim's test fights (Grim of the reavers, Snik of the skaven), whose rules
read no facts; a heal's fact is SRD 5.1's (dnd5e reads `check` on a heal and nothing else)."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
import pytest

from tests.core import test_dnd5e as dnd5e
from tests.core import test_mordheim as mordheim
from woundlog.core import FightState, apply
from woundlog.core.fight_state import Character
from woundlog.core.machine import Graph, IllegalTransition
from woundlog.core.reducer import Fold
from woundlog.core.ruleset import Context, Ruleset
from woundlog.core.rulesets import RULESETS
from woundlog.core.rulesets.mordheim import Mordheim
from woundlog.events import (
    CharacterJoined,
    Event,
    FightStarted,
    Heal,
    Hit,
    RuleError,
    TurnEnded,
    TurnStarted,
)


def both_refuse(state: FightState[Any], event: Event, words: str, field: str) -> None:
    """`apply` and the fast fold refuse `event` with the same words and field; the fold is
    left as it was."""
    with pytest.raises(RuleError) as applied:
        apply(state, event)
    fold = Fold(state)
    with pytest.raises(RuleError) as folded:
        fold.add(event)
    for err in (applied.value, folded.value):
        assert (err.message, err.field) == (words, field)
    assert fold.state == state


def both_accept(state: FightState[Any], event: Event) -> tuple[FightState[Any], str]:
    """`apply` and the fast fold fold `event` into the same state; that state and what
    `apply` says of it."""
    after, changes = apply(state, event)
    fold = Fold(state)
    fold.add(event)
    assert fold.state == after
    return after, changes.explanation


# --- a hit's or a heal's checks (`Checks.clears`) -----------------------------------------


def test_a_fact_mordheim_does_not_read_is_refused_naming_the_first_in_declaration_order() -> None:
    state = mordheim.fight()
    blow = Hit(target="snik", damage=1, magic=True, weapon="A")  # weapon is declared first
    both_refuse(state, blow, "this ruleset does not use the fact `weapon` on a hit", "$.weapon")
    one = Hit(target="snik", damage=1, location="head")
    both_refuse(state, one, "this ruleset does not use the fact `location` on a hit", "$.location")


def test_a_heal_fact_dnd5e_does_not_read_is_refused_and_the_one_it_reads_is_taken() -> None:
    state = dnd5e.fight(dnd5e.hit(3))
    stated = Heal(target="mira", amount=1, means="potion", items=2)
    both_refuse(state, stated, "this ruleset does not use the fact `items` on a heal", "$.items")
    after, _ = both_accept(state, Heal(target="mira", amount=1, means="potion"))
    assert after.characters["mira"].hp == dnd5e.mira(state).hp + 1


def test_a_hit_on_someone_not_in_the_fight_is_refused_naming_who_joined() -> None:
    both_refuse(
        mordheim.fight(),
        Hit(target="snick", damage=1),
        "no character `snick` in this fight (joined: grim, snik)",
        "$.target",
    )


def test_a_fact_is_refused_before_the_target_is_looked_for() -> None:
    both_refuse(
        mordheim.fight(),
        Hit(target="snick", damage=1, magic=True),
        "this ruleset does not use the fact `magic` on a hit",
        "$.magic",
    )


def test_a_stunned_attacker_is_refused_and_an_upright_one_strikes() -> None:
    stunned = mordheim.fight(mordheim.hit(1, 3))  # Grim's injury roll of 3: stunned
    blow = Hit(target="snik", damage=1, attacker="grim")
    both_refuse(stunned, blow, "Grim is stunned and may do nothing at all", "$.attacker")
    after, _ = both_accept(mordheim.fight(), blow)
    assert after.characters["snik"].wounds == 0


def test_an_attacker_from_outside_the_fight_strikes_and_is_named() -> None:
    state = mordheim.fight(mordheim.hit(1, 3))
    after, said = both_accept(state, Hit(target="snik", damage=1, attacker="a_falling_beam"))
    assert after.characters["snik"].wounds == 0
    assert said.endswith("; attacker `a_falling_beam` is not a character of this fight")


# --- a turn's scope (`Checks.in_scope`) ----------------------------------------------------


def test_a_turn_of_a_side_nobody_is_on_is_refused_naming_the_sides() -> None:
    both_refuse(
        mordheim.fight(),
        TurnStarted(round=1, side="dwarfs"),
        "no character is on side `dwarfs` (sides: reavers, skaven)",
        "$.side",
    )


def test_a_turn_of_someone_not_in_the_fight_is_refused() -> None:
    both_refuse(
        mordheim.fight(),
        TurnEnded(round=1, character="gimli"),
        "no character `gimli` in this fight (joined: grim, snik)",
        "$.character",
    )


def test_a_turn_of_a_side_of_one_character_and_of_the_whole_round_are_folded() -> None:
    knocked = mordheim.fight(mordheim.hit(1, 1))  # Grim's injury roll of 1: knocked down
    after, _ = both_accept(knocked, TurnStarted(round=1, side="reavers"))
    assert after.characters["grim"].state == "upright"  # his recovery phase: he stands
    after, _ = both_accept(knocked, TurnStarted(round=1, character="grim"))
    assert after.characters["grim"].state == "upright"
    after, _ = both_accept(knocked, TurnStarted(round=1))  # the whole round: nobody recovers
    assert after.characters["grim"].state == "knocked_down"


class LastGasp(Mordheim):
    """Mordheim with an exception worded by the ruleset itself: a knocked-down fighter may
    still strike, so who may act is asked of it for each hit, not read from the table."""

    name = "last_gasp"

    def why_attacker_cannot(
        self, fight: FightState[Any], attacker_id: str, attacker: Any, hit: Hit
    ) -> str | None:
        if attacker.state == "knocked_down":
            return None
        return super().why_attacker_cannot(fight, attacker_id, attacker, hit)


def test_an_attacker_the_ruleset_words_an_exception_for_is_asked_of_it_both_ways(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(RULESETS, "last_gasp", LastGasp())
    state, _ = apply(None, FightStarted(ruleset="last_gasp"))
    for event in (
        CharacterJoined(character="grim", name="Grim", side="reavers"),
        CharacterJoined(character="snik", name="Snik", side="skaven", stats={"wounds": 3}),
    ):
        state = both_accept(state, event)[0]
    knocked = both_accept(state, mordheim.hit(1, 1))[0]  # Grim's injury roll of 1
    after, _ = both_accept(knocked, Hit(target="snik", damage=1, attacker="grim"))
    assert after.characters["snik"].wounds == 2
    stunned = both_accept(state, mordheim.hit(1, 3))[0]
    blow = Hit(target="snik", damage=1, attacker="grim")
    both_refuse(stunned, blow, "Grim is stunned and may do nothing at all", "$.attacker")


# --- a move the Machine does not declare (`_declared`) -------------------------------------


class Quack(Ruleset):
    """A ruleset whose heal writes a state no move declares: downed back to upright."""

    name = "quack"
    graph = Graph(name, ["upright", "downed"], [("fall", "upright", "downed")])
    character = Character
    stats: ClassVar[dict[str, int | None]] = {}

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> Character:
        return Character(**self.basics(event, kind, stats))

    def on_hit(self, fight: FightState[Any], target: Any, hit: Hit, ctx: Context) -> Character:
        return ctx.move(target, "fall")

    def on_heal(self, fight: FightState[Any], target: Any, heal: Heal, ctx: Context) -> Character:
        return msgspec.structs.replace(target, state="upright")


def test_a_move_the_machine_does_not_declare_is_a_bug_either_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(RULESETS, "quack", Quack())
    state, _ = apply(None, FightStarted(ruleset="quack"))
    for event in (CharacterJoined(character="ann"), Hit(target="ann", damage=1)):
        state = both_accept(state, event)[0]
    assert state.characters["ann"].state == "downed"
    cure = Heal(target="ann", amount=1, means="quackery")
    with pytest.raises(IllegalTransition, match="quack: ann moved downed -> upright"):
        apply(state, cure)
    with pytest.raises(IllegalTransition, match="quack: ann moved downed -> upright"):
        Fold(state).add(cure)


# --- whose turn a side's tick starts (`Ruleset.turns`), through both ----------------------


def test_a_sides_second_turn_start_in_a_round_recovers_nobody_again() -> None:
    stunned = mordheim.fight(mordheim.hit(1, 3), TurnStarted(round=1, side="reavers"))
    assert stunned.characters["grim"].state == "knocked_down"  # turned face up, once
    after, _ = both_accept(stunned, TurnStarted(round=1, side="reavers"))
    assert after.characters["grim"].state == "knocked_down"


def test_a_side_whose_fighter_began_his_turn_by_name_does_not_begin_it_again() -> None:
    stunned = mordheim.fight(mordheim.hit(1, 3), TurnStarted(round=1, character="grim"))
    after, _ = both_accept(stunned, TurnStarted(round=1, side="reavers"))
    assert after.characters["grim"].state == "knocked_down"
    after, _ = both_accept(stunned, TurnStarted(round=1, side="skaven"))  # another side's
    assert after.characters["grim"].state == "knocked_down"
    after, _ = both_accept(after, TurnStarted(round=2, side="reavers"))  # the next round
    assert after.characters["grim"].state == "upright"

"""A Mordheim recovery phase says what it did as a template, worded only when someone reads it
(issue 42; STYLE.md, habit 5): a state-only fold puts no sentence together, `apply` words each
fighter by name."""

from __future__ import annotations

from typing import Any

from woundlog.core import apply
from woundlog.core.ruleset import Context
from woundlog.core.rulesets.mordheim import Mordheim, Warrior, recovery_phase
from woundlog.events import CharacterJoined, FightStarted, Hit, TurnStarted


def context(explains: bool) -> Context:
    return Context("t", lambda: None, Mordheim.graph, {}, explains=explains)  # type: ignore[arg-type]


def test_a_recovery_is_said_as_a_template_of_the_fighters_name() -> None:
    down = Warrior(state="knocked_down", name="Grim {the} Grey", side="r", kind="hero", wounds=0)
    stunned = Warrior(state="stunned", name="Snik", side="s", kind="hero", wounds=0)
    assert recovery_phase(down, context(False))[1] == "{name} stands up (half rate this turn)"
    assert recovery_phase(stunned, context(False))[1] == "{name} turns face up (knocked down)"


def test_the_recovery_phase_words_each_fighter_by_name_when_read() -> None:
    state: Any = None
    for event in (
        FightStarted(ruleset="mordheim"),
        CharacterJoined(character="grim", name="Grim {the} Grey", side="r"),
        CharacterJoined(character="snik", name="Snik", side="r"),
        Hit(target="grim", damage=1, rolls={"injury": [1]}),
        Hit(target="snik", damage=1, rolls={"injury": [3]}),
    ):
        state, _ = apply(state, event)
    _, changes = apply(state, TurnStarted(side="r"))
    assert changes.explanation == (
        "recovery phase: Grim {the} Grey stands up (half rate this turn), "
        "Snik turns face up (knocked down)"
    )

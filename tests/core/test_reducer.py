"""What the reducer checks for every ruleset, and what its changes say."""

from __future__ import annotations

import msgspec
import pytest

from woundlog.core import apply
from woundlog.events import (
    CharacterJoined,
    FightEnded,
    FightStarted,
    Hit,
    Retract,
    RuleError,
    StructuralError,
    TurnStarted,
)


def started(**kw: object) -> object:
    state, _ = apply(None, FightStarted(ruleset="mordheim", **kw))  # type: ignore[arg-type]
    return state


def test_a_fight_must_begin_with_fight_started() -> None:
    with pytest.raises(StructuralError, match="begins with"):
        apply(None, Hit(target="grim", damage=1))


def test_fight_started_only_once() -> None:
    with pytest.raises(StructuralError, match="once"):
        apply(started(), FightStarted(ruleset="mordheim"))  # type: ignore[arg-type]


def test_unknown_ruleset_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(StructuralError, match="mordheim") as err:
        apply(None, FightStarted(ruleset="mordhiem"))
    assert err.value.field == "$.ruleset"


def test_unknown_option_is_refused() -> None:
    with pytest.raises(StructuralError) as err:
        apply(None, FightStarted(ruleset="mordheim", options={"stict_dice": True}))
    assert err.value.field == "$.options.stict_dice"


def test_option_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(StructuralError, match="bool"):
        apply(None, FightStarted(ruleset="mordheim", options={"strict_dice": 1}))


def test_unknown_character_is_a_rule_error_listing_who_joined() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    with pytest.raises(RuleError, match="joined: grim") as err:
        apply(state, Hit(id="h9", target="snikk", damage=1))
    assert err.value.event == "h9" and err.value.field == "$.target"


def test_unknown_side_in_a_turn_is_a_rule_error() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    with pytest.raises(RuleError, match="side `b`"):
        apply(state, TurnStarted(side="b"))


def test_joining_twice_is_refused() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    with pytest.raises(RuleError, match="already joined"):
        apply(state, CharacterJoined(character="grim", side="a"))


def test_nothing_but_undo_happens_after_the_fight_ended() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    state, _ = apply(state, FightEnded())
    with pytest.raises(RuleError, match="ended"):
        apply(state, Hit(target="grim", damage=1))
    after, changes = apply(state, Retract(event="#3"))
    assert changes.type == "retract" and after.seq == 4


def test_changes_name_the_event_by_id_or_position() -> None:
    state = started()
    _, by_position = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    _, by_id = apply(state, CharacterJoined(id="j1", character="grim", side="a"))  # type: ignore[arg-type]
    assert by_position.event == "#2" and by_id.event == "j1"


def test_state_json_has_the_shape_of_design_section_8() -> None:
    state = started()
    state, _ = apply(  # type: ignore[arg-type]
        state, CharacterJoined(character="grim", name="Grim", side="reavers", stats={"wounds": 2})
    )
    state, _ = apply(state, Hit(target="grim", damage=1))
    doc = msgspec.json.decode(msgspec.json.encode(state))
    assert doc["ruleset"] == "mordheim" and doc["seq"] == 3
    assert doc["characters"]["grim"]["state"] == "upright"
    assert doc["characters"]["grim"]["name"] == "Grim"
    assert doc["characters"]["grim"]["side"] == "reavers"
    assert doc["characters"]["grim"]["wounds"] == 1
    assert doc["characters"]["grim"]["injuries"] == []


def test_changes_report_state_and_counters_before_and_after() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", name="Grim", side="a"))  # type: ignore[arg-type]
    _, changes = apply(state, Hit(target="grim", damage=1, rolls={"injury": [3]}))
    [grim] = changes.characters
    assert (grim.before, grim.after) == ("upright", "stunned")
    assert grim.counters == {"wounds": (1, 0)}
    assert "injury roll 3 stunned" in changes.explanation


def test_a_second_identical_injury_is_reported_as_gained() -> None:
    from woundlog.core import Character, diff, get_ruleset

    class Scarred(Character, frozen=True, kw_only=True):
        injuries: tuple[str, ...] = ()

    once = Scarred(state="upright", name="G", side="a", kind="warrior", injuries=("scar",))
    twice = Scarred(state="upright", name="G", side="a", kind="warrior", injuries=("scar", "scar"))
    [change] = diff(get_ruleset("mordheim"), {"g": once}, {"g": twice})
    assert change.injuries == ["scar"] and change.injuries_removed == []

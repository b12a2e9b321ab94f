"""Each Warhammer Quest rule, with the dice given, as the rule text (and issue 3) states it."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import msgspec
import pytest

from woundlog.core import FightState, apply, apply_or_void, get_ruleset
from woundlog.events import (
    WIRE_VERSION,
    CharacterJoined,
    Choice,
    Event,
    FightStarted,
    Heal,
    Hit,
    Retract,
    RuleError,
    StructuralError,
    TurnEnded,
    TurnStarted,
    iter_jsonl,
)
from woundlog.replays import replay

from ..invariants import undo_moves_no_other_die

RULES = get_ruleset("warhammer_quest")


def fight(
    *events: Event,
    wounds: int = 10,
    stats: dict[str, int] | None = None,
    options: dict[str, bool | int | str] | None = None,
    tables: dict[str, Any] | None = None,
) -> FightState[Any]:
    """Grim (a warrior), Ulf (a warrior) and an Orc (a 2-wound monster), then `events`."""
    state, _ = apply(
        None,
        FightStarted(ruleset="warhammer_quest", options=options or {}, tables=tables or {}),
    )
    for event in (
        CharacterJoined(character="grim", name="Grim", stats={"wounds": wounds, **(stats or {})}),
        CharacterJoined(character="ulf", name="Ulf", stats={"wounds": 10}),
        CharacterJoined(character="orc", name="Orc", kind="monster", stats={"wounds": 2}),
        *events,
    ):
        state, _ = apply(state, event)
    return state


def down(
    *d66: int,
    target: str = "grim",
    damage: int = 99,
    attacker: str | None = None,
    **rolls: list[int],
) -> Hit:
    """A hit that takes the target to 0 wounds, its Serious Injury roll given as `d66`."""
    given = {"serious_injury": list(d66), **rolls} if d66 else dict(rolls)
    return Hit(target=target, damage=damage, attacker=attacker, rolls=given)


def end(**rolls: list[int]) -> TurnEnded:
    return TurnEnded(rolls=rolls)


def start(**rolls: list[int]) -> TurnStarted:
    return TurnStarted(rolls=rolls)


def heal(amount: int, means: str, target: str = "grim", **rolls: Any) -> Heal:
    items = rolls.pop("items", None)
    return Heal(target=target, amount=amount, means=means, items=items, rolls=rolls)


def grim(state: FightState[Any]) -> Any:
    return state.characters["grim"]


def digits(number: int) -> list[int]:
    return [number // 10, number % 10]


# --- characters -------------------------------------------------------------------------------


def test_a_warrior_starts_upright_on_his_starting_wounds() -> None:
    warrior = grim(fight(wounds=9))
    assert (warrior.state, warrior.wounds, warrior.stats, warrior.kind) == (
        "upright",
        9,
        {"wounds": 9},
        "warrior",
    )


def test_starting_wounds_must_be_given() -> None:
    state, _ = apply(None, FightStarted(ruleset="warhammer_quest"))
    with pytest.raises(RuleError, match="needs stat `wounds`") as err:
        apply(state, CharacterJoined(character="grim"))
    assert err.value.field == "$.stats.wounds"


def test_starting_wounds_are_at_least_one() -> None:
    state, _ = apply(None, FightStarted(ruleset="warhammer_quest"))
    with pytest.raises(RuleError, match="at least 1"):
        apply(state, CharacterJoined(character="grim", stats={"wounds": 0}))


def test_side_defaults_to_warriors_or_monsters_by_kind() -> None:
    state = fight()
    assert grim(state).side == "warriors"
    assert state.characters["orc"].side == "monsters"


def test_a_kind_other_than_warrior_or_monster_is_refused() -> None:
    state, _ = apply(None, FightStarted(ruleset="warhammer_quest"))
    with pytest.raises(RuleError, match=r"no kind `hero`.*warrior, monster, healer_monster") as err:
        apply(state, CharacterJoined(character="x", kind="hero", stats={"wounds": 3}))
    assert err.value.field == "$.kind"


def test_machine_uses_five_states_and_nothing_leaves_dead() -> None:
    graph = RULES.graph
    assert graph.states == ("upright", "knocked_down", "downed", "stabilised", "dead")
    assert graph.initial == "upright"
    assert not any(source == "dead" for source, _ in graph.edges)


def test_every_die_purpose_is_declared_with_its_sides() -> None:
    assert RULES.dice == {
        "serious_injury": 6,
        "downed": 6,
        "treatment": 6,
        "starting_wounds": 3,
        "internal_injury": 3,
        "which_leg": 6,
        "which_foot": 6,
        "which_arm": 6,
        "which_hand": 6,
        "fingers": 3,
        "stupidity": 6,
        "insanity": 6,
        "hallucinations": 6,
        "frenzy": 6,
        "recurring_pains": 6,
        "recurring_pains_wounds": 3,
    }


# --- hits and the Serious Injuries table --------------------------------------------------------


def test_a_hit_reduces_current_wounds_and_rolls_nothing_above_zero() -> None:
    state, changes = apply(fight(), Hit(target="grim", damage=3))
    assert (grim(state).wounds, grim(state).state) == (7, "upright")
    assert changes.dice == []


def test_wounds_never_fall_below_zero() -> None:
    assert grim(fight(down(6, 1, damage=25))).wounds == 0


def test_serious_injury_is_a_d66_tens_then_units() -> None:
    state, changes = apply(fight(), down(3, 4, which_foot=[2]))
    assert [(d.purpose, d.value) for d in changes.dice] == [
        ("serious_injury", 3),
        ("serious_injury", 4),
        ("which_foot", 2),
    ]
    assert grim(state).injuries == ("Severed Foot (left)",)  # 34, not 43


# The Serious Injuries table as the text prints it, one line per D66 number: the result's
# name, a star where the text stars it (gained once), and the state it leaves him in.
SERIOUS_INJURIES_AS_PRINTED = """
11 Decapitated | dead
12 Decapitated | dead
13 Decapitated | dead
14 Severed Leg | downed
15 Severed Arm | downed
16 Internal Injury | downed
21 Head Wound: Stupidity* | downed
22 Head Wound: Insanity* | downed
23 Head Wound: Concussion* | downed
24 Head Wound: Uncontrollable Cowardice* | downed
25 Head Wound: Hallucinations* | downed
26 Head Wound: Frenzy* | downed
31 Head Wound: Fearlessness* | downed
32 Eye Loss | downed
33 Ear Loss | downed
34 Severed Foot | downed
35 Severed Hand | downed
36 Severed Fingers | downed
41 Weakened Arm* | downed
42 Weakened Shield Arm* | downed
43 Weakened Leg* | downed
44 Chest Wound* | downed
45 Recurring Pains* | downed
46 Partial Paralysis | downed
51 Deadened Nerve Endings: Legs* | downed
52 Deadened Nerve Endings: Arms* | downed
53 Deadened Nerve Endings: Chest* | downed
54 Bone Fracture: Leg* | downed
55 Bone Fracture: Arm* | downed
56 Bone Fracture: Chest* | downed
61 Nothing Too Serious | downed
62 Nothing Too Serious | downed
63 Nothing Too Serious | downed
64 Impressive Scars* | downed
65 Horrible Scars* | downed
66 What Doesn't Kill Me | knocked_down
"""
BOOK: dict[int, tuple[str, bool, str]] = {
    int(line[:2]): (line[3:].partition(" | ")[0].rstrip("*"), "*" in line, line.split(" | ")[1])
    for line in SERIOUS_INJURIES_AS_PRINTED.strip().splitlines()
}

# What each row does to a profile of 3 in every stat and Movement 4, as the text says (the
# random side, arm and hand rolled as 1: the left leg and foot, the dominant arm and hand;
# Severed Fingers takes 2). Rows that change no stat are not listed.
STAT_CHANGES_AS_PRINTED: dict[int, dict[str, int]] = {
    14: {"movement": -2},  # "permanently at -2 movement"
    15: {"weapon_skill": -1},  # the dominant arm: his weapon now in the non-dominant hand
    23: {"initiative": -1, "willpower": -1, "intellectual_initiative": -1},
    32: {"ballistic_skill": -1},
    33: {"initiative": -1},
    34: {"movement": -1},
    35: {"weapon_skill": -1},  # the dominant hand
    36: {"weapon_skill": -1},  # "-1 WS when using a weapon in that hand"
    44: {"toughness": -1},
    46: {"attacks": -1},
    51: {"ignore_pain": 1},
    52: {"weapon_skill": -1, "ignore_pain": 1},
    53: {"ignore_pain": 2},
}
PROFILE_OF_THREES = {
    "movement": 4,
    "weapon_skill": 3,
    "ballistic_skill": 3,
    "toughness": 3,
    "initiative": 3,
    "attacks": 3,
    "willpower": 3,
    "intellectual_initiative": 3,
    "ignore_pain": 3,
}
RANDOM_PARTS = {"which_leg": [1], "which_foot": [1], "which_arm": [1], "which_hand": [1]}


# The same rows as a table in a fight's log names them (`fight_started.tables`).
BOOK_ROWS = {
    "11-13": "decapitated",
    "14": "severed_leg",
    "15": "severed_arm",
    "16": "internal_injury",
    "21": "stupidity",
    "22": "insanity",
    "23": "concussion",
    "24": "cowardice",
    "25": "hallucinations",
    "26": "frenzy",
    "31": "fearlessness",
    "32": "eye_loss",
    "33": "ear_loss",
    "34": "severed_foot",
    "35": "severed_hand",
    "36": "severed_fingers",
    "41": "weakened_arm",
    "42": "weakened_shield_arm",
    "43": "weakened_leg",
    "44": "chest_wound",
    "45": "recurring_pains",
    "46": "partial_paralysis",
    "51": "deadened_legs",
    "52": "deadened_arms",
    "53": "deadened_chest",
    "54": "fracture_leg",
    "55": "fracture_arm",
    "56": "fracture_chest",
    "61-63": "nothing_too_serious",
    "64": "impressive_scars",
    "65": "horrible_scars",
    "66": "what_doesnt_kill_me",
}


def test_a_log_table_naming_the_book_rows_plays_as_the_book() -> None:
    """A log that carries the book's own table, row for row, rolls what the book prints."""
    for number, (name, _, expected) in BOOK.items():
        house = {"serious_injuries": {"rows": BOOK_ROWS}}
        state, changes = apply(
            fight(tables=house), down(*digits(number), fingers=[2], **RANDOM_PARTS)
        )
        assert f"Serious Injury {number}: {name}" in changes.explanation
        assert grim(state).state == expected


D66 = [10 * tens + units for tens in range(1, 7) for units in range(1, 7)]
"""Every number two d6 read as tens and units can show: each has its row in the text's table."""


@pytest.mark.parametrize("number", D66)
def test_each_serious_injury_row_gives_the_result_the_text_prints(number: int) -> None:
    name, _, expected = BOOK[number]
    state, changes = apply(
        fight(stats=PROFILE_OF_THREES), down(*digits(number), fingers=[2], **RANDOM_PARTS)
    )
    assert f"Serious Injury {number}: {name}" in changes.explanation
    assert grim(state).state == expected
    recorded = [entry.partition(" (")[0] for entry in grim(state).injuries]
    assert recorded == ([] if name in ("Nothing Too Serious", "What Doesn't Kill Me") else [name])


@pytest.mark.parametrize("number", sorted(BOOK))
def test_each_serious_injury_row_changes_the_stats_the_text_says(number: int) -> None:
    state = fight(down(*digits(number), fingers=[2], **RANDOM_PARTS), stats=PROFILE_OF_THREES)
    changes = STAT_CHANGES_AS_PRINTED.get(number, {})
    now = {stat: getattr(grim(state), stat) for stat in PROFILE_OF_THREES}
    assert now == {stat: v + changes.get(stat, 0) for stat, v in PROFILE_OF_THREES.items()}
    assert grim(state).stats == {"wounds": 10, **PROFILE_OF_THREES}  # as joined


@pytest.mark.parametrize("number", [n for n in sorted(BOOK) if 14 <= n <= 56 or n in (64, 65)])
def test_each_starred_row_is_gained_once_and_each_other_row_again(number: int) -> None:
    name, starred, _ = BOOK[number]
    dice = {
        "fingers": [1, 1],
        "which_leg": [1],
        "which_foot": [1],
        "which_arm": [1],
        "which_hand": [1, 1],
    }
    # two hits, each its own Serious Injury roll (one hit rolls once: the second pair went
    # unused and a starred row's `once` was never tested; the mutation run found it)
    once = {purpose: rolls[:1] for purpose, rolls in dice.items()}
    again = {purpose: rolls[1:] or rolls for purpose, rolls in dice.items()}
    state = fight(down(*digits(number), **once), down(*digits(number), **again))
    recorded = [entry.partition(" (")[0] for entry in grim(state).injuries]
    # parenthesised: `assert a == b if starred else c` asserts `c`, a list, for unstarred rows
    assert recorded == ([name] if starred else [name, name])


def test_decapitated_warrior_is_dead_and_never_rolls_on_the_downed_table() -> None:
    state = fight(down(1, 2))
    assert grim(state).state == "dead"
    state, changes = apply(state, end(downed=[6]))
    assert grim(state).state == "dead"
    assert changes.unused == {"downed": [6]}


def test_healing_a_decapitated_warrior_is_refused() -> None:
    with pytest.raises(RuleError, match="Divine Intervention"):
        apply(fight(down(1, 3)), heal(3, "potion"))


def test_what_doesnt_kill_me_knocks_him_down_until_the_end_of_the_turn() -> None:
    state = fight(down(6, 6))
    assert (grim(state).state, grim(state).wounds, grim(state).stronger) == ("knocked_down", 0, 1)


def test_what_doesnt_kill_me_stands_him_on_one_wound_with_d3_more_starting_wounds() -> None:
    state, changes = apply(fight(down(6, 6)), end(starting_wounds=[2], downed=[1]))
    warrior = grim(state)
    assert (warrior.state, warrior.wounds, warrior.starting_wounds) == ("upright", 1, 12)
    assert [d.purpose for d in changes.dice] == ["starting_wounds"]  # no Downed roll
    assert changes.unused == {"downed": [1]}


def test_standing_up_spends_what_doesnt_kill_me_the_next_stand_rolls_its_own_d3_only() -> None:
    # 10 Starting Wounds +2 on the first stand, +3 on the second: one d3 each time, not two
    state = fight(down(6, 6), end(starting_wounds=[2]))
    assert grim(state).stronger == 0
    again = fight(down(6, 6), end(starting_wounds=[2]), down(6, 6))
    state, changes = apply(again, end(starting_wounds=[3, 1]))
    assert (grim(state).state, grim(state).starting_wounds) == ("upright", 15)
    assert changes.unused == {"starting_wounds": [1]}


def test_a_hit_of_no_damage_does_nothing() -> None:
    state, changes = apply(fight(), Hit(target="grim", damage=0))
    assert grim(state).wounds == 10 and changes.characters == []


def test_a_hit_on_the_dead_is_refused() -> None:
    with pytest.raises(RuleError, match="dead"):
        apply(fight(down(1, 1)), Hit(target="grim", damage=1))


# --- starred results, permanent stat changes ----------------------------------------------------


def test_a_starred_result_is_gained_once_and_a_repeat_is_nothing_too_serious() -> None:
    state = fight(down(4, 4), down(4, 4), stats={"toughness": 4})
    assert grim(state).injuries == ("Chest Wound",)
    assert grim(state).toughness == 3


def test_an_unstarred_result_is_gained_again() -> None:
    state = fight(down(1, 6), down(1, 6))
    assert grim(state).injuries == ("Internal Injury", "Internal Injury")


def test_concussion_costs_initiative_willpower_and_intellectual_initiative() -> None:
    profile = {"initiative": 3, "willpower": 4, "intellectual_initiative": 2, "strength": 3}
    warrior = grim(fight(down(2, 3), stats=profile))
    now = (warrior.initiative, warrior.willpower, warrior.intellectual_initiative)
    assert now == (2, 3, 1)
    assert warrior.stats == {"wounds": 10, **profile}  # as joined


def test_every_stat_the_rules_change_is_shown_at_its_current_value_under_its_own_name() -> None:
    """DESIGN.md section 8: `stats` as joined; Toughness 4 with a Chest Wound is `toughness` 3."""
    state = fight(down(4, 4), stats={"toughness": 4})
    encoded = msgspec.json.decode(msgspec.json.encode(state))["characters"]["grim"]
    assert (encoded["toughness"], encoded["stats"]["toughness"]) == (3, 4)
    assert (encoded["starting_wounds"], encoded["stats"]["wounds"]) == (10, 10)
    assert encoded["weapon_skill"] is None  # not given: not tracked


def test_starting_wounds_are_shown_at_their_current_value_and_stats_as_joined() -> None:
    state = fight(down(6, 6), end(starting_wounds=[2]))
    encoded = msgspec.json.decode(msgspec.json.encode(state))["characters"]["grim"]
    assert (encoded["starting_wounds"], encoded["stats"]["wounds"], encoded["wounds"]) == (
        12,
        10,
        1,
    )


def test_the_trollslayers_deadened_chest_after_his_ignore_pain_skill() -> None:
    """The text's own example: a Trollslayer with Ignore Pain gains Deadened Nerve Endings:
    Chest, +2 Ignore Pain."""
    state = fight(down(5, 3), stats={"ignore_pain": 1, "battle_level": 4})
    assert grim(state).ignore_pain == 3


def test_a_stat_the_warrior_was_not_given_is_not_tracked() -> None:
    state = fight(down(4, 4))
    assert (grim(state).toughness, grim(state).stats) == (None, {"wounds": 10})
    assert grim(state).injuries == ("Chest Wound",)


def test_a_stat_never_falls_below_zero() -> None:
    state = fight(down(1, 4, which_leg=[1]), stats={"movement": 1})
    assert grim(state).movement == 0


@pytest.mark.parametrize(("level", "fear"), [(1, 2), (2, 3), (3, 5), (4, 6)])
def test_horrible_scars_fear_is_150_percent_of_battle_level_rounded_up(
    level: int, fear: int
) -> None:
    state = fight(down(6, 5), stats={"battle_level": level})
    assert grim(state).injuries == (f"Horrible Scars (Fear {fear})",)


# --- what the body loses, and retiring ----------------------------------------------------------


@pytest.mark.parametrize(("roll", "side"), [(1, "left"), (3, "left"), (4, "right"), (6, "right")])
def test_severed_leg_determines_the_leg_randomly(roll: int, side: str) -> None:
    state = fight(down(1, 4, which_leg=[roll]), stats={"movement": 4})
    assert grim(state).lost == (f"{side} leg",)
    assert grim(state).injuries == (f"Severed Leg ({side})",)
    assert grim(state).movement == 2


def test_losing_the_other_leg_takes_it_without_a_roll_and_retires_him() -> None:
    state = fight(down(1, 4, which_leg=[2]), stats={"movement": 4})
    state, changes = apply(state, down(1, 4))
    assert "which_leg" not in [d.purpose for d in changes.dice]
    assert grim(state).lost == ("left leg", "right leg")
    assert grim(state).retired
    assert grim(state).movement == 0


def test_severing_the_dominant_arm_costs_one_weapon_skill() -> None:
    state = fight(down(1, 5, which_arm=[2]), stats={"weapon_skill": 4})
    assert grim(state).lost == ("dominant arm",)
    assert grim(state).weapon_skill == 3


def test_severing_the_off_arm_costs_no_weapon_skill() -> None:
    state = fight(down(1, 5, which_arm=[5]), stats={"weapon_skill": 4})
    assert grim(state).injuries == ("Severed Arm (off)",)
    assert grim(state).weapon_skill == 4


def test_losing_both_arms_retires_him() -> None:
    state = fight(down(1, 5, which_arm=[5]), down(1, 5))
    assert grim(state).lost == ("off arm", "dominant arm") and grim(state).retired


def test_severing_the_dominant_hand_costs_one_weapon_skill_the_off_hand_none() -> None:
    dominant = fight(down(3, 5, which_hand=[1]), stats={"weapon_skill": 4})
    off = fight(down(3, 5, which_hand=[6]), stats={"weapon_skill": 4})
    assert grim(dominant).weapon_skill == 3
    assert grim(off).weapon_skill == 4


def test_losing_both_hands_retires_him() -> None:
    state = fight(down(3, 5, which_hand=[1]), down(3, 5))
    assert grim(state).lost == ("dominant hand", "off hand") and grim(state).retired


def test_a_hand_on_a_severed_arm_cannot_be_lost_again() -> None:
    state = fight(down(1, 5, which_arm=[1]))  # the dominant arm, and its hand with it
    state, changes = apply(state, down(3, 5, which_hand=[1]))
    assert grim(state).lost == ("dominant arm", "off hand")  # no choice left: no roll
    assert "which_hand" not in [d.purpose for d in changes.dice]
    assert grim(state).retired  # no hand left to use


def test_severed_fingers_takes_d3_fingers_of_a_random_hand() -> None:
    state = fight(down(3, 6, fingers=[2], which_hand=[1]), stats={"weapon_skill": 4})
    assert grim(state).lost == ("dominant-hand finger",) * 2
    assert grim(state).injuries == ("Severed Fingers (2 fingers of his dominant hand)",)
    assert grim(state).weapon_skill == 3  # he fights with that hand


def test_fingers_lost_from_the_off_hand_cost_no_weapon_skill() -> None:
    state = fight(down(3, 6, fingers=[1], which_hand=[4]), stats={"weapon_skill": 4})
    assert grim(state).weapon_skill == 4


def test_four_fingers_gone_and_he_can_no_longer_use_that_hand() -> None:
    state = fight(
        down(3, 6, fingers=[2], which_hand=[1]),
        down(3, 6, fingers=[2], which_hand=[1]),
        stats={"weapon_skill": 4},
    )
    assert grim(state).lost == ("dominant-hand finger",) * 4
    assert grim(state).weapon_skill == 3  # now off-handed: -1 still, not -2
    assert not grim(state).retired


def test_a_hand_has_only_five_fingers_to_lose() -> None:
    state = fight(down(3, 6, fingers=[3], which_hand=[1]), down(3, 6, fingers=[3], which_hand=[1]))
    assert grim(state).lost == ("dominant-hand finger",) * 5
    assert grim(state).injuries[-1] == "Severed Fingers (2 fingers of his dominant hand)"


def test_losing_the_use_of_both_hands_to_severed_fingers_retires_him() -> None:
    state = fight(
        down(3, 6, fingers=[2], which_hand=[1]),
        down(3, 6, fingers=[2], which_hand=[1]),
        down(3, 6, fingers=[3], which_hand=[4]),
    )
    assert not grim(state).retired  # the off hand has two fingers left
    state, _ = apply(state, down(3, 6, fingers=[1], which_hand=[4]))
    assert grim(state).retired


def test_severed_foot_determines_the_foot_and_costs_one_movement() -> None:
    state = fight(down(3, 4, which_foot=[5]), stats={"movement": 4})
    assert grim(state).lost == ("right foot",) and grim(state).movement == 3


def test_losing_both_feet_retires_him() -> None:
    state = fight(down(3, 4, which_foot=[5]), down(3, 4))
    assert grim(state).lost == ("right foot", "left foot") and grim(state).retired


def test_a_severed_leg_takes_its_foot_so_the_other_foot_is_his_last() -> None:
    state = fight(down(1, 4, which_leg=[1]), stats={"movement": 4})
    state, changes = apply(state, down(3, 4, which_foot=[1]))
    assert grim(state).lost == ("left leg", "right foot")
    assert changes.unused == {"which_foot": [1]}
    assert grim(state).retired  # no foot left
    assert grim(state).movement == 1  # -2 for the leg, -1 for the foot


def test_a_leg_severed_after_its_foot_costs_two_movement_in_all() -> None:
    state = fight(down(3, 4, which_foot=[1]), down(1, 4, which_leg=[1]), stats={"movement": 4})
    assert grim(state).movement == 2


def test_losing_the_other_eye_retires_him() -> None:
    state = fight(down(3, 2), stats={"ballistic_skill": 3})
    assert not grim(state).retired
    state = fight(down(3, 2), down(3, 2), stats={"ballistic_skill": 3})
    assert grim(state).injuries == ("Eye Loss", "Eye Loss (his other eye)")
    assert grim(state).retired and grim(state).ballistic_skill == 1


def test_losing_the_other_ear_retires_him() -> None:
    state = fight(down(3, 3), down(3, 3), stats={"initiative": 3})
    assert grim(state).retired and grim(state).initiative == 1


def test_a_third_eye_loss_is_nothing_too_serious() -> None:
    state = fight(down(3, 2), down(3, 2), down(3, 2), stats={"ballistic_skill": 3})
    assert len(grim(state).injuries) == 2 and grim(state).ballistic_skill == 1


def test_partial_paralysis_a_second_time_is_full_paralysis_and_retires_him() -> None:
    state = fight(down(4, 6), stats={"attacks": 3})
    assert not grim(state).retired
    state = fight(down(4, 6), down(4, 6), stats={"attacks": 3})
    assert grim(state).injuries[-1] == "Partial Paralysis (fully paralysed)"
    assert grim(state).retired and grim(state).attacks == 1


def test_a_retired_warrior_keeps_his_state_and_fights_on() -> None:
    state = fight(down(3, 2), down(3, 2), end(downed=[6]), heal(9, "potion"))
    assert grim(state).retired
    assert grim(state).state == "upright"


# --- the Downed table at the end of the turn ----------------------------------------------------


# The Downed table as the text prints it, one line per face: the result, and its state.
DOWNED_AS_PRINTED = """
1 Dead | dead
2 Unconscious | downed
3 Unconscious | downed
4 Unconscious | downed
5 Unconscious | downed
6 Stabilised | stabilised
"""
DOWNED_BOOK = {
    int(line[0]): (line[2:].split(" | ")[0], line.split(" | ")[1])
    for line in DOWNED_AS_PRINTED.strip().splitlines()
}
SAID = {"Dead": "succumbs to his wounds", "Unconscious": "unconscious", "Stabilised": "stabilised"}


@pytest.mark.parametrize("roll", sorted(DOWNED_BOOK))
def test_downed_table_at_the_end_of_the_turn(roll: int) -> None:
    result, expected = DOWNED_BOOK[roll]
    state, changes = apply(fight(down(6, 1)), end(downed=[roll]))
    assert f"Grim: Downed {roll}: {SAID[result]}" in changes.explanation
    assert (grim(state).state, grim(state).wounds) == (expected, 1 if result == "Stabilised" else 0)


def test_an_unconscious_warrior_rolls_again_at_the_end_of_every_turn() -> None:
    state = fight(down(6, 1), end(downed=[3]), end(downed=[4]), end(downed=[5]))
    assert grim(state).state == "downed"
    state, _ = apply(state, end(downed=[6]))
    assert grim(state).state == "stabilised"


def test_a_stabilised_warrior_rolls_no_more() -> None:
    state, changes = apply(fight(down(6, 1), end(downed=[6])), end())
    assert grim(state).state == "stabilised" and changes.dice == []


def test_downed_warriors_roll_in_join_order() -> None:
    state = fight(down(6, 1, target="ulf"), down(6, 1), end(downed=[1, 6]))
    assert grim(state).state == "dead"
    assert state.characters["ulf"].state == "stabilised"


@pytest.mark.parametrize("scope", [{"side": "warriors"}, {"character": "grim"}])
def test_a_tick_scoped_to_a_side_or_character_is_not_the_end_of_the_turn(
    scope: dict[str, Any],
) -> None:
    state, changes = apply(fight(down(6, 1)), TurnEnded(**scope, rolls={"downed": [1]}))
    assert grim(state).state == "downed"
    assert "not the end of the turn" in changes.explanation


# --- healing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("means", ["bandage", "provisions"])
@pytest.mark.parametrize(("roll", "works"), [(1, False), (3, False), (4, True), (6, True)])
def test_bandages_and_provisions_on_a_downed_warrior_need_a_4_plus(
    means: str, roll: int, works: bool
) -> None:
    state, changes = apply(fight(down(6, 1)), heal(2, means, treatment=[roll], downed=[5]))
    assert grim(state).state == ("stabilised" if works else "downed")
    rolled = ["treatment", "downed"] if works else ["treatment"]  # a Downed roll once it works
    assert [d.purpose for d in changes.dice] == rolled


@pytest.mark.parametrize("means", ["potion", "spell"])
def test_potions_and_spells_need_no_treatment_roll(means: str) -> None:
    state, changes = apply(fight(down(6, 1)), heal(2, means, downed=[5]))
    assert grim(state).state == "stabilised"
    assert [d.purpose for d in changes.dice] == ["downed"]


@pytest.mark.parametrize(
    ("roll", "items", "state"),
    [
        (5, 1, "stabilised"),
        (4, 1, "downed"),
        (4, 2, "stabilised"),
        (3, 2, "downed"),
        (2, 4, "stabilised"),
    ],
)
def test_the_healing_downed_roll_adds_one_for_every_item_or_spell(
    roll: int, items: int, state: str
) -> None:
    after = grim(fight(down(6, 1), heal(3, "potion", downed=[roll], items=items)))
    assert after.state == state


def test_the_wounds_of_a_stabilising_heal_are_not_gained() -> None:
    after = grim(fight(down(6, 1), heal(6, "potion", downed=[6])))
    assert (after.state, after.wounds) == ("stabilised", 1)


def test_a_failed_attempt_leaves_him_to_roll_at_the_end_of_the_turn() -> None:
    state = fight(down(6, 1), heal(6, "bandage", treatment=[4], downed=[2]))
    assert (grim(state).state, grim(state).wounds) == ("downed", 0)
    state, _ = apply(state, end(downed=[6]))
    assert grim(state).state == "stabilised"


def test_a_second_attempt_in_the_same_turn_rolls_again() -> None:
    state = fight(down(6, 1), heal(1, "bandage", treatment=[2]), heal(1, "potion", downed=[6]))
    assert grim(state).state == "stabilised"


def test_a_natural_one_on_the_healing_roll_does_not_kill_by_default() -> None:
    assert grim(fight(down(6, 1), heal(1, "potion", downed=[1]))).state == "downed"


def test_option_healing_natural_one_kills() -> None:
    options: dict[str, bool | int | str] = {"healing_natural_one_kills": True}
    state = fight(down(6, 1), heal(1, "potion", downed=[1], items=5), options=options)
    assert grim(state).state == "dead"
    state = fight(down(6, 1), heal(1, "potion", downed=[2]), options=options)
    assert grim(state).state == "downed"


def test_a_healing_roll_never_kills_on_a_house_table_without_the_option() -> None:
    house = {"downed": {"rows": {"1-3": "dead", "4-5": "unconscious", "6": "stabilised"}}}
    state = fight(down(6, 1), heal(1, "potion", downed=[2]), tables=house)
    assert grim(state).state == "downed"


def test_healing_a_downed_warrior_needs_a_means() -> None:
    with pytest.raises(RuleError, match="say what is used on him") as err:
        apply(fight(down(6, 1)), Heal(target="grim", amount=1))
    assert err.value.field == "$.means"


def test_an_unknown_means_is_refused() -> None:
    with pytest.raises(RuleError, match="no means `waybread`") as err:
        apply(fight(), heal(1, "waybread"))
    assert err.value.field == "$.means"


def test_healing_a_downed_warrior_with_no_item_is_refused() -> None:
    with pytest.raises(RuleError, match="at least one item or spell") as err:
        apply(fight(down(6, 1)), heal(1, "potion", items=0))
    assert err.value.field == "$.items"


def test_a_stabilised_warrior_gains_wounds_as_normal_and_stands_at_half() -> None:
    state = fight(down(6, 1), end(downed=[6]), heal(3, "bandage"), wounds=9)
    assert (grim(state).state, grim(state).wounds) == ("stabilised", 4)  # half of 9 is 5
    state, _ = apply(state, heal(1, "provisions"))
    assert (grim(state).state, grim(state).wounds) == ("upright", 5)


def test_a_stabilising_roll_never_stands_a_two_wound_warrior_at_once() -> None:
    state = fight(down(6, 1), end(downed=[6]), wounds=2)
    assert (grim(state).state, grim(state).wounds) == ("stabilised", 1)
    state, _ = apply(state, heal(1, "potion"))
    assert (grim(state).state, grim(state).wounds) == ("upright", 2)


def test_healing_never_goes_above_starting_wounds() -> None:
    state, changes = apply(fight(Hit(target="grim", damage=2)), heal(5, "potion"))
    assert grim(state).wounds == 10
    assert "3 above his Starting Wounds are lost" in changes.explanation


def test_a_heal_on_a_warrior_knocked_down_by_a_66_adds_wounds_and_he_stands_on_them() -> None:
    state = fight(down(6, 6), heal(3, "bandage"))
    assert (grim(state).state, grim(state).wounds) == ("knocked_down", 3)
    state, _ = apply(state, end(starting_wounds=[1]))
    assert (grim(state).state, grim(state).wounds) == ("upright", 3)


# --- Internal Injury ------------------------------------------------------------------------


def test_internal_injury_takes_d3_starting_wounds_at_the_end_of_each_turn() -> None:
    state, changes = apply(fight(down(1, 6)), end(downed=[3], internal_injury=[2]))
    assert grim(state).starting_wounds == 8
    assert [d.purpose for d in changes.dice] == ["downed", "internal_injury"]
    state, _ = apply(state, end(downed=[6], internal_injury=[3]))
    assert grim(state).starting_wounds == 5 and grim(state).internal_bleeding


def test_internal_injury_stops_once_healed_to_half_his_wounds() -> None:
    state = fight(down(1, 6), end(downed=[6], internal_injury=[1]), heal(3, "potion"))
    assert grim(state).wounds == 4 and grim(state).internal_bleeding  # half of 9 is 5
    state, _ = apply(state, heal(1, "potion"))
    assert grim(state).internal_bleeding == 0
    state, changes = apply(state, end())
    assert grim(state).starting_wounds == 9 and changes.dice == []


def test_internal_injury_taking_starting_wounds_to_zero_kills_him() -> None:
    state = fight(down(1, 6), end(downed=[6], internal_injury=[3]), wounds=4)
    assert (grim(state).state, grim(state).starting_wounds) == ("stabilised", 1)
    state, _ = apply(state, end(internal_injury=[2]))
    assert (grim(state).state, grim(state).starting_wounds) == ("dead", 0)


def test_each_internal_injury_bleeds_its_own_d3() -> None:
    state = fight(down(1, 6), down(1, 6), end(downed=[6], internal_injury=[3, 2]), wounds=8)
    assert grim(state).internal_bleeding == 2
    assert grim(state).starting_wounds == 3


def test_current_wounds_fall_with_starting_wounds() -> None:
    state = fight(down(1, 6), end(downed=[6], internal_injury=[3]), wounds=4)
    state, _ = apply(state, end(internal_injury=[3]))
    assert (grim(state).wounds, grim(state).starting_wounds) == (0, 0)


def test_internal_injury_does_not_bleed_the_dead() -> None:
    state, changes = apply(fight(down(1, 6)), end(downed=[1], internal_injury=[3]))
    assert grim(state).state == "dead" and changes.unused == {"internal_injury": [3]}


# --- hits on a warrior who is down ------------------------------------------------------------


def test_a_hit_on_a_downed_warrior_is_another_serious_injury_roll() -> None:
    state, changes = apply(fight(down(6, 1)), down(4, 4, damage=1))
    assert grim(state).state == "downed"
    assert grim(state).injuries == ("Chest Wound",)
    assert [d.purpose for d in changes.dice] == ["serious_injury", "serious_injury"]


def test_a_hit_on_a_downed_warrior_can_decapitate_him() -> None:
    assert grim(fight(down(6, 1), down(1, 1, damage=1))).state == "dead"


def test_a_downed_warrior_hit_for_a_66_shrugs_it_off_and_stands_at_the_end_of_the_turn() -> None:
    state = fight(down(6, 1), down(6, 6, damage=1))
    assert grim(state).state == "knocked_down"
    state, _ = apply(state, end(starting_wounds=[3]))
    assert (grim(state).state, grim(state).starting_wounds) == ("upright", 13)


def test_a_knocked_down_warrior_hit_down_for_good_loses_the_66_he_waited_on() -> None:
    state = fight(down(6, 6), down(6, 1, damage=1))
    assert (grim(state).state, grim(state).stronger) == ("downed", 0)


def test_a_second_66_while_knocked_down_owes_a_second_d3() -> None:
    state = fight(down(6, 6), down(6, 6, damage=1), end(starting_wounds=[1, 2]))
    assert grim(state).starting_wounds == 13


def test_a_hit_on_a_stabilised_warrior_takes_his_wounds_then_a_serious_injury() -> None:
    state = fight(down(6, 1), end(downed=[6]), heal(2, "potion"))
    state, _ = apply(state, Hit(target="grim", damage=2))
    assert (grim(state).state, grim(state).wounds) == ("stabilised", 1)
    state, _ = apply(state, down(4, 4, damage=1))
    assert (grim(state).state, grim(state).injuries) == ("downed", ("Chest Wound",))


def test_monsters_do_not_attack_a_downed_warrior_while_another_stands() -> None:
    state = fight(down(6, 1))
    with pytest.raises(RuleError, match="Ulf") as err:
        apply(state, Hit(target="grim", damage=1, attacker="orc"))
    assert err.value.field == "$.target"


def test_monsters_do_not_attack_a_stabilised_warrior_while_another_stands() -> None:
    with pytest.raises(RuleError, match="monsters do not attack"):
        apply(fight(down(6, 1), end(downed=[6])), Hit(target="grim", damage=1, attacker="orc"))


def test_monsters_attack_the_fallen_once_no_warrior_stands() -> None:
    state = fight(down(6, 1), down(6, 1, target="ulf"))
    state, _ = apply(state, down(4, 4, damage=1, attacker="orc"))
    assert grim(state).injuries == ("Chest Wound",)


def test_a_blow_that_is_no_monsters_attack_may_land_on_the_fallen() -> None:
    state, _ = apply(fight(down(6, 1)), down(4, 4, damage=1))
    assert grim(state).injuries == ("Chest Wound",)


# --- the start of the turn --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "purpose", "roll", "effect"),
    [
        (21, "stupidity", 1, "may do nothing at all"),
        (21, "stupidity", 2, None),
        (21, "stupidity", 6, None),
        (22, "insanity", 1, "friend or foe"),
        (22, "insanity", 2, None),
        (25, "hallucinations", 1, "half his attacks"),
        (25, "hallucinations", 2, None),
        (25, "hallucinations", 5, None),
        (25, "hallucinations", 6, "+1 Attack"),
        (26, "frenzy", 5, None),
        (26, "frenzy", 1, None),
        (26, "frenzy", 6, "doubles his attacks"),
    ],
)
def test_head_wounds_roll_at_the_start_of_each_turn_and_report_the_result(
    number: int, purpose: str, roll: int, effect: str | None
) -> None:
    state = fight(down(*digits(number)), end(downed=[6]), heal(9, "potion"))
    state, changes = apply(state, start(**{purpose: [roll]}))
    assert [(d.purpose, d.value) for d in changes.dice] == [(purpose, roll)]
    assert f"Grim: {purpose} {roll}" in changes.explanation
    if effect is None:
        assert grim(state).this_turn == ()
        assert "no effect" in changes.explanation
    else:
        assert effect in grim(state).this_turn[0] and effect in changes.explanation


def test_start_of_turn_results_are_cleared_at_the_end_of_the_turn() -> None:
    state = fight(down(2, 1), end(downed=[6]), heal(9, "potion"), start(stupidity=[1]))
    assert grim(state).this_turn
    state, _ = apply(state, end())
    assert grim(state).this_turn == ()


def test_head_wounds_do_not_roll_for_a_warrior_who_is_down() -> None:
    state, changes = apply(fight(down(2, 1)), start(stupidity=[1]))
    assert changes.dice == [] and grim(state).this_turn == ()


@pytest.mark.parametrize("scope", [{"side": "warriors"}, {"character": "grim"}])
def test_start_of_turn_injuries_roll_only_at_the_start_of_the_whole_turn(
    scope: dict[str, Any],
) -> None:
    state = fight(down(2, 1), end(downed=[6]), heal(9, "potion"))
    _, changes = apply(state, TurnStarted(**scope, rolls={"stupidity": [1]}))
    assert changes.dice == []


def test_recurring_pains_on_a_1_cost_d3_wounds_and_a_point_of_toughness_this_turn() -> None:
    state = fight(down(4, 5), end(downed=[6]), heal(9, "potion"))
    state, _ = apply(state, start(recurring_pains=[1], recurring_pains_wounds=[3]))
    assert grim(state).wounds == 7
    assert grim(state).this_turn == ("recurring_pains: -1 Toughness this turn",)
    state, _ = apply(state, start(recurring_pains=[2]))
    assert grim(state).wounds == 7


def test_recurring_pains_taking_him_to_zero_is_a_serious_injury() -> None:
    state = fight(down(4, 5), end(downed=[6]), heal(1, "potion"))  # on 2 wounds
    state, _ = apply(
        state, start(recurring_pains=[1], recurring_pains_wounds=[2], serious_injury=[4, 4])
    )
    assert (grim(state).state, grim(state).injuries[-1]) == ("downed", "Chest Wound")


def test_recurring_pains_roll_for_a_stabilised_warrior() -> None:
    state = fight(down(4, 5), end(downed=[6]))
    state, changes = apply(state, start(recurring_pains=[3]))
    assert [d.purpose for d in changes.dice] == ["recurring_pains"]


def test_recurring_pains_do_not_roll_for_a_downed_warrior() -> None:
    _, changes = apply(fight(down(4, 5)), start(recurring_pains=[1]))
    assert changes.dice == []


# --- monsters ---------------------------------------------------------------------------------


def orc(state: FightState[Any]) -> Any:
    return state.characters["orc"]


GO_DOWN: dict[str, bool | int | str] = {"monsters_go_down": True}


def test_a_monster_on_zero_wounds_is_dead() -> None:
    state, changes = apply(fight(), Hit(target="orc", damage=2))
    assert orc(state).state == "dead" and changes.dice == []


def test_monsters_go_down_without_serious_injuries_when_a_healer_is_on_the_board() -> None:
    state, changes = apply(fight(options=GO_DOWN), Hit(target="orc", damage=5))
    assert (orc(state).state, orc(state).wounds, orc(state).injuries) == ("downed", 0, ())
    assert changes.dice == []


def test_option_monster_serious_injuries_rolls_them_as_for_warriors() -> None:
    options: dict[str, bool | int | str] = {**GO_DOWN, "monster_serious_injuries": True}
    state = fight(down(4, 4, target="orc"), options=options)
    assert (orc(state).state, orc(state).injuries) == ("downed", ("Chest Wound",))


def test_monster_serious_injuries_without_monsters_going_down_changes_nothing() -> None:
    state = fight(options={"monster_serious_injuries": True})
    assert orc(apply(state, Hit(target="orc", damage=2))[0]).state == "dead"


@pytest.mark.parametrize(("roll", "state"), [(1, "dead"), (3, "downed"), (6, "stabilised")])
def test_downed_monsters_roll_at_the_end_of_the_turn(roll: int, state: str) -> None:
    after = fight(Hit(target="orc", damage=2), end(downed=[roll]), options=GO_DOWN)
    assert orc(after).state == state


def test_a_healing_spell_on_a_downed_monster_rolls_at_plus_one_with_no_4_plus() -> None:
    state, changes = apply(
        fight(Hit(target="orc", damage=2), options=GO_DOWN),
        Heal(target="orc", amount=2, means="spell", rolls={"downed": [5]}),
    )
    assert (orc(state).state, orc(state).wounds) == ("stabilised", 1)
    assert [d.purpose for d in changes.dice] == ["downed"]


def test_a_recovered_monster_can_be_healed_by_the_spellcaster() -> None:
    state = fight(Hit(target="orc", damage=2), end(downed=[6]), options=GO_DOWN)
    state, _ = apply(state, Heal(target="orc", amount=1))
    assert (orc(state).state, orc(state).wounds) == ("upright", 2)


def test_monsters_are_healed_only_by_spells() -> None:
    state = fight(Hit(target="orc", damage=2), options=GO_DOWN)
    with pytest.raises(RuleError, match="only a spellcaster's healing spell") as err:
        apply(state, heal(2, "bandage", target="orc"))
    assert err.value.field == "$.means"


def test_any_wound_on_a_downed_monster_kills_it() -> None:
    state = fight(Hit(target="orc", damage=2), Hit(target="orc", damage=1), options=GO_DOWN)
    assert orc(state).state == "dead"


def test_a_coup_de_grace_kills_a_downed_monster_outright() -> None:
    state = fight(Hit(target="orc", damage=2), options=GO_DOWN)
    state, _ = apply(state, Hit(target="orc", damage=0, attacker="grim", coup_de_grace=True))
    assert orc(state).state == "dead"


def test_no_coup_de_grace_on_a_recovered_monster() -> None:
    state = fight(Hit(target="orc", damage=2), end(downed=[6]), options=GO_DOWN)
    with pytest.raises(RuleError, match="defend itself") as err:
        apply(state, Hit(target="orc", damage=1, coup_de_grace=True))
    assert err.value.field == "$.coup_de_grace"


@pytest.mark.parametrize("target", ["orc", "grim"])
def test_no_coup_de_grace_on_a_monster_standing_or_on_a_warrior(target: str) -> None:
    state = fight(down(6, 1), options=GO_DOWN)
    with pytest.raises(RuleError, match="coup de grace"):
        apply(state, Hit(target=target, damage=1, coup_de_grace=True))


def test_a_hit_whose_coup_de_grace_is_false_is_an_ordinary_hit() -> None:
    state, _ = apply(fight(), Hit(target="grim", damage=1, coup_de_grace=False))
    assert grim(state).wounds == 9


# --- tables a fight's log carries ---------------------------------------------------------------


def test_a_downed_table_in_the_log_replaces_the_books() -> None:
    house = {"downed": {"rows": {"1-2": "dead", "3-5": "unconscious", "6": "stabilised"}}}
    assert grim(fight(down(6, 1), end(downed=[2]), tables=house)).state == "dead"
    assert grim(fight(down(6, 1), end(downed=[2]))).state == "downed"


def test_a_serious_injuries_table_in_the_log_replaces_the_books() -> None:
    rows = {key: "nothing_too_serious" for key in BOOK_ROWS}
    rows["11-13"] = "chest_wound"
    state = fight(down(1, 2), tables={"serious_injuries": {"rows": rows}})
    assert (grim(state).state, grim(state).injuries) == ("downed", ("Chest Wound",))


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        ({"downed": {"rows": {"1": "dead", "2-5": "unconscious"}}}, "no result for \\[6\\]"),
        (
            {"downed": {"rows": {"1-2": "dead", "2-5": "unconscious", "6": "stabilised"}}},
            "2 is in two rows",
        ),
        (
            {"downed": {"rows": {"1": "dead", "2-5": "asleep", "6": "stabilised"}}},
            "Invalid enum value 'asleep'",
        ),
        (
            {"downed": {"rows": {"1": "dead", "2-x": "unconscious", "6": "stabilised"}}},
            "row `2-x`: a row is a number or a range",
        ),
        ({"downed": [1, 2, 3]}, "Expected `object`, got `array`"),
        ({"serious_injuries": {"rows": {"11-66": "chest_wound"}}}, "rows for \\[17, 18"),
        ({"serious_injuries": {"rows": {**BOOK_ROWS, "14": "gout"}}}, "no result `gout`"),
    ],
)
def test_a_malformed_table_in_the_log_is_refused_as_structural(
    table: dict[str, Any], reason: str
) -> None:
    with pytest.raises(StructuralError, match=reason) as err:
        apply(None, FightStarted(ruleset="warhammer_quest", tables=table))
    assert err.value.field is not None and err.value.field.startswith("$.tables.")


# --- the framework's checks, for this ruleset -------------------------------------------------


def test_a_fact_this_ruleset_does_not_use_is_refused() -> None:
    with pytest.raises(RuleError, match="does not use the fact `magic`") as err:
        apply(fight(), Hit(target="grim", damage=1, magic=True))
    assert err.value.field == "$.magic"


def test_a_choice_is_refused() -> None:
    with pytest.raises(RuleError, match="leaves no decision to a player"):
        apply(fight(), Choice(character="grim", option="hold_on"))


def test_a_given_d6_out_of_range_is_refused_as_structural() -> None:
    with pytest.raises(StructuralError, match="a d6 shows 1 to 6, not 7"):
        apply(fight(), down(7, 1))


def test_option_strict_dice_makes_a_missing_die_a_rule_error() -> None:
    state = fight(options={"strict_dice": True})
    with pytest.raises(RuleError, match="serious_injury"):
        apply(state, down(3))


def test_drawn_dice_are_recorded_as_drawn() -> None:
    _, changes = apply(fight(), Hit(id="h1", target="grim", damage=10))
    assert [(d.purpose, d.source) for d in changes.dice][:2] == [
        ("serious_injury", "drawn"),
        ("serious_injury", "drawn"),
    ]


def test_a_rule_error_on_replay_is_a_void_change() -> None:
    state = fight(down(1, 1))
    after, changes = apply_or_void(state, heal(1, "potion"))
    assert changes.void is not None and after.characters == state.characters


def test_state_json_carries_the_counters() -> None:
    state = fight(down(1, 4, which_leg=[5]))
    encoded = msgspec.json.decode(msgspec.json.encode(state))["characters"]["grim"]
    assert encoded["wounds"] == 0 and encoded["state"] == "downed"
    assert encoded["injuries"] == ["Severed Leg (right)"]
    assert encoded["lost"] == ["right leg"]
    assert encoded["retired"] is False


def test_the_documentation_lists_every_result_and_the_decisions() -> None:
    doc = RULES.documentation()
    assert "Decisions where the text is silent" in doc
    for name, _, _ in BOOK.values():  # the names as the text prints them, not as the code has them
        assert name in doc


# --- the text's stories, replayed ---------------------------------------------------------------


def test_the_wizard_swatted_down_by_a_stray_goblin_arrow_is_not_saved_by_waybread() -> None:
    """The text's story: a warrior breaks from his combat to heal the downed Wizard with
    waybread (provisions), and still fails to save him."""
    state = fight(
        down(6, 2, target="ulf", attacker="goblin"),
        heal(1, "provisions", target="ulf", treatment=[5], downed=[3]),
        end(downed=[1]),
    )
    assert state.characters["ulf"].state == "dead"


def test_a_lone_downed_warrior_may_last_more_than_one_turn() -> None:
    state = fight(down(6, 2), end(downed=[2]), end(downed=[5]), end(downed=[6]))
    assert grim(state).state == "stabilised"


# --- the shipped example fight ----------------------------------------------------------------


def shipped(name: str) -> list[Event]:
    with (files("woundlog.replays") / "data" / name).open("rb") as f:
        return [event for _, event in iter_jsonl(f)]


FIRE_CHASM = "warhammer_quest_fire_chasm.jsonl"


def test_the_shipped_example_fight_replays_without_a_void_event() -> None:
    steps = list(replay(shipped(FIRE_CHASM)))
    assert [c.seq for _, c in steps if c.void is not None] == []
    final = {cid: c.state for cid, c in steps[-1][0].characters.items()}
    assert final == {
        "grundi": "upright",
        "elwen": "upright",
        "magnus": "stabilised",
        "brakk": "dead",
        "skarsnik": "dead",
        "snotgit": "dead",
        "grishnak": "dead",
        "gorbag": "upright",
    }


def test_the_shipped_example_tells_the_rules_as_it_goes() -> None:
    states = [state for state, _ in replay(shipped(FIRE_CHASM))]
    magnus = [s.characters["magnus"] for s in states if "magnus" in s.characters]
    assert magnus[-1].injuries == (
        "Severed Fingers (2 fingers of his off hand)",
        "Head Wound: Stupidity",
    )
    grundi = states[-1].characters["grundi"]
    assert grundi.ignore_pain == 3  # the Trollslayer's Deadened Nerve Endings: Chest
    assert states[-1].characters["elwen"].starting_wounds == 11  # What Doesn't Kill Me
    assert states[-1].characters["elwen"].wounds == 1


# --- who may act (DESIGN.md section 5) --------------------------------------------------------


def test_a_downed_warrior_may_not_attack() -> None:
    state = fight(down(6, 1), options=GO_DOWN)
    with pytest.raises(RuleError, match="Grim is Down and unconscious and may do nothing") as err:
        apply(state, Hit(target="orc", damage=1, attacker="grim"))
    assert err.value.field == "$.attacker"


def test_a_downed_warrior_may_not_heal() -> None:
    state = fight(down(6, 1), Hit(target="ulf", damage=3))
    with pytest.raises(RuleError, match="Grim is Down and unconscious") as err:
        apply(state, Heal(target="ulf", amount=2, means="bandage", healer="grim"))
    assert err.value.field == "$.healer"


def test_a_warrior_laid_out_by_a_66_may_not_attack_until_he_stands() -> None:
    state = fight(down(6, 6))
    with pytest.raises(RuleError, match="Grim is laid out by the blow until the end of the turn"):
        apply(state, Hit(target="orc", damage=1, attacker="grim"))
    state, _ = apply(state, end(starting_wounds=[1]))
    state, _ = apply(state, Hit(target="orc", damage=1, attacker="grim"))
    assert orc(state).wounds == 1


def test_a_stabilised_warrior_may_not_attack() -> None:
    state = fight(down(6, 1), end(downed=[6]))
    with pytest.raises(RuleError, match="Grim is stabilised, still down and prone"):
        apply(state, Hit(target="orc", damage=1, attacker="grim"))


def test_a_stabilised_warrior_may_drink_a_healing_potion_himself() -> None:
    state = fight(down(6, 1), end(downed=[6]))
    state, _ = apply(state, Heal(target="grim", amount=4, means="potion", healer="grim"))
    assert (grim(state).state, grim(state).wounds) == ("upright", 5)


@pytest.mark.parametrize(
    ("target", "means"), [("grim", "bandage"), ("grim", "provisions"), ("ulf", "potion")]
)
def test_a_stabilised_warrior_may_do_nothing_but_drink_a_potion_himself(
    target: str, means: str
) -> None:
    state = fight(Hit(target="ulf", damage=3), down(6, 1), end(downed=[6]))
    with pytest.raises(RuleError, match="may do nothing except drink a healing potion") as err:
        apply(state, Heal(target=target, amount=2, means=means, healer="grim"))
    assert err.value.field == "$.healer"


def test_the_dead_may_not_attack() -> None:
    with pytest.raises(RuleError, match="Grim is dead"):
        apply(fight(down(1, 1)), Hit(target="orc", damage=1, attacker="grim"))


def test_a_downed_monster_may_not_attack() -> None:
    state = fight(Hit(target="orc", damage=2), options=GO_DOWN)
    with pytest.raises(RuleError, match="Orc is Down and unconscious and may do nothing"):
        apply(state, Hit(target="grim", damage=1, attacker="orc"))


def test_a_recovered_monster_only_defends_itself() -> None:
    state = fight(Hit(target="orc", damage=2), end(downed=[6]), options=GO_DOWN)
    with pytest.raises(RuleError, match="Orc has recovered only enough to defend itself"):
        apply(state, Hit(target="grim", damage=1, attacker="orc"))
    with pytest.raises(RuleError, match="Orc has recovered only enough to defend itself"):
        apply(state, Heal(target="orc", amount=1, means="spell", healer="orc"))


def test_who_may_not_act_is_void_on_replay() -> None:
    state = fight(down(6, 1), options=GO_DOWN)
    after, changes = apply_or_void(state, Hit(target="orc", damage=1, attacker="grim"))
    assert changes.void is not None and "may do nothing" in changes.void
    assert after.characters == state.characters


def test_an_attacker_outside_the_fight_is_accepted_and_named() -> None:
    state, changes = apply(fight(), Hit(target="grim", damage=1, attacker="ork"))
    assert grim(state).wounds == 9
    assert "attacker `ork` is not a character of this fight" in changes.explanation


def test_only_the_upright_may_act() -> None:
    assert sorted(RULES.who_may_act) == ["dead", "downed", "knocked_down", "stabilised"]
    for acting in RULES.who_may_act.values():
        assert not acting.attack and not acting.heal and acting.why.startswith("is ")


# --- coups de grace and pinned warriors -----------------------------------------------------------


def test_a_coup_de_grace_needs_a_warrior_as_attacker() -> None:
    state = fight(Hit(target="orc", damage=2), options=GO_DOWN)
    with pytest.raises(RuleError, match="performed by a warrior, and no attacker") as err:
        apply(state, Hit(target="orc", damage=0, coup_de_grace=True))
    assert err.value.field == "$.attacker"


def test_a_coup_de_grace_by_someone_outside_the_fight_is_refused() -> None:
    state = fight(Hit(target="orc", damage=2), options=GO_DOWN)
    with pytest.raises(RuleError, match="`gorbag` is not a character of this fight"):
        apply(state, Hit(target="orc", damage=0, coup_de_grace=True, attacker="gorbag"))


def test_a_monster_may_not_perform_a_coup_de_grace() -> None:
    state = fight(
        CharacterJoined(character="troll", kind="monster", stats={"wounds": 5}),
        Hit(target="orc", damage=2),
        options=GO_DOWN,
    )
    with pytest.raises(RuleError, match="only warriors perform a coup de grace") as err:
        apply(state, Hit(target="orc", damage=0, coup_de_grace=True, attacker="troll"))
    assert err.value.field == "$.attacker"


@pytest.mark.parametrize("coup", [True, None])
def test_a_pinned_warrior_may_not_attack_a_downed_monster(coup: bool | None) -> None:
    state = fight(Hit(target="orc", damage=2), options=GO_DOWN)
    blow = Hit(target="orc", damage=1, attacker="grim", pinned=True, coup_de_grace=coup)
    with pytest.raises(RuleError, match="a pinned warrior may not attack Orc") as err:
        apply(state, blow)
    assert err.value.field == "$.pinned"


def test_a_pinned_warrior_may_not_attack_a_recovered_monster_still_prone() -> None:
    state = fight(Hit(target="orc", damage=2), end(downed=[6]), options=GO_DOWN)
    with pytest.raises(RuleError, match="prone, Downed monster \\(stabilised\\)"):
        apply(state, Hit(target="orc", damage=1, attacker="grim", pinned=True))


def test_a_pinned_warrior_fights_a_standing_monster_and_an_unpinned_one_finishes_the_downed() -> (
    None
):
    state, _ = apply(fight(), Hit(target="orc", damage=1, attacker="grim", pinned=True))
    assert orc(state).wounds == 1
    state = fight(Hit(target="orc", damage=2), options=GO_DOWN)
    blow = Hit(target="orc", damage=0, attacker="grim", pinned=False, coup_de_grace=True)
    assert orc(apply(state, blow)[0]).state == "dead"


def test_pinned_is_a_fact_this_ruleset_reads() -> None:
    assert "pinned" in RULES.hit_facts


# --- monsters go Down only while a healer stands ------------------------------------------------


def with_shaman(*events: Event, **kwargs: Any) -> FightState[Any]:
    """The fight of `fight`, with Gorbag, a spellcasting monster capable of healing."""
    shaman = CharacterJoined(character="gorbag", kind="healer_monster", stats={"wounds": 5})
    return fight(shaman, *events, **kwargs)


def test_a_healer_monster_is_a_monster_on_the_monsters_side() -> None:
    gorbag = with_shaman().characters["gorbag"]
    assert (gorbag.kind, gorbag.side) == ("healer_monster", "monsters")


def test_monsters_go_down_while_a_healer_monster_stands() -> None:
    state, changes = apply(with_shaman(), Hit(target="orc", damage=2))
    assert (orc(state).state, changes.dice) == ("downed", [])
    assert "Orc goes Down (gorbag can heal it)" in changes.explanation


@pytest.mark.parametrize("fells", [Hit(target="gorbag", damage=5), Hit(target="gorbag", damage=1)])
def test_monsters_die_once_no_healer_stands(fells: Hit) -> None:
    """Gorbag slain (no healer left) or merely wounded (still standing): only the first kills."""
    state, _ = apply(with_shaman(fells), Hit(target="orc", damage=2))
    assert orc(state).state == ("dead" if fells.damage == 5 else "downed")


def test_a_downed_healer_heals_nobody_so_monsters_die() -> None:
    options: dict[str, bool | int | str] = {}
    shaman2 = CharacterJoined(character="zog", kind="healer_monster", stats={"wounds": 3})
    state = with_shaman(shaman2, Hit(target="zog", damage=3), options=options)
    assert state.characters["zog"].state == "downed"  # Gorbag stood when Zog fell
    state, _ = apply(state, Hit(target="gorbag", damage=5))
    assert state.characters["gorbag"].state == "dead"  # Zog is down: nobody heals Gorbag
    state, _ = apply(state, Hit(target="orc", damage=2))
    assert orc(state).state == "dead"


def test_a_lone_healer_on_zero_wounds_dies() -> None:
    state, _ = apply(with_shaman(), Hit(target="gorbag", damage=5))
    assert state.characters["gorbag"].state == "dead"


def test_monsters_already_down_stay_down_when_the_last_healer_falls() -> None:
    state = with_shaman(Hit(target="orc", damage=2), Hit(target="gorbag", damage=5))
    assert orc(state).state == "downed"
    state, _ = apply(state, end(downed=[6]))
    assert orc(state).state == "stabilised"


def test_option_monsters_go_down_is_the_gms_override_with_no_healer() -> None:
    state, changes = apply(fight(options=GO_DOWN), Hit(target="orc", damage=2))
    assert orc(state).state == "downed"
    assert "Orc goes Down (option monsters_go_down)" in changes.explanation
    assert orc(fight(Hit(target="orc", damage=2))).state == "dead"


def test_monster_serious_injuries_follow_the_healer_too() -> None:
    options: dict[str, bool | int | str] = {"monster_serious_injuries": True}
    state = with_shaman(down(4, 4, target="orc"), options=options)
    assert (orc(state).state, orc(state).injuries) == ("downed", ("Chest Wound",))


# --- the wounds of a stabilising heal are not gained ----------------------------------------------


@pytest.mark.parametrize("wounds", [1, 2])
@pytest.mark.parametrize("amount", [0, 3])
def test_a_stabilising_heal_stops_no_internal_bleeding_whatever_its_amount(
    wounds: int, amount: int
) -> None:
    """Issue 10: a heal of 0 and a heal of 3 gave different results for a 1- or 2-wound
    warrior; the wounds healed to stabilise him are not gained, so neither stops it."""
    state = fight(down(1, 6), end(downed=[3], internal_injury=[3]), wounds=wounds + 3)
    assert grim(state).starting_wounds == wounds and grim(state).state == "downed"
    state, changes = apply(state, heal(amount, "potion", downed=[6]))
    assert (grim(state).state, grim(state).wounds) == ("stabilised", 1)
    assert grim(state).internal_bleeding == 1
    assert "stops bleeding" not in changes.explanation


def test_the_next_heal_of_a_stabilised_two_wound_warrior_stops_the_bleeding() -> None:
    state = fight(
        down(1, 6), end(downed=[3], internal_injury=[3]), heal(3, "potion", downed=[6]), wounds=5
    )
    state, changes = apply(state, heal(1, "potion"))
    assert grim(state).internal_bleeding == 0 and "stops bleeding" in changes.explanation


# --- dice scoped to the character they are rolled for (DESIGN.md section 4) ---------------------


def fight_v2(*events: Event) -> list[Event]:
    """Grim, Ulf and the Orc in a fight of draw version 2, then `events`: a log."""
    return [
        FightStarted(ruleset="warhammer_quest", seed=7, version=WIRE_VERSION),
        CharacterJoined(character="grim", name="Grim", stats={"wounds": 10}),
        CharacterJoined(character="ulf", name="Ulf", stats={"wounds": 10}),
        CharacterJoined(character="orc", name="Orc", kind="monster", stats={"wounds": 2}),
        *events,
    ]


def folded(log: list[Event]) -> FightState[Any]:
    return list(replay(log))[-1][0]


def test_a_scoped_downed_die_is_that_warriors_own() -> None:
    tick = TurnEnded(id="end", rolls={"downed@ulf": [1], "downed@grim": [6]})
    state = folded(fight_v2(down(6, 1, target="grim"), down(6, 1, target="ulf"), tick))
    assert (grim(state).state, state.characters["ulf"].state) == ("stabilised", "dead")


def test_retracting_the_blow_on_an_earlier_warrior_leaves_a_later_ones_given_die() -> None:
    blow = Hit(id="blow", target="grim", damage=99, rolls={"serious_injury": [6, 1]})
    tick = TurnEnded(id="end", rolls={"downed@grim": [6], "downed@ulf": [1]})
    log = fight_v2(blow, down(6, 1, target="ulf"), tick)
    assert folded(log).characters["ulf"].state == "dead"
    after = folded([*log, Retract(event="blow")])
    assert (grim(after).state, after.characters["ulf"].state) == ("upright", "dead")


def test_retracting_the_blow_on_an_earlier_warrior_leaves_a_later_ones_drawn_die() -> None:
    blow = Hit(id="blow", target="grim", damage=99, rolls={"serious_injury": [6, 1]})
    log = fight_v2(blow, down(6, 1, target="ulf"), TurnEnded(id="end"))

    def ulf_downed(events: list[Event]) -> list[int]:
        steps = list(replay(events))
        tick = next(c for _, c in steps if c.event == "end")
        return [d.value for d in tick.dice if d.purpose == "downed" and d.character == "ulf"]

    assert ulf_downed(log) and ulf_downed(log) == ulf_downed([*log, Retract(event="blow")])


FIRE_CHASM_SCOPED = {"downed@grundi": [6], "downed@magnus": [2], "downed@brakk": [1]}


def fire_chasm(version: int, end_rolls: dict[str, list[int]] | None) -> list[Event]:
    """The shipped example as a fight of `version`, its first end of turn given `end_rolls`
    (with Elwen's What Doesn't Kill Me d3 scoped to her), or, with None, drawing them all."""
    log: list[Event] = []
    for event in shipped(FIRE_CHASM):
        if isinstance(event, FightStarted):
            event = msgspec.structs.replace(event, version=version)
        elif isinstance(event, TurnEnded) and event.round == 1:
            rolls = {} if end_rolls is None else {**end_rolls, "starting_wounds@elwen": [2]}
            event = msgspec.structs.replace(event, rolls=rolls)
        log.append(event)
    return log


def blow_on_grundi(log: list[Event]) -> str:
    index = next(i for i, e in enumerate(log, 1) if isinstance(e, Hit) and e.target == "grundi")
    return f"#{index}"


def test_fire_chasm_retracting_the_blow_on_grundi_leaves_brakk_his_own_1() -> None:
    """Issue 10's reproduction: with scoped dice, Brakk keeps his own 1 and dies."""
    log = fire_chasm(WIRE_VERSION, FIRE_CHASM_SCOPED)
    assert folded(log).characters["brakk"].state == "dead"
    after = folded([*log, Retract(event=blow_on_grundi(log))])
    assert after.characters["brakk"].state == "dead"
    assert after.characters["grundi"].state == "upright"


def test_fire_chasm_retracting_the_blow_on_grundi_leaves_brakk_his_own_drawn_die() -> None:
    log = fire_chasm(WIRE_VERSION, None)
    undo = Retract(id="undo", event=blow_on_grundi(log))
    undo_moves_no_other_die(log, undo, blow_on_grundi(log))


def test_fire_chasm_as_shipped_keeps_the_version_1_shared_dice() -> None:
    """The old log replays as it was written: unscoped dice shared in join order, so there the
    retraction still hands Brakk Magnus's 2 (the legacy behaviour the version keeps)."""
    log = shipped(FIRE_CHASM)
    assert folded(log).characters["brakk"].state == "dead"
    after = folded([*log[:-1], Retract(event=blow_on_grundi(log)), log[-1]])
    assert after.characters["brakk"].state == "downed"


def test_a_d66_given_as_one_value_is_refused_with_the_hint() -> None:
    with pytest.raises(StructuralError, match="a D66 is two d6"):
        apply(fight(), Hit(target="grim", damage=99, rolls={"serious_injury": [34]}))


def test_a_recovered_monster_wounded_to_zero_once_the_healer_is_gone_is_dead() -> None:
    state = with_shaman(
        Hit(target="orc", damage=2), end(downed=[6]), Hit(target="gorbag", damage=5)
    )
    assert orc(state).state == "stabilised"
    state, _ = apply(state, Hit(target="orc", damage=1))
    assert orc(state).state == "dead"


def test_a_monster_laid_out_by_a_66_dies_on_zero_once_the_healer_is_gone() -> None:
    options: dict[str, bool | int | str] = {"monster_serious_injuries": True}
    state = with_shaman(down(6, 6, target="orc"), Hit(target="gorbag", damage=5), options=options)
    assert orc(state).state == "knocked_down"
    state, _ = apply(state, Hit(target="orc", damage=1))
    assert orc(state).state == "dead"


# --- decisions, each with a test that fails if it were reversed ---------------------------------


def test_head_wounds_do_not_roll_for_a_stabilised_warrior() -> None:
    state = fight(down(2, 1), end(downed=[6]))
    _, changes = apply(state, start(stupidity=[1]))
    assert changes.dice == [] and changes.unused == {"stupidity": [1]}


@pytest.mark.parametrize(
    ("number", "purpose", "roll"), [(25, "hallucinations", 1), (26, "frenzy", 6)]
)
def test_hallucinations_and_frenzy_act_only_if_in_combat(
    number: int, purpose: str, roll: int
) -> None:
    state = fight(down(*digits(number)), end(downed=[6]), heal(9, "potion"))
    state, _ = apply(state, start(**{purpose: [roll]}))
    assert grim(state).this_turn[0].startswith(f"{purpose}: if in combat")


@pytest.mark.parametrize("number", [54, 55, 56])
def test_bone_fractures_roll_nothing_in_a_fight(number: int) -> None:
    state = fight(down(*digits(number)), end(downed=[6]), heal(9, "potion"))
    _, changes = apply(state, start())
    assert changes.dice == [] and "no injury acts" in changes.explanation


def test_a_third_severed_leg_is_nothing_too_serious() -> None:
    state = fight(down(1, 4, which_leg=[1]), down(1, 4), stats={"movement": 4})
    state, changes = apply(state, down(1, 4))
    assert "nothing left for it to take: Nothing Too Serious" in changes.explanation
    assert grim(state).lost == ("left leg", "right leg") and grim(state).movement == 0


def test_a_third_partial_paralysis_is_nothing_too_serious() -> None:
    state = fight(down(4, 6), down(4, 6), down(4, 6), stats={"attacks": 3})
    assert list(grim(state).injuries) == [
        "Partial Paralysis",
        "Partial Paralysis (fully paralysed)",
    ]
    assert grim(state).attacks == 1


def test_monsters_do_not_attack_a_warrior_laid_out_by_a_66_while_another_stands() -> None:
    with pytest.raises(RuleError, match="monsters do not attack Grim \\(knocked_down\\)"):
        apply(fight(down(6, 6)), Hit(target="grim", damage=1, attacker="orc"))


def test_a_coup_de_grace_ignores_its_damage() -> None:
    state = fight(Hit(target="orc", damage=2), options=GO_DOWN)
    state, changes = apply(state, Hit(target="orc", damage=7, attacker="grim", coup_de_grace=True))
    assert (orc(state).state, orc(state).wounds) == ("dead", 0)
    assert "coup de grace: Orc is dead" in changes.explanation


# --- examples the mutation run found missing (tests/mutation/results, seed 27) ---------------


@pytest.mark.parametrize(
    "table",
    [
        {"downed": {"rows": {"1": "dead", "2-5": "unconscious", "6": "stabilised"}, "row": {}}},
        {"serious_injuries": {"rows": BOOK_ROWS, "starred": ["64"]}},
    ],
)
def test_a_log_table_with_a_field_the_book_has_not_is_refused(table: dict[str, Any]) -> None:
    # a misspelt or invented field would otherwise be dropped, and the fight played by rows
    # its writer did not mean
    (name,) = table
    with pytest.raises(StructuralError, match="unknown field") as err:
        apply(None, FightStarted(ruleset="warhammer_quest", tables=table))
    assert err.value.field == f"$.tables.{name}"

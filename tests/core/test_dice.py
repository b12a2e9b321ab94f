"""Dice per DESIGN.md section 4: given first, in order, per character; else drawn from the seed."""

from __future__ import annotations

import hashlib

import pytest

from woundlog.core import Dice, DieRoll, apply, draw, refuse_strangers_dice
from woundlog.events import (
    CharacterJoined,
    FightStarted,
    Hit,
    RuleError,
    StructuralError,
    TurnStarted,
)

BIG = 2**32
"""A die so large that two independent draws agree by chance about once in four billion."""


def formula(seed: int, event_id: str, scope: str, index: int, sides: int) -> int:
    """DESIGN.md section 4, written out independently of core/dice.py: blake2b over
    `seed, event id, scope, index, attempt` (\\x1f-separated, 8-byte digest, big-endian),
    rejection sampling past the largest multiple of `sides`. `scope` is the purpose, or in
    draw version 2 for one character's die `purpose\\x1fcharacter`."""
    limit = 2**64 - 2**64 % sides
    attempt = 0
    while True:
        key = f"{seed}\x1f{event_id}\x1f{scope}\x1f{index}\x1f{attempt}".encode()
        value = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")
        if value < limit:
            return value % sides + 1
        attempt += 1


# --- the draw, pinned: these values must never change, or stored fights replay differently ----


def test_legacy_draw_gives_the_pinned_values_of_the_formula() -> None:
    assert [draw(1, "#2", "injury", i, 6) for i in range(6)] == [6, 2, 5, 5, 3, 1]
    assert [draw(0, "h1", "wound", i, 100) for i in range(6)] == [15, 81, 12, 54, 27, 90]
    assert [draw(7, "e3", "downed", i, 6) for i in range(6)] == [3, 3, 2, 5, 2, 4]


def test_rejected_hash_values_are_drawn_again_with_the_next_attempt() -> None:
    # on a die of 2**63 + 1 faces about half of all 64-bit values are past the limit: the
    # first attempt of this key is rejected and the second one is the die
    sides = 2**63 + 1
    assert draw(42, "x", "p", 0, sides) == 3484914186220299196
    assert formula(42, "x", "p", 0, sides) == 3484914186220299196


def test_scoped_draw_puts_the_character_after_the_purpose_in_the_key() -> None:
    assert [draw(7, "e3", "downed", i, 6, "brakk") for i in range(6)] == [6, 2, 6, 1, 2, 1]
    assert [draw(7, "e3", "downed", i, 6, "magnus") for i in range(6)] == [6, 3, 6, 5, 3, 5]


def test_draw_is_the_formula_of_design_section_4_over_many_keys() -> None:
    for i in range(300):
        seed, event, index = i * 7919 - 1000, f"#{i % 13}", i % 5
        for sides in (6, 10, 100):
            assert draw(seed, event, "injury", index, sides) == formula(
                seed, event, "injury", index, sides
            )
            assert draw(seed, event, "injury", index, sides, "grim") == formula(
                seed, event, "injury\x1fgrim", index, sides
            )


# --- each part of the key moves the die -------------------------------------------------------


def agreements(first: list[int], second: list[int]) -> int:
    return sum(a == b for a, b in zip(first, second, strict=True))


@pytest.mark.parametrize(
    "changed",
    [
        {"seed": 8},
        {"event_id": "h2"},
        {"purpose": "downed"},
        {"index": 1},
        {"character": "snik"},
    ],
    ids=lambda changed: next(iter(changed)),
)
def test_changing_one_part_of_the_key_changes_the_die(changed: dict[str, object]) -> None:
    base: dict[str, object] = {"seed": 7, "event_id": "h1", "purpose": "injury", "index": 0}
    base["character"] = "grim"
    n = 400

    def dice(key: dict[str, object], sides: int) -> list[int]:
        out = []
        for i in range(n):
            k = dict(key)
            k["event_id"] = f"{k['event_id']}-{i}"  # many keys, each differing only in `changed`
            out.append(draw(sides=sides, **k))  # type: ignore[arg-type]
        return out

    other = {**base, **changed}
    assert agreements(dice(base, BIG), dice(other, BIG)) == 0
    # and on a d6 the two agree no more often than independent dice would (1 in 6)
    same = agreements(dice(base, 6), dice(other, 6))
    assert abs(same - n / 6) < 5 * (n * (1 / 6) * (5 / 6)) ** 0.5, same


def test_a_die_for_no_character_differs_from_one_for_a_character() -> None:
    plain = [draw(3, f"t{i}", "downed", 0, BIG) for i in range(200)]
    scoped = [draw(3, f"t{i}", "downed", 0, BIG, "brakk") for i in range(200)]
    assert agreements(plain, scoped) == 0


def test_drawn_faces_cover_the_die() -> None:
    assert {draw(7, "h1", "injury", i, 6) for i in range(200)} == set(range(1, 7))


def test_drawn_d6_is_uniform_within_sampling_error() -> None:
    counts = [0] * 6
    n = 60_000
    for i in range(n):
        counts[draw(3, f"#{i}", "injury", 0, 6) - 1] += 1
    for c in counts:
        assert abs(c - n / 6) < 5 * (n * (1 / 6) * (5 / 6)) ** 0.5  # five standard deviations


# --- given dice -------------------------------------------------------------------------------

SIDES = {"injury": 6, "downed": 6}


def test_given_rolls_are_taken_in_order_before_any_is_drawn() -> None:
    dice = Dice(0, "h1", {"injury": [2, 5]}, SIDES)
    assert [dice.roll("injury") for _ in range(3)] == [2, 5, 5]
    assert [d.source for d in dice.used] == ["given", "given", "drawn"]
    assert dice.used[2].value == draw(0, "h1", "injury", 2, 6) == 5


@pytest.mark.parametrize("version", [1, 2])
def test_scoped_given_dice_are_read_per_character_whatever_the_order(version: int) -> None:
    given = {"downed@brakk": [1, 4], "downed@magnus": [2]}
    dice = Dice(0, "t1", given, SIDES, version=version)
    assert dice.roll("downed", "magnus") == 2
    assert dice.roll("downed", "brakk") == 1
    assert dice.roll("downed", "brakk") == 4
    assert [(d.character, d.value, d.source) for d in dice.used] == [
        ("magnus", 2, "given"),
        ("brakk", 1, "given"),
        ("brakk", 4, "given"),
    ]
    assert dice.unused() == {}


@pytest.mark.parametrize("version", [1, 2])
def test_unscoped_given_dice_are_shared_in_the_order_the_rules_ask(version: int) -> None:
    dice = Dice(0, "t1", {"downed": [5, 3]}, SIDES, version=version)
    assert dice.roll("downed", "brakk") == 5
    assert dice.roll("downed", "magnus") == 3


@pytest.mark.parametrize("version", [1, 2])
def test_a_characters_own_dice_come_first_then_the_shared_ones(version: int) -> None:
    dice = Dice(0, "t1", {"downed@brakk": [1], "downed": [4, 6]}, SIDES, version=version)
    assert dice.roll("downed", "magnus") == 4  # nothing of his own: the first shared die
    assert dice.roll("downed", "brakk") == 1  # his own
    assert dice.roll("downed", "brakk") == 6  # his own are spent: the next shared die
    assert dice.unused() == {}


def test_a_scoped_die_the_rules_did_not_ask_for_is_reported_unused() -> None:
    dice = Dice(0, "t1", {"downed@brakk": [1, 2], "downed@magnus": [3]}, SIDES, version=2)
    dice.roll("downed", "brakk")
    assert dice.unused() == {"downed@brakk": [2], "downed@magnus": [3]}


def test_version_2_draws_a_characters_die_with_his_own_key_and_index() -> None:
    dice = Dice(7, "e3", {}, SIDES, version=2)
    assert [dice.roll("downed", "brakk"), dice.roll("downed", "brakk")] == [6, 2]
    assert dice.roll("downed", "magnus") == 6  # magnus's die 0, not the event's third
    assert [(d.character, d.source) for d in dice.used] == [
        ("brakk", "drawn"),
        ("brakk", "drawn"),
        ("magnus", "drawn"),
    ]


def test_version_2_a_characters_drawn_die_ignores_others_rolls_in_the_same_event() -> None:
    for seed in range(100):
        alone = Dice(seed, "e3", {}, SIDES, version=2)
        crowded = Dice(seed, "e3", {}, SIDES, version=2)
        for _ in range(seed % 3 + 1):
            crowded.roll("downed", "brakk")
        crowded.roll("downed")  # an unscoped one too
        assert crowded.roll("downed", "magnus") == alone.roll("downed", "magnus")
        assert crowded.roll("downed", "magnus") == alone.roll("downed", "magnus")


def test_version_2_a_shared_given_die_does_not_shift_the_next_characters_draw() -> None:
    dice = Dice(7, "e3", {"downed": [4]}, SIDES, version=2)
    assert dice.roll("downed", "brakk") == 4  # the shared die
    assert dice.roll("downed", "magnus") == draw(7, "e3", "downed", 0, 6, "magnus") == 6


def test_version_1_draws_a_characters_die_exactly_as_before_counted_across_characters() -> None:
    dice = Dice(7, "e3", {}, SIDES)  # no version: 1
    assert dice.roll("downed", "brakk") == 3  # draw(7, "e3", "downed", 0, 6)
    assert dice.roll("downed", "brakk") == 3  # index 1
    assert dice.roll("downed", "magnus") == 2  # index 2: the event's third die
    assert [d.character for d in dice.used] == ["brakk", "brakk", "magnus"]


def test_given_die_out_of_range_is_refused_naming_the_roll() -> None:
    with pytest.raises(StructuralError, match="a d6 shows 1 to 6, not 7") as err:
        Dice(0, "h1", {"injury": [3, 7]}, SIDES)
    assert err.value.field == "$.rolls.injury[1]"


def test_scoped_die_out_of_range_is_refused_naming_the_scoped_roll() -> None:
    with pytest.raises(StructuralError, match="not 0") as err:
        Dice(0, "t1", {"downed@brakk": [0]}, SIDES, version=2)
    assert err.value.field == "$.rolls.downed@brakk[0]"


def test_a_hint_follows_a_die_out_of_range() -> None:
    with pytest.raises(StructuralError, match="not 7: give two d6"):
        Dice(0, "h1", {"injury": [7]}, SIDES, hints={"injury": "give two d6"})


def test_strict_dice_makes_a_missing_die_an_error() -> None:
    dice = Dice(0, "h1", {}, SIDES, strict=True)
    with pytest.raises(RuleError, match=r"a die of `injury` \(d6\).*strict_dice") as err:
        dice.roll("injury")
    assert err.value.field == "$.rolls.injury"


def test_strict_dice_names_the_character_of_a_missing_scoped_die() -> None:
    dice = Dice(0, "t1", {"downed@magnus": [2]}, SIDES, strict=True, version=2)
    assert dice.roll("downed", "magnus") == 2
    with pytest.raises(RuleError, match="`downed@brakk` \\(d6\\)") as err:
        dice.roll("downed", "brakk")
    assert err.value.field == "$.rolls.downed@brakk"


# --- dice of a purpose the ruleset never rolls ------------------------------------------------


def test_version_2_refuses_a_die_of_a_purpose_never_rolled_naming_the_purposes() -> None:
    with pytest.raises(
        RuleError, match="rolls no `injruy` dice \\(it rolls: injury, downed\\); did you mean"
    ) as err:
        Dice(0, "h1", {"injruy": [3]}, SIDES, version=2)
    assert err.value.field == "$.rolls.injruy"
    assert "did you mean `injury`?" in err.value.message


def test_version_2_refuses_a_scoped_die_of_a_purpose_never_rolled() -> None:
    with pytest.raises(RuleError, match="did you mean `downed`") as err:
        Dice(0, "t1", {"downd@brakk": [1]}, SIDES, version=2)
    assert err.value.field == "$.rolls.downd@brakk"


def test_version_1_keeps_a_die_of_a_purpose_never_rolled_as_unused() -> None:
    dice = Dice(0, "h1", {"location": [9], "injury": [1, 2]}, SIDES)
    dice.roll("injury")
    assert dice.unused() == {"location": [9], "injury": [2]}


def fight_of_version(version: int) -> object:
    state, _ = apply(None, FightStarted(ruleset="mordheim", version=version))
    state, _ = apply(state, CharacterJoined(character="grim", name="Grim", side="reavers"))
    return state


def test_a_version_2_fight_refuses_a_hit_giving_a_die_mordheim_never_rolls() -> None:
    with pytest.raises(
        RuleError, match="rolls no `injuri` dice \\(it rolls: injury\\); did you mean `injury`"
    ) as err:
        apply(fight_of_version(2), Hit(id="h1", target="grim", damage=1, rolls={"injuri": [3]}))  # type: ignore[arg-type]
    assert (err.value.event, err.value.field) == ("h1", "$.rolls.injuri")


def test_a_version_1_fight_keeps_a_die_mordheim_never_rolls_as_unused() -> None:
    hit = Hit(target="grim", damage=1, rolls={"injuri": [3], "injury": [4]})
    state, changes = apply(fight_of_version(1), hit)  # type: ignore[arg-type]
    assert changes.unused == {"injuri": [3]}
    assert state.characters["grim"].state == "stunned"


# --- how a die reads --------------------------------------------------------------------------


def test_a_die_reads_with_its_character_sides_value_and_source() -> None:
    assert DieRoll("downed", 6, 1, "given", "brakk").label() == "downed@brakk d6=1 given"
    assert DieRoll("injury", 6, 3, "drawn").label() == "injury d6=3 drawn"


# --- dice scoped to someone not in the fight (issue 24) ----------------------------------------


def test_a_die_scoped_to_a_character_not_in_the_fight_is_refused_naming_the_nearest() -> None:
    state, _ = apply(None, FightStarted(ruleset="mordheim", version=2))
    state, _ = apply(state, CharacterJoined(character="grim", side="reavers", stats={"wounds": 2}))
    refuse_strangers_dice(state, Hit(target="grim", damage=1, rolls={"injury@grim": [6]}))
    with pytest.raises(RuleError, match="a die for `gim`, who is not in this fight") as err:
        refuse_strangers_dice(state, Hit(target="grim", damage=1, rolls={"injury@gim": [6]}))
    assert "did you mean `grim`?" in err.value.message
    assert err.value.field == "$.rolls.injury@gim"


def test_a_log_of_version_1_keeps_its_scoped_dice_as_they_were() -> None:
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    tick = TurnStarted(rolls={"downed@anyone": [1]})
    refuse_strangers_dice(state, tick)  # not refused: a version 1 log named nobody's dice
    _, changes = apply(state, tick)
    assert changes.unused == {"downed@anyone": [1]}  # kept as written, and said unused


# --- examples the mutation run found missing ---------------------------------------------------


def test_a_die_given_for_another_purpose_does_not_move_the_drawn_ones() -> None:
    # injury dice 0 and 1 of event #2 with seed 1 are 6 and 2 (the pinned values above)
    dice = Dice(1, "#2", {"downed": [1]}, SIDES)
    assert [dice.roll("injury"), dice.roll("injury")] == [6, 2]


def test_version_2_draws_an_events_own_dice_by_their_place_after_the_given_ones() -> None:
    dice = Dice(1, "#2", {"injury": [4]}, SIDES, version=2)
    assert [dice.roll("injury"), dice.roll("injury"), dice.roll("injury")] == [4, 2, 5]


def test_dice_taken_up_for_the_next_event_hand_out_its_given_dice_first() -> None:
    # a fold that keeps only state reuses one Dice for every event (`Dice.anew`)
    dice = Dice(0, "h1", {}, SIDES, records=False)
    assert dice.roll("injury") == draw(0, "h1", "injury", 0, 6)
    dice.anew("h2", {"injury": [4]}, None)
    assert [dice.roll("injury"), dice.roll("injury")] == [4, 6]  # then h2's die 1 drawn
    dice.anew("h3", {}, None)
    assert dice.roll("injury") == draw(0, "h3", "injury", 0, 6)

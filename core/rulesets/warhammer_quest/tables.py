"""The book's tables as data: the Downed table, the D66 Serious Injuries and their results,
the start-of-turn head wounds, and our even split for "determine randomly"."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Literal, NamedTuple

import msgspec

from ...tables import Table

DownedResult = Literal["dead", "unconscious", "stabilised"]
D6_FACES = tuple(range(1, 7))
D66_FACES = tuple(10 * tens + units for tens in range(1, 7) for units in range(1, 7))


def bounds(key: str) -> tuple[int, int]:
    """A row's range as the book prints it: `"2-5"` is (2, 5), `"6"` is (6, 6)."""
    low, dash, high = key.replace(" ", "").partition("-")
    if not (low.isdigit() and (high.isdigit() if dash else not high)):
        raise ValueError(f"row `{key}`: a row is a number or a range, as `6` or `2-5`")
    return int(low), int(high) if dash else int(low)


def ranges(die: str, rows: Iterable[tuple[str, str]], faces: tuple[int, ...]) -> Table[str]:
    """The rows as a Table; ValueError unless every face has exactly one result."""
    table = Table(die, {bounds(key): result for key, result in rows})
    covered = {roll for low, high in table.rows for roll in range(low, high + 1)}
    missing, extra = sorted(set(faces) - covered), sorted(covered - set(faces))
    if missing:
        raise ValueError(f"the {die} table gives no result for {missing}")
    if extra:
        raise ValueError(f"the {die} table has rows for {extra}, which a {die} never rolls")
    return table


@functools.lru_cache(maxsize=64)
def downed_ranges(rows: tuple[tuple[str, str], ...]) -> Table[str]:
    return ranges("D6", rows, D6_FACES)


@functools.lru_cache(maxsize=64)
def serious_injury_ranges(rows: tuple[tuple[str, str], ...]) -> Table[str]:
    for key, result in rows:
        if result not in INJURIES:
            raise ValueError(f"D66 table: row {key}: no result `{result}` (known: {KNOWN})")
    return ranges("D66", rows, D66_FACES)


class DownedTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The Downed table: the book's D6 ranges to dead, unconscious or stabilised."""

    rows: dict[str, DownedResult]

    def __post_init__(self) -> None:
        self.ranges()  # a table that does not cover 1-6 exactly once is malformed

    def ranges(self) -> Table[str]:
        return downed_ranges(tuple(self.rows.items()))


class SeriousInjuryTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The Serious Injuries table: the book's D66 ranges to the results of INJURIES."""

    rows: dict[str, str]

    def __post_init__(self) -> None:
        self.ranges()  # every D66 number exactly once, each naming a known result

    def ranges(self) -> Table[str]:
        return serious_injury_ranges(tuple(self.rows.items()))


class SeriousInjury(msgspec.Struct, frozen=True, kw_only=True):
    """One result of the Serious Injuries table: its name as printed, and what it does."""

    name: str
    effect: str
    once: bool = False  # starred: gained once; a repeat counts as Nothing Too Serious
    stats: dict[str, int] = {}  # permanent changes to the profile


INJURIES: dict[str, SeriousInjury] = {
    "decapitated": SeriousInjury(
        name="Decapitated", effect="dead at once, no Downed roll, from healing or at turn's end"
    ),
    "severed_leg": SeriousInjury(
        name="Severed Leg", effect="-2 Movement, losing the other leg retires him"
    ),
    "severed_arm": SeriousInjury(
        name="Severed Arm",
        effect="nothing in or on that arm, no 2-handed weapon, no shield with a weapon, -1 WS "
        "if he must now fight off-handed, losing both arms retires him",
    ),
    "internal_injury": SeriousInjury(
        name="Internal Injury",
        effect="loses 1d3 Starting Wounds at the end of each turn until healed to half wounds",
    ),
    "stupidity": SeriousInjury(
        name="Head Wound: Stupidity",
        once=True,
        effect="start of each turn, d6: on a 1 he may do nothing at all",
    ),
    "insanity": SeriousInjury(
        name="Head Wound: Insanity",
        once=True,
        effect="start of each turn, d6: on a 1 he attacks the closest target, friend or foe",
    ),
    "concussion": SeriousInjury(
        name="Head Wound: Concussion",
        once=True,
        effect="-1 Initiative, -1 Willpower, -1 Intellectual Initiative, spells cost +1 power",
        stats={"initiative": -1, "willpower": -1, "intellectual_initiative": -1},
    ),
    "cowardice": SeriousInjury(
        name="Head Wound: Uncontrollable Cowardice",
        once=True,
        effect="-1 to all Fear and Terror tests",
    ),
    "hallucinations": SeriousInjury(
        name="Head Wound: Hallucinations",
        once=True,
        effect="start of each turn in combat, d6: 1 half attacks, 6 +1 Attack, monsters +1 to hit",
    ),
    "frenzy": SeriousInjury(
        name="Head Wound: Frenzy",
        once=True,
        effect="each turn in combat, d6: on a 6 double attacks at -1 to hit, must engage",
    ),
    "fearlessness": SeriousInjury(
        name="Head Wound: Fearlessness",
        once=True,
        effect="+1 to Fear and Terror rolls, never acts cautiously, never sneaks",
    ),
    "eye_loss": SeriousInjury(
        name="Eye Loss",
        effect="-1 Ballistic Skill, losing the other eye retires him",
        stats={"ballistic_skill": -1},
    ),
    "ear_loss": SeriousInjury(
        name="Ear Loss",
        effect="-1 Initiative, -1 to listening tests, losing the other ear retires him",
        stats={"initiative": -1},
    ),
    "severed_foot": SeriousInjury(
        name="Severed Foot", effect="-1 Movement, losing both feet retires him"
    ),
    "severed_hand": SeriousInjury(
        name="Severed Hand",
        effect="dominant: -1 WS, off: no 2-handed or off-hand weapon (a shield is fine), "
        "losing both hands retires him",
    ),
    "severed_fingers": SeriousInjury(
        name="Severed Fingers",
        effect="-1 WS with a weapon in that hand, 4 or 5 gone and the hand is useless, "
        "both hands useless retires him",
    ),
    "weakened_arm": SeriousInjury(
        name="Weakened Arm",
        once=True,
        effect="adds no natural Strength to damage with his primary arm",
    ),
    "weakened_shield_arm": SeriousInjury(
        name="Weakened Shield Arm", once=True, effect="a shield gives him 1 less Toughness"
    ),
    "weakened_leg": SeriousInjury(
        name="Weakened Leg", once=True, effect="-1 to jumping and climbing tests"
    ),
    "chest_wound": SeriousInjury(
        name="Chest Wound", once=True, effect="-1 Toughness", stats={"toughness": -1}
    ),
    "recurring_pains": SeriousInjury(
        name="Recurring Pains",
        once=True,
        effect="start of each turn, d6: on a 1, 1d3 wounds and -1 Toughness this turn",
    ),
    "partial_paralysis": SeriousInjury(
        name="Partial Paralysis",
        effect="-1 Attack, a second time, fully paralysed: he retires",
        stats={"attacks": -1},
    ),
    "deadened_legs": SeriousInjury(
        name="Deadened Nerve Endings: Legs",
        once=True,
        effect="-1 to running, jumping and climbing tests, +1 Ignore Pain",
        stats={"ignore_pain": 1},
    ),
    "deadened_arms": SeriousInjury(
        name="Deadened Nerve Endings: Arms",
        once=True,
        effect="-1 WS, +1 Ignore Pain",
        stats={"weapon_skill": -1, "ignore_pain": 1},
    ),
    "deadened_chest": SeriousInjury(
        name="Deadened Nerve Endings: Chest",
        once=True,
        effect="-1 to balance and strength tests, +2 Ignore Pain",
        stats={"ignore_pain": 2},
    ),
    "fracture_leg": SeriousInjury(
        name="Bone Fracture: Leg",
        once=True,
        effect="each adventure, d6: on a 1, -1 Movement and -1 to run, jump and climb",
    ),
    "fracture_arm": SeriousInjury(
        name="Bone Fracture: Arm",
        once=True,
        effect="each adventure, d6: on a 1, -1 Strength and -1 WS",
    ),
    "fracture_chest": SeriousInjury(
        name="Bone Fracture: Chest",
        once=True,
        effect="each adventure, d6: on a 1, -1 Toughness",
    ),
    "nothing_too_serious": SeriousInjury(
        name="Nothing Too Serious", effect="heavily injured, but nothing vital is damaged"
    ),
    "impressive_scars": SeriousInjury(
        name="Impressive Scars", once=True, effect="a 10% discount in settlements"
    ),
    "horrible_scars": SeriousInjury(
        name="Horrible Scars", once=True, effect="causes Fear equal to 150% of his battle level"
    ),
    "what_doesnt_kill_me": SeriousInjury(
        name="What Doesn't Kill Me",
        effect="stands back up at the end of the turn on 1 wound, +1d3 Starting Wounds for "
        "good, no Downed roll",
    ),
}
KNOWN = ", ".join(INJURIES)
SEVERITY: dict[str, int] = {
    # a gain, or nothing that hurts: What Doesn't Kill Me, Nothing Too Serious, a discount
    "what_doesnt_kill_me": 0, "nothing_too_serious": 0, "impressive_scars": 0,
    # a test's modifier, or an ache only now and then: Fear, a weakened leg or shield arm, nerve
    # endings with their Ignore Pain, a fracture that plays up one adventure in six
    "horrible_scars": 1, "fearlessness": 1, "weakened_leg": 1, "weakened_shield_arm": 1,
    "deadened_legs": 1, "deadened_chest": 1, "fracture_leg": 1, "fracture_arm": 1,
    "fracture_chest": 1,
    # a characteristic lost, or a turn now and then: head wounds, the primary arm, the chest
    "stupidity": 2, "insanity": 2, "concussion": 2, "cowardice": 2, "hallucinations": 2,
    "frenzy": 2, "weakened_arm": 2, "chest_wound": 2, "recurring_pains": 2, "deadened_arms": 2,
    "ear_loss": 2, "severed_fingers": 2, "partial_paralysis": 2,
    # a part of him gone, or Starting Wounds bleeding away each turn until healed
    "eye_loss": 3, "severed_foot": 3, "severed_hand": 3, "internal_injury": 3,
    # a limb gone: the other one retires him
    "severed_leg": 4, "severed_arm": 4,
    "decapitated": 5,
}  # fmt: skip
"""The Serious Injuries by how bad each is, worse larger (the order of harm a report reads a
D66 by: its numbers are no order, 16 Internal Injury lies between 15 and 21). The text ranks
none of them; the tiers above are this ruleset's decision, each said beside its results."""
SEVERITY_BY_NAME = {injury.name: SEVERITY[key] for key, injury in INJURIES.items()}
DOWNED_HARM = {"stabilised": 0, "unconscious": 1, "dead": 2}
DOWNED_TABLE = DownedTable(rows={"1": "dead", "2-5": "unconscious", "6": "stabilised"})
SERIOUS_INJURIES_TABLE = SeriousInjuryTable(
    rows={
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
)
Side = Literal["left", "right"]
Hand = Literal["dominant", "off"]
SIDES: tuple[Side, ...] = ("left", "right")
HANDS: tuple[Hand, ...] = ("dominant", "off")
WHICH_SIDE: Table[Side] = Table("D6", {(1, 3): "left", (4, 6): "right"}, range(1, 7))
WHICH_HAND: Table[Hand] = Table("D6", {(1, 3): "dominant", (4, 6): "off"}, range(1, 7))
"""The text says "determine randomly": an even split on a d6, ours, not the book's."""
# Start-of-turn injuries: each result on a d6, None where nothing happens.
STUPIDITY: Table[str | None] = Table(
    "D6",
    {(1, 1): "stands around stupidly: may do nothing at all this turn", (2, 6): None},
    range(1, 7),
)
INSANITY: Table[str | None] = Table(
    "D6",
    {
        (1, 1): "attacks the closest target, friend or foe, with all his attacks, and does "
        "nothing else this turn",
        (2, 6): None,
    },
    range(1, 7),
)
HALLUCINATIONS: Table[str | None] = Table(
    "D6",
    {
        (1, 1): "if in combat: strikes at visions, half his attacks this turn",
        (2, 5): None,
        (6, 6): "if in combat: +1 Attack this turn, but monsters are +1 to hit him",
    },
    range(1, 7),
)
FRENZY: Table[str | None] = Table(
    "D6",
    {
        (1, 5): None,
        (6, 6): "if in combat: doubles his attacks at -1 to hit, and may only move to engage "
        "the closest monster",
    },
    range(1, 7),
)
RECURRING_PAINS: Table[bool] = Table("D6", {(1, 1): True, (2, 6): False}, range(1, 7))
MIND_INJURIES: tuple[tuple[str, Table[str | None]], ...] = (
    ("stupidity", STUPIDITY),
    ("insanity", INSANITY),
    ("hallucinations", HALLUCINATIONS),
    ("frenzy", FRENZY),
)
"""The head wounds that roll at the start of each turn: each result rolls a die of its name."""


class Tables(NamedTuple):
    """The tables one fight plays with: the book's, or those its log carries."""

    downed: Table[str]
    serious_injuries: Table[str]

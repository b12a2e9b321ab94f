"""Limbs, hands, fingers, eyes and ears: what the Serious Injuries take, what losing them does
to Movement and Weapon Skill, and when it retires him."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ...ruleset import Context
from ...tables import Table
from .tables import HANDS, SIDES, WHICH_HAND, WHICH_SIDE, Hand, Side
from .warrior import Warrior, plural, replace, times_gained


def leg_of(side: Side) -> str:
    return f"{side} leg"


def foot_of(side: Side) -> str:
    return f"{side} foot"


def arm_of(hand: Hand) -> str:
    return f"{hand} arm"


def hand_of(hand: Hand) -> str:
    return f"{hand} hand"


def finger_of(hand: Hand) -> str:
    return f"{hand}-hand finger"


EYE, EAR = "eye", "ear"
"""What the Serious Injuries table takes, one entry a part (a finger, an eye): `lost`."""


def has_leg(lost: tuple[str, ...], side: Side) -> bool:
    return leg_of(side) not in lost


def has_foot(lost: tuple[str, ...], side: Side) -> bool:
    """A severed leg takes its foot with it."""
    return has_leg(lost, side) and foot_of(side) not in lost


def has_arm(lost: tuple[str, ...], hand: Hand) -> bool:
    return arm_of(hand) not in lost


def has_hand(lost: tuple[str, ...], hand: Hand) -> bool:
    """A severed arm takes its hand with it."""
    return has_arm(lost, hand) and hand_of(hand) not in lost


def fingers_lost(lost: tuple[str, ...], hand: Hand) -> int:
    return lost.count(finger_of(hand))


def can_use(lost: tuple[str, ...], hand: Hand) -> bool:
    """He has the hand, and fewer than 4 of its fingers are gone (with 4 or 5 gone he "can no
    longer use that hand")."""
    return has_hand(lost, hand) and fingers_lost(lost, hand) < 4


def severed_leg(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """One of his legs, determined randomly."""
    side = pick([s for s in SIDES if has_leg(warrior.lost, s)], WHICH_SIDE, "which_leg", ctx)
    return None if side is None else (losing(warrior, leg_of(side)), side)


def severed_foot(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """A foot he still has (one on a leg he still has)."""
    side = pick([s for s in SIDES if has_foot(warrior.lost, s)], WHICH_SIDE, "which_foot", ctx)
    return None if side is None else (losing(warrior, foot_of(side)), side)


def severed_arm(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """One of his arms, determined randomly."""
    hand = pick([h for h in HANDS if has_arm(warrior.lost, h)], WHICH_HAND, "which_arm", ctx)
    return None if hand is None else (losing(warrior, arm_of(hand)), hand)


def severed_hand(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """A hand he still has; randomly whether it is his dominant hand."""
    hand = pick([h for h in HANDS if has_hand(warrior.lost, h)], WHICH_HAND, "which_hand", ctx)
    return None if hand is None else (losing(warrior, hand_of(hand)), hand)


def severed_fingers(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """d3 fingers of one of his hands (one that still has fingers)."""
    lost = warrior.lost
    hands = [h for h in HANDS if has_hand(lost, h) and fingers_lost(lost, h) < 5]
    hand = pick(hands, WHICH_HAND, "which_hand", ctx)
    if hand is None:
        return None
    taken = min(ctx.roll("fingers"), 5 - fingers_lost(lost, hand))  # five to a hand
    return losing(
        warrior, *[finger_of(hand)] * taken
    ), f"{plural(taken, 'finger')} of his {hand} hand"


def eye_loss(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    eyes = warrior.lost.count(EYE)
    if eyes >= 2:
        return None
    return losing(warrior, EYE), "his other eye" if eyes else ""


def ear_loss(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    ears = warrior.lost.count(EAR)
    if ears >= 2:
        return None
    return losing(warrior, EAR), "his other ear" if ears else ""


SEVERED: dict[str, Callable[[Any], str]] = {
    "Severed Leg": leg_of,
    "Severed Foot": foot_of,
    "Severed Arm": arm_of,
    "Severed Hand": hand_of,
}
"""Serious Injuries that take one limb, its side or hand in the entry: "Severed Leg (left)"."""
FINGERS = re.compile(r"(\d+) fingers? of his (dominant|off) hand")


def parts_of(entry: str) -> tuple[str, ...]:
    """What a Serious Injury on his record took of his body, read back from its entry as
    `suffer` words it ("Severed Leg (left)", "Severed Fingers (2 fingers of his off hand)",
    "Eye Loss (his other eye)"): what a warrior joining from a campaign has already lost."""
    name, _, detail = entry.partition(" (")
    detail = detail.removesuffix(")")
    if name in SEVERED and detail in (*SIDES, *HANDS):
        return (SEVERED[name](detail),)
    fingers = FINGERS.fullmatch(detail) if name == "Severed Fingers" else None
    if fingers is not None:
        return (finger_of(fingers[2]),) * int(fingers[1])  # type: ignore[arg-type]
    return {"Eye Loss": (EYE,), "Ear Loss": (EAR,)}.get(name, ())


def pick(candidates: list[Any], table: Table[Any], purpose: str, ctx: Context) -> Any | None:
    """Determine randomly among what he still has: a roll only while there is a choice."""
    if len(candidates) < 2:
        return candidates[0] if candidates else None
    return table[ctx.roll(purpose)]


def losing(warrior: Warrior, *parts: str) -> Warrior:
    return replace(warrior, lost=(*warrior.lost, *parts))


def movement_lost(lost: tuple[str, ...]) -> int:
    """-2 Movement for each side without a leg, else -1 for each side without a foot."""
    return sum(2 if not has_leg(lost, s) else 0 if has_foot(lost, s) else 1 for s in SIDES)


def weapon_skill_lost(lost: tuple[str, ...]) -> int:
    """-1 WS fighting with the off hand; -1 WS when the hand he fights with has lost fingers."""
    hand: Hand = "dominant" if can_use(lost, "dominant") else "off"
    return int(hand == "off") + int(fingers_lost(lost, hand) > 0)


def body_changes(before: tuple[str, ...], after: tuple[str, ...]) -> dict[str, int]:
    """The stat changes of what the body lost, as the body now is."""
    return {
        "movement": movement_lost(before) - movement_lost(after),
        "weapon_skill": weapon_skill_lost(before) - weapon_skill_lost(after),
    }


def crippled(warrior: Warrior) -> str | None:
    """Why he must retire from adventuring, if he must."""
    lost = warrior.lost
    if not any(has_leg(lost, s) for s in SIDES):
        return "he has lost both legs"
    if not any(has_foot(lost, s) for s in SIDES):
        return "he has lost both feet"
    if not any(has_arm(lost, h) for h in HANDS):
        return "he has lost both arms"
    if not any(can_use(lost, h) for h in HANDS):
        return "he can use neither hand"
    if lost.count(EYE) >= 2:
        return "he is blind"
    if lost.count(EAR) >= 2:
        return "he is deaf"
    if times_gained(warrior, "partial_paralysis") >= 2:
        return "he is fully paralysed"
    return None


def retire_if_crippled(warrior: Warrior, ctx: Context) -> Warrior:
    reason = None if warrior.retired else crippled(warrior)
    if reason is None:
        return warrior
    ctx.say("{reason}: {warrior.name} must retire from adventuring", reason=reason, warrior=warrior)
    return replace(warrior, retired=True)

"""Warhammer Quest: the Downed rules, the D66 Serious Injuries table, bandages and monsters.

States in this game:
  upright       on his feet and fighting, on 1 wound or more.
  knocked_down  laid out by a blow he shrugs off (66, What Doesn't Kill Me): on 0 wounds but in
                no danger; he stands back up at the end of the turn and never rolls on the
                Downed table for it.
  downed        Down and unconscious on 0 wounds, in mortal danger: rolls on the Downed table
                at the end of every turn until he dies or stabilises.
  stabilised    still down and prone, on 1 wound, out of danger: may do nothing except drink
                healing potions; monsters are +2 to hit him. Healed to half his Starting Wounds
                (rounded up), he stands: upright.
  dead          dead. Nothing here leaves it (Divine Intervention is the GM's business).
  (stunned and out_of_action are not used.)

Characters. Kinds: `warrior` (default), `monster`, and `healer_monster`: a monster in every
way, and "a spellcasting monster capable of healing" (see Monsters below). Stats: `wounds`
(required) is the Starting Wounds. Any of movement, weapon_skill, ballistic_skill, strength,
toughness, initiative, attacks, luck, willpower, intellectual_initiative, ignore_pain and
battle_level may be given too. `stats` stays the character as joined; every stat the rules
change is shown at its current value under its own name (never below 0): `starting_wounds`,
and movement, weapon_skill, ballistic_skill, toughness, initiative, attacks, willpower,
intellectual_initiative and ignore_pain (null when not given: not tracked, the change is still
in the injury's text). Strength, luck and battle_level no rule here changes: they are in
`stats` only. `side` is optional: `warriors` or `monsters` by kind when not given.
Counters: `wounds` (current wounds, starting full); `starting_wounds` (his Starting Wounds now:
Internal Injury takes them, What Doesn't Kill Me adds them); `injuries` (every result gained,
with what was rolled for it: "Severed Leg (left)"); `lost` (each part the table took: "left
leg", "off-hand finger", "eye"); `internal_bleeding` (how many Internal Injuries still take
Starting Wounds); `stronger` (66s whose +1d3 Starting Wounds come when he stands); `retired`;
`this_turn` (start-of-turn results in force this turn); then the profile stats above.

Who may act: only the upright attack or heal; the table (WHO_MAY_ACT) is printed at the end. A
hit whose `attacker`, or a heal whose `healer`, is a character of the fight who may not is
refused, and void on replay.

Events:
  hit           reduces current wounds, never below 0. A warrior on 0 wounds after it suffers a
                Serious Injury: 11-13 dead, 66 knocked_down, anything else downed. A monster on 0
                is dead, unless monsters go Down (below). Facts: `coup_de_grace` (true: one
                attack of a warrior of the fight, no roll to hit, kills a downed monster
                outright); `pinned` (true: the attacker is pinned, so he may not attack a
                prone, Downed monster).
  heal          `means`: bandage or provisions (on a downed warrior they first need 4+ on a d6),
                potion or spell (no such roll). Fact `items` (default 1): items or spells used,
                +1 each to the Downed roll a heal makes on a downed warrior (read only then).
  turn_started  with no side and no character: the start of the turn; start-of-turn injuries
                roll (Stupidity, Insanity, Hallucinations, Frenzy, Recurring Pains).
  turn_ended    with no side and no character: the end of the turn, in join order: a
                knocked-down warrior stands back up, a downed one rolls on the Downed table,
                then an Internal Injury bleeds.
  choice        refused: the text leaves no decision to a player.

Dice (a D66 is two d6 of its purpose, tens then units: [3, 4] is 34; a d3 is a die of 3 sides):
  serious_injury (D66)  the Serious Injuries table.
  downed (d6)           the Downed table, at the end of the turn or when healing works.
  treatment (d6)        bandages and provisions on a downed warrior: effective on 4+.
  starting_wounds (d3)  What Doesn't Kill Me: Starting Wounds gained when he stands.
  internal_injury (d3)  Internal Injury: Starting Wounds lost at the end of each turn.
  which_leg, which_foot (d6)  1-3 left, 4-6 right; which_arm, which_hand (d6) 1-3 dominant,
                        4-6 off: "determine randomly" as an even split, rolled only while he
                        still has both.
  fingers (d3)          how many fingers Severed Fingers takes.
  stupidity, insanity, hallucinations, frenzy, recurring_pains (d6)  start of each turn.
  recurring_pains_wounds (d3)  the wounds a Recurring Pains 1 costs.
At the start and end of the turn each character rolls his own dice: give them scoped,
`{"downed@brakk": [1]}`, so an undo that changes who is down moves nobody else's die (drawn
dice are his own too, in a fight of version 2). Unscoped dice of a purpose at a tick are shared
in join order, as logs of version 1 were written.

Options: `healing_natural_one_kills` (false, as the text's group plays it): a natural 1 on the
Downed roll a heal makes kills. `monsters_go_down` (false): the GM's override, monsters on 0
wounds go Down for the whole fight whether or not a `healer_monster` stands (a healer the log
does not list, or a log written before `healer_monster` existed); false follows the text: they
go Down only while a `healer_monster` stands. `monster_serious_injuries` (false): monsters that
go Down also roll Serious Injuries, exactly as warriors (no effect while they do not go Down).
And `strict_dice`.

Tables: `downed` and `serious_injuries`, both printed by the text and shipped as its data (listed
at the end). Nothing here is a stand-in. A fight's log may replace either in
`fight_started.tables` as a house rule (`woundlog new --tables FILE.toml`), keeping the book's
range keys: `{"downed": {"rows": {"1": "dead", "2-5": "unconscious", "6": "stabilised"}}}`;
serious_injuries rows name the results below (`"14": "severed_leg"`). A replacement that does not
give exactly one result to every face is refused as malformed.

Decisions where the text is silent or ambiguous:
- The turn is the whole board's. Its start and end are `turn_started` / `turn_ended` with
  neither side nor character; a tick scoped to a side or a character is a marker that does
  nothing (and says so).
- Start-of-turn injuries: Stupidity, Insanity, Hallucinations and Frenzy roll for upright
  warriors only (one who is down does nothing anyway); Recurring Pains rolls for upright and
  stabilised ones (they have wounds to lose; a downed warrior's pains are his Downed roll).
  Hallucinations and Frenzy act only "in combat", which woundlog does not track: they roll every
  turn and the result says "if in combat". Results are in the event's explanation and in
  `this_turn`, which the end of the turn clears. Bone Fractures roll at the start of an
  adventure, outside any fight: their effect is only in the injury's text.
- A hit on a warrior already on 0 wounds (downed, or knocked down by a 66) is another Serious
  Injury roll, as if reduced to zero again: 11-13 kills him, 66 lets him shrug it off (knocked
  down, standing at the end of the turn), anything else leaves him downed. A stabilised warrior
  is on wounds like anyone: a hit takes them, and reaching 0 is a Serious Injury.
- A downed warrior hit back down by a result other than 66 loses the 66s he was waiting on:
  the +1d3 Starting Wounds come with standing up.
- "Monsters will not attack Downed warriors while there are upright warriors": a hit on a
  warrior who is down (downed, stabilised or knocked down) whose `attacker` is a monster of the
  fight is refused while any warrior is upright. Give no attacker for blows that are not a
  monster's attack (a trap, a spell's blast); an attacker who is not a character of the fight
  is accepted and the explanation says so, so that a typo (`ork` for `orc`) shows.
- Who may act: only the upright attack or heal (the table above). A warrior knocked down by a
  66 is "laid out" until the end of the turn: he does nothing until he stands. A stabilised
  warrior may give himself a `potion`, nothing else (no bandage on himself: "except drink
  healing potions"). A recovered monster has its senses back only "enough to defend" itself:
  it neither attacks nor casts.
- A hit of 0 damage does nothing. A hit on the dead is refused.
- Internal Injury bleeds at the end of the turn it is gained, after the Downed roll, and every
  turn after until a heal leaves him on at least half his Starting Wounds (rounded up); that
  heal stops them all. Only wounds he gains count: a heal on a downed warrior (the one that
  stabilises him too) gains none, so it stops no bleeding, whatever its amount; nor does the
  Downed table's 6. The next heal of 1 or more on a stabilised 1- or 2-wound warrior does.
  Each Internal Injury he has bleeds its own 1d3. His current wounds never exceed his Starting
  Wounds. Starting Wounds reduced to 0 kill him.
- What Doesn't Kill Me: the +1d3 Starting Wounds are rolled when he stands at the end of the
  turn, on 1 wound (or more, if healed in the meantime). It is not listed in `injuries`.
- Healing never raises current wounds above Starting Wounds; the rest is lost.
- A stabilised warrior stands (upright) at the heal that leaves him on at least half his
  Starting Wounds, never at the roll that stabilises him, so even a 1- or 2-wound warrior
  needs one more heal (of 1 wound or more).
- The Downed roll a heal makes never kills, whatever the table, except a natural 1 with option
  `healing_natural_one_kills`. Healing a downed warrior needs `items` of 1 or more and a means;
  a heal on a knocked-down (66) warrior adds wounds as normal.
- Means are bandage, provisions, potion and spell; record another item as the one that works
  like it (herbs applied like a bandage, a draught drunk like a potion). Monsters are healed
  only by a spellcaster's spell (`spell`, or no means given).
- Starred results are gained once; a repeat is Nothing Too Serious. So is a result that would
  take what he no longer has: a third eye or ear, a leg, foot, arm, hand or finger already
  gone, a third Partial Paralysis. A severed leg takes its foot; a severed arm takes its hand.
  Nothing Too Serious is not listed in `injuries`.
- Body parts and their modifiers follow the body as it now is: Movement is -2 for each side
  without a leg, else -1 for each without a foot; Weapon Skill is -1 when he must fight with his
  off hand (dominant arm or hand gone, or 4 or 5 of its fingers) and -1 when the hand he fights
  with has lost fingers. Lost fingers on the other hand are in the text only.
- Retirement ("must retire from adventuring"): no legs, no feet, no arms, no usable hand
  (severed, or 4 or 5 fingers gone: "the fingers on both hands" is read as the use of them),
  both eyes, both ears, or Partial Paralysis twice. `retired` becomes true; his state does not
  change: he fights on until the adventure ends.
- Horrible Scars: Fear is 150% of battle level, rounded up (integers: (3 x level + 1) // 2),
  worked out from `battle_level` when given.
- Monsters go Down ("if there is a spellcasting monster capable of healing on the board")
  while a `healer_monster` other than the one reduced to 0 is upright: a healer on 0 wounds,
  downed or dead heals nobody, itself included. Option `monsters_go_down` is the GM's word that
  they go Down anyway. Monsters already Down when the last healer falls stay Down and roll on
  the Downed table as before. Who heals a monster is not checked beyond the means (a spell).
- Monsters: `coup_de_grace` kills a downed monster outright (its damage is ignored); it is
  refused on a stabilised monster, on a monster standing and on a warrior, and it must be a
  warrior's ("warriors may perform a coup de grace"): an `attacker` who is a warrior of the
  fight; no attacker, one outside the fight, or a monster is refused. Any wound on a downed
  monster kills it (without `monster_serious_injuries`). A downed monster's heal is a spell: no
  4+ roll, +1 per `items`. A stabilised monster stands at half its Starting Wounds, as a
  warrior.
- Pinned: woundlog does not track who is pinned; the fact `pinned` says the attacker was. A
  pinned attacker "may not attack prone, Downed monsters": every hit, coup de grace or not, on
  a monster that is downed or stabilised (the text calls the recovered ones "Downed, but
  recovered" and "still prone") is refused with `pinned`. On anyone else it changes nothing.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Literal, NamedTuple

import msgspec

from woundlog.events import CharacterJoined, Heal, Hit, TurnEnded, TurnStarted

from ..machine import Graph
from ..ruleset import Acting, Context, Options, Ruleset
from ..state import Character, FightState
from ..states import DEAD, DOWNED, KNOCKED_DOWN, STABILISED, UPRIGHT, State
from ..tables import Table

STATES: tuple[State, ...] = (UPRIGHT, KNOCKED_DOWN, DOWNED, STABILISED, DEAD)
"""The states this game uses; characters start in the first."""

TRANSITIONS = [
    ("go_down", [UPRIGHT, KNOCKED_DOWN, STABILISED], DOWNED),  # a Serious Injury survived
    ("shrug_off", [UPRIGHT, DOWNED, STABILISED], KNOCKED_DOWN),  # 66 What Doesn't Kill Me
    ("stand_back_up", KNOCKED_DOWN, UPRIGHT),  # ... at the end of the turn
    ("stabilise", DOWNED, STABILISED),  # Downed table 6 (end of turn, or a heal that works)
    ("get_up", STABILISED, UPRIGHT),  # healed to half his Starting Wounds
    ("decapitate", [UPRIGHT, KNOCKED_DOWN, DOWNED, STABILISED], DEAD),  # Serious Injury 11-13
    ("succumb", DOWNED, DEAD),  # Downed table 1
    # a monster on 0 wounds with no healer standing, or wounded while downed
    ("slay", [UPRIGHT, KNOCKED_DOWN, DOWNED, STABILISED], DEAD),
    ("coup_de_grace", DOWNED, DEAD),  # a warrior finishes a downed monster
    ("bleed_out", [UPRIGHT, DOWNED, STABILISED], DEAD),  # Internal Injury to 0 (after he stands)
]

WARRIOR, MONSTER, HEALER_MONSTER = "warrior", "monster", "healer_monster"
MONSTERS = (MONSTER, HEALER_MONSTER)
"""A `healer_monster` is a monster in every way, and a spellcasting monster capable of healing:
while one stands, the other monsters go Down on 0 wounds instead of dying."""

WHO_MAY_ACT: dict[str, Acting] = {
    KNOCKED_DOWN: Acting(
        attack=False,
        heal=False,
        why="is laid out by the blow until the end of the turn, when he stands back up",
    ),
    DOWNED: Acting(attack=False, heal=False, why="is Down and unconscious and may do nothing"),
    STABILISED: Acting(
        attack=False,
        heal=False,
        why="is stabilised, still down and prone, and may do nothing except drink a healing "
        "potion himself",
    ),
    DEAD: Acting(attack=False, heal=False, why="is dead"),
}
"""Only the upright act. A stabilised warrior may drink a potion himself (`heal` of himself,
means `potion`); a recovered (stabilised) monster only defends itself."""
RECOVERED_MONSTER = (
    "has recovered only enough to defend itself: still down and prone, it may do nothing"
)

PROFILE = (
    "movement",
    "weapon_skill",
    "ballistic_skill",
    "strength",
    "toughness",
    "initiative",
    "attacks",
    "luck",
    "willpower",
    "intellectual_initiative",
    "ignore_pain",
    "battle_level",
)
CHANGED_STATS = (
    "movement",
    "weapon_skill",
    "ballistic_skill",
    "toughness",
    "initiative",
    "attacks",
    "willpower",
    "intellectual_initiative",
    "ignore_pain",
)
"""The profile stats the Serious Injuries change for good: each is also a counter of its own
name, its current value (None when not given: not tracked). `stats` stays as joined."""
MEANS = ("bandage", "provisions", "potion", "spell")
NEEDS_TREATMENT = ("bandage", "provisions")  # "bandages etc.": applied, so they may not work
TREATMENT_WORKS = 4  # "a 4+ must be rolled on a d6"
STABILISED_WOUNDS = 1  # "still down and prone, but on one wound"
STANDS_ON = 1  # What Doesn't Kill Me: "he stands straight back up on 1 wound"


# --- the tables, as the book prints them ----------------------------------------------------------

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


# --- the character ----------------------------------------------------------------------------


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


class Warrior(Character, frozen=True, kw_only=True):
    """A warrior or a monster. `stats` is the character as joined (`stats["wounds"]` his
    Starting Wounds then); `starting_wounds` and the profile stats below are their current
    values, as the injuries leave them."""

    wounds: int
    starting_wounds: int
    injuries: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()
    internal_bleeding: int = 0
    stronger: int = 0
    retired: bool = False
    this_turn: tuple[str, ...] = ()
    movement: int | None = None
    weapon_skill: int | None = None
    ballistic_skill: int | None = None
    toughness: int | None = None
    initiative: int | None = None
    attacks: int | None = None
    willpower: int | None = None
    intellectual_initiative: int | None = None
    ignore_pain: int | None = None


class Tables(NamedTuple):
    """The tables one fight plays with: the book's, or those its log carries."""

    downed: Table[str]
    serious_injuries: Table[str]


def replace(warrior: Warrior, **changes: Any) -> Warrior:
    return msgspec.structs.replace(warrior, **changes)


def half(starting_wounds: int) -> int:
    """Half his Starting Wounds, rounded up (integer arithmetic)."""
    return (starting_wounds + 1) // 2


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def injury_name(entry: str) -> str:
    """`Severed Leg (left)` -> `Severed Leg`."""
    return entry.partition(" (")[0]


def times_gained(warrior: Warrior, result: str) -> int:
    name = INJURIES[result].name
    return sum(1 for entry in warrior.injuries if injury_name(entry) == name)


def adjust(warrior: Warrior, changes: Mapping[str, int]) -> Warrior:
    """Permanent changes to the current value of the stats he has (one he was not given is
    not tracked), never below 0."""
    now: dict[str, int] = {}
    for stat, delta in changes.items():
        value = getattr(warrior, stat)
        if delta and value is not None:
            now[stat] = max(0, value + delta)
    return replace(warrior, **now) if now else warrior


def down(character: Warrior) -> bool:
    return character.state in (DOWNED, STABILISED, KNOCKED_DOWN)


def is_monster(character: Warrior) -> bool:
    return character.kind in MONSTERS


def prone_downed_monster(character: Warrior) -> bool:
    """A monster Down on the floor: unconscious (downed) or "Downed, but recovered"."""
    return is_monster(character) and character.state in (DOWNED, STABILISED)


def healer_stands(fight: FightState[Any], monster_id: str) -> bool:
    """A spellcasting monster capable of healing is on the board, upright, besides this one
    (on 0 wounds a healer heals nobody, itself included)."""
    return any(
        cid != monster_id and c.kind == HEALER_MONSTER and c.state == UPRIGHT
        for cid, c in fight.characters.items()
    )


def monsters_go_down(fight: FightState[Any], monster_id: str, options: Options) -> bool:
    """Monsters go Down while a healer monster stands; option `monsters_go_down` is the GM's
    word that they do whoever stands."""
    return bool(options["monsters_go_down"]) or healer_stands(fight, monster_id)


def uses_serious_injuries(
    fight: FightState[Any], cid: str, character: Warrior, options: Options
) -> bool:
    if not is_monster(character):
        return True
    return bool(options["monster_serious_injuries"]) and monsters_go_down(fight, cid, options)


# --- the Serious Injuries table -----------------------------------------------------------------


def d66(ctx: Context) -> int:
    """A D66: two d6 of purpose `serious_injury`, tens then units."""
    tens = ctx.roll("serious_injury")
    return 10 * tens + ctx.roll("serious_injury")


def serious_injury(warrior: Warrior, ctx: Context, tables: Tables) -> Warrior:
    """Reduced to zero wounds: one roll on the Serious Injuries table, and its result."""
    roll = d66(ctx)
    result = tables.serious_injuries[roll]
    if result == "decapitated":
        return decapitated(warrior, roll, ctx)
    if result == "what_doesnt_kill_me":
        return what_doesnt_kill_me(warrior, roll, ctx)
    return laid_down(suffer(warrior, result, roll, ctx), ctx)


def decapitated(warrior: Warrior, roll: int, ctx: Context) -> Warrior:
    """Dead at once, with no opportunity to roll on the Downed table."""
    ctx.say(f"Serious Injury {roll}: Decapitated: {warrior.name} is dead")
    dead = replace(warrior, injuries=(*warrior.injuries, INJURIES["decapitated"].name), stronger=0)
    return ctx.move(dead, "decapitate")


def what_doesnt_kill_me(warrior: Warrior, roll: int, ctx: Context) -> Warrior:
    """He shrugs off the blow: down until the end of the turn, then up on 1 wound, stronger."""
    ctx.say(
        f"Serious Injury {roll}: What Doesn't Kill Me: {warrior.name} shrugs it off and stands "
        "at the end of the turn"
    )
    rising = replace(warrior, stronger=warrior.stronger + 1)
    return rising if rising.state == KNOCKED_DOWN else ctx.move(rising, "shrug_off")


def laid_down(warrior: Warrior, ctx: Context) -> Warrior:
    """Any other result: Down and unconscious, and he may die at the end of the turn."""
    ctx.say(f"{warrior.name} is Down and unconscious")
    downed = replace(warrior, stronger=0)
    return downed if downed.state == DOWNED else ctx.move(downed, "go_down")


def suffer(warrior: Warrior, result: str, roll: int, ctx: Context) -> Warrior:
    """Gain the result: what it takes, its stat changes, and retirement if it cripples him."""
    injury = INJURIES[result]
    rolled = f"Serious Injury {roll}: {injury.name}"
    if result == "nothing_too_serious":
        ctx.say(rolled)
        return warrior
    if injury.once and times_gained(warrior, result):
        ctx.say(f"{rolled}, which he already has: Nothing Too Serious")
        return warrior
    hurt, detail = warrior, ""
    special = SPECIAL.get(result)
    if special is not None:
        done = special(warrior, ctx)
        if done is None:
            ctx.say(f"{rolled}, but he has nothing left for it to take: Nothing Too Serious")
            return warrior
        hurt, detail = done
    changes = {**injury.stats}
    for stat, delta in body_changes(warrior.lost, hurt.lost).items():
        changes[stat] = changes.get(stat, 0) + delta
    entry = injury.name + (f" ({detail})" if detail else "")
    ctx.say(f"Serious Injury {roll}: {entry}: {injury.effect}")
    hurt = adjust(replace(hurt, injuries=(*hurt.injuries, entry)), changes)
    return retire_if_crippled(hurt, ctx)


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


def internal_injury(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """His vitals bleed from the end of this turn until he is healed to half wounds."""
    return replace(warrior, internal_bleeding=warrior.internal_bleeding + 1), ""


def partial_paralysis(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """A second time he is fully paralysed; after that there is nothing more to take."""
    if times_gained(warrior, "partial_paralysis") >= 2:
        return None
    return warrior, "fully paralysed" if times_gained(warrior, "partial_paralysis") else ""


def horrible_scars(warrior: Warrior, ctx: Context) -> tuple[Warrior, str] | None:
    """Fear equal to 150% of his battle level, rounded up."""
    level = warrior.stats.get("battle_level")
    return warrior, "" if level is None else f"Fear {(3 * level + 1) // 2}"


SPECIAL: dict[str, Callable[[Warrior, Context], tuple[Warrior, str] | None]] = {
    "severed_leg": severed_leg,
    "severed_arm": severed_arm,
    "internal_injury": internal_injury,
    "eye_loss": eye_loss,
    "ear_loss": ear_loss,
    "severed_foot": severed_foot,
    "severed_hand": severed_hand,
    "severed_fingers": severed_fingers,
    "partial_paralysis": partial_paralysis,
    "horrible_scars": horrible_scars,
}
"""Results that take something or work something out; the rest only change stats."""


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
    ctx.say(f"{reason}: {warrior.name} must retire from adventuring")
    return replace(warrior, retired=True)


# --- hits -------------------------------------------------------------------------------------


def spare_the_fallen(fight: FightState[Any], target: Warrior, hit: Hit, ctx: Context) -> None:
    """Monsters will not attack a warrior who is down while there are upright warriors."""
    attacker = fight.characters.get(hit.attacker) if hit.attacker else None
    if attacker is None or not is_monster(attacker) or is_monster(target) or not down(target):
        return
    standing = [
        c.name for c in fight.characters.values() if c.kind == WARRIOR and c.state == UPRIGHT
    ]
    if standing:
        raise ctx.refuse(
            f"monsters do not attack {target.name} ({target.state}) while upright warriors "
            f"remain ({', '.join(standing)}): record the blow against one of them, or give no "
            "attacker if it was not a monster's attack",
            "$.target",
        )


def take_wounds(warrior: Warrior, damage: int, ctx: Context, tables: Tables) -> Warrior:
    """Wounds go down, never below 0; on 0 after the blow, a Serious Injury roll."""
    now = max(0, warrior.wounds - damage)
    if warrior.wounds == 0:
        ctx.say(f"{warrior.name} is hit for {damage} while on 0 wounds")
    else:
        ctx.say(f"{warrior.name} loses {plural(damage, 'wound')} ({warrior.wounds} -> {now})")
    hurt = replace(warrior, wounds=now)
    return hurt if now > 0 else serious_injury(hurt, ctx, tables)


def pinned_warrior(target: Warrior, hit: Hit, ctx: Context) -> None:
    """Warriors who are pinned may not attack prone, Downed monsters."""
    if hit.pinned and prone_downed_monster(target):
        raise ctx.refuse(
            f"a pinned warrior may not attack {target.name}, a prone, Downed monster "
            f"({target.state}): record his blow against a monster pinning him",
            "$.pinned",
        )


def wound_monster(monster: Warrior, damage: int, go_down: bool, ctx: Context) -> Warrior:
    """Monsters on zero wounds are dead, unless a healing spellcaster lets them go Down."""
    if monster.state == DOWNED:
        ctx.say(f"{monster.name} is wounded while down: dead")
        return ctx.move(monster, "slay")
    now = max(0, monster.wounds - damage)
    ctx.say(f"{monster.name} loses {plural(damage, 'wound')} ({monster.wounds} -> {now})")
    hurt = replace(monster, wounds=now)
    if now > 0:
        return hurt
    if go_down:
        ctx.say(f"{monster.name} goes Down (a monster that heals is on the board)")
        return hurt if hurt.state == DOWNED else ctx.move(hurt, "go_down")
    ctx.say(f"{monster.name} is dead")
    return ctx.move(hurt, "slay")


def coup_de_grace(fight: FightState[Any], monster: Warrior, hit: Hit, ctx: Context) -> Warrior:
    """One attack of a warrior who is not pinned, no roll to hit: a downed monster is killed
    outright."""
    if not is_monster(monster):
        raise ctx.refuse(
            f"a coup de grace is performed on a downed monster, and {monster.name} is a "
            "warrior: record an ordinary hit",
            "$.coup_de_grace",
        )
    if monster.state == STABILISED:
        raise ctx.refuse(
            f"{monster.name} has recovered its senses enough to defend itself: no coup de "
            "grace; attack it normally (it is prone: +2 to be hit)",
            "$.coup_de_grace",
        )
    if monster.state != DOWNED:
        raise ctx.refuse(
            f"{monster.name} is {monster.state}, not downed: a coup de grace needs a downed "
            "monster; record an ordinary hit",
            "$.coup_de_grace",
        )
    by_a_warrior(fight, hit, ctx)
    pinned_warrior(monster, hit, ctx)
    ctx.say(f"coup de grace: {monster.name} is dead")
    return ctx.move(replace(monster, wounds=0), "coup_de_grace")


def by_a_warrior(fight: FightState[Any], hit: Hit, ctx: Context) -> None:
    """Warriors may perform a coup de grace: a warrior of this fight, named as `attacker`."""
    attacker = fight.characters.get(hit.attacker) if hit.attacker else None
    if attacker is None:
        who = "no attacker is given" if not hit.attacker else f"`{hit.attacker}` is not a "
        who += "character of this fight" if hit.attacker else ""
        raise ctx.refuse(
            f"a coup de grace is performed by a warrior, and {who}: give as `attacker` the "
            "warrior who performs it",
            "$.attacker",
        )
    if is_monster(attacker):
        raise ctx.refuse(
            f"{attacker.name} is a monster: only warriors perform a coup de grace; record an "
            "ordinary hit (any wound kills a downed monster)",
            "$.attacker",
        )


# --- healing ----------------------------------------------------------------------------------


def check_means(target: Warrior, heal: Heal, ctx: Context) -> None:
    if heal.means and heal.means not in MEANS:
        raise ctx.refuse(
            f"no means `{heal.means}` in Warhammer Quest: use bandage or provisions (on a "
            "downed warrior they need a 4+ first), potion or spell (they do not); record "
            "another item as the one that works like it",
            "$.means",
        )
    if is_monster(target) and heal.means not in ("", "spell"):
        raise ctx.refuse(
            f"{target.name} is a monster: only a spellcaster's healing spell heals it "
            "(means `spell`)",
            "$.means",
        )


def treat_downed(warrior: Warrior, heal: Heal, ctx: Context, tables: Tables) -> Warrior:
    """Healing a Downed warrior: bandages and the like must work (4+), then a Downed roll at
    +1 for every healing item or spell used; 6 or more stabilises him."""
    items = 1 if heal.items is None else heal.items
    means = heal.means or ("spell" if is_monster(warrior) else "")
    if not means:
        raise ctx.refuse(
            f"{warrior.name} is downed: say what is used on him (--means bandage or "
            "provisions, which need a 4+ first, or potion or spell)",
            "$.means",
        )
    if items < 1:
        raise ctx.refuse(
            f"healing {warrior.name} uses at least one item or spell: give `items` of 1 or more",
            "$.items",
        )
    if heal.amount:
        ctx.say(
            f"{warrior.name} is downed: the {plural(heal.amount, 'wound')} healed are not gained"
        )
    if means in NEEDS_TREATMENT and not is_monster(warrior):
        roll = ctx.roll("treatment")
        if roll < TREATMENT_WORKS:
            ctx.say(f"treatment {roll}: {means} not effective")
            ctx.say(f"{warrior.name} rolls on the Downed table at the end of the turn")
            return warrior
        ctx.say(f"treatment {roll}: {means} effective")
    natural = ctx.roll("downed")
    total = natural + items
    rolled = f"Downed {natural}+{items}={total}"
    if natural == 1 and ctx.options["healing_natural_one_kills"]:
        ctx.say(f"{rolled}: a natural 1, the healing goes horribly wrong: {warrior.name} dies")
        return ctx.move(warrior, "succumb")
    if tables.downed[min(total, 6)] == "stabilised":
        ctx.say(f"{rolled}: {warrior.name} is stabilised on 1 wound")
        return ctx.move(replace(warrior, wounds=STABILISED_WOUNDS), "stabilise")
    ctx.say(f"{rolled}: still unconscious")
    ctx.say(f"{warrior.name} rolls on the Downed table at the end of the turn")
    return warrior


def heal_wounds(warrior: Warrior, amount: int, ctx: Context) -> Warrior:
    """Wounds come back as normal, up to his Starting Wounds; half of them stands him up."""
    if amount == 0:
        ctx.say(f"{warrior.name} heals nothing")
        return warrior
    starting = warrior.starting_wounds
    now = min(starting, warrior.wounds + amount)
    said = f"{warrior.name} heals {amount} ({warrior.wounds} -> {now})"
    if warrior.wounds + amount > starting:
        said += f"; {warrior.wounds + amount - starting} above his Starting Wounds are lost"
    ctx.say(said)
    healed = replace(warrior, wounds=now)
    if healed.state == STABILISED and now >= half(starting):
        ctx.say(f"{warrior.name} is back on his feet (at least half his Starting Wounds)")
        healed = ctx.move(healed, "get_up")
    return healed


def stop_bleeding(warrior: Warrior, ctx: Context) -> Warrior:
    """Internal Injury stops once healing has brought him to at least half wounds."""
    if not warrior.internal_bleeding or warrior.wounds < half(warrior.starting_wounds):
        return warrior
    ctx.say(f"{warrior.name}'s Internal Injury stops bleeding")
    return replace(warrior, internal_bleeding=0)


# --- the turn ---------------------------------------------------------------------------------


def whole_turn(turn: TurnStarted | TurnEnded) -> bool:
    return turn.side is None and turn.character is None


def start_of_turn(warrior: Warrior, ctx: Context, tables: Tables) -> Warrior:
    """Head wounds roll for the upright; Recurring Pains for the upright and the stabilised."""
    effects: list[str] = []
    if warrior.state == UPRIGHT:
        for purpose, table in MIND_INJURIES:
            if times_gained(warrior, purpose):
                roll = ctx.roll(purpose)
                effect = table[roll]
                ctx.say(f"{warrior.name}: {purpose} {roll}: {effect or 'no effect'}")
                if effect:
                    effects.append(f"{purpose}: {effect}")
    if warrior.state in (UPRIGHT, STABILISED) and times_gained(warrior, "recurring_pains"):
        warrior = recurring_pains(warrior, ctx, tables, effects)
    if tuple(effects) != warrior.this_turn:
        warrior = replace(warrior, this_turn=tuple(effects))
    return warrior


def recurring_pains(warrior: Warrior, ctx: Context, tables: Tables, effects: list[str]) -> Warrior:
    """On a 1, 1d3 wounds with no modifiers, and -1 Toughness for the turn."""
    roll = ctx.roll("recurring_pains")
    if not RECURRING_PAINS[roll]:
        ctx.say(f"{warrior.name}: recurring_pains {roll}: no effect")
        return warrior
    pain = ctx.roll("recurring_pains_wounds")
    ctx.say(f"{warrior.name}: recurring_pains {roll}: {plural(pain, 'wound')}")
    effects.append("recurring_pains: -1 Toughness this turn")
    return take_wounds(warrior, pain, ctx, tables)


def end_of_turn(warrior: Warrior, ctx: Context, tables: Tables) -> Warrior:
    """In order: a knocked-down warrior stands, a downed one rolls, an Internal Injury bleeds."""
    if warrior.state == KNOCKED_DOWN:
        warrior = stand_back_up(warrior, ctx)
    elif warrior.state == DOWNED:
        warrior = downed_roll(warrior, ctx, tables)
    if warrior.internal_bleeding and warrior.state != DEAD:
        warrior = internal_injury_bleeds(warrior, ctx)
    return replace(warrior, this_turn=()) if warrior.this_turn else warrior


def stand_back_up(warrior: Warrior, ctx: Context) -> Warrior:
    """What Doesn't Kill Me: up on 1 wound, +1d3 Starting Wounds for each 66 owed."""
    gained = sum(ctx.roll("starting_wounds") for _ in range(warrior.stronger))
    starting = warrior.starting_wounds + gained
    wounds = max(STANDS_ON, warrior.wounds)
    ctx.say(
        f"{warrior.name} stands back up on {plural(wounds, 'wound')}, "
        f"+{gained} Starting Wounds ({warrior.starting_wounds} -> {starting})"
    )
    up = replace(warrior, starting_wounds=starting, wounds=wounds, stronger=0)
    return ctx.move(up, "stand_back_up")


def downed_roll(warrior: Warrior, ctx: Context, tables: Tables) -> Warrior:
    """The Downed table at the end of the turn: he dies, stays unconscious, or stabilises."""
    roll = ctx.roll("downed")
    result = tables.downed[roll]
    if result == "dead":
        ctx.say(f"{warrior.name}: Downed {roll}: succumbs to his wounds")
        return ctx.move(warrior, "succumb")
    if result == "stabilised":
        ctx.say(f"{warrior.name}: Downed {roll}: stabilised on 1 wound")
        return ctx.move(replace(warrior, wounds=STABILISED_WOUNDS), "stabilise")
    ctx.say(f"{warrior.name}: Downed {roll}: unconscious")
    return warrior


def internal_injury_bleeds(warrior: Warrior, ctx: Context) -> Warrior:
    """Internal Injury: -1d3 Starting Wounds for good (for each one); at 0 he is dead."""
    loss = sum(ctx.roll("internal_injury") for _ in range(warrior.internal_bleeding))
    starting = max(0, warrior.starting_wounds - loss)
    ctx.say(
        f"{warrior.name}'s Internal Injury: -{loss} Starting Wounds "
        f"({warrior.starting_wounds} -> {starting})"
    )
    bled = replace(
        warrior,
        starting_wounds=starting,
        wounds=min(warrior.wounds, starting),
    )
    if starting > 0:
        return bled
    ctx.say(f"{warrior.name} bleeds out: dead")
    return ctx.move(bled, "bleed_out")


# --- the ruleset ------------------------------------------------------------------------------


class WarhammerQuest(Ruleset):
    name = "warhammer_quest"
    graph = Graph(name, STATES, TRANSITIONS)
    character = Warrior
    dice_hints: ClassVar[dict[str, str]] = {
        "serious_injury": "a D66 is two d6, tens then units: give 34 as [3, 4]"
    }
    dice: ClassVar[dict[str, int]] = {
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
    stats: ClassVar[dict[str, int | None]] = {"wounds": None}
    optional_stats = PROFILE
    who_may_act = WHO_MAY_ACT
    kinds = (WARRIOR, MONSTER, HEALER_MONSTER)
    hit_facts = frozenset({"coup_de_grace", "pinned"})
    heal_facts = frozenset({"items"})
    options: ClassVar[Options] = {
        "healing_natural_one_kills": False,
        "monsters_go_down": False,
        "monster_serious_injuries": False,
    }
    tables: ClassVar[dict[str, Any]] = {
        "downed": DOWNED_TABLE,
        "serious_injuries": SERIOUS_INJURIES_TABLE,
    }

    def played_tables(self, fight: FightState[Any]) -> Tables:
        downed: DownedTable = self.table(fight, "downed")
        serious: SeriousInjuryTable = self.table(fight, "serious_injuries")
        return Tables(downed.ranges(), serious.ranges())

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> Warrior:
        if stats["wounds"] < 1:
            raise ctx.refuse("Starting Wounds are at least 1", "$.stats.wounds")
        side = "monsters" if kind in MONSTERS else "warriors"
        joined = Warrior(
            **self.basics(event, kind, stats, side=side),
            wounds=stats["wounds"],
            starting_wounds=stats["wounds"],
        )
        current = {stat: stats[stat] for stat in CHANGED_STATS if stat in stats}
        return replace(joined, **current) if current else joined

    def why_attacker_cannot(
        self, fight: FightState[Any], attacker_id: str, attacker: Warrior, hit: Hit
    ) -> str | None:
        if is_monster(attacker) and attacker.state == STABILISED:
            return RECOVERED_MONSTER
        return super().why_attacker_cannot(fight, attacker_id, attacker, hit)

    def why_healer_cannot(
        self, fight: FightState[Any], healer_id: str, healer: Warrior, heal: Heal
    ) -> str | None:
        if healer.state == STABILISED:
            if is_monster(healer):
                return RECOVERED_MONSTER
            if heal.target == healer_id and heal.means == "potion":
                return None  # "except drink healing potions if he has them"
        return super().why_healer_cannot(fight, healer_id, healer, heal)

    def on_hit(self, fight: FightState[Any], target: Warrior, hit: Hit, ctx: Context) -> Warrior:
        if target.state == DEAD:
            raise ctx.refuse(
                f"{target.name} is dead; if that was a mistake, retract or amend the event "
                "that killed him"
            )
        if hit.coup_de_grace:
            return coup_de_grace(fight, target, hit, ctx)
        spare_the_fallen(fight, target, hit, ctx)
        pinned_warrior(target, hit, ctx)
        if hit.damage == 0:
            ctx.say(f"{target.name}: no wound")
            return target
        if not uses_serious_injuries(fight, hit.target, target, ctx.options):
            go_down = monsters_go_down(fight, hit.target, ctx.options)
            return wound_monster(target, hit.damage, go_down, ctx)
        return take_wounds(target, hit.damage, ctx, self.played_tables(fight))

    def on_heal(self, fight: FightState[Any], target: Warrior, heal: Heal, ctx: Context) -> Warrior:
        if target.state == DEAD:
            raise ctx.refuse(
                f"{target.name} is dead: only Divine Intervention or a magical item brings "
                "him back, and woundlog has no rule for that; if the death was a mistake, "
                "retract or amend the event that killed him"
            )
        check_means(target, heal, ctx)
        if target.state == DOWNED:
            # the wounds healed to stabilise him are not gained: they stop no bleeding
            return treat_downed(target, heal, ctx, self.played_tables(fight))
        healed = heal_wounds(target, heal.amount, ctx)
        return stop_bleeding(healed, ctx) if heal.amount else healed

    def on_turn_started(
        self, fight: FightState[Any], turn: TurnStarted, ctx: Context
    ) -> dict[str, Warrior]:
        if not whole_turn(turn):
            ctx.say("not the start of the turn (that is a turn_started with no side or character)")
            return {}
        tables = self.played_tables(fight)
        updated = each(fight, lambda cid, w: start_of_turn(w, ctx.for_character(cid), tables))
        if not ctx.said:
            ctx.say("start of the turn: no injury acts")
        return updated

    def on_turn_ended(
        self, fight: FightState[Any], turn: TurnEnded, ctx: Context
    ) -> dict[str, Warrior]:
        if not whole_turn(turn):
            ctx.say("not the end of the turn (that is a turn_ended with no side or character)")
            return {}
        tables = self.played_tables(fight)
        updated = each(fight, lambda cid, w: end_of_turn(w, ctx.for_character(cid), tables))
        if not ctx.said:
            ctx.say("end of the turn: nobody is down")
        return updated


def each(fight: FightState[Any], step: Callable[[str, Warrior], Warrior]) -> dict[str, Warrior]:
    """`step` for every character, in join order; those it changed."""
    updated: dict[str, Warrior] = {}
    for cid, character in fight.characters.items():
        after = step(cid, character)
        if after is not character:
            updated[cid] = after
    return updated


def book() -> str:
    """Who may act and the two tables, as this module declares them, for `woundlog rules
    warhammer_quest`."""
    lines = ["Who may act (a state not listed, upright, may attack and heal):"]
    rows = [(state, acting.describe()) for state, acting in WHO_MAY_ACT.items()]
    rows.append(
        (
            "",
            "(a stabilised warrior may still give himself a potion; a stabilised "
            f"monster {RECOVERED_MONSTER})",
        )
    )
    for state, said in rows:
        row = f"{state:<13} {said}"
        lines.append(textwrap.fill(row, 96, initial_indent="  ", subsequent_indent=" " * 16))
    lines.append("The Downed table (D6; a heal that works adds +1 per item or spell):")
    lines += [f"  {key:<6} {result}" for key, result in DOWNED_TABLE.rows.items()]
    lines.append("The Serious Injuries table (D66; * gained once, a repeat is Nothing Too Serious;")
    lines.append("[the name a table in a fight's log gives the result]):")
    for key, result in SERIOUS_INJURIES_TABLE.rows.items():
        injury = INJURIES[result]
        row = f"{key:<6} {injury.name}{'*' if injury.once else ''} [{result}]: {injury.effect}"
        lines.append(textwrap.fill(row, 96, initial_indent="  ", subsequent_indent=" " * 9))
    return "\n".join(lines)


__doc__ = f"{__doc__}\n{book()}\n"

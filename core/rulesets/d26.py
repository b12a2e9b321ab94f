"""d26: Fatigued at 0 HP, injuries by location, The Last Stand and Hold on to Life.

The injury thresholds on the damage taken at 0 HP, the 1d4 injury location, Severe Injuries and
their escalation, Fatal Injuries and the choice they bring, the hold_on die, agony and the Heal
check, and the npc and legendary enemy rules.

States in this game:
  upright     fighting. Also at 0 HP (Fatigued) and with Severe Injuries: those limit what a
              character does, they do not stop the fight.
  downed      suffering a Fatal Injury, incapacitated: first awaiting the choice (The Last Stand
              or Hold on to Life), then holding on to life, perhaps in agony.
  stabilised  held on and was stabilised (a 6 on the hold_on die, or another's Heal check): no
              longer risks death, still incapacitated at 0 HP until healed above it.
  dead        after The Last Stand, after agony ran out, after a Fatal Injury to someone already
              incapacitated by one, or an npc at 0 HP. Final: nothing leaves it.
  (knocked_down, stunned and out_of_action are not used.)

Stats: `hp` (required, at least 1): the character's Hit Points, also the most healing restores.
Kinds: `pc` (default) and `legendary` use the injury rules; `npc` simply dies at 0 HP.
Counters: `hp`; `fatigued`; `injuries` ("severe arm", "fatal head", ... in the order suffered);
`fate` (`undecided`, `hold_on` or `last_stand` once a Fatal Injury strikes, else none);
`fatal_location` (where the Fatal Injury that downed them is); `agony` (round ends left before
an agonised character dies: 2 when the 1 is rolled, 0 when not in agony); `last_stand_at` (the
position, #N, of the `last_stand` choice: its one action is the event right after it).

Who may act (a `hit`'s `attacker`, a `heal`'s `healer`): upright characters, Fatigued or
Severely Injured, attack and heal. Downed (incapacitated by a Fatal Injury), stabilised (still
incapacitated at 0 HP) and dead characters may do neither; a blow or heal they are named in is
refused ("Kael is incapacitated by a Fatal Injury and may not act"). The one exception is The
Last Stand's Main Action: see the decisions.

Dice: `location` (d4) for every injury: 1 arm, 2 leg, 3 internal, 4 head. `hold_on` (d6) at the
end of each own turn while holding on to life: 1 agony, 6 stabilised. At a turn end the die is
each character's own (`hold_on@mira`).

Facts: on a hit, `hit_strength` (read for legendary targets, and checked on The Last Stand's
blow); on a heal, `check` (the total of a Heal check, means `heal_check`). Heal means: `rest`
removes Fatigued; `heal_check` stabilises a downed character at Difficulty 15, or 18 when the
Fatal Injury is to the head; any other means (potion, spell, none) restores HP and nothing
else. Options: none besides strict_dice.

Tables: `severe_injuries`, what a Severe Injury limits at each location. This text names those
limits but does not print them: the default is a STAND-IN (its `source` says so and each entry
starts "stand-in:"). Give the book's own in `fight_started.tables.severe_injuries`
(`woundlog new --tables FILE.toml`, keys `arm`, `leg`, `internal`, `head`, optional `source`).
The injury thresholds, the location die and the Heal check difficulties are printed in the text
and are fixed.

Luck (a report's order of harm): the state, then Fatal and Severe Injuries, Fatigued, HP.

Campaigns (`BETWEEN_FIGHTS`): Severe Injuries stay until a `treatment` heals them and Fatigued
stays until a `rest` ("lasts until removed, for example by rest"). Decisions: the text gives no
healing time, so HP return between fights, a Severe Injury heals when the GM records its
treatment, and `time_passed` heals nothing. A member joining the next fight brings their
injuries and Fatigue (`character_joined.injuries`, `conditions`), and this fight's rules read
them: another Severe Injury to a location they already have escalates to a Fatal Injury, and
they join Fatigued, at full HP, until a `rest` (in the fight, or between fights) removes it;
the fight's end says whether they are still Fatigued.

Decisions where the text is silent or ambiguous:
- Damage. A hit's `damage` is taken after Dodge, Block and every other reduction. Above 0 HP it
  only lowers HP. The blow that reaches 0 checks what is left over (a blow landing exactly on 0
  checks 0: no effect); at 0 HP every hit that deals damage checks all of it; a hit of 0 damage
  checks nothing. One check per hit, so at most one injury per hit.
- Healing at 0 HP while Fatigued. "Further harm no longer reduces HP" is read with "while at
  0 HP": HP never go below 0. Healing works as usual: HP rise (never above the `hp` stat),
  Fatigued stays (only means `rest` removes it), above 0 HP harm lowers HP again, and the next
  blow that takes them back to 0 checks its excess again.
- Escalation. Two Severe Injuries to one location make a Fatal Injury there; "arm" is one
  location, so any two arm injuries escalate. Only an earlier Severe Injury escalates, not an
  earlier Fatal one.
- The choice. A Fatal Injury leaves the character downed with fate `undecided`. `last_stand`:
  they are dead from the choice on, beyond saving, and gain one Main Action, an automatic
  success. It is taken "immediately": it is the event right after the choice (a `hit` with them
  as `attacker`, or a `heal` with them as `healer`), and only that one; any other event in
  between (an undo too) lets the moment pass. Correct a mistaken Last Stand action with an
  `amend` in place, not a retract and a new event. The attack hits at Hit Strength 3, which the
  enemy may reduce only to 2: a `hit_strength` below 2 is refused, and on a legendary target a
  Last Stand blow that gives none is read at Hit Strength 3. A Heal check as the Last Stand's
  action stabilises without a `check` (no die roll needed). `hold_on`: they stay downed and
  start rolling. A second `hold_on` is refused (Hold on to Life is chosen once).
- A turn that ends before the choice is made (any `turn_ended`: a character's, a side's or the
  round's) settles it as Hold on to Life: The Last Stand is taken immediately or not at all, and
  a later `last_stand` is refused. If that turn end is the character's own (their character's
  or their side's), they roll their first hold_on die at once. A `turn_started` changes nothing
  in d26.
- Own turns. The hold_on die is rolled at the end of the character's own turn: a `turn_ended`
  with their `character`, or with their `side` (a side's turn end ends the turn of every member
  of the side; each rolls their own die, `hold_on@cid`). A log records a character's turn end
  once, by character or by side, not both. A round's end (neither side nor character) is the
  end of the round, not of a turn: it rolls no hold_on die, only counts agony down (a log that
  ticks only rounds must record the dying character's turn ends for them to roll). The die
  keeps being rolled after agony: a 6 still stabilises; a further 1 changes nothing (the
  deadline neither resets nor comes sooner).
- Agony timing. The character dies at the second round end (a `turn_ended` with no side and no
  character) after the 1: the first ends the round of the 1, the second ends the next round.
  Stabilised before it, they live. A side's turn end is not a round end.
- The Heal check that stabilises is "another character's": it needs a `healer`, who is not the
  dying character and who may act (upright, or on their Last Stand); a healer who is not a
  character of the fight (a passing priest) is accepted and named as such. Refused on a downed
  character who has not chosen yet (record the choice first), without a `healer`, and without
  its `check` total. Its `amount` is healed whatever the result. A `check` given with another
  means is refused rather than silently ignored. On a character who is not dying, a Heal check
  is ordinary healing.
- Hits on a downed or stabilised character use the 0 HP thresholds (on the excess, if healed
  above 0 meanwhile). Severe Injuries are recorded and escalate; a Fatal Injury kills: they are
  already incapacitated by one (this is how a fallen foe is finished off).
- Standing up. A stabilised character stands (upright, still Fatigued) when healed above 0 HP.
  Healing a downed character raises HP but does not stop the dying; if they are then stabilised
  while above 0 HP (a Heal check that also restores HP, or a 6 after a potion) they stand at
  once. A dying character cannot rest. The dead can be neither hit nor healed.
- `npc`: at 0 HP simply dead: not Fatigued, no injury check, no location die, no choice. An
  enemy's "Last Stand before they fall" is the GM's call: record its final strike as a hit
  before the blow that kills it (a dead npc may not act, and has no choice to make).
- `legendary`: the injury rules of a pc, the choice included. When the hit gives `hit_strength`,
  it replaces the damage thresholds in the injury check: 0 no effect, 1-2 Severe, 3 (or more)
  Fatal; without it the thresholds apply. Hit Strength does not injure above 0 HP. On a pc or an
  npc it is not read (damage decides) and the explanation says so.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec

from woundlog.events import CharacterJoined, Choice, Heal, Hit, TurnEnded, TurnStarted
from woundlog.events.importers.rules import ImportRules

from ..fight_state import Character, FightState, TickConcern
from ..machine import Graph
from ..permanence import Permanence, heal_removes_injury, lasts, rest_clears_conditions
from ..presentation import Presentation
from ..ruleset import Acting, Context, Ruleset
from ..states import DEAD, DOWNED, HARM, STABILISED, UPRIGHT, State
from ..tables import Table
from ..turns import PULSE_VERSION, whole

TRANSITIONS = [
    ("fatal_injury", UPRIGHT, DOWNED),  # incapacitated, awaiting the choice
    ("last_stand", DOWNED, DEAD),  # the one last action resolved: dies, beyond saving
    ("die_in_agony", DOWNED, DEAD),  # the end of the next round came before stabilising
    ("stabilise", DOWNED, STABILISED),  # a 6 on the hold_on die, or a Heal check
    ("stand_up", STABILISED, UPRIGHT),  # healed above 0 HP
    ("stabilise_and_stand", DOWNED, UPRIGHT),  # stabilised while already above 0 HP
    ("another_fatal_injury", [DOWNED, STABILISED], DEAD),  # a Fatal Injury to the incapacitated
    ("npc_dies", UPRIGHT, DEAD),  # an npc at 0 HP simply dies
]

WHO_MAY_ACT: dict[State, Acting] = {
    DOWNED: Acting(
        attack=False, heal=False, why="is incapacitated by a Fatal Injury and may not act"
    ),
    STABILISED: Acting(
        attack=False,
        heal=False,
        why="is stabilised but still incapacitated, until healed above 0 HP, and may not act",
    ),
    DEAD: Acting(attack=False, heal=False, why="is dead and may not act"),
}
"""Upright characters act, at 0 HP too; the Last Stand's one action is the exception (see
`D26.why_attacker_cannot`)."""

PC, NPC, LEGENDARY = "pc", "npc", "legendary"
NO_EFFECT, SEVERE, FATAL = "no effect", "severe", "fatal"
ARM, LEG, INTERNAL, HEAD = "arm", "leg", "internal", "head"
REST, HEAL_CHECK = "rest", "heal_check"
HOLDS, AGONY, STABILISES = "holds on", "agony", "stabilises"

PRESENTATION = Presentation(pools=("hp",), gm_kinds=(NPC, LEGENDARY), units={"hp": "HP"})
"""Characters live by their HP; npc and legendary enemies are the GM's."""
IMPORTING = ImportRules(stat="hp", kinds=(PC, NPC), sides=("players", "monsters"))
"""Another program's hit points are HP; its player characters join as `pc`, anyone else as
`npc` (an enemy of the rules' simplest kind: the GM makes a `legendary` one by hand)."""

Fate = Literal["undecided", "hold_on", "last_stand"]
UNDECIDED: Fate = "undecided"
HOLD_ON: Fate = "hold_on"
LAST_STAND: Fate = "last_stand"
CHOICES: tuple[Fate, ...] = (LAST_STAND, HOLD_ON)

INJURY_THRESHOLDS = Table(
    "damage at 0 HP", {(0, 2): NO_EFFECT, (3, 5): SEVERE, (6, 6): FATAL}, range(0, 7)
)
"""Damage taken at 0 HP, or left over from the blow that dropped you; the last row is 6+."""

LEGENDARY_HIT_STRENGTH = Table(
    "Hit Strength", {(0, 0): NO_EFFECT, (1, 2): SEVERE, (3, 3): FATAL}, range(0, 4)
)
"""A legendary enemy's injury by the blow's Hit Strength; the last row is 3 and above."""

INJURY_LOCATION = Table(
    "1d4", {(1, 1): ARM, (2, 2): LEG, (3, 3): INTERNAL, (4, 4): HEAD}, range(1, 5)
)
INJURY_NAME = {
    ARM: "Arm Injury",
    LEG: "Leg Injury",
    INTERNAL: "Internal Injury",
    HEAD: "Head Injury",
}

HOLD_ON_TO_LIFE = Table("1d6", {(1, 1): AGONY, (2, 5): HOLDS, (6, 6): STABILISES}, range(1, 7))

LAST_STAND_HIT_STRENGTH = 3
LAST_STAND_LEAST_HIT_STRENGTH = 2
"""The Last Stand's attack hits at Hit Strength 3; the enemy may reduce it only to 2."""

HEAL_CHECK_DIFFICULTY = 15
HEAD_INJURY_HEAL_CHECK_DIFFICULTY = 18
AGONY_ROUND_ENDS = 2
"""The end of the round of the 1, then the end of the next round: death."""


class SevereInjuries(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a Severe Injury limits, by location (a table a fight's log may replace)."""

    arm: str
    leg: str
    internal: str
    head: str
    source: str = ""


SEVERE_INJURIES_STAND_IN = SevereInjuries(
    source=(
        "STAND-IN: this text says Severe Injuries limit a character's actions but does not print "
        "how; give the book's table in fight_started.tables.severe_injuries"
    ),
    arm="stand-in: actions with the injured arm are limited; the book says how",
    leg="stand-in: movement is limited; the book says how",
    internal="stand-in: exertion is limited; the book says how",
    head="stand-in: perception and focus are limited; the book says how",
)


class Combatant(Character, frozen=True, kw_only=True):
    hp: int
    fatigued: bool = False
    injuries: tuple[str, ...] = ()
    fate: Fate | None = None
    fatal_location: str | None = None
    agony: int = 0
    last_stand_at: int | None = None


# --- a hit: HP, Fatigued, the injury check ------------------------------------------------------


def lose_hp(target: Combatant, damage: int) -> tuple[int, int | None]:
    """HP after the hit (never below 0), and the damage the injury check reads: what is left
    after the blow that reaches 0, or all of a damaging hit at 0 HP; None when there is no check."""
    if damage == 0:
        return target.hp, None
    if target.hp == 0:
        return 0, damage
    if damage >= target.hp:
        return 0, damage - target.hp
    return target.hp - damage, None


def injury_check(target: Combatant, strength: int | None, checked: int) -> tuple[str, str]:
    """No effect, Severe or Fatal, and what decided it: the damage thresholds, or a legendary
    enemy's Hit Strength when the blow has one."""
    if target.kind == LEGENDARY and strength is not None:
        return LEGENDARY_HIT_STRENGTH[min(strength, 3)], f"Hit Strength {strength}"
    reading = f"{checked} left over" if target.hp > 0 else ""
    return INJURY_THRESHOLDS[min(checked, 6)], reading


def injury_location(ctx: Context) -> tuple[int, str]:
    """Every injury rolls 1d4 for its location."""
    roll = ctx.roll("location")
    return roll, INJURY_LOCATION[roll]


def severe_injury(
    target: Combatant, location: str, effects: SevereInjuries
) -> tuple[Combatant, str]:
    """Recorded with its location; the character keeps fighting, limited as the table says."""
    injured = msgspec.structs.replace(target, injuries=(*target.injuries, f"{SEVERE} {location}"))
    return injured, f"Severe Injury: {INJURY_NAME[location]} ({getattr(effects, location)})"


def fatal_injury(target: Combatant, location: str, ctx: Context) -> tuple[Combatant, str]:
    """Downed, awaiting the choice; someone already incapacitated by one dies of a second."""
    hurt = msgspec.structs.replace(target, injuries=(*target.injuries, f"{FATAL} {location}"))
    said = f"Fatal Injury: {INJURY_NAME[location]}"
    if target.state in (DOWNED, STABILISED):
        fate = None if target.fate == UNDECIDED else target.fate  # no choice is awaited now
        dead = ctx.move(msgspec.structs.replace(hurt, agony=0, fate=fate), "another_fatal_injury")
        return dead, f"{said}; already incapacitated by a Fatal Injury, {target.name} dies"
    downed = msgspec.structs.replace(hurt, fate=UNDECIDED, fatal_location=location)
    return ctx.move(downed, "fatal_injury"), (
        f"{said}: {target.name} is downed; choose `last_stand` or `hold_on`"
    )


def suffer_injury(
    target: Combatant, severity: str, effects: SevereInjuries, ctx: Context
) -> tuple[Combatant, str]:
    """Roll the location; a second Severe Injury to the same location escalates to Fatal."""
    roll, location = injury_location(ctx)
    said = f"location d4={roll} {location}"
    if severity == SEVERE and f"{SEVERE} {location}" in target.injuries:
        severity = FATAL
        said += f", a second Severe Injury to the {location} escalates"
    if severity == SEVERE:
        injured, what = severe_injury(target, location, effects)
    else:
        injured, what = fatal_injury(target, location, ctx)
    return injured, f"{said}: {what}"


# --- the choice -------------------------------------------------------------------------------


def the_last_stand(character: Combatant, at: int, ctx: Context) -> Combatant:
    """One Main Action, at once, an automatic success; then death, beyond saving."""
    ctx.say(
        "{character.name} makes a Last Stand: one Main Action, an automatic success (an attack "
        "hits at Hit Strength 3, reducible only to 2), recorded as the very next event (a hit or "
        "a heal by them); then they die and cannot be saved",
        character=character,
    )
    chosen = msgspec.structs.replace(character, fate=LAST_STAND, last_stand_at=at)
    return ctx.move(chosen, "last_stand")


def making_last_stand(fight: FightState[Any], cid: str | None) -> bool:
    """Whether `cid` is taking The Last Stand's one action: the event right after the choice."""
    character = None if cid is None else fight.characters.get(cid)
    return (
        isinstance(character, Combatant)
        and character.fate == LAST_STAND
        and character.last_stand_at == fight.seq
    )


def last_stand_strength(hit: Hit, ctx: Context) -> int:
    """Hit Strength 3, which the enemy may reduce only to 2."""
    if hit.hit_strength is None:
        return LAST_STAND_HIT_STRENGTH
    if hit.hit_strength < LAST_STAND_LEAST_HIT_STRENGTH:
        raise ctx.refuse(
            f"The Last Stand hits at Hit Strength {LAST_STAND_HIT_STRENGTH}, which the enemy "
            f"may reduce only to {LAST_STAND_LEAST_HIT_STRENGTH}, not {hit.hit_strength}",
            "$.hit_strength",
        )
    return hit.hit_strength


def hold_on_to_life(character: Combatant, ctx: Context, *, why: str = "") -> Combatant:
    difficulty = heal_check_difficulty(character)
    ctx.say(
        "{character.name} holds on to life{why}: incapacitated, rolls the hold_on die at the end "
        "of each of their turns (1 agony, 6 stabilised); a Heal check of {difficulty} stabilises",
        character=character,
        why=why,
        difficulty=difficulty,
    )
    return msgspec.structs.replace(character, fate=HOLD_ON)


# --- end of a turn: the hold_on die and agony ----------------------------------------------------


def stabilised(character: Combatant, ctx: Context) -> Combatant:
    """No longer risks death; one already above 0 HP stands at once."""
    calm = msgspec.structs.replace(character, agony=0)
    if character.hp > 0:
        return stood_up(ctx.move(calm, "stabilise_and_stand"))
    return ctx.move(calm, "stabilise")


def stood_up(character: Combatant) -> Combatant:
    return msgspec.structs.replace(character, fate=None, fatal_location=None)


def hold_on_roll(character: Combatant, ctx: Context) -> Combatant:
    """At the end of each of their turns: on a 1 agony, on a 6 they stabilise on their own."""
    roll = ctx.roll("hold_on")
    result = HOLD_ON_TO_LIFE[roll]
    said = f"{character.name} rolls {roll} to hold on to life"
    if result == STABILISES:
        after = stabilised(character, ctx)
        ctx.say(
            f"{said}: stabilises on their own" + (" and stands" if after.state == UPRIGHT else "")
        )
        return after
    if result == AGONY and character.agony == 0:
        ctx.say("{said}: agony, dies at the end of the next round unless stabilised", said=said)
        return msgspec.structs.replace(character, agony=AGONY_ROUND_ENDS)
    if result == AGONY:
        ctx.say("{said}: still in agony, the deadline stands", said=said)
        return character
    ctx.say("{said}: holds on", said=said)
    return character


def round_ends_in_agony(character: Combatant, ctx: Context) -> Combatant:
    """One round end closer to death; at the end of the next round, death."""
    left = character.agony - 1
    if left == 0:
        ctx.say(
            "{character.name} dies in agony: the next round ended before they were stabilised",
            character=character,
        )
        return ctx.move(msgspec.structs.replace(character, agony=0), "die_in_agony")
    ctx.say(
        "{character.name} is in agony: dies at the end of this round unless stabilised",
        character=character,
    )
    return msgspec.structs.replace(character, agony=left)


def end_of_turn(
    character: Combatant, ctx: Context, *, own: bool, round_ended_before: bool, round_ends: bool
) -> Combatant:
    """The end of a round the log moved on from, the lapsed choice, then (the tick ends their
    own turn) the hold_on die, then (the tick ends the round) agony."""
    after = character
    if after.state == DOWNED and after.agony and round_ended_before:
        after = round_ends_in_agony(after, ctx)
    if after.state == DOWNED and after.fate == UNDECIDED:
        after = hold_on_to_life(after, ctx, why=" (the turn ended before a choice)")
    if after.state == DOWNED and after.fate == HOLD_ON and own:
        after = hold_on_roll(after, ctx)
    if after.state == DOWNED and after.agony and round_ends:
        after = round_ends_in_agony(after, ctx)
    return after


# --- healing ------------------------------------------------------------------------------------


def heal_check_difficulty(character: Combatant) -> int:
    if character.fatal_location == HEAD:
        return HEAD_INJURY_HEAL_CHECK_DIFFICULTY
    return HEAL_CHECK_DIFFICULTY


def restore_hp(character: Combatant, amount: int) -> Combatant:
    """HP rise by the amount, never above the `hp` stat; Fatigued stays."""
    return msgspec.structs.replace(character, hp=min(character.stats["hp"], character.hp + amount))


def heal_check_to_stabilise(
    target: Combatant, heal: Heal, ctx: Context, *, last_stand: bool = False
) -> Combatant:
    """Another character's Heal check: Difficulty 15, or 18 if it is a Head Injury; as The
    Last Stand's action, an automatic success."""
    if target.fate == UNDECIDED:
        raise ctx.refuse(
            f"{target.name} has not chosen yet between The Last Stand and Hold on to Life: record "
            f"the choice first (woundlog choose FIGHT <id> hold_on, or last_stand)",
            "$.means",
        )
    difficulty = heal_check_difficulty(target)
    if heal.healer is None:
        raise ctx.refuse(
            f"the Heal check that stabilises {target.name} is another character's: give the "
            f"`healer` who makes it (--healer ID; Difficulty {difficulty})",
            "$.healer",
        )
    if last_stand:
        healed = restore_hp(target, heal.amount)
        after = stabilised(healed, ctx)
        stands = " and stands" if after.state == UPRIGHT else ""
        unread = "" if heal.check is None else f" (the check {heal.check} is not needed)"
        ctx.say(
            "Heal check as The Last Stand's action, an automatic success{unread}: {target.name} "
            "is stabilised{stands}{hp}",
            unread=unread,
            target=target,
            stands=stands,
            hp=hp_text(target, healed),
        )
        return after
    if heal.check is None:
        raise ctx.refuse(
            f"a Heal check to stabilise {target.name} needs its total: give the fact `check` "
            f"(--fact check=N; Difficulty {difficulty})",
            "$.check",
        )
    healed = restore_hp(target, heal.amount)
    said = f"Heal check {heal.check} against Difficulty {difficulty}"
    if heal.check < difficulty:
        ctx.say(
            "{said}: fails, {target.name} still holds on to life{hp}",
            said=said,
            target=target,
            hp=hp_text(target, healed),
        )
        return healed
    after = stabilised(healed, ctx)
    stands = " and stands" if after.state == UPRIGHT else ""
    ctx.say(
        "{said}: {target.name} is stabilised{stands}{hp}",
        said=said,
        target=target,
        stands=stands,
        hp=hp_text(target, healed),
    )
    return after


def heal_hp(target: Combatant, heal: Heal, ctx: Context) -> Combatant:
    """HP rise; rest removes Fatigued; a stabilised character healed above 0 stands up."""
    healed = restore_hp(target, heal.amount)
    said = f"{target.name} is healed {heal.amount}{hp_text(target, healed)}"
    if heal.means == REST and healed.fatigued:
        healed = msgspec.structs.replace(healed, fatigued=False)
        said += ": rested, no longer Fatigued"
    elif healed.fatigued:
        said += ": still Fatigued (only rest removes it)"
    if healed.state == STABILISED and healed.hp > 0:
        healed = stood_up(ctx.move(healed, "stand_up"))
        said += f"; above 0 HP, {target.name} stands up"
    elif healed.state == DOWNED:
        said += "; still dying: only stabilising (a Heal check, or a 6) ends that"
    if heal.check is not None:
        said += f"; {target.name} is not dying, so the Heal check's total is not compared"
    ctx.say(said)
    return healed


def nothing_to_choose(character: Combatant) -> str:
    if character.state == DEAD:
        return f"{character.name} is dead: there is nothing left to choose"
    if character.state == STABILISED:
        return f"{character.name} held on to life and is stabilised: the choice is behind them"
    return f"{character.name} has no Fatal Injury to answer: the choice comes with one"


def incapacitated(character: Combatant) -> str | None:
    """Why a character on the way to The Last Stand, or past it, may not act (else None: the
    table says)."""
    if character.state == DOWNED and character.fate == UNDECIDED:
        return (
            "is incapacitated by a Fatal Injury: for one last action, record the choice "
            "`last_stand` first, then the action as the very next event"
        )
    if character.state == DEAD and character.fate == LAST_STAND:
        return (
            "made The Last Stand and is dead: its one action is the event right after the "
            "choice (amend that event to correct it)"
        )
    return None


def damage_taken(target: Combatant, hit: Hit, hp: int, strength: int | None) -> str:
    """The words of a hit's damage, the first part of its explanation."""
    said = f"{target.name} takes {hit.damage} damage"
    said += f" (HP {target.hp} -> {hp})" if target.hp > 0 else " at 0 HP"
    if strength is not None and hit.hit_strength is None:
        said += f" (The Last Stand's blow: an automatic hit at Hit Strength {strength})"
    if hit.hit_strength is not None and target.kind != LEGENDARY:
        said += " (Hit Strength is read for legendary enemies only: damage decides)"
    return said


def hp_text(before: Combatant, after: Combatant) -> str:
    return f" (HP {before.hp} -> {after.hp})" if after.hp != before.hp else ""


# --- between fights: a campaign ----------------------------------------------------------------

FATIGUED = "Fatigued"


def brought_from_earlier_fights(joined: CharacterJoined) -> dict[str, Any]:
    """A campaign member's injuries and Fatigue, as their record carries them: a Severe
    Injury to a location they already have escalates in this fight too ("If a character would
    suffer another Severe Injury to the same location, it escalates to a Fatal Injury"), and
    Fatigued "stays even if they are later healed ... and lasts until removed (for example by
    rest)": so they join Fatigued, at their full HP."""
    brought: dict[str, Any] = {}
    if joined.injuries:
        brought["injuries"] = tuple(injury.name for injury in joined.injuries)
    if FATIGUED in joined.conditions:
        brought["fatigued"] = True
    return brought


BETWEEN_FIGHTS = Permanence(
    after_the_fight=lambda combatant: ({}, {}),
    lasting=lasts,
    conditions=lambda combatant: (FATIGUED,) if combatant.fatigued else (),
    reads=(FATIGUED,),
    rest=rest_clears_conditions,
    treat=heal_removes_injury,
    rests=("rest",),
)


class D26(Ruleset):
    permanence = BETWEEN_FIGHTS
    name = "d26"
    graph = Graph(name, [UPRIGHT, DOWNED, STABILISED, DEAD], TRANSITIONS)
    character = Combatant
    dice: ClassVar[dict[str, int]] = {"location": 4, "hold_on": 6}

    def harm(self, character: Any) -> tuple[int, ...]:
        """The state, then Fatal Injuries, Severe Injuries, Fatigued, hit points left."""
        injuries = character.injuries
        return (
            HARM.get(character.state, 0),
            sum(1 for i in injuries if i.startswith(FATAL)),
            sum(1 for i in injuries if i.startswith(SEVERE)),
            int(character.fatigued),
            -character.hp,
        )

    stats: ClassVar[dict[str, int | None]] = {"hp": None}
    kinds = (PC, NPC, LEGENDARY)
    hit_facts = frozenset({"hit_strength"})
    choices: ClassVar[tuple[str, ...]] = CHOICES
    heal_facts = frozenset({"check"})
    tables: ClassVar[dict[str, Any]] = {"severe_injuries": SEVERE_INJURIES_STAND_IN}
    who_may_act = WHO_MAY_ACT
    presentation = PRESENTATION
    importing = IMPORTING
    reads_position = True  # the Last Stand counts the event it was taken at (`fight.seq`)
    # the lapsed choice, the hold_on die and agony are the dying's: nobody else's turn ends
    tick_concerns: ClassVar[dict[str, TickConcern]] = {
        "turn_started": TickConcern(states=frozenset({DOWNED})),  # a round ended before it
        "turn_ended": TickConcern(states=frozenset({DOWNED})),
    }

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> Combatant:
        if stats["hp"] < 1:
            raise ctx.refuse("a character starts with at least 1 HP", "$.stats.hp")
        return Combatant(
            **self.basics(event, kind, stats),
            hp=stats["hp"],
            **brought_from_earlier_fights(event),
        )

    def why_attacker_cannot(
        self, fight: FightState[Any], attacker_id: str, attacker: Any, hit: Hit
    ) -> str | None:
        """The table, but for The Last Stand's one action, right after the choice."""
        if making_last_stand(fight, attacker_id):
            return None
        return incapacitated(attacker) or super().why_attacker_cannot(
            fight, attacker_id, attacker, hit
        )

    def why_healer_cannot(
        self, fight: FightState[Any], healer_id: str, healer: Any, heal: Heal
    ) -> str | None:
        """The Heal check that stabilises is another character's; the Last Stand's one action
        may be a heal."""
        target = fight.characters.get(heal.target)
        dying = target is not None and target.state == DOWNED
        if healer_id == heal.target and heal.means == HEAL_CHECK and dying:
            return (
                "may not make the Heal check that stabilises them: it is another "
                "character's (give that character as `healer`)"
            )
        if making_last_stand(fight, healer_id):
            return None
        return incapacitated(healer) or super().why_healer_cannot(fight, healer_id, healer, heal)

    def on_hit(
        self, fight: FightState[Any], target: Combatant, hit: Hit, ctx: Context
    ) -> Combatant:
        if target.state == DEAD:
            raise ctx.refuse(
                f"{target.name} is dead; to correct a mistaken hit, retract or amend it"
            )
        strength = hit.hit_strength
        if making_last_stand(fight, hit.attacker):
            strength = last_stand_strength(hit, ctx)
        hp, checked = lose_hp(target, hit.damage)
        hurt = msgspec.structs.replace(target, hp=hp)
        said = damage_taken(target, hit, hp, strength) if ctx.explains else ""
        if hp == 0 and target.kind == NPC:
            ctx.say("{said}: an npc at 0 HP simply dies", said=said)
            return ctx.move(hurt, "npc_dies")
        if hp == 0 and not hurt.fatigued:
            hurt = msgspec.structs.replace(hurt, fatigued=True)
            said += ": Fatigued"
        if checked is None:
            ctx.say(said)
            return hurt
        severity, reading = injury_check(target, strength, checked)
        said += f"; {reading}: " if reading else ": "
        if severity == NO_EFFECT:
            ctx.say("{said}no effect", said=said)
            return hurt
        effects: SevereInjuries = self.table(fight, "severe_injuries")
        injured, what = suffer_injury(hurt, severity, effects, ctx)
        ctx.say("{said}{what}", said=said, what=what)
        return injured

    def on_choice(
        self, fight: FightState[Any], character: Combatant, choice: Choice, ctx: Context
    ) -> Combatant:
        if choice.option not in CHOICES:
            raise ctx.refuse(
                f"a Fatal Injury offers `last_stand` or `hold_on`, not `{choice.option}`",
                "$.option",
            )
        if character.state == DOWNED and character.fate == HOLD_ON and choice.option == HOLD_ON:
            raise ctx.refuse(
                f"{character.name} already holds on to life (chosen, or a turn ended first): Hold "
                "on to Life is chosen once and lasts until they are stabilised or die; there is "
                "nothing more to choose",
                "$.option",
            )
        if character.state == DOWNED and character.fate == HOLD_ON:
            raise ctx.refuse(
                f"{character.name} already holds on to life (chosen, or a turn ended first): The "
                "Last Stand is taken at once, before any turn ends; amend the choice or the turn "
                "end if it was recorded wrong",
                "$.option",
            )
        if character.state != DOWNED or character.fate != UNDECIDED:
            raise ctx.refuse(nothing_to_choose(character), "$.character")
        if choice.option == LAST_STAND:
            return the_last_stand(character, fight.seq + 1, ctx)
        return hold_on_to_life(character, ctx)

    def on_heal(
        self, fight: FightState[Any], target: Combatant, heal: Heal, ctx: Context
    ) -> Combatant:
        if target.state == DEAD:
            raise ctx.refuse(
                f"{target.name} is dead and cannot be healed; to correct a mistaken hit, retract "
                "or amend it"
            )
        if heal.check is not None and heal.means != HEAL_CHECK:
            raise ctx.refuse(
                f"a `check` is the total of a Heal check: give means `{HEAL_CHECK}` "
                f"(not `{heal.means}`), or leave the check out",
                "$.means",
            )
        if target.state == DOWNED and heal.means == REST:
            raise ctx.refuse(
                f"{target.name} is dying and cannot rest: stabilise them first (means "
                f"`{HEAL_CHECK}`, or a 6 on the hold_on die)",
                "$.means",
            )
        if target.state == DOWNED and heal.means == HEAL_CHECK:
            last_stand = making_last_stand(fight, heal.healer)
            return heal_check_to_stabilise(target, heal, ctx, last_stand=last_stand)
        return heal_hp(target, heal, ctx)

    def on_turn_started(
        self, fight: FightState[Any], turn: TurnStarted, ctx: Context
    ) -> dict[str, Combatant]:
        """Nothing starts with a turn, but a log whose `round` moved on ended a round."""
        if ctx.pulse is None or not ctx.pulse.round_ended_before:
            return {}
        updated: dict[str, Combatant] = {}
        for cid, character in self.ticked(fight, "turn_started").items():
            if character.state == DOWNED and character.agony:
                updated[cid] = round_ends_in_agony(character, ctx.for_character(cid))
        return updated

    def on_turn_ended(
        self, fight: FightState[Any], turn: TurnEnded, ctx: Context
    ) -> dict[str, Combatant]:
        pulse = ctx.pulse
        before = pulse is not None and pulse.round_ended_before
        ends = pulse.round_ends if pulse is not None else whole(turn)
        # before version 3 the whole round's end is the round's alone, no one's own turn
        own = (
            ()
            if whole(turn) and fight.version < PULSE_VERSION
            else self.turns(fight, "turn_ended", turn, ctx)
        )
        updated: dict[str, Combatant] = {}
        for cid, character in self.ticked(fight, "turn_ended").items():
            after = end_of_turn(
                character,
                ctx.for_character(cid),
                own=cid in own,
                round_ended_before=before,
                round_ends=ends,
            )
            if after is not character:
                updated[cid] = after
        return updated

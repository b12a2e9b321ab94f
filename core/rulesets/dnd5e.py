"""dnd5e: dropping to 0 hit points, death saving throws, instant death and stabilising.

The rules of the System Reference Document 5.1 for what happens when a creature is hurt:
temporary hit points, falling unconscious at 0, instant death from massive damage, death saving
throws, damage at 0 hit points, stabilising, knocking a creature out, and healing. Written in
woundlog's own words.

This work includes material taken from the System Reference Document 5.1 ("SRD 5.1") by Wizards
of the Coast LLC. The SRD 5.1 is licensed under the Creative Commons Attribution 4.0
International License (CC-BY-4.0).

States in this game:
  upright     conscious, with at least 1 hit point.
  downed      at 0 hit points, unconscious and dying: making death saving throws.
  stabilised  at 0 hit points, unconscious but stable: makes no death saving throws.
  dead        three failed death saves, massive damage, or a monster at 0 hit points.
  (knocked_down, stunned and out_of_action are not used.)

Stats: `hp`, the hit point maximum (required, at least 1). Counters: `hp` (current, from the
maximum; never below 0), `max_hp` (the hit point maximum now: the stat as joined, until a
`stat_changed` sets it), `temp_hp` (temporary hit points, 0 at first), `successes` and
`failures` (death saving throws, 0 to 3). Optional stats: `current_hp` and `temp_hp`, what a
creature joins with (a campaign's carried hit points, below); for reference, read by no rule:
`ac`, `level`. Kinds: `pc` (default) and `monster`.

Dice: `death_save` (d20): 10 or more is a success, less a failure; a 1 is two failures; a 20
brings the creature back to consciousness with 1 hit point. Three successes: stable. Three
failures: dead. A death save rolled at the table (`check`) may carry `bonus`, what the table
added to the d20 (Bless, a paladin's Aura of Protection); see the decisions below.

Facts: on a hit, `critical` (the hit is a critical hit: two failures at 0 hit points) and
`knock_out` (the attacker, with a melee attack, knocks the creature out rather than kill it);
on a heal, `check` (the total of a Wisdom (Medicine) check, means `medicine`).

Heal means: `temporary` grants temporary hit points; `medicine` (with `check`),
`spare_the_dying` and `healers_kit` stabilise a dying creature; `revivify`, `raise_dead`,
`resurrection`, `true_resurrection` and `wish` bring back the dead, only with option `revival`;
any other means (none, `potion`, `cure_wounds`, `rest`, ...) restores hit points.

Options: `monster_death_saves` (false): monsters fall unconscious and make death saves like
characters (the Dungeon Master's Guide variant) instead of dying at 0. `revival` (false): a heal
with a revival means may bring back the dead. `death_saves` (`turn`): who rolls the death save
owed at the start of a dying creature's turn: `turn`, the `turn_started` rolls it (its die given
as `death_save@CHARACTER`, or drawn); `table`, the table rolls it and records a `check` event
(`{"type": "check", "character": "mira", "check": "death_save", "rolls": {"death_save": [14]}}`),
as Foundry VTT's players click their own death saves.

Decisions where the text is silent or ambiguous:
- Damage is what the recorder gives, after resistance, vulnerability and every other reduction.
  Temporary hit points absorb it first; only what is left over counts for everything after:
  hit points lost, damage left over at 0 (instant death), and damage at 0 hit points.
- Instant death comes before everything else at 0: damage left over (or, at 0 hit points, the
  damage itself) of at least the hit point maximum kills, whatever the kind, whether the blow
  was meant to knock out, and whether the creature was stable.
- A hit that leaves no damage (0, or all of it taken by temporary hit points) does nothing more:
  no death save failure for a dying creature, and a stable one stays stable.
- A critical hit on a creature above 0 hit points has no rule of its own here: its extra dice are
  in the damage. `critical` counts only at 0 hit points.
- `knock_out` is read only on the blow that drops a creature to 0; on a creature already at 0
  it is refused (knock a creature out by the blow that drops it). A knocked-out monster is
  unconscious and stable, not dead. A knocked-out creature that is healed wakes up.
- A stable creature that takes damage is dying again, its death saves counted from zero, and
  the damage is a failure (two on a critical), as for any creature at 0 hit points.
- The death save is owed "at the start of the turn": a `turn_started` with the creature's
  `character`, or with its `side`; a `turn_started` with neither is a round marker and rolls
  nothing. Option `death_saves` says who rolls it, so the same save is never rolled twice: in a
  `turn` fight a `check` is refused; in a `table` fight a `turn_started` rolls nothing and a
  `check` is accepted from any dying creature (a virtual tabletop gives each its own id, so a
  resend is no second save).
- A death save with a `bonus` (a `check` from the table: Bless, an Aura of Protection) is
  decided by its total, d20 plus bonus, against 10; then a natural 20 among successes restores
  1 hit point and a natural 1 among failures counts twice. The SRD speaks of rolling a 1 or a
  20 "on the d20" and gives death saves no bonus of their own; this reading is Foundry dnd5e's
  (5.3.3 and 4.4.4 `Actor5e#rollDeathSave`: the total first, `isCritical` within a success,
  `isFumble` within a failure), so a save imported from a virtual tabletop ends as its sheet
  shows. With no bonus the two readings agree. A save woundlog rolls itself has no bonus.
- A natural 20 restores 1 hit point: the creature is conscious (upright), its death saves
  cleared. Successes and failures are also cleared by becoming stable and by regaining any hit
  points.
- Stabilising. `medicine` needs `check` (10 or more stabilises; less does nothing) and restores
  no hit points (its `amount` must be 0); `spare_the_dying` and `healers_kit` stabilise with no
  check. All three are refused on a creature that is not dying (nothing to stabilise). The
  healer must be able to act: an unconscious creature (downed or stabilised) cannot, so nobody
  stabilises himself; a healer who is not a character of the fight (a passing priest) is named.
- Healing a creature at 0 hit points, dying or stable, brings it back to consciousness with the
  hit points healed (never above the maximum). A heal of 0 changes nothing. A rest (a stable
  creature regains 1 hit point after 1d4 hours) is recorded as a heal with means `rest` (amount
  1), before `fight_ended`: the tool does not track time, and an ended fight takes no more
  events (undo `fight_ended` to go on). Rests between fights belong to a campaign, not a fight.
- Temporary hit points do not stack: a new grant keeps the higher of the two. They are not
  healing: they wake nobody and clear no death saves. Granting them to the dead is refused.
- The dead regain nothing and take no hits. With option `revival`, a heal with a revival means
  brings the creature back (upright) with the hit points it gives, at least 1; without it such
  a heal is refused, naming the option.
- Monsters die at 0 hit points (unless `monster_death_saves`); a monster at 0 can only be a
  knocked-out one, or one of a fight with the variant.
- A hit point maximum that changes (SRD 5.1: a wight's Life Drain reduces it, Aid raises it;
  a sheet edited, another program's maximum-HP damage) is a `stat_changed` of stat `hp`, its
  value the new maximum (0 or more), shown as counter `max_hp`; everything that reads the
  maximum (healing's cap, instant death, a revival's hit points) reads it. The rules derive no
  such change themselves: the effect is the recorder's to give, and to give back when it ends.
  A lowered maximum below the current hit points brings them down to it; a raised one heals
  nothing (Aid's own 5 hit points are a heal recorded beside it). Temporary hit points and
  death saves are left as they are. A maximum reduced to 0 kills ("the target dies if this
  effect reduces its hit point maximum to 0"), whatever the state and the kind. A temporary
  maximum (a virtual tabletop's `tempmax`) is not a stat of its own: the recorder gives the
  maximum it makes, which is the one that counts. The dead take a new maximum and stay dead;
  a revival of one whose maximum is 0 is refused until it is raised.
- Concentration, conditions (prone, unconscious's effects on attacks), exhaustion and hit dice
  are not tracked. A hit on an unconscious creature within 5 feet is a critical hit in the
  rules: the recorder says so with `critical`.

Luck (a report's order of harm): the state, then failed death saves, successes, hit points. A
death save's 1 (two failures) is worse than 2-9, which is worse than 10-19; a 20 is best.

Campaigns (`BETWEEN_FIGHTS`, SRD 5.1 "Resting"): hit points are carried from one fight to the
next (optional stat `current_hp`, the hit points a creature joins with, 1 to its maximum `hp`;
default: the maximum). A short rest (`rest`, kind `short`) gives back the hit points the Hit
Dice spent gave (its `amount`, as rolled at the table: die plus Constitution modifier each); a
long rest (kind `long`) gives back all lost hit points, and needs at least 1 hit point at its
start. A `treatment` with an `amount` is healing between fights (a potion, a spell).
Decisions: Hit Dice themselves (how many are left, half regained on a long rest) are not
tracked: the table spends them and records what they gave. A creature that ends a fight at 0
hit points, dying or stable, is carried at 0: it cannot join a fight (the reason is said) until
healed, or until time passes (`time_passed`: a stable creature regains 1 hit point after 1d4
hours, so after any day). One that ends the fight dying is taken as stable: a fight's log that
leaves a creature dying has stopped before its death saves, and the GM records `died` if not.
Temporary hit points "last until they're depleted or you finish a long rest": they are carried
into the next fight (optional stat `temp_hp`, what a creature joins with) and a long rest ends
them. Decision: a feature that gives them a shorter duration is the GM's; time passing
(`time_passed`, a day or more) ends them too, as no SRD feature's lasts a day. A party's rest
rests each member who can: one at 0 hit points gains nothing from a long rest, the others rest.
A maximum a fight changed (`stat_changed`) is not carried: the effects that change one end with
their duration or a long rest, and the next fight records it again if it still holds; the hit
points carried are at most the maximum the creature joined with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec

from woundlog.events import (
    CharacterJoined,
    Check,
    Heal,
    Hit,
    RuleError,
    StatChanged,
    StructuralError,
    TurnStarted,
)
from woundlog.events.campaign import Rest, Treatment
from woundlog.events.importers.rules import ImportRules

from ..fight_state import Character, FightState, TickConcern
from ..machine import Graph
from ..permanence import Carried, Permanence, Record
from ..presentation import Pips, Presentation
from ..ruleset import Acting, Context, Options, Ruleset
from ..states import DEAD, DOWNED, HARM, STABILISED, UPRIGHT, State
from ..turns import starts_the_round_only

TRANSITIONS = [
    ("fall_unconscious", UPRIGHT, DOWNED),  # a pc dropped to 0: dying
    ("knock_out", UPRIGHT, STABILISED),  # dropped to 0 by a blow meant to knock out
    ("monster_dies", UPRIGHT, DEAD),  # a monster at 0 hit points
    ("instant_death", [UPRIGHT, DOWNED, STABILISED], DEAD),  # massive damage
    ("third_failure", DOWNED, DEAD),  # three failed death saves
    ("stabilise", DOWNED, STABILISED),  # three successes, Medicine, spare the dying
    ("dying_again", STABILISED, DOWNED),  # a stable creature takes damage
    ("regain_consciousness", [DOWNED, STABILISED], UPRIGHT),  # healed, or a natural 20
    ("revive", DEAD, UPRIGHT),  # a revival heal, with option `revival`
    ("maximum_to_zero", [UPRIGHT, DOWNED, STABILISED], DEAD),  # hit point maximum reduced to 0
]

WHO_MAY_ACT: dict[State, Acting] = {
    DOWNED: Acting(
        attack=False, heal=False, why="is unconscious and dying, and can take no action"
    ),
    STABILISED: Acting(
        attack=False, heal=False, why="is unconscious, though stable, and can take no action"
    ),
    DEAD: Acting(attack=False, heal=False, why="is dead"),
}
"""Only the conscious act: at 0 hit points a creature is unconscious."""

PC, MONSTER = "pc", "monster"
DEATH_SAVE = "death_save"
SUCCESS_FROM = 10  # a death save of 10 or more succeeds
THREE = 3  # successes to be stable, failures to die
TEMPORARY, MEDICINE, REST = "temporary", "medicine", "rest"
STABILISING = ("medicine", "spare_the_dying", "healers_kit")
REVIVAL = ("revivify", "raise_dead", "resurrection", "true_resurrection", "wish")
MEDICINE_DC = 10
TURN, TABLE = "turn", "table"

PRESENTATION = Presentation(
    pools=("hp",),
    gm_kinds=(MONSTER,),
    hidden=("successes", "failures"),  # drawn as pips
    maximums={"hp": "max_hp"},
    units={"hp": "HP", "temp_hp": "temporary HP"},
    glance={DOWNED: "dying", STABILISED: "stable"},  # both at 0 hit points
    pips=Pips("death saves", DOWNED, THREE, {"successes": "passed", "failures": "failed"}),
)
"""Creatures live by their hit points; monsters are the GM's. The dying's death saves are
pips, three successes and three failures."""
IMPORTING = ImportRules(
    stat="hp",
    kinds=(PC, MONSTER),
    temporary=TEMPORARY,
    critical=True,
    death_save=DEATH_SAVE,
    maximum="hp",
    revival=REVIVAL[0],
)
"""The programs that feed woundlog play this game: hit points are hit points, temporary ones
are granted by the `temporary` heal, a critical hit stays one, a death save is a check, a
maximum that moves is a `stat_changed` of `hp`, and a heal that brings the dead back is a
`revivify` (any revival means brings the dead back the same way)."""


class Creature(Character, frozen=True, kw_only=True):
    hp: int
    max_hp: int
    """The hit point maximum now: the stat `hp` as joined, until a `stat_changed` sets it."""
    temp_hp: int = 0
    successes: int = 0
    failures: int = 0

    @property
    def at_zero(self) -> bool:
        return self.state in (DOWNED, STABILISED)


replace = msgspec.structs.replace


def cleared(creature: Creature) -> Creature:
    """Death saves reset: on becoming stable or conscious again."""
    if creature.successes or creature.failures:
        return replace(creature, successes=0, failures=0)
    return creature


def hp_text(creature: Creature) -> str:
    temp = f" (+{creature.temp_hp} temporary)" if creature.temp_hp else ""
    return f"{creature.hp}/{creature.max_hp} HP{temp}"


# --- damage -------------------------------------------------------------------------------------


def absorb(creature: Creature, damage: int, ctx: Context) -> tuple[Creature, int]:
    """Temporary hit points take the damage first; what is left goes on."""
    taken = min(creature.temp_hp, damage)
    if not taken:
        return creature, damage
    ctx.say("{creature.name}'s temporary hit points absorb {taken}", creature=creature, taken=taken)
    return replace(creature, temp_hp=creature.temp_hp - taken), damage - taken


def drop_to_zero(
    creature: Creature, left_over: int, hit: Hit, ctx: Context, *, variant: bool
) -> Creature:
    """Reduced to 0 with `left_over` damage: instant death, knocked out, dying, or a monster's
    death."""
    at_zero = replace(creature, hp=0)
    if left_over >= creature.max_hp:
        ctx.say(
            "{creature.name} drops to 0 with {left_over} damage left over, at least the maximum "
            "of {creature.max_hp}: instant death",
            creature=creature,
            left_over=left_over,
        )
        return ctx.move(at_zero, "instant_death")
    if hit.knock_out:
        ctx.say(
            "{creature.name} drops to 0 and is knocked out: unconscious and stable",
            creature=creature,
        )
        return ctx.move(cleared(at_zero), "knock_out")
    if creature.kind == MONSTER and not variant:
        ctx.say("{creature.name} drops to 0 hit points and dies", creature=creature)
        return ctx.move(at_zero, "monster_dies")
    ctx.say(
        "{creature.name} drops to 0 hit points: unconscious, making death saving throws",
        creature=creature,
    )
    return ctx.move(cleared(at_zero), "fall_unconscious")


def damage_at_zero(creature: Creature, damage: int, hit: Hit, ctx: Context) -> Creature:
    """Damage while at 0 hit points: massive damage kills; otherwise one failure, two on a
    critical hit; a stable creature is dying again first."""
    if damage >= creature.max_hp:
        ctx.say(
            "{creature.name} takes {damage} at 0 hit points, at least the maximum of "
            "{creature.max_hp}: instant death",
            creature=creature,
            damage=damage,
        )
        return ctx.move(creature, "instant_death")
    if creature.state == STABILISED:
        ctx.say("{creature.name} is no longer stable: dying again", creature=creature)
        creature = ctx.move(cleared(creature), "dying_again")
    failed = 2 if hit.critical else 1
    why = "two failures for a critical hit" if hit.critical else "a failure"
    ctx.say(
        "{creature.name} takes {damage} at 0 hit points: {why}",
        creature=creature,
        damage=damage,
        why=why,
    )
    return add_failures(creature, failed, ctx)


def add_failures(creature: Creature, count: int, ctx: Context) -> Creature:
    failures = min(THREE, creature.failures + count)
    creature = replace(creature, failures=failures)
    if failures >= THREE:
        ctx.say("{creature.name}: third failure: dies", creature=creature)
        return ctx.move(creature, "third_failure")
    return creature


# --- death saving throws -----------------------------------------------------------------------


def death_saving_throw(creature: Creature, ctx: Context, bonus: int = 0) -> Creature:
    """d20 plus any bonus: 10 or more succeeds, a natural 20 among successes waking with 1 hit
    point; less fails, a natural 1 among failures failing twice."""
    roll = ctx.roll(DEATH_SAVE)
    total = roll + bonus
    said = f"{roll} {'+' if bonus > 0 else '-'} {abs(bonus)} = {total}" if bonus else f"{roll}"
    if total < SUCCESS_FROM:
        if roll == 1:
            ctx.say(
                "{creature.name}: death save {said}: a natural 1, two failures",
                creature=creature,
                said=said,
            )
            return add_failures(creature, 2, ctx)
        ctx.say("{creature.name}: death save {said}: failure", creature=creature, said=said)
        return add_failures(creature, 1, ctx)
    if roll == 20:
        ctx.say(
            "{creature.name}: death save {said}: regains 1 hit point and consciousness",
            creature=creature,
            said=said,
        )
        return ctx.move(cleared(replace(creature, hp=1)), "regain_consciousness")
    successes = creature.successes + 1
    if successes >= THREE:
        ctx.say(
            "{creature.name}: death save {said}: third success: stable",
            creature=creature,
            said=said,
        )
        return ctx.move(cleared(creature), "stabilise")
    ctx.say("{creature.name}: death save {said}: success", creature=creature, said=said)
    return replace(creature, successes=successes)


# --- healing ------------------------------------------------------------------------------------


def grant_temporary(creature: Creature, amount: int, ctx: Context) -> Creature:
    """Temporary hit points do not stack: the higher stands."""
    if amount <= creature.temp_hp:
        ctx.say(
            "{creature.name} keeps {creature.temp_hp} temporary hit points (not {amount})",
            creature=creature,
            amount=amount,
        )
        return creature
    ctx.say("{creature.name} gains {amount} temporary hit points", creature=creature, amount=amount)
    return replace(creature, temp_hp=amount)


def stabilise(creature: Creature, heal: Heal, ctx: Context) -> Creature:
    """Medicine (DC 10), spare the dying, a healer's kit: a dying creature becomes stable."""
    if creature.state != DOWNED:
        why = "is already stable" if creature.state == STABILISED else "is not dying"
        raise ctx.refuse(f"{creature.name} {why}: there is nothing to stabilise", "$.means")
    if heal.amount:
        raise ctx.refuse(
            f"`{heal.means}` stabilises and restores no hit points: give amount 0", "$.amount"
        )
    if heal.means == MEDICINE:
        if heal.check is None:
            raise ctx.refuse("a Wisdom (Medicine) check needs its total: fact `check`", "$.check")
        if heal.check < MEDICINE_DC:
            ctx.say(
                "Medicine check {heal.check} (DC {MEDICINE_DC}): {creature.name} still dying",
                heal=heal,
                MEDICINE_DC=MEDICINE_DC,
                creature=creature,
            )
            return creature
        ctx.say(
            "Medicine check {heal.check} (DC {MEDICINE_DC}): {creature.name} is stable",
            heal=heal,
            MEDICINE_DC=MEDICINE_DC,
            creature=creature,
        )
    else:
        ctx.say(
            "{means}: {creature.name} is stable",
            means=heal.means.replace("_", " "),
            creature=creature,
        )
    return ctx.move(cleared(creature), "stabilise")


def regain_hit_points(creature: Creature, amount: int, ctx: Context) -> Creature:
    """Healing never exceeds the maximum; at 0 hit points any healing wakes the creature."""
    if amount == 0:
        ctx.say("{creature.name} regains nothing", creature=creature)
        return creature
    hp = min(creature.max_hp, creature.hp + amount)
    healed = replace(creature, hp=hp)
    if creature.at_zero:
        ctx.say(
            "{creature.name} regains {hp} hit points and consciousness", creature=creature, hp=hp
        )
        return ctx.move(cleared(healed), "regain_consciousness")
    ctx.say(
        "{creature.name} regains {regained} hit points ({creature.hp} -> {hp})",
        creature=creature,
        regained=hp - creature.hp,
        hp=hp,
    )
    return healed


def revive(creature: Creature, heal: Heal, ctx: Context) -> Creature:
    if creature.max_hp < 1:
        raise ctx.refuse(
            f"{creature.name}'s hit point maximum is 0: raise it (`stat_changed` of `hp`) "
            "before bringing them back",
            "$.means",
        )
    hp = min(creature.max_hp, max(1, heal.amount))
    ctx.say(
        "{means}: {creature.name} returns to life with {hp} HP",
        means=heal.means.replace("_", " "),
        creature=creature,
        hp=hp,
    )
    return ctx.move(cleared(replace(creature, hp=hp, temp_hp=0)), "revive")


# --- a maximum that changes -------------------------------------------------------------------


def new_maximum(creature: Creature, change: StatChanged, ctx: Context) -> Creature:
    """The hit point maximum set to `change.value`: the hit points above it are lost, none are
    gained, and a maximum of 0 kills."""
    maximum = change.value
    if maximum < 0:
        raise ctx.refuse("a hit point maximum is 0 or more", "$.value")
    why = f" ({change.reason})" if change.reason else ""
    if maximum == creature.max_hp:
        ctx.say(
            "{creature.name}'s hit point maximum stays {maximum}{why}",
            creature=creature,
            maximum=maximum,
            why=why,
        )
        return creature
    changed = replace(creature, max_hp=maximum, hp=min(creature.hp, maximum))
    ctx.say(
        "{creature.name}'s hit point maximum {was} -> {maximum}{why}: {hp}",
        creature=creature,
        was=creature.max_hp,
        maximum=maximum,
        why=why,
        hp=hp_text(changed),
    )
    if maximum == 0 and creature.state != DEAD:
        ctx.say("{creature.name}'s hit point maximum is reduced to 0: dies", creature=creature)
        return ctx.move(changed, "maximum_to_zero")
    return changed


# --- between fights: a campaign (SRD 5.1, Resting) ------------------------------------------

CURRENT_HP = "current_hp"


TEMP_HP = "temp_hp"


def hit_points_carried(creature: Creature) -> Carried:
    """Hit points and temporary hit points are carried: as the creature joined the fight,
    and as it ends it."""
    joined = creature.stats
    began = {CURRENT_HP: joined.get(CURRENT_HP, joined["hp"])}
    ends = {CURRENT_HP: min(creature.hp, joined["hp"])}  # a changed maximum is not carried
    if joined.get(TEMP_HP, 0) or creature.temp_hp:  # none, before or after: nothing to carry
        began[TEMP_HP], ends[TEMP_HP] = joined.get(TEMP_HP, 0), creature.temp_hp
    return began, ends


def _temporary_gone(record: Record) -> Record:
    if not record.current.get(TEMP_HP):
        return record
    return replace(record, current={**record.current, TEMP_HP: 0})


def _regain(record: Record, amount: int) -> Record:
    hp = record.current["hp"]
    now = min(hp, record.current.get(CURRENT_HP, hp) + amount)
    return replace(record, current={**record.current, CURRENT_HP: now})


def resting(record: Record, rest: Rest) -> Record:
    """Short rest: the hit points its Hit Dice gave. Long rest: all of them, from 1 or more."""
    if rest.kind == "short":
        return _regain(record, rest.amount or 0)  # temporary hit points stay
    if record.current.get(CURRENT_HP, record.current["hp"]) < 1:
        raise RuleError(
            f"{record.name} is at 0 hit points: a long rest needs at least 1 at its start "
            "(a short rest's Hit Dice, healing, or time passing first)",
            field="$.kind",
        )
    return _temporary_gone(_regain(record, record.current["hp"]))


def healing_between_fights(record: Record, treatment: Treatment) -> Record:
    if treatment.amount is None:
        raise RuleError(
            f"{record.name}: give the hit points the treatment restores (`amount`)",
            field="$.amount",
        )
    return _regain(record, treatment.amount)


def stable_regains_one(record: Record, days: int) -> Record:
    """A stable creature at 0 regains 1 hit point after 1d4 hours: after any day, 1; and
    temporary hit points are gone (no SRD feature's last a day)."""
    stable = _regain(record, 1) if record.current.get(CURRENT_HP) == 0 else record
    return _temporary_gone(stable)


def at_zero(record: Record) -> str | None:
    if record.current.get(CURRENT_HP, 1) < 1:
        return "is at 0 hit points (unconscious): heal them, or rest or let time pass, first"
    return None


BETWEEN_FIGHTS = Permanence(
    after_the_fight=hit_points_carried,
    rest=resting,
    treat=healing_between_fights,
    time_passes=stable_regains_one,
    rests=("long", "short"),
    labels={CURRENT_HP: "HP", "hp": "HP maximum", TEMP_HP: "temporary HP"},
    cannot_join=at_zero,
)


class Dnd5e(Ruleset):
    name = "dnd5e"
    graph = Graph(name, [UPRIGHT, DOWNED, STABILISED, DEAD], TRANSITIONS)
    character = Creature
    dice: ClassVar[dict[str, int]] = {DEATH_SAVE: 20}
    dice_harm: ClassVar[dict[str, dict[int, int]]] = {
        # a natural 1 is two failures, 2-9 one, 10-19 a success, a natural 20 wakes them
        DEATH_SAVE: {
            1: 3,
            **dict.fromkeys(range(2, 10), 2),
            **dict.fromkeys(range(10, 20), 1),
            20: 0,
        }
    }

    def harm(self, character: Any) -> tuple[int, ...]:
        """The state, then failed death saves (worse), successes (better), hit points left."""
        return (
            HARM.get(character.state, 0),
            character.failures,
            -character.successes,
            -(character.hp + character.temp_hp),
        )

    stats: ClassVar[dict[str, int | None]] = {"hp": None}
    optional_stats = ("ac", "level", CURRENT_HP, TEMP_HP)
    kinds = (PC, MONSTER)
    permanence = BETWEEN_FIGHTS
    who_may_act = WHO_MAY_ACT
    presentation = PRESENTATION
    importing = IMPORTING
    # death saves are the dying's alone: the start of a turn does nothing to anyone else
    tick_concerns: ClassVar[dict[str, TickConcern]] = {
        "turn_started": TickConcern(states=frozenset({DOWNED}))
    }
    raises_the_dead = True  # with option `revival`
    hit_facts = frozenset({"critical", "knock_out"})
    heal_facts = frozenset({"check"})
    changeable_stats: ClassVar[dict[str, str]] = {"hp": "the hit point maximum"}
    heal_means = ("cure_wounds", "potion", TEMPORARY, *STABILISING, REST, *REVIVAL)
    checks = (DEATH_SAVE,)
    options: ClassVar[dict[str, bool | int | str]] = {
        "monster_death_saves": False,
        "revival": False,
        "death_saves": TURN,
    }

    def check_options(self, given: Mapping[str, bool | int | str]) -> Options:
        options = super().check_options(given)
        if options["death_saves"] not in (TURN, TABLE):
            raise StructuralError(
                f"option `death_saves` is `{TURN}` or `{TABLE}`, not {options['death_saves']!r}",
                field="$.options.death_saves",
            )
        return options

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> Creature:
        if stats["hp"] < 1:
            raise ctx.refuse("a hit point maximum is at least 1", "$.stats.hp")
        now = stats.get(CURRENT_HP, stats["hp"])
        if not 1 <= now <= stats["hp"]:
            raise ctx.refuse(
                f"`{CURRENT_HP}` (the hit points it joins with) is 1 to the maximum, {stats['hp']}",
                f"$.stats.{CURRENT_HP}",
            )
        if stats.get(TEMP_HP, 0) < 0:
            raise ctx.refuse(
                f"`{TEMP_HP}` (the temporary hit points it joins with) is 0 or more",
                f"$.stats.{TEMP_HP}",
            )
        return Creature(
            **self.basics(event, kind, stats),
            hp=now,
            max_hp=stats["hp"],
            temp_hp=stats.get(TEMP_HP, 0),
        )

    def on_hit(self, fight: FightState[Any], target: Creature, hit: Hit, ctx: Context) -> Creature:
        if target.state == DEAD:
            raise ctx.refuse(f"{target.name} is dead")
        if hit.knock_out and target.at_zero:
            raise ctx.refuse(
                f"{target.name} is already at 0 hit points: knock a creature out with the "
                "blow that drops it to 0",
                "$.knock_out",
            )
        creature, damage = absorb(target, hit.damage, ctx)
        if damage == 0:
            ctx.say(
                "{creature.name} takes no damage ({hp})", creature=creature, hp=hp_text(creature)
            )
            return creature
        if creature.at_zero:
            return damage_at_zero(creature, damage, hit, ctx)
        if damage < creature.hp:
            hurt = replace(creature, hp=creature.hp - damage)
            ctx.say(
                "{creature.name} takes {damage} ({creature.hp} -> {hurt.hp} HP)",
                creature=creature,
                damage=damage,
                hurt=hurt,
            )
            return hurt
        variant = bool(fight.options["monster_death_saves"])
        return drop_to_zero(creature, damage - creature.hp, hit, ctx, variant=variant)

    def on_heal(
        self, fight: FightState[Any], target: Creature, heal: Heal, ctx: Context
    ) -> Creature:
        if heal.check is not None and heal.means != MEDICINE:
            raise ctx.refuse("fact `check` is the total of a Medicine check: means `medicine`")
        if target.state == DEAD:
            if heal.means in REVIVAL and fight.options["revival"]:
                return revive(target, heal, ctx)
            raise ctx.refuse(
                f"{target.name} is dead and regains nothing"
                + (
                    " (option `revival` lets a revival spell bring them back)"
                    if heal.means in REVIVAL
                    else ""
                )
            )
        if heal.means == TEMPORARY:
            return grant_temporary(target, heal.amount, ctx)
        if heal.means in STABILISING:
            return stabilise(target, heal, ctx)
        return regain_hit_points(target, heal.amount, ctx)

    def on_turn_started(
        self, fight: FightState[Any], turn: TurnStarted, ctx: Context
    ) -> dict[str, Creature]:
        if starts_the_round_only(turn, ctx.pulse):
            ctx.say("a round begins: death saves come at the start of a creature's own turn")
            return {}
        updated: dict[str, Creature] = {}
        for cid, creature in self.turns(fight, "turn_started", turn, ctx).items():
            if creature.state != DOWNED:
                continue
            if fight.options["death_saves"] == TABLE:
                ctx.say("{creature.name} owes a death save, rolled at the table", creature=creature)
                continue
            after = death_saving_throw(creature, ctx.for_character(cid))
            if after is not creature:
                updated[cid] = after
        if not ctx.said:
            ctx.say("start of turn: nobody is dying")
        return updated

    def on_check(
        self, fight: FightState[Any], character: Creature, check: Check, ctx: Context
    ) -> Creature:
        if check.check != DEATH_SAVE:
            raise ctx.refuse(
                f"dnd5e's only check rolled at the table is `{DEATH_SAVE}`, not `{check.check}`",
                "$.check",
            )
        if fight.options["death_saves"] != TABLE:
            raise ctx.refuse(
                "this fight rolls each death save at the start of the dying creature's turn "
                "(option death_saves=turn); a fight whose table rolls them has "
                "death_saves=table",
                "$.check",
            )
        if character.state != DOWNED:
            raise ctx.refuse(
                f"{character.name} is {character.state} and makes no death saving throws",
                "$.character",
            )
        return death_saving_throw(character, ctx, check.bonus)

    def on_stat_changed(
        self, fight: FightState[Any], character: Creature, change: StatChanged, ctx: Context
    ) -> Creature:
        return new_maximum(character, change, ctx)

"""DragonQuest: Fatigue and Endurance, armour, Strike Check bands, Grievous Injuries, stun.

Also unconsciousness, death, healing and rest, and the knock-back house rule.

States in this game:
  upright        on his feet and acting, whatever his Fatigue and Endurance.
  knocked_down   on the ground: knocked off his feet by a knock-back or a slam, or just revived.
                 He stands when his player spends an action on it (`choice stand_up`).
  stunned        may not take any other action except try to recover, once in every pulse
                 after the one he was stunned in.
  out_of_action  unconscious: Endurance 3 or less. Revived only by time or the arts of a Healer.
  dead           Endurance 0. Nothing leaves it.
  (downed and stabilised are not used.)

Who may act (a `hit`'s attacker, a `heal`'s healer, when a figure of the fight):
  upright, knocked_down   attack and heal.
  stunned                 neither: "may not take any other action except attempt to recover".
  out_of_action, dead     neither.

Stats (starting values; the state tracks the current ones):
  fatigue, endurance, willpower     required.
  protection                        the armour's Protection Rating (default 0: no armour).
  shield                            1 if carrying a shield (default 0).
  physical_strength, agility, manual_dexterity
                                    for the drop checks and the knock-back house rule. Leave a
                                    stat out when it is not known: the checks that need it are
                                    skipped (the 0 `woundlog rules` shows means "not given").
Counters: `fatigue` and `endurance` (current), `protection` (the current rating: Grievous
Injuries lower it), `shield` (1 while a usable shield is carried, 0 once cloven), `injuries`
(the Grievous Injuries suffered, by name), `stunned_this_pulse` (true from the moment he is
stunned to the end of that pulse: no recovery attempt in it). Kinds: `character` (default),
`monster`; neither has a rule of its own. A side is optional.

Dice, all D100 (1 to 100):
  grievous       the Grievous Injury roll, against the range of the weapon's class.
  drop           the drop check, at most 3 x Manual Dexterity keeps hold: once when a figure
                 becomes stunned; and after a failed slam roll (under 3 x MD keeps hand-held items).
  stun_recovery  a stunned figure's attempt, each pulse after the one he was stunned in: at most
                 2 x Willpower + current Fatigue. At a pulse's end each figure's die is his own
                 (`stun_recovery@rolf`; drawn, keyed by him in a version-2 log).
  knockback      knock-back house rule: under 3 x Physical Strength, or knocked back one hex.
  keep_feet      after being knocked back: under 3 x Agility, or knocked down.
  Within one hit they are rolled in that order of need: grievous, drop (stun), knockback, then
  keep_feet or drop (slam).

Hit facts:
  strike_roll, strike_chance   the Strike Check and the Modified Strike Chance: the band comes
                               from the Special Damage Chart (5% or less of the chance, rounded:
                               Grievous; 15% or less: Endurance; above: Fatigue).
  band                         `fatigue`, `endurance` or `grievous`, given directly instead.
                               With neither, a hit is a Fatigue hit, and says it assumed so.
  weapon                       `A` thrusting, `B` slashing, `C` crushing: the Grievous Injury
                               Table's column. Needed by every Grievous hit.
  cleave_shield                on a Grievous Injury, the shield is cloven and the armour spared.
  magic, breath                a spell, or a monster's breath weapon (magical energy).
  purely_magical               with `magic`: true (the default) for purely magical energy,
                               false for a spell that changes the physical surroundings
                               (windstorms, falling rocks): armour absorbs its damage.
  slam                         the attacker is half again as tall (knock-back house rule).
  `damage` is the Damage Check total (the weapon's modifier + D10 + bonuses), before armour.
  Or the Damage Check in parts, added up by woundlog:
  damage_roll                  the D10 (1-10). With it, `damage` is 0 or must equal the total.
  weapon_modifier              the weapon's (or spell's) damage modifier (D+4: 4; default 0).
  weapon_minimum               the Physical Strength needed to wield the weapon: giving it uses
                               the Physical Strength rule, +1 per 5 PS above it.
  physical_strength            the attacker's PS (default: his `physical_strength` stat, when
                               the attacker is a figure of this fight).
  rank                         the attacker's rank with the weapon: +1 per three ranks.
  thrown, missile              a Thrown or Missile Weapon: no Physical Strength bonus.
Heal facts: `pool` (`fatigue` or `endurance`): what the heal restores. Heal means: `rest`
restores Fatigue; `healer`, `spell` and `potion` restore Endurance; `pool` overrides either.

Options (house rules printed in the text, both on by default):
  strike_01_grievous   a Strike Check of 01 always qualifies for a Grievous Injury.
  knockback            damage greater than Physical Strength knocks back (and slams).

Tables:
  grievous_injury   the Grievous Injury Table: for each weapon class (A, B, C), the D100 ranges
                    that give an injury, with the injury each gives; a roll outside every range
                    gives none. THE TEXT DOES NOT PRINT IT: the default shipped here is a STAND-IN
                    invented for woundlog (A 01-15, B 01-20, C 01-25), labelled so in its own
                    `source` field and in every hit that uses it. Put the book's table in the
                    fight's log: `woundlog new --tables FILE.toml` with
                      [grievous_injury]
                      source = "DragonQuest, Grievous Injury Table"
                      A = { "01-05" = "...", "06-08" = "..." }
                      B = { ... }
                      C = { ... }
                    Ranges are "LOW-HIGH" or one number, within 1-100, never overlapping; a
                    malformed table is refused when the fight starts.

Luck (a report's order of harm): the state, then Grievous Injuries, Endurance and Fatigue left.

Campaigns (`BETWEEN_FIGHTS`): a Grievous Injury stays until a `treatment` heals it. Armour
keeps the Protection Rating a Grievous Injury took ("reduced by 2 until repaired") and a cloven
shield stays useless ("A cloven shield is useless") into the next fight, until a `repair`
between fights (`item` `armour`: its Protection Rating as he joined the campaign; `shield`: a
usable one again). Decisions: the text gives no recovery time, so Fatigue and Endurance return
between fights (a figure joins with his full pools, as the join requires), a Grievous Injury
heals when the GM records its treatment, `time_passed` heals nothing, and there is no rest. A
repair restores what he joined the campaign with, never more (a figure with no shield gets
none), and costs nothing here: the text's prices are the GM's.

Decisions where the text is silent or ambiguous:
- Who may act: a stunned figure "may not take any other action except attempt to recover", so
  his blows and heals are refused; so are the unconscious's and the dead's. A knocked-down
  figure may still strike and heal: the text forbids a figure on the ground nothing (he may
  fight from the ground, and stands with `choice stand_up`).
- The Damage Check in parts: total = D10 + weapon_modifier + Physical Strength bonus + ranks
  bonus, never below 0. `damage` beside `damage_roll` is 0 ("add it up") or that total (checked);
  any other value is refused. The parts without `damage_roll` are refused (give the D10, or the
  total alone): a total carries no Physical Strength facts, so it has no break band.
- Physical Strength bonus: (PS - weapon_minimum) // 5, none at or below the minimum (PS 20-24
  with a Broadsword's 15: +1). Not for thrown or missile weapons ("This does not apply"); the
  ranks bonus, the next sentence's rule, applies to every weapon, thrown and missile included.
  Magic and breath take neither bonus: their weapon facts are refused.
- The break band: with a Physical Strength bonus of +N, Strike Check rolls from 99 - 3 x N to 99
  are a possible break of the weapon and 100 a possible drop (+1: 96-99, as the text says; its
  "93-99" example is the band of +2). Without a bonus the text gives no band, and nothing is
  checked. The Modified Strike Chance is cut to just below the band (97% with +2: 92%), and the
  Special Damage Chart is read from the cut chance. A strike roll above the cut chance is no
  hit: it is refused, and the refusal names the break or drop band the roll falls in; an
  accepted hit reports its bonus and band.
- Special Damage Chart rounding: 5% and 15% of the Modified Strike Chance are rounded to the
  nearest whole number, halves up, in integers: (5 x chance + 50) // 100 and
  (15 x chance + 50) // 100. This gives the chart's rows (chance 30: Grievous 01-02, Endurance
  01-05; chance 29: 01 and 01-04, where printings of the chart put 29 one row too high, a known
  misprint that the arithmetic does not repeat). A chance below 10 has no Grievous band and one
  below 4 no Endurance band, except for the 01 house rule.
- The band: the `band` fact, else the Strike Check facts, else Fatigue, the band of most
  strikes, and the hit says "no band given: a Fatigue hit assumed". Both given and
  disagreeing is refused, as is a strike roll without its chance (or the reverse), and a strike
  roll above the chance (a miss is not a hit).
- Armour absorbs only Fatigue hits, always up to its current rating. Once Fatigue is 0 (before
  the strike) what passes the armour comes off Endurance; when Fatigue runs out mid-strike the
  rest of that strike is ignored. Armour that magically stops Endurance damage: record the
  damage it lets through.
- Effective damage, for the stun, is what the strike actually took off Fatigue or Endurance:
  Rolf's 2 ignored points do not count. "Greater than one third of his original Fatigue" is
  compared in integers as 3 x effective > starting Fatigue, so nothing is rounded.
- Magic and breath have no Strike Check: band and strike facts are refused on them. Their damage
  comes off Fatigue, and what Fatigue cannot take comes off Endurance in the same attack (the
  one-strike rule is about Strike Checks). Purely magical energy and breath pass any armour; a
  spell of the surroundings (`purely_magical: false`) is absorbed by it first. "A spell that
  does damage more than the combined fatigue and endurance" kills, weighing what passes the
  armour (effective damage); equal takes Endurance to 0, which kills too. Breath is treated as
  magical energy in this as in everything (`purely_magical` on breath is refused). A blow is no
  spell: what Fatigue cannot take of it is ignored, and it never kills by this rule.
- A Grievous hit applies its Endurance damage first; if that kills, nothing is rolled. An injury
  is recorded by name in `injuries`; its own effects (the table is not printed) are the GM's to
  apply. It lowers `protection` by 2 (not below 0) if the figure wears armour (protection above
  0), or with `cleave_shield` cleaves the shield instead (`shield` 1 -> 0); `cleave_shield` is
  refused without a usable shield or without armour to spare, and ignored when no injury
  results. Repairs happen after the fight: join the next fight with the repaired rating. The
  possible drop on a Grievous Injury has no check in the text: it is reported, not rolled.
- Endurance 3 or less: unconscious (`out_of_action`); 0: `dead`. An unconscious figure can still
  be hit and killed; a hit on the dead is refused. When several results meet in one hit the
  worst stands: upright < knocked_down < stunned < out_of_action < dead.
- A strike that knocks a figure unconscious or kills it does not also stun it (no drop check).
  Stun while already stunned: he stays stunned, with no second drop check (the check is made
  "once, at the moment the figure becomes Stunned") and his recovery attempts go on as before.
  A knocked-down figure can be stunned.
- The drop check succeeds on a roll of at most 3 x MD (DragonQuest's checks succeed on "less than
  or equal"); the house rules say "under" and mean strictly under. Held items are not tracked:
  the outcome is reported.
- A pulse ends with `turn_ended` for the figure, for its side or for the whole round; each
  stunned figure in it makes one recovery attempt, "every Pulse after becoming stunned": the
  first `turn_ended` after the stun ends the pulse he was stunned in (no attempt; it clears
  `stunned_this_pulse`), the next brings his first attempt. A log should use one scope for its
  pulses, ending each pulse once for every figure (a whole-round `turn_ended` does). Recovering
  stands him `upright`: the recovery is his whole action. `turn_started` has no rule.
- A stunned figure is "unable to use a shield": `cleave_shield` on a target already stunned is
  refused. A figure this very hit stuns still chooses: the injury comes before the stun.
- Knock-back weighs the hit's damage (the Damage Check's total: the force of the blow, before
  armour) against Physical
  Strength, for a conscious figure, from blows only (magic and breath do not knock back; `slam` is
  refused on them and when the house rule is off). Keeping one's feet is rolled only when knocked
  back, and not by a figure already on the ground. A slam knocks down unless the knockback roll
  is under 3 x PS; then the drop die keeps hand-held items. Without physical_strength and agility
  (a slam: physical_strength) the house rule is skipped (for a slam, said so). A stunned figure
  knocked off his feet stays `stunned`, the worse state.
- A knocked-down figure stands when his player spends his action on it: `choice stand_up`
  (refused unless knocked down; a stunned figure may only try to recover). Woundlog never stands
  a figure on its own, since a figure may fight or crawl from the ground.
- Healing restores `amount` to one pool, capped at its starting value; `pool` names it, or the
  means: `rest` Fatigue, the others Endurance. Resting is "time": both time and a Healer revive.
  An unconscious figure whose Endurance rises above 3 is revived, onto the ground
  (`knocked_down`). Healing cures no stun; a heal on the dead is refused; a heal with neither
  means nor pool is refused (say which pool).
- A figure joins conscious: Endurance of at least 4 (record what hurt him as hits); stats are
  never negative; a house-rule stat given is at least 1.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, NamedTuple

import msgspec

from woundlog.events import CharacterJoined, Choice, Heal, Hit, RuleError, TurnEnded
from woundlog.events.campaign import Repair

from ..fight_state import Character, FightState, TickConcern
from ..machine import Graph
from ..permanence import Carried, Permanence, Record, heal_removes_injury, lasts, nothing_to_restore
from ..presentation import Presentation
from ..ruleset import Acting, Context, Ruleset
from ..states import DEAD, HARM, KNOCKED_DOWN, OUT_OF_ACTION, STUNNED, UPRIGHT, State
from ..tables import Table

TRANSITIONS = [
    ("knock_down", UPRIGHT, KNOCKED_DOWN),
    ("stun", [UPRIGHT, KNOCKED_DOWN], STUNNED),
    ("fall_unconscious", [UPRIGHT, KNOCKED_DOWN, STUNNED], OUT_OF_ACTION),
    ("die", [UPRIGHT, KNOCKED_DOWN, STUNNED, OUT_OF_ACTION], DEAD),
    ("recover_from_stun", STUNNED, UPRIGHT),
    ("stand_up", KNOCKED_DOWN, UPRIGHT),
    ("revive", OUT_OF_ACTION, KNOCKED_DOWN),
]

WHO_MAY_ACT: dict[State, Acting] = {
    STUNNED: Acting(
        attack=False,
        heal=False,
        why="is stunned and may not take any other action except attempt to recover from Stun",
    ),
    OUT_OF_ACTION: Acting(
        attack=False,
        heal=False,
        why="is unconscious, and can only be revived by time or the arts of a Healer",
    ),
    DEAD: Acting(attack=False, heal=False, why="is dead"),
}
"""Upright and knocked-down figures act (the text forbids a figure on the ground nothing);
the stunned may only try to recover, the unconscious and the dead do nothing."""

Band = Literal["fatigue", "endurance", "grievous"]
FATIGUE: Band = "fatigue"
ENDURANCE: Band = "endurance"
GRIEVOUS: Band = "grievous"

PRESENTATION = Presentation(pools=(ENDURANCE, FATIGUE), gm_kinds=("monster",))
"""A figure lives by Endurance (its loss kills), then Fatigue; monsters are the GM's."""
NOT_IMPORTABLE = (
    "DragonQuest splits damage between Fatigue and Endurance and needs Willpower: a hit-point "
    "total says neither"
)

SEVERITY: dict[State, int] = {UPRIGHT: 0, KNOCKED_DOWN: 1, STUNNED: 2, OUT_OF_ACTION: 3, DEAD: 4}
FALL_TRIGGER: dict[State, str] = {
    KNOCKED_DOWN: "knock_down",
    STUNNED: "stun",
    OUT_OF_ACTION: "fall_unconscious",
    DEAD: "die",
}
FALL_TEXT: dict[State, str] = {
    STUNNED: "{name} is stunned",
    OUT_OF_ACTION: "{name} falls unconscious (Endurance {endurance})",
    DEAD: "{name} is dead (Endurance 0)",
}
UNCONSCIOUS_AT = 3
"""Endurance at or below which a figure falls unconscious."""
GRIEVOUS_PERCENT = 5
ENDURANCE_PERCENT = 15
ARMOUR_LOST_PER_GRIEVOUS = 2

STRENGTH_PER_BONUS = 5
"""+1 to the damage modifier for every 5 points of Physical Strength above the minimum."""
RANKS_PER_BONUS = 3
"""+1 to the damage modifier for every three ranks with the weapon."""
BREAK_PERCENT_PER_BONUS = 3
"""Each +1 of the Physical Strength bonus adds 3% to the chance of breaking the weapon."""
BREAK_TOP = 99
"""The break band ends at 99 and grows downwards (+1: 96-99); 100 is a possible drop."""
DROP_ROLL = 100
DAMAGE_CHECK_FACTS = (
    "weapon_modifier",
    "physical_strength",
    "weapon_minimum",
    "rank",
    "thrown",
    "missile",
)
"""Facts that add up a Damage Check from its D10 (`damage_roll`)."""
WEAPON_FACTS = ("physical_strength", "weapon_minimum", "rank", "thrown", "missile")
"""Damage Check facts of a weapon, refused on magic and breath."""

WEAPON_CLASSES = {"A": "thrusting", "B": "slashing", "C": "crushing"}
HEAL_MEANS: dict[str, str] = {
    "rest": "fatigue",
    "healer": "endurance",
    "spell": "endurance",
    "potion": "endurance",
}
"""What each means of healing restores unless the `pool` fact says otherwise."""
CHOICES = ("stand_up",)
HOUSE_RULE_STATS = ("physical_strength", "agility", "manual_dexterity")


# --- the Grievous Injury Table: data a fight's log may replace ------------------------------

_RANGE = re.compile(r"^(\d{1,3})(?:-(\d{1,3}))?$")


def d100_range(text: str) -> tuple[int, int]:
    """`"01-05"` -> (1, 5); `"07"` -> (7, 7). ValueError outside 1-100 or reversed."""
    found = _RANGE.match(text)
    if found is None:
        raise ValueError(f'range "{text}" is not LOW-HIGH (e.g. "01-05") or one number')
    low = int(found[1])
    high = int(found[2] or found[1])
    if not 1 <= low <= high <= 100:
        raise ValueError(f'range "{text}" must run upwards within 1-100')
    return low, high


def injury_column(rows: dict[str, str], weapon: str) -> Table[str]:
    """One weapon class's ranges as a D100 table (rolls outside every range give no injury)."""
    try:
        return Table("D100", {d100_range(text): injury for text, injury in rows.items()})
    except ValueError as exc:
        raise ValueError(f"class {weapon}: {exc}") from None


class GrievousInjuryTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """For each weapon class, the D100 ranges ("01-05") that give a Grievous Injury, and which."""

    A: dict[str, str]  # thrusting weapons
    B: dict[str, str]  # slashing weapons
    C: dict[str, str]  # crushing weapons
    source: str = ""  # where the table comes from: the book, a house table, or the stand-in

    def __post_init__(self) -> None:
        # a malformed table from a log is refused when the fight starts, not mid-fight
        for weapon in WEAPON_CLASSES:
            injury_column(self.column(weapon), weapon)

    def column(self, weapon: str) -> dict[str, str]:
        return {"A": self.A, "B": self.B, "C": self.C}[weapon]

    def injury(self, weapon: str, roll: int) -> str | None:
        try:
            return injury_column(self.column(weapon), weapon)[roll]
        except KeyError:
            return None


GRIEVOUS_INJURY_STAND_IN = GrievousInjuryTable(
    source=(
        "STAND-IN invented for woundlog, NOT the DragonQuest Grievous Injury Table: "
        "replace it with the book's (woundlog new --tables FILE.toml)"
    ),
    A={
        "01-03": "eye put out",
        "04-06": "lung pierced",
        "07-09": "gut pierced",
        "10-12": "thigh run through",
        "13-15": "hand pinned",
    },
    B={
        "01-04": "hand severed",
        "05-08": "hamstrung",
        "09-12": "face laid open",
        "13-16": "arm cut to the bone",
        "17-20": "scalp cut, blood in the eyes",
    },
    C={
        "01-05": "skull fractured",
        "06-10": "ribs broken",
        "11-15": "arm broken",
        "16-20": "leg broken",
        "21-25": "jaw shattered",
    },
)


# --- the figure -------------------------------------------------------------------------------


class Figure(Character, frozen=True, kw_only=True):
    fatigue: int
    endurance: int
    protection: int = 0
    shield: int = 0
    injuries: tuple[str, ...] = ()
    stunned_this_pulse: bool = False
    """Stunned during the pulse now running: his first recovery attempt is the next pulse's."""


class Inflicted(NamedTuple):
    """What one strike did to the pools: points off each, absorbed by armour, ignored."""

    fatigue: int = 0
    endurance: int = 0
    absorbed: int = 0
    ignored: int = 0

    @property
    def effective(self) -> int:
        return self.fatigue + self.endurance


def worse(a: State, b: State) -> State:
    return a if SEVERITY[a] >= SEVERITY[b] else b


def stat(figure: Figure, name: str) -> int | None:
    """A stat the GM gave, or None when it is not known."""
    return figure.stats.get(name)


# --- the Strike Check and the Special Damage Chart -----------------------------------------


def special_damage_chart(strike_chance: int) -> tuple[int, int]:
    """The highest Strike Check giving Grievous and Endurance damage: 5% and 15% of the
    Modified Strike Chance, rounded to the nearest, halves up."""
    grievous = (GRIEVOUS_PERCENT * strike_chance + 50) // 100
    endurance = (ENDURANCE_PERCENT * strike_chance + 50) // 100
    return grievous, endurance


def band_of_strike(strike_roll: int, strike_chance: int, *, roll_01_grievous: bool) -> Band:
    """The damage band a successful Strike Check falls in."""
    grievous, endurance = special_damage_chart(strike_chance)
    if strike_roll <= grievous or (roll_01_grievous and strike_roll == 1):
        return GRIEVOUS
    if strike_roll <= endurance:
        return ENDURANCE
    return FATIGUE


def break_band(strength_bonus: int) -> tuple[int, int] | None:
    """The Strike Check rolls that are a possible break of the weapon, with a Physical Strength
    bonus: 3% more for each +1, downwards from 99 (+1: 96-99, +2: 93-99). None without a bonus."""
    if strength_bonus <= 0:
        return None
    return max(1, BREAK_TOP - BREAK_PERCENT_PER_BONUS * strength_bonus), BREAK_TOP


def modified_strike_chance(strike_chance: int, strength_bonus: int) -> int:
    """The break band precludes the Modified Strike Chances that would conflict with it: the
    chance ends below the band (97% with +2 is 92%)."""
    band = break_band(strength_bonus)
    return strike_chance if band is None else min(strike_chance, band[0] - 1)


def strike_band(hit: Hit, strength_bonus: int, ctx: Context) -> Band:
    """The band from the Strike Check facts, or as given, or Fatigue (said) when nothing says."""
    if (hit.strike_roll is None) != (hit.strike_chance is None):
        missing = "strike_chance" if hit.strike_chance is None else "strike_roll"
        raise ctx.refuse(
            "the Special Damage Chart needs both the strike roll and the Modified Strike Chance: "
            f"give `{missing}` too (or the `band` alone)",
            f"$.{missing}",
        )
    if hit.strike_roll is None or hit.strike_chance is None:
        if hit.band is None:
            ctx.say(
                "no band given: a Fatigue hit assumed (say `band`, or `strike_roll` and "
                "`strike_chance`, for another)"
            )
        return hit.band or FATIGUE
    chance = modified_strike_chance(hit.strike_chance, strength_bonus)
    if hit.strike_roll > chance:
        raise ctx.refuse(
            missed(hit.strike_roll, hit.strike_chance, strength_bonus), "$.strike_roll"
        )
    band = band_of_strike(
        hit.strike_roll, chance, roll_01_grievous=bool(ctx.options["strike_01_grievous"])
    )
    if hit.band is not None and hit.band != band:
        raise ctx.refuse(
            f"band `{hit.band}` contradicts the Strike Check ({hit.strike_roll} of "
            f"{chance} is {band}): give the band or the strike facts, not both",
            "$.band",
        )
    cut = f" (cut from {hit.strike_chance} by the break band)" if chance < hit.strike_chance else ""
    ctx.say(
        "Strike Check {hit.strike_roll:02d} of {chance}{cut}: {band} band",
        hit=hit,
        chance=chance,
        cut=cut,
        band=band,
    )
    return band


def missed(strike_roll: int, strike_chance: int, strength_bonus: int) -> str:
    """Why a strike roll above the (modified) chance is no hit: a miss, a possible break of the
    weapon or a possible drop."""
    chance = modified_strike_chance(strike_chance, strength_bonus)
    band = break_band(strength_bonus)
    said = f"a strike roll of {strike_roll} misses a Modified Strike Chance of {chance}"
    if chance < strike_chance:
        said += f" ({strike_chance} cut below the break band)"
    if band is not None and band[0] <= strike_roll <= band[1]:
        said += (
            f"; {band[0]}-{band[1]} is a possible break of the weapon (the "
            f"+{strength_bonus} Physical Strength bonus)"
        )
    elif band is not None and strike_roll == DROP_ROLL:
        said += f"; {DROP_ROLL} is a possible drop of the weapon"
    return said + ": record no hit, or correct the roll"


# --- the Damage Check ------------------------------------------------------------------------


class DamageCheck(NamedTuple):
    """A hit's damage before armour, and the Physical Strength bonus in it (its break band)."""

    damage: int
    strength_bonus: int = 0


def strength_bonus(fight: FightState[Any], hit: Hit, ctx: Context) -> int:
    """+1 for every 5 points of Physical Strength above the weapon's minimum; not for thrown or
    missile weapons. The rule is used when the hit gives `weapon_minimum`."""
    strength = hit.physical_strength
    if strength is None and hit.attacker is not None:
        attacker = fight.characters.get(hit.attacker)
        strength = None if attacker is None else attacker.stats.get("physical_strength")
    if hit.weapon_minimum is None:
        if hit.physical_strength is not None:
            raise ctx.refuse(
                "the Physical Strength bonus counts from the weapon's minimum: give "
                "`weapon_minimum` too",
                "$.weapon_minimum",
            )
        return 0
    if strength is None:
        raise ctx.refuse(
            "the Physical Strength bonus needs the attacker's Physical Strength: give "
            "`physical_strength` (or an attacker of this fight whose stat it is)",
            "$.physical_strength",
        )
    if hit.thrown or hit.missile:
        ctx.say("no Physical Strength bonus for a thrown or missile weapon")
        return 0
    bonus = max(0, strength - hit.weapon_minimum) // STRENGTH_PER_BONUS
    band = break_band(bonus)
    if band is None:
        ctx.say(
            "PS {strength}, weapon minimum {hit.weapon_minimum}: no Physical Strength bonus",
            strength=strength,
            hit=hit,
        )
    else:
        ctx.say(
            "PS {strength}, weapon minimum {hit.weapon_minimum}: +{bonus} damage; a possible "
            "break on {band[0]}-{band[1]}, a possible drop on {drop}",
            strength=strength,
            hit=hit,
            bonus=bonus,
            band=band,
            drop=DROP_ROLL,
        )
    return bonus


def ranks_bonus(hit: Hit) -> int:
    """+1 to the damage modifier for every three ranks with the weapon."""
    return (hit.rank or 0) // RANKS_PER_BONUS


def damage_check(fight: FightState[Any], hit: Hit, magical: bool, ctx: Context) -> DamageCheck:
    """The damage before armour: the hit's `damage` as given, or (with `damage_roll`) the D10
    plus the weapon's modifier, the Physical Strength bonus and the ranks bonus."""
    if hit.damage_roll is None:
        for fact in DAMAGE_CHECK_FACTS:
            if getattr(hit, fact) is not None:
                raise ctx.refuse(
                    f"`{fact}` is part of a Damage Check woundlog adds up from its D10: give "
                    "`damage_roll` too, or the total `damage` alone",
                    f"$.{fact}",
                )
        return DamageCheck(hit.damage)
    if magical:
        for fact in WEAPON_FACTS:
            if getattr(hit, fact) is not None:
                raise ctx.refuse(
                    f"`{fact}` is a weapon's, and magic and breath are no weapon: drop it "
                    "(a spell's damage is its D10 and `weapon_modifier`)",
                    f"$.{fact}",
                )
    modifier = hit.weapon_modifier or 0
    strength = 0 if magical else strength_bonus(fight, hit, ctx)
    ranks = ranks_bonus(hit)
    total = max(0, hit.damage_roll + modifier + strength + ranks)
    if hit.damage not in (0, total):
        raise ctx.refuse(
            f"`damage` {hit.damage} is not the Damage Check's total {total}: give `damage` 0 "
            "(woundlog adds it up) or the total",
            "$.damage",
        )
    if ctx.explains:
        parts = [f"D10 {hit.damage_roll}", f"{modifier:+d} modifier"]
        if strength:
            parts.append(f"+{strength} Physical Strength")
        if hit.rank is not None:
            parts.append(f"+{ranks} for rank {hit.rank}")
        ctx.say(f"Damage Check: {' '.join(parts)} = {total}")
    return DamageCheck(total, strength)


# --- damage --------------------------------------------------------------------------------


def fatigue_damage(figure: Figure, damage: int) -> Inflicted:
    """Armour absorbs up to its rating; the rest comes off Fatigue, or off Endurance once
    Fatigue is 0. One strike never takes both: what Fatigue cannot take is ignored."""
    absorbed = min(damage, figure.protection)
    through = damage - absorbed
    if figure.fatigue > 0:
        lost = min(through, figure.fatigue)
        return Inflicted(fatigue=lost, absorbed=absorbed, ignored=through - lost)
    return Inflicted(endurance=min(through, figure.endurance), absorbed=absorbed)


def endurance_damage(figure: Figure, damage: int) -> Inflicted:
    """A low Strike Check: the full damage comes off Endurance; armour absorbs nothing."""
    return Inflicted(endurance=min(damage, figure.endurance))


def magic_damage(figure: Figure, damage: int) -> Inflicted:
    """Magical energy (or breath): off Fatigue, then Endurance; never absorbed by armour."""
    fatigue = min(damage, figure.fatigue)
    return Inflicted(fatigue=fatigue, endurance=min(damage - fatigue, figure.endurance))


def surroundings_damage(figure: Figure, damage: int) -> Inflicted:
    """A spell that changes the physical surroundings (falling rocks): armour absorbs up to its
    rating; the rest comes off Fatigue, then Endurance (a spell is no Strike Check)."""
    absorbed = min(damage, figure.protection)
    through = damage - absorbed
    fatigue = min(through, figure.fatigue)
    endurance = min(through - fatigue, figure.endurance)
    return Inflicted(fatigue=fatigue, endurance=endurance, absorbed=absorbed)


def take_damage(figure: Figure, inflicted: Inflicted) -> Figure:
    return msgspec.structs.replace(
        figure,
        fatigue=figure.fatigue - inflicted.fatigue,
        endurance=figure.endurance - inflicted.endurance,
    )


def damage_text(before: Figure, after: Figure, inflicted: Inflicted) -> str:
    parts = []
    if inflicted.absorbed:
        parts.append(f"armour absorbs {inflicted.absorbed}")
    if inflicted.fatigue:
        parts.append(f"{inflicted.fatigue} off Fatigue ({before.fatigue} -> {after.fatigue})")
    if inflicted.endurance:
        parts.append(
            f"{inflicted.endurance} off Endurance ({before.endurance} -> {after.endurance})"
        )
    if inflicted.ignored:
        parts.append(
            f"{inflicted.ignored} ignored (one strike never takes both Fatigue and Endurance)"
        )
    return ", ".join(parts) or "no effective damage"


def effects_of_damage(figure: Figure) -> State:
    """Endurance 0 is death; 3 or less, unconsciousness."""
    if figure.endurance == 0:
        return DEAD
    if figure.endurance <= UNCONSCIOUS_AT:
        return OUT_OF_ACTION
    return UPRIGHT


# --- Grievous Injuries ---------------------------------------------------------------------


def grievous_injury(table: GrievousInjuryTable, figure: Figure, hit: Hit, ctx: Context) -> Figure:
    """D100 against the weapon class's range; an injury costs the armour 2 Protection, or the
    shield if the figure chose to cleave it."""
    weapon = hit.weapon
    assert weapon is not None  # checked before any damage is done
    roll = ctx.roll("grievous")
    injury = table.injury(weapon, roll)
    label = "stand-in " if table == GRIEVOUS_INJURY_STAND_IN else ""
    head = f"{label}Grievous Injury Table, class {weapon}, d100={roll:02d}"
    if injury is None:
        ctx.say("{head}: no Grievous Injury", head=head)
        return figure
    injured = msgspec.structs.replace(figure, injuries=(*figure.injuries, injury))
    if hit.cleave_shield:
        ctx.say(
            "{head}: {injury}; the shield is cloven, the armour spared; may drop what he holds",
            head=head,
            injury=injury,
        )
        return msgspec.structs.replace(injured, shield=0)
    if figure.protection > 0:
        protection = max(0, figure.protection - ARMOUR_LOST_PER_GRIEVOUS)
        ctx.say(
            "{head}: {injury}; Protection {figure.protection} -> {protection} until repaired; may "
            "drop what he holds",
            head=head,
            injury=injury,
            figure=figure,
            protection=protection,
        )
        return msgspec.structs.replace(injured, protection=protection)
    ctx.say("{head}: {injury}; may drop what he holds", head=head, injury=injury)
    return injured


# --- stun ------------------------------------------------------------------------------------


def stuns(figure: Figure, inflicted: Inflicted) -> bool:
    """Effective damage greater than one third of his original Fatigue, from a single strike."""
    return 3 * inflicted.effective > figure.stats["fatigue"]


def drop_check(figure: Figure, ctx: Context, why: str) -> None:
    """Held items: at most 3 x Manual Dexterity keeps them. Reported; items are not tracked."""
    dexterity = stat(figure, "manual_dexterity")
    if dexterity is None:
        ctx.say("{why}: may drop what he holds (no manual_dexterity: not rolled)", why=why)
        return
    roll = ctx.roll("drop")
    kept = "keeps hold" if roll <= 3 * dexterity else "drops what he holds"
    ctx.say(
        "{why}: drop check d100={roll:02d} against 3 x MD = {thrice}: {kept}",
        why=why,
        roll=roll,
        thrice=3 * dexterity,
        kept=kept,
    )


def stun(figure: Figure, inflicted: Inflicted, ctx: Context) -> State:
    """A stunning strike stuns; the drop check comes once, at the moment he becomes stunned."""
    why = (
        f"{inflicted.effective} effective damage > a third of {figure.stats['fatigue']} Fatigue"
        if ctx.explains
        else ""
    )
    if figure.state == STUNNED:
        ctx.say("{why}: already stunned, stays stunned (no second drop check)", why=why)
        return STUNNED
    drop_check(figure, ctx, f"stunned ({why})")
    return STUNNED


def stunned_when(before: Figure, after: Figure) -> Figure:
    """Mark the pulse in which a figure becomes stunned: he tries to recover only in the pulses
    after it. A stun on the stunned changes nothing; leaving the stun clears the mark."""
    now = after.state == STUNNED and (before.state != STUNNED or before.stunned_this_pulse)
    if now == after.stunned_this_pulse:
        return after
    return msgspec.structs.replace(after, stunned_this_pulse=now)


def stun_recovery(figure: Figure, ctx: Context) -> tuple[Figure, str]:
    """At most 2 x Willpower plus current Fatigue recovers."""
    target = 2 * figure.stats["willpower"] + figure.fatigue
    roll = ctx.roll("stun_recovery")
    recovers = roll <= target
    after = ctx.move(figure, "recover_from_stun") if recovers else figure
    if not ctx.explains:
        return after, ""
    outcome = "recovers (upright)" if recovers else "still stunned"
    return after, f"{figure.name} d100={roll:02d} against 2 x WP + Fatigue = {target}: {outcome}"


# --- the knock-back house rule ---------------------------------------------------------------


def knock_back(figure: Figure, hit: Hit, damage: int, ctx: Context) -> State:
    """Damage greater than Physical Strength: under 3 x PS or knocked back one hex, then under
    3 x Agility or knocked down. Against an attacker half again as tall it is a slam: under
    3 x PS or knocked down, then under 3 x MD to keep hand-held items."""
    strength = stat(figure, "physical_strength")
    agility = stat(figure, "agility")
    if strength is None or (agility is None and not hit.slam):
        needs = "physical_strength" if hit.slam else "physical_strength and agility"
        if hit.slam:
            ctx.say("slam not checked: {figure.name} has no {needs}", figure=figure, needs=needs)
        return figure.state
    if damage <= strength:
        if hit.slam:
            ctx.say(
                "no slam: damage {damage} is not over PS {strength}",
                damage=damage,
                strength=strength,
            )
        return figure.state
    roll = ctx.roll("knockback")
    rolled = "damage {damage} > PS {strength}: d100={roll:02d} against 3 x PS = {thrice}"
    read = {"damage": damage, "strength": strength, "roll": roll, "thrice": 3 * strength}
    if roll < 3 * strength:
        ctx.say(rolled + ": stands firm", **read)
        return figure.state
    if hit.slam:
        ctx.say(rolled + ": slammed to the ground", **read)
        drop_check_under(figure, ctx)
        return KNOCKED_DOWN
    if figure.state == KNOCKED_DOWN or agility is None:
        ctx.say(rolled + ": knocked back one hex", **read)
        return figure.state
    feet = ctx.roll("keep_feet")
    kept = feet < 3 * agility
    outcome = "keeps his feet" if kept else "knocked down"
    ctx.say(
        rolled + ": knocked back one hex; d100={feet:02d} against 3 x AG = {agile}: {outcome}",
        **read,
        feet=feet,
        agile=3 * agility,
        outcome=outcome,
    )
    return figure.state if kept else KNOCKED_DOWN


def drop_check_under(figure: Figure, ctx: Context) -> None:
    """After a failed slam roll: under 3 x Manual Dexterity keeps hand-held items."""
    dexterity = stat(figure, "manual_dexterity")
    if dexterity is None:
        ctx.say("may drop hand-held items (no manual_dexterity: not rolled)")
        return
    roll = ctx.roll("drop")
    kept = "keeps hand-held items" if roll < 3 * dexterity else "drops hand-held items"
    ctx.say(
        "d100={roll:02d} against 3 x MD = {thrice}: {kept}",
        roll=roll,
        thrice=3 * dexterity,
        kept=kept,
    )


# --- checks on a hit's facts -----------------------------------------------------------------


def check_hit(figure: Figure, hit: Hit, magical: bool, ctx: Context) -> None:
    """Facts that cannot go together, refused before anything happens."""
    if magical:
        for fact in ("band", "strike_roll", "strike_chance"):
            if getattr(hit, fact) is not None:
                raise ctx.refuse(
                    f"magic and breath have no Strike Check band: drop `{fact}` (their damage "
                    "comes off Fatigue, then Endurance, past any armour)",
                    f"$.{fact}",
                )
    if hit.slam:
        if not ctx.options["knockback"]:
            raise ctx.refuse(
                "a slam is part of the knock-back house rule, which this fight does not use "
                "(option knockback=false): drop `slam`",
                "$.slam",
            )
        if magical:
            raise ctx.refuse(
                "only a blow knocks back or slams, not magic or breath: drop `slam`", "$.slam"
            )
    if hit.purely_magical is not None and not hit.magic:
        raise ctx.refuse(
            "`purely_magical` says what kind of spell a `magic` hit is: give `magic` too, or "
            "drop it (breath is always treated as magical energy)",
            "$.purely_magical",
        )
    if hit.cleave_shield:
        if figure.state == STUNNED:
            raise ctx.refuse(
                f"{figure.name} is stunned, and a stunned figure is for all practical purposes "
                "unable to use a shield: drop `cleave_shield`",
                "$.cleave_shield",
            )
        if figure.shield == 0:
            has = "no usable shield" if figure.stats.get("shield") else "no shield"
            raise ctx.refuse(
                f"{figure.name} has {has} to cleave: drop `cleave_shield`", "$.cleave_shield"
            )
        if figure.protection == 0:
            raise ctx.refuse(
                f"cleaving the shield spares the armour, and {figure.name} wears none "
                "(protection 0): drop `cleave_shield`",
                "$.cleave_shield",
            )


def check_weapon(hit: Hit, ctx: Context) -> None:
    if hit.weapon is None:
        raise ctx.refuse(
            "a Grievous hit rolls on the weapon class's column: give `weapon` "
            "(A thrusting, B slashing, C crushing)",
            "$.weapon",
        )


# --- healing ---------------------------------------------------------------------------------


def healed_pool(heal: Heal, ctx: Context) -> str:
    """The pool a heal restores: the `pool` fact, else what its means restores."""
    if heal.means and heal.means not in HEAL_MEANS:
        known = ", ".join(HEAL_MEANS)
        raise ctx.refuse(f"DragonQuest heals by {known}; not `{heal.means}`", "$.means")
    if heal.pool is not None:
        return heal.pool
    if not heal.means:
        raise ctx.refuse(
            "say what the heal restores: `means` rest (Fatigue) or healer, spell, potion "
            "(Endurance), or the fact `pool`",
            "$.pool",
        )
    return HEAL_MEANS[heal.means]


def restore(figure: Figure, pool: str, amount: int) -> Figure:
    """Up to the starting value; what would go past it is lost."""
    current: int = getattr(figure, pool)
    return msgspec.structs.replace(figure, **{pool: min(figure.stats[pool], current + amount)})


def revived(figure: Figure, ctx: Context) -> Figure:
    """An unconscious figure whose Endurance rises above 3 wakes, on the ground."""
    if figure.state == OUT_OF_ACTION and figure.endurance > UNCONSCIOUS_AT:
        return ctx.move(figure, "revive")
    return figure


# --- pulses ----------------------------------------------------------------------------------


# --- between fights: a campaign ----------------------------------------------------------------


def armour_and_shield(figure: Figure) -> Carried:
    """What a fight does to his armour and shield lasts: a Grievous Injury reduces the
    Protection Rating "until repaired", and "A cloven shield is useless"; Fatigue and
    Endurance return between fights. As the fight began, and as it ends."""
    joined = figure.stats
    began = {"protection": joined.get("protection", 0), "shield": joined.get("shield", 0)}
    return began, {"protection": figure.protection, "shield": figure.shield}


ARMOUR, SHIELD = "armour", "shield"


def repaired(record: Record, repair: Repair) -> Record:
    """Armour repaired has its Protection Rating back, as he joined the campaign with it; a
    shield replaced is usable again (if he joined with one: a repair adds no gear)."""
    stat = {ARMOUR: "protection", SHIELD: "shield"}.get(repair.item)
    if stat is None:
        raise RuleError(
            f"DragonQuest repairs `{ARMOUR}` (its Protection Rating) or `{SHIELD}` (a cloven "
            f"one replaced), not `{repair.item}`",
            field="$.item",
        )
    whole = record.stats.get(stat, 0)
    if whole == 0:
        raise RuleError(f"{record.name} joined the campaign with no {repair.item}", field="$.item")
    if record.current.get(stat, whole) == whole:
        raise RuleError(
            f"{record.name}'s {repair.item} is whole: nothing to repair", field="$.item"
        )
    return msgspec.structs.replace(record, current={**record.current, stat: whole})


BETWEEN_FIGHTS = Permanence(
    after_the_fight=armour_and_shield,
    repair=repaired,
    lasting=lasts,
    rest=nothing_to_restore,
    treat=heal_removes_injury,
    no_rest="has no rest that heals here: pools return between fights, a Grievous Injury "
    "needs a `treatment`",
)


class DragonQuest(Ruleset):
    permanence = BETWEEN_FIGHTS
    name = "dragonquest"
    graph = Graph(name, [UPRIGHT, KNOCKED_DOWN, STUNNED, OUT_OF_ACTION, DEAD], TRANSITIONS)
    character = Figure

    def harm(self, character: Any) -> tuple[int, ...]:
        """The state, then Grievous Injuries, Endurance and Fatigue left."""
        return (
            HARM.get(character.state, 0),
            len(character.injuries),
            -character.endurance,
            -character.fatigue,
        )

    dice: ClassVar[dict[str, int]] = {
        "grievous": 100,
        "drop": 100,
        "stun_recovery": 100,
        "knockback": 100,
        "keep_feet": 100,
    }
    stats: ClassVar[dict[str, int | None]] = {
        "fatigue": None,
        "endurance": None,
        "willpower": None,
        "protection": 0,
        "shield": 0,
    }
    optional_stats = HOUSE_RULE_STATS
    who_may_act = WHO_MAY_ACT
    # the end of a pulse is the stunned's recovery roll, and does nothing to anyone else
    tick_concerns: ClassVar[dict[str, TickConcern]] = {
        "turn_ended": TickConcern(states=frozenset({STUNNED}))
    }
    kinds = ("character", "monster")
    presentation = PRESENTATION
    not_importable = NOT_IMPORTABLE
    hit_facts = frozenset(
        {
            "strike_roll",
            "strike_chance",
            "band",
            "weapon",
            "cleave_shield",
            "magic",
            "breath",
            "slam",
            "purely_magical",
            "damage_roll",
            *DAMAGE_CHECK_FACTS,
        }
    )
    heal_facts = frozenset({"pool"})
    heal_means = tuple(HEAL_MEANS)
    choices = CHOICES
    options: ClassVar[dict[str, bool | int | str]] = {"strike_01_grievous": True, "knockback": True}
    tables: ClassVar[dict[str, Any]] = {"grievous_injury": GRIEVOUS_INJURY_STAND_IN}

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> Figure:
        for key, value in stats.items():
            if value < 0:
                raise ctx.refuse(f"`{key}` is never negative (given {value})", f"$.stats.{key}")
        if stats["endurance"] <= UNCONSCIOUS_AT:
            raise ctx.refuse(
                "a figure joins conscious, with his full Endurance (at least 4): record what "
                "hurt him as hits",
                "$.stats.endurance",
            )
        if stats["shield"] not in (0, 1):
            raise ctx.refuse("`shield` is 1 if carrying one, else 0", "$.stats.shield")
        for key in HOUSE_RULE_STATS:
            if key in stats and stats[key] < 1:
                raise ctx.refuse(
                    f"`{key}` is at least 1; leave it out if it is not known", f"$.stats.{key}"
                )
        # house-rule stats the GM did not give stay unknown: their checks are skipped
        return Figure(
            **self.basics(event, kind, stats),
            fatigue=stats["fatigue"],
            endurance=stats["endurance"],
            protection=stats["protection"],
            shield=stats["shield"],
        )

    def on_hit(self, fight: FightState[Any], target: Figure, hit: Hit, ctx: Context) -> Figure:
        if target.state == DEAD:
            raise ctx.refuse(f"{target.name} is dead; a hit changes nothing (retract it?)")
        magical = bool(hit.magic or hit.breath)
        check_hit(target, hit, magical, ctx)
        check = damage_check(fight, hit, magical, ctx)
        band = None if magical else strike_band(hit, check.strength_bonus, ctx)
        if band == GRIEVOUS:
            check_weapon(hit, ctx)
        inflicted = self.damage(target, hit, check.damage, band, ctx)
        figure = take_damage(target, inflicted)
        if ctx.explains:  # the words of what `inflicted` holds, when someone reads them
            ctx.say(f"{target.name}: {damage_text(target, figure, inflicted)}")
        through = check.damage - inflicted.absorbed
        if magical and through > target.fatigue + target.endurance:
            ctx.say(
                "{through} is more than Fatigue and Endurance together: killed outright",
                through=through,
            )
        if band == GRIEVOUS and figure.endurance > 0:
            figure = grievous_injury(self.table(fight, "grievous_injury"), figure, hit, ctx)
        worst = worse(target.state, effects_of_damage(figure))
        if figure.endurance > UNCONSCIOUS_AT:  # the unconscious and the dead are past stun
            if stuns(figure, inflicted):
                worst = worse(worst, stun(figure, inflicted, ctx))
            if ctx.options["knockback"] and not magical:
                worst = worse(worst, knock_back(figure, hit, check.damage, ctx))
        if worst != figure.state:
            figure = ctx.move(figure, FALL_TRIGGER[worst])
            if worst != KNOCKED_DOWN:  # the knock-back already said how he fell
                ctx.say(FALL_TEXT[worst], name=figure.name, endurance=figure.endurance)
        return stunned_when(target, figure)

    def damage(
        self, target: Figure, hit: Hit, damage: int, band: Band | None, ctx: Context
    ) -> Inflicted:
        """The damage of one strike, by band (None: magic or breath)."""
        if band is None:
            if hit.magic and hit.purely_magical is False:
                ctx.say("spell of the surroundings {damage}, absorbed by armour", damage=damage)
                return surroundings_damage(target, damage)
            ctx.say(
                "{spell} {damage}, past any armour",
                spell="breath" if hit.breath else "magic",
                damage=damage,
            )
            return magic_damage(target, damage)
        if band == FATIGUE:
            return fatigue_damage(target, damage)
        return endurance_damage(target, damage)

    def on_heal(self, fight: FightState[Any], target: Figure, heal: Heal, ctx: Context) -> Figure:
        if target.state == DEAD:
            raise ctx.refuse(f"{target.name} is dead; no healing brings him back")
        pool = healed_pool(heal, ctx)
        figure = restore(target, pool, heal.amount)
        was, now = getattr(target, pool), getattr(figure, pool)
        ctx.say(
            "{target.name} regains {regained} {pool} ({was} -> {now}, at most {most})",
            target=target,
            regained=now - was,
            pool=pool.capitalize(),
            was=was,
            now=now,
            most=target.stats[pool],
        )
        figure = revived(figure, ctx)
        if figure.state != target.state:
            ctx.say("{figure.name} comes to, on the ground (knocked down)", figure=figure)
        return figure

    def on_choice(
        self, fight: FightState[Any], character: Figure, choice: Choice, ctx: Context
    ) -> Figure:
        if choice.option not in CHOICES:
            raise ctx.refuse(
                f"DragonQuest leaves one decision here: `stand_up`, not `{choice.option}`",
                "$.option",
            )
        if character.state != KNOCKED_DOWN:
            raise ctx.refuse(self.cannot_stand(character), "$.option")
        ctx.say("{character.name} spends his action standing up", character=character)
        return ctx.move(character, "stand_up")

    @staticmethod
    def cannot_stand(figure: Figure) -> str:
        if figure.state == STUNNED:
            return f"{figure.name} is stunned: he may only try to recover, at the end of a pulse"
        if figure.state == UPRIGHT:
            return f"{figure.name} is already on his feet"
        if figure.state == OUT_OF_ACTION:
            return f"{figure.name} is unconscious: heal his Endurance above 3 first"
        return f"{figure.name} is dead"

    def on_turn_ended(
        self, fight: FightState[Any], turn: TurnEnded, ctx: Context
    ) -> dict[str, Figure]:
        updated: dict[str, Figure] = {}
        attempts: list[str] = []
        for cid, figure in self.turns(fight, "turn_ended", turn, ctx).items():
            if figure.state != STUNNED:
                continue
            if figure.stunned_this_pulse:
                updated[cid] = msgspec.structs.replace(figure, stunned_this_pulse=False)
                if ctx.explains:
                    attempts.append(
                        f"{figure.name} was stunned in this pulse: tries to recover from the next"
                    )
                continue
            after, said = stun_recovery(figure, ctx.for_character(cid))
            attempts.append(said)
            if after is not figure:
                updated[cid] = after
        if ctx.explains:
            ctx.say("end of pulse: " + ("; ".join(attempts) or "nobody stunned"))
        return updated

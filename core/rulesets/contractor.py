"""Contractor: flat damage against HP, the d100 Wound Table, wound layers against Constitution.

States in this game:
  upright        acting. A contractor keeps acting after a wound unless the wound prevents it.
  out_of_action  an active wound whose type prevents acting (its table row says so; a
                 location-10 wound from its roll on): cannot act until that wound is treated
                 (or the Foreman points it at gear), then upright again.
  dead           Constitution (and so Maximum HP) at 0 or less: permanent, no resurrection.
  (knocked_down, stunned, downed and stabilised are not used: the text has no such conditions.)

Who may act: an upright contractor attacks and heals; one out_of_action "is out of action: a
wound prevents acting until it is treated" (the wounds are named); the dead are "dead,
permanently". A `hit` whose `attacker`, or a `heal` whose `healer`, is such a contractor is
refused (void on replay): an out-of-action contractor cannot Mend himself, others may treat him.

Stats: `constitution` (required, at least 1), `ap` (armour points, default 0), `motivation`
(default 0), and any attribute the fight's location table penalises (stand-in table: perception,
vitality, strength, dexterity, speed). `stats` keeps the values a contractor joined with;
each is also shown at its value now under its own name at the top of the sheet, as in every
ruleset (Cinder, Dexterity 12, shows `dexterity` 10 after her Fracture); what wounds take off
them is also in `penalties`. Kind: `contractor`.
Gear from `character_joined.gear`, by slot: `back` or `pack`, `shield_arm` and `weapon_arm`
cover a location; the Foreman may point location 10 at any slot. A fitted prosthetic is gear
at its own location.
Counters: `constitution` and `max_hp` (now), `hp` (current), `ap`, `motivation`, `perception`,
`vitality`, `strength`, `dexterity`, `speed` (now; null when not joined with),
`own_attributes` ({attribute: value now} for an attribute only the fight's own location table
names, which has no field of its own), `wound_counter` (active wounds, pending
included), `penalties` ({attribute: total}), `injuries` (the active wounds, each with its id
and layers), `pending` (location-10 wounds waiting for the Foreman), `gear_damage` (wounds
gear, prosthetics included, took instead of the body).

Dice: `wound` (d100, read 1-100: give 00 as 100), one roll each time a hit takes a contractor
to 0 HP. The roll gives the wound type by range and the location by its final digit (0 is 10):
  1-10    Lucky (the text): the wound is cancelled; +5 Motivation.
  11-90   the `wound_types` table. STAND-IN default, as the text does not print it:
          11-20 Graze, 21-30 Laceration, 31-40 Fracture, 41-50 Burn, 51-60 Puncture,
          61-70 Concussion, 71-80 Dislocation, 81-90 Internal Injury. Only Fracture is the
          text's (its example roll, 37; its effect: disadvantage on skill checks involving that
          location until treated); its range and every other row are made up, have no effect of
          their own, and are marked "(stand-in)" when rolled.
  91-100  Maimed (the text): a permanent wound that normal treatment cannot remove.
Locations, 1-9 the `locations` table. STAND-IN default, except 7 (the text's):
  1 head (perception -2), 2 face (perception -1), 3 chest (vitality -2), 4 abdomen
  (vitality -1), 5 back, the Back/Pack (strength -1; gear in `back` or `pack`), 6 shield arm
  (strength -2; gear in `shield_arm`), 7 weapon arm (dexterity -2; gear in `weapon_arm`),
  8 left leg (speed -2), 9 right leg (speed -2).
  10 (the text): exposed gear, or the body location the Foreman judges most exposed (a `choice`).
Tables: `wound_types` and `locations` replace the stand-ins through `fight_started.tables`
(`woundlog new --tables FILE.toml`), rows keyed by the book's ranges and numbers:
  [wound_types.rows]
  "11-36" = { name = "Bruise", effect = "-1 on the next check" }
  "37" = { name = "Fracture", effect = "disadvantage with that limb until treated" }
  "38-90" = { name = "Knockout", effect = "senseless", prevents_acting = true }
  [locations.rows]
  7 = { name = "weapon_arm", penalty = { dexterity = -2 }, gear = ["weapon_arm"] }
  ... and every other location from 1 to 9.
A replacement must cover 11-90 (wound types) or 1-9 (locations) exactly once; anything else is
refused as a structural error when the fight starts. Lucky, Maimed and location 10 are the
text's own rules and are not replaced.

Facts: on a hit, `ignores_ap` (true: AP does not reduce it), `gear_absorbs` (whether gear
covering the location takes the wound) and `location` (the Foreman's choice for a location-10
wound, given with the hit). On a heal, `wound`: the id of the wound.
Heal means: `mend` (Mend + Vitality, in combat), `treat_wound` (camp), `clinic` (town leave)
treat a wound; `prosthetic` and `coiltech` are for Maimed wounds; any other means is ordinary
HP healing.
Choices (the Foreman's; `character` is the wounded contractor): a body location, by name or
number, or `gear:SLOT`, for the oldest pending location-10 wound; `prosthetic_lost:WOUND` when a
prosthetic is stolen, broken or destroyed.
Options: `gear_absorbs` (default true): gear covering the location takes the wound unless the
hit says `gear_absorbs: false`. Set it false to make gear take a wound only when the hit says
`gear_absorbs: true`. `prosthetics_anywhere` (default false): a fitted prosthetic takes a wound
at its own location wherever it is fitted, not only at the text's gear locations.

Luck (a report's order of harm): the state, then Maimed wounds, wounds on the counter,
Constitution and HP.

Campaigns (`BETWEEN_JOBS`): every active wound stays until treated, with its three layers
(the Wound Counter's -4 Constitution and Maximum HP, the body part's penalty, the type's
effect): the next fight joins with Constitution and attributes at their values now. A
`treatment` of a non-Maimed wound (means `treat_wound`, `clinic`, ...: Camp Treat Wound, Town
Leave clinics) reverses all three layers. A Maimed wound is refused normal treatment; means
`prosthetic` offsets its penalty (the Wound Counter stays), `coiltech` (Coiltech restoration)
removes it. Motivation (Lucky's +5) is carried. Decisions: HP are not carried (the text resets
them at every wound; woundlog starts each fight at Maximum HP); there is no rest; a location-10
wound still waiting on the Foreman when the fight's log ends is not carried (resolve it there).
Gear a Maimed result destroyed ("destroys that gear permanently") is gone from the record, and
the next fight joins without it; gear a lesser wound damaged is kept (the Foreman narrates the
consequence) and its damage is not carried. A member's wounds do not enter the next fight's
sheet: their layers are in the Constitution and attributes it joins with, and its `injuries`
list the wounds taken in that fight.

Decisions where the text is silent or ambiguous:
- Damage beyond 0 HP is lost at the reset: a hit that takes a contractor to 0 HP (exactly 0
  counts) rolls one wound however far below 0 it went, and HP comes back to Maximum HP.
- AP takes its value off every hit, never below 0; a hit reduced to 0 does nothing.
- Maximum HP is Constitution: the text ties one to the other, so `max_hp` always equals
  `constitution`, and a contractor joins at full HP.
- The reset to Maximum HP comes after the wound's own layers (Cinder, Constitution 14, is back
  on 10 HP after her Fracture). It happens on every roll, Lucky and gear included: step 2 has no
  exception.
- A roll of exactly 10 is Lucky: Lucky covers 1-10. "Location 10 is never Lucky by itself" means
  20, 30 ... 90 follow their type; a Lucky result cancels the wound wherever it would land.
  Lucky's +5 Motivation stays for the rest of the fight.
- Location 10 (a non-Lucky roll ending in 0, 100 included) "points to exposed gear or lets the
  Foreman choose the most exposed body location", and "when gear absorbs the wound: the Wound
  Counter does not increase": where the wound lands is part of resolving it, so it is resolved
  before the counter counts. The Foreman's choice given with the hit (fact `location`: a body
  location, by name or number 1-9, or `gear:SLOT`) places it at once; a `location` on a hit
  whose roll names a location is unused. Without it the wound waits in `pending` for the
  Foreman's `choice`: a body location (gear covering it takes the wound as for a rolled
  location, by the hit's `gear_absorbs`) or `gear:SLOT` (that gear, whatever the slot, takes
  it). Its counter counts from the roll only when nothing could take it (no gear carried, no
  prosthetic fitted: the body takes it wherever it lands, and a last wound kills at the roll,
  "no automatic last-second save"); otherwise it counts once the choice puts it on the body, and
  gear that takes it keeps a contractor on his last wound alive. Whether its type prevents
  acting counts from the roll; the location's penalty and the effect wait for the choice. A
  counter that counted from the roll and comes off when the Foreman points it at gear gives
  current HP back the 4 the reset fell short by; a wound placed on the body later caps current
  HP at the new Maximum HP. Several pending wounds are placed oldest first; a pending wound
  cannot be treated.
- Gear takes the wound by default (the text's "when gear absorbs" reads as the rule); option
  and fact `gear_absorbs` change it. Relevant gear is an item in a slot covering the location.
  A Maimed result destroys it (it leaves `gear`); any other result is kept in `gear_damage` with
  the wound type, and the Foreman narrates the consequence (dropped weapon, torn pack ...).
  Either way: no counter, no penalty, no effect.
- A fitted prosthetic is gear ("Prosthetics are gear"), and gear takes a wound only "if the
  wound location is Back/Pack, Shield Arm, or Weapon Arm": a prosthetic covers its own location
  when that is one of them (a location whose row names gear slots), after the item in a slot
  covering it. A prosthetic leg (location 8) takes nothing: the wound is the body's. Option
  `prosthetics_anywhere` widens the text's list to wherever a prosthetic is fitted. It takes the
  wound by the gear rule, by the same option and fact `gear_absorbs`: no counter, no penalty, no
  effect. A Maimed result destroys it: the Maimed wound it offset keeps its counter and has its
  penalties back, as with `prosthetic_lost`, and a new prosthetic may be fitted. Any other
  result damages it (kept in `gear_damage`, slot `prosthetic:WOUND`): it stays fitted, and if
  the Foreman's consequence breaks it, `prosthetic_lost:WOUND` says so.
- A wound's id is the id of the hit that dealt it (`#N` when the hit has none), so undoing
  another event never renames it.
- Treatment (`mend`, `treat_wound`, `clinic`) removes one named non-Maimed wound: all three
  layers are reversed (counter -1, so Constitution and Maximum HP +4; its penalty; its effect).
  Where each may be used (combat, camp, town) is for the table: woundlog does not check it.
  Treatment does not raise current HP by itself.
- Ordinary healing: every heal's `amount` restores that much current HP, up to Maximum HP
  (after a treatment, up to the new Maximum HP). It never removes a wound. A heal naming a
  `wound` with a means that treats nothing is refused.
- Maimed: treatment is refused, naming what it needs. A `prosthetic` (a heal naming the wound)
  offsets the Maimed wound's penalties: its location penalty and its effect end, but the wound
  stays active on the counter (Constitution and Maximum HP stay 4 lower), as Maimed is
  permanent. `coiltech` (Coiltech restoration) removes a Maimed wound like a treatment. Only
  Maimed wounds take either; one prosthetic per wound; its name (Basic Weapon Arm ...) goes in
  the note. The choice `prosthetic_lost:WOUND` brings the penalties back.
- Permanent death: Constitution at 0 or less, from the wound counter and any Constitution
  penalty, is `dead`, with 0 HP. A hit, heal or choice for the dead is refused.
- Effects are kept on the wound as the table words them: woundlog rolls no skill checks, so
  "disadvantage" is for the table to apply. A type that prevents acting makes its contractor
  out_of_action while it is active; none of the text's own rows does.
- The text has no start- or end-of-turn rule: turn ticks are accepted and change nothing.
- A hit on an out_of_action contractor is resolved like any other.
- Who may act is the table, not an exception: a contractor is out_of_action exactly while a
  wound that prevents acting is active (placed, or rolled and waiting on location 10), so the
  state says it. "Prevents acting" reads as every act: he may neither attack nor heal, not
  even Mend his own wound; a comrade may. The refusal names the wounds to treat.
- Every stat the contractor joined with is shown at its value now, once, under its own name:
  Constitution as the counter and penalties leave it, AP, Motivation with Lucky's bonus, every
  other attribute with its penalties (offset ones excluded). The stand-in table's attributes
  are fields of the sheet (null when not joined with, as Warhammer Quest's profile); a fight's
  own table may name others (`wits`), which no field can hold: those are in `own_attributes`.
  A penalty on an attribute the contractor did not join with has no value to come off: it is
  shown in `penalties` only.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from woundlog.events import CharacterJoined, Choice, Heal, Hit, RuleError
from woundlog.events.campaign import Treatment
from woundlog.events.importers.rules import ImportRules

from ..fight_state import Character, FightState
from ..machine import Graph
from ..permanence import (
    Carried,
    Injury,
    Permanence,
    Record,
    named_injury,
    nothing_to_restore,
)
from ..permanence import without as off_the_record
from ..presentation import Presentation
from ..ruleset import Acting, Context, Ruleset
from ..states import DEAD, HARM, OUT_OF_ACTION, UPRIGHT, State
from ..tables import Table

TRANSITIONS = [
    ("prevent_acting", UPRIGHT, OUT_OF_ACTION),  # a wound whose type prevents acting is rolled
    ("act_again", OUT_OF_ACTION, UPRIGHT),  # the last such wound is treated, or goes to gear
    ("die", [UPRIGHT, OUT_OF_ACTION], DEAD),  # Constitution 0 or less; nothing leaves dead
]

WHO_MAY_ACT: dict[State, Acting] = {
    OUT_OF_ACTION: Acting(
        attack=False,
        heal=False,
        why="is out of action: a wound prevents acting until it is treated",
    ),
    DEAD: Acting(attack=False, heal=False, why="is dead, permanently"),
}
"""Upright contractors act ("continue acting unless the wound prevents it"); a wound that
prevents acting is the out_of_action state, so the table says it; the dead act no more."""

CONSTITUTION_PER_WOUND = 4
LUCKY_MOTIVATION = 5
TREATMENTS = ("mend", "treat_wound", "clinic")
PROSTHETIC = "prosthetic"
COILTECH = "coiltech"
EXPOSED = 10  # location 10: exposed gear, or the Foreman's choice
GEAR_CHOICE = "gear:"
PROSTHETIC_LOST = "prosthetic_lost:"

PRESENTATION = Presentation(
    pools=("hp", "constitution"), maximums={"hp": "max_hp"}, units={"hp": "HP"}
)
"""A contractor lives by HP, and by Constitution under it (its maximum, against which wounds
layer); every contractor is a player's."""
IMPORTING = ImportRules(stat="constitution")
"""Another program's maximum hit points are Constitution (Maximum HP follows it); kinds are
left to the default."""


# --- the tables ---------------------------------------------------------------------------------


class WoundType(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One row of the Wound Table: the type's name, its effect, and whether it stops acting."""

    name: str
    effect: str = ""
    prevents_acting: bool = False
    stand_in: bool = False  # True: not the book's row, woundlog's stand-in for it


class WoundTypes(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The wound types for rolls 11-90, keyed by the book's ranges: `"11-20"`, `"37"`."""

    rows: dict[str, WoundType]

    def __post_init__(self) -> None:
        self.table()  # a malformed replacement is refused when the fight starts

    def table(self) -> Table[WoundType]:
        return Table("d100", covering(self.rows, range(11, 91), "wound_types"), range(11, 91))


class Location(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One body location: its name, its stat penalty, and the gear slots that cover it."""

    name: str
    penalty: dict[str, int] = {}
    gear: tuple[str, ...] = ()
    stand_in: bool = False  # True: not the book's row, woundlog's stand-in for it


class Locations(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The body locations 1-9, keyed by number (location 10 is the text's own rule)."""

    rows: dict[str, Location]

    def __post_init__(self) -> None:
        if str(EXPOSED) in self.rows:
            raise ValueError(
                "locations: location 10 is the text's own rule (exposed gear or the Foreman's "
                "choice): give rows 1 to 9 only"
            )
        covering(self.rows, range(1, 10), "locations")
        names = [row.name for row in self.rows.values()]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"locations: each name once, not {', '.join(twice)}")

    def number(self, number: int) -> Location:
        return self.rows[str(number)]

    def named(self, option: str) -> Location | None:
        """The location a Foreman names, by its name or its number (1-9)."""
        if option in self.rows:
            return self.rows[option]
        return next((row for row in self.rows.values() if row.name == option), None)

    def attributes(self) -> list[str]:
        """Every attribute some location penalises, in table order."""
        return list(dict.fromkeys(stat for row in self.rows.values() for stat in row.penalty))


def covering(rows: dict[str, Any], faces: range, table: str) -> dict[tuple[int, int], Any]:
    """Rows keyed `"low-high"` (or one number) as ranges that cover `faces` exactly once each."""
    ranges: dict[tuple[int, int], Any] = {}
    seen: dict[int, str] = {}
    for key, row in rows.items():
        low, _, high = key.partition("-")
        if not (low.strip().isdigit() and (not high or high.strip().isdigit())):
            raise ValueError(f"{table}: `{key}` is not a roll or a range of rolls like 11-20")
        span = (int(low), int(high or low))
        for roll in range(span[0], span[1] + 1):
            if roll not in faces:
                raise ValueError(f"{table}: `{key}` reaches {roll}, outside {faces[0]}-{faces[-1]}")
            if roll in seen:
                raise ValueError(f"{table}: {roll} is in both `{seen[roll]}` and `{key}`")
            seen[roll] = key
        ranges[span] = row
    missing = [roll for roll in faces if roll not in seen]
    if missing:
        raise ValueError(f"{table}: no row for {spans(missing)}")
    return ranges


def spans(rolls: list[int]) -> str:
    """`[2, 3, 4, 9]` as `2-4, 9`."""
    runs: list[list[int]] = []
    for roll in rolls:
        if runs and roll == runs[-1][-1] + 1:
            runs[-1].append(roll)
        else:
            runs.append([roll])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else f"{run[0]}" for run in runs)


LUCKY = WoundType("Lucky", "the wound is cancelled: +5 Motivation")
MAIMED = WoundType(
    "Maimed", "permanent: only a prosthetic (offsets it) or Coiltech restoration (removes it)"
)

WOUND_TYPES = WoundTypes(  # STAND-IN for the book's 11-90 (the text prints only 37, Fracture)
    {
        "11-20": WoundType("Graze", stand_in=True),
        "21-30": WoundType("Laceration", stand_in=True),
        "31-40": WoundType(  # the name and effect are the text's; the range is the stand-in's
            "Fracture", "disadvantage on skill checks involving that location until treated"
        ),
        "41-50": WoundType("Burn", stand_in=True),
        "51-60": WoundType("Puncture", stand_in=True),
        "61-70": WoundType("Concussion", stand_in=True),
        "71-80": WoundType("Dislocation", stand_in=True),
        "81-90": WoundType("Internal Injury", stand_in=True),
    }
)

LOCATIONS = Locations(  # STAND-IN for the book's location table, except 7 (the text's)
    {
        "1": Location("head", {"perception": -2}, stand_in=True),
        "2": Location("face", {"perception": -1}, stand_in=True),
        "3": Location("chest", {"vitality": -2}, stand_in=True),
        "4": Location("abdomen", {"vitality": -1}, stand_in=True),
        "5": Location("back", {"strength": -1}, ("back", "pack"), stand_in=True),
        "6": Location("shield_arm", {"strength": -2}, ("shield_arm",), stand_in=True),
        "7": Location("weapon_arm", {"dexterity": -2}, ("weapon_arm",)),
        "8": Location("left_leg", {"speed": -2}, stand_in=True),
        "9": Location("right_leg", {"speed": -2}, stand_in=True),
    }
)


ATTRIBUTES = ("perception", "vitality", "strength", "dexterity", "speed")
"""The attributes the stand-in location table penalises: each a field of the sheet."""
COUNTERS = ("constitution", "ap", "motivation")
"""Stats that are counters of their own, at their value now."""


def spoken(name: str) -> str:
    return name.replace("_", " ")


def named(kind: WoundType | Location) -> str:
    """A table row's name, marked when it is woundlog's stand-in rather than the book's."""
    return spoken(kind.name) + (" (stand-in)" if kind.stand_in else "")


def wound_table(types: WoundTypes) -> Table[WoundType]:
    """The d100 Wound Table: the text's Lucky and Maimed rows around the fight's types (built
    once per table a fight plays with: a pure memo)."""
    known = _wound_tables.get(id(types))
    if known is not None and known[0] is types:
        return known[1]
    table = Table("d100", {(1, 10): LUCKY, **types.table().rows, (91, 100): MAIMED}, range(1, 101))
    if len(_wound_tables) > 64:
        _wound_tables.clear()
    _wound_tables[id(types)] = (types, table)
    return table


_wound_tables: dict[int, tuple[WoundTypes, Table[WoundType]]] = {}


# --- what a contractor carries ------------------------------------------------------------------


class Wound(msgspec.Struct, frozen=True, kw_only=True):
    """An active wound on the body: its three layers, kept so treatment can reverse them."""

    id: str  # the hit that dealt it
    roll: int
    type: str
    location: str
    penalty: dict[str, int] = {}
    effect: str = ""
    maimed: bool = False
    prevents_acting: bool = False
    prosthetic: bool = False  # a Maimed wound's penalty and effect offset by a prosthetic

    def offset(self) -> bool:
        return self.maimed and self.prosthetic

    def __str__(self) -> str:
        penalty = ", ".join(f"{stat} {value:+d}" for stat, value in self.penalty.items())
        shown = f"{self.id} {self.type}, {spoken(self.location)}"
        if self.offset():
            return f"{shown} (prosthetic)"
        return shown + (f" ({penalty})" if penalty else "")


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    """A location-10 wound waiting for the Foreman to choose where it lands. Whether its type
    prevents acting counts already; its counter counts already only if nothing the contractor
    has could take it (no gear, no prosthetic: the body takes it wherever it lands), else
    (`counted` false) once the Foreman places it on the body."""

    id: str
    roll: int
    type: str
    gear_absorbs: bool
    prevents_acting: bool = False
    counted: bool = True

    def __str__(self) -> str:
        return f"{self.id} {self.type}, roll {self.roll}: location 10, the Foreman chooses"


class GearHit(msgspec.Struct, frozen=True, kw_only=True):
    """A wound that gear took instead of the body."""

    wound: str
    slot: str
    item: str
    type: str
    destroyed: bool

    def __str__(self) -> str:
        return f"{self.wound} {self.item}: {'destroyed' if self.destroyed else self.type}"


class ContractorSheet(Character, frozen=True, kw_only=True):
    """A contractor's sheet: `stats` as joined; the counters, and every stat under its own
    name, as the wounds leave them (None: an attribute the contractor did not join with)."""

    constitution: int
    max_hp: int
    hp: int
    ap: int
    motivation: int
    perception: int | None = None
    vitality: int | None = None
    strength: int | None = None
    dexterity: int | None = None
    speed: int | None = None
    own_attributes: dict[str, int] = msgspec.field(default_factory=dict)
    wound_counter: int = 0
    penalties: dict[str, int] = msgspec.field(default_factory=dict)
    injuries: tuple[Wound, ...] = ()
    pending: tuple[Pending, ...] = ()
    gear_damage: tuple[GearHit, ...] = ()


# --- damage and the wound roll ------------------------------------------------------------------


def flat_damage(hit: Hit, ap: int) -> int:
    """Fixed damage, reduced by AP unless the effect ignores AP."""
    return hit.damage if hit.ignores_ap else max(0, hit.damage - ap)


def wound_roll(ctx: Context) -> int:
    """d100 read 1-100: a die given as 100 is the 00."""
    return ctx.roll("wound")


def location_of(roll: int) -> int:
    """The final digit; 0 is location 10."""
    return roll % 10 or EXPOSED


def with_layers(
    sheet: ContractorSheet,
    injuries: tuple[Wound, ...],
    pending: tuple[Pending, ...] | None = None,
) -> ContractorSheet:
    """The sheet carrying exactly these wounds (placed, and waiting on location 10): counter,
    Constitution, Maximum HP, penalties, and every stat at its current value."""
    pending = sheet.pending if pending is None else pending
    penalties: dict[str, int] = {}
    for wound in injuries:
        if not wound.offset():
            for stat, value in wound.penalty.items():
                penalties[stat] = penalties.get(stat, 0) + value
    penalties = {stat: value for stat, value in penalties.items() if value}
    counter = len(injuries) + sum(1 for waiting in pending if waiting.counted)
    constitution = (
        sheet.stats["constitution"]
        - CONSTITUTION_PER_WOUND * counter
        + penalties.get("constitution", 0)
    )
    return with_current(
        msgspec.structs.replace(
            sheet,
            injuries=injuries,
            pending=pending,
            wound_counter=counter,
            penalties=penalties,
            constitution=constitution,
            max_hp=constitution,  # Maximum HP follows Constitution
            # and HP never stands above it: a lost prosthetic's -2 Constitution takes HP too
            hp=max(0, min(sheet.hp, constitution)),
        )
    )


def with_current(sheet: ContractorSheet) -> ContractorSheet:
    """Every attribute the contractor joined with at its value now, after its penalties, under
    its own name, as the state JSON shows every stat the rules change, so nobody adds penalties
    by hand (Constitution and Motivation are counters already). An attribute only the fight's
    own table names has no field: it is shown in `own_attributes`."""
    named: dict[str, int | None] = dict.fromkeys(ATTRIBUTES)
    own: dict[str, int] = {}
    for stat, value in sheet.stats.items():
        if stat in COUNTERS:
            continue
        now = value + sheet.penalties.get(stat, 0)
        if stat in named:
            named[stat] = now
        else:
            own[stat] = now
    return msgspec.structs.replace(sheet, own_attributes=own, **named)


def exposed_gear(sheet: ContractorSheet, place: Location) -> str | None:
    """The slot whose gear covers this location, if the contractor carries any there."""
    return next((slot for slot in place.gear if sheet.gear.get(slot)), None)


def fitted_prosthetic(sheet: ContractorSheet, place: Location) -> Wound | None:
    """The prosthetic fitted at this location (the oldest, if several), as gear that covers it."""
    return next((w for w in sheet.injuries if w.offset() and w.location == place.name), None)


def gear_takes_wound(
    sheet: ContractorSheet, wound_id: str, kind: WoundType, slot: str
) -> tuple[ContractorSheet, str]:
    """No counter, no penalty, no effect: Maimed destroys the gear, anything else marks it."""
    item = sheet.gear[slot]
    maimed = kind is MAIMED
    hit = GearHit(wound=wound_id, slot=slot, item=item, type=kind.name, destroyed=maimed)
    gear = {s: i for s, i in sheet.gear.items() if s != slot} if maimed else sheet.gear
    taken = msgspec.structs.replace(sheet, gear=gear, gear_damage=(*sheet.gear_damage, hit))
    taken = with_layers(taken, taken.injuries)
    if maimed:
        return taken, f"the {item} takes it and is destroyed"
    return taken, f"the {item} takes it: the Foreman picks a gear consequence"


def prosthetic_takes_wound(
    sheet: ContractorSheet, wound_id: str, kind: WoundType, fitted: Wound
) -> tuple[ContractorSheet, str]:
    """A prosthetic is gear: it takes the wound as gear does. Maimed destroys it, and the
    Maimed wound it offset has its penalties back; anything else damages it, still fitted."""
    maimed = kind is MAIMED
    item = f"prosthetic {spoken(fitted.location)}"
    hit = GearHit(
        wound=wound_id,
        slot=f"{PROSTHETIC}:{fitted.id}",
        item=item,
        type=kind.name,
        destroyed=maimed,
    )
    injuries = sheet.injuries
    if maimed:
        lost = msgspec.structs.replace(fitted, prosthetic=False)
        injuries = tuple(lost if w is fitted else w for w in injuries)
    taken = msgspec.structs.replace(sheet, gear_damage=(*sheet.gear_damage, hit))
    taken = with_layers(taken, injuries)
    if maimed:
        return taken, (
            f"the {item} (wound {fitted.id}) takes it and is destroyed: "
            f"wound {fitted.id}'s penalties are back"
        )
    return taken, f"the {item} (wound {fitted.id}) takes it: the Foreman picks a gear consequence"


def body_takes_wound(
    sheet: ContractorSheet, wound_id: str, roll: int, kind: WoundType, place: Location
) -> tuple[ContractorSheet, str]:
    """The three layers: the counter (Constitution -4), the location's penalty, the effect.
    (A location-10 wound's counter already counts: `sheet` no longer has it pending.)"""
    wound = Wound(
        id=wound_id,
        roll=roll,
        type=kind.name,
        location=place.name,
        penalty=dict(place.penalty),
        effect=kind.effect,
        maimed=kind is MAIMED,
        prevents_acting=kind.prevents_acting,
    )
    wounded = with_layers(sheet, (*sheet.injuries, wound))
    layers = [f"{stat} {value:+d}" for stat, value in place.penalty.items()]
    if wounded.constitution != sheet.constitution:
        layers.insert(0, f"Constitution {sheet.constitution} -> {wounded.constitution}")
    if kind.effect:
        layers.append(kind.effect)
    return wounded, ", ".join(layers) or "no penalty, no effect"


def land_wound(
    sheet: ContractorSheet,
    wound_id: str,
    roll: int,
    kind: WoundType,
    place: Location,
    gear_absorbs: bool,
    prosthetics_anywhere: bool,
) -> tuple[ContractorSheet, str]:
    """At a body location: on the gear covering it (if it may absorb: the item in its slot
    first, then a prosthetic fitted there, at a gear location unless the option widens the
    text's list), else on the body."""
    if gear_absorbs:
        slot = exposed_gear(sheet, place)
        if slot is not None:
            return gear_takes_wound(sheet, wound_id, kind, slot)
        fitted = fitted_prosthetic(sheet, place) if place.gear or prosthetics_anywhere else None
        if fitted is not None:
            return prosthetic_takes_wound(sheet, wound_id, kind, fitted)
    return body_takes_wound(sheet, wound_id, roll, kind, place)


def stopping(sheet: ContractorSheet) -> list[str]:
    """The active wounds (placed or waiting on location 10) whose type prevents acting."""
    placed = [f"{w.type} {w.id}" for w in sheet.injuries if w.prevents_acting and not w.offset()]
    waiting = [f"{p.type} {p.id} (on location 10)" for p in sheet.pending if p.prevents_acting]
    return placed + waiting


def settle(sheet: ContractorSheet, ctx: Context) -> ContractorSheet:
    """Death at Constitution 0; otherwise acting unless an active wound prevents it."""
    if sheet.constitution <= 0:
        dead = ctx.move(sheet, "die")
        ctx.say("{sheet.name} dies: Constitution {sheet.constitution}, permanently", sheet=sheet)
        return msgspec.structs.replace(dead, hp=0)
    stopped = bool(stopping(sheet))
    if stopped and sheet.state == UPRIGHT:
        ctx.say("{sheet.name} cannot act until the wound is treated", sheet=sheet)
        return ctx.move(sheet, "prevent_acting")
    if not stopped and sheet.state == OUT_OF_ACTION:
        ctx.say("{sheet.name} can act again", sheet=sheet)
        return ctx.move(sheet, "act_again")
    return sheet


def naming_the_wounds(sheet: ContractorSheet, why: str | None) -> str | None:
    """The table's reason, with the wounds that prevent acting named, so the GM knows which to
    treat ("is out of action: a wound prevents acting until it is treated (Knockout slam)")."""
    if why is None or sheet.state != OUT_OF_ACTION:
        return why
    return f"{why} ({', '.join(stopping(sheet))})"


def refuse_the_dead(sheet: ContractorSheet, ctx: Context) -> None:
    if sheet.state == DEAD:
        raise ctx.refuse(f"{sheet.name} is dead, permanently: there is no resurrection")


def wound_named(sheet: ContractorSheet, heal: Heal, ctx: Context) -> Wound:
    """The active wound a heal's fact `wound` names."""
    active = ", ".join(w.id for w in sheet.injuries) or "none"
    if heal.wound is None:
        raise ctx.refuse(
            f"name the wound with fact `wound` (active wounds of {sheet.name}: {active})", "$.wound"
        )
    found = next((w for w in sheet.injuries if w.id == heal.wound), None)
    if found is not None:
        return found
    if any(p.id == heal.wound for p in sheet.pending):
        raise ctx.refuse(
            f"wound {heal.wound} is on location 10 and waits for the Foreman: place it with a "
            "`choice` first",
            "$.wound",
        )
    raise ctx.refuse(
        f"{sheet.name} has no active wound `{heal.wound}` (active: {active})", "$.wound"
    )


def without(sheet: ContractorSheet, wound: Wound) -> ContractorSheet:
    return with_layers(sheet, tuple(w for w in sheet.injuries if w is not wound))


def treat(sheet: ContractorSheet, heal: Heal, ctx: Context) -> ContractorSheet:
    """Mend, Treat Wound or a clinic: all three layers of a non-Maimed wound are reversed."""
    wound = wound_named(sheet, heal, ctx)
    if wound.maimed:
        raise ctx.refuse(
            f"wound {wound.id} is Maimed: normal treatment cannot remove it; fit a prosthetic "
            "(means `prosthetic`) or use Coiltech restoration (means `coiltech`)",
            "$.means",
        )
    treated = without(sheet, wound)
    ctx.say(
        "{heal.means} treats wound {wound.id} ({wound.type}, {where}): Constitution "
        "{sheet.constitution} -> {treated.constitution}",
        heal=heal,
        wound=wound,
        where=spoken(wound.location),
        sheet=sheet,
        treated=treated,
    )
    return treated


def fit_prosthetic(sheet: ContractorSheet, heal: Heal, ctx: Context) -> ContractorSheet:
    """A prosthetic offsets a Maimed wound's penalties; the wound itself stays."""
    wound = maimed_named(sheet, heal, ctx)
    if wound.prosthetic:
        raise ctx.refuse(f"wound {wound.id} already has its prosthetic", "$.wound")
    fitted = msgspec.structs.replace(wound, prosthetic=True)
    ctx.say(
        "a prosthetic offsets wound {wound.id} ({where})", wound=wound, where=spoken(wound.location)
    )
    return with_layers(sheet, tuple(fitted if w is wound else w for w in sheet.injuries))


def coiltech_restoration(sheet: ContractorSheet, heal: Heal, ctx: Context) -> ContractorSheet:
    """Coiltech restoration removes a Maimed wound: all three layers reversed."""
    wound = maimed_named(sheet, heal, ctx)
    restored = without(sheet, wound)
    ctx.say(
        "Coiltech restores wound {wound.id} ({where}): Constitution {sheet.constitution} -> "
        "{restored.constitution}",
        wound=wound,
        where=spoken(wound.location),
        sheet=sheet,
        restored=restored,
    )
    return restored


def maimed_named(sheet: ContractorSheet, heal: Heal, ctx: Context) -> Wound:
    wound = wound_named(sheet, heal, ctx)
    if not wound.maimed:
        raise ctx.refuse(
            f"wound {wound.id} is not Maimed: {heal.means} is for Maimed wounds; treat it with "
            f"means {', '.join(TREATMENTS)}",
            "$.means",
        )
    return wound


def restore_hp(sheet: ContractorSheet, amount: int, ctx: Context) -> ContractorSheet:
    """Ordinary healing: current HP up by `amount`, never past Maximum HP."""
    hp = min(sheet.max_hp, sheet.hp + amount)
    if hp != sheet.hp:
        ctx.say(
            "{sheet.name} recovers {recovered} HP ({sheet.hp} -> {hp})",
            sheet=sheet,
            recovered=hp - sheet.hp,
            hp=hp,
        )
    elif amount:
        ctx.say("{sheet.name} is already at Maximum HP ({sheet.max_hp})", sheet=sheet)
    return msgspec.structs.replace(sheet, hp=hp)


def place_pending(
    sheet: ContractorSheet, option: str, fight: FightState[Any], rules: Contractor, ctx: Context
) -> ContractorSheet:
    """The Foreman places the oldest location-10 wound: on exposed gear, or on a body location."""
    if not sheet.pending:
        raise ctx.refuse(
            f"no wound of {sheet.name} waits on location 10: a choice places such a wound, or "
            f"`{PROSTHETIC_LOST}WOUND` records a lost prosthetic",
            "$.option",
        )
    return place(sheet, 0, option, fight, rules, ctx)


def place(
    sheet: ContractorSheet,
    index: int,
    option: str,
    fight: FightState[Any],
    rules: Contractor,
    ctx: Context,
) -> ContractorSheet:
    """The Foreman places pending wound `index`: the layers are worked out again once it is."""
    waiting = sheet.pending[index]
    kind = wound_table(rules.table(fight, "wound_types"))[waiting.roll]
    unplaced = msgspec.structs.replace(
        sheet, pending=sheet.pending[:index] + sheet.pending[index + 1 :]
    )
    if option.startswith(GEAR_CHOICE):
        placed = on_exposed_gear(unplaced, waiting, kind, option.removeprefix(GEAR_CHOICE), ctx)
    else:
        placed = on_body_location(
            unplaced, waiting, kind, option, rules.table(fight, "locations"), ctx
        )
    return settle(reset_once_placed(sheet, placed, ctx), ctx)


def reset_once_placed(
    waiting: ContractorSheet, placed: ContractorSheet, ctx: Context
) -> ContractorSheet:
    """The HP reset came at the roll, to the Maximum HP the wound's counter left. Gear took it
    after all: the counter comes off, and current HP gains what the reset fell short by. A
    Constitution penalty of the location: current HP is capped at the new Maximum HP."""
    given_back = placed.max_hp - waiting.max_hp
    hp = min(placed.max_hp, waiting.hp + max(given_back, 0))
    if given_back > 0:
        ctx.say(
            "its counter comes off: Constitution {waiting.constitution} -> {placed.constitution}, "
            "HP {waiting.hp} -> {hp}",
            waiting=waiting,
            placed=placed,
            hp=hp,
        )
    return msgspec.structs.replace(placed, hp=hp)


def on_exposed_gear(
    sheet: ContractorSheet, waiting: Pending, kind: WoundType, slot: str, ctx: Context
) -> ContractorSheet:
    """Location 10 points to exposed gear: whatever the slot, that gear takes the wound."""
    if not sheet.gear.get(slot):
        carried = ", ".join(sheet.gear) or "nothing"
        raise ctx.refuse(
            f"{sheet.name} carries nothing in slot `{slot}` (slots: {carried})", "$.option"
        )
    placed, said = gear_takes_wound(sheet, waiting.id, kind, slot)
    ctx.say(
        "the Foreman points {kind} {waiting.id} at exposed gear: {said}",
        kind=named(kind),
        waiting=waiting,
        said=said,
    )
    return placed


def on_body_location(
    sheet: ContractorSheet,
    waiting: Pending,
    kind: WoundType,
    option: str,
    locations: Locations,
    ctx: Context,
) -> ContractorSheet:
    """The Foreman's most exposed body location; gear covering it may still take the wound."""
    place = locations.named(option)
    if place is None:
        known = ", ".join(row.name for row in locations.rows.values())
        raise ctx.refuse(
            f"`{option}` is no body location: choose one of {known} (or its number, 1-9), or "
            f"`{GEAR_CHOICE}SLOT` for exposed gear",
            "$.option",
        )
    anywhere = bool(ctx.options["prosthetics_anywhere"])
    placed, said = land_wound(
        sheet, waiting.id, waiting.roll, kind, place, waiting.gear_absorbs, anywhere
    )
    ctx.say(
        "the Foreman places {kind} {waiting.id} on the {place}: {said}",
        kind=named(kind),
        waiting=waiting,
        place=named(place),
        said=said,
    )
    return placed


def lose_prosthetic(sheet: ContractorSheet, option: str, ctx: Context) -> ContractorSheet:
    """A prosthetic stolen, broken or destroyed: the Maimed wound's penalties are back."""
    wound_id = option.removeprefix(PROSTHETIC_LOST)
    wound = next((w for w in sheet.injuries if w.id == wound_id and w.prosthetic), None)
    if wound is None:
        fitted = ", ".join(w.id for w in sheet.injuries if w.prosthetic) or "none"
        raise ctx.refuse(
            f"{sheet.name} has no prosthetic on wound `{wound_id}` (prosthetics on: {fitted})",
            "$.option",
        )
    lost = msgspec.structs.replace(wound, prosthetic=False)
    ctx.say(
        "{sheet.name} loses the prosthetic on wound {wound.id}: its penalties are back",
        sheet=sheet,
        wound=wound,
    )
    return with_layers(sheet, tuple(lost if w is wound else w for w in sheet.injuries))


# --- between fights: a campaign ----------------------------------------------------------------


def wounds_carried(sheet: ContractorSheet) -> Carried:
    """Constitution, Motivation, AP and every attribute, as joined and as the wounds leave them."""
    ends = dict(sheet.stats)
    ends.update(constitution=sheet.constitution, motivation=sheet.motivation, ap=sheet.ap)
    for stat in sheet.stats:
        if stat in ATTRIBUTES and getattr(sheet, stat) is not None:
            ends[stat] = getattr(sheet, stat)
        elif stat in sheet.own_attributes:
            ends[stat] = sheet.own_attributes[stat]
    return dict(sheet.stats), ends


def lasting_wound(wound: Wound) -> Injury:
    """A wound and its layers: -4 Constitution for the counter, and its penalty unless offset."""
    effect = {} if wound.offset() else dict(wound.penalty)
    effect["constitution"] = effect.get("constitution", 0) - CONSTITUTION_PER_WOUND
    return Injury(
        name=str(wound),
        fight="",
        event="",
        effect=effect,
        permanent=wound.maimed,
        prosthetic=wound.prosthetic,
    )


def treat_wound(record: Record, treatment: Treatment) -> Record:
    injury = named_injury(record, treatment)
    if not injury.permanent or treatment.means == "coiltech":
        # the record's `without`, not this module's, which takes a wound off a fight's sheet
        return off_the_record(record, injury)
    if treatment.means != "prosthetic":
        raise RuleError(
            f"{record.name}: Maimed wounds cannot be removed by normal treatment: they require "
            "prosthetics or Coiltech restoration (means `prosthetic` or `coiltech`)",
            field="$.means",
        )
    if injury.prosthetic:
        raise RuleError(f"{record.name}: {injury.name} already has a prosthetic", field="$.means")
    counter = {"constitution": -CONSTITUTION_PER_WOUND}
    offset = msgspec.structs.replace(injury, effect=counter, prosthetic=True)
    current = dict(record.current)
    for stat, value in injury.effect.items():
        if stat in current:
            current[stat] += counter.get(stat, 0) - value
    injuries = tuple(offset if i is injury else i for i in record.injuries)
    return msgspec.structs.replace(record, current=current, injuries=injuries)


BETWEEN_JOBS = Permanence(
    after_the_fight=wounds_carried,
    lasting=lasting_wound,
    rest=nothing_to_restore,
    treat=treat_wound,
    no_rest="has no rest that heals: a wound needs a `treatment` (Camp Treat Wound, a clinic)",
    labels={"constitution": "Constitution", "motivation": "Motivation"},
)


class Contractor(Ruleset):
    permanence = BETWEEN_JOBS
    name = "contractor"
    graph = Graph(name, [UPRIGHT, OUT_OF_ACTION, DEAD], TRANSITIONS)
    character = ContractorSheet
    who_may_act = WHO_MAY_ACT
    dice: ClassVar[dict[str, int]] = {"wound": 100}

    def harm(self, character: Any) -> tuple[int, ...]:
        """The state, then Maimed wounds, wounds on the counter, Constitution and HP left."""
        return (
            HARM.get(character.state, 0),
            sum(1 for w in character.injuries if w.maimed),
            character.wound_counter,
            -character.constitution,
            -character.hp,
        )

    dice_hints: ClassVar[dict[str, str]] = {"wound": "a d100's 00 is read as 100: give 100"}
    stats: ClassVar[dict[str, int | None]] = {"constitution": None, "ap": 0, "motivation": 0}
    kinds = ("contractor",)
    presentation = PRESENTATION
    importing = IMPORTING
    hit_facts = frozenset({"ignores_ap", "gear_absorbs", "location"})
    heal_facts = frozenset({"wound"})
    options: ClassVar[dict[str, bool | int | str]] = {
        "gear_absorbs": True,
        "prosthetics_anywhere": False,
    }
    tables: ClassVar[dict[str, Any]] = {"wound_types": WOUND_TYPES, "locations": LOCATIONS}

    def why_attacker_cannot(
        self, fight: FightState[Any], attacker_id: str, attacker: Any, hit: Hit
    ) -> str | None:
        return naming_the_wounds(
            attacker, super().why_attacker_cannot(fight, attacker_id, attacker, hit)
        )

    def why_healer_cannot(
        self, fight: FightState[Any], healer_id: str, healer: Any, heal: Heal
    ) -> str | None:
        return naming_the_wounds(healer, super().why_healer_cannot(fight, healer_id, healer, heal))

    def optional_stat_names(self, fight: FightState[Any]) -> tuple[str, ...]:
        """The attributes the fight's location table penalises may be given at join."""
        return tuple(a for a in self.table(fight, "locations").attributes() if a not in self.stats)

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> ContractorSheet:
        if stats["constitution"] < 1:
            raise ctx.refuse(
                "a contractor joins with Constitution 1 or more (at 0 they are dead)",
                "$.stats.constitution",
            )
        if stats["ap"] < 0:
            raise ctx.refuse("AP is 0 or more: it reduces damage", "$.stats.ap")
        return with_current(
            ContractorSheet(
                **self.basics(event, kind, stats),
                constitution=stats["constitution"],
                max_hp=stats["constitution"],
                hp=stats["constitution"],
                ap=stats["ap"],
                motivation=stats["motivation"],
            )
        )

    def on_hit(
        self, fight: FightState[Any], target: ContractorSheet, hit: Hit, ctx: Context
    ) -> ContractorSheet:
        refuse_the_dead(target, ctx)
        damage = flat_damage(hit, target.ap)
        if damage == 0:
            ctx.say("{target.name}: no damage gets through (AP {target.ap})", target=target)
            return target
        if damage < target.hp:
            ctx.say(
                "{target.name} takes {damage} damage (HP {target.hp} -> {left})",
                target=target,
                damage=damage,
                left=target.hp - damage,
            )
            return msgspec.structs.replace(target, hp=target.hp - damage)
        ctx.say("{target.name} takes {damage} damage: 0 HP", target=target, damage=damage)
        return self.hitting_zero_hp(fight, target, hit, ctx)

    def hitting_zero_hp(
        self, fight: FightState[Any], sheet: ContractorSheet, hit: Hit, ctx: Context
    ) -> ContractorSheet:
        """Roll on the Wound Table, reset HP to Maximum HP, act on unless the wound prevents it."""
        roll = wound_roll(ctx)
        kind = wound_table(self.table(fight, "wound_types"))[roll]
        number = location_of(roll)
        absorbs = hit.gear_absorbs if hit.gear_absorbs is not None else ctx.options["gear_absorbs"]
        if kind is LUCKY:
            lucky = msgspec.structs.replace(sheet, motivation=sheet.motivation + LUCKY_MOTIVATION)
            sheet = with_current(lucky)
            said = f"Lucky: the wound is cancelled, Motivation +{LUCKY_MOTIVATION}"
        elif number == EXPOSED:
            return self.location_10(fight, sheet, hit, roll, kind, bool(absorbs), ctx)
        else:
            place = self.table(fight, "locations").number(number)
            anywhere = bool(ctx.options["prosthetics_anywhere"])
            sheet, landed = land_wound(
                sheet, ctx.event_id, roll, kind, place, bool(absorbs), anywhere
            )
            said = f"{named(kind)} to location {number}, {named(place)}: {landed}"
        ctx.say(
            "wound roll {roll}: {said}; HP reset to {hp}",
            roll=roll,
            said=said,
            hp=max(sheet.max_hp, 0),
        )
        return settle(msgspec.structs.replace(sheet, hp=sheet.max_hp), ctx)

    def location_10(
        self,
        fight: FightState[Any],
        sheet: ContractorSheet,
        hit: Hit,
        roll: int,
        kind: WoundType,
        absorbs: bool,
        ctx: Context,
    ) -> ContractorSheet:
        """Exposed gear, or the body location the Foreman chooses: where the wound lands is
        resolved before the Wound Counter counts, so gear that takes it keeps a contractor on
        his last wound alive. The Foreman's choice given with the hit (`location`) places it
        now; else it waits for his `choice`, counted at once only if nothing could take it."""
        could_absorb = bool(sheet.gear) or any(w.offset() for w in sheet.injuries)
        waiting = Pending(
            id=ctx.event_id,
            roll=roll,
            type=kind.name,
            gear_absorbs=absorbs,
            prevents_acting=kind.prevents_acting,
            counted=hit.location is None and not could_absorb,
        )
        held = with_layers(sheet, sheet.injuries, (*sheet.pending, waiting))
        if hit.location is not None:
            ctx.say("wound roll {roll}: {kind} to location 10", roll=roll, kind=named(kind))
            try:
                placed = place(held, len(held.pending) - 1, hit.location, fight, self, ctx)
            except RuleError as exc:
                raise ctx.refuse(exc.message, "$.location") from None
            if placed.state == DEAD:
                return placed
            ctx.say("HP reset to {placed.max_hp}", placed=placed)
            return settle(msgspec.structs.replace(placed, hp=placed.max_hp), ctx)
        counted = (
            f"Constitution {sheet.constitution} -> {held.constitution} now (nothing could take it)"
            if waiting.counted
            else "its counter counts once it lands on the body"
        )
        ctx.say(
            "wound roll {roll}: {kind} to location 10: exposed gear or the most exposed location, "
            "the Foreman chooses (`choice`); {counted}; HP reset to {hp}",
            roll=roll,
            kind=named(kind),
            counted=counted,
            hp=max(held.max_hp, 0),
        )
        return settle(msgspec.structs.replace(held, hp=held.max_hp), ctx)

    def on_heal(
        self, fight: FightState[Any], target: ContractorSheet, heal: Heal, ctx: Context
    ) -> ContractorSheet:
        refuse_the_dead(target, ctx)
        if heal.means in TREATMENTS:
            sheet = treat(target, heal, ctx)
        elif heal.means == PROSTHETIC:
            sheet = fit_prosthetic(target, heal, ctx)
        elif heal.means == COILTECH:
            sheet = coiltech_restoration(target, heal, ctx)
        elif heal.wound is not None:
            means = f"means `{heal.means}`" if heal.means else "a heal without means"
            raise ctx.refuse(
                f"{means} treats no wound: treat wound {heal.wound} with means "
                f"{', '.join(TREATMENTS)} ({PROSTHETIC} or {COILTECH} if it is Maimed), or "
                "leave the fact `wound` out to restore HP",
                "$.means",
            )
        else:
            sheet = target
        return settle(restore_hp(sheet, heal.amount, ctx), ctx)

    def on_choice(
        self, fight: FightState[Any], character: ContractorSheet, choice: Choice, ctx: Context
    ) -> ContractorSheet:
        refuse_the_dead(character, ctx)
        if choice.option.startswith(PROSTHETIC_LOST):  # penalties back: death, or a stop
            return settle(lose_prosthetic(character, choice.option, ctx), ctx)
        return place_pending(character, choice.option, fight, self, ctx)

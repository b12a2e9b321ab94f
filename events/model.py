"""The event vocabulary: the wire format, one JSON object per event, tagged by `type`.

Every event is a frozen msgspec Struct tagged by `type`; unknown fields are refused. Fields not
given take their defaults and are omitted again when encoding, so a log written by hand stays as
short as its author made it.

Facts are the optional fields of `hit` and `heal` that only some rulesets use. Each defaults to
None ("not said"); a ruleset declares which it reads and refuses the others (a rule error).
"""

# No `from __future__ import annotations` here: msgspec would evaluate every field's annotation
# from its string (a compile() each) to build the Event decoder, at every start.
import datetime
import math
import operator
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeAlias

import msgspec
from msgspec import Meta

from .fight_ids import is_fight_id

WIRE_VERSION = 3
"""The newest wire format, which new fights record in `fight_started.version`. A log that names
no version is version 1: its dice are drawn as they were when it was written, so an old log
replays exactly as it did. Version 2 adds dice scoped to a character (`downed@brakk`) and draws
them so. Version 3: a whole round's `turn_started` starts every character's turn, as a side's
or a character's does (`core.turns`); before, some rulesets read it as the round's start alone."""

ID_PATTERN = r"^[^#\s][^\s]*$"
EVENT_REF_PATTERN = r"^(#[1-9][0-9]*|[^#\s][^\s]*)$"
CHARACTER_ID_PATTERN = r"^[^\s]+$"

# The three id patterns are in the JSON Schema as `pattern`, but not msgspec constraints: a
# constraint runs a regex on every string it decodes (a large share of decoding a log), and
# ids repeat on every line. `events.codec` checks them after decoding (`misnamed`): a quick
# test in C clears a plain id, the regex decides the rest, with msgspec's own message; every
# decode woundlog does goes through it.
Id = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=200,
        description="Unique within the fight; `#N` is reserved for the N-th event.",
        extra_json_schema={"pattern": ID_PATTERN},
    ),
]
EventRef = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=200,
        description="An event's id, or `#N` for the N-th event of the fight.",
        extra_json_schema={"pattern": EVENT_REF_PATTERN},
    ),
]
CharacterId = Annotated[
    str, Meta(min_length=1, max_length=200, extra_json_schema={"pattern": CHARACTER_ID_PATTERN})
]

# --- bounds: every number, string and collection a client sends has a limit -------
# Each limit is far past anything a fight needs, and every integer stays inside what JavaScript
# represents exactly (2**53), so a browser or a bridge reads the log as written. A value past a
# limit is a structural error naming the field and the limit (msgspec checks them on decode).
MAGNITUDE = 1_000_000
"""Damage, healing, stats, rounds, checks: no game counts this high."""
SAFE_INT = 2**53 - 1
"""The largest integer JavaScript represents exactly (Number.MAX_SAFE_INTEGER)."""
NAME_LENGTH = 200
"""Characters of a name, side, kind, means, option, stat or gear slot (as of an id)."""
TEXT_LENGTH = 2000
"""Characters of free text: a note, a reason, a string in a table."""
ENTRIES = 64
"""Entries of `stats`, `gear` and `options`: a character sheet or a set of house rules."""
ROLL_PURPOSES = 256
"""Purposes in one event's `rolls` (scoped ones count each: a tick for many characters)."""
DICE_PER_PURPOSE = 1000
"""Dice given for one purpose."""
CHECK_BONUS = 1000
"""What a check's `bonus` may add to its die, either way (a d20's total past it is decided)."""
TABLE_DEPTH = 16
"""Levels of nesting in one table of `tables` (the rulesets' own tables nest 5 deep)."""
TABLE_VALUES = 10_000
"""Values (objects, arrays, strings, numbers) in all of `tables` (the largest default: 56)."""

Amount = Annotated[int, Meta(ge=0, le=MAGNITUDE)]
Magnitude = Annotated[int, Meta(ge=-MAGNITUDE, le=MAGNITUDE)]
Name = Annotated[str, Meta(max_length=NAME_LENGTH)]
Text = Annotated[str, Meta(max_length=TEXT_LENGTH)]
Seed = Annotated[
    int,
    Meta(
        ge=0,
        le=SAFE_INT,
        description="Seed of the dice nobody gives (woundlog picks one below 2**31).",
    ),
]
Round = Annotated[int, Meta(ge=0, le=MAGNITUDE)]
Percent = Annotated[int, Meta(ge=0, le=1000)]
Count = Annotated[int, Meta(ge=0, le=1000)]
RollKey = Annotated[str, Meta(max_length=2 * NAME_LENGTH + 1)]  # purpose@character
Die = Annotated[
    int,
    Meta(
        ge=0,
        le=1000,
        description="A die's face, 1 to its sides (checked against the ruleset's die; a 0 is "
        "refused there, with a hint where a table reads 00 or 0 as its highest face).",
    ),
]
Timestamp = Annotated[datetime.datetime, Meta(tz=True, description="RFC 3339, informational only")]
OptionValue: TypeAlias = bool | Magnitude | Name
Rolls = Annotated[
    dict[RollKey, Annotated[list[Die], Meta(max_length=DICE_PER_PURPOSE)]],
    Meta(max_length=ROLL_PURPOSES),
]
Stats = Annotated[dict[Name, Magnitude], Meta(max_length=ENTRIES)]
Gear = Annotated[dict[Name, Name], Meta(max_length=ENTRIES)]
Options = Annotated[dict[Name, OptionValue], Meta(max_length=ENTRIES)]
Tables = Annotated[
    dict[Name, Any],
    Meta(
        description=f"Tables replacing the ruleset's: at most {TABLE_DEPTH} levels deep, "
        f"{TABLE_VALUES} values in all, strings of at most {TEXT_LENGTH} characters, integers "
        f"within +-(2**53 - 1)."
    ),
]


def check_tables(tables: dict[str, Any]) -> None:
    """Refuse `tables` past their bounds (depth, values, string length, integers), naming where.

    `tables` is the one field whose shape is the ruleset's to check, so msgspec cannot bound
    it; walked without recursion, so no nesting makes Python itself run out of stack."""
    pending: list[tuple[object, str, int]] = [(v, f"$.tables.{k}", 1) for k, v in tables.items()]
    seen = len(pending)
    while pending:
        value, path, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth > TABLE_DEPTH:
                raise ValueError(f"a table nests deeper than {TABLE_DEPTH} levels - at `{path}`")
            inner = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in inner:
                if isinstance(key, str) and len(key) > NAME_LENGTH:
                    raise ValueError(
                        f"a table key is longer than {NAME_LENGTH} characters - at `{path}`"
                    )
                where = f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]"
                pending.append((item, where, depth + 1))
            seen += len(value)
            if seen > TABLE_VALUES:
                raise ValueError(f"`tables` hold more than {TABLE_VALUES} values - at `$.tables`")
        elif isinstance(value, str) and len(value) > TEXT_LENGTH:
            raise ValueError(
                f"a table string is longer than {TEXT_LENGTH} characters - at `{path}`"
            )
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > SAFE_INT:
            raise ValueError(f"a table integer is beyond +-(2**53 - 1) - at `{path}`")
        elif isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"a table number is not finite - at `{path}`")


class EventBase(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    kw_only=True,
    tag_field="type",
):
    """Fields every event may carry."""

    id: Id | None = None
    at: Timestamp | None = None
    by: Name | None = None
    rolls: Rolls = {}
    note: Text | None = None


class FightStarted(EventBase, tag="fight_started", frozen=True):
    ruleset: Name
    seed: Seed = 0
    options: Options = {}
    tables: Tables = {}
    name: Name = ""
    version: Annotated[
        int,
        Meta(
            ge=1,
            le=WIRE_VERSION,
            description="Wire format and dice draw the log was recorded with; absent: 1.",
        ),
    ] = 1

    def __post_init__(self) -> None:
        check_tables(self.tables)


class CarriedInjury(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True
):
    """A lasting injury a character brings into a fight from an earlier one (a campaign's
    record): its name as its ruleset's state words it ("Severed Leg (left)", "severe arm"), and
    where it was taken, so the fight's log says it without the campaign."""

    name: Name
    fight: Name = ""
    event: Name = ""


class CharacterJoined(EventBase, tag="character_joined", frozen=True):
    """A character enters the fight. `injuries` and `conditions` are what a campaign member
    brings from earlier fights, for the rules to read (Warhammer Quest's injuries taken once,
    d26's escalation to the same location and Fatigued): in the log, so it replays alone."""

    character: CharacterId
    name: Name = ""
    side: Name = ""
    kind: Name = ""
    stats: Stats = {}
    gear: Gear = {}
    injuries: Annotated[tuple[CarriedInjury, ...], Meta(max_length=ENTRIES)] = ()
    conditions: Annotated[tuple[Name, ...], Meta(max_length=ENTRIES)] = ()
    initiative: (
        Annotated[
            int,
            Meta(
                ge=-MAGNITUDE,
                le=MAGNITUDE,
                description="Turn order: higher goes first, ties by join order; a character "
                "with none goes after those with one (`core.initiative`).",
            ),
        ]
        | None
    ) = None


ORDER_LENGTH = 1000
"""Ids in one `turn_order`: more than any table seats."""


class TurnOrder(EventBase, tag="turn_order", frozen=True):
    """The initiative order from here on, first to last. A character it does not name (one who
    joins later) comes after those it names, in initiative and join order; an empty order goes
    back to initiative and join order. Whose turn it is stays as it is (`core.initiative`)."""

    order: Annotated[
        tuple[CharacterId, ...],
        Meta(
            max_length=ORDER_LENGTH,
            description="Character ids, first to last; each once, each a character of the "
            "fight (a rule error otherwise, naming `$.order[N]`).",
        ),
    ] = ()


class Hit(EventBase, tag="hit", frozen=True):
    target: CharacterId
    damage: Amount
    attacker: Name | None = None
    # facts: each used by some rulesets only (see FACTS below)
    weapon: Literal["A", "B", "C"] | None = None
    strike_roll: Annotated[int, Meta(ge=1, le=100)] | None = None
    strike_chance: Percent | None = None
    band: Literal["fatigue", "endurance", "grievous"] | None = None
    cleave_shield: bool | None = None
    magic: bool | None = None
    breath: bool | None = None
    slam: bool | None = None
    hit_strength: Amount | None = None
    coup_de_grace: bool | None = None
    pinned: bool | None = None
    critical: bool | None = None
    knock_out: bool | None = None
    ignores_ap: bool | None = None
    gear_absorbs: bool | None = None
    damage_roll: (
        Annotated[
            int,
            Meta(
                ge=1,
                le=10,
                description="The Damage Check's D10, before the weapon's modifier and bonuses "
                "(DragonQuest: woundlog adds them up; `damage` is then 0 or that total).",
            ),
        ]
        | None
    ) = None
    weapon_modifier: (
        Annotated[
            int,
            Meta(
                ge=-100,
                le=10_000,
                description="The attack's damage modifier added to the D10 (D+4: 4).",
            ),
        ]
        | None
    ) = None
    physical_strength: (
        Annotated[
            int,
            Meta(
                ge=1,
                le=10_000,
                description="The attacker's Physical Strength, for the damage bonus over the "
                "weapon's minimum (default: the attacker's own stat, if he is in the fight).",
            ),
        ]
        | None
    ) = None
    weapon_minimum: (
        Annotated[
            int,
            Meta(
                ge=0,
                le=10_000,
                description="The Physical Strength needed to wield the weapon: +1 damage per 5 "
                "points above it (the Physical Strength damage rule).",
            ),
        ]
        | None
    ) = None
    rank: (
        Annotated[
            int,
            Meta(
                ge=0,
                le=10_000,
                description="The attacker's rank with the weapon: +1 damage per three ranks.",
            ),
        ]
        | None
    ) = None
    thrown: (
        Annotated[bool, Meta(description="A Thrown Weapon (no Physical Strength bonus).")] | None
    ) = None
    missile: (
        Annotated[bool, Meta(description="A Missile Weapon (no Physical Strength bonus).")] | None
    ) = None
    purely_magical: (
        Annotated[
            bool,
            Meta(
                description="With `magic`: the spell is purely magical energy (default true, "
                "past armour); false: its damage comes from changes in the physical surroundings "
                "(windstorms, falling rocks), absorbed by armour.",
            ),
        ]
        | None
    ) = None
    location: (
        Annotated[
            str,
            Meta(
                min_length=1,
                max_length=NAME_LENGTH,
                description="Contractor: where a location-10 wound lands, the Foreman's choice "
                "given with the hit (a body location, by name or number 1-9, or `gear:SLOT`), "
                "resolved before the Wound Counter counts; unused if the roll names a location.",
            ),
        ]
        | None
    ) = None


class Heal(EventBase, tag="heal", frozen=True):
    target: CharacterId
    amount: Amount
    means: Name = ""
    healer: Name | None = None
    # facts
    items: Count | None = None
    check: Magnitude | None = None
    wound: Name | None = None
    pool: Literal["fatigue", "endurance"] | None = None


class _Tick(EventBase, frozen=True):
    round: Round | None = None
    side: Name | None = None
    character: CharacterId | None = None

    def __post_init__(self) -> None:
        if self.side is not None and self.character is not None:
            raise ValueError("a turn is scoped to a `side` or a `character`, not both")


class TurnStarted(_Tick, tag="turn_started", frozen=True):
    pass


class TurnEnded(_Tick, tag="turn_ended", frozen=True):
    pass


class Choice(EventBase, tag="choice", frozen=True):
    character: CharacterId
    option: Annotated[str, Meta(min_length=1, max_length=NAME_LENGTH)]


class Check(EventBase, tag="check", frozen=True):
    """A roll the rules ask a character to make, recorded when the table makes it (a D&D death
    saving throw a player rolls in their virtual tabletop): its die is in `rolls` under the
    check's name, or drawn. A ruleset says which checks it has and when one is owed."""

    character: CharacterId
    check: Annotated[str, Meta(min_length=1, max_length=64)]
    bonus: Annotated[
        int,
        Meta(
            ge=-CHECK_BONUS,
            le=CHECK_BONUS,
            description="What the table added to the die (a D&D Bless, a paladin's aura): the "
            "check's total is the die plus this. A ruleset says which of its checks take one.",
        ),
    ] = 0


class StatChanged(EventBase, tag="stat_changed", frozen=True):
    """A stat of a character set to a new value by what the rules do not derive: an effect (a
    spell raising a maximum, a wight's Life Drain lowering one), a sheet edited, another
    program's maximum-HP damage. So a fight follows every state another program can be in.
    Each ruleset says which of its stats one may set (`Ruleset.changeable_stats`: dnd5e's
    hit point maximum `hp`) and what follows; the others refuse it (a rule error naming
    `$.stat`)."""

    character: CharacterId
    stat: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=NAME_LENGTH,
            description="The stat set, by the name it has in `character_joined.stats`.",
        ),
    ]
    value: Annotated[
        int,
        Meta(
            ge=-MAGNITUDE,
            le=MAGNITUDE,
            description="Its new value (not a difference), bounded as stats are; the ruleset "
            "says which values it takes.",
        ),
    ]
    reason: Annotated[
        str,
        Meta(
            max_length=TEXT_LENGTH,
            description="Why it changed (`Aid`, `Life Drain`, `sheet edited`), one printable line.",
        ),
    ] = ""


class FightEnded(EventBase, tag="fight_ended", frozen=True):
    pass


GameEvent: TypeAlias = (
    CharacterJoined
    | TurnOrder
    | StatChanged
    | Hit
    | Heal
    | TurnStarted
    | TurnEnded
    | Choice
    | Check
    | FightEnded
)


class Retract(EventBase, tag="retract", frozen=True):
    event: EventRef
    reason: Text = ""


class Amend(EventBase, tag="amend", frozen=True):
    event: EventRef
    replacement: GameEvent
    reason: Text = ""


Event: TypeAlias = FightStarted | GameEvent | Retract | Amend
UndoEvent: TypeAlias = Retract | Amend

EVENT_TYPES: tuple[type[EventBase], ...] = (
    FightStarted,
    CharacterJoined,
    TurnOrder,
    StatChanged,
    Hit,
    Heal,
    TurnStarted,
    TurnEnded,
    Choice,
    Check,
    Retract,
    Amend,
    FightEnded,
)

# --- a campaign's events (events/campaign.py tells the campaign's story) ---------------------

Members = Annotated[
    dict[CharacterId, CharacterId],
    Meta(
        min_length=1,
        max_length=ENTRIES,
        description="Who took part: {member id: their character id in the fight}.",
    ),
]


class CampaignStarted(EventBase, tag="campaign_started", frozen=True):
    """Always first, exactly once: the ruleset every fight of the campaign plays."""

    ruleset: Name
    name: Name = ""


class MemberJoined(EventBase, tag="member_joined", frozen=True):
    """A character joins the roster, with what a fight's `character_joined` would take."""

    member: CharacterId
    name: Name = ""
    side: Name = ""
    kind: Name = ""
    stats: Stats = {}
    gear: Gear = {}


class FightPlayed(EventBase, tag="fight_played", frozen=True):
    """A fight of the campaign was played: its result is read by folding that fight's log."""

    fight: Annotated[str, Meta(min_length=1, max_length=200)]
    members: Members

    def __post_init__(self) -> None:
        if not is_fight_id(self.fight):
            raise ValueError(f"`fight` {self.fight!r} is not a fight id - at `$.fight`")
        for member, character in self.members.items():
            if not member.strip() or not character.strip() or " " in member + character:
                raise ValueError("a member or character id holds whitespace - at `$.members`")


class Rest(EventBase, tag="rest", frozen=True):
    """A rest between fights: `kind` is the ruleset's word (dnd5e: `short`, `long`; none given:
    the ruleset's first).
    `member` None: every living, active member rests. `amount`: what the table rolled back
    (dnd5e: the hit points the Hit Dice spent on a short rest gave)."""

    kind: Name = ""
    member: CharacterId | None = None
    amount: Amount | None = None


class Treatment(EventBase, tag="treatment", frozen=True):
    """A member's injury treated between fights (`injury`: its name, or the event that dealt
    it); `means` is the ruleset's word (contractor: `treat_wound`, `prosthetic`)."""

    member: CharacterId
    injury: Name = ""
    means: Name = ""
    amount: Amount | None = None


class Repair(EventBase, tag="repair", frozen=True):
    """A member's gear repaired or replaced between fights: `item` is the ruleset's word
    (DragonQuest: `armour`, its Protection Rating back; `shield`, a cloven one replaced)."""

    member: CharacterId
    item: Name


class TimePassed(EventBase, tag="time_passed", frozen=True):
    """Days go by between fights (the healing times of the rulesets that give them)."""

    days: Annotated[int, Meta(ge=1, le=100_000)]


class Retired(EventBase, tag="retired", frozen=True):
    member: CharacterId
    reason: Text = ""


class Died(EventBase, tag="died", frozen=True):
    """A member's death the GM records (between fights, or one the fight's rules left open)."""

    member: CharacterId
    cause: Text = ""


CampaignEvent: TypeAlias = (
    CampaignStarted
    | MemberJoined
    | FightPlayed
    | Rest
    | Treatment
    | Repair
    | TimePassed
    | Retired
    | Died
    | Retract
)
"""Every event a campaign's log may hold."""

CAMPAIGN_TYPES: tuple[type[EventBase], ...] = (
    CampaignStarted,
    MemberJoined,
    FightPlayed,
    Rest,
    Treatment,
    Repair,
    TimePassed,
    Retired,
    Died,
)
"""The campaign's own event types (its `retract` is the fight's)."""

_COMMON = frozenset(EventBase.__struct_fields__)
_HIT_CORE = frozenset({"target", "damage", "attacker"})
_HEAL_CORE = frozenset({"target", "amount", "means", "healer"})

FACTS: dict[str, tuple[str, ...]] = {
    "hit": tuple(f for f in Hit.__struct_fields__ if f not in _COMMON | _HIT_CORE),
    "heal": tuple(f for f in Heal.__struct_fields__ if f not in _COMMON | _HEAL_CORE),
}
"""The fact fields of `hit` and `heal`, in declaration order."""


def type_name(event: EventBase) -> str:
    """The wire `type` of an event."""
    return event.__struct_config__.tag  # type: ignore[return-value]


class _Pattern:
    """One id pattern: `clear` is a quick test, in C, that a string keeps to it (printable,
    so no control, invisible or separator character but the space; no space; not a `#`
    where the pattern forbids one there), and the regex decides every string the quick test
    does not clear, so the answer is the regex's own. Nothing is remembered between calls:
    threads share no mutable state here."""

    def __init__(self, pattern: str, clear: Callable[[str | None], bool]) -> None:
        self.regex = re.compile(pattern)
        self.message = f"Expected `str` matching regex {pattern!r}"  # msgspec's words
        self.clear = clear

    def matches(self, value: str | None) -> bool:
        """Whether `value` keeps to the pattern; None (an optional id field left out) does."""
        return value is None or self.clear(value) or self.regex.search(value) is not None


# `str.isprintable` is False for every character `\s` matches but the space (each is a control
# or separator character), so printable with no space means no whitespace at all. None is an
# optional id field left out.
def _clear_id(value: str | None) -> bool:
    return value is None or (
        value.isprintable() and " " not in value and value[:1] not in ("#", "")
    )


def _clear_character(value: str | None) -> bool:
    return value is None or (value.isprintable() and " " not in value and value != "")


_IDS = _Pattern(ID_PATTERN, _clear_id)
_REFS = _Pattern(EVENT_REF_PATTERN, _clear_id)  # `#N` takes the regex
_CHARACTERS = _Pattern(CHARACTER_ID_PATTERN, _clear_character)
ID_FIELDS: dict[type[EventBase], tuple[tuple[str, _Pattern], ...]] = {
    FightStarted: (("id", _IDS),),
    CharacterJoined: (("id", _IDS), ("character", _CHARACTERS)),
    TurnOrder: (("id", _IDS),),  # and each id of its `order` (`misnamed`)
    StatChanged: (("id", _IDS), ("character", _CHARACTERS)),
    Hit: (("id", _IDS), ("target", _CHARACTERS)),
    Heal: (("id", _IDS), ("target", _CHARACTERS)),
    TurnStarted: (("id", _IDS), ("character", _CHARACTERS)),
    TurnEnded: (("id", _IDS), ("character", _CHARACTERS)),
    Choice: (("id", _IDS), ("character", _CHARACTERS)),
    Check: (("id", _IDS), ("character", _CHARACTERS)),
    FightEnded: (("id", _IDS),),
    Retract: (("id", _IDS), ("event", _REFS)),
    Amend: (("id", _IDS), ("event", _REFS)),
    CampaignStarted: (("id", _IDS),),
    MemberJoined: (("id", _IDS), ("member", _CHARACTERS)),
    FightPlayed: (("id", _IDS),),
    Rest: (("id", _IDS),),
    Treatment: (("id", _IDS), ("member", _CHARACTERS)),
    Repair: (("id", _IDS), ("member", _CHARACTERS)),
    TimePassed: (("id", _IDS),),
    Retired: (("id", _IDS), ("member", _CHARACTERS)),
    Died: (("id", _IDS), ("member", _CHARACTERS)),
}
"""Per event type, its id fields (`Id`, `CharacterId`, `EventRef`) and their patterns."""


def _seen_test(fields: tuple[tuple[str, _Pattern], ...]) -> Callable[[Any], bool]:
    """A test that every id field of an event is cleared by its pattern's quick test: a few
    calls in C for most events, no state."""
    clear_id = _clear_id
    if len(fields) == 1:
        return lambda event: clear_id(event.id)
    (_, _), (name, pattern) = fields
    value, clear = operator.attrgetter(name), pattern.clear
    if clear is not _clear_character:
        return lambda event: clear_id(event.id) and clear(value(event))

    def cleared(event: Any) -> bool:
        # `_clear_id` of its id and `_clear_character` of the other, written in: one call an
        # event (every event of a log is asked), not three
        given = event.id
        if given is not None and not (
            given.isprintable() and " " not in given and given[:1] not in ("#", "")
        ):
            return False
        other = value(event)
        return other is None or (other.isprintable() and " " not in other and other != "")

    return cleared


KNOWN_IDS: dict[type[EventBase], Callable[[Any], bool]] = {
    kind: _seen_test(fields) for kind, fields in ID_FIELDS.items() if kind is not Amend
}
"""Per event type, the quick test that its ids keep to their patterns (False: ask `misnamed`)."""
KNOWN_IDS[Amend] = lambda event: False  # its replacement's ids too: the full check
KNOWN_IDS[TurnOrder] = lambda event: _clear_id(event.id) and all(map(_clear_character, event.order))


def all_cleared(events: list[Any]) -> bool:
    """Whether `KNOWN_IDS` clears every event of a decoded block, asked in one frame: the ids
    of its hits, heals and ticks (the most of a fight) gathered and tested together, since a
    string joined from several is printable, with no space, exactly when each of them is;
    every other event asked its own test. A Python call an event (`operator.call` of each
    one's test) cost a replay about 1,000 instructions an event."""
    ids: list[str] = []  # the `Id`s given: none empty, none beginning with `#` (`_clear_id`)
    others: list[str] = []  # the `CharacterId`s given: none empty (`_clear_character`)
    add_id, add_other, seen = ids.append, others.append, KNOWN_IDS
    for event in events:
        kind = type(event)
        if kind is Hit or kind is Heal:
            add_other(event.target)
        elif kind is TurnStarted or kind is TurnEnded:
            if event.character is not None:
                add_other(event.character)
        elif seen[kind](event):
            continue  # its id was tested with it
        else:
            return False
        if event.id is not None:
            add_id(event.id)
    if not all(others):
        return False
    if ids and not all(given[:1] not in ("#", "") for given in ids):
        return False
    joined = "".join(ids) + "".join(others)
    return joined.isprintable() and " " not in joined


def misnamed(event: EventBase, path: str = "$") -> tuple[str, str] | None:
    """The first id field of a decoded event (or of an amend's replacement) that breaks its
    pattern, as (field path, msgspec's message); None when every one keeps to it."""
    if KNOWN_IDS[type(event)](event):
        return None
    for name, pattern in ID_FIELDS[type(event)]:
        if not pattern.matches(getattr(event, name)):
            return f"{path}.{name}", pattern.message
    if type(event) is Amend:
        return misnamed(event.replacement, f"{path}.replacement")
    if type(event) is TurnOrder:
        for n, character in enumerate(event.order):
            if not _CHARACTERS.matches(character):
                return f"{path}.order[{n}]", _CHARACTERS.message
    return None


# --- what a terminal would obey ------------------------------------------------------------
# Ids and names are printed by the CLI and shown by pages: a control character (ESC, BEL, NUL,
# DEL, C1), a bidirectional override, a zero-width character or a byte order mark in one can
# rewrite a terminal or hide what is shown. `str.isprintable` refuses exactly those (and other
# separators than the space), in C. Checked on every append, not on reading: a log written
# before the rule stays readable, and every output escapes it (replays/cli/output.py).
_SHOWN_COMMON = ("id", "by")
SHOWN: dict[type[EventBase], tuple[str, ...]] = {
    FightStarted: (*_SHOWN_COMMON, "ruleset", "name"),
    CharacterJoined: (*_SHOWN_COMMON, "character", "name", "side", "kind"),
    TurnOrder: _SHOWN_COMMON,  # and each id of its `order` (`unprintable`)
    StatChanged: (*_SHOWN_COMMON, "character", "stat", "reason"),  # its reason: one line
    Hit: (*_SHOWN_COMMON, "target", "attacker"),
    Heal: (*_SHOWN_COMMON, "target", "healer", "means", "wound"),
    TurnStarted: (*_SHOWN_COMMON, "side", "character"),
    TurnEnded: (*_SHOWN_COMMON, "side", "character"),
    Choice: (*_SHOWN_COMMON, "character", "option"),
    Check: (*_SHOWN_COMMON, "character", "check"),
    FightEnded: _SHOWN_COMMON,
    Retract: (*_SHOWN_COMMON, "event"),
    Amend: (*_SHOWN_COMMON, "event"),
    CampaignStarted: (*_SHOWN_COMMON, "ruleset", "name"),
    MemberJoined: (*_SHOWN_COMMON, "member", "name", "side", "kind"),
    FightPlayed: (*_SHOWN_COMMON, "fight"),
    Rest: (*_SHOWN_COMMON, "kind", "member"),
    Treatment: (*_SHOWN_COMMON, "member", "injury", "means"),
    Repair: (*_SHOWN_COMMON, "member", "item"),
    TimePassed: _SHOWN_COMMON,
    Retired: (*_SHOWN_COMMON, "member"),
    Died: (*_SHOWN_COMMON, "member"),
}
"""Per event type, its ids and names: the strings a person is shown as they are."""
INVISIBLE = (
    "control and invisible characters (NUL, ESC, BEL, DEL, bidirectional overrides, "
    "zero-width characters, a byte order mark) are refused in ids and names"
)


def unprintable(event: EventBase, path: str = "$") -> tuple[str, str] | None:
    """The first id or name of `event` (or of an amend's replacement, or a key of its `rolls`)
    holding a control or invisible character, as (field path, message); None if none does."""
    for name in SHOWN[type(event)]:
        value = getattr(event, name)
        if value is not None and not value.isprintable():
            return f"{path}.{name}", _unprintable_said(value)
    for key in event.rolls:
        if not key.isprintable():
            return f"{path}.rolls", _unprintable_said(key)
    if type(event) is Amend:
        return unprintable(event.replacement, f"{path}.replacement")
    if type(event) is TurnOrder:
        for n, character in enumerate(event.order):
            if not character.isprintable():
                return f"{path}.order[{n}]", _unprintable_said(character)
    if type(event) is CharacterJoined:  # what a campaign member brings is shown too
        for n, carried in enumerate(event.injuries):
            if not carried.name.isprintable():
                return f"{path}.injuries[{n}].name", _unprintable_said(carried.name)
        for n, condition in enumerate(event.conditions):
            if not condition.isprintable():
                return f"{path}.conditions[{n}]", _unprintable_said(condition)
    return None


def _unprintable_said(value: str) -> str:
    from .fight_ids import describe_char  # here: only a refused string needs Unicode's names

    position, char = next((i, c) for i, c in enumerate(value) if not c.isprintable())
    return (
        f"{value[:position]!r}... has {describe_char(char)} at position {position + 1}: {INVISIBLE}"
    )

"""Foundry VTT (dnd5e): hooks forwarded by a bridge module, one envelope per hook call.

The envelope is woundlog's own, as a bridge module builds it from the hook's arguments; fields
not listed are ignored. `hook` names the hook; `id` is required and must be unique per hook
call (a bridge uses `foundry.utils.randomID()` when the hook fires and keeps it on a resend):
two calls with identical arguments are two events, and only the bridge can tell them apart.

    {"hook": "dnd5e.damageActor", "id": "h7Qk2aZ0",
     "actor": {"id": "Xq7...", "name": "Brakka", "type": "character",
               "hp": {"value": 15, "max": 22, "temp": 0}},
     "changes": {"hp": -7, "temp": 0, "total": -7},
     "attacker": "gob1...", "purpose": "location", "roll": <Roll.toJSON()>}

    {"hook": "combatTurnChange", "id": "c81...",
     "prior": {"round": 1, "turn": 2, "combatantId": "cb3...", "actor": {"id": "Xq7...", ...}},
     "current": {"round": 2, "turn": 0, "combatantId": "cb1...", "actor": {"id": "gob1...", ...}}}

Hooks and mapping:
- `dnd5e.damageActor` and `dnd5e.healActor` (arguments: the actor, `changes`): `actor` is
  `{id, name, type, side?, hp: actor.system.attributes.hp}` (hp as after the change, the hook
  fires after the update). `changes.hp` is the change of `hp.value`: below 0 a hit for that
  much, above 0 a heal (none in a ruleset with no healing in a fight, Mordheim), 0 nothing.
  `changes.temp` is ignored: damage that temporary HP absorbed is no hit on HP, and temporary
  HP gained is no heal. The sign of `changes.hp` decides, whichever of the two hooks it came by.
  `attacker` (optional, an actor id) becomes the hit's `attacker` or the heal's `healer`.
  dnd5e never takes `hp.value` below 0, so damage past 0 HP is not in `changes`: the optional
  `overflow` (the damage the blow dealt beyond what `hp.value` lost, which the bridge knows from
  the damage it applied) is added to the hit; it matters to rules that check the damage taken
  at 0 HP (d26). Without it a blow on a character already at 0 makes no event.
  An envelope whose HP contradict its change is refused (a structural error naming the field),
  not turned into a hit or heal the actor never took: dnd5e keeps `hp.value` within 0 and
  `hp.max` + `hp.tempmax` before the change as after it, and `overflow` comes only with a loss
  that leaves the actor at 0 HP.
- First sight of an actor: it joins, `hp.max` mapped to the ruleset's stat (d26 `hp`, Mordheim
  and Warhammer Quest `wounds`, Contractor `constitution`; DragonQuest is refused), as the
  player kind on side `players` (`warriors` in Warhammer Quest) when its `type` is "character",
  else the other kind (d26 `npc`, Warhammer Quest `monster`) on side `monsters`; `actor.side`
  overrides the side. Below its maximum before this change (`hp.value` minus `changes.hp`), it
  also takes a hit for the difference first. An actor with `hp.max` below 1 is never tracked.
- `combatTurnChange` (arguments: the combat, `prior`, `current`, each `{round, turn,
  combatantId}`): the bridge adds to each the combatant's `actor`, in the shape above
  (`combat.combatants.get(combatantId).actor`), so turns and damage name the same character
  and an actor first seen at its turn can join. The prior actor's turn ends (`turn_ended`,
  character scope), the round ends (`turn_ended`, no scope) when the round went up, the current
  actor's turn starts (`turn_started`). Round 0 is no round (combat not started); moving back
  (a lower round, or an earlier `turn` in the same round) is no event; a combatant without
  `actor` does not tick. What a turn change makes depends on the envelope alone, never on who
  joined before, so re-importing it is harmless.
- Dice: `roll` is a `Roll.toJSON()` and `purpose` the woundlog dice purpose its dice are given
  for (`location` in d26, `injury` in Mordheim, ...); `rolls` gives several: `{purpose: [Roll,
  ...]}`. A roll's dice are every active result (`results[].active`; dropped and rerolled ones
  are not) of every term with `faces`, in order, pool terms included. They go on the hit or heal,
  or on the first event a turn change makes, as the dice of the character that event is about
  (`location@<character>`), so an undo in woundlog never hands them to someone else.
- Ids: `foundry:<id>:hit` or `:heal`, `foundry:<id>:<character>:turn_ended`,
  `foundry:<id>:round_ended`, `foundry:<id>:<character>:turn_started`; `foundry:<actor>:joined`
  and `foundry:<actor>:hurt` for a first sight. Nothing is compared between envelopes: the
  cursor (`previous`) is handed back unchanged.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Annotated

import msgspec
from msgspec import Meta

from ..errors import StructuralError
from ..model import MAGNITUDE, Amount, Magnitude
from .base import Batch, Converted, Profile, Sighting, SourceId, Turn, decode, merge_rolls

SOURCE = "foundry"
HOOKS = ("dnd5e.damageActor", "dnd5e.healActor", "combatTurnChange")


# --- Roll.toJSON() -------------------------------------------------------------------------------


class DieResult(msgspec.Struct, frozen=True):
    result: Magnitude
    active: bool = True


class RollTerm(msgspec.Struct, frozen=True):
    faces: Magnitude | None = None
    results: list[DieResult] = []
    rolls: list[Roll] = []  # a PoolTerm's rolls


class Roll(msgspec.Struct, frozen=True):
    terms: list[RollTerm] = []


def dice(roll: Roll) -> list[int]:
    """Every active die result of a roll, in order; numbers and operators are not dice.
    Pools are followed without recursion: how deep a roll nests is the sender's to choose."""
    values: list[int] = []
    pending = [iter(roll.terms)]  # the terms still to read, of each roll being read
    while pending:
        term = next(pending[-1], None)
        if term is None:
            pending.pop()
            continue
        if term.faces is not None:
            values.extend(r.result for r in term.results if r.active)
        pending.extend(iter(inner.terms) for inner in reversed(term.rolls))
    return values


# --- the envelopes -------------------------------------------------------------------------------


class Envelope(msgspec.Struct, frozen=True, kw_only=True, tag_field="hook"):
    id: SourceId
    purpose: str | None = None
    roll: Roll | None = None
    rolls: dict[str, list[Roll]] = {}

    def given_rolls(self, index: int) -> dict[str, list[int]]:
        if self.roll is not None and self.purpose is None:
            raise StructuralError(
                "a `roll` needs the `purpose` its dice are for",
                field="$.purpose",
                index=index,
            )
        groups = [(p, dice(r)) for p, rs in self.rolls.items() for r in rs]
        if self.roll is not None and self.purpose is not None:
            groups.insert(0, (self.purpose, dice(self.roll)))
        return merge_rolls(groups)


class HitPoints(msgspec.Struct, frozen=True):
    max: Magnitude
    value: Magnitude | None = None
    temp: Magnitude | None = None
    tempmax: Magnitude = 0  # dnd5e's temporary change of the maximum: value may go up to both

    def check(self, change: int, index: int) -> None:
        """Refuse HP that contradict themselves or the change that led to them: dnd5e keeps
        `value` within 0 and the maximum, before the change as after it."""
        if self.value is None:
            return
        top = self.max + self.tempmax
        if not 0 <= self.value <= top:
            where = "below 0" if self.value < 0 else f"above its maximum {top}"
            raise StructuralError(
                f"the actor's HP after the change, {self.value}, is {where}",
                field="$.actor.hp.value",
                index=index,
            )
        before = self.value - change
        if not 0 <= before <= top:
            raise StructuralError(
                f"a change of {change:+d} HP ending at {self.value} means {before} HP before, "
                f"outside 0 to {top}: the change contradicts the actor's HP",
                field="$.changes.hp",
                index=index,
            )


class Actor(msgspec.Struct, frozen=True):
    id: SourceId
    hp: HitPoints
    name: str = ""
    type: str = ""
    side: str | None = None


class Changes(msgspec.Struct, frozen=True):
    hp: Magnitude
    temp: Magnitude = 0
    total: Magnitude = 0


class HpHook(Envelope, frozen=True):
    actor: Actor
    changes: Changes
    attacker: SourceId | None = None
    overflow: Amount = 0  # damage past 0 HP, which dnd5e does not keep

    def check(self, index: int) -> None:
        self.actor.hp.check(self.changes.hp, index)
        if self.overflow and (self.changes.hp > 0 or self.actor.hp.value not in (0, None)):
            raise StructuralError(
                "`overflow` is damage past 0 HP: it goes with a loss of HP that leaves the "
                "actor at 0 HP",
                field="$.overflow",
                index=index,
            )


class DamageActor(HpHook, tag="dnd5e.damageActor", frozen=True):
    pass


class HealActor(HpHook, tag="dnd5e.healActor", frozen=True):
    pass


class Position(msgspec.Struct, frozen=True):
    round: Annotated[int, Meta(ge=0, le=MAGNITUDE)] = 0
    turn: Annotated[int, Meta(ge=0, le=MAGNITUDE)] | None = None
    combatant_id: SourceId | None = msgspec.field(default=None, name="combatantId")
    actor: Actor | None = None  # added by the bridge: the combatant's actor

    def as_turn(self) -> Turn:
        return Turn(self.round, self.turn, (self.actor.id,) if self.actor else ())


class CombatTurnChange(Envelope, tag="combatTurnChange", frozen=True):
    prior: Position
    current: Position


Hook = DamageActor | HealActor | CombatTurnChange


class _HookName(msgspec.Struct, frozen=True):
    hook: str


def envelope(record: object, index: int) -> Hook:
    hook = decode(record, _HookName, index).hook
    if hook not in HOOKS:
        raise StructuralError(
            f"no hook `{hook}` (known: {', '.join(HOOKS)})",
            field="$.hook",
            index=index,
        )
    return decode(record, Hook, index)  # type: ignore[arg-type]


# --- what each hook makes ------------------------------------------------------------------------


def sight(batch: Batch, actor: Actor, change: int = 0) -> bool:
    """Join an actor seen for the first time; False if it is never tracked (no HP)."""
    if actor.hp.max < 1:
        return False
    before = actor.hp.value - change if actor.hp.value is not None else actor.hp.max
    batch.sight(
        Sighting(
            id=actor.id,
            name=actor.name or actor.id,
            player=actor.type == "character",
            max_hp=actor.hp.max,
            hp=before,
            side=actor.side,
        )
    )
    return True


def hp_hook(batch: Batch, hook: HpHook, rolls: dict[str, list[int]], index: int) -> None:
    actor, change = hook.actor, hook.changes.hp
    if actor.hp.max < 1:  # never tracked
        return
    hook.check(index)
    if not sight(batch, actor, change):
        return
    if change <= 0:  # a blow's damage past 0 HP counts in some rules (d26's injury check)
        change -= hook.overflow
    suffix = "hit" if change < 0 else "heal"
    start = len(batch.events)
    batch.hp_change(batch.id(hook.id, suffix), actor.id, change, by=hook.attacker)
    batch.give_rolls(start, rolls)


def turn_hook(batch: Batch, hook: CombatTurnChange, rolls: dict[str, list[int]]) -> None:
    start = len(batch.events)
    for position in (hook.prior, hook.current):
        if position.actor is not None:
            sight(batch, position.actor)
    batch.turn_change(hook.id, hook.prior.as_turn(), hook.current.as_turn())
    batch.give_rolls(start, rolls)


def convert(
    records: Sequence[object], *, profile: Profile, joined: Collection[str], previous: object | None
) -> Converted:
    batch = Batch(SOURCE, profile, joined)
    for index, record in enumerate(records):
        hook = envelope(record, index)
        rolls = hook.given_rolls(index)
        start = len(batch.events)
        if isinstance(hook, CombatTurnChange):
            turn_hook(batch, hook, rolls)
        else:
            hp_hook(batch, hook, rolls, index)
        batch.check(start, index)
    return Converted(batch.events, previous)

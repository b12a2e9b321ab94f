"""Foundry VTT (v12, v13) with dnd5e (3.1 to 5.3): envelopes the woundlog module sends, one per
hook call.

The envelope is woundlog's own: the module (replays/integrations/foundry/woundlog.mjs) builds it
from a hook's arguments in the client that made the change and hands it to the active GM's
client, which sends it. Fields not listed are ignored. `hook` names the hook; `id` is the
module's `foundry.utils.randomID()`, taken when the hook fires and kept on every resend.
Shapes followed: dnd5e 5.3.3 and 4.4.4 `module/documents/actor/actor.mjs` (`applyDamage`,
`rollDeathSave`), 5.3.3 `module/data/actor/templates/attributes.mjs` (`prepareHitPoints`,
`onUpdateHP`), Foundry v13's client `Combat` (`combatTurnChange(combat, prior, current)`,
`CombatHistoryData`, `setupTurns`) and `Roll#dice`.

A character is who the module names: an unlinked token (dnd5e's default for NPCs) by its token
document's uuid (`Scene.<scene>.Token.<token>`) and name ("Goblin (2)"), since unlinked tokens
share their base actor's `id`; a linked actor (a player character) by its world actor's uuid
(`Actor.<id>`) and name, the same with any token of it, or none, on any scene. `actor` gives
`type` and `hp` (`value`, `max`, `temp`, `tempmax`), read by the module at the HP path its
setting names (`system.attributes.hp` in dnd5e), as after the change and as dnd5e PREPARES
them (effects applied: Aid's +5 is in the prepared `tempmax`, never in the stored one an
update holds; `value` never above `max + tempmax`).

    {"hook": "dnd5e.applyDamage", "id": "h7Qk2aZ0", "amount": 12,
     "token": {"uuid": "Scene.s1.Token.t1", "name": "Goblin (2)", "player": false},
     "actor": {"id": "gob", "type": "npc", "hp": {"value": 0, "max": 7, "temp": 0, "tempmax": 0}},
     "changes": {"hp": -7, "temp": 0, "total": -7},
     "attacker": "Scene.s1.Token.t0", "critical": false, "purpose": "location",
     "roll": {"formula": "2d6+3", "total": 12, "dice": [{"faces": 6, "results": [...]}]}}

Hooks and mapping:
- `dnd5e.applyDamage(actor, amount, options)`: `amount` is the whole damage after resistances
  (healing below 0), which dnd5e does not keep past 0 HP; `changes` is the HP change of its
  update (the module reads it from the update `dnd5e.preApplyDamage` was given, since dnd5e
  4.0 and later fire their own `damageActor` for it only after awaiting the Bloodied effect,
  after `applyDamage`), and the module sends that hook no more. Damage is a hit for all of
  `amount` in a ruleset that keeps temporary HP (dnd5e), else for `amount` less what temporary
  HP took; healing is a heal of the HP gained. `critical` (the originating damage roll's
  `isCritical`) is a dnd5e hit's `critical` fact; `attacker` is the hit's attacker.
- `dnd5e.damageActor` / `dnd5e.healActor(actor, changes{hp, temp, total}, update, userId)`: an
  HP change by any other means (the sheet, the token HUD): HP and temporary HP before
  (`hp.value - changes.hp`) and after, as `Batch.hp_and_temporary` reads them. An `attacker`,
  which the module sends with `applyDamage` only, is the hit's attacker or the heal's healer
  (temporary HP granted name nobody).
- `dnd5e.rollDeathSave`: a dnd5e `check` (`death_save`), for a fight with option
  `death_saves: "table"` (the format's fight options, events/importers/__init__.py). Its
  outcome is Foundry's: the roll's `total` (bonuses in) against its `target` (10), a natural
  20 (`isCritical`) and 1 (`isFumble`) aside; the check's die is the natural d20 and its
  `bonus` the rest of the total, which woundlog's rule reads the same way (`death_save`).
  Other rulesets roll their own: no event, a warning. A critical success brings dnd5e's
  creature back at 1 HP: the module does not send the `healActor` that update fires, and the
  cursor counts the 1 HP.
- `combatTurnChange(combat, prior, current)`: `prior` and `current` are Foundry's
  `CombatHistoryData` (`round`, `turn`, `combatantId`, `tokenId`), `combat` the combat's id
  and `turns` the turn order (`combat.turns`: `combatantId`, `token`, `actor`). The move starts
  where the last turn change of that combat left it (kept in the cursor), else at `prior`:
  Foundry v13 can hand the active GM's client a `prior` the next update has overwritten. Each
  turn is keyed by (combat, round, turn, combatant), so a rewind then a re-advance makes the
  same events again, which the fight skips. Moving forward ends the prior turn, starts and
  ends every turn it jumped over (Foundry's `skipped` turns), ends each round it leaves and
  starts the current turn; the same place with another combatant (the one whose turn it was
  deleted: Foundry hands its turn index to the next) ends one turn and starts the other;
  moving back, or staying, makes nothing; round 0 is no round. Every combatant in `turns`
  with HP joins at its first sight.
- `maximum` (the module's own envelope, `cause` the Foundry hook it saw): the prepared maximum
  moved and no HP hook follows: an ActiveEffect applied, changed or ended (`createActiveEffect`,
  `updateActiveEffect`, `deleteActiveEffect`, with `effect.name`), or the sheet's `max` or
  `tempmax` edited (`updateActor`) without moving the prepared HP. Its `actor.hp` is prepared
  after it: an effect's end lowers `hp.value` with the maximum, and dnd5e fires no HP hook.
- First sight of a character: it joins with dnd5e's effective maximum (`hp.max + hp.tempmax`,
  Aid's +5 included; the HP before the change, where a change lowered the maximum below them)
  as the ruleset's stat, as the player kind on the players' side when
  `token.player` (the module sends `actor.hasPlayerOwner`; without it, `actor.type ==
  "character"`), else the other kind; `token.side` overrides the side. Below its maximum before
  the change, it also takes a hit for the difference; holding temporary HP before it (`hp.temp`
  less `changes.temp`), it is granted them, so a first blow they absorb is absorbed once, by
  the rules. A character with an effective maximum below 1 is never tracked.

A maximum that moves. The cursor keeps each character's effective maximum as woundlog holds
it; whenever an envelope shows another (any hook: an effect, dnd5e 5.3's `maximum` damage or
healing type, a sheet edit, a turn change's order), it is a `stat_changed` of the ruleset's
stat (`ImportRules.maximum`: dnd5e's `hp`), `reason` naming the old and new maximum and the
cause, BEFORE the HP change: so a heal above the old maximum is not capped at it, and a
lowered one brings woundlog's HP down as dnd5e's prepared HP come down (`min(value,
effectiveMax)`), the HP change then counted from there. One exception: a blow whose HP before
it were above the maximum it leaves (Life Drain as dnd5e 5.3 applies it: the `maximum` part
lowers `tempmax`, `amount` is the rest, and the HP lost is clamped to the new maximum) is hit
first and the maximum set after, lest the cap and the hit take the same HP twice. The HP
before a change are checked against 0 and the maximum before it (the cursor's, or the one
after, the higher). A ruleset with a fixed maximum gets a warning instead; a character the
cursor knows no maximum of (a fight imported before this) takes the envelope's, without event.

Revival. dnd5e has no dead state of its own: the sheet shows a player character dead at 0 HP
with three failed death saves, and any heal above 0 HP clears them (`preUpdateHP`), so the
sheet shows it alive (Revivify is a `healing` part of 1). A player character's heal from 0 HP
is sent with a revival to try in its place (`Converted.instead`: the heal with means
`ImportRules.revival`, dnd5e's `revivify`, id `...:heal:revival`), appended only if woundlog's
rules hold the character dead; a new fight made for these records has option `revival`
(events/importers/__init__.py), an existing one without it refuses the revival and says so.
A monster healed from 0 HP woundlog holds dead (woundlog's dnd5e kills monsters at 0 HP,
Foundry only shows 0 HP) is left out and reported, as before.
- Dice: `roll` is a roll as `Roll#dice` gives its dice (parenthetical and pool terms already
  flattened), `purpose` the woundlog dice purpose they are given for; `rolls` gives several:
  `{purpose: [roll, ...]}`. A die counts when its result is `active` and not `discarded` (kept
  and dropped dice of `2d20kh`, a reroll's first result). The dice go on the event's character.

Drift. Each envelope carries `hp.value` after its change, and the cursor (`previous`) keeps
each token's last HP: when the HP before a change (`hp.value - changes.hp`) is not the HP the
last envelope left, something changed unseen (a rest, which dnd5e reports by no hook; a lost
send; an edit with the module off). That is reported (a warning naming the envelope, the token
and both values) and the fight is brought to Foundry's HP first by an event of its own
(`foundry:<id>:<token>:drift`, noted as such), so a GM sees it and can undo it. An envelope
that contradicts itself (an `applyDamage` that says more HP was lost than it dealt) is refused.

Ids: `foundry:<id>:<token>:hit` / `:heal` / `:temp` / `:death_save` / `:drift` / `:max`
(a `stat_changed`) / `:heal:revival`,
`foundry:<combat>:<round>:<turn>:<combatant>:<token>:turn_started` / `turn_ended`,
`foundry:<combat>:<round>:round_ended`, `foundry:<token>:joined` / `:hurt`. The cursor also
keeps the last envelope ids seen (looked up in a set: a batch is one pass), so a resend is
recognised and makes nothing new.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator, Sequence
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..errors import StructuralError
from ..model import (
    CHECK_BONUS,
    MAGNITUDE,
    NAME_LENGTH,
    Check,
    Heal,
    Hit,
    Magnitude,
    StatChanged,
    TurnEnded,
    TurnStarted,
)
from .base import (
    Batch,
    Converted,
    Sighting,
    SourceId,
    decode,
    kept,
    merge_rolls,
    scoped,
)
from .rules import ImportRules

SOURCE = "foundry"
HOOKS = (
    "dnd5e.applyDamage",
    "dnd5e.damageActor",
    "dnd5e.healActor",
    "dnd5e.rollDeathSave",
    "combatTurnChange",
    "maximum",
)
DEATH_SAVE = "death_save"  # in an id: the death save of its envelope
SEEN_KEPT = 500  # envelope ids the cursor remembers, for resends (the module resends its queue)
MAX_ROUNDS = 10  # rounds one turn change may cross (a GM typing round 1000 is not 1000 rounds)
UNHOOKED_KEPT = 4  # late HP hooks awaited per token (see `Conversion.unreported`)


# --- a roll as Roll#dice gives it ----------------------------------------------------------------


class DieResult(msgspec.Struct, frozen=True):
    result: Magnitude
    active: bool = True
    discarded: bool = False


class DiceTerm(msgspec.Struct, frozen=True):
    faces: Magnitude | None = None
    results: list[DieResult] = []


class Roll(msgspec.Struct, frozen=True):
    dice: list[DiceTerm] = []
    formula: str = ""
    total: Annotated[float, Meta(ge=-MAGNITUDE, le=MAGNITUDE)] | None = None
    is_critical: bool | None = msgspec.field(default=None, name="isCritical")
    is_fumble: bool | None = msgspec.field(default=None, name="isFumble")
    target: Annotated[float, Meta(ge=-MAGNITUDE, le=MAGNITUDE)] | None = None  # a death save's: 10


def dice(roll: Roll) -> list[int]:
    """Every die result that counts, in order: active and not discarded."""
    return [r.result for term in roll.dice for r in term.results if r.active and not r.discarded]


NATURAL_20 = 20
DEATH_SAVE_TARGET = 10


def death_save(roll: Roll | None) -> tuple[list[int], int, str | None]:
    """The natural d20 of a death save rolled in Foundry, what the table added to it, and a
    note where Foundry decided otherwise than the die and bonus say.

    dnd5e decides a death save by its total, bonuses included, against `roll.options.target`
    (10): a success at or above it; a natural 20 (`isCritical`) brings the creature back at 1
    HP, a natural 1 (`isFumble`) is two failures (dnd5e 5.3.3 and 4.4.4
    `module/documents/actor/actor.mjs`, `rollDeathSave`; 3.3.1 the same). woundlog's dnd5e rule
    reads the same: the d20 plus the check's `bonus` against 10, a natural 1 and 20 aside. So
    the die recorded is the one rolled, and the bonus is the total less the die (a target other
    than 10, a house rule, moves the bonus by the difference, which gives the same outcome). No
    die is made up: a roll that names no die gives none, and woundlog draws it. Foundry's
    critical and fumble follow the die unless a module moved their thresholds: that is noted,
    and woundlog's rule goes by the die."""
    natural = dice(roll)[:1] if roll is not None else []
    if roll is None or not natural:
        return [], 0, None
    die = natural[0]
    if roll.total is None:  # no total: the natural die is all there is
        return natural, 0, None
    target = DEATH_SAVE_TARGET if roll.target is None else roll.target
    bonus = math.floor(roll.total) - die - (math.ceil(target) - DEATH_SAVE_TARGET)
    bonus = max(-CHECK_BONUS, min(bonus, CHECK_BONUS))  # past it the outcome is the same
    note = None
    if roll.is_critical is not None and roll.is_critical != (die == NATURAL_20):
        note = f"Foundry took the natural {die} as {'a' if roll.is_critical else 'no'} critical"
    elif roll.is_fumble is not None and roll.is_fumble != (die == 1):
        note = f"Foundry took the natural {die} as {'a' if roll.is_fumble else 'no'} fumble"
    if note is not None:
        note += f" ({roll.formula or 'd20'}, total {roll.total:g}); woundlog goes by the die"
    return natural, bonus, note


# --- the envelopes -------------------------------------------------------------------------------


class HitPoints(msgspec.Struct, frozen=True):
    max: Magnitude
    value: Magnitude | None = None
    temp: Magnitude | None = None
    tempmax: Magnitude = 0  # dnd5e's temporary change of the maximum (Aid: +5), may be negative

    @property
    def effective_max(self) -> int:
        """dnd5e's `hp.effectiveMax`: `max + tempmax`, never below 0 (dnd5e 5.3.3
        module/data/actor/templates/attributes.mjs, `prepareHitPoints`), which `hp.value`
        never exceeds."""
        return max(self.max + self.tempmax, 0)


class Token(msgspec.Struct, frozen=True):
    uuid: SourceId
    name: str = ""
    player: bool | None = None
    side: str | None = None


class Actor(msgspec.Struct, frozen=True):
    hp: HitPoints
    id: str = ""
    name: str = ""
    type: str = ""


class HpChanges(msgspec.Struct, frozen=True):
    hp: Magnitude = 0
    temp: Magnitude = 0
    total: Magnitude = 0


class Envelope(msgspec.Struct, frozen=True, kw_only=True, tag_field="hook"):
    id: SourceId
    purpose: str | None = None
    roll: Roll | None = None
    rolls: dict[str, list[Roll]] = {}

    def given_rolls(self, index: int) -> dict[str, list[int]]:
        if self.roll is not None and self.purpose is None:
            raise StructuralError(
                "a `roll` needs the `purpose` its dice are for", field="$.purpose", index=index
            )
        groups = [(p, dice(r)) for p, rs in self.rolls.items() for r in rs]
        if self.roll is not None and self.purpose is not None:
            groups.insert(0, (self.purpose, dice(self.roll)))
        return merge_rolls(groups)


class OnToken(Envelope, frozen=True, kw_only=True):
    token: Token
    actor: Actor


class ApplyDamage(OnToken, tag="dnd5e.applyDamage", frozen=True, kw_only=True):
    amount: Magnitude
    changes: HpChanges | None = None
    attacker: SourceId | None = None
    critical: bool = False


class DamageActor(OnToken, tag="dnd5e.damageActor", frozen=True, kw_only=True):
    changes: HpChanges
    attacker: SourceId | None = None


class HealActor(OnToken, tag="dnd5e.healActor", frozen=True, kw_only=True):
    changes: HpChanges
    attacker: SourceId | None = None


class Effect(msgspec.Struct, frozen=True):
    """An ActiveEffect, by its name (dnd5e's Aid: `Level 2: +5 Max HP`)."""

    name: Annotated[str, Meta(max_length=NAME_LENGTH)] = ""


CAUSES = {
    "updateActor": "the sheet's maximum edited",
    "createActiveEffect": "applied",
    "updateActiveEffect": "changed",
    "deleteActiveEffect": "ended",
}
"""The Foundry hooks a `maximum` envelope may come from, and what each did to the maximum."""


class MaximumMoved(OnToken, tag="maximum", frozen=True, kw_only=True):
    """A Foundry hook (`cause`) that changed an actor's prepared maximum, with no HP hook to
    follow: its `actor.hp` as prepared after it; `effect` the ActiveEffect it applied, changed
    or ended."""

    cause: Literal["updateActor", "createActiveEffect", "updateActiveEffect", "deleteActiveEffect"]
    effect: Effect | None = None

    def said(self) -> str:
        if self.cause == "updateActor":
            return CAUSES[self.cause]
        name = "".join(c for c in self.effect.name if c.isprintable()) if self.effect else ""
        return (
            f"effect `{name}` {CAUSES[self.cause]}" if name else f"an effect {CAUSES[self.cause]}"
        )


class RollDeathSave(OnToken, tag="dnd5e.rollDeathSave", frozen=True, kw_only=True):
    def given_rolls(self, index: int) -> dict[str, list[int]]:
        return {}  # its roll is the check's own die, whatever `purpose` says


class HistoryData(msgspec.Struct, frozen=True):
    """Foundry's `CombatHistoryData`."""

    round: Magnitude | None = None
    turn: Magnitude | None = None
    combatant_id: SourceId | None = msgspec.field(default=None, name="combatantId")
    token_id: str | None = msgspec.field(default=None, name="tokenId")


class InOrder(msgspec.Struct, frozen=True):
    """One entry of `combat.turns`."""

    combatant_id: SourceId = msgspec.field(name="combatantId")
    token: Token | None = None
    actor: Actor | None = None


class CombatTurnChange(Envelope, tag="combatTurnChange", frozen=True, kw_only=True):
    combat: SourceId
    prior: HistoryData
    current: HistoryData
    turns: list[InOrder] = []


Hook = ApplyDamage | DamageActor | HealActor | RollDeathSave | CombatTurnChange | MaximumMoved


class _HookName(msgspec.Struct, frozen=True):
    hook: str


def envelope(record: object, index: int) -> Hook:
    hook = decode(record, _HookName, index).hook
    if hook not in HOOKS:
        raise StructuralError(
            f"no hook `{hook}` (known: {', '.join(HOOKS)})", field="$.hook", index=index
        )
    return decode(record, Hook, index)  # type: ignore[arg-type]


# --- the cursor ----------------------------------------------------------------------------------


class Place(msgspec.Struct, frozen=True, array_like=True):
    """Where a combat was after the last turn change woundlog took in: round, turn, the
    combatant whose turn it was and its token."""

    round: int
    turn: int | None = None
    combatant: str | None = None
    token: str | None = None


class Cursor(msgspec.Struct, frozen=True):
    """Each token's HP as the last envelope left it, the envelope ids seen last, and each
    combat's place after its last turn change."""

    hp: dict[str, int] = {}
    max: dict[str, int] = {}  # each token's maximum as woundlog holds it (see `Conversion.maximum`)
    seen: list[str] = []
    combats: dict[str, Place] = {}
    unhooked: dict[str, list[tuple[int, int]]] = {}  # see `Conversion.unreported`


def cursor_of(previous: object | None) -> Cursor:
    return Cursor() if previous is None else kept(previous, Cursor)


# --- what each hook makes ------------------------------------------------------------------------


class Conversion:
    """One batch of envelopes: the events, and each token's HP as the envelopes leave it."""

    def __init__(self, importing: ImportRules, joined: Collection[str], cursor: Cursor) -> None:
        self.batch = Batch(SOURCE, importing, joined)
        self.hp = dict(cursor.hp)
        self.max = dict(cursor.max)
        # Envelope ids in the order seen (the cursor keeps the last ones) and as a set, so a
        # resend is recognised in one look-up, not a scan of every id before it.
        self.seen = list(cursor.seen)
        self.seen_ids = set(self.seen)
        self.combats = dict(cursor.combats)
        self.unhooked = {token: list(pairs) for token, pairs in cursor.unhooked.items()}

    def sight(
        self, token: Token, actor: Actor, before: int | None = None, temp_change: int = 0
    ) -> bool:
        """Join a token seen for the first time, with its HP and temporary HP as they were before
        the hook's change (`temp_change`: its change of temporary HP); False if it is never
        tracked (no HP). It joins with its effective maximum, or with the HP before the change
        where they were above it (the change lowered the maximum: the one before is not in the
        envelope, and it was at least those HP); `maximum` then moves it."""
        top = actor.hp.effective_max
        if top < 1:
            return False
        hp = before if before is not None else actor.hp.value
        hp = top if hp is None else hp
        temp = (actor.hp.temp or 0) - temp_change
        player = token.player if token.player is not None else actor.type == "character"
        name = token.name or actor.name or token.uuid
        joined_with = max(top, hp)
        if self.batch.sight(Sighting(token.uuid, name, player, joined_with, hp, token.side, temp)):
            self.hp.setdefault(token.uuid, hp)
            self.max[token.uuid] = joined_with
        return True

    def before(self, hook: OnToken, change: int, index: int) -> int | None:
        """HP before the hook's change (`change`, of `hp.value`), checked against what dnd5e
        allows: `hp.value` within 0 and the effective maximum after the change, the HP before
        it within 0 and the maximum before it (the one the cursor holds, or the one after, the
        higher: a maximum that moved unseen is taken in, not refused)."""
        token, value, hp = hook.token.uuid, hook.actor.hp.value, hook.actor.hp
        if value is None:
            return self.hp.get(token)
        top = hp.effective_max
        if not 0 <= value <= top:  # dnd5e keeps hp.value in 0..effectiveMax
            raise StructuralError(
                f"hp.value {value} is outside 0 to {top}: no Foundry actor can be there",
                field="$.actor.hp.value",
                index=index,
            )
        before = value - change
        known = self.max.get(token)
        upper = max(top, known) if known is not None else None
        if before < 0 or (upper is not None and before > upper):
            raise StructuralError(
                f"a change of {change:+d} to {value} HP means {before} HP before it, outside 0 "
                f"to {upper if upper is not None else top}: the envelope contradicts the HP it "
                "carries",
                field="$.changes.hp",
                index=index,
            )
        return before

    def drift(self, hook: OnToken, before: int | None, index: int) -> None:
        """A difference between the HP before the hook's change and the HP the last envelope
        left (after any move of the maximum) is drift: reported, and brought in line by its
        own event."""
        token = hook.token.uuid
        known = self.hp.get(token)
        if before is None or known is None or known == before:
            return
        self.batch.warn(
            f"record {index} ({hook_name(hook)} `{hook.id}`): {hook.token.name or token} "
            f"was at {known} HP after the last record and Foundry says {before} before "
            f"this one: {before - known:+d} HP changed unseen (a rest, a lost send, an edit "
            "with the module off); woundlog follows Foundry"
        )
        start = len(self.batch.events)
        self.batch.hp_change(self.batch.id(hook.id, token, "drift"), token, before - known)
        for at in range(start, len(self.batch.events)):
            self.batch.events[at] = msgspec.structs.replace(
                self.batch.events[at],
                note=f"drift: Foundry had {before} HP where woundlog had {known}",
            )
        self.hp[token] = before

    def maximum(self, hook: Envelope, token: Token, actor: Actor, cause: str) -> None:
        """dnd5e's effective maximum (`max + tempmax`, effects applied) as this envelope shows
        it, where it is not the one woundlog holds: a `stat_changed` of the ruleset's stat
        (`ImportRules.maximum`), whose cap brings the HP woundlog holds down with a lowered
        one, as dnd5e's `prepareHitPoints` does (`hp.value = min(value, effectiveMax)`).
        Id `foundry:<id>:<token>:max`. A ruleset that keeps the maximum a character joined
        with is warned of it instead."""
        who, top = token.uuid, actor.hp.effective_max
        known = self.max.get(who)
        if who not in self.batch.joined or known == top:
            return
        self.max[who] = top
        if known is None:  # joined before the cursor kept maximums: nothing to compare with
            return
        stat = self.batch.importing.maximum
        name = token.name or actor.name or who
        if stat is None:
            self.batch.warn(
                f"{name}'s maximum moved to {top} in Foundry ({cause}): this fight's ruleset "
                "keeps the maximum a character joined with"
            )
            return
        self.batch.add(
            StatChanged(
                id=self.batch.id(hook.id, who, "max"),
                by=SOURCE,
                character=who,
                stat=stat,
                value=top,
                reason=f"Foundry: {known} -> {top}, {cause}",
            )
        )
        if who in self.hp:
            self.hp[who] = min(self.hp[who], top)

    def revivals(self, start: int, hook: OnToken, hp_before: int | None) -> None:
        """A player character's heal from 0 HP among the events made since `start`: dnd5e
        shows the character alive after it (the sheet's dead is three failed death saves at 0
        HP, and `preUpdateHP` clears them when a heal takes HP above 0: release-5.3.3
        module/data/actor/templates/attributes.mjs; Revivify is a heal of 1 HP), so where
        woundlog's rules hold the character dead the heal is appended as a revival instead
        (`ImportRules.revival`, dnd5e's `revivify`), under its id plus `:revival`; a fight
        without the ruleset's option for it refuses that too, and says so. A monster is not
        revived so: woundlog's dnd5e kills it at 0 HP where Foundry only shows 0 HP, and a
        heal of it stays a refusal the GM is told of."""
        token = hook.token
        player = token.player if token.player is not None else hook.actor.type == "character"
        if hp_before == 0 and player:
            note = "Foundry shows them alive after this heal from 0 HP: a revival"
            self.batch.revivals(start, token.uuid, note)

    def unreported(self, hook: ApplyDamage) -> HpChanges:
        """The change of an `applyDamage` that carries none (the module of manifest 1.0.0 took
        it from dnd5e's own HP hook): none when HP did not move. In dnd5e 4.0 and later that
        hook came after `applyDamage` whenever the Bloodied effect was made, so HP lower than
        the last envelope left it, by no more than the damage, is this blow's; the HP hook
        that follows for the same move (`before`, `after`) is then the same update."""
        known, value = self.hp.get(hook.token.uuid), hook.actor.hp.value
        if known is None or value is None or not 0 < known - value <= hook.amount:
            return HpChanges()
        pairs = self.unhooked.setdefault(hook.token.uuid, [])
        pairs[:] = [*pairs[-(UNHOOKED_KEPT - 1) :], (known, value)]
        return HpChanges(hp=value - known, total=value - known)

    def hooked_before(self, hook: DamageActor | HealActor) -> bool:
        """The late HP hook of an `applyDamage` taken in by `unreported`."""
        value, pairs = hook.actor.hp.value, self.unhooked.get(hook.token.uuid, [])
        if value is None or (value - hook.changes.hp, value) not in pairs:
            return False
        pairs.remove((value - hook.changes.hp, value))
        if not pairs:
            del self.unhooked[hook.token.uuid]
        return True

    def apply_damage(self, hook: ApplyDamage, rolls: dict[str, list[int]], index: int) -> None:
        """A blow or a heal. A maximum that moved with it (dnd5e 5.3's `maximum` damage and
        healing type, `applyDamage`'s `tempmax` update) is set before it, except one lowered
        below the HP the blow started from: that blow's damage counts from the HP before it
        (dnd5e clamps the HP lost to keep them within the new maximum), so the maximum is set
        after the hit, lest its cap and the hit both take the same HP."""
        changes = hook.changes if hook.changes is not None else self.unreported(hook)
        if hook.amount > 0 and -changes.total > hook.amount:
            raise StructuralError(
                f"`changes.total` {changes.total} takes more than the `amount` {hook.amount} "
                "dealt: the envelope contradicts itself",
                field="$.changes.total",
                index=index,
            )
        before = self.before(hook, changes.hp, index)
        if not self.sight(hook.token, hook.actor, before, changes.temp):
            return
        who, batch, top = hook.token.uuid, self.batch, hook.actor.hp.effective_max
        drained = hook.amount > 0 and before is not None and before > top
        cause = f"`maximum` {'damage' if top < self.max.get(who, top) else 'healing'}"
        if not drained:
            self.maximum(hook, hook.token, hook.actor, cause)
            before = None if before is None else min(before, top)
        self.drift(hook, before, index)
        start = len(batch.events)
        if hook.amount > 0:
            # dnd5e's `applyDamage` takes min(temporary HP, amount) off them, then may set them
            # higher (a `temphp` part of the same damage): the change alone can hide what they
            # took, the temporary HP held before cannot
            held = max((hook.actor.hp.temp or 0) - changes.temp, 0)
            absorbed = 0 if batch.importing.temporary is not None else min(held, hook.amount)
            batch.add(
                Hit(
                    id=batch.id(hook.id, who, "hit"),
                    by=SOURCE,
                    target=who,
                    damage=hook.amount - absorbed,
                    attacker=hook.attacker,
                    rolls=scoped(rolls, who),
                    critical=True if hook.critical and batch.importing.critical else None,
                )
            )
        else:
            value = hook.actor.hp.value
            gained = changes.hp if value is None or before is None else value - before
            if gained > 0:
                batch.hp_change(
                    batch.id(hook.id, who, "heal"), who, gained, by=hook.attacker, rolls=rolls
                )
                self.revivals(start, hook, before)
        if changes.temp > 0 and hook.actor.hp.temp:
            batch.grant_temporary(batch.id(hook.id, who, "temp"), who, hook.actor.hp.temp)
        if drained:
            self.maximum(hook, hook.token, hook.actor, cause)
        self.left(hook)

    def hp_hook(self, hook: DamageActor | HealActor, index: int) -> None:
        """An HP change by any other means. A maximum that moved with it (a sheet's `tempmax`
        lowered, which lowers the prepared HP with it) is set first, and the change is counted
        from the HP that maximum leaves."""
        if self.hooked_before(hook):
            self.left(hook)
            return
        changes = hook.changes
        before = self.before(hook, changes.hp, index)
        if not self.sight(hook.token, hook.actor, before, changes.temp):
            return
        self.maximum(hook, hook.token, hook.actor, "a sheet edit with this HP change")
        if hook.actor.hp.value is None or before is None:
            return
        before = min(before, hook.actor.hp.effective_max)
        self.drift(hook, before, index)
        temp = hook.actor.hp.temp or 0
        start = len(self.batch.events)
        self.batch.hp_and_temporary(
            hook.id,
            hook.token.uuid,
            (before, hook.actor.hp.value),
            (temp - changes.temp, temp),
        )
        for at in range(start, len(self.batch.events)):  # who did it, on the hit or heal
            event = self.batch.events[at]
            if isinstance(event, Hit):
                event = msgspec.structs.replace(event, attacker=hook.attacker)
            elif isinstance(event, Heal) and not event.means:  # a heal of HP, not a grant
                event = msgspec.structs.replace(event, healer=hook.attacker)
            self.batch.events[at] = event
        self.revivals(start, hook, before)
        self.left(hook)

    def maximum_moved(self, hook: MaximumMoved, index: int) -> None:
        """An effect applied, changed or ended, or the sheet's maximum edited, with no HP hook
        to come: the maximum, and the HP it leaves (dnd5e's prepared `hp.value`, never above
        it), taken in."""
        before = self.before(hook, 0, index)
        if not self.sight(hook.token, hook.actor, before):
            return
        self.maximum(hook, hook.token, hook.actor, hook.said())
        self.drift(hook, before, index)
        self.left(hook)

    def death_save(self, hook: RollDeathSave, index: int) -> None:
        check = self.batch.importing.death_save  # the ruleset's check, and the purpose of its die
        if check is None:
            self.batch.warn(
                f"record {index} (death save `{hook.id}`): a death save rolled in Foundry is a "
                "dnd5e rule; this fight's ruleset rolls its own"
            )
            return
        before = self.before(hook, 0, index)
        if not self.sight(hook.token, hook.actor, before):
            return
        self.maximum(hook, hook.token, hook.actor, "as the death save showed it")
        self.drift(hook, before, index)
        natural, bonus, note = death_save(hook.roll)
        who = hook.token.uuid
        self.batch.add(
            Check(
                id=self.batch.id(hook.id, who, DEATH_SAVE),
                by=SOURCE,
                character=who,
                check=check,
                bonus=bonus,
                rolls={check: natural} if natural else {},
                note=note,
            )
        )
        if natural == [NATURAL_20]:  # dnd5e's update to 1 HP, whose healActor is not sent
            self.hp[who] = 1

    def left(self, hook: OnToken) -> None:
        if hook.actor.hp.value is not None:
            self.hp[hook.token.uuid] = hook.actor.hp.value

    def turn_change(self, hook: CombatTurnChange) -> None:
        """The turns a move of the combat passes. The move starts where the last turn change
        of this combat left it (the cursor), not at the hook's `prior`: Foundry v13 calls
        `combatTurnChange` on the active GM's client only after awaiting the turn events, and
        by then the next update has overwritten the `previous` object it passes (client
        `Combat#_onUpdate` and `#recordPreviousState`, `Object.assign(this.previous, ...)`), so
        two quick Next Turn clicks give a first hook whose `prior` is its own `current`."""
        for entry in hook.turns:
            if entry.token is None or entry.actor is None:
                continue
            if self.sight(entry.token, entry.actor):
                self.maximum(hook, entry.token, entry.actor, "as the combat's turns show it")
        order = [e.combatant_id for e in hook.turns]
        tokens = {e.combatant_id: e.token.uuid for e in hook.turns if e.token is not None}
        prior, known = hook.prior, self.combats.get(hook.combat)
        if known is not None:
            prior = HistoryData(round=known.round, turn=known.turn, combatant_id=known.combatant)
            if known.combatant is not None and known.token is not None:
                tokens.setdefault(known.combatant, known.token)  # it may have left the combat
        current = hook.current
        if current.round is not None:
            self.combats[hook.combat] = Place(
                current.round, current.turn, current.combatant_id,
                tokens.get(current.combatant_id or ""),
            )  # fmt: skip
        batch, rounds = self.batch, (current.round or 0) - (prior.round or 0)
        if rounds > MAX_ROUNDS:
            batch.warn(
                f"turn change `{hook.id}` jumps {rounds} rounds: the turns and rounds in "
                "between are not ticked, only the prior turn's and round's end and the current "
                "turn's start"
            )
            order = []
        for step in crossed(prior, current, order):
            if step.combatant is None:
                batch.add(
                    TurnEnded(
                        id=batch.id(hook.combat, str(step.round), "round_ended"),
                        by=SOURCE,
                        round=step.round,
                    )
                )
                continue
            token = tokens.get(step.combatant)
            if token is not None:
                key = f"{hook.combat}:{step.round}:{step.turn}:{step.combatant}"
                batch.tick(TurnStarted if step.starts else TurnEnded, key, step.round, token)

    def remember(self, hook: Hook) -> bool:
        """False for an envelope seen before (a resend): it makes nothing new."""
        if hook.id in self.seen_ids:
            return False
        self.seen_ids.add(hook.id)
        self.seen.append(hook.id)
        return True

    def cursor(self) -> object:
        kept = Cursor(
            hp=self.hp,
            max=self.max,
            seen=self.seen[-SEEN_KEPT:],
            combats=self.combats,
            unhooked=self.unhooked,
        )
        return msgspec.to_builtins(kept)


class Step(msgspec.Struct, frozen=True):
    """A turn that starts or ends (`combatant` None: the round `round` ends)."""

    round: int
    turn: int = 0
    combatant: str | None = None
    starts: bool = False


def crossed(prior: HistoryData, current: HistoryData, order: list[str]) -> Iterator[Step]:
    """What a move from `prior` to `current` passes, in order: the prior turn ends, each turn
    jumped over (in the turn order `order`) starts and ends, each round left ends, and the
    current turn starts. Nothing when the move is not forward; round 0 is no round. With no
    turn order, only the prior turn, the rounds left and the current turn."""
    start = (prior.round or 0, -1 if prior.turn is None else prior.turn)
    end = (current.round or 0, -1 if current.turn is None else current.turn)
    # Deleting the combatant whose turn it is hands its turn index to the next one (client
    # `Combat#setupTurns` keeps `turn` unless it is past the end): the same place, another
    # combatant, is a move on.
    handed_on = end == start and current.combatant_id != prior.combatant_id
    if (end <= start and not handed_on) or end[0] < 1 or end[1] < 0:
        return
    if current.combatant_id is None:
        return
    round_, turn = start
    if round_ >= 1 and turn >= 0 and prior.combatant_id is not None:
        yield Step(round_, turn, prior.combatant_id)
    if handed_on:
        yield Step(end[0], end[1], current.combatant_id, starts=True)
        return
    if end[1] >= len(order):  # an order that does not hold the current turn says nothing
        order = []
    if round_ >= 1 and order:
        while True:
            turn += 1
            if turn >= len(order):
                yield Step(round_)
                round_, turn = round_ + 1, 0
            if (round_, turn) >= end:
                break
            yield Step(round_, turn, order[turn], starts=True)
            yield Step(round_, turn, order[turn])
    elif round_ >= 1:  # a jump too far to cross ends the prior round only
        far = end[0] - round_ > MAX_ROUNDS
        for ended in [round_] if far else range(round_, end[0]):
            yield Step(ended)
    yield Step(end[0], end[1], current.combatant_id, starts=True)


def hook_name(hook: Envelope) -> str:
    return str(type(hook).__struct_config__.tag)


def convert(
    records: Sequence[object],
    *,
    importing: ImportRules,
    joined: Collection[str],
    previous: object | None,
) -> Converted:
    conversion = Conversion(importing, joined, cursor_of(previous))
    batch = conversion.batch
    for index, record in enumerate(records):
        hook = envelope(record, index)
        rolls = hook.given_rolls(index)
        if not conversion.remember(hook):
            continue
        start = len(batch.events)
        if isinstance(hook, ApplyDamage):
            conversion.apply_damage(hook, rolls, index)
        elif isinstance(hook, DamageActor | HealActor):
            conversion.hp_hook(hook, index)
        elif isinstance(hook, RollDeathSave):
            conversion.death_save(hook, index)
        elif isinstance(hook, MaximumMoved):
            conversion.maximum_moved(hook, index)
        else:
            conversion.turn_change(hook)
            batch.give_rolls(start, rolls)
        batch.check(start, index)
    return Converted(
        batch.events, conversion.cursor(), batch.warnings, batch.records, batch.instead
    )

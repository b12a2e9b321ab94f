"""Mordheim: the injury roll and the recovery phase.

States in this game:
  upright        on his feet and fighting, even on zero wounds after standing up.
  knocked_down   face up: may crawl 2" in the movement phase; may not fight, shoot or cast.
  stunned        face down: may do nothing at all.
  out_of_action  removed from the battle; final for this fight.
  (downed, stabilised and dead are not used: whether an out-of-action warrior lives is
  decided after the battle, outside the fight.)

Stats: `wounds` (default 1). The rest of the profile (movement, weapon_skill, ballistic_skill,
strength, toughness, initiative, attacks, leadership) may be given for reference; rules here do
not read it. Kinds: `warrior` (default), `hero`, `henchman`, none with a rule of its own. Every
character needs a `side`: its recovery phase is its side's.

Dice: `injury` (D6), one for the wound that takes a fighter to zero and one for every wound
after it: 1-2 knocked down, 3-4 stunned, 5-6 out of action. The recovery phase rolls no dice.

Who may act (`WHO_MAY_ACT`): an upright fighter may be a hit's `attacker`, at half rate too
(he strikes last). A knocked-down fighter may not fight, shoot or cast spells, a stunned one
may do nothing at all, and one out of action takes no further part: a hit whose attacker is
one of them is refused on append and void on replay. An attacker who is not a fighter of this
fight (a trap, a spell) is accepted and named in the changes.

Luck (a report's order of harm): the state, then wounds left. An injury roll reads by what it
does (1-2 knocked down, 3-4 stunned, 5-6 out of action), the worst of every roll the wounds past
zero ask for, though the rolls stop at the first out of action.

Campaigns (`AFTER_THE_BATTLE`): wounds return after the battle. "After the battle you can test
to see whether he survives and if he sustains any serious lasting injuries": the text prints no
such table, so a warrior taken out of action carries the condition "out of action: the
after-battle test is owed"; the GM records its result, `died`, or a `treatment` (any means) for
a survivor, which clears it; until then he cannot join the next battle from the campaign (he
may not live to fight it). There is no rest.

Decisions where the text is silent or ambiguous:
- "Several wounds in one turn: apply the highest." Between two recovery phases a fighter's
  state only ever gets worse: each injury result is combined with his current state and the
  worse one stands (upright < knocked_down < stunned < out_of_action). So a hit never improves a
  state, and a 2-wound hit on a 1-wound fighter rolls twice and keeps the higher result. "A
  turn" is therefore everything between recoveries, across several hits.
- A hit of 0 damage inflicts no wound and rolls nothing.
- Once an injury roll of a hit is out of action, its later wounds roll nothing: the result is
  settled (out of action is the worst), so those dice could change nothing. A die given for
  them is reported as unused; the explanation says how many wounds past zero the hit was.
- The recovery phase is `turn_started` with a `side` (that side's fighters) or with a
  `character` (that fighter alone, for trackers that run a turn per model). A `turn_started`
  with neither is a round marker and recovers nobody.
- One step per recovery phase: knocked down -> upright, stunned -> knocked down. A stunned
  fighter stands at his side's second recovery phase.
- A fighter who stands up stays on zero wounds (his next wound rolls again) and carries
  `half_rate` for that turn: half move, strikes last, may not charge, run or flee. It clears at
  the end of that turn (`turn_ended` of his side, of himself, or of the whole round) or at his
  next recovery phase, whichever comes first, even if he was knocked down or stunned again in
  between.
- Crawling 2" and the base-contact limits on it are movement, which woundlog does not track;
  the knocked_down state carries them.
- Out of action is final: a hit on an out-of-action fighter is refused.
- The text has no healing: a `heal` is refused, pointing at `retract`/`amend` for correcting a
  mistaken hit. It leaves no decision to a player: a `choice` is refused.
- The close-combat rule that knocked-down or stunned models are taken out of action by any
  wound is not in this text; record such a blow as a hit whose `injury` die is given.
- `injuries` is always empty: Mordheim's serious injuries are rolled after the battle.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
from msgspec.structs import replace

from woundlog.events import CharacterJoined, Heal, Hit, RuleError, TurnEnded, TurnStarted
from woundlog.events.campaign import Treatment
from woundlog.events.importers.rules import ImportRules

from ..fight_state import Character, FightState, TickConcern
from ..machine import Graph
from ..permanence import Permanence, Record, nothing_to_restore
from ..presentation import Presentation
from ..ruleset import Acting, Context, Ruleset
from ..states import HARM, KNOCKED_DOWN, OUT_OF_ACTION, STUNNED, UPRIGHT, State
from ..tables import Table
from ..turns import starts_the_round_only

TRANSITIONS = [
    ("knock_down", UPRIGHT, KNOCKED_DOWN),
    ("stun", [UPRIGHT, KNOCKED_DOWN], STUNNED),
    ("take_out_of_action", [UPRIGHT, KNOCKED_DOWN, STUNNED], OUT_OF_ACTION),
    ("stand_up", KNOCKED_DOWN, UPRIGHT),
    ("turn_face_up", STUNNED, KNOCKED_DOWN),
]

INJURY = Table("D6", {(1, 2): KNOCKED_DOWN, (3, 4): STUNNED, (5, 6): OUT_OF_ACTION}, range(1, 7))

WHO_MAY_ACT: dict[State, Acting] = {
    KNOCKED_DOWN: Acting(
        attack=False, heal=False, why="is knocked down and may not fight, shoot or cast spells"
    ),
    STUNNED: Acting(attack=False, heal=False, why="is stunned and may do nothing at all"),
    OUT_OF_ACTION: Acting(attack=False, heal=False, why="is out of action"),
}
"""Upright fighters act; the others may not strike a blow (nor heal, which this text lacks)."""

PRESENTATION = Presentation(pools=("wounds",))
"""A fighter lives by his wounds. Every kind is a warband's fighter: none is the GM's."""
IMPORTING = ImportRules(stat="wounds", heals=False)
"""Another program's hit points are wounds; the text has no healing, so hit points going back
up in it make no event. Kinds are left to the default."""

SEVERITY: dict[State, int] = {UPRIGHT: 0, KNOCKED_DOWN: 1, STUNNED: 2, OUT_OF_ACTION: 3}
INJURY_TRIGGER: dict[str, str] = {
    KNOCKED_DOWN: "knock_down",
    STUNNED: "stun",
    OUT_OF_ACTION: "take_out_of_action",
}
PROFILE = (
    "movement",
    "weapon_skill",
    "ballistic_skill",
    "strength",
    "toughness",
    "initiative",
    "attacks",
    "leadership",
)


class Warrior(Character, frozen=True, kw_only=True):
    wounds: int
    half_rate: bool = False
    injuries: tuple[str, ...] = ()


def worse(a: State, b: State) -> State:
    return a if SEVERITY[a] >= SEVERITY[b] else b


def wounds_past_zero(wounds: int, damage: int) -> int:
    """How many of `damage` wounds land on a fighter with `wounds` left: the one that takes him
    to zero and every one after it, each of which rolls on the injury table."""
    return max(0, damage - max(wounds - 1, 0))


def take_wounds(fighter: Warrior, damage: int, ctx: Context) -> tuple[int, list[tuple[int, State]]]:
    """Remove wounds one at a time; the wound that reaches zero and every one after it rolls,
    until a roll takes him out of action: the worst result is then settled and the rest of the
    rolls could change nothing, so a hit's cost does not grow with its damage. The dice rolled
    are the first ones the wound-by-wound rule would roll, in the same order."""
    results: list[tuple[int, State]] = []
    for _ in range(wounds_past_zero(fighter.wounds, damage)):
        roll = ctx.roll("injury")  # one D6 on the injury table
        result = INJURY[roll]
        results.append((roll, result))
        if result == OUT_OF_ACTION:
            break
    return max(fighter.wounds - damage, 0), results


def recovery_phase(fighter: Warrior, ctx: Context) -> tuple[Warrior, str | None]:
    """Stunned fighters turn face up; knocked-down fighters stand, at half rate this turn.
    What happened is said as a template of the fighter's `name`, worded only when read."""
    if fighter.state == KNOCKED_DOWN:
        stood = replace(fighter, state=ctx.graph.fire(KNOCKED_DOWN, "stand_up"), half_rate=True)
        return stood, "{name} stands up (half rate this turn)"
    if fighter.state == STUNNED:
        face_up = replace(fighter, state=ctx.graph.fire(STUNNED, "turn_face_up"), half_rate=False)
        return face_up, "{name} turns face up (knocked down)"
    if fighter.half_rate:
        return msgspec.structs.replace(fighter, half_rate=False), None
    return fighter, None


RECOVERING = frozenset({KNOCKED_DOWN, STUNNED})
RECOVERY_PHASE = TickConcern(states=RECOVERING, counters=("half_rate",))
"""A recovery phase raises the knocked down and the stunned, and ends the half rate of one who
stood up last time; it does nothing to anyone else."""
END_OF_TURN = TickConcern(counters=("half_rate",))
"""The end of a turn ends half rate, and does nothing else."""


# --- between battles: a campaign ----------------------------------------------------------------

TEST_OWED = "out of action: the after-battle test is owed"


def survived(record: Record, treatment: Treatment) -> Record:
    if TEST_OWED not in record.conditions:
        raise RuleError(f"{record.name} owes no after-battle test", field="$.type")
    left = tuple(c for c in record.conditions if c != TEST_OWED)
    return msgspec.structs.replace(record, conditions=left)


AFTER_THE_BATTLE = Permanence(
    after_the_fight=lambda warrior: ({}, {}),
    conditions=lambda warrior: (TEST_OWED,) if warrior.state == OUT_OF_ACTION else (),
    rest=nothing_to_restore,
    treat=survived,
    no_rest="has no rest: wounds return after the battle",
    cannot_join=lambda record: (
        "was taken out of action and owes the after-battle test: record its result (`died`, "
        "or a `treatment` for a survivor) first"
        if TEST_OWED in record.conditions
        else None
    ),
)


class Mordheim(Ruleset):
    permanence = AFTER_THE_BATTLE
    name = "mordheim"
    graph = Graph(name, [UPRIGHT, KNOCKED_DOWN, STUNNED, OUT_OF_ACTION], TRANSITIONS)
    character = Warrior
    dice: ClassVar[dict[str, int]] = {"injury": 6}
    dice_words: ClassVar[dict[str, str]] = {"injury": "Injury roll"}
    dice_harm: ClassVar[dict[str, dict[int, int]]] = {
        "injury": {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3}  # knocked down, stunned, out of action
    }

    def harm(self, character: Any) -> tuple[int, ...]:
        """The state, then wounds left."""
        return HARM.get(character.state, 0), -character.wounds

    def dice_asked(self, before: FightState[Any], event: Any, purpose: str) -> int | None:
        """A hit's injury dice: one per wound past zero, though the rolls stop once one takes
        him out of action (the rest could change nothing)."""
        target = before.characters.get(getattr(event, "target", ""))
        if purpose != "injury" or not isinstance(event, Hit) or target is None:
            return None
        return wounds_past_zero(target.wounds, event.damage)

    # the injury table is ordered, so the worst result of a hit's rolls is its highest die
    dice_readings: ClassVar[dict[str, str]] = {"injury": "highest"}
    stats: ClassVar[dict[str, int | None]] = {"wounds": 1}
    optional_stats = PROFILE
    kinds = ("warrior", "hero", "henchman")
    who_may_act = WHO_MAY_ACT
    presentation = PRESENTATION
    importing = IMPORTING
    tick_concerns: ClassVar[dict[str, TickConcern]] = {
        "turn_started": RECOVERY_PHASE,
        "turn_ended": END_OF_TURN,
    }

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> Warrior:
        if not event.side:
            raise ctx.refuse("a Mordheim warrior needs a `side`: its recovery phase", "$.side")
        if stats["wounds"] < 1:
            raise ctx.refuse("a warrior starts with at least 1 wound", "$.stats.wounds")
        return Warrior(
            **self.basics(event, kind, stats),
            wounds=stats["wounds"],
        )

    def on_hit(self, fight: FightState[Any], target: Warrior, hit: Hit, ctx: Context) -> Warrior:
        if target.state == OUT_OF_ACTION:
            raise ctx.refuse(f"{target.name} is out of action and takes no further part")
        if hit.damage == 0:
            if ctx.explains:
                ctx.say("{target.name}: no wound", target=target)
            return target
        wounds, results = take_wounds(target, hit.damage, ctx)
        worst = target.state
        for _, result in results:  # `worse`, written in: the worst result stands
            if SEVERITY[result] > SEVERITY[worst]:
                worst = result
        if worst != target.state:  # one copy of him, wounds and state at once
            moved = ctx.graph.fire(target.state, INJURY_TRIGGER[worst])
            fighter = msgspec.structs.replace(target, wounds=wounds, state=moved)
        elif wounds != target.wounds:
            fighter = msgspec.structs.replace(target, wounds=wounds)
        else:  # on zero wounds already, and no worse for it: nothing to copy
            fighter = target
        if not ctx.explains:
            return fighter
        plural = "s" if hit.damage > 1 else ""
        if target.wounds:
            lost = f"{target.name} loses {hit.damage} wound{plural} ({target.wounds} -> {wounds})"
        else:
            lost = f"{target.name} takes {hit.damage} more wound{plural} on zero wounds"
        past = wounds_past_zero(target.wounds, hit.damage)
        if past:
            lost += f", {past:,} past zero"
        if results:
            shown = ", ".join(f"{roll} {result.replace('_', ' ')}" for roll, result in results)
            lost += f"; injury roll {shown}: {fighter.state.replace('_', ' ')}"
            if len(results) < past:
                lost += " (which settles it: the other rolls could change nothing)"
        ctx.say(lost)
        return fighter

    def on_heal(self, fight: FightState[Any], target: Warrior, heal: Heal, ctx: Context) -> Warrior:
        raise ctx.refuse(
            "Mordheim has no healing during a battle; to correct a mistaken hit, retract or "
            "amend it (woundlog undo / woundlog amend)"
        )

    def on_turn_started(
        self, fight: FightState[Any], turn: TurnStarted, ctx: Context
    ) -> dict[str, Warrior]:
        if turn.side is None and starts_the_round_only(turn, ctx.pulse):
            return {}
        updated: dict[str, Warrior] = {}
        moves: list[str] = []
        for cid, fighter in self.turns(fight, "turn_started", turn, ctx).items():
            if fighter.state not in RECOVERING and not fighter.half_rate:
                continue  # upright at full rate: nothing to recover (RECOVERY_PHASE)
            after, said = recovery_phase(fighter, ctx)
            if after is not fighter:
                updated[cid] = after
            if said and ctx.explains:
                moves.append(said.format(name=fighter.name))
        if ctx.explains:
            ctx.say("recovery phase: " + (", ".join(moves) or "nobody to recover"))
        return updated

    def on_turn_ended(
        self, fight: FightState[Any], turn: TurnEnded, ctx: Context
    ) -> dict[str, Warrior]:
        rested = {
            cid: msgspec.structs.replace(fighter, half_rate=False)
            for cid, fighter in self.turns(fight, "turn_ended", turn, ctx).items()
            if fighter.half_rate
        }
        if rested and ctx.explains:
            names = ", ".join(fight.characters[cid].name for cid in rested)
            ctx.say("end of turn: back to full movement and fighting: {names}", names=names)
        return rested

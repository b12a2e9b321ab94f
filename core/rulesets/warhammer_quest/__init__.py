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

Who may act: only the upright attack or heal (WHO_MAY_ACT; `woundlog rules` prints the table).
A hit whose `attacker`, or a heal whose `healer`, is a character of the fight who may not is
refused, and void on replay. The exceptions are under Decisions below.

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

Luck (a report's order of harm): the state, then his Serious Injuries by severity, Starting
Wounds and wounds. The text ranks no Serious Injury; this ruleset's tiers (`tables.SEVERITY`),
worse larger: 0 a gain or nothing (61-64, 66); 1 a test's modifier or an occasional ache (31,
42, 43, 51, 53-56, 65); 2 a characteristic or a turn now and then (21-26, 33, 36, 41, 44-46,
52); 3 a part gone or wounds bleeding away (16, 32, 34, 35); 4 a limb (14, 15); 5 Decapitated
(11-13). A D66 reads by its result's tier, not its number. The Downed roll: dead worse than
unconscious, worse than stabilised.

Campaigns (`campaign.py`): wounds return after the adventure; Serious Injuries, with what they
did to Starting Wounds and characteristics, stay for good; no rest or treatment between
adventures (its docstring lists the decisions). A warrior joining from a campaign brings his
Serious Injuries (`character_joined.injuries`, as his record words them), and the rules of the
new fight read them: a starred result he has is Nothing Too Serious, a second Eye Loss takes his
other eye and retires him, a Severed Leg takes the leg he still has, and losing it retires him.

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

# The ruleset, wiring the rest: tables.py (the book's tables as data), warrior.py (the
# character), body.py (limbs, hands, eyes and what losing them does), injuries.py (the Serious
# Injuries roll), blows.py (hits), healing.py, turn.py (the start and end of the turn).

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any, ClassVar

from woundlog.events import CharacterJoined, Heal, Hit, TurnEnded, TurnStarted

from ...fight_state import FightState, TickConcern
from ...machine import Graph
from ...ruleset import Acting, Context, Options, Ruleset
from ...states import DEAD, DOWNED, HARM, KNOCKED_DOWN, STABILISED, UPRIGHT, State
from ...turns import PULSE_VERSION
from .blows import (
    coup_de_grace,
    pinned_warrior,
    spare_the_fallen,
    take_wounds,
    uses_serious_injuries,
    why_monsters_go_down,
    wound_monster,
)
from .campaign import BETWEEN_ADVENTURES, brings_his_injuries
from .healing import MEANS, check_means, heal_wounds, stop_bleeding, treat_downed
from .tables import (
    D66_FACES,
    DOWNED_HARM,
    DOWNED_TABLE,
    INJURIES,
    SERIOUS_INJURIES_TABLE,
    SEVERITY,
    SEVERITY_BY_NAME,
    DownedTable,
    SeriousInjuryTable,
    Tables,
)
from .turn import each, end_of_turn, start_of_turn, whole_turn
from .warrior import (
    CHANGED_STATS,
    HEALER_MONSTER,
    IMPORTING,
    MONSTER,
    MONSTERS,
    PRESENTATION,
    PROFILE,
    SIDES,
    WARRIOR,
    Warrior,
    injury_name,
    is_monster,
    replace,
)

__all__ = [
    "D66_FACES",
    "DOWNED_TABLE",
    "INJURIES",
    "SERIOUS_INJURIES_TABLE",
    "STATES",
    "TRANSITIONS",
    "WHO_MAY_ACT",
    "WarhammerQuest",
    "Warrior",
]


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
WHO_MAY_ACT: dict[State, Acting] = {
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


class WarhammerQuest(Ruleset):
    name = "warhammer_quest"
    graph = Graph(name, STATES, TRANSITIONS)
    character = Warrior
    dice_hints: ClassVar[dict[str, str]] = {
        "serious_injury": "a D66 is two d6, tens then units: give 34 as [3, 4]"
    }
    dice_readings: ClassVar[dict[str, str]] = {
        "serious_injury": "tens_units",
        "starting_wounds": "total",
        "internal_injury": "total",
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
    permanence = BETWEEN_ADVENTURES  # what outlasts a fight (campaign.py)
    who_may_act = WHO_MAY_ACT
    tick_concerns: ClassVar[dict[str, TickConcern]] = {
        # head wounds and Recurring Pains need an injury; last turn's effects are cleared
        "turn_started": TickConcern(counters=("this_turn", "injuries")),
        # the knocked down stand, the downed roll, an Internal Injury bleeds, effects clear
        "turn_ended": TickConcern(
            states=frozenset({KNOCKED_DOWN, DOWNED}), counters=("internal_bleeding", "this_turn")
        ),
    }
    kinds = (WARRIOR, MONSTER, HEALER_MONSTER)
    presentation = PRESENTATION
    importing = IMPORTING
    hit_facts = frozenset({"coup_de_grace", "pinned"})
    heal_facts = frozenset({"items"})
    heal_means = MEANS
    options: ClassVar[Options] = {
        "healing_natural_one_kills": False,
        "monsters_go_down": False,
        "monster_serious_injuries": False,
    }
    tables: ClassVar[dict[str, Any]] = {
        "downed": DOWNED_TABLE,
        "serious_injuries": SERIOUS_INJURIES_TABLE,
    }

    def harm(self, character: Any) -> tuple[int, ...]:
        """The state, then his Serious Injuries by severity (`SEVERITY`), then his Starting
        Wounds and wounds left."""
        severity = sum(SEVERITY_BY_NAME.get(injury_name(entry), 0) for entry in character.injuries)
        return (
            HARM.get(character.state, 0),
            severity,
            -character.starting_wounds,
            -character.wounds,
        )

    def die_harm(self, fight: FightState[Any], purpose: str) -> Mapping[int, int] | None:
        """The fight's own tables, read by what each result does: a D66 by its result's
        severity, the Downed roll dead, unconscious, stabilised."""
        tables = self.played_tables(fight)
        if purpose == "serious_injury":
            return {face: SEVERITY[tables.serious_injuries[face]] for face in D66_FACES}
        if purpose == "downed":
            return {face: DOWNED_HARM[tables.downed[face]] for face in range(1, 7)}
        return None

    def played_tables(self, fight: FightState[Any]) -> Tables:
        downed: DownedTable = self.table(fight, "downed")
        serious: SeriousInjuryTable = self.table(fight, "serious_injuries")
        return Tables(downed.ranges(), serious.ranges())

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> Warrior:
        if stats["wounds"] < 1:
            raise ctx.refuse("Starting Wounds are at least 1", "$.stats.wounds")
        side = SIDES.gm if kind in MONSTERS else SIDES.players
        joined = Warrior(
            **self.basics(event, kind, stats, side=side),
            wounds=stats["wounds"],
            starting_wounds=stats["wounds"],
        )
        current = {stat: stats[stat] for stat in CHANGED_STATS if stat in stats}
        joined = replace(joined, **current) if current else joined
        return brings_his_injuries(joined, event, ctx)

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
            ctx.say("{target.name}: no wound", target=target)
            return target
        if not uses_serious_injuries(fight, hit.target, target, ctx.options):
            go_down = why_monsters_go_down(fight, hit.target, ctx.options)
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

    def _turns(
        self, fight: FightState[Any], kind: str, turn: TurnStarted | TurnEnded, ctx: Context
    ) -> Mapping[str, Warrior] | None:
        """Whose turn the tick starts or ends; None for a side's or a character's before
        version 3, which the whole turn's ticks alone stood for (the warriors' turn and the
        monsters' make one turn of the game)."""
        if fight.version < PULSE_VERSION:
            return self.ticked(fight, kind) if whole_turn(turn) else None
        return self.turns(fight, kind, turn, ctx)

    def on_turn_started(
        self, fight: FightState[Any], turn: TurnStarted, ctx: Context
    ) -> dict[str, Warrior]:
        return self._tick(fight, "turn_started", turn, ctx)

    def on_turn_ended(
        self, fight: FightState[Any], turn: TurnEnded, ctx: Context
    ) -> dict[str, Warrior]:
        return self._tick(fight, "turn_ended", turn, ctx)

    def _tick(
        self, fight: FightState[Any], kind: str, turn: TurnStarted | TurnEnded, ctx: Context
    ) -> dict[str, Warrior]:
        """The start of the turn (the injuries that act then) or its end (the Downed rolls),
        for the warriors whose turn it is."""
        starts = kind == "turn_started"
        concerned = self._turns(fight, kind, turn, ctx)
        if concerned is None:
            which = "start" if starts else "end"
            ctx.say(
                "not the {which} of the turn (that is a {kind} with no side or character)",
                which=which,
                kind=kind,
            )
            return {}
        tables = self.played_tables(fight)
        step = start_of_turn if starts else end_of_turn
        updated = each(concerned, lambda cid, w: step(w, ctx.for_character(cid), tables))
        if not ctx.said:
            ctx.say(
                "start of the turn: no injury acts" if starts else "end of the turn: nobody is down"
            )
        return updated


def book() -> str:
    """The two tables as this module ships them, for `woundlog rules warhammer_quest`."""
    lines = ["The Downed table (D6; a heal that works adds +1 per item or spell):"]
    lines += [f"  {key:<6} {result}" for key, result in DOWNED_TABLE.rows.items()]
    lines.append("The Serious Injuries table (D66; * gained once, a repeat is Nothing Too Serious;")
    lines.append("[the name a table in a fight's log gives the result]):")
    for key, result in SERIOUS_INJURIES_TABLE.rows.items():
        injury = INJURIES[result]
        row = f"{key:<6} {injury.name}{'*' if injury.once else ''} [{result}]: {injury.effect}"
        lines.append(textwrap.fill(row, 96, initial_indent="  ", subsequent_indent=" " * 9))
    return "\n".join(lines)


__doc__ = f"{__doc__}\n{book()}\n"

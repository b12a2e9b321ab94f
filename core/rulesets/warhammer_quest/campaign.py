"""Between adventures: what a Warhammer Quest warrior carries from one fight to the next.

From the text: a warrior's wounds return after the adventure (he joins the next on his Starting
Wounds); a Serious Injury stays, with what it did to his Starting Wounds and characteristics
(Internal Injury's lost Starting Wounds, What Doesn't Kill Me's gained ones, Severed Leg's -2
Movement...), and a warrior who must retire from adventuring (his other leg lost) retires.

Decisions where the text is silent:
- there is no rest and no treatment between adventures: the text gives none, so a `rest` or a
  `treatment` is refused with the reason; Serious Injuries are for good.
- an Internal Injury still bleeding, or a What Doesn't Kill Me still to stand up, when the
  fight's log ends, bleeds or gains no more: the fight is over (record the turns in the fight).
- a Bone Fracture's roll "at the start of each adventure" is the GM's, in the next fight: the
  record lists the fracture; the campaign rolls nothing.
- every result gained stays on the record as the fight's state words it (Nothing Too Serious
  too: it is what was rolled).
- a warrior joining the next fight brings his injuries as the record words them; the body
  parts they took are read back from those words ("Severed Leg (left)": his left leg). An
  injury the table does not name takes no part of him. His stats join as they stand: the
  injuries' changes are not taken off a second time.
- a `character_joined` whose injuries would retire him (both legs, both eyes...) is refused:
  a warrior who must retire no longer adventures.
"""

from __future__ import annotations

from woundlog.events import CharacterJoined

from ...permanence import Carried, Permanence, lasts, nothing_to_restore, refuse_treatment
from ...ruleset import Context
from .body import crippled, parts_of
from .warrior import CHANGED_STATS, Warrior, replace


def brings_his_injuries(warrior: Warrior, joined: CharacterJoined, ctx: Context) -> Warrior:
    """A warrior joining with Serious Injuries from earlier adventures: listed as he gained
    them, with the body parts they took, so the Serious Injuries table reads them as it reads
    those of this fight. His stats are joined as they stand (the injuries' changes already in
    them), so nothing is taken off again. One whose injuries would retire him is refused: he
    no longer adventures."""
    if not joined.injuries:
        return warrior
    entries = tuple(injury.name for injury in joined.injuries)
    lost = tuple(part for entry in entries for part in parts_of(entry))
    brought = replace(warrior, injuries=entries, lost=lost)
    reason = crippled(brought)
    if reason is not None:
        raise ctx.refuse(
            f"{brought.name} has retired from adventuring: {reason}", field="$.injuries"
        )
    return brought


def after_the_adventure(warrior: Warrior) -> Carried:
    """Starting Wounds and every changed characteristic, as he began and as he ends; his
    current wounds are not carried (they return)."""
    joined = warrior.stats
    began = {"wounds": joined["wounds"]}
    ends = {"wounds": warrior.starting_wounds}
    for stat in CHANGED_STATS:
        now = getattr(warrior, stat)
        if stat in joined and now is not None:
            began[stat], ends[stat] = joined[stat], now
    return began, ends


BETWEEN_ADVENTURES = Permanence(
    after_the_fight=after_the_adventure,
    lasting=lasts,
    retired=lambda warrior: bool(warrior.retired),
    rest=nothing_to_restore,
    treat=refuse_treatment(
        "Serious Injuries are permanent in Warhammer Quest: the text gives no treatment"
    ),
    rests=(),
    no_rest=(
        "has no rest between adventures: a warrior's wounds return after the adventure, "
        "his Serious Injuries stay"
    ),
    labels={
        "wounds": "Starting Wounds",
        "movement": "Movement",
        "weapon_skill": "Weapon Skill",
        "ballistic_skill": "Ballistic Skill",
        "toughness": "Toughness",
        "initiative": "Initiative",
        "attacks": "Attacks",
        "willpower": "Willpower",
        "intellectual_initiative": "Intellectual Initiative",
        "ignore_pain": "Ignore Pain",
    },
)

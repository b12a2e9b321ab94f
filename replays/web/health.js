// What players are told of a character's health on the table view. Player characters show
// their counters; monsters' pools are banded, hidden or shown as the table link says.
//
// The bands and the default are Improved Initiative's Player View (release 3.11.8):
// client/Combatant/ToPlayerViewCombatantState.ts, GetHPDisplay: "Defeated" at 0 or less,
// "Bloodied" under half the maximum, "Hurt" under the maximum, else "Healthy"; its "Hide All"
// shows nothing; and common/Settings.ts makes `MonsterHPVerbosity` a label (ColoredLabel) and
// `PlayerHPVerbosity` the actual HP by default. Improved Initiative sets this per encounter in
// the GM's settings; here the GM's link to the table view carries it (`?monsters=`), since the
// pages may not write anything but events. It hides numbers from a glance, not from a player
// who reads the API with the same viewer token.

import { POOLS } from "./character.js";

/** Kinds the rules give to the GM's side: dnd5e's and DragonQuest's monster, d26's npc and
 * legendary. Every other kind (pc, hero, warrior, henchman, contractor, character) is a player's. */
const GM_KINDS = new Set(["monster", "npc", "legendary"]);

export const MONSTER_HP = ["bands", "hidden", "shown"];

/** The table link's choice, `bands` (Improved Initiative's default) when none or another. */
export function monsterHp(search) {
  const asked = new URLSearchParams(search).get("monsters");
  return MONSTER_HP.includes(asked) ? asked : "bands";
}

export const isMonster = (character) => GM_KINDS.has(character.kind);

/** A pool's band, as Improved Initiative words it. */
export function band(current, maximum) {
  if (current <= 0) return "Defeated";
  if (2 * current < maximum) return "Bloodied"; // currentHP < maxHP / 2, in integers
  if (current < maximum) return "Hurt";
  return "Healthy";
}

/** The first pool the character has (hp, wounds, ...): `[name, current, maximum]`, or null. */
export function pool(character) {
  const stats = character.stats ?? {};
  for (const name of POOLS) {
    if (name in stats && typeof character[name] === "number") return [name, character[name], stats[name]];
  }
  return null;
}

/** Whether the numbers of `character`'s counters are shown to players under `rule`. */
export const numbersShown = (character, rule) => rule === "shown" || !isMonster(character);

/** The health line a card shows in place of a monster's counters: a band, or nothing. */
export function healthWord(character, rule) {
  if (numbersShown(character, rule) || rule === "hidden") return null;
  const found = pool(character);
  return found ? band(found[1], found[2]) : null;
}

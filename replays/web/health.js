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
//
// Which kinds are the GM's, and which counters are a character's pools, each ruleset declares
// (`presentation`, from GET /rulesets through api.js): dnd5e's monster, d26's npc and legendary.

export const MONSTER_HP = ["bands", "hidden", "shown"];

/** The table link's choice, `bands` (Improved Initiative's default) when none or another. */
export function monsterHp(search) {
  const asked = new URLSearchParams(search).get("monsters");
  return MONSTER_HP.includes(asked) ? asked : "bands";
}

/** Whether the rules put `character` on the GM's side (its kind is one of the GM's). */
export const isMonster = (character, presentation) => presentation.gm_kinds.includes(character.kind);

/** A pool's band, as Improved Initiative words it. */
export function band(current, maximum) {
  if (current <= 0) return "Defeated";
  if (2 * current < maximum) return "Bloodied"; // currentHP < maxHP / 2, in integers
  if (current < maximum) return "Hurt";
  return "Healthy";
}

/** The first pool the character has (hp, wounds, ...): `[name, current, maximum]`, or null. */
export function pool(character, presentation) {
  const stats = character.stats ?? {};
  for (const name of presentation.pools) {
    if (name in stats && typeof character[name] === "number") return [name, character[name], stats[name]];
  }
  return null;
}

/** Whether the numbers of `character`'s counters are shown to players under `rule`. */
export const numbersShown = (character, rule, presentation) =>
  rule === "shown" || !isMonster(character, presentation);

/** The health line a card shows in place of a monster's counters: a band, or nothing. */
export function healthWord(character, rule, presentation) {
  if (numbersShown(character, rule, presentation) || rule === "hidden") return null;
  const found = pool(character, presentation);
  return found ? band(found[1], found[2]) : null;
}

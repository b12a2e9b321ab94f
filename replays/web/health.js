// What players are told of a character's health. The server decides (application/redaction.py,
// the fight's players' view, GET /fights/{fight}/players-view, set by the GM): a viewer token's
// state gives a GM's character's band in `health` in place of its pools (`bands`, the default),
// or neither (`hidden`), or its numbers (`shown`); a gm token's state is whole. So a page shows
// what it is given, and a player who reads the API with the same token learns no more.
//
// The bands are Improved Initiative's Player View (release 3.11.8):
// client/Combatant/ToPlayerViewCombatantState.ts, GetHPDisplay: "Defeated" at 0 or less,
// "Bloodied" under half the maximum, "Hurt" under the maximum, else "Healthy"; its "Hide All"
// shows nothing. Improved Initiative sets this per encounter in the GM's settings; here, per
// fight.

export const MONSTER_HP = ["bands", "hidden", "shown"];
export const BANDS = ["Healthy", "Hurt", "Bloodied", "Defeated"];
/** The counter the server puts a GM's character's band in. */
export const HEALTH = "health";

/** The band the server gave in place of the character's numbers, or null. */
export const healthWord = (character) => character[HEALTH] ?? null;

/** Whether the character's counters are to be listed: not when the server gave a band. */
export const numbersShown = (character) => healthWord(character) === null;

/** A GM's character's health change as the server words it for players: `[was, now]` bands,
 * or `[null, "down" | "up"]` where the bands are hidden. */
export function bandMove([was, now]) {
  if (now === "down") return "is hurt";
  if (now === "up") return "recovers";
  if (was === now) return `is still ${now.toLowerCase()}`;
  return BANDS.indexOf(now) > BANDS.indexOf(was) ? `is ${now.toLowerCase()}` : `recovers, ${now.toLowerCase()}`;
}

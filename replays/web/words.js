// What an event did, in plain words for players: names, never ids; no "no effect". Built from
// one moment of the timeline (the event and its changes) and the fight as it stands now.

import { HEALTH, bandMove, numbersShown } from "./health.js";
import { label } from "./states.js";

/** id -> name, from the state JSON; an id nobody joined as (a trap, a falling beam) is itself. */
export const namer = (state) => (id) => state.characters[id]?.name || id;

/** Whose turn a tick starts or ends: `Mirabel's turn`, `the goblins' turn`, `the round`. */
export function scopeWords(event, name) {
  if (event.character) return `${name(event.character)}'s turn`;
  if (event.side) return `the ${event.side}${event.side.endsWith("s") ? "'" : "'s"} turn`;
  return event.round ? `round ${event.round}` : "the round";
}

/** The event itself in a sentence, for when no character changed. */
export function eventWords(event, name) {
  switch (event.type) {
    case "fight_started":
      return "The fight begins.";
    case "fight_ended":
      return "The fight is over.";
    case "turn_started":
      return `${capital(scopeWords(event, name))} ${event.character || event.side ? "starts" : "begins"}.`;
    case "turn_ended":
      return `${capital(scopeWords(event, name))} ends.`;
    case "hit":
      return `${name(event.target)} is hit${event.attacker ? ` by ${name(event.attacker)}` : ""}, to no effect.`;
    case "heal":
      return `${name(event.target)} is tended${event.healer ? ` by ${name(event.healer)}` : ""}, to no effect.`;
    case "retract":
      return `The GM takes back an earlier event${event.reason ? ` (${event.reason})` : ""}.`;
    case "amend":
      return `The GM corrects an earlier event${event.reason ? ` (${event.reason})` : ""}.`;
    case "choice":
      return `${name(event.character)} chooses ${String(event.option).replaceAll("_", " ")}.`;
    case "check":
      return `${name(event.character)} rolls ${String(event.check).replaceAll("_", " ")}.`;
    default:
      return `${label(event.type)}.`;
  }
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** One character's change in words, numbers kept from players where `shown(id)` says so; the
 * ruleset's `presentation` words its pips (`has 1 of 3 death saves failed`) and the counters it
 * counts in units (`loses 3 HP`). */
export function changeWords(change, name, shown, presentation) {
  const { pips, units } = presentation;
  const who = name(change.character);
  if (change.before === null) return `${who} joins the fight.`;
  if (change.after === null) return `${who} is no longer in the fight.`;
  const parts = [];
  if (change.before !== change.after) parts.push(`is now ${label(change.after)}`);
  for (const [counter, [was, now]] of Object.entries(change.counters)) {
    if (counter === HEALTH) parts.push(bandMove([was, now])); // a monster's, as the server words it
    if (typeof was !== "number" || typeof now !== "number") continue;
    if (!shown(change.character)) {
      parts.push(now < was ? "is hurt" : "recovers");
      break;
    }
    const by = Math.abs(now - was);
    if (pips && Object.hasOwn(pips.counters, counter)) {
      const what = pips.counters[counter];
      parts.push(now > was ? `has ${now} of ${pips.out_of} ${pips.name} ${what}` : `clears the ${what} ${pips.name}`);
    } else if (Object.hasOwn(units, counter)) {
      const unit = units[counter];
      parts.push(now < was ? `loses ${by} ${unit}` : `gains ${by} ${unit}`);
    } else {
      parts.push(`${label(counter)} ${was} → ${now}`);
    }
  }
  for (const injury of change.injuries) parts.push(`suffers ${injuryText(injury)}`);
  for (const injury of change.injuries_removed) parts.push(`is rid of ${injuryText(injury)}`);
  if (!parts.length) return null;
  return `${who} ${parts.join(", ")}.`;
}

const injuryText = (injury) => (typeof injury === "string" ? injury : injury?.name ?? JSON.stringify(injury));

/** What a moment did, in a few sentences; `presentation` what the fight's ruleset declares for
 * pages. A monster's numbers are what the server gave this page's token (health.js). */
export function justHappened(moment, state, presentation) {
  const name = namer(state);
  const shown = (id) => !state.characters[id] || numbersShown(state.characters[id]);
  const { event, changes } = moment;
  if (changes.void) return `${eventWords(event, name)} The rules set it aside: ${changes.void}.`;
  const said = [...changes.characters, ...changes.consequences]
    .map((change) => changeWords(change, name, shown, presentation))
    .filter(Boolean);
  if (event.type === "retract" || event.type === "amend") said.unshift(eventWords(event, name));
  else if (event.type === "turn_started" || event.type === "turn_ended") said.unshift(eventWords(event, name));
  return said.length ? said.join(" ") : eventWords(event, name);
}

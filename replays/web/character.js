// One character of the state JSON, as a person reads it: state, counters, injuries.

import { label } from "./states.js";

const FIXED = new Set(["state", "name", "side", "kind", "stats", "gear", "injuries"]);

const empty = (v) => v === null || v === false || v === 0 || (Array.isArray(v) && !v.length);
const text = (v) => (Array.isArray(v) ? v.join(", ") : v === true ? "yes" : String(v));

/**
 * A pool's maximum now: the counter the ruleset declares holds it (`presentation.maximums`,
 * for a maximum the rules change), else the stat the character joined with; null for neither.
 */
export function maximum(character, name, presentation) {
  const now = (presentation.maximums ?? {})[name];
  if (now && typeof character[now] === "number") return character[now];
  const stats = character.stats ?? {};
  return name in stats ? stats[name] : null;
}

/**
 * `[name, text]` for each counter worth showing: the pools, `x of max` with the maximum as it
 * stands now (the ruleset's `presentation` names them: a person always wants to see them, even
 * when full); any stat the rules changed (its current value beside the joined one); and the
 * ruleset's other counters when they are set. Stats at their joined value are left out: they
 * are the character sheet, not the fight; so is a counter that is a pool's maximum, shown in
 * its pool's `of`.
 */
export function counters(character, presentation) {
  const pools = new Set(presentation.pools);
  const maxima = Object.entries(presentation.maximums ?? {});
  const maximums = new Set(maxima.filter(([pool]) => pools.has(pool)).map(([, most]) => most));
  const stats = character.stats ?? {};
  const shown = [];
  for (const [name, value] of Object.entries(character)) {
    if (FIXED.has(name) || maximums.has(name)) continue;
    const most = pools.has(name) ? maximum(character, name, presentation) : null;
    if (most !== null) shown.push([label(name), `${value} of ${most}`]);
    else if (name in stats) {
      if (value !== stats[name]) shown.push([label(name), `${value} (was ${stats[name]})`]);
    } else if (pools.has(name) || !empty(value)) {
      shown.push([label(name), text(value)]);
    }
  }
  return shown;
}

export const injuries = (character) => (character.injuries ?? []).map(text);

/** A `<tr>` for the state table: name, state, counters, injuries. */
export function stateRow(id, character, presentation) {
  const row = document.createElement("tr");
  row.dataset.character = id;
  const name = document.createElement("th");
  name.scope = "row";
  name.textContent = character.name || id;
  name.title = id;
  const state = document.createElement("td");
  state.dataset.label = "State";
  state.className = `s-${character.state}`;
  state.dataset.state = character.state;
  state.textContent = label(character.state);
  const count = document.createElement("td");
  count.dataset.label = "Counters";
  count.textContent = counters(character, presentation).map(([k, v]) => `${k} ${v}`).join(" · ");
  const hurt = document.createElement("td");
  hurt.dataset.label = "Injuries";
  hurt.textContent = injuries(character).join(", ");
  row.append(name, state, count, hurt);
  return row;
}

/** The state table of `state`, whose ruleset's `presentation` says which counters are pools. */
export function fillStateTable(table, state, presentation) {
  const head = document.createElement("tr");
  head.className = "head";
  for (const title of ["Character", "State", "Counters", "Injuries"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = title;
    head.append(th);
  }
  const caption = document.createElement("caption");
  caption.textContent = `After event #${state.seq}`;
  const rows = Object.entries(state.characters).map(([id, c]) => stateRow(id, c, presentation));
  table.replaceChildren(caption, head, ...rows);
}

// The table view: large print, live, for players at the table or on a second screen. It reads
// with the viewer token only, and shows the characters side by side, the round and whose turn
// it is, what the newest event did in plain words, and the cards it changed. What a card shows
// of the fight's game (its pools, the GM's kinds, pips, what a state means at a glance) is the
// ruleset's own declaration (GET /rulesets): this page knows no game.

import { ApiError, getPresentation, getState, getTimeline } from "./api.js";
import { askForTokens, forget, takeFromFragment, tokens } from "./auth.js";
import { counters, injuries } from "./character.js";
import { healthWord, numbersShown } from "./health.js";
import { applied, follows, moment as streamed } from "./live.js";
import { label } from "./states.js";
import { follow } from "./stream.js";
import { turnLine, turnNow } from "./turn.js";
import { justHappened } from "./words.js";

const fight = decodeURIComponent(location.pathname.split("/")[2]);
const $ = (id) => document.getElementById(id);

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** Counters drawn as pips (dnd5e's death saves): filled for each one so far, out of the
 * declared number, one row per counter. */
function pips(character, declared) {
  const row = element("p", "saves");
  const said = [];
  for (const [key, word] of Object.entries(declared.counters)) {
    const got = character[key] ?? 0;
    const group = element("span", `pips ${key}`);
    group.append(element("span", "pip-label", word));
    for (let i = 0; i < declared.out_of; i++) group.append(element("span", i < got ? "pip on" : "pip"));
    row.append(group);
    said.push(`${got} of ${declared.out_of} ${word}`);
  }
  row.setAttribute("role", "img");
  row.setAttribute("aria-label", `${capital(declared.name)}: ${said.join(", ")}`);
  return row;
}

function card(presentation, id, character, { changed, acting }) {
  const li = element("li", `card s-${character.state}`);
  li.dataset.character = id;
  li.dataset.state = character.state;
  if (changed) li.classList.add("changed");
  if (acting) li.classList.add("acting");
  const name = element("h3", "name", character.name || id);
  name.title = id; // a long id (Foundry's Scene.x.Token.y) on hover, never as the heading
  const status = element("p", "state");
  status.append(element("span", "state-word", label(character.state)));
  const glance = Object.hasOwn(presentation.glance, character.state) && presentation.glance[character.state];
  if (glance) status.append(element("span", `glance glance-${glance}`, glance));
  if (acting) status.append(element("span", "tag", "their turn"));
  if (changed) status.append(element("span", "tag tag-changed", "just changed"));
  li.append(name, status);
  if (presentation.pips && character.state === presentation.pips.state) {
    li.append(pips(character, presentation.pips));
  }
  const word = healthWord(character); // the server keeps a monster's numbers from viewers
  if (word) li.append(element("p", `band band-${word.toLowerCase()}`, word));
  else if (numbersShown(character)) {
    const list = element("dl");
    const hidden = new Set(presentation.hidden.map(label)); // as `counters` names them
    for (const [key, value] of counters(character, presentation)) {
      if (hidden.has(key)) continue;
      list.append(element("dt", "", key), element("dd", "", value));
    }
    li.append(list);
  }
  const hurt = injuries(character);
  if (hurt.length) li.append(element("p", "injuries", `Injuries: ${hurt.join(", ")}`));
  return li;
}

/** The cards, one group per side in join order. */
function drawSides(state, presentation, changedIds) {
  const now = turnNow(state);
  const sides = new Map();
  for (const [id, character] of Object.entries(state.characters)) {
    const side = character.side || "";
    if (!sides.has(side)) sides.set(side, []);
    const acting = now.character === id || (now.side && now.side === character.side);
    const shown = { changed: changedIds.has(id), acting };
    sides.get(side).push(card(presentation, id, character, shown));
  }
  const groups = [...sides].map(([side, cards], index) => {
    const section = element("section", "side");
    section.dataset.side = side;
    const heading = element("h2", "", side ? label(side) : "Everyone");
    heading.id = `side-${index}`;
    section.setAttribute("aria-labelledby", heading.id);
    const list = element("ul", "cards");
    list.append(...cards);
    section.append(heading, list);
    return section;
  });
  $("sides").replaceChildren(...groups);
}

/** The newest event with what it did (one moment of the timeline), or null for none. */
async function moment(seq) {
  const answer = await getTimeline(fight, tokens(fight).read, seq, 1);
  return answer.moments[0] ?? null;
}

const page = {
  state: null, // the fight as it stands, as GET /state shows it to the viewer token
  presentation: null,
  newest: null, // the newest event and what it did (a moment of the timeline)
  view: null, // what the server shows this token of the `now` messages applied (live.js)
};

/** Read the whole fight: on opening, and when the page fell behind the stream. */
async function load() {
  const state = await getState(fight, tokens(fight).read);
  page.presentation = await getPresentation(state.ruleset);
  page.newest = state.seq ? await moment(state.seq) : null;
  page.state = state;
  page.view = null;
  paint();
  return state.seq;
}

function paint() {
  const { state, presentation, newest } = page;
  $("title").textContent = state.name || `Fight ${fight}`;
  $("turn").textContent = turnLine(state);
  const changed = new Set(
    [...(newest?.changes.characters ?? []), ...(newest?.changes.consequences ?? [])].map((c) => c.character),
  );
  drawSides(state, presentation, changed);
  $("just").textContent = newest ? justHappened(newest, state, presentation) : "";
  document.body.dataset.seq = String(state.seq); // the event shown: what a test waits for
}

/** One event from the stream: applied to what the page holds when it is the next one, else
 * the whole fight read again. */
function heard(changes, now) {
  if (follows(page.state, page.view, now)) {
    page.state = applied(page.state, now);
    page.newest = streamed(changes, now);
    page.view = now.view;
    paint();
    return Promise.resolve();
  }
  return load();
}

let drawing = Promise.resolve();
async function start() {
  try {
    const seq = await load();
    $("status").textContent = "";
    follow(fight, tokens(fight).read, seq + 1, (changes, now) => {
      // in turn, so a burst of events cannot paint an older state over a newer one
      drawing = drawing.then(() => heard(changes, now)).catch(failed);
    }, new AbortController().signal).then((ended) => ended && failed(ended));
  } catch (error) {
    failed(error);
  }
}

function failed(error) {
  $("status").textContent = `Could not read the fight: ${error.message}`;
  if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
    forget(fight);
    askForTokens(fight, $("token-form"), start);
  }
}

takeFromFragment(fight);
if (tokens(fight).read) start();
else askForTokens(fight, $("token-form"), start);

// The table view: large print, live, for players at the table or on a second screen. It reads
// with the viewer token only, and shows the characters side by side, the round and whose turn
// it is, what the newest event did in plain words, and the cards it changed.

import { ApiError, getState, getTimeline } from "./api.js";
import { askForTokens, forget, takeFromFragment, tokens } from "./auth.js";
import { counters, injuries } from "./character.js";
import { healthWord, monsterHp, numbersShown } from "./health.js";
import { label } from "./states.js";
import { follow } from "./stream.js";
import { turnLine, turnNow } from "./turn.js";
import { justHappened } from "./words.js";

const fight = decodeURIComponent(location.pathname.split("/")[2]);
const rule = monsterHp(location.search);
const $ = (id) => document.getElementById(id);

/** What a state means at the table, where two states look alike (both at 0 HP). */
const AT_A_GLANCE = { downed: "dying", stabilised: "stable" };
const SAVES = 3; // dnd5e: three successes make stable, three failures dead

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Death saves as pips: filled for each success and failure so far, out of three. */
function pips(character) {
  const row = element("p", "saves");
  const said = [];
  for (const [key, word] of [["successes", "passed"], ["failures", "failed"]]) {
    const got = character[key] ?? 0;
    const group = element("span", `pips ${key}`);
    group.append(element("span", "pip-label", word));
    for (let i = 0; i < SAVES; i++) group.append(element("span", i < got ? "pip on" : "pip"));
    row.append(group);
    said.push(`${got} of ${SAVES} ${word}`);
  }
  row.setAttribute("role", "img");
  row.setAttribute("aria-label", `Death saves: ${said.join(", ")}`);
  return row;
}

function card(state, id, character, { changed, acting }) {
  const li = element("li", `card s-${character.state}`);
  li.dataset.character = id;
  li.dataset.state = character.state;
  if (changed) li.classList.add("changed");
  if (acting) li.classList.add("acting");
  const name = element("h3", "name", character.name || id);
  name.title = id; // a long id (Foundry's Scene.x.Token.y) on hover, never as the heading
  const status = element("p", "state");
  status.append(element("span", "state-word", label(character.state)));
  const glance = state.ruleset === "dnd5e" ? AT_A_GLANCE[character.state] : null;
  if (glance) status.append(element("span", `glance glance-${glance}`, glance));
  if (acting) status.append(element("span", "tag", "their turn"));
  if (changed) status.append(element("span", "tag tag-changed", "just changed"));
  li.append(name, status);
  if (state.ruleset === "dnd5e" && character.state === "downed") li.append(pips(character));
  const word = healthWord(character, rule);
  if (word) li.append(element("p", `band band-${word.toLowerCase()}`, word));
  else if (numbersShown(character, rule)) {
    const list = element("dl");
    const hidden = state.ruleset === "dnd5e" ? new Set(["successes", "failures"]) : new Set();
    for (const [key, value] of counters(character)) {
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
function drawSides(state, changedIds) {
  const now = turnNow(state);
  const sides = new Map();
  for (const [id, character] of Object.entries(state.characters)) {
    const side = character.side || "";
    if (!sides.has(side)) sides.set(side, []);
    const acting = now.character === id || (now.side && now.side === character.side);
    sides.get(side).push(card(state, id, character, { changed: changedIds.has(id), acting }));
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

async function draw() {
  const state = await getState(fight, tokens(fight).read);
  const newest = state.seq ? await moment(state.seq) : null;
  $("title").textContent = state.name || `Fight ${fight}`;
  $("turn").textContent = turnLine(state);
  const changed = new Set(
    [...(newest?.changes.characters ?? []), ...(newest?.changes.consequences ?? [])].map((c) => c.character),
  );
  drawSides(state, changed);
  $("just").textContent = newest ? justHappened(newest, state, rule) : "";
  return state.seq;
}

let drawing = Promise.resolve();
async function start() {
  try {
    const seq = await draw();
    $("status").textContent = "";
    follow(fight, tokens(fight).read, seq + 1, () => {
      // redraws in turn, so a burst of events cannot paint an older state over a newer one
      drawing = drawing.then(() => draw()).catch(failed);
    }, new AbortController().signal);
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

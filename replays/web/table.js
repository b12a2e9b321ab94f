// The table view: large print, live, for players at the table or on a second screen. It reads
// with the viewer token only, and shows each character's state, counters and injuries, and
// what the newest event did.

import { ApiError, getState } from "./api.js";
import { askForTokens, forget, takeFromFragment, tokens } from "./auth.js";
import { counters, injuries } from "./character.js";
import { summary } from "./describe.js";
import { label } from "./states.js";
import { follow } from "./stream.js";

const fight = decodeURIComponent(location.pathname.split("/")[2]);
const $ = (id) => document.getElementById(id);

function card(id, character) {
  const li = document.createElement("li");
  li.className = `card s-${character.state}`;
  li.dataset.character = id;
  li.dataset.state = character.state;
  const name = document.createElement("h2");
  name.textContent = character.name || id;
  const state = document.createElement("p");
  state.className = "state";
  state.textContent = label(character.state);
  const list = document.createElement("dl");
  for (const [key, value] of counters(character)) {
    const dt = document.createElement("dt");
    dt.textContent = key;
    const dd = document.createElement("dd");
    dd.textContent = value;
    list.append(dt, dd);
  }
  li.append(name, state, list);
  const hurt = injuries(character);
  if (hurt.length) {
    const p = document.createElement("p");
    p.className = "injuries";
    p.textContent = `Injuries: ${hurt.join(", ")}`;
    li.append(p);
  }
  return li;
}

async function draw() {
  const state = await getState(fight, tokens(fight).read);
  $("title").textContent = state.name || `Fight ${fight}`;
  $("cards").replaceChildren(...Object.entries(state.characters).map(([id, c]) => card(id, c)));
  return state.seq;
}

/** What the newest event did, in a line: its explanation, and an undo's consequences. */
function justHappened(changes) {
  const parts = [changes.void ? `void: ${changes.void}` : changes.explanation];
  parts.push(...changes.consequences.map(summary));
  $("just").textContent = `#${changes.seq} ${changes.type}: ${parts.join("; ")}`;
}

let drawing = Promise.resolve();
async function start() {
  try {
    const seq = await draw();
    $("status").textContent = "";
    // from the newest event, not after it: its changes arrive first and say what just happened
    follow(fight, tokens(fight).read, seq, (changes) => {
      justHappened(changes);
      // redraws in turn, so a burst of events cannot paint an older state over a newer one
      drawing = drawing.then(draw).catch(failed);
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

// "Odds from here" on the timeline page: a what-if built step by step from the selected event,
// and the service's answer per character, each state with its percentage and exact fraction.
// A question too large to enumerate is refused by the service (422) with what would be
// answered; the panel shows that message and offers an estimate by sampling instead.

import { getOdds } from "./api.js";
import {
  DEFAULT_SAMPLES,
  chanceText,
  describe,
  eventOf,
  eventStep,
  mostSamples,
  tickChoices,
  tickOf,
  tickValue,
  tooLarge,
  unchanged,
} from "./whatif.js";

const $ = (id) => document.getElementById(id);

const panel = {
  steps: [], // what the person added, in order
  state: null, // the fight as it stood at the selected event: whom a step can name
  ask: null, // () => ({ fight, token, at }) of the page
  bound: null, // { question, most }: the most samples the service takes for that question
};

/** The what-if as the panel would ask it now: what the service's bound was given for. */
function question() {
  const { at } = panel.ask();
  return JSON.stringify([at, panel.steps.map(eventOf), Number($("odds-rounds").value)]);
}

const names = () =>
  Object.fromEntries(Object.entries(panel.state?.characters ?? {}).map(([id, c]) => [id, c.name || id]));

/** Fill a `<select>` with options, keeping the chosen one when it is still there. */
function fill(select, options, { none = null } = {}) {
  const kept = select.value;
  select.replaceChildren();
  if (none !== null) select.add(new Option(none, ""));
  for (const [value, text] of options) select.add(new Option(text, value));
  if ([...select.options].some((o) => o.value === kept)) select.value = kept;
}

/** The characters and ticks the add form offers, for the fight as it stood at `state`. */
export function showState(state) {
  panel.state = state;
  const people = Object.entries(names());
  fill($("step-target"), people);
  fill($("step-attacker"), people, { none: "nobody named" });
  fill($("step-healer"), people, { none: "nobody named" });
  fill(
    $("step-tick"),
    tickChoices(state).map((tick) => [tickValue(tick), describe({ kind: "tick", ...tick }, names())]),
  );
}

function showKind() {
  const kind = $("step-kind").value;
  $("step-error").hidden = true;
  for (const span of $("whatif-add").querySelectorAll("span")) {
    span.hidden = !span.classList.contains(`for-${kind}`);
  }
}

function count(id) {
  const value = Number($(id).value);
  return Number.isInteger(value) && value >= 0 ? value : null;
}

/** The step the add form describes, or null when it is incomplete (an event that is not JSON
 * says why). */
function stepFromForm() {
  const kind = $("step-kind").value;
  if (kind === "event") {
    const { step, error } = eventStep($("step-json").value);
    $("step-error").textContent = error ?? "";
    $("step-error").hidden = !error;
    return step ?? null;
  }
  if (kind === "tick") return $("step-tick").value ? tickOf($("step-tick").value) : null;
  const target = $("step-target").value;
  if (!target) return null;
  if (kind === "hit") {
    const damage = count("step-damage");
    return damage === null ? null : { kind, target, damage, attacker: $("step-attacker").value || null };
  }
  const amount = count("step-amount");
  if (amount === null) return null;
  return { kind, target, amount, means: $("step-means").value.trim(), healer: $("step-healer").value || null };
}

function drawSteps() {
  const list = $("whatif-steps");
  list.replaceChildren();
  panel.steps.forEach((step, index) => {
    const item = document.createElement("li");
    item.dataset.step = String(index);
    const text = document.createElement("span");
    text.textContent = describe(step, names());
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", `Remove step ${index + 1}: ${text.textContent}`);
    remove.addEventListener("click", () => {
      panel.steps.splice(index, 1);
      drawSteps();
    });
    item.append(text, remove);
    list.append(item);
  });
}

function caption(at, rounds, answer) {
  const parts = [`After #${at}`];
  if (panel.steps.length) parts.push(`${panel.steps.length} step(s)`);
  const how = answer.exact ? "exactly" : `estimated from ${answer.samples} replays`;
  return `${parts.join(", ")} and ${rounds} round(s) of turns, ${how}`;
}

function showAnswer(at, rounds, answer) {
  const table = $("odds-table");
  table.replaceChildren();
  table.createCaption().textContent = caption(at, rounds, answer);
  const same = [];
  for (const [cid, character] of Object.entries(answer.characters)) {
    // only the characters the what-if can change: the others are folded into one line
    if (unchanged(character, panel.state?.characters[cid])) {
      same.push(character.name);
      continue;
    }
    const row = table.insertRow();
    row.dataset.character = cid;
    row.insertCell().textContent = character.name;
    const states = document.createElement("ul");
    for (const state of character.states) {
      const item = document.createElement("li");
      item.dataset.state = state.state;
      item.className = `s-${state.state}`;
      item.textContent = chanceText(state, answer.exact ? null : answer.samples);
      states.append(item);
    }
    row.insertCell().append(states);
  }
  table.hidden = !table.rows.length;
  $("odds-folded").textContent = same.length
    ? `Certain to stay as they are: ${same.join(", ")}`
    : "";
  $("odds-folded").hidden = !same.length;
  const voids = $("odds-void");
  voids.replaceChildren();
  for (const void_ of answer.void) {
    const item = document.createElement("li");
    item.textContent = `step ${void_.event} is refused by the rules ${void_.percent.toFixed(1)}% (${void_.chance}) of the time: ${void_.reason}`;
    voids.append(item);
  }
  voids.hidden = !answer.void.length;
}

/** The busy indicator: the buttons wait and say so while the service works. */
function busy(working) {
  for (const id of ["odds", "odds-estimate"]) $(id).disabled = working;
  $("odds-actions").setAttribute("aria-busy", String(working));
  $("odds-busy").textContent = working ? "Working out the odds…" : "";
}

/** The sample count the estimate offers: the page's default, within what the service said it
 * takes for this very what-if; null while it has not said (the what-if changed since). */
function offerSamples() {
  const most = panel.bound?.question === question() ? panel.bound.most : null;
  const input = $("odds-samples");
  if (most === null) {
    input.removeAttribute("max");
    return null;
  }
  input.max = String(most);
  if (!(Number(input.value) <= most)) input.value = String(Math.min(DEFAULT_SAMPLES, most));
  return most;
}

async function askOdds(samples = null) {
  const { fight, token, at, say } = panel.ask();
  const rounds = Number($("odds-rounds").value);
  const events = panel.steps.map(eventOf);
  const asked = question(); // the steps may change while the service works
  busy(true);
  try {
    const answer = await getOdds(fight, token, at, { events, ticks: rounds, samples });
    $("odds-refused").hidden = true;
    showAnswer(at, rounds, answer);
  } catch (error) {
    if (error.status !== 422) {
      say(`Odds refused: ${error.message}`, true);
      return;
    }
    // the service's own words: what was too large, or which step it cannot take
    $("odds-error").textContent = error.message;
    const most = mostSamples(error);
    if (most !== null) panel.bound = { question: asked, most };
    // too large to enumerate: offer the estimate (and keep offering it while sampling)
    $("odds-sampling").hidden = !tooLarge(error) && samples === null;
    offerSamples();
    $("odds-refused").hidden = false;
    $("odds-table").hidden = $("odds-void").hidden = $("odds-folded").hidden = true;
  } finally {
    busy(false);
  }
}

/** Wire the panel; `ask()` gives the fight, the read token, the selected event and `say`. */
export function setUpOdds(ask) {
  panel.ask = ask;
  $("step-kind").addEventListener("change", showKind);
  $("step-add").addEventListener("click", () => {
    const step = stepFromForm();
    if (step === null) return;
    panel.steps.push(step);
    drawSteps();
  });
  $("odds").addEventListener("click", () => askOdds());
  $("odds-estimate").addEventListener("click", () => {
    const samples = Number($("odds-samples").value);
    const most = offerSamples();
    if (!Number.isInteger(samples) || samples < 1 || (most !== null && samples > most)) {
      // refused here, at once, with the service's bound: no request the service would refuse
      const range = most === null ? "a whole number of samples, 1 or more" : `1 to ${most.toLocaleString("en")} samples`;
      $("odds-error").textContent = `An estimate of this what-if takes ${range}.`;
      return;
    }
    askOdds(samples);
  });
  showKind();
}

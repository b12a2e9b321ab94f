// The GM console: run the fight from a phone at the table. The characters in turn order with
// their state and numbers (the GM's token reads them whole), whose turn it is, and the GM's
// actions: hit, heal, a check or a choice, next turn, initiative, undo. Every action is one
// call of the service, which holds every rule: the page builds the event from the form, asks
// the service for the table's dice when the table rolls them (console-dice.js), and shows what
// the service answers, a refusal as the CLI words it, with nothing written.

import { ApiError, diceAsked, getPresentation, getRulesets, getState, getTimeline, record, undo } from "./api.js";
import { askForTokens, forget, takeFromFragment, tokens } from "./auth.js";
import { counters, injuries } from "./character.js";
import { TABLE, diceMode, setDiceMode, withTableDice } from "./console-dice.js";
import { fillForm, formTitle, otherKinds, readForm } from "./console-form.js";
import { nextDiceAsked, nextTurn, setInitiative, turnOrder } from "./console-turns.js";
import { dieLabel, eventTitle, summary } from "./describe.js";
import { applied, follows, moment, rewrites } from "./live.js";
import { label } from "./states.js";
import { follow } from "./stream.js";
import { turnLine, turnNow } from "./turn.js";

const fight = decodeURIComponent(location.pathname.split("/")[2]);
const $ = (id) => document.getElementById(id);
const RECENT = 6; // events listed under the roster, newest first

const page = {
  state: null, // the fight as it stands (GET /state)
  rules: null, // its ruleset's summary (GET /rulesets)
  presentation: null,
  order: [], // character ids in turn order
  picked: null, // the character the actions apply to
  recent: [], // the newest moments of the timeline
  undoing: null, // the seq Undo takes back (the timeline's `undo`), null: nothing
  busy: false, // an action is on its way: a second key press must not send it twice
  view: null, // what the server shows this token of the `now` messages applied (live.js)
  waiting: [], // actions waiting for the stream to bring the fight to their version
};
const CATCH_UP_MS = 3000;

const gm = () => tokens(fight).gm;
const nameOf = (id) => page.state?.characters[id]?.name || id;

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function say(text) {
  $("status").textContent = text;
  $("refused").hidden = true;
}

/** `event #5, field $.attacker: Grim is out_of_action and may not attack`: each refused
 * event of a problem's `errors` as the CLI prints it, else the problem's message. */
function cliWords(error) {
  const listed = error instanceof ApiError ? error.body?.errors ?? [] : [];
  const lines = listed.map((e) => {
    const where = [e.event && `event ${e.event}`, e.field && `field ${e.field}`].filter(Boolean).join(", ");
    return where ? `${where}: ${e.message}` : e.message;
  });
  return lines.length ? lines.join("\n") : String(error.message ?? error);
}

/** A refusal as the CLI words it (which event, which field, the rule): nothing was written. */
function refused(error, where = $("refused")) {
  where.textContent = `Refused, nothing written: ${cliWords(error)}`;
  where.hidden = false;
}

function failed(error) {
  if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
    forget(fight);
    say("");
    refused(new Error(`${error.message}: give the fight's GM token.`));
    askForTokens(fight, $("token-form"), start);
  } else {
    refused(error);
  }
}

// --- drawing ----------------------------------------------------------------------------------

/** What a row says of a character's numbers: the pools and counters, the dying's pips in
 * words, injuries; the GM's token reads them whole. */
function numbers(character) {
  const { presentation } = page;
  const hidden = new Set(presentation.hidden.map(label));
  const parts = counters(character, presentation)
    .filter(([key]) => !hidden.has(key))
    .map(([key, value]) => `${key} ${value}`);
  const pips = presentation.pips;
  if (pips && character.state === pips.state) {
    const counted = Object.entries(pips.counters).map(([key, word]) => `${character[key] ?? 0} ${word}`);
    parts.push(`${pips.name}: ${counted.join(", ")}`);
  }
  const hurt = injuries(character);
  if (hurt.length) parts.push(`injuries: ${hurt.join(", ")}`);
  return parts.join(" · ");
}

function row(id, place, acting) {
  const character = page.state.characters[id];
  const li = element("li", "row");
  li.dataset.character = id;
  li.dataset.state = character.state;
  if (acting) li.classList.add("acting");
  const button = element("button", "pick");
  button.type = "button";
  button.setAttribute("aria-pressed", String(page.picked === id));
  const glance = page.presentation.glance[character.state];
  button.append(
    element("span", "place", String(place)),
    element("span", "who", character.name || id),
    element("span", "state-word", glance || label(character.state)),
  );
  if (acting) button.append(element("span", "tag", "their turn"));
  const said = numbers(character);
  if (said) button.append(element("span", "numbers", said));
  button.addEventListener("click", () => pick(id));
  li.append(button);
  return li;
}

function drawRoster() {
  const now = turnNow(page.state);
  const rows = page.order.map((id, index) => {
    const character = page.state.characters[id];
    const acting = now.character === id || (now.side != null && now.side === character.side);
    return row(id, index + 1, acting);
  });
  $("roster").replaceChildren(...rows);
}

function drawRecent() {
  const items = [...page.recent].reverse().map((moment) => {
    const li = element("li", moment.changes.undone ? "undone" : "");
    li.value = moment.seq;
    const title = eventTitle(moment, nameOf, (ref) => ref);
    const what = moment.changes.void ? `void: ${moment.changes.void}` : moment.changes.explanation;
    const text = element("span", "what", `${title}: ${what}` + (moment.changes.undone ? ` (undone: ${moment.changes.undone})` : ""));
    const line = element("div");
    line.append(text);
    if (moment.event.type !== "fight_started" && !moment.changes.undone) {
      const button = element("button", "undo-one", "Undo");
      button.type = "button";
      button.setAttribute("aria-label", `Undo ${title}`);
      button.addEventListener("click", () => takeBack(moment).catch(failed));
      line.append(button);
    }
    li.append(line);
    return li;
  });
  $("recent").replaceChildren(...items);
}

function drawInitiative() {
  const fields = page.order.map((id) => {
    const wrap = element("div", "field");
    const input = element("input");
    Object.assign(input, { type: "number", step: "1", name: id, id: `init-${id}`, inputMode: "numeric" });
    const given = page.state.turn?.initiative?.[id];
    if (given != null) input.value = String(given);
    const text = element("label", "", nameOf(id));
    text.htmlFor = input.id;
    wrap.append(text, input);
    return wrap;
  });
  $("initiative-fields").replaceChildren(...fields);
}

/** Read the whole fight: on opening, after an undo (it rewrites what earlier events did), and
 * when the page fell behind the stream (live.js). */
async function draw() {
  const state = await getState(fight, gm());
  const rules = (await getRulesets()).get(state.ruleset) ?? {};
  page.state = state;
  page.rules = rules;
  page.presentation = await getPresentation(state.ruleset);
  const from = Math.max(1, state.seq - RECENT + 1);
  const window = await getTimeline(fight, gm(), from, RECENT);
  page.recent = window.moments;
  page.undoing = window.undo;
  page.view = null;
  paint();
  return state.seq;
}

function paint() {
  const { state, rules } = page;
  page.order = turnOrder(state);
  if (!page.order.includes(page.picked)) page.picked = null;
  document.title = `${state.name || fight} · GM console · woundlog`;
  $("title").textContent = state.name || `Fight ${fight}`;
  $("turn").textContent = turnLine(state);
  $("act-other").hidden = otherKinds(rules).length === 0;
  drawRoster();
  drawRecent();
  if (!$("settings").open || !$("initiative-fields").children.length) drawInitiative();
  document.body.dataset.seq = String(state.seq); // the event shown: what a test waits for
  for (const waiting of page.waiting.filter((w) => w.version <= state.seq)) waiting.done();
}

/** One event from the stream: applied to what the page holds when it is the next one and no
 * undo, else the whole fight read again. */
function heard(changes, now) {
  if (follows(page.state, page.view, now) && !rewrites(now)) {
    page.state = applied(page.state, now);
    page.recent = [...page.recent, moment(changes, now)].slice(-RECENT);
    page.undoing = now.undo ?? null;
    page.view = now.view;
    paint();
    return Promise.resolve(page.state.seq);
  }
  return draw();
}

let drawing = Promise.resolve();
/** Redraw after the stream's news or an action, one at a time, so an older answer never
 * paints over a newer one. */
function redraw(work = draw) {
  drawing = drawing.then(work).catch(failed);
  return drawing;
}

/** Once the page shows the fight at `version` (an action's answer): the stream brings it, or
 * after `CATCH_UP_MS` without it, the fight is read again. */
function caughtUp(version) {
  if (page.state && page.state.seq >= version) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => redraw().then(resolve), CATCH_UP_MS);
    page.waiting.push({
      version,
      done() {
        clearTimeout(timer);
        page.waiting = page.waiting.filter((w) => w !== this);
        resolve();
      },
    });
  });
}

// --- picking and the actions -----------------------------------------------------------------

function pick(id) {
  page.picked = id;
  for (const button of $("roster").querySelectorAll(".pick")) {
    button.setAttribute("aria-pressed", String(button.closest("li").dataset.character === id));
  }
}

/** The picked character, else the one whose turn it is, else the first in the order. */
function picked() {
  return page.picked ?? turnNow(page.state).character ?? page.order[0] ?? null;
}

const roster = () => page.order.map((id) => ({ id, name: nameOf(id) }));

function openForm(kind) {
  if (!page.state) return;
  const kinds = kind === "other" ? otherKinds(page.rules) : [kind];
  if (!kinds.length) return;
  const who = picked();
  if (!who) return;
  fillForm($("act-fields"), kinds[0], who, page.rules, roster());
  $("act-heading").textContent = formTitle(kinds[0], nameOf(who));
  $("act-error").textContent = "";
  $("act-dialog").showModal();
  const first = $("act-fields").querySelector("#act-amount, #act-check, #act-option");
  first?.focus();
}

/** What an append did, as the CLI prints it: `#12 hit: ... | dice: death_save d20=12 given`. */
function told(appended) {
  return appended.changes
    .map((c) => {
      const dice = c.dice.length ? ` | dice: ${c.dice.map(dieLabel).join(", ")}` : "";
      return `#${c.seq} ${c.type}: ${c.explanation}${dice}`;
    })
    .concat(appended.warnings ?? [])
    .join("\n");
}

/** The event with its dice: asked of the table one by one, or left to woundlog. */
function withDice(event) {
  if (diceMode(fight) !== TABLE) return event;
  return withTableDice(event, (asked) => diceAsked(fight, gm(), asked), nameOf);
}

$("act-form").addEventListener("submit", async (submitted) => {
  if (submitted.submitter?.value !== "send") return;
  submitted.preventDefault();
  if (page.busy) return;
  const { event, error } = readForm($("act-fields"));
  if (error) {
    $("act-error").textContent = error;
    return;
  }
  page.busy = true;
  try {
    const ready = await withDice(event);
    if (!ready) return; // the GM cancelled a die: nothing recorded, the form still open
    const appended = await record(fight, gm(), ready);
    $("act-dialog").close();
    await caughtUp(appended.version); // the roster first, then what happened: it is current
    say(told(appended));
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 422) refused(failure, $("act-error"));
    else failed(failure);
  } finally {
    page.busy = false;
  }
});

async function next() {
  if (page.busy || !page.state) return;
  page.busy = true;
  try {
    let rolls = {};
    if (diceMode(fight) === TABLE) {
      const asked = await withTableDice({ rolls }, (next) => nextDiceAsked(fight, gm(), next.rolls), nameOf);
      if (!asked) return; // the GM cancelled a die: the turn stays
      rolls = asked.rolls;
    }
    const appended = await nextTurn(fight, gm(), rolls);
    await caughtUp(appended.version); // the roster first, then what happened: it is current
    say(told(appended));
  } catch (failure) {
    failed(failure);
  } finally {
    page.busy = false;
  }
}

// --- undo ------------------------------------------------------------------------------------

function confirmed(heading, text) {
  $("confirm-heading").textContent = heading;
  $("confirm-text").textContent = text;
  $("confirm-reason").value = "";
  const dialog = $("confirm-dialog");
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((answer) =>
    dialog.addEventListener("close", () => answer(dialog.returnValue === "yes" ? $("confirm-reason").value.trim() : null), { once: true }),
  );
}

/** Undo `moment` (an event of the timeline) once the GM confirms, and show what it changed,
 * each character before and after ("Grim: out_of_action -> knocked_down"). */
async function takeBack(moment) {
  if (page.busy) return;
  const title = eventTitle(moment, nameOf, (ref) => ref);
  const reason = await confirmed(`Undo ${title}?`, `The fight is replayed as if ${title} had never happened; what it changed is shown.`);
  if (reason === null) return;
  page.busy = true;
  try {
    const done = await undo(fight, gm(), `#${moment.seq}`, reason, null);
    const lines = done.changes.flatMap((c) => c.consequences.map(summary));
    await caughtUp(done.version);
    say(`Undid ${title}: ${lines.length ? lines.join("; ") : "no state changed"}`);
  } catch (failure) {
    failed(failure);
  } finally {
    page.busy = false;
  }
}

$("undo-any").addEventListener("submit", async (submitted) => {
  submitted.preventDefault();
  const seq = Number($("undo-seq").value);
  try {
    const [moment] = (await getTimeline(fight, gm(), seq, 1)).moments;
    if (moment) await takeBack(moment);
  } catch (failure) {
    failed(failure);
  }
});

function undoLast() {
  const target = page.recent.find((m) => m.seq === page.undoing);
  if (target) takeBack(target).catch(failed);
  else if (page.undoing == null) say("Nothing to undo.");
  else takeBack({ seq: page.undoing, event: { type: `event #${page.undoing}` } }).catch(failed);
}

// --- settings: dice and initiative ------------------------------------------------------------

function showDiceMode() {
  const mode = diceMode(fight);
  $("dice-table").checked = mode === TABLE;
  $("dice-woundlog").checked = mode !== TABLE;
}

$("dice-mode").addEventListener("change", (changed) => {
  setDiceMode(fight, changed.target.value);
  showDiceMode();
  say(diceMode(fight) === TABLE ? "The table rolls: the console asks for each die." : "woundlog rolls the dice.");
});

$("initiative-form").addEventListener("submit", async (submitted) => {
  submitted.preventDefault();
  const given = {};
  for (const input of $("initiative-fields").querySelectorAll("input")) {
    if (input.value.trim() !== "") given[input.name] = Number(input.value);
  }
  try {
    const appended = await setInitiative(fight, gm(), given);
    await caughtUp(appended.version); // the roster first, then what happened: it is current
    say(told(appended));
  } catch (failure) {
    failed(failure);
  }
});

// --- buttons and keys -------------------------------------------------------------------------

$("act-hit").addEventListener("click", () => openForm("hit"));
$("act-heal").addEventListener("click", () => openForm("heal"));
$("act-other").addEventListener("click", () => openForm("other"));
$("act-next").addEventListener("click", () => next());
$("act-undo").addEventListener("click", () => undoLast());

const KEYS = { h: () => openForm("hit"), e: () => openForm("heal"), c: () => openForm("other"), n: next, u: undoLast };

document.addEventListener("keydown", (pressed) => {
  if (pressed.ctrlKey || pressed.metaKey || pressed.altKey) return;
  if (pressed.target.closest("input, textarea, select, dialog")) return;
  if (document.querySelector("dialog[open]")) return;
  const place = /^[1-9]$/.test(pressed.key) ? Number(pressed.key) : null;
  if (place !== null && page.order[place - 1]) {
    pick(page.order[place - 1]);
  } else if (KEYS[pressed.key]) {
    KEYS[pressed.key]();
  } else {
    return;
  }
  pressed.preventDefault();
});

// --- start ------------------------------------------------------------------------------------

async function start() {
  say("Loading…");
  try {
    const seq = await draw();
    say("");
    follow(fight, gm(), seq + 1, (changes, now) => redraw(() => heard(changes, now)), new AbortController().signal)
      .then((ended) => ended && failed(ended));
  } catch (error) {
    failed(error);
  }
}

const here = location.pathname.replace(/\/console$/, "");
$("timeline-link").href = `${here}/`;
$("table-link").href = `${here}/table`;
showDiceMode();
takeFromFragment(fight);
if (gm()) start();
else askForTokens(fight, $("token-form"), start);

// The timeline page: the grid, time travel (slider, arrow keys, `?at=N`), GM undo and amend,
// and live updates. Everything it shows comes from the API with the person's token.

import {
  ApiError,
  amend,
  getPlayersView,
  getPresentation,
  getState,
  getTimeline,
  setPlayersView,
  undo,
} from "./api.js";
import { askForTokens, forget, takeFromFragment, tokens } from "./auth.js";
import { fillAmendForm, readAmendForm } from "./amend-form.js";
import { fillStateTable } from "./character.js";
import { eventTitle, fillDetails, summary } from "./describe.js";
import { drawGrid, drawLegend } from "./grid.js";
import { setUpOdds, showState } from "./odds.js";
import { characters } from "./states.js";
import { follow } from "./stream.js";
import { applied, follows, moment as streamed, rewrites } from "./live.js";

const fight = decodeURIComponent(location.pathname.split("/")[2]);
const $ = (id) => document.getElementById(id);
const grid = $("grid");
const slider = $("slider");

const page = {
  moments: [], // the timeline endpoint's answer: each event with what it did
  names: new Map(), // character id -> name, from every change that names one
  at: null, // the seq shown; null: follow the newest event
  character: null, // the row of the focused cell, to keep focus in it while stepping
  stateAsked: 0, // the newest state request: older answers arriving late are dropped
  stream: null,
  now: null, // the fight at the newest event, as GET /state shows it (kept up by the stream)
  view: null, // what the server shows this token of the `now` messages applied (live.js)
  then: null, // the state shown last, `{seq, state}`: a state at a seq never changes
  undoing: null, // the moment Undo takes back, as the timeline's answer names it; null: none
  redoing: null, // the undo Redo takes back; null: the newest event in effect is no undo
};

const latest = () => page.moments.length;
const shown = () => page.at ?? latest();
const moment = (seq) => page.moments[seq - 1];

function say(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
}

function failed(error) {
  if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
    forget(fight);
    say(`${error.message}: give a token of this fight.`, true);
    askForTokens(fight, $("token-form"), start);
  } else {
    say(`Could not read the fight: ${error.message}`, true);
  }
}

// --- loading and live -----------------------------------------------------------------------

/** The timeline, window by window, up to the version the first window answered for: events
 * appended meanwhile come by the stream, which asks for a reload. */
async function timeline() {
  const first = await getTimeline(fight, tokens(fight).read, 1);
  const moments = [...first.moments];
  for (let from = first.next; from != null && from <= first.version; ) {
    const part = await getTimeline(fight, tokens(fight).read, from);
    moments.push(...part.moments.filter((m) => m.seq <= first.version));
    from = part.next;
  }
  return { version: first.version, moments, undo: first.undo, redo: first.redo };
}

async function load() {
  const answer = await timeline();
  page.now = page.then = page.view = null;
  page.moments = answer.moments;
  // what Undo and Redo take back, as the server's rule says (DESIGN.md section 6): the page
  // names the event and sends that very event, so what the person confirmed is what is undone
  // even if someone else appended meanwhile
  page.undoing = answer.undo == null ? null : moment(answer.undo);
  page.redoing = answer.redo == null ? null : moment(answer.redo);
  page.names = new Map(characters(page.moments).map(({ id, name }) => [id, name || id]));
  document.title = `${fight} · woundlog`;
  $("title").textContent = answer.moments[0]?.event.name || `Fight ${fight}`;
  drawGrid(grid, page.moments);
  $("grid-wrap").hidden = $("travel").hidden = false;
  slider.max = String(latest());
  // a position beyond the log (a shared link to a fight since cut short) shows the newest
  if (page.at !== null && page.at > latest()) page.at = null;
  await go(shown(), { focus: false });
  // shown at an earlier event: the newest one's state too, for the stream to keep up
  if (page.now?.seq !== latest()) page.now = await getState(fight, tokens(fight).read, latest());
  document.body.dataset.seq = String(latest()); // the newest event held: what a test waits for
  return answer.version;
}

/** One event from the stream: added to what the page holds when it is the next one and no
 * undo (an undo rewrites what earlier events did: their marks, the grid's columns), else the
 * whole timeline read again. */
function heard(changes, now) {
  if (reloading || !follows(page.now, page.view, now) || rewrites(now) || now.seq !== latest() + 1) {
    reloadSoon();
    return;
  }
  page.moments.push(streamed(changes, now));
  page.now = applied(page.now, now);
  page.view = now.view;
  page.undoing = now.undo == null ? null : moment(now.undo);
  page.redoing = now.redo == null ? null : moment(now.redo);
  page.names = new Map(characters(page.moments).map(({ id, name }) => [id, name || id]));
  drawGrid(grid, page.moments);
  slider.max = String(latest());
  document.body.dataset.seq = String(latest());
  go(shown(), { focus: false }).catch(failed);
}

let reloading = null;
let again = false;
/** Reload after a stream message; messages arriving meanwhile fold into one more reload. */
function reloadSoon() {
  if (reloading) {
    again = true;
    return;
  }
  reloading = load()
    .catch(failed)
    .finally(() => {
      reloading = null;
      if (again) {
        again = false;
        reloadSoon();
      }
    });
}

function live(after) {
  page.stream?.abort();
  page.stream = new AbortController();
  // the whole timeline is refetched on each event: an undo rewrites what earlier columns mean
  follow(fight, tokens(fight).read, after + 1, heard, page.stream.signal).then(
    (ended) => ended && failed(ended),
  );
}

// --- time travel ----------------------------------------------------------------------------

/** Show the fight as it stood after event `seq`: grid column, details, state table, URL. */
async function go(seq, { focus = true, follow = false } = {}) {
  seq = Math.min(Math.max(seq, 1), latest());
  // following live stays live at the newest event; any other move pins the position
  const live = follow || (seq === latest() && page.at === null);
  page.at = live ? null : seq;
  const url = new URL(location.href);
  if (page.at === null) url.searchParams.delete("at");
  else url.searchParams.set("at", page.at);
  history.replaceState(null, "", url);

  slider.value = String(seq);
  $("position").textContent = `event ${seq} of ${latest()}` + (page.at === null ? " (live)" : "");
  for (const node of grid.querySelectorAll("[data-seq]")) {
    const n = Number(node.dataset.seq);
    node.classList.toggle("now", n === seq);
    node.classList.toggle("later", n > seq);
    if (node.tagName === "TD") node.setAttribute("aria-selected", String(n === seq));
  }
  const target = currentCell(seq);
  if (target) {
    grid.querySelectorAll("td[tabindex='0']").forEach((td) => (td.tabIndex = -1));
    target.tabIndex = 0;
    if (focus) target.focus();
    target.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
  // the details and the state table always show the same event: the selected one
  fillDetails($("details"), moment(seq), page.character, page.names);
  showGmActions(seq);

  const asked = ++page.stateAsked;
  const kept = [page.now, page.then?.state].find((state) => state?.seq === seq);
  const state = kept ?? (await getState(fight, tokens(fight).read, seq));
  page.then = { seq, state };
  if (seq === latest() && page.now?.seq !== seq) page.now = state; // the newest: kept up live
  const presentation = await getPresentation(state.ruleset); // which counters are its pools
  if (asked === page.stateAsked) {
    fillStateTable($("then"), state, presentation);
    showState(state); // the what-if names the characters as they stood here
  }
}

function currentCell(seq) {
  const row = page.character ?? grid.querySelector("td[data-character]")?.dataset.character;
  return grid.querySelector(`td[data-seq="${seq}"][data-character="${CSS.escape(row ?? "")}"]`);
}

function step(by) {
  go(shown() + by).catch(failed);
}

slider.addEventListener("input", () => go(Number(slider.value), { focus: false }).catch(failed));
$("latest").addEventListener("click", () => go(latest(), { follow: true }).catch(failed));

grid.addEventListener("click", (event) => {
  const target = event.target.closest("[data-seq]");
  if (!target) return;
  page.character = target.dataset.character ?? page.character;
  go(Number(target.dataset.seq)).catch(failed);
});

// hover marks the column under the pointer (its title says which event); only a click or the
// keys select, so the details and the state table never show two different events
grid.addEventListener("mouseover", (event) => {
  const cell = event.target.closest("[data-seq]");
  for (const node of grid.querySelectorAll(".hover")) node.classList.remove("hover");
  if (cell) grid.querySelectorAll(`[data-seq="${cell.dataset.seq}"]`).forEach((n) => n.classList.add("hover"));
});
grid.addEventListener("mouseleave", () => {
  for (const node of grid.querySelectorAll(".hover")) node.classList.remove("hover");
});

grid.addEventListener("keydown", (event) => {
  const td = event.target.closest("td[data-seq]");
  if (!td) return;
  const rows = [...grid.querySelectorAll("tbody tr")];
  const row = rows.findIndex((r) => r.contains(td));
  const moves = {
    ArrowLeft: () => step(-1),
    ArrowRight: () => step(1),
    Home: () => go(1).catch(failed),
    End: () => go(latest()).catch(failed),
    ArrowUp: () => moveRow(rows, row - 1),
    ArrowDown: () => moveRow(rows, row + 1),
  };
  if (!moves[event.key]) return;
  event.preventDefault();
  event.stopPropagation();
  moves[event.key]();
});

function moveRow(rows, index) {
  const row = rows[Math.min(Math.max(index, 0), rows.length - 1)];
  page.character = row.querySelector("td").dataset.character;
  go(shown()).catch(failed);
}

// anywhere else on the page (but not while typing), the left and right arrows step in time too
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select, dialog")) return;
  if (event.key === "ArrowLeft") step(-1);
  else if (event.key === "ArrowRight") step(1);
  else return;
  event.preventDefault();
});

// --- undo and amend (GM token) --------------------------------------------------------------

const nameOf = (id) => page.names.get(id) ?? id;
/** The moment an event reference (`#N` or an id) names, among `moments`. */
function named(moments, ref) {
  const seq = /^#([1-9][0-9]*)$/.exec(ref);
  if (seq) return moments[Number(seq[1]) - 1] ?? null;
  return moments.find((m) => m.event.id === ref) ?? null;
}
/** An event named for a confirmation, with names for ids and `#N` for an undo's reference. */
const titleOf = (m) => eventTitle(m, nameOf, (ref) => (named(page.moments, ref) ? `#${named(page.moments, ref).seq}` : ref));

function showGmActions(seq) {
  const { gm } = tokens(fight);
  const type = moment(seq)?.event.type;
  $("gm-actions").hidden = !gm;
  $("console-link").hidden = !gm; // the console runs the fight: a GM's page
  const { undoing, redoing } = page;
  $("undo").disabled = !undoing;
  $("undo").textContent = undoing ? `Undo ${titleOf(undoing)}…` : "Nothing to undo";
  $("redo").hidden = !redoing;
  if (redoing) $("redo").textContent = `Redo ${titleOf(undone(redoing.event.event))}…`;
  $("amend").disabled = ["fight_started", "retract", "amend"].includes(type);
}

/** The moment an undo names (`#N` or an id), or a stand-in that says the reference. */
const undone = (ref) => named(page.moments, ref) ?? { seq: "?", event: { type: ref } };

function consequences(appended, what) {
  const lines = appended.changes.flatMap((c) => c.consequences.map(summary));
  say(`${what}: ${lines.length ? lines.join("; ") : "no state changed"}`);
}

/** Ask before an undo or a redo, naming the event; resolves true when confirmed. */
function confirmed(heading, text, yes) {
  $("confirm-heading").textContent = heading;
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yes;
  const dialog = $("confirm-dialog");
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((answer) => dialog.addEventListener("close", () => answer(dialog.returnValue === "yes"), { once: true }));
}

/** Retract `target` (a moment) as Undo or Redo, once the person has confirmed it. */
async function takeBack(target, { what, heading, text, yes }) {
  if (!(await confirmed(heading, text, yes))) return;
  try {
    const done = await undo(fight, tokens(fight).gm, `#${target.seq}`, `${what} from the timeline page`);
    consequences(done, `${what === "undo" ? "Undid" : "Redid"} ${titleOf(what === "undo" ? target : undone(target.event.event))}`);
    page.at = null; // the undo is the newest event: show it and its consequences
    await load();
  } catch (error) {
    say(`${what === "undo" ? "Undo" : "Redo"} refused: ${error.message}`, true);
  }
}

$("undo").addEventListener("click", () => {
  const target = page.undoing;
  if (!target) return;
  const title = titleOf(target);
  takeBack(target, {
    what: "undo",
    heading: `Undo ${title}?`,
    text: `The fight is replayed as if ${title} had never happened. Redo brings it back.`,
    yes: "Undo it",
  }).catch(failed);
});

$("redo").addEventListener("click", () => {
  const target = page.redoing;
  if (!target) return;
  const title = titleOf(undone(target.event.event));
  takeBack(target, {
    what: "redo",
    heading: `Redo ${title}?`,
    text: `${title} was undone by #${target.seq}; taking that undo back brings it back.`,
    yes: "Redo it",
  }).catch(failed);
});

$("amend").addEventListener("click", () => {
  const { event } = moment(shown());
  fillAmendForm($("amend-fields"), event, [...page.names]);
  $("amend-heading").textContent = `Amend ${titleOf(moment(shown()))}`;
  $("amend-error").textContent = "";
  $("amend-dialog").showModal();
});

$("amend-form").addEventListener("submit", async (event) => {
  if (event.submitter?.value !== "send") return;
  event.preventDefault();
  const seq = shown();
  const { replacement, error } = readAmendForm($("amend-fields"), moment(seq).event);
  if (error) {
    $("amend-error").textContent = error;
    return;
  }
  try {
    const done = await amend(fight, tokens(fight).gm, `#${seq}`, replacement, $("amend-reason").value);
    $("amend-dialog").close();
    consequences(done, `Amended #${seq}`);
    page.at = null;
    await load();
  } catch (error) {
    $("amend-error").textContent = error.message;
  }
});

// --- odds from here (viewer token) ---------------------------------------------------------

setUpOdds(() => ({ fight, token: tokens(fight).read, at: shown(), say }));

// --- start ----------------------------------------------------------------------------------

async function start() {
  say("Loading…");
  try {
    const version = await load();
    await playersView();
    say("");
    live(version);
  } catch (error) {
    failed(error);
  }
}

const asked = Number(new URLSearchParams(location.search).get("at"));
page.at = Number.isInteger(asked) && asked >= 1 ? asked : null;
$("table-link").href = `${location.pathname.replace(/\/$/, "")}/table`;
/** The GM's choice of what viewer tokens see of monsters' HP: the server keeps it and redacts
 * every viewer read by it (health.js), so the link carries nothing. */
async function playersView() {
  const { gm } = tokens(fight);
  $("players-view").hidden = !gm;
  if (!gm) return;
  $("table-monsters").value = (await getPlayersView(fight, gm)).monsters;
}
$("table-monsters").addEventListener("change", async () => {
  try {
    await setPlayersView(fight, tokens(fight).gm, $("table-monsters").value);
  } catch (error) {
    failed(error);
  }
});
// beside the timeline: the report of the same fight, whether this page's address ends in / or not
$("report-link").href = `${location.pathname.replace(/\/$/, "")}/report.html`;
$("console-link").href = `${location.pathname.replace(/\/$/, "")}/console`;
drawLegend($("legend"));
takeFromFragment(fight);
if (tokens(fight).read) start();
else askForTokens(fight, $("token-form"), start);

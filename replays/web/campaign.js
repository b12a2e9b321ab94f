// The campaign page: every member's record (stats, injuries with the fight and event each was
// taken in, death, retirement) and one member's history across fights, each fight linked to its
// timeline page. Everything comes from the API with the person's campaign token.

import { ApiError, fightPath } from "./api.js";
import { askForTokens, forget, takeFromFragment, tokens } from "./auth.js";

const campaign = decodeURIComponent(location.pathname.split("/")[2]);
// a fight may have the campaign's name: its tokens are kept under another key
const kept = `campaign~${campaign}`;
const base = `/campaigns/${encodeURIComponent(campaign)}`;
const $ = (id) => document.getElementById(id);

async function call(url) {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${tokens(kept).read}` } });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

function say(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
}

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text != null) node.textContent = text;
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

function fightLink(fight) {
  return el("a", fight, { href: `${fightPath(fight)}/` });
}

function injuryItem(injury) {
  const item = el("li", `${injury.name} (`);
  item.append(fightLink(injury.fight), `, event ${injury.event})`);
  return item;
}

// A record's own fields; every other key is a stat at its current value, under its own name, as
// in a fight's character (DESIGN section 8): the stats joined with are under `stats`.
const RECORD_FIELDS = new Set([
  "member", "name", "side", "kind", "stats", "gear", "injuries", "conditions", "fights", "retired",
  "dead",
]);

/** `wounds 8, toughness 3`: the stats the member's next fight joins them with. */
function statsNow(record) {
  return Object.entries(record)
    .filter(([name]) => !RECORD_FIELDS.has(name))
    .map(([name, value]) => `${name} ${value}`)
    .join(", ");
}

function drawRoster(view) {
  const table = $("roster");
  table.replaceChildren();
  const head = el("tr");
  for (const name of ["Member", "Stats now", "Injuries", "Standing", "Fights"]) {
    head.append(el("th", name, { scope: "col" }));
  }
  table.append(el("thead"), el("tbody"));
  table.tHead.append(head);
  for (const record of view.members) {
    const row = el("tr");
    row.append(el("th", record.name || record.member, { scope: "row" }));
    row.append(el("td", statsNow(record)));
    const injuries = el("td");
    if (record.injuries?.length) {
      const list = el("ul");
      list.append(...record.injuries.map(injuryItem));
      injuries.append(list);
    } else injuries.textContent = "none";
    row.append(injuries);
    const standing = record.dead ? `dead: ${record.dead}` : record.retired
      ? `retired: ${record.retired}` : "active";
    row.append(el("td", standing));
    const played = el("td");
    (record.fights ?? []).forEach((fight, index) => {
      if (index) played.append(", ");
      played.append(fightLink(fight));
    });
    row.append(played);
    table.tBodies[0].append(row);
  }
  $("stale").replaceChildren(...(view.stale ?? []).map((p) => {
    const item = el("li");
    item.append(fightLink(p.fight), ` began ${p.member} from a record no longer true`);
    return item;
  }));
  const select = $("member");
  select.replaceChildren(...view.members.map((r) => el("option", r.name || r.member,
    { value: r.member })));
  $("roster-section").hidden = false;
  $("history-section").hidden = !view.members.length;
}

function describe(entry) {
  const event = entry.event;
  const item = el("li", `#${entry.seq} ${event.type.replaceAll("_", " ")}`);
  if (event.fight) item.append(": ", fightLink(event.fight));
  for (const change of entry.changes ?? []) {
    const parts = (change.stats ?? []).map((s) => `${s.label || s.stat} ${s.before} → ${s.after}`);
    parts.push(...(change.gained ?? []).map((i) => `gained ${i.name}`));
    parts.push(...(change.lost ?? []).map((name) => `no longer has ${name}`));
    if (change.joined) parts.push("joined");
    if (change.dead) parts.push(`dead: ${change.dead}`);
    if (change.retired) parts.push(`retired: ${change.retired}`);
    if (parts.length) item.append(` — ${parts.join("; ")}`);
  }
  if (entry.undone) item.append(` (undone by ${entry.undone})`);
  if (entry.void) item.append(` (void: ${entry.void})`);
  return item;
}

async function drawHistory() {
  const member = $("member").value;
  const history = await call(`${base}/history?member=${encodeURIComponent(member)}`);
  $("history").replaceChildren(...history.entries.map(describe));
}

function failed(error) {
  if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
    forget(kept);
    say(`${error.message}: give a token of this campaign.`, true);
    askForTokens(kept, $("token-form"), start);
  } else {
    say(`Could not read the campaign: ${error.message}`, true);
  }
}

async function start() {
  try {
    const view = await call(`${base}/record`);
    $("title").textContent = `Campaign ${view.name || campaign}`;
    document.title = `${view.name || campaign} · woundlog`;
    drawRoster(view);
    say(`${view.members.length} members, ${view.fights.length} fights (${view.ruleset}).`);
    if (view.members.length) await drawHistory();
  } catch (error) {
    failed(error);
  }
}

$("member").addEventListener("change", () => drawHistory().catch(failed));
takeFromFragment(kept);
if (tokens(kept).read) start();
else askForTokens(kept, $("token-form"), start);

// The timeline grid: one row per character, one column per event, grouped by round.

import { SHORT, characters, label, mark, rounds, statesAfter } from "./states.js";
import { heading, whoseTurn } from "./describe.js";

const DIE = "◆"; // a die was rolled for this character here
const COUNT = "±"; // a counter or an injury changed

/** Draw `moments` into `table`; cells carry `data-seq` and `data-character`. */
export function drawGrid(table, moments) {
  const people = characters(moments);
  const states = statesAfter(moments);
  const roundOf = rounds(moments);
  const head = document.createElement("thead");

  if (roundOf.some((r) => r !== "Setup")) head.append(roundRow(roundOf));
  const eventRow = document.createElement("tr");
  eventRow.className = "events";
  eventRow.append(corner("Character"));
  const names = new Map(people.map((p) => [p.id, p.name || p.id]));
  for (const moment of moments) eventRow.append(eventHeader(moment, names));
  head.append(eventRow);

  const body = document.createElement("tbody");
  for (const person of people) {
    const row = document.createElement("tr");
    const name = document.createElement("th");
    name.scope = "row";
    name.textContent = person.name || person.id;
    name.title = person.id; // a long id (Foundry's Scene.x.Token.y) on hover, the name shown
    row.append(name);
    moments.forEach((moment, i) => row.append(cell(moment, person, states[i].get(person.id))));
    body.append(row);
  }
  table.replaceChildren(head, body);
}

function corner(text) {
  const th = document.createElement("th");
  th.scope = "col";
  th.textContent = text;
  return th;
}

function roundRow(roundOf) {
  const row = document.createElement("tr");
  row.className = "rounds";
  row.append(document.createElement("td")); // above the names: a cell, since it heads nothing
  let start = 0;
  for (let i = 1; i <= roundOf.length; i++) {
    if (i < roundOf.length && roundOf[i] === roundOf[start]) continue;
    const th = document.createElement("th");
    th.scope = "colgroup";
    th.colSpan = i - start;
    th.className = "round";
    th.textContent = roundOf[start];
    row.append(th);
    start = i;
  }
  return row;
}

function eventHeader(moment, names) {
  const th = document.createElement("th");
  th.scope = "col";
  th.dataset.seq = moment.seq;
  th.title = `${heading(moment)}: ${moment.changes.explanation}`;
  const text = document.createElement(moment.changes.undone ? "s" : "span");
  text.textContent = `#${moment.seq}`;
  const type = document.createElement("small");
  type.textContent = moment.event.type.replace("character_", "").replace("_", " ");
  th.append(text, document.createElement("br"), type);
  // a side's or a character's turn says whose: a round of per-character ticks reads as turns
  const whose = whoseTurn(moment.event, (id) => names.get(id) ?? id);
  if (whose) {
    const who = document.createElement("small");
    who.className = "who";
    who.textContent = whose;
    th.append(who);
  }
  if (moment.changes.undone) th.classList.add("undone");
  if (moment.changes.void) th.classList.add("void");
  return th;
}

function cell(moment, person, state) {
  const td = document.createElement("td");
  td.setAttribute("role", "gridcell");
  td.tabIndex = -1; // one tab stop for the grid: the arrow keys move within it (roving focus)
  td.dataset.seq = moment.seq;
  td.dataset.character = person.id;
  const { rolled, counted } = mark(moment, person.id);
  if (state) {
    td.className = `s-${state}`;
    td.dataset.state = state;
  }
  if (moment.changes.undone) td.classList.add("undone");
  const short = state ? SHORT[state] : "";
  td.append(short);
  // the marks are symbols, said in words below: a screen reader reads the words, not "black diamond"
  if (rolled) td.append(hiddenMark(DIE));
  if (counted) td.append(hiddenMark(COUNT));
  const said = [
    `${person.name || person.id} after ${heading(moment)}`,
    state ? label(state) : "not in the fight",
    rolled && "a die was rolled",
    counted && "counters changed",
    moment.changes.undone && `undone: ${moment.changes.undone}`,
  ];
  // the name begins with the text the cell shows ("KD"), so a voice user can say what they see
  // (WCAG 2.5.3, Label in Name)
  const name = said.filter(Boolean).join("; ");
  td.setAttribute("aria-label", short ? `${short}: ${name}` : name);
  return td;
}

function hiddenMark(symbol) {
  const span = document.createElement("span");
  span.setAttribute("aria-hidden", "true");
  span.textContent = ` ${symbol}`;
  return span;
}

/** The legend under the grid: each state's colour and label, and the two marks. */
export function drawLegend(list) {
  const items = Object.entries(SHORT).map(([state, short]) => {
    const li = document.createElement("li");
    li.className = `s-${state}`;
    li.textContent = `${short}: ${label(state)}`;
    return li;
  });
  for (const text of [`${DIE} a die was rolled`, `${COUNT} a counter or injury changed`]) {
    const li = document.createElement("li");
    li.textContent = text;
    items.push(li);
  }
  const undone = document.createElement("li");
  undone.innerHTML = "<s>#n</s> undone";
  items.push(undone);
  list.replaceChildren(...items);
}

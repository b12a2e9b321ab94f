// The report page: the service draws the report (tables, SVG charts, chronicle) with the same
// code as `woundlog report -o report.html`; this page only fetches it with the tab's token.

import { fightPath } from "./api.js";
import { askForTokens, forget, takeFromFragment, tokens } from "./auth.js";

const fight = decodeURIComponent(location.pathname.split("/")[2]);
const $ = (id) => document.getElementById(id);

async function show() {
  const token = tokens(fight).read;
  if (!token) {
    askForTokens(fight, $("token-form"), show);
    return;
  }
  $("status").textContent = "Counting the fight…";
  const response = await fetch(`${fightPath(fight)}/report/fragment`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (response.status === 401 || response.status === 403) {
    forget(fight);
    $("status").textContent = "That token does not open this fight.";
    askForTokens(fight, $("token-form"), show);
    return;
  }
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    $("status").textContent = body?.message ?? `The report failed (HTTP ${response.status}).`;
    return;
  }
  // the fragment is the service's own HTML, every value in it escaped where it was made
  $("report").innerHTML = await response.text();
  framed($("report"));
  document.title = `${$("report").querySelector("h1")?.textContent ?? fight} · report · woundlog`;
  $("status").textContent = "";
}

/**
 * Each table and chart of the report in a frame of its own that scrolls sideways, so a phone
 * scrolls the wide ones there, not the page. A frame that scrolls is a stop of the tab key,
 * named for what it holds, so a keyboard can scroll it too.
 */
function framed(report) {
  for (const wide of report.querySelectorAll("table, figure > svg")) {
    const frame = document.createElement("div");
    frame.className = "scroll-plain";
    frame.tabIndex = 0;
    frame.setAttribute("role", "region");
    frame.setAttribute("aria-label", wide.getAttribute("aria-label") ?? headingBefore(wide));
    wide.replaceWith(frame);
    frame.append(wide);
  }
}

function headingBefore(element) {
  let before = element.previousElementSibling;
  while (before && !/^H[1-6]$/.test(before.tagName)) before = before.previousElementSibling;
  return before?.textContent ?? "A table";
}

takeFromFragment(fight);
show();

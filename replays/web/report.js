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
  document.title = `${$("report").querySelector("h1")?.textContent ?? fight} · report · woundlog`;
  $("status").textContent = "";
}

takeFromFragment(fight);
show();

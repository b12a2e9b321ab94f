// The popover (the manifest's `action`): the fight id and the GM token, entered once and kept
// in this browser's localStorage, where the background page (same origin) reads them; never in
// a URL. It shows the last thing the background page had to say.

import { STORED } from "./bridge.mjs";

const form = document.getElementById("settings");
const status = document.getElementById("status");
form.fight.value = localStorage.getItem(STORED.fight) ?? "";
form.token.value = localStorage.getItem(STORED.token) ?? "";

function show() {
  status.textContent = localStorage.getItem(STORED.status) ?? "";
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  localStorage.setItem(STORED.fight, form.fight.value.trim());
  localStorage.setItem(STORED.token, form.token.value.trim());
  localStorage.removeItem(STORED.status);
  status.textContent = "Saved: a GM's browser sends the scene to this fight.";
});
addEventListener("storage", show);
show();

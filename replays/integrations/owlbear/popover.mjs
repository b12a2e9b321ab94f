// The popover (the manifest's `action`): the fight id and the GM token, entered once and kept
// in this browser's localStorage, where the background page (same origin, framed by the same
// Owlbear Rodeo page: the same storage partition) reads them, and handed to it over Owlbear
// Rodeo's broadcast to this browser's own frames, for a browser that keeps no storage for a
// frame of another site. Never in a URL: the form's method is `dialog`, so even with its
// script stopped it submits nowhere. It shows the last thing the background page had to say.

import OBR from "./obr-sdk-3.1.0.mjs";
import { CHANNEL, STORED, storageOf } from "./bridge.mjs";

const { storage, kept } = storageOf(globalThis);
const form = document.getElementById("settings");
const status = document.getElementById("status");
form.fight.value = storage.getItem(STORED.fight) ?? "";
form.token.value = storage.getItem(STORED.token) ?? "";

function show() {
  status.textContent = storage.getItem(STORED.status) ?? "";
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const settings = { fight: form.fight.value.trim(), token: form.token.value.trim() };
  storage.setItem(STORED.fight, settings.fight);
  storage.setItem(STORED.token, settings.token);
  storage.removeItem(STORED.status);
  if (OBR.isAvailable) OBR.onReady(() => OBR.broadcast.sendMessage(CHANNEL, settings, { destination: "LOCAL" }));
  status.textContent = kept
    ? "Saved: a GM's browser sends the scene to this fight."
    : "Sent to woundlog's page in this browser, which keeps no storage for it: enter them again after a reload.";
});
addEventListener("storage", show);
show();

// The front page: it lists no fight and holds no token; it only says where a fight's pages are.

import { fightPath } from "./api.js";

// An address to copy into another program (Foundry's "Install Module") must be whole: the
// page is reached by whatever name the table's network gives this service, so that is the one.
for (const shown of document.querySelectorAll("code.address[data-path]")) {
  shown.textContent = location.origin + shown.dataset.path;
}

// The fight's page asks for its token itself, so no token is typed here.
const form = document.getElementById("open-form");
form.addEventListener("submit", (event) => {
  event.preventDefault();
  const fight = form.elements.fight.value.trim();
  if (!fight) return;
  const page = event.submitter?.value ?? "";
  location.assign(`${fightPath(fight)}/${page}`);
});

// Dice at the table. When the table rolls its own dice, an event is not appended until the
// rules have every die they need: the console asks the service which die comes next for the
// event as it stands (POST /fights/{fight}/dice-asked: the reducer's own answer, nothing
// written), asks the GM for it by name and sides ("Death save for Mira, d20"), adds it to the
// event's `rolls`, and asks again until the rules ask for none. When woundlog rolls, the event
// goes as it is and the service draws each die from the fight's seed, and says so.
//
// Which of the two a fight plays is the GM's choice, kept per fight in this browser
// (localStorage): the pages write nothing but events to the service.

const $ = (id) => document.getElementById(id);
const key = (fight) => `woundlog:${fight}:dice`;
export const TABLE = "table";
export const WOUNDLOG = "woundlog";

export function diceMode(fight) {
  return localStorage.getItem(key(fight)) === TABLE ? TABLE : WOUNDLOG;
}

export function setDiceMode(fight, mode) {
  localStorage.setItem(key(fight), mode === TABLE ? TABLE : WOUNDLOG);
}

/** `Death save for Mira, d20`: the ruleset's word for the die, whose it is, its sides. */
export function dieTitle(die, name) {
  const whose = die.whose ? ` for ${name(die.whose)}` : "";
  return `${die.label}${whose}, d${die.sides}`;
}

/** Ask the GM for one die; resolves to its face, "draw" (woundlog rolls the rest), or null
 * (cancelled: nothing is recorded). */
function askDie(die, name) {
  const dialog = $("die-dialog");
  const input = $("die-value");
  $("die-heading").textContent = dieTitle(die, name);
  $("die-label").textContent = `The d${die.sides} shows`;
  input.max = String(die.sides);
  input.value = "";
  // a small die's faces as buttons, so a thumb gives it in one tap
  const faces = $("die-faces");
  faces.replaceChildren();
  if (die.sides <= 20) {
    for (let face = 1; face <= die.sides; face++) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = String(face);
      button.setAttribute("aria-label", `${face} on the d${die.sides}`);
      button.addEventListener("click", () => {
        input.value = String(face);
        dialog.close("send");
      });
      faces.append(button);
    }
  }
  dialog.returnValue = "";
  dialog.showModal();
  // on a touch screen the faces are the way in: focusing the field would raise the keyboard
  // over them; with a keyboard, the field takes the digits typed
  const touch = matchMedia("(pointer: coarse)").matches;
  if (touch && faces.firstChild) faces.firstChild.focus();
  else input.focus();
  return new Promise((answer) => {
    dialog.addEventListener(
      "close",
      () => {
        const how = dialog.returnValue;
        const face = Number(input.value);
        if (how === "send" && Number.isInteger(face) && face >= 1 && face <= die.sides) answer(face);
        else answer(how === "draw" ? "draw" : null);
      },
      { once: true },
    );
  });
}

/** `event` with the table's dice for it, asked one at a time (`ask(event)` is the service's
 * answer: `{die}`); null when the GM cancelled. */
export async function withTableDice(event, ask, name) {
  let current = event;
  for (;;) {
    const { die } = await ask(current);
    if (!die) return current;
    const face = await askDie(die, name);
    if (face === null) return null;
    if (face === "draw") return current; // the dice not given are drawn from the seed
    const rolls = { ...(current.rolls ?? {}) };
    rolls[die.key] = [...(rolls[die.key] ?? []), face];
    current = { ...current, rolls };
  }
}

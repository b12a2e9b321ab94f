// Amend as a form: one field per field of the event (numbers as numbers, yes/no as a box, a
// character as a choice of the fight's characters, dice as numbers per purpose), read back into
// the whole replacement event the service checks as it checks any event. No JSON to type.

const FIXED = new Set(["type", "id"]);
/** Fields that name a character of the fight. */
const CHARACTER = new Set(["target", "attacker", "healer", "character"]);

function labelled(key, control, text = key.replaceAll("_", " ")) {
  const label = document.createElement("label");
  label.htmlFor = control.id;
  label.textContent = text;
  return [label, control];
}

/** Fill `box` with the fields of `event`; `people` is `[[id, name]]`. */
export function fillAmendForm(box, event, people) {
  const parts = [];
  const type = document.createElement("p");
  type.textContent = `A ${event.type.replaceAll("_", " ")} event, in its place.`;
  parts.push(type);
  for (const [key, value] of Object.entries(event)) {
    if (FIXED.has(key) || value === null) continue;
    const id = `amend-${key}`;
    if (key === "rolls" && typeof value === "object") {
      for (const [purpose, dice] of Object.entries(value)) {
        const input = document.createElement("input");
        input.id = `amend-roll-${purpose}`;
        input.dataset.roll = purpose;
        input.value = dice.join(", ");
        input.inputMode = "numeric";
        parts.push(...labelled(key, input, `dice for ${purpose.replaceAll("_", " ")} (comma-separated)`));
      }
      continue;
    }
    let control;
    if (CHARACTER.has(key) && typeof value === "string") {
      control = document.createElement("select");
      const known = people.some(([pid]) => pid === value);
      if (key !== "target" && key !== "character") control.add(new Option("nobody named", ""));
      if (!known) control.add(new Option(value, value)); // a trap, a falling beam: kept as given
      for (const [pid, name] of people) control.add(new Option(name, pid));
      control.value = value;
    } else if (typeof value === "number") {
      control = document.createElement("input");
      control.type = "number";
      control.step = "1";
      control.value = String(value);
    } else if (typeof value === "boolean") {
      control = document.createElement("input");
      control.type = "checkbox";
      control.checked = value;
    } else if (typeof value === "string") {
      control = document.createElement("input");
      control.value = value;
    } else {
      continue; // a nested record (stats, gear, tables) is kept as it was: see readAmendForm
    }
    control.id = id;
    control.dataset.field = key;
    control.dataset.kind = typeof value;
    parts.push(...labelled(key, control));
  }
  box.replaceChildren(...parts);
}

/** The replacement the form describes, or `{error}` saying which field is wrong. */
export function readAmendForm(box, event) {
  const { id, ...replacement } = event; // the replacement takes the event's place and name
  for (const control of box.querySelectorAll("[data-field]")) {
    const key = control.dataset.field;
    if (control.dataset.kind === "number") {
      const value = Number(control.value);
      if (control.value.trim() === "" || !Number.isInteger(value)) return { error: `${key}: a whole number` };
      replacement[key] = value;
    } else if (control.dataset.kind === "boolean") {
      replacement[key] = control.checked;
    } else if (control.value === "") {
      delete replacement[key];
    } else {
      replacement[key] = control.value;
    }
  }
  const rolls = {};
  for (const control of box.querySelectorAll("[data-roll]")) {
    const text = control.value.trim();
    if (!text) continue;
    const dice = text.split(/[\s,]+/).map(Number);
    if (!dice.every(Number.isInteger)) return { error: `dice for ${control.dataset.roll}: whole numbers, comma-separated` };
    rolls[control.dataset.roll] = dice;
  }
  if ("rolls" in event) {
    if (Object.keys(rolls).length) replacement.rolls = rolls;
    else delete replacement.rolls;
  }
  return { replacement };
}

// Words for people: what an event was, what it did, every die. Built here, where they are shown.

const show = (value) => (typeof value === "string" ? value : JSON.stringify(value));

/** `Grim: upright -> stunned (wounds 1 -> 0, + Hand Wound)`, as the CLI says it. */
export function summary(change) {
  const move = `${change.before ?? "not joined"} -> ${change.after ?? "not joined"}`;
  const details = [
    ...Object.entries(change.counters).map(([k, [a, b]]) => `${k} ${show(a)} -> ${show(b)}`),
    ...change.injuries.map((injury) => `+ ${show(injury)}`),
    ...change.injuries_removed.map((injury) => `- ${show(injury)}`),
  ];
  return `${change.name}: ${move}` + (details.length ? ` (${details.join(", ")})` : "");
}

/** `injury@grim d6=3 given`. */
export function dieLabel(die) {
  const scope = die.character ? `${die.purpose}@${die.character}` : die.purpose;
  return `${scope} d${die.sides}=${die.value} ${die.source}`;
}

/** `#5 hit h1`. */
export function heading({ seq, event }) {
  return `#${seq} ${event.type}` + (event.id ? ` ${event.id}` : "");
}

const QUIET = new Set(["type", "id", "rolls"]);

/** The event's own fields (target, damage, note, ...) as `[name, text]` pairs. */
export function fields(event) {
  return Object.entries(event)
    .filter(([key, value]) => !QUIET.has(key) && value !== null)
    .map(([key, value]) => [key, show(value)]);
}

/** Fill `panel` with everything about one moment: the event, why, dice, what changed. */
export function fillDetails(panel, moment, focusCharacter) {
  const { changes } = moment;
  const list = (title, items) => {
    if (!items.length) return;
    const h = document.createElement("h3");
    h.textContent = title;
    const ul = document.createElement("ul");
    for (const item of items) {
      const li = document.createElement("li");
      li.textContent = item;
      ul.append(li);
    }
    panel.append(h, ul);
  };
  panel.replaceChildren();
  const h2 = document.createElement("h2");
  h2.textContent = heading(moment);
  const why = document.createElement("p");
  why.className = "explanation";
  why.textContent = changes.void ? `void: ${changes.void}` : changes.explanation;
  panel.append(h2, why);
  if (changes.undone) {
    const undone = document.createElement("p");
    undone.className = "undone-note";
    undone.textContent = `Undone: ${changes.undone}`;
    panel.append(undone);
  }
  list("Event", fields(moment.event).map(([k, v]) => `${k}: ${v}`));
  list("Dice", changes.dice.map(dieLabel));
  list("Dice given but not needed", Object.entries(changes.unused).map(([k, v]) => `${k}: ${v}`));
  // the focused character first: that is the cell the person asked about
  const changed = [...changes.characters].sort(
    (a, b) => (b.character === focusCharacter) - (a.character === focusCharacter),
  );
  list("What changed", changed.map(summary));
  list("Consequences", changes.consequences.map(summary));
}

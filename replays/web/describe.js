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

/** `#5 hit h1`: for a title attribute, where a long id does no harm. */
export function heading({ seq, event }) {
  return `#${seq} ${event.type}` + (event.id ? ` ${event.id}` : "");
}

/** `#5 hit`: a heading, short whatever the event's id (an importer's ids run to 90 characters). */
export const shortHeading = ({ seq, event }) => `#${seq} ${event.type}`;

/** An event as a confirmation names it: `#7 hit on Hilde (1 damage, by Ulf)`; `name` gives a
 * character's name for its id, `numbered` the `#N` of an event's reference (an undo's). */
export function eventTitle({ seq, event }, name, numbered = (ref) => ref) {
  const by = (who) => (who ? `, by ${name(who)}` : "");
  switch (event.type) {
    case "hit":
      return `#${seq} hit on ${name(event.target)} (${event.damage} damage${by(event.attacker)})`;
    case "heal":
      return `#${seq} heal of ${name(event.target)} (${event.amount}${by(event.healer)})`;
    case "character_joined":
      return `#${seq} ${event.name || name(event.character)} joins`;
    case "retract":
    case "amend":
      return `#${seq} ${event.type} of ${numbered(event.event)}`;
    default: {
      const whose = whoseTurn(event, name);
      return `#${seq} ${event.type}` + (whose ? `: ${whose}` : "");
    }
  }
}

/** Whose turn a `turn_started` or `turn_ended` ticks: a character's name or a side; null for the
 * whole round and any other event. */
export function whoseTurn(event, name) {
  if (event.type !== "turn_started" && event.type !== "turn_ended") return null;
  if (event.character) return name(event.character);
  return event.side ?? null;
}

const QUIET = new Set(["type", "id", "rolls"]);

/** Fields that name a character: shown by name, the id kept for a title. */
const NAMING = new Set(["target", "attacker", "healer", "character"]);

/** The event's own fields (target, damage, note, ...) as `[name, text, id]` triples; `name`
 * gives a character's name for its id. */
export function fields(event, name = (id) => id) {
  return Object.entries(event)
    .filter(([key, value]) => !QUIET.has(key) && value !== null)
    .map(([key, value]) =>
      NAMING.has(key) && typeof value === "string" ? [key, name(value), value] : [key, show(value), null],
    );
}

/** Fill `panel` with everything about one moment: the event, why, dice, what changed.
 * `names` maps character ids to names (an id not in it is shown as it is). */
export function fillDetails(panel, moment, focusCharacter, names = new Map()) {
  const { changes } = moment;
  const name = (id) => names.get(id) ?? id;
  const list = (title, items) => {
    if (!items.length) return;
    const h = document.createElement("h3");
    h.textContent = title;
    const ul = document.createElement("ul");
    for (const item of items) {
      const li = document.createElement("li");
      const [text, hover] = Array.isArray(item) ? item : [item, null];
      li.textContent = text;
      if (hover) li.title = hover;
      ul.append(li);
    }
    panel.append(h, ul);
  };
  panel.replaceChildren();
  panel.dataset.seq = String(moment.seq);
  const h2 = document.createElement("h2");
  const whose = whoseTurn(moment.event, name);
  h2.textContent = shortHeading(moment) + (whose ? `: ${whose}` : "");
  panel.append(h2);
  if (moment.event.id) {
    const id = document.createElement("p");
    id.className = "event-id";
    id.textContent = `id ${moment.event.id}`;
    id.title = moment.event.id;
    panel.append(id);
  }
  const why = document.createElement("p");
  why.className = "explanation";
  why.textContent = changes.void ? `void: ${changes.void}` : changes.explanation;
  panel.append(why);
  if (changes.undone) {
    const undone = document.createElement("p");
    undone.className = "undone-note";
    undone.textContent = `Undone: ${changes.undone}`;
    panel.append(undone);
  }
  list("Event", fields(moment.event, name).map(([k, v, id]) => [`${k}: ${v}`, id]));
  list("Dice", changes.dice.map(dieLabel));
  list("Dice given but not needed", Object.entries(changes.unused).map(([k, v]) => `${k}: ${v}`));
  // the focused character first: that is the cell the person asked about
  const changed = [...changes.characters].sort(
    (a, b) => (b.character === focusCharacter) - (a.character === focusCharacter),
  );
  list("What changed", changed.map(summary));
  list("Consequences", changes.consequences.map(summary));
}

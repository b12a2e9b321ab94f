// The seven states, and each character's state after each event, read from the changes.

/** Short labels a cell shows, so a state is never told by colour alone. */
export const SHORT = {
  upright: "up",
  knocked_down: "KD",
  stunned: "stun",
  downed: "down",
  stabilised: "stab",
  out_of_action: "OoA",
  dead: "dead",
};

export const label = (state) => state.replaceAll("_", " ");

/** Characters in join order: `[{id, name}]`, from every change that names one. */
export function characters(moments) {
  const seen = new Map();
  for (const { changes } of moments) {
    for (const change of [...changes.characters, ...changes.consequences]) {
      if (!seen.has(change.character)) seen.set(change.character, change.name);
    }
  }
  return [...seen].map(([id, name]) => ({ id, name }));
}

/**
 * For each moment, a Map character -> state just after it, as the fight stood then.
 *
 * Replays the changes rather than asking for the state at every seq (one request, not one per
 * event): a change's `after` is the new state, and an undo's `consequences` are how it moved
 * everyone when it rewrote the past. A character whose joining was undone has `after: null`.
 */
export function statesAfter(moments) {
  const now = new Map();
  return moments.map(({ changes }) => {
    for (const change of [...changes.characters, ...changes.consequences]) {
      if (change.after === null) now.delete(change.character);
      else now.set(change.character, change.after);
    }
    return new Map(now);
  });
}

/**
 * The round group of each moment, as its heading reads: "Setup" before the first `turn_started`,
 * then "Round N" of the latest one that gives a round. A `turn_started` without a round (a
 * side's or a character's tick from the CLI) carries the last round on; turns begun before any
 * round was numbered are "Turns". The same rule as the CLI's picture (replays/render/timeline.py).
 */
export function rounds(moments) {
  let round = null;
  let begun = false;
  return moments.map(({ event }) => {
    if (event.type === "turn_started") {
      begun = true;
      if (Number.isInteger(event.round)) round = event.round;
    }
    if (round !== null) return `Round ${round}`;
    return begun ? "Turns" : "Setup";
  });
}

/** What an event did to one character: its change, and whether a die was rolled for it. */
export function mark(moment, character) {
  const { event, changes } = moment;
  const change = [...changes.characters, ...changes.consequences].find(
    (c) => c.character === character,
  );
  // a die names its character only in an event about several; otherwise it is the subject's
  const subject = event.target ?? event.character;
  const rolled = changes.dice.some(
    (die) => die.character === character || (die.character == null && subject === character),
  );
  const counted =
    !!change &&
    (Object.keys(change.counters).length > 0 ||
      change.injuries.length > 0 ||
      change.injuries_removed.length > 0);
  return { change, rolled, counted };
}

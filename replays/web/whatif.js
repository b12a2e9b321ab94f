// The what-if that "odds from here" asks about: hits, heals, turn ticks and any other event, in
// the order a person adds them, as the CLI's --then/--hit gives them, then N rounds of turns
// (--ticks).
// Each step becomes one whole event of the wire format, so the service checks it as it checks
// any event, and the answer is for exactly these events in exactly this order.

/** The event a step stands for. */
export function eventOf(step) {
  if (step.kind === "event") return step.event;
  if (step.kind === "hit") {
    const hit = { type: "hit", target: step.target, damage: step.damage };
    return step.attacker ? { ...hit, attacker: step.attacker } : hit;
  }
  if (step.kind === "heal") {
    const heal = { type: "heal", target: step.target, amount: step.amount };
    if (step.means) heal.means = step.means;
    return step.healer ? { ...heal, healer: step.healer } : heal;
  }
  // a tick: a turn's start or end, of the whole round, one side or one character
  const tick = { type: step.when === "start" ? "turn_started" : "turn_ended" };
  if (step.scope === "side") tick.side = step.who;
  if (step.scope === "character") tick.character = step.who;
  return tick;
}

/** A step in words, with the characters' names (`names`: id -> name). */
export function describe(step, names) {
  const name = (id) => names[id] ?? id;
  if (step.kind === "event") return JSON.stringify(step.event);
  if (step.kind === "hit") {
    const by = step.attacker ? ` by ${name(step.attacker)}` : "";
    return `${name(step.target)} is hit for ${step.damage}${by}`;
  }
  if (step.kind === "heal") {
    const means = step.means ? ` (${step.means})` : "";
    const by = step.healer ? ` by ${name(step.healer)}` : "";
    return `${name(step.target)} is healed ${step.amount}${means}${by}`;
  }
  const whose =
    step.scope === "round" ? "the round" : step.scope === "side" ? `side ${step.who}'s turn` : `${name(step.who)}'s turn`;
  return `${whose} ${step.when === "start" ? "starts" : "ends"}`;
}

/** The ticks a person can add for a fight state: the round's, each side's, each character's. */
export function tickChoices(state) {
  const characters = Object.entries(state?.characters ?? {});
  const sides = [...new Set(characters.map(([, c]) => c.side).filter(Boolean))];
  const choices = [];
  for (const when of ["end", "start"]) {
    choices.push({ when, scope: "round" });
    for (const side of sides) choices.push({ when, scope: "side", who: side });
    for (const [id] of characters) choices.push({ when, scope: "character", who: id });
  }
  return choices;
}

/** A tick choice as the value of an `<option>`, and back. */
export const tickValue = (tick) => [tick.when, tick.scope, tick.who ?? ""].join("|");
export function tickOf(value) {
  const [when, scope, who] = value.split("|");
  return scope === "round" ? { kind: "tick", when, scope } : { kind: "tick", when, scope, who };
}

/** The chance of a state as a person reads it. Exact: its percentage and exact fraction. An
 * estimate from `samples` replays: how many of them reached it, its percentage and its 95%
 * interval; never the share as a reduced fraction (1500 of 2000 is not an exact 3/4). */
export function chanceText(state, samples = null) {
  if (samples === null || state.low === null || state.low === undefined) {
    return `${state.state} ${state.percent.toFixed(1)}% (${state.chance})`;
  }
  const [top, bottom] = state.chance.split("/").map(Number);
  const count = Math.round((top * samples) / bottom);
  return (
    `${state.state} in ${count} of ${samples} replays (${state.percent.toFixed(1)}%, ` +
    `95% between ${state.low.toFixed(1)}% and ${state.high.toFixed(1)}%)`
  );
}

/** Whether the odds leave `character` exactly as it stands in `now` (one outcome, every
 * counter as it is): such characters are folded into one line. */
export function unchanged(character, now) {
  if (!now || character.outcomes.length !== 1) return false;
  return Object.entries(character.outcomes[0].outcome).every(
    ([key, value]) => JSON.stringify(now[key]) === JSON.stringify(value),
  );
}

/** The samples an estimate starts from, where the service takes as many (its bound for a
 * what-if comes with its refusal: `mostSamples`). */
export const DEFAULT_SAMPLES = 2000;

/** The most samples the service takes for the what-if it refused with `error` (its 422 says,
 * as `most_samples`); null when the refusal says nothing of it. */
export const mostSamples = (error) =>
  Number.isInteger(error?.body?.most_samples) ? error.body.most_samples : null;

/** Whether a refusal of the service is the one for a question past its work budget (its
 * reducer steps, or the dice paths and states it may hold), which an estimate by sampling
 * answers instead. */
export const tooLarge = (error) =>
  error?.status === 422 && /^this what-if takes more than /.test(error.message);

/** An event typed as JSON, as a step; or why it is not one (the service checks the rest). */
export function eventStep(text) {
  let event;
  try {
    event = JSON.parse(text);
  } catch (error) {
    return { error: `not JSON: ${error.message}` };
  }
  if (event === null || typeof event !== "object" || Array.isArray(event) || typeof event.type !== "string") {
    return { error: 'one event: a JSON object with its "type"' };
  }
  return { step: { kind: "event", event } };
}

// The service's JSON API, with a bearer token; the same endpoints any other client uses.

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export function fightPath(fight) {
  return `/fights/${encodeURIComponent(fight)}`;
}

async function call(url, token, init = {}) {
  const response = await fetch(url, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** What a page shows of a ruleset it is not told about: nothing of its own. */
const PLAIN = { pools: [], gm_kinds: [], hidden: [], units: {}, glance: {}, pips: null };

let rulesets = null;

/** Every ruleset's declarations, by name (`GET /rulesets`: no token, it is the rules, not a
 * fight), fetched once per page; a failed fetch is tried again at the next call. */
export function getRulesets() {
  rulesets ??= fetch("/rulesets")
    .then(async (response) => {
      const body = await response.json().catch(() => null);
      if (!response.ok) throw new ApiError(response.status, body);
      return new Map(body.map((ruleset) => [ruleset.name, ruleset]));
    })
    .catch((error) => {
      rulesets = null;
      throw error;
    });
  return rulesets;
}

/** What the ruleset `name` declares for pages: its pools, the GM's kinds, the counters a card
 * hides, the words for units, what a state means at a glance, and counters drawn as pips. The
 * pages know no game: whatever they show of one comes from here. */
export async function getPresentation(name) {
  return (await getRulesets()).get(name)?.presentation ?? PLAIN;
}

export const TIMELINE_WINDOW = 500; // the server answers at most 1000 events at a time
/** One window of the timeline: events `from` on, at most `limit`; `next` starts the next one. */
export const getTimeline = (fight, token, from = 1, limit = TIMELINE_WINDOW) =>
  call(`${fightPath(fight)}/timeline?from=${from}&limit=${limit}`, token);

export function getState(fight, token, at) {
  const query = at ? `?at=${at}` : "";
  return call(`${fightPath(fight)}/state${query}`, token);
}

/** What the fight's viewer tokens are shown of monsters' hit points (`hidden`, `bands`,
 * `shown`): the server redacts every viewer read by it. */
export const getPlayersView = (fight, token) => call(`${fightPath(fight)}/players-view`, token);

export function setPlayersView(fight, token, monsters) {
  const body = JSON.stringify({ monsters });
  return call(`${fightPath(fight)}/players-view`, token, { method: "PUT", body });
}

export function undo(fight, token, event, reason, by = "page") {
  const body = JSON.stringify({ event, reason, by });
  return call(`${fightPath(fight)}/undo`, token, { method: "POST", body });
}

/** Append one event or a list (gm): the service's `Appended`, what each did. */
export function record(fight, token, events) {
  return call(`${fightPath(fight)}/events`, token, { method: "POST", body: JSON.stringify(events) });
}

/** The next die the rules would ask for `event` as it stands (gm): `{die, version}`, `die`
 * null when its `rolls` give every die it needs. Nothing is written. */
export function diceAsked(fight, token, event) {
  return call(`${fightPath(fight)}/dice-asked`, token, { method: "POST", body: JSON.stringify(event) });
}

export function amend(fight, token, event, replacement, reason) {
  const body = JSON.stringify({ type: "amend", event, replacement, reason, by: "page" });
  return call(`${fightPath(fight)}/events`, token, { method: "POST", body });
}

// The odds of a what-if from event `at`: `events` (whole events, in order), then `ticks` rounds
// of turns; exact, or estimated from `samples` replays. A GET, so the what-if goes in the query
// (a browser's fetch sends no body with a GET); the service bounds the work.
export function getOdds(fight, token, at, { events = [], ticks = 0, samples = null } = {}) {
  const query = new URLSearchParams({ at: String(at) });
  if (events.length) query.set("events", JSON.stringify(events));
  if (ticks) query.set("ticks", String(ticks));
  if (samples) query.set("samples", String(samples));
  return call(`${fightPath(fight)}/odds?${query}`, token);
}

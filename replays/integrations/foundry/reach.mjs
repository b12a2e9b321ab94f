// Telling the GMs what keeps this browser from woundlog, once per cause, with the fix, and
// when it is over. Two causes look alike to a page: a service out of reach (not running, the
// wrong address, a network in between) and a service that answers but does not allow Foundry's
// origin (CORS): a browser's fetch fails with the same TypeError for both ("Failed to fetch"),
// by design (the Fetch Standard makes a failed CORS check a network error). So a failed fetch
// is followed by a `no-cors` request to the service's /health, which a browser sends without
// asking the service's permission and resolves, opaque, when anything answers: an answer there
// means the origin is refused; none, the service is out of reach.

import { setting } from "./reading.mjs";

export const ORIGIN = "origin"; // the service answers, but refuses this page's origin
export const OUTAGE = "outage"; // nothing answers at the address
const PROBE_MS = 5000; // a /health that has not answered by then is out of reach

export function baseOf(env) {
  return String(setting(env, "url")).replace(/\/+$/, "");
}

export class Reach {
  // `pending()`: how many envelopes wait, said in each whisper.
  constructor(env, whisper, pending = () => 0) {
    this.env = env;
    this.whisper = whisper;
    this.pending = pending;
    this.cause = null; // told to the GMs; null: nothing wrong (or nothing told yet)
  }

  // The page's own origin, the value the service must allow (`window.location.origin`).
  origin() {
    return this.env.location?.origin ?? this.env.window?.location?.origin ?? "(this page's origin)";
  }

  // A fetch of `url` failed with no answer (a TypeError): which cause, told once.
  async failed(url, error) {
    if (error?.name !== "TypeError") return; // an abort, or an answer read badly: no cause
    const base = baseOf(this.env);
    const cause = (await this.answers(base)) ? ORIGIN : OUTAGE;
    if (cause === this.cause) return;
    this.cause = cause;
    await this.whisper(cause === ORIGIN ? this.refusedOrigin(base) : this.outOfReach(url, error));
  }

  // A fetch was answered: what was told is over.
  async answered() {
    if (this.cause === null) return;
    this.cause = null;
    await this.whisper(`woundlog answers again at ${baseOf(this.env)}: ${this.pending()} envelopes to send.`);
  }

  async answers(base) {
    try {
      const signal = globalThis.AbortSignal?.timeout?.(PROBE_MS); // never stall the sends on it
      await this.env.fetch(`${base}/health`, { mode: "no-cors", cache: "no-store", signal });
      return true;
    } catch {
      return false;
    }
  }

  kept() {
    const n = this.pending();
    const what = n ? `${n} envelopes are` : "What happens meanwhile is";
    return `${what} kept in Foundry and sent once it answers (tried again after 0.5, 1, 2, 5, 10 s, then every 30 s).`;
  }

  refusedOrigin(base) {
    const origin = this.origin();
    return (
      `woundlog at ${base} answers, but refuses this page's origin ${origin} (CORS), so this browser ` +
      `cannot read its answers. Start it with WOUNDLOG_CORS_ORIGINS=${origin} woundlog serve ` +
      `(or --cors-origin ${origin}), exactly as written: scheme, name and port. ${this.kept()}`
    );
  }

  outOfReach(url, error) {
    const mixed = /^https:/.test(this.origin()) && /^http:/.test(url)
      ? " Foundry is served over https: a page over https cannot call an http address; serve woundlog over https too."
      : ""; // prettier-ignore
    return (
      `woundlog cannot be reached at ${url} (${error?.message ?? error}): is woundlog serve running ` +
      `there, listening where this browser can reach it (--host), and is the module's URL ` +
      `setting right?${mixed} ${this.kept()}`
    );
  }
}

// Sending envelopes to woundlog, from the active GM's client: in order, one at a time, each
// retried with its id until the server has it (woundlog skips what it already has). Where the
// envelopes are kept between sends, so another GM's browser can send them, is the bridge's
// (woundlog.mjs `keep`); what stops a send is told to the GMs by reach.mjs.

import { setting } from "./reading.mjs";

export const RETRY_MS = [500, 1000, 2000, 5000, 10000, 30000]; // then every 30 s
export const HELD_MS = 30000; // a wrong token or a fight not made yet: retried this slowly
// Refused for what the envelope is: sending it again changes nothing, so it is dropped (and
// the GM told). 401/403/404 are not among them: they say the token or the fight is wrong,
// which the GM can put right, and the envelopes wait for it.
export const REFUSED = new Set([400, 409, 413, 422]);
export const HELD = new Set([401, 403, 404]);

export function endpoint(env, path) {
  const base = String(setting(env, "url")).replace(/\/+$/, "");
  return `${base}/fights/${encodeURIComponent(setting(env, "fight"))}${path}`;
}

export function authorization(env) {
  return `Bearer ${setting(env, "token")}`;
}

export class Outbox {
  // `keep(envelopes)`: keeps what is left to send where it outlives this page; `reach`: tells
  // the GMs why nothing answers (reach.mjs).
  constructor(env, whisper, { keep = async () => {}, reach } = {}) {
    this.env = env;
    this.whisper = whisper;
    this.keep = keep;
    this.reach = reach;
    this.envelopes = [];
    this.sending = null;
    this.running = false;
    this.held = null; // the status the envelopes are held for, told to the GM once
    this.refusals = new Set(); // the causes (status and reason) of envelopes dropped, told once each
    this.wake = null; // ends a wait early (the GM changed a setting)
  }

  // Sends (what was kept is handed in by the bridge, with `add`).
  start() {
    if (this.running) return;
    this.running = true;
    this.pump();
  }

  // Stops sending and hands back what is left (to give to the next active GM).
  stop() {
    this.running = false;
    this.wake?.();
    const left = this.envelopes;
    this.envelopes = [];
    return left;
  }

  add(envelope) {
    if (this.envelopes.some((e) => e.id === envelope.id)) return; // handed over twice
    this.envelopes.push(envelope);
    this.save();
    this.pump();
  }

  save() {
    return this.keep([...this.envelopes]);
  }

  idle() {
    return this.envelopes.length === 0 && !this.sending;
  }

  // The next is not sent before the server has the one before it, so the fight's log keeps
  // Foundry's order.
  pump() {
    if (!this.running) return this.sending;
    this.sending ??= this.drain().finally(() => {
      this.sending = null;
      // queued while the last drain was finishing: it had already looked at the outbox
      if (this.envelopes.length && this.running) this.pump();
    });
    return this.sending;
  }

  async drain() {
    let failures = 0;
    while (this.envelopes.length && this.running) {
      const envelope = this.envelopes[0];
      let wait;
      const url = endpoint(this.env, "/import/foundry");
      try {
        const response = await this.env.fetch(url, {
          method: "POST",
          headers: { Authorization: authorization(this.env), "Content-Type": "application/json" },
          body: JSON.stringify(envelope),
        });
        const status = response.status;
        await this.reach?.answered();
        if (response.ok) {
          const answer = await response.json().catch(() => ({}));
          if (this.held !== null) await this.whisper(`woundlog takes the envelopes again: ${this.envelopes.length} to send`);
          this.held = null;
          for (const warning of answer.warnings ?? []) await this.whisper(`woundlog left out of ${envelope.hook}: ${warning}`);
        } else if (REFUSED.has(status)) {
          // Dropped: sent again it would be refused again. What it did to the token is not
          // lost: the token's next envelope carries its HP, and woundlog brings the fight in
          // line with it (a `:drift` event, whispered as such).
          // Told once per cause: a fight of another ruleset refuses every envelope alike.
          const problem = await response.json().catch(() => ({}));
          const cause = `${status} ${problem.detail ?? ""}`;
          if (!this.refusals.has(cause)) {
            this.refusals.add(cause);
            const who = envelope.token?.name ? ` for ${envelope.token.name}` : "";
            await this.whisper(
              `woundlog refused ${envelope.hook}${who} (${status}), dropped: ${problem.detail ?? ""} ` +
                "(the token's next change brings woundlog's HP in line with Foundry's; later envelopes " +
                "refused for this same reason are dropped without another word)",
            );
          }
        } else if (HELD.has(status)) {
          if (this.held !== status) {
            const problem = await response.json().catch(() => ({}));
            await this.whisper(
              `woundlog answers ${status} (${problem.detail ?? problem.title ?? "refused"}): check the fight and ` +
                `the token in the module's settings. ${this.envelopes.length} envelopes are kept and sent again ` +
                `every ${HELD_MS / 1000} s.`,
            );
          }
          this.held = status;
          wait = HELD_MS;
        } else {
          wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]; // a server error
        }
      } catch (error) {
        // No answer: the server may have it or not; the same id again is safe either way.
        wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
        await this.reach?.failed(url, error);
      }
      if (!this.running) return; // handed over meanwhile: what is kept is the new holder's
      if (wait !== undefined) {
        await new Promise((resolve) => {
          this.wake = resolve;
          this.env.setTimeout(resolve, wait);
        });
        this.wake = null;
        continue;
      }
      failures = 0;
      if (this.envelopes[0] === envelope) this.envelopes.shift();
      await this.save();
    }
  }

  // The GM changed the token, the fight or the address: try again now.
  retry() {
    this.wake?.();
  }
}

// Writing woundlog's answer back: the active GM's client reads the fight's stream (every
// event's changes, in order), gives each token the status effects of its woundlog state and
// whispers woundlog's explanation of each event to the GMs.

import { authorization, endpoint, RETRY_MS } from "./outbox.mjs";
import { MODULE, setting } from "./reading.mjs";

// woundlog states to status effect ids, as dnd5e names them (`CONFIG.statusEffects`); the
// setting `statuses` holds this as JSON for another system's names.
export const DEFAULT_STATUSES = {
  knocked_down: ["prone"],
  downed: ["unconscious"],
  stabilised: ["unconscious"],
  dead: ["dead"],
  out_of_action: ["dead"],
};

// How far each fight's stream was read, kept per fight id: another fight (or the same
// browser on another world) starts from its own place, never from this one's.
export function seenOf(env, fight) {
  const seen = setting(env, "seen");
  return Number((seen && typeof seen === "object" ? seen[fight] : 0) ?? 0);
}

export class Reader {
  // `reach`: tells the GMs why nothing answers (reach.mjs), once, whoever met it first.
  constructor(env, whisper, reach) {
    this.env = env;
    this.whisper = whisper;
    this.reach = reach;
    this.caused = new Map(); // character uuid -> status ids this module put on
    this.running = null;
    this.abort = null;
    this.stopped = true;
    this.generation = 0; // a loop of an earlier start ends when it sees a later one
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.read(++this.generation);
  }

  stop() {
    this.stopped = true;
    this.abort?.abort();
    this.wake?.();
  }

  // Read again from where this fight was left (the GM changed the fight, the token).
  restart() {
    this.abort?.abort();
    this.wake?.();
  }

  // The stream, read with fetch because a browser's EventSource cannot send the token.
  async read(generation) {
    const over = () => this.stopped || generation !== this.generation;
    let failures = 0;
    while (!over()) {
      this.abort = new AbortController();
      const fight = setting(this.env, "fight");
      const from = seenOf(this.env, fight) + 1;
      const url = endpoint(this.env, `/stream?from=${from}`);
      try {
        const response = await this.env.fetch(url, {
          headers: { Authorization: authorization(this.env), Accept: "text/event-stream" },
          signal: this.abort.signal,
        });
        await this.reach?.answered();
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        failures = 0;
        for await (const message of sse(response.body)) {
          if (over() || setting(this.env, "fight") !== fight) break;
          if (message.event === "changes") await this.answer(fight, JSON.parse(message.data));
        }
      } catch (error) {
        if (over()) return;
        await this.reach?.failed(url, error);
      }
      if (over()) return;
      const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
      await new Promise((resolve) => {
        this.wake = resolve;
        this.env.setTimeout(resolve, wait);
      });
    }
  }

  // One event's changes: its explanation to the GMs, each character's new state onto its token.
  async answer(fight, changes) {
    const moved = [...(changes.characters ?? []), ...(changes.consequences ?? [])];
    let text = changes.void ? `void: ${changes.void}` : changes.explanation;
    // the importer's correction for HP that changed in Foundry unseen (a rest, a lost send)
    if (String(changes.event).endsWith(":drift")) text = `Foundry's HP differed from woundlog's, brought in line: ${text}`;
    await this.whisper(`#${changes.seq} ${changes.type}: ${text}`);
    for (const character of moved) {
      if (character.after !== undefined) await this.show(character.character, character.after);
    }
    const seen = { ...(setting(this.env, "seen") ?? {}) };
    seen[fight] = changes.seq;
    await this.env.game.settings.set(MODULE, "seen", seen);
  }

  // The statuses of `state` on, and those this module put on for an earlier state off. A
  // character is a token (unlinked) or a world actor (linked): both toggle on the actor.
  async show(uuid, state) {
    const document = this.env.fromUuidSync(uuid);
    const actor = document?.actor ?? (document?.toggleStatusEffect ? document : null);
    if (!actor) return; // a character woundlog knows that is nothing here (joined by hand)
    const table = JSON.parse(setting(this.env, "statuses") || "{}");
    const wanted = new Set(table[state] ?? []);
    const caused = this.caused.get(uuid) ?? new Set(document.getFlag?.(MODULE, "caused") ?? []);
    for (const status of wanted) {
      if (actor.statuses?.has(status)) continue; // already there (maybe the GM's): not ours
      await actor.toggleStatusEffect(status, { active: true, overlay: status === "dead" });
      caused.add(status);
    }
    for (const status of [...caused]) {
      if (wanted.has(status)) continue;
      caused.delete(status);
      if (actor.statuses?.has(status)) await actor.toggleStatusEffect(status, { active: false });
    }
    this.caused.set(uuid, caused);
    await document.setFlag?.(MODULE, "caused", [...caused]);
  }
}

// Server-sent events from a fetch body: `event`, `data` and `id` fields, a blank line ends one.
export async function* sse(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  let message = {};
  const reader = body.getReader(); // not `for await`: Safari cannot iterate a stream
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).replace(/\r$/, "");
        buffer = buffer.slice(end + 1);
        if (line === "") {
          if (message.data !== undefined) yield message;
          message = {};
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          message[field] = field === "data" && message.data !== undefined ? `${message.data}\n${value}` : value;
        }
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

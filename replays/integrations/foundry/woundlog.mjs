// woundlog for Foundry VTT (v12, v13): sends what happens to tokens in a fight to a woundlog
// fight, and writes woundlog's answer back onto the tokens.
//
// One ES module, no build step. Foundry loads it (module.json `esmodules`) with its globals
// (`Hooks`, `game`, `foundry`, `ChatMessage`, `CONFIG`, `fromUuidSync`); the node tests load
// it with stand-ins for them and call `woundlog(stand-ins)` themselves, so nothing here
// reaches for a global directly.
//
// What it sends, as envelopes woundlog's `foundry` importer reads (events/importers/foundry.py
// says what each becomes):
// - `dnd5e.applyDamage`: the whole damage dealt, which dnd5e does not keep past 0 HP, with
//   the HP change its own `dnd5e.damageActor` reported for the same update folded in;
// - `dnd5e.damageActor` / `dnd5e.healActor`: any other HP change (the sheet, the token HUD);
//   in another system, every HP change at the `hpPath` setting, in the same envelope;
// - `dnd5e.rollDeathSave`: a death save, as the dnd5e ruleset's `check`;
// - `combatTurnChange`: the combat's place before and after, with its turn order.
// Hooks fire in the client that made the change (a player's, for a death save they roll):
// that client builds the envelope and, unless it is the active GM's, hands it over the
// module's socket. Only the active GM's client (`game.user.isActiveGM`) sends, so a hit is
// sent once however many GMs are connected; it sends in order, one at a time, and retries an
// envelope with the same id until the server has it (woundlog skips what it already has).
//
// What it writes back: it reads the fight's stream (every event's changes, in order) and
// gives each token the status effects of its woundlog state (setting `statuses`), posts
// woundlog's explanation of each event to the chat, whispered to the GMs, and takes off again
// the statuses it put on when an undo in woundlog moves a token back. Statuses a GM set by
// hand are never taken off.

export const MODULE = "woundlog";
const SOCKET = `module.${MODULE}`;
const RETRY_MS = [500, 1000, 2000, 5000, 10000, 30000]; // then every 30 s
const APPLYING_MS = 10000; // an applyDamage's update lands well within this
const PERMANENT = new Set([400, 401, 403, 404, 409, 413, 422]); // resending changes nothing

// woundlog states to status effect ids, as dnd5e names them (`CONFIG.statusEffects`); the
// setting `statuses` holds this as JSON for another system's names.
export const DEFAULT_STATUSES = {
  knocked_down: ["prone"],
  downed: ["unconscious"],
  stabilised: ["unconscious"],
  dead: ["dead"],
  out_of_action: ["dead"],
};

// --- reading Foundry's objects -----------------------------------------------------------

// A roll as woundlog takes its dice: `Roll#dice` already lists the dice inside parenthetical
// and pool terms; each result keeps `active` and `discarded` (dropped by `kh`, rerolled).
export function rollOf(roll) {
  if (!roll) return undefined;
  return {
    formula: roll.formula,
    total: roll.total,
    isCritical: roll.isCritical ?? undefined,
    dice: roll.dice.map((die) => ({
      faces: die.faces,
      results: die.results.map((r) => ({
        result: r.result,
        active: r.active !== false,
        ...(r.discarded ? { discarded: true } : {}),
      })),
    })),
  };
}

// The token an actor stands for. An unlinked token's actor is synthetic and knows its token;
// a linked actor may have several: the one in the current combat, else the first.
function tokenOf(env, actor) {
  if (actor.token) return actor.token;
  const combat = env.game.combat;
  const fighting = combat?.combatants?.find?.((c) => c.actor === actor || c.actorId === actor.id);
  if (fighting?.token) return fighting.token;
  const [first] = actor.getActiveTokens?.(false, true) ?? [];
  return first;
}

// `token` and `actor` as the envelope carries them: the token document's uuid (unlinked
// tokens of one base actor share its `id`), its name ("Goblin (2)"), and the HP read at the
// path the `hpPath` setting names, so any system whose HP is {value, max, temp} works.
export function tokenPart(env, actor, token = tokenOf(env, actor)) {
  const hp = env.foundry.utils.getProperty(actor, setting(env, "hpPath")) ?? {};
  return {
    token: {
      uuid: token?.uuid ?? actor.uuid,
      name: token?.name ?? actor.name,
      player: Boolean(actor.hasPlayerOwner),
    },
    actor: {
      id: actor.id,
      name: actor.name,
      type: actor.type,
      hp: { value: hp.value, max: hp.max, temp: hp.temp ?? 0 },
    },
  };
}

// Dice of a roll, given to woundlog for the purpose the `purpose` setting names (d26's
// `location`, ...); none when it is empty, as in dnd5e, whose rules roll no damage dice.
function dicePart(env, roll) {
  const purpose = setting(env, "purpose");
  return purpose && roll ? { purpose, roll: rollOf(roll) } : {};
}

// The attacker: the token that spoke the damage roll's chat message.
function speakerToken(message) {
  const speaker = message?.speaker;
  return speaker?.scene && speaker?.token ? `Scene.${speaker.scene}.Token.${speaker.token}` : undefined;
}

function setting(env, key) {
  return env.game.settings.get(MODULE, key);
}

// --- the bridge --------------------------------------------------------------------------

export function woundlog(env) {
  const { Hooks, game } = env;
  const bridge = new Bridge(env);
  Hooks.once("init", () => registerSettings(env));
  Hooks.once("ready", () => bridge.ready());

  // dnd5e's applyDamage: preApplyDamage, the update (whose damageActor/healActor is folded
  // in here, not sent), then applyDamage with the whole amount.
  Hooks.on("dnd5e.preApplyDamage", (actor, amount) => {
    bridge.applying.set(actor.uuid, { changes: undefined, since: Date.now() });
  });
  for (const name of ["dnd5e.damageActor", "dnd5e.healActor"]) {
    Hooks.on(name, (actor, changes, update, userId) => {
      if (userId !== game.user.id) return; // the client that made the change reports it
      const applying = bridge.applying.get(actor.uuid);
      // Another module may cancel applyDamage after preApplyDamage: an old mark is no mark.
      if (applying && Date.now() - applying.since < APPLYING_MS) return void (applying.changes = { ...changes });
      if (bridge.revived.delete(actor.uuid) && changes.hp > 0) return; // said by the death save
      bridge.emit({ hook: name, ...tokenPart(env, actor), changes: { ...changes } });
    });
  }
  // Other systems fire no dnd5e hook: Foundry's own update hooks, at the `hpPath` setting,
  // give the same change (the HP before is kept in the update's options, which Foundry hands
  // from preUpdateActor to updateActor).
  Hooks.on("preUpdateActor", (actor, changed, options, userId) => {
    if (env.game.system?.id === "dnd5e" || userId !== game.user.id) return;
    const path = setting(env, "hpPath");
    if (env.foundry.utils.getProperty(changed, path) === undefined) return;
    const hp = env.foundry.utils.getProperty(actor, path) ?? {};
    options.woundlogHP = { value: hp.value ?? 0, temp: hp.temp ?? 0 };
  });
  Hooks.on("updateActor", (actor, changed, options, userId) => {
    const before = options?.woundlogHP;
    if (!before || userId !== game.user.id) return;
    const part = tokenPart(env, actor);
    const changes = { hp: (part.actor.hp.value ?? 0) - before.value, temp: part.actor.hp.temp - before.temp };
    changes.total = changes.hp + changes.temp;
    if (changes.total === 0) return;
    bridge.emit({ hook: `dnd5e.${changes.total > 0 ? "heal" : "damage"}Actor`, ...part, changes });
  });
  Hooks.on("dnd5e.applyDamage", (actor, amount, options = {}) => {
    const applying = bridge.applying.get(actor.uuid);
    bridge.applying.delete(actor.uuid);
    const message = options.originatingMessage;
    const [roll] = message?.rolls ?? [];
    bridge.emit({
      hook: "dnd5e.applyDamage",
      ...tokenPart(env, actor),
      amount,
      ...(applying?.changes ? { changes: applying.changes } : {}),
      ...(speakerToken(message) ? { attacker: speakerToken(message) } : {}),
      ...(roll?.isCritical ? { critical: true } : {}),
      ...dicePart(env, roll),
    });
  });
  Hooks.on("dnd5e.rollDeathSave", (rolls, details) => {
    const actor = details.subject;
    const [roll] = rolls;
    if (!actor || !roll) return;
    if (roll.isCritical) bridge.revived.add(actor.uuid); // dnd5e then updates HP to 1
    bridge.emit({ hook: "dnd5e.rollDeathSave", ...tokenPart(env, actor), roll: rollOf(roll) });
  });
  // Fires on every client after the update: only the active GM's reports it.
  Hooks.on("combatTurnChange", (combat, prior, current) => {
    if (!game.user.isActiveGM) return;
    bridge.emit({
      hook: "combatTurnChange",
      combat: combat.id,
      prior: history(prior),
      current: history(current),
      turns: combat.turns
        .filter((c) => c.actor)
        .map((c) => ({ combatantId: c.id, ...tokenPart(env, c.actor, c.token) })),
    });
  });
  return bridge;
}

function history(data) {
  const { round = null, turn = null, combatantId = null, tokenId = null } = data ?? {};
  return { round, turn, combatantId, tokenId };
}

function registerSettings(env) {
  const register = (key, data) => env.game.settings.register(MODULE, key, { name: key, ...data });
  const world = { scope: "world", config: true, type: String };
  register("url", { ...world, default: "http://127.0.0.1:8000",
    hint: "The woundlog service, as the GM's browser reaches it." }); // prettier-ignore
  register("fight", { ...world, default: "", hint: "The woundlog fight's id." });
  register("hpPath", { ...world, default: "system.attributes.hp",
    hint: "Where an actor's hit points {value, max, temp} are (dnd5e: system.attributes.hp)." }); // prettier-ignore
  register("purpose", { ...world, default: "",
    hint: "The woundlog dice purpose a damage roll's dice are given for (d26: location); empty: none." }); // prettier-ignore
  register("statuses", { ...world, default: JSON.stringify(DEFAULT_STATUSES),
    hint: "woundlog states to status effect ids, as JSON." }); // prettier-ignore
  // The GM's write token is kept on the GM's own browser (client scope), never in a world
  // setting every player's client can read.
  register("token", { scope: "client", config: true, type: String, default: "",
    hint: "The fight's gm token (kept in this browser only)." }); // prettier-ignore
  // Not shown: where the stream was read to, and the envelopes not yet sent (a reload keeps them).
  register("seen", { scope: "client", config: false, type: Number, default: 0 });
  register("outbox", { scope: "client", config: false, type: Array, default: [] });
}

export class Bridge {
  constructor(env) {
    this.env = env;
    this.applying = new Map(); // actor uuid -> the HP change of an applyDamage under way
    this.revived = new Set(); // actor uuids whose death save was a natural 20
    this.outbox = [];
    this.sending = null;
    this.caused = new Map(); // token uuid -> status ids this module put on
    this.stopped = false;
    this.abort = null;
  }

  ready() {
    const { game } = this.env;
    game.socket.on(SOCKET, (message) => {
      if (message?.envelope && game.user.isActiveGM) this.queue(message.envelope);
    });
    if (!game.user.isActiveGM) return;
    for (const envelope of setting(this.env, "outbox") ?? []) this.outbox.push(envelope);
    this.pump();
    this.read();
  }

  // Every envelope gets its id when its hook fires; resends keep it.
  emit(body) {
    const envelope = { id: this.env.foundry.utils.randomID(16), ...body };
    if (this.env.game.user.isActiveGM) this.queue(envelope);
    else this.env.game.socket.emit(SOCKET, { envelope });
  }

  queue(envelope) {
    this.outbox.push(envelope);
    this.save();
    this.pump();
  }

  save() {
    return this.env.game.settings.set(MODULE, "outbox", [...this.outbox]);
  }

  headers() {
    return {
      Authorization: `Bearer ${setting(this.env, "token")}`,
      "Content-Type": "application/json",
    };
  }

  endpoint(path) {
    const base = String(setting(this.env, "url")).replace(/\/+$/, "");
    return `${base}/fights/${encodeURIComponent(setting(this.env, "fight"))}${path}`;
  }

  // One envelope at a time, in order: the next is not sent before the server has the one
  // before it, so the fight's log keeps Foundry's order.
  pump() {
    this.sending ??= this.drain().finally(() => {
      this.sending = null;
      // queued while the last drain was finishing: it had already looked at the outbox
      if (this.outbox.length && !this.stopped) this.pump();
    });
    return this.sending;
  }

  async drain() {
    let failures = 0;
    while (this.outbox.length && !this.stopped) {
      const envelope = this.outbox[0];
      let status;
      try {
        const response = await this.env.fetch(this.endpoint("/import/foundry"), {
          method: "POST",
          headers: this.headers(),
          body: JSON.stringify(envelope),
        });
        status = response.status;
        if (!response.ok && PERMANENT.has(status)) {
          const problem = await response.json().catch(() => ({}));
          await this.whisper(`woundlog refused ${envelope.hook} (${status}): ${problem.detail ?? ""}`);
        } else if (!response.ok) {
          throw new Error(`HTTP ${status}`);
        }
      } catch (error) {
        // No answer, or a server error: the server may have it or not; the same id again is
        // safe either way.
        const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
        await new Promise((resolve) => this.env.setTimeout(resolve, wait));
        continue;
      }
      failures = 0;
      this.outbox.shift();
      await this.save();
    }
  }

  // --- writing woundlog's answer back ------------------------------------------------------

  // The stream, read with fetch because a browser's EventSource cannot send the token.
  async read() {
    let failures = 0;
    while (!this.stopped) {
      this.abort = new AbortController();
      try {
        const from = Number(setting(this.env, "seen") ?? 0) + 1;
        const response = await this.env.fetch(this.endpoint(`/stream?from=${from}`), {
          headers: { Authorization: this.headers().Authorization, Accept: "text/event-stream" },
          signal: this.abort.signal,
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        failures = 0;
        for await (const message of sse(response.body)) {
          if (message.event === "changes") await this.answer(JSON.parse(message.data));
        }
      } catch (error) {
        if (this.stopped) return;
      }
      const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
      await new Promise((resolve) => this.env.setTimeout(resolve, wait));
    }
  }

  // One event's changes: its explanation to the GMs, each character's new state onto its token.
  async answer(changes) {
    const moved = [...(changes.characters ?? []), ...(changes.consequences ?? [])];
    let text = changes.void ? `void: ${changes.void}` : changes.explanation;
    // the importer's correction for HP that changed in Foundry unseen (a rest, a lost send)
    if (String(changes.event).endsWith(":drift")) text = `Foundry's HP differed from woundlog's, brought in line: ${text}`;
    await this.whisper(`#${changes.seq} ${changes.type}: ${text}`);
    for (const character of moved) {
      if (character.after !== undefined) await this.show(character.character, character.after);
    }
    await this.env.game.settings.set(MODULE, "seen", changes.seq);
  }

  async whisper(text) {
    const { ChatMessage } = this.env;
    const gms = ChatMessage.getWhisperRecipients("GM").map((user) => user.id);
    await ChatMessage.create({ content: escape(text), whisper: gms, speaker: { alias: "woundlog" } });
  }

  // The statuses of `state` on, and those this module put on for an earlier state off.
  async show(uuid, state) {
    const token = this.env.fromUuidSync(uuid);
    const actor = token?.actor;
    if (!actor) return; // a character woundlog knows that is no token here (joined by hand)
    const table = JSON.parse(setting(this.env, "statuses") || "{}");
    const wanted = new Set(table[state] ?? []);
    const caused = this.caused.get(uuid) ?? new Set(token.getFlag?.(MODULE, "caused") ?? []);
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
    await token.setFlag?.(MODULE, "caused", [...caused]);
  }

  stop() {
    this.stopped = true;
    this.abort?.abort();
  }
}

// Server-sent events from a fetch body: `event`, `data` and `id` fields, a blank line ends one.
export async function* sse(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  let message = {};
  const reader = body.getReader(); // not `for await`: Safari cannot iterate a stream
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
}

function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// In Foundry: start. In node, the tests call `woundlog(stand-ins)`.
if (globalThis.Hooks && globalThis.game) woundlog(globalThis);

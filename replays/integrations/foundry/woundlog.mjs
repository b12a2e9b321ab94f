// woundlog for Foundry VTT (v12, v13, v14): sends what happens to tokens in a fight to a woundlog
// fight, and writes woundlog's answer back onto the tokens.
//
// ES modules, no build step: this one (module.json `esmodules`) wires the hooks;
// reading.mjs reads Foundry's objects, damage.mjs pairs dnd5e's HP hooks with the updates
// that fire them, outbox.mjs sends, stream.mjs writes back, reach.mjs tells the GMs what
// keeps them from woundlog. Foundry
// loads it with its globals (`Hooks`, `game`, `foundry`, `ChatMessage`, `fromUuidSync`); the
// node tests load it inside a port of Foundry's and dnd5e's hook order and call
// `woundlog(their globals)` themselves, so nothing here reaches for a global directly.
//
// What it sends, as envelopes woundlog's `foundry` importer reads (events/importers/foundry.py
// says what each becomes):
// - `dnd5e.applyDamage`: the whole damage dealt, which dnd5e does not keep past 0 HP, with
//   the HP change of its update, read from the update `dnd5e.preApplyDamage` was given (the
//   same `options` object reaches both hooks). The `dnd5e.damageActor`/`healActor` that
//   update fires is not sent: dnd5e 4.0 and later fire it only after awaiting the Bloodied
//   effect, after `applyDamage` (see damage.mjs);
// - `dnd5e.damageActor` / `dnd5e.healActor`: any other HP change (the sheet, the token HUD);
//   in another system, every HP change at the `hpPath` setting, in the same envelope;
// - a death save (`dnd5e.rollDeathSave` in either of its signatures, `rollDeathSaveV2`), with
//   its total and target, as the dnd5e ruleset's `check`;
// - `combatTurnChange`: the combat's place after the change, with its turn order;
// - `maximum`: a maximum moved with no HP hook (an effect like Aid, the sheet): maximum.mjs.
// Every envelope carries dnd5e's PREPARED HP and maximum (effects applied), never an update's.
// Hooks fire in the client that made the change (a player's, for a death save they roll):
// that client builds the envelope and, unless it is the active GM's, hands it over the
// module's socket. Only the active GM's client sends, so a hit is sent once however many GMs
// are connected, and when the active GM changes (one leaves, another joins) the sending and
// the stream reading move with it.
//
// Where the envelopes not yet sent are kept: in a flag of each user's own User document
// (`flags.woundlog.outbox`), which Foundry keeps in the world's database and shows every
// client, so when a GM closes the tab with blows unsent, the GM who becomes the active one
// finds them there, sends them and empties the flag. Not a world setting: an Assistant GM may
// not write world settings (Foundry's `USER_ROLES.ASSISTANT`: no "modifying World-level
// settings"), and every GM's client writing one shared value would overwrite the others'; a
// user writes only its own document, and the active GM empties a departed user's. The same
// envelopes are also kept in the browser (the client setting `outbox`), read only when the
// user has no flag yet (a world that ran an older version of this module). A resend is safe:
// woundlog knows an envelope by its id.

import { Damage } from "./damage.mjs";
import { followMaximum } from "./maximum.mjs";
import { Outbox } from "./outbox.mjs";
import { Reach } from "./reach.mjs";
import { changeOf, dicePart, hpOf, isActiveGM, MODULE, rollOf, setting, speakerOf, tokenPart } from "./reading.mjs";
import { DEFAULT_STATUSES, Reader } from "./stream.mjs";

export { MODULE, rollOf } from "./reading.mjs";
export { DEFAULT_STATUSES, sse } from "./stream.mjs";

const SOCKET = `module.${MODULE}`;

export function woundlog(env) {
  const { Hooks, game } = env;
  const bridge = new Bridge(env);
  Hooks.once("init", () => registerSettings(env, bridge));
  Hooks.once("ready", () => bridge.ready());
  // Fires on every client when a user connects or leaves (client `Users#_handleUserActivity`),
  // after `user.active` changed: the active GM may be another now, and a user who left may
  // have left envelopes in its flag.
  Hooks.on("userConnected", () => bridge.role());
  // A departed user's last flag update can land after its `userConnected`: taken then.
  Hooks.on("updateUser", (user) => {
    if (bridge.active && !user?.active) bridge.sweep();
  });

  // dnd5e's `Actor5e#applyDamage` (3.0 to 5.3): `preApplyDamage(actor, amount, updates,
  // options)`, `await this.update(updates)`, `applyDamage(actor, amount, options)`.
  Hooks.on("dnd5e.preApplyDamage", (actor, amount, updates, options) => {
    if (actor?.uuid && updates && options) bridge.damage.expect(actor, updates, { options });
  });
  Hooks.on("dnd5e.applyDamage", (actor, amount, options = {}) => {
    const made = bridge.damage.applied(actor, options);
    const message = options.originatingMessage;
    const [roll] = message?.rolls ?? [];
    const attacker = speakerOf(env, message);
    bridge.emit({
      hook: "dnd5e.applyDamage",
      ...tokenPart(actor, made?.after ?? hpOf(env, actor)),
      amount,
      ...(made ? { changes: made.changes } : {}),
      ...(attacker ? { attacker } : {}),
      ...(roll?.isCritical ? { critical: true } : {}),
      ...dicePart(env, roll),
    });
  });
  for (const name of ["dnd5e.damageActor", "dnd5e.healActor"]) {
    Hooks.on(name, (actor, changes, update, userId) => {
      if (userId !== game.user.id) return; // the client that made the change reports it
      if (bridge.damage.hooked(actor, update)) return; // said by applyDamage or the death save
      bridge.emit({ hook: name, ...tokenPart(actor, hpOf(env, actor)), changes: { ...changes } });
    });
  }
  followMaximum(env, bridge);
  // Other systems fire no dnd5e hook: Foundry's own update hooks, at the `hpPath` setting,
  // give the same change (the HP before is kept in the update's options, which Foundry hands
  // from preUpdateActor to updateActor).
  Hooks.on("preUpdateActor", (actor, changed, options, userId) => {
    if (env.game.system?.id === "dnd5e" || userId !== game.user.id) return;
    if (env.foundry.utils.getProperty(changed, setting(env, "hpPath")) === undefined) return;
    options.woundlogHP = hpOf(env, actor);
  });
  Hooks.on("updateActor", (actor, changed, options, userId) => {
    const before = options?.woundlogHP;
    if (!before || userId !== game.user.id) return;
    const hp = hpOf(env, actor);
    const changes = changeOf(before, hp);
    if (changes.total === 0) return;
    bridge.emit({ hook: `dnd5e.${changes.total > 0 ? "heal" : "damage"}Actor`, ...tokenPart(actor, hp), changes });
  });
  // A death save, in the signature of each dnd5e release: 3.x `rollDeathSave(actor, roll,
  // details)` (3.3.1 actor.mjs); 4.1 to 4.4 `rollDeathSaveV2(rolls, details)`, and the old
  // `rollDeathSave(actor, rolls[0], details)` still, deprecated, when something listens
  // (4.4.4); 5.x `rollDeathSave(rolls, details)` then `rollDeathSaveV2(rolls, details)`
  // (5.3.3). One save reaches two of them: it is known by its roll.
  Hooks.on("dnd5e.rollDeathSave", (...args) => bridge.deathSave(args));
  Hooks.on("dnd5e.rollDeathSaveV2", (...args) => bridge.deathSave(args));
  // `combatTurnChange` fires on every client after the update; on the active GM's only after
  // awaiting the turn events (v13 client `Combat#_manageTurnEvents`), by when a second update
  // may have overwritten its `prior`: `#recordPreviousState` assigns into the one `previous`
  // object, while `current` is a new object each update. So the prior of each `current` is
  // taken when it is made: at `updateCombat` (fired right after `_onUpdate`, before those
  // awaits), and at a combatant's creation, update or deletion (their turn change,
  // `#onModifyCombatants`: deleting the current combatant hands its turn to the next). The
  // importer also takes each move from where the last one left the combat.
  const priors = new WeakMap(); // a combat's `current` -> the `previous` it was made from
  const keep = (combat) => {
    if (combat?.current && combat.previous) priors.set(combat.current, history(combat.previous));
  };
  Hooks.on("updateCombat", (combat) => keep(combat));
  for (const name of ["createCombatant", "updateCombatant", "deleteCombatant"]) {
    Hooks.on(name, (combatant) => keep(combatant?.parent));
  }
  Hooks.on("combatTurnChange", (combat, prior, current) => {
    if (!isActiveGM(game)) return;
    bridge.emit({
      hook: "combatTurnChange",
      combat: combat.id,
      prior: priors.get(current) ?? history(prior),
      current: history(current),
      turns: combat.turns
        .filter((c) => c.actor)
        .map((c) => ({ combatantId: c.id, ...tokenPart(c.actor, hpOf(env, c.actor)) })),
    });
  });
  return bridge;
}

function history(data) {
  const { round = null, turn = null, combatantId = null, tokenId = null } = data ?? {};
  return { round, turn, combatantId, tokenId };
}

function registerSettings(env, bridge) {
  const register = (key, data) => env.game.settings.register(MODULE, key, { name: key, ...data });
  const again = () => bridge.settingsChanged();
  const world = { scope: "world", config: true, type: String };
  register("url", { ...world, default: "http://127.0.0.1:8000", onChange: again,
    hint: "The woundlog service, as the GM's browser reaches it." }); // prettier-ignore
  register("fight", { ...world, default: "", onChange: again, hint: "The woundlog fight's id." });
  register("hpPath", { ...world, default: "system.attributes.hp",
    hint: "Where an actor's hit points {value, max, temp} are (dnd5e: system.attributes.hp)." }); // prettier-ignore
  register("purpose", { ...world, default: "",
    hint: "The woundlog dice purpose a damage roll's dice are given for (d26: location); empty: none." }); // prettier-ignore
  register("statuses", { ...world, default: JSON.stringify(DEFAULT_STATUSES),
    hint: "woundlog states to status effect ids, as JSON." }); // prettier-ignore
  // The GM's write token is kept on the GM's own browser (client scope), never in a world
  // setting every player's client can read.
  register("token", { scope: "client", config: true, type: String, default: "", onChange: again,
    hint: "The fight's gm token (kept in this browser only)." }); // prettier-ignore
  // Not shown: where each fight's stream was read to, and this browser's copy of the
  // envelopes not yet sent (the shared copy is the user's flag: see the top of this file).
  register("seen", { scope: "client", config: false, type: Object, default: {} });
  register("outbox", { scope: "client", config: false, type: Array, default: [] });
}

// --- the envelopes kept where any GM's client finds them (a user's flag) ---------------------

// The envelopes this user keeps: its flag, or, before it has one, this browser's copy.
function keptOf(env) {
  const flagged = env.game.user?.getFlag?.(MODULE, "outbox");
  return Array.isArray(flagged) ? flagged : (setting(env, "outbox") ?? []);
}

// Every user known to this client (`game.users` is a Collection: iterable, its values).
function usersOf(game) {
  return game.users?.contents ?? [...(game.users ?? [])];
}

export class Bridge {
  constructor(env) {
    this.env = env;
    this.damage = new Damage(env);
    this.whisper = (text) => whisper(env, text);
    this.reach = new Reach(env, this.whisper, () => this.outbox.envelopes.length);
    this.outbox = new Outbox(env, this.whisper, { keep: () => this.keep(), reach: this.reach });
    this.reader = new Reader(env, this.whisper, this.reach);
    this.active = false;
    this.waiting = []; // envelopes handed to the active GM (or none yet) that it has not said it has
    this.saves = new WeakSet(); // death save rolls already sent
  }

  // What this client holds unsent (its outbox, or what waits for the active GM), kept in this
  // user's flag and in this browser. Each write replaces the whole list: Foundry applies one
  // user's updates in the order they were made.
  keep() {
    const held = [...this.outbox.envelopes];
    const ids = new Set(held.map((e) => e.id));
    held.push(...this.waiting.filter((e) => !ids.has(e.id)));
    const { game } = this.env;
    const writes = [game.settings.set(MODULE, "outbox", held)];
    if (game.user?.setFlag) writes.push(game.user.setFlag(MODULE, "outbox", held).catch(() => {}));
    return Promise.all(writes);
  }

  // The active GM takes the envelopes users who left kept in their flags (a GM who closed the
  // tab mid-fight, a player who rolled a death save with no GM there), sends them, and empties
  // those flags, so nobody sends them again. Emptied, not unset: an empty list needs no
  // deletion key (`-=`, which Foundry v14 deprecates for its `_del` operator: dnd5e 5.3.3
  // module/documents/item.mjs `deleteActivity` writes either by release).
  sweep() {
    if (!this.active) return;
    const { game } = this.env;
    for (const user of usersOf(game)) {
      if (user.active || user.id === game.user.id) continue;
      const left = user.getFlag?.(MODULE, "outbox");
      if (!Array.isArray(left) || left.length === 0) continue;
      for (const envelope of left) this.outbox.add(envelope);
      // a full GM may write any user; refused (an Assistant GM and a GM's document), the
      // envelopes are sent anyway and the next sweep finds them again: a resend is safe
      user.setFlag(MODULE, "outbox", []).catch(() => {});
    }
  }

  // The socket carries envelopes to the active GM, which answers with the ids it has; a
  // client keeps what it handed over until then. A browser's socket handler exists only once
  // its module is ready, after the `userConnected` the others heard when it connected, so a
  // new active GM also asks (`want`) for what the others still keep.
  ready() {
    const { game } = this.env;
    // what this user kept when its last page closed: sent if it is the active GM, else
    // handed to the one who is
    this.waiting.push(...keptOf(this.env));
    game.socket.on(SOCKET, (message) => {
      if (message?.have) {
        const had = new Set(message.have);
        const before = this.waiting.length;
        this.waiting = this.waiting.filter((e) => !had.has(e.id));
        if (this.waiting.length !== before) this.keep();
      } else if (message?.want) {
        if (!isActiveGM(game) && this.waiting.length) game.socket.emit(SOCKET, { envelopes: this.waiting });
      } else if (isActiveGM(game)) {
        const envelopes = message?.envelopes ?? (message?.envelope ? [message.envelope] : []);
        for (const envelope of envelopes) this.outbox.add(envelope);
        if (envelopes.length) game.socket.emit(SOCKET, { have: envelopes.map((e) => e.id) });
      }
    });
    this.role();
  }

  // Send and read if this client is the active GM, else stop and hand what is left over.
  role() {
    const { game } = this.env;
    const active = isActiveGM(game);
    if (active && !this.active) {
      this.active = true;
      for (const envelope of this.waiting.splice(0)) this.outbox.add(envelope);
      this.outbox.start();
      this.reader.start();
      game.socket.emit(SOCKET, { want: true });
    } else if (!active && this.active) {
      this.active = false;
      this.reader.stop();
      this.waiting.push(...this.outbox.stop());
      // kept in this user's flag: if this page closes before the next GM has them, that GM
      // takes them from there
      this.keep();
    }
    this.sweep();
    if (!active && this.waiting.length && game.users?.activeGM) {
      game.socket.emit(SOCKET, { envelopes: this.waiting });
    }
  }

  settingsChanged() {
    if (!this.active) return;
    this.outbox.retry();
    this.reader.restart();
  }

  // Every envelope gets its id when its hook fires; resends keep it.
  emit(body) {
    const { game } = this.env;
    const envelope = { id: this.env.foundry.utils.randomID(16), ...body };
    if (isActiveGM(game)) return this.outbox.add(envelope);
    this.waiting.push(envelope); // until the active GM says it has it
    this.keep();
    if (game.users?.activeGM) game.socket.emit(SOCKET, { envelopes: [envelope] });
  }

  deathSave(args) {
    const modern = Array.isArray(args[0]); // (rolls, details) rather than (actor, roll, details)
    const roll = modern ? args[0][0] : args[1];
    const details = modern ? args[1] : args[2];
    const actor = modern ? details?.subject : args[0];
    if (!actor || !roll || this.saves.has(roll)) return;
    this.saves.add(roll);
    // A natural 20 updates HP to 1 (`details.updates`): its healActor is this save's.
    const updates = details?.updates ?? {};
    if (updates[`${setting(this.env, "hpPath")}.value`] !== undefined) {
      this.damage.expect(actor, updates, { applied: true });
    }
    this.emit({ hook: "dnd5e.rollDeathSave", ...tokenPart(actor, hpOf(this.env, actor)), roll: rollOf(roll) });
  }

  idle() {
    return this.outbox.idle() && this.waiting.length === 0;
  }

  stop() {
    this.active = false;
    this.reader.stop();
    this.outbox.stop();
  }
}

async function whisper(env, text) {
  const { ChatMessage } = env;
  const gms = ChatMessage.getWhisperRecipients("GM").map((user) => user.id);
  await ChatMessage.create({ content: escape(text), whisper: gms, speaker: { alias: "woundlog" } });
}

function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// In Foundry: start. In node, the tests call `woundlog(stand-ins)`.
if (globalThis.Hooks && globalThis.game) woundlog(globalThis);

// A minimal stand-in for the parts of Foundry VTT the woundlog module touches: `Hooks`,
// `game` (user, settings, socket, combat), `foundry.utils`, `ChatMessage`, `fromUuidSync`,
// tokens and actors. And a table that plays dnd5e 5.3.3's hook sequences on them, in the
// order and shapes dnd5e and Foundry call them (see tests/data/importers/foundry_fixtures.py
// for the source each follows).

export const SCENE = "sceneMain0000001";

export class HookBus {
  constructor() {
    this.handlers = new Map();
  }
  on(name, fn) {
    if (!this.handlers.has(name)) this.handlers.set(name, []);
    this.handlers.get(name).push(fn);
  }
  once(name, fn) {
    const wrapped = (...args) => {
      this.handlers.set(name, this.handlers.get(name).filter((f) => f !== wrapped));
      return fn(...args);
    };
    this.on(name, wrapped);
  }
  // `Hooks.call` stops at a handler returning false; `callAll` does not.
  call(name, ...args) {
    for (const fn of [...(this.handlers.get(name) ?? [])]) if (fn(...args) === false) return false;
    return true;
  }
  callAll(name, ...args) {
    for (const fn of [...(this.handlers.get(name) ?? [])]) fn(...args);
    return true;
  }
}

// The socket: what one client emits, every other client receives (Foundry does not echo).
export class SocketBus {
  constructor() {
    this.clients = [];
  }
  join(client) {
    const handlers = [];
    this.clients.push(handlers);
    return {
      on: (name, fn) => handlers.push([name, fn]),
      emit: (name, data) => {
        for (const other of this.clients) {
          if (other === handlers) continue;
          for (const [n, fn] of other) if (n === name) setTimeout(() => fn(structuredClone(data)));
        }
      },
    };
  }
}

let counter = 0;

function getProperty(object, path) {
  return path.split(".").reduce((o, key) => o?.[key], object);
}

// An actor with dnd5e's HP, and its token. `linked`: the world's actor (a player character),
// which knows no token; else the synthetic actor of an unlinked token, whose `id` is its base
// actor's.
export function makeToken(world, { tokenId, name, actorId, actorName, type, hp, player, linked }) {
  const token = {
    id: tokenId,
    uuid: `Scene.${SCENE}.Token.${tokenId}`,
    name,
    flags: {},
    getFlag(scope, key) {
      return this.flags[scope]?.[key];
    },
    async setFlag(scope, key, value) {
      (this.flags[scope] ??= {})[key] = value;
    },
  };
  const actor = {
    id: actorId,
    uuid: linked ? `Actor.${actorId}` : `${token.uuid}.Actor.${actorId}`,
    name: actorName,
    type,
    hasPlayerOwner: player,
    system: { attributes: { hp: { value: hp, max: hp, temp: 0 } } },
    statuses: new Set(),
    token: linked ? null : token, // a linked actor is the world's, not its token's
    toggled: [],
    async toggleStatusEffect(status, { active }) {
      this.toggled.push([status, active]);
      if (active) this.statuses.add(status);
      else this.statuses.delete(status);
    },
  };
  token.actor = actor;
  world.tokens.set(token.uuid, token);
  return token;
}

// One connected client (a browser) of the same world.
export function client(world, { userId, isGM, isActiveGM, settings, fetch, system = "dnd5e" }) {
  const values = new Map(Object.entries(settings ?? {}));
  const defaults = new Map();
  const chat = [];
  const env = {
    Hooks: new HookBus(),
    game: {
      user: { id: userId, isGM, isActiveGM },
      system: { id: system },
      settings: {
        register: (module, key, data) => defaults.set(key, data),
        get: (module, key) => (values.has(key) ? values.get(key) : defaults.get(key)?.default),
        set: async (module, key, value) => void values.set(key, structuredClone(value)),
      },
      socket: world.socket.join(userId),
      get combat() {
        return world.combat;
      },
    },
    foundry: {
      utils: { randomID: () => `rnd${userId}${String(++counter).padStart(8, "0")}`, getProperty },
    },
    ChatMessage: {
      getWhisperRecipients: (who) => (who === "GM" ? [{ id: "gm" }] : []),
      create: async (data) => void chat.push(data),
    },
    CONFIG: { specialStatusEffects: { DEFEATED: "dead" } },
    fromUuidSync: (uuid) => world.tokens.get(uuid),
    fetch: fetch ?? globalThis.fetch,
    setTimeout: (fn, ms) => setTimeout(fn, ms),
  };
  return { env, chat, values, defaults };
}

export function world() {
  return { tokens: new Map(), socket: new SocketBus(), combat: null, clients: [] };
}

// dnd5e's own sequences, played on every client as Foundry would.
export class Table {
  constructor(worldState) {
    this.world = worldState;
  }

  // `Actor5e#applyDamage` on the client of `by` (the user applying it): preApplyDamage there,
  // the update (onUpdateHP's damageActor/healActor on every client, with that user's id),
  // then applyDamage there.
  applyDamage(on, actor, amount, options) {
    const hp = actor.system.attributes.hp;
    const deltaTemp = amount > 0 ? Math.min(hp.temp, amount) : 0;
    const deltaHP = Math.max(Math.min(amount - deltaTemp, hp.value), -(hp.max - hp.value));
    if (on.env.Hooks.call("dnd5e.preApplyDamage", actor, amount, {}, options) === false) return;
    this.updateHP(on, actor, hp.value - deltaHP, hp.temp - deltaTemp);
    on.env.Hooks.callAll("dnd5e.applyDamage", actor, amount, options);
  }

  // `onUpdateHP`: changes are new minus old; no hook when nothing changed.
  updateHP(on, actor, value, temp = actor.system.attributes.hp.temp) {
    const hp = actor.system.attributes.hp;
    const changes = { hp: value - hp.value, temp: temp - hp.temp };
    changes.total = changes.hp + changes.temp;
    hp.value = value;
    hp.temp = temp;
    if (changes.total === 0) return;
    const name = `dnd5e.${changes.total > 0 ? "heal" : "damage"}Actor`;
    for (const c of this.world.clients) c.env.Hooks.callAll(name, actor, changes, {}, on.env.game.user.id);
  }

  // `Actor5e#rollDeathSave` on the roller's client; a natural 20 updates HP to 1.
  rollDeathSave(on, actor, roll) {
    if (on.env.Hooks.call("dnd5e.rollDeathSave", [roll], { subject: actor }) === false) return;
    if (roll.isCritical) this.updateHP(on, actor, 1);
  }

  // `combatTurnChange(combat, prior, current)` on every client after the update.
  turn(round, turn) {
    const combat = this.world.combat;
    const history = (r, t) => ({
      round: r,
      turn: t,
      combatantId: t === null ? null : combat.turns[t].id,
      tokenId: t === null ? null : combat.turns[t].tokenId,
    });
    const prior = history(combat.round, combat.turn);
    combat.round = round;
    combat.turn = turn;
    const current = history(round, turn);
    for (const c of this.world.clients) c.env.Hooks.callAll("combatTurnChange", combat, prior, current);
  }
}

export function combat(id, tokens) {
  const turns = tokens.map((token, i) => ({
    id: token.combatantId,
    tokenId: token.id,
    token,
    actor: token.actor,
    actorId: token.actor.id,
  }));
  return { id, round: 0, turn: null, turns, combatants: turns };
}

// `Actor#update` of one value in another system: preUpdateActor on the updating client,
// updateActor on every client, with the same options.
export function updateActor(worldState, on, actor, path, value) {
  const changed = {};
  path.split(".").reduce((o, key, i, keys) => (o[key] = i === keys.length - 1 ? value : {}), changed);
  const options = {};
  on.env.Hooks.callAll("preUpdateActor", actor, changed, options, on.env.game.user.id);
  path.split(".").reduce((o, key, i, keys) => (i === keys.length - 1 ? (o[key] = value) : o[key]), actor);
  for (const c of worldState.clients) c.env.Hooks.callAll("updateActor", actor, changed, structuredClone(options), on.env.game.user.id);
}

// A Roll as `Roll#dice` shows it.
export function roll(formula, total, dice, isCritical = false) {
  return { formula, total, isCritical, dice };
}

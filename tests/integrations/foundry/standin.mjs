// A port, in our own words, of the parts of Foundry VTT (v12, v13) and dnd5e (3.3.1, 4.4.4,
// 5.3.3) the woundlog module meets: their hook order and timing, their awaits, their user
// objects. Each behaviour cites where it is from. dnd5e is read from foundryvtt/dnd5e at the
// tags named; Foundry's client code from the copies of it found with the search tool:
// - v13 client/documents/combat.mjs (`Combat`), a vendored copy of Foundry's own file;
// - v13 client/documents/user.mjs (`get isActiveGM() { return this === game.users.activeGM }`);
// - v12 User as League-of-Foundry-Developers/foundry-vtt-types types it
//   (src/foundry/client/data/documents/user.d.mts: `isTrusted`, `isSelf`, no `isActiveGM`);
// - client collections/users.js (`Users#activeGM`, `Users._handleUserActivity`).
// What is not Foundry's here is said so: one shared copy of each document stands for every
// client's copy (each client's copy sees the same updates in the same order), and the
// server's answer is a timer (`latency`), which is what makes an `await` of a round trip
// come after the microtasks that continue an awaited update.

export const SCENE = "sceneMain0000001";
const LATENCY_MS = 5;
const BLOODIED = "dnd5ebloodied0000"; // dnd5e `ActiveEffect5e.ID.BLOODIED` (staticID("dnd5ebloodied"))
const BLOODIED_THRESHOLD = 0.5; // dnd5e config.mjs `DND5E.bloodied.threshold` (4.4.4, 5.3.3)
const HP = "system.attributes.hp";

const later = (ms = LATENCY_MS) => new Promise((resolve) => setTimeout(resolve, ms));

export function getProperty(object, path) {
  return path.split(".").reduce((o, key) => o?.[key], object);
}

function expand(flat) {
  const out = {};
  for (const [path, value] of Object.entries(flat)) {
    const keys = path.split(".");
    let o = out;
    keys.slice(0, -1).forEach((key) => (o = o[key] ??= {}));
    o[keys.at(-1)] = value;
  }
  return out;
}

// Foundry's `Hooks`: `call` stops at a handler returning false, `callAll` does not;
// `Hooks.events` lists the hooks something listens to (dnd5e 4.4.4 tests it).
export class HookBus {
  constructor() {
    this.events = {};
  }
  on(name, fn) {
    (this.events[name] ??= []).push(fn);
  }
  once(name, fn) {
    const wrapped = (...args) => {
      this.events[name] = this.events[name].filter((f) => f !== wrapped);
      return fn(...args);
    };
    this.on(name, wrapped);
  }
  // A handler that throws is reported and the others still run (client helpers/hooks.mjs
  // `Hooks.#call`: the call is wrapped, the error handed to `Hooks.onError`).
  run(name, fn, args) {
    try {
      return fn(...args);
    } catch (error) {
      (this.errors ??= []).push([name, error]);
      return undefined;
    }
  }
  call(name, ...args) {
    for (const fn of [...(this.events[name] ?? [])]) if (this.run(name, fn, args) === false) return false;
    return true;
  }
  callAll(name, ...args) {
    for (const fn of [...(this.events[name] ?? [])]) this.run(name, fn, args);
    return true;
  }
}

// The socket: what one client emits, every other connected client receives (no echo).
class SocketBus {
  constructor(world) {
    this.world = world;
    this.handlers = new Map(); // userId -> [[name, fn]]
  }
  join(userId) {
    const handlers = [];
    this.handlers.set(userId, handlers);
    return {
      on: (name, fn) => handlers.push([name, fn]),
      emit: (name, data) => {
        for (const [other, list] of this.handlers) {
          if (other === userId || !this.world.user(other)?.active) continue;
          for (const [n, fn] of list) if (n === name) setTimeout(() => fn(structuredClone(data)), LATENCY_MS);
        }
      },
    };
  }
}

// A user as one client sees it. v13's User has `isActiveGM`; v12's has not.
function userView(world, user, client) {
  const view = {
    get id() {
      return user.id;
    },
    get isGM() {
      return user.isGM;
    },
    get active() {
      return user.active;
    },
    get role() {
      return user.role;
    },
    get isSelf() {
      return client.userId === user.id; // `User#isSelf`: game.userId === this.id
    },
  };
  if (world.foundry >= 13) {
    Object.defineProperty(view, "isActiveGM", { get: () => client.env.game.users.activeGM?.id === user.id });
  }
  return Object.assign(view, userFlags(world, user, client));
}

// --- Foundry's users: their flags, written by a round trip -----------------------------------
// The module keeps its envelopes in a flag of each user's own User document, which every
// client sees. Client `ClientDocumentMixin#setFlag(scope, key, value)` is
// `this.update({flags: {[scope]: {[key]: value}}})` (v12, v13, v14): the server's round trip,
// then the change on every connected client's copy and `updateUser` there. An update once
// sent reaches the server even if its page closes right after (the socket has sent it).
// Which users may update whom is the server's (`BaseUser`); here every GM may update any user
// and a player itself, which is all the module asks of it.

// The values of `game.users` (a Collection: a Map of the world's users, iterable).
function usersCollection(world, c) {
  return {
    get contents() {
      return world.users.map((u) => c.view(u));
    },
    filter: (test) => world.users.map((u) => c.view(u)).filter(test),
    find: (test) => world.users.map((u) => c.view(u)).find(test),
    [Symbol.iterator]: () => world.users.map((u) => c.view(u))[Symbol.iterator](),
  };
}

function userFlags(world, user, client) {
  return {
    get flags() {
      return structuredClone(user.flags ?? {});
    },
    getFlag: (scope, key) => structuredClone(user.flags?.[scope]?.[key]),
    setFlag: (scope, key, value) => updateUser(world, user, { [scope]: { [key]: value } }, client),
    unsetFlag: (scope, key) => updateUser(world, user, { [scope]: { [`-=${key}`]: null } }, client),
  };
}

// v14 deprecates the `-=` deletion keys of an update for its `_del` operator (dnd5e 5.3.3
// module/documents/item.mjs `deleteActivity`: `system.activities.-=id` before 14, `_del` on
// 14); a `-=` key on v14 is noted in `world.deprecations`, the warning Foundry logs.
async function updateUser(world, user, flags, by) {
  const sent = structuredClone(flags);
  await later();
  for (const [scope, values] of Object.entries(sent)) {
    const kept = ((user.flags ??= {})[scope] ??= {});
    for (const [key, value] of Object.entries(values)) {
      if (key.startsWith("-=")) {
        if (world.foundry >= 14) (world.deprecations ??= []).push(`flags.${scope}.${key}`);
        delete kept[key.slice(2)];
      } else kept[key] = value;
    }
  }
  for (const c of world.live()) c.env.Hooks.callAll("updateUser", c.view(user), { flags: sent }, {}, by.userId);
  return by.view(user);
}

// --- the browser's fetch, with its CORS checks -------------------------------------------------
// The module runs in a page at Foundry's origin; woundlog is another origin, so the browser
// runs the Fetch Standard's CORS protocol (fetch.spec.whatwg.org, "CORS protocol", "CORS-
// preflight fetch", "CORS check"), which node's fetch does not: a request that is not simple
// (a method other than GET/HEAD/POST, or a header outside the CORS-safelisted ones: the module
// sends `Authorization` and `Content-Type: application/json`) is preceded by an OPTIONS
// preflight carrying `Origin`, `Access-Control-Request-Method` and `Access-Control-Request-
// Headers`; the preflight and then the answer must name the origin (or `*`) in `Access-Control-
// Allow-Origin`, the preflight the method and every header; else the fetch fails as a network
// error, a TypeError ("Failed to fetch", Chromium's words), with nothing said of why. A `no-cors`
// request is sent as is (simple ones only) and resolves to an opaque answer (status 0).

export const FOUNDRY_ORIGIN = "http://localhost:30000"; // Foundry's default port (options.json `port`)
const SAFELISTED = new Set(["accept", "accept-language", "content-language", "content-type", "range"]);
const SIMPLE_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]);

function failed() {
  return new TypeError("Failed to fetch");
}

function allows(response, origin) {
  const allowed = response.headers.get("access-control-allow-origin");
  return allowed === "*" || allowed === origin;
}

export function browserFetch(origin, fetch = globalThis.fetch) {
  return async (url, init = {}) => {
    const method = (init.method ?? "GET").toUpperCase();
    const headers = new Headers(init.headers ?? {});
    if (new URL(url).origin === origin) return fetch(url, init);
    if (init.mode === "no-cors") {
      if (!["GET", "HEAD", "POST"].includes(method)) throw failed();
      try {
        await fetch(url, { method, headers: { Origin: origin }, signal: init.signal }).then((r) => r.body?.cancel());
      } catch {
        throw failed();
      }
      return { type: "opaque", status: 0, ok: false, headers: new Headers(), body: null };
    }
    const unsafe = [...headers.keys()].filter((name) => {
      if (!SAFELISTED.has(name)) return true;
      return name === "content-type" && !SIMPLE_TYPES.has(headers.get(name).split(";")[0].trim().toLowerCase());
    });
    try {
      if (unsafe.length || !["GET", "HEAD", "POST"].includes(method)) {
        const preflight = await fetch(url, {
          method: "OPTIONS",
          headers: {
            Origin: origin,
            "Access-Control-Request-Method": method,
            ...(unsafe.length ? { "Access-Control-Request-Headers": unsafe.sort().join(",") } : {}),
          },
        });
        await preflight.body?.cancel();
        if (!preflight.ok || !allows(preflight, origin)) throw failed();
        const methods = (preflight.headers.get("access-control-allow-methods") ?? "").toUpperCase().split(/\s*,\s*/);
        const names = (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/\s*,\s*/);
        if (!["GET", "HEAD", "POST"].includes(method) && !methods.includes(method) && !methods.includes("*")) throw failed();
        if (unsafe.some((name) => !names.includes(name) && !(names.includes("*") && name !== "authorization"))) throw failed();
      }
      headers.set("Origin", origin);
      const response = await fetch(url, { ...init, headers });
      if (!allows(response, origin)) {
        await response.body?.cancel();
        throw failed();
      }
      return response;
    } catch (error) {
      if (error?.name === "AbortError") throw error;
      throw error instanceof TypeError && error.message === "Failed to fetch" ? error : failed();
    }
  };
}

// --- the releases the stand-in ports, and what each dnd5e release says it runs on ----------------
// Foundry's generations this port covers (v12: User without `isActiveGM`, Combat's `previous`
// replaced; v13 and v14: `isActiveGM`, `previous` assigned into; v14: `-=` keys deprecated).
// What v14 keeps that the module uses: `game.users.activeGM` (dnd5e 5.3.3, verified on 14,
// compares it with `game.user`: module/data/chat-message/request-message-data.mjs), a User's
// `flags` and a ChatMessage's `whisper` list (Foundry's v14 API documentation, UserData and
// ChatMessageData), `updateUser`/`userConnected`, and dnd5e's own hooks, which dnd5e 5.3.3
// fires alike on 13 and 14 (its `game.release.generation` branches are all in sheets, canvas,
// regions, effects' phases and migrations, none in `applyDamage` or `rollDeathSave`). And the
// dnd5e releases, each with the `compatibility` of its system.json at its tag (foundryvtt/dnd5e
// release-3.3.1, release-4.4.4, release-5.3.3): the Foundry release each is verified on is the
// one a table runs it on.
export const FOUNDRY_RELEASES = [12, 13, 14];
export const DND5E_RELEASES = {
  "3.3.1": { minimum: "11.315", verified: "12" },
  "4.4.4": { minimum: "12.331", verified: "13" },
  "5.3.3": { minimum: "13.347", verified: "14" },
};

let counter = 0;

// The world's documents and its connected clients.
export class World {
  constructor({ foundry = 13, dnd5e = "5.3.3", bloodied = "player" } = {}) {
    this.foundry = foundry;
    this.dnd5e = dnd5e;
    this.bloodied = bloodied; // dnd5e setting "bloodied", default "player" (4.4.4, 5.3.3)
    this.users = [];
    this.clients = [];
    this.documents = new Map(); // uuid -> token or world actor
    this.socket = new SocketBus(this);
    this.combat = null;
  }

  user(id) {
    return this.users.find((u) => u.id === id);
  }

  // `Users#activeGM`: the active GMs, highest role first, then the lowest id.
  activeGM() {
    const gms = this.users.filter((u) => u.active && u.isGM);
    gms.sort((a, b) => b.role - a.role || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return gms[0] ?? null;
  }

  // A browser connecting: its user becomes active; every other client hears `userConnected`
  // (`Users._handleUserActivity`: `user.active` set, then the hook; not on the user's own).
  connect(options) {
    const c = client(this, options);
    this.clients.push(c);
    const user = this.user(c.userId);
    user.active = true;
    for (const other of this.clients) {
      if (other !== c && other.connected) other.env.Hooks.callAll("userConnected", other.view(user), true);
    }
    c.connected = true;
    return c;
  }

  disconnect(c) {
    c.connected = false;
    const user = this.user(c.userId);
    user.active = false;
    for (const other of this.clients) {
      if (other !== c && other.connected) other.env.Hooks.callAll("userConnected", other.view(user), false);
    }
  }

  // The clients that get a document's update: the connected ones.
  live() {
    return this.clients.filter((c) => c.connected);
  }
}

// One browser of the world.
export function client(world, { userId, isGM = false, role, settings, fetch, system = "dnd5e", delays = 1, origin = FOUNDRY_ORIGIN }) {
  if (!world.user(userId)) world.users.push({ id: userId, isGM, role: role ?? (isGM ? 4 : 1), active: false, flags: {} });
  const values = new Map(Object.entries(settings ?? {}));
  const defaults = new Map();
  const chat = [];
  const c = { userId, chat, values, defaults, connected: false };
  c.view = (user) => userView(world, user, c);
  c.env = {
    Hooks: new HookBus(),
    game: {
      get user() {
        return c.view(world.user(userId));
      },
      get userId() {
        return userId;
      },
      users: {
        get activeGM() {
          const gm = world.activeGM();
          return gm ? c.view(gm) : null;
        },
        get: (id) => (world.user(id) ? c.view(world.user(id)) : undefined),
        ...usersCollection(world, c),
      },
      system: { id: system },
      settings: {
        register: (module, key, data) => defaults.set(key, data),
        get: (module, key) => structuredClone(values.has(key) ? values.get(key) : defaults.get(key)?.default),
        set: async (module, key, value) => {
          values.set(key, structuredClone(value));
          defaults.get(key)?.onChange?.(value);
          return value;
        },
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
      getWhisperRecipients: (who) => (who === "GM" ? world.users.filter((u) => u.isGM).map((u) => ({ id: u.id })) : []),
      create: async (data) => void chat.push(data),
    },
    fromUuidSync: (uuid) => world.documents.get(uuid),
    location: { origin }, // `window.location`: the page is Foundry's, at the address the GM opened
    fetch: fetch ?? globalThis.fetch,
    // the module's retry waits, shortened by `delays` so a test does not sit through 30 s
    setTimeout: (fn, ms) => setTimeout(fn, ms * delays),
  };
  return c;
}

// --- dnd5e's actor ---------------------------------------------------------------------------

export class Actor5e {
  constructor(world, { id, name, type, hp, player, tempmax = 0 }) {
    this.world = world;
    this.id = id;
    this.name = name;
    this.type = type;
    this.hasPlayerOwner = player;
    this.uuid = `Actor.${id}`;
    this.token = null; // a world actor; a synthetic one knows its token
    // `_source` is what the database stores and an update writes; `system` is prepared from
    // it (see `prepareActor` below)
    this._source = { system: { attributes: { hp: { value: hp, max: hp, temp: 0, tempmax }, death: { success: 0, failure: 0 } } } };
    this.effects = new Map();
    this.prepare();
    this.statuses = new Set();
    this.flags = {};
    this.toggled = [];
  }

  get hp() {
    return this.system.attributes.hp;
  }

  // The prepared data, from the stored data and the effects (see `prepareActor` below).
  prepare() {
    prepareActor(this);
  }

  getFlag(scope, key) {
    return this.flags[scope]?.[key];
  }

  async setFlag(scope, key, value) {
    (this.flags[scope] ??= {})[key] = value;
  }

  async toggleStatusEffect(status, { active }) {
    this.toggled.push([status, active]);
    if (active) this.statuses.add(status);
    else this.statuses.delete(status);
  }

  // `Document#update` from client `by`: `_preUpdate` there (dnd5e `preUpdateHP` keeps the HP
  // before in `options.dnd5e.hp`, 5.3.3 attributes.mjs; 4.4.4 and 3.3.1 actor.mjs the same),
  // `preUpdateActor` there, the server's round trip, then on every client `_onUpdate` (not
  // awaited: Foundry does not await a document's `_onUpdate`) and `updateActor`; the update's
  // promise resolves on `by` after that.
  async update(flat, options = {}, by) {
    const changed = expand(flat);
    preUpdateHP(this, changed, options);
    by.env.Hooks.callAll("preUpdateActor", this, changed, options, by.userId);
    await later();
    writeSource(this, changed);
    this.prepare();
    for (const c of this.world.live()) {
      this.onUpdate(c, changed, options, by.userId);
      c.env.Hooks.callAll("updateActor", this, changed, structuredClone(options), by.userId);
    }
    return this;
  }

  // The HP hook, as each release fires it after its awaits (on the updating client only).
  async onUpdate(c, changed, options, userId) {
    if (!changed.system?.attributes?.hp) return;
    const mine = userId === c.userId;
    if (this.world.dnd5e === "3.3.1") {
      // 3.3.1 actor.mjs `Actor5e#_onUpdate`: `await this.updateEncumbrance(options)` first
      if (mine) await undefined;
    } else if (this.world.dnd5e === "4.4.4") {
      // 4.4.4 actor.mjs `Actor5e#_onUpdate`: `await this.updateBloodied(options)`, then
      // `await this.updateEncumbrance(options)`
      if (mine) {
        await this.updateBloodied(c);
        await undefined;
      }
    } else if (mine) {
      // 5.3.3 attributes.mjs `onUpdateHP` (called, not awaited, by CharacterData/NPCData
      // `_onUpdate`): `await this.parent.updateBloodied(options)` first
      await this.updateBloodied(c);
    }
    const before = options.dnd5e?.hp;
    if (!before || options.isRest) return;
    // the HP now, read after the await: a later update may already be in it
    const changes = { hp: this.hp.value - before.value, temp: this.hp.temp - before.temp };
    changes.total = changes.hp + changes.temp;
    if (!Number.isInteger(changes.total) || changes.total === 0) return;
    c.env.Hooks.callAll(`dnd5e.${changes.total > 0 ? "heal" : "damage"}Actor`, this, changes, changed, userId);
  }

  // dnd5e 4.4.4/5.3.3 `Actor5e#updateBloodied`: nothing when the setting is "none"; above
  // half the effective maximum the effect is deleted, at or below it created, each a round
  // trip to the server that the caller awaits.
  updateBloodied() {
    const hp = this.hp;
    if (!hp.effectiveMax || this.world.bloodied === "none") return undefined;
    const effect = this.effects.get(BLOODIED);
    if (hp.value > hp.effectiveMax * BLOODIED_THRESHOLD) {
      if (!effect) return undefined;
      return later().then(() => {
        this.effects.delete(BLOODIED);
        this.statuses.delete("bloodied");
      });
    }
    if (effect) return undefined;
    return later().then(() => {
      this.effects.set(BLOODIED, { statuses: ["bloodied"] });
      this.statuses.add("bloodied");
    });
  }

  // dnd5e `Actor5e#applyDamage(damages, options)` with a number (`options.ignore`: no
  // resistances), on client `by`: temporary HP first, HP clamped to 0..effectiveMax (5.3.3:
  // `Math.clamp(amount - deltaTemp, -hp.damage + tempMax, hp.value - tempMax)`, and
  // `tempmax` in the updates; 4.4.4 and 3.3.1 without tempMax), `preApplyDamage(actor,
  // amount, updates, options)`, `await this.update(updates)`, `applyDamage(actor, amount,
  // options)` with the same `options`.
  // A list of damages (`[{value, type}]`) is dnd5e's `calculateDamage` (see `damageOf` below):
  // 5.3's `maximum` type lowers `tempmax` (the stored one, `hpSource`: 5.3.1 and later) and
  // moves the clamp of the HP lost with it: `Math.clamp(amount - deltaTemp, -hp.damage +
  // tempMax, hp.value - tempMax)`; a `temphp` part sets temporary HP if higher.
  async applyDamage(damages, options, by) {
    const hp = this.hp;
    const { amount, temp, tempMax } = damageOf(this, damages, options);
    const deltaTemp = amount > 0 ? Math.min(hp.temp, amount) : 0;
    const deltaHP = Math.min(Math.max(amount - deltaTemp, -hp.damage + tempMax), hp.value - tempMax);
    const updates = { [`${HP}.temp`]: hp.temp - deltaTemp, [`${HP}.value`]: hp.value - deltaHP };
    if (this.world.dnd5e === "5.3.3") updates[`${HP}.tempmax`] = this._source.system.attributes.hp.tempmax - tempMax;
    if (temp > updates[`${HP}.temp`]) updates[`${HP}.temp`] = temp;
    if (by.env.Hooks.call("dnd5e.preApplyDamage", this, amount, updates, options) === false) return this;
    if (by.env.Hooks.call("modifyTokenAttribute", { attribute: "attributes.hp", value: amount }, updates) === false) return this;
    await this.update(updates, {}, by);
    by.env.Hooks.callAll("dnd5e.applyDamage", this, amount, options);
    return this;
  }

  // dnd5e `Actor5e#rollDeathSave` on the roller's client: only at 0 HP; the outcome is the
  // roll's total against `options.target` (10): a success, a critical one (natural 20)
  // bringing the creature back at 1 HP; a failure, two on a fumble (natural 1); then the hook
  // in the release's signature, then `await this.update(details.updates)`.
  async rollDeathSave(natural, bonus, by, { advantage } = {}) {
    const death = this.system.attributes.death;
    if (this.hp.value > 0 || death.failure >= 3 || death.success >= 3) return null;
    const roll = d20Roll(natural, bonus, advantage, this.world.dnd5e === "3.3.1" ? "targetValue" : "target");
    const rolls = [roll];
    const details = this.world.dnd5e === "5.3.3" ? { subject: this } : {};
    // 5.3.3 and 4.4.4: `roll.options.target ?? 10`; 3.3.1: `roll.options.targetValue ?? 10`
    if (roll.total >= (roll.options.target ?? roll.options.targetValue ?? 10)) {
      const successes = death.success + 1;
      if (roll.isCritical) {
        details.updates = { "system.attributes.death.success": 0, "system.attributes.death.failure": 0, [`${HP}.value`]: 1 };
      } else if (successes === 3) {
        details.updates = { "system.attributes.death.success": 0, "system.attributes.death.failure": 0 };
      } else details.updates = { "system.attributes.death.success": Math.min(successes, 3) };
    } else {
      const failures = death.failure + (roll.isFumble ? 2 : 1);
      details.updates = { "system.attributes.death.failure": Math.min(failures, 3) };
    }
    const Hooks = by.env.Hooks;
    if (this.world.dnd5e === "5.3.3") {
      // 5.3.3: `rollDeathSave(rolls, details)` then `rollDeathSaveV2(rolls, details)`
      if (Hooks.call("dnd5e.rollDeathSave", rolls, details) === false) return rolls;
      if (Hooks.call("dnd5e.rollDeathSaveV2", rolls, details) === false) return rolls;
    } else if (this.world.dnd5e === "4.4.4") {
      // 4.4.4: `rollDeathSaveV2(rolls, {...details, subject})`, then the deprecated
      // `rollDeathSave(actor, rolls[0], details)` only if something listens to it
      if (Hooks.call("dnd5e.rollDeathSaveV2", rolls, { ...details, subject: this }) === false) return rolls;
      if ("dnd5e.rollDeathSave" in Hooks.events) {
        if (Hooks.call("dnd5e.rollDeathSave", this, rolls[0], details) === false) return rolls;
      }
    } else if (Hooks.call("dnd5e.rollDeathSave", this, roll, details) === false) {
      return roll; // 3.3.1: `rollDeathSave(actor, roll, details)`
    }
    await this.update(details.updates, {}, by);
    return rolls;
  }
}

// A D20Roll as dnd5e makes a death save: `1d20 + bonus` (2d20kh with advantage), its
// `isCritical`/`isFumble` from the kept d20 (dnd5e dice/d20-roll.mjs), its target 10 in
// `options.target` (4.x, 5.x: `rollDeathSave`'s `{ target: 10 }`) or `options.targetValue`
// (3.x).
export function d20Roll(natural, bonus = 0, advantage, targetKey = "target") {
  const results = advantage === undefined ? [{ result: natural, active: true }]
    : [{ result: advantage, active: false, discarded: true }, { result: natural, active: true }]; // prettier-ignore
  return {
    formula: `${advantage === undefined ? "1d20" : "2d20kh"}${bonus ? ` + ${bonus}` : ""}`,
    total: natural + bonus,
    isCritical: natural >= 20,
    isFumble: natural <= 1,
    options: { [targetKey]: 10 },
    dice: [{ faces: 20, results }],
  };
}

// A Roll as `Roll#dice` shows it (a damage roll: its dice only).
export function roll(formula, total, dice, isCritical = false) {
  return { formula, total, isCritical, dice, options: {} };
}

// A token on the scene. `linked`: its actor is the world's (a player character; the token's
// `actor` is that world actor, which knows no token); else the synthetic actor of an
// unlinked token, whose `id` is its base actor's and whose `token` is this token.
export function placeToken(world, { tokenId, name, actor, linked }) {
  const token = { id: tokenId, uuid: `Scene.${SCENE}.Token.${tokenId}`, name, flags: {} };
  token.getFlag = (scope, key) => token.flags[scope]?.[key];
  token.setFlag = async (scope, key, value) => void ((token.flags[scope] ??= {})[key] = value);
  if (linked) {
    token.actor = actor;
    world.documents.set(actor.uuid, actor);
  } else {
    const synthetic = new Actor5e(world, { id: actor.id, name: actor.name, type: actor.type,
      hp: actor.hp.max, player: actor.hasPlayerOwner }); // prettier-ignore
    synthetic.uuid = `${token.uuid}.Actor.${actor.id}`;
    synthetic.token = token;
    token.actor = synthetic;
  }
  world.documents.set(token.uuid, token);
  return token;
}

// --- Foundry's combat ------------------------------------------------------------------------

// v13 client/documents/combat.mjs `Combat`, on the shared copy.
export class Combat {
  constructor(world, id, tokens) {
    this.world = world;
    this.id = id;
    this.round = 0;
    this.turn = null;
    this.combatants = tokens.map((token) => ({ id: token.combatantId, tokenId: token.id, token, actor: token.actor }));
    this.turns = [...this.combatants];
    this.current = this.state();
    this.previous = undefined;
  }

  get started() {
    return this.round > 0;
  }

  // `_getCurrentState`: a new object each time.
  state(combatant = this.turn !== null ? this.turns[this.turn] : null) {
    return { round: this.round, turn: this.turn ?? null, combatantId: combatant?.id || null, tokenId: combatant?.tokenId || null };
  }

  // `startCombat`, `nextTurn`, `nextRound`, `previousTurn` (skipDefeated off): an update.
  startCombat(by) {
    return this.update({ round: 1, turn: 0 }, by);
  }
  nextTurn(by) {
    if (this.round === 0) return this.nextRound(by);
    const next = (this.turn ?? -1) + 1;
    if (next >= this.turns.length) return this.nextRound(by);
    return this.update({ round: this.round, turn: next }, by);
  }
  nextRound(by) {
    const turn = this.turn === null || this.turns.length === 0 ? null : 0;
    return this.update({ round: this.round + 1, turn }, by);
  }
  previousTurn(by) {
    if (this.round === 0) return this;
    if (this.turn === 0 || this.turns.length === 0) return this; // previousRound: not used here
    return this.update({ round: this.round, turn: (this.turn ?? this.turns.length) - 1 }, by);
  }

  // The server's round trip, then `_onUpdate` on every client's copy: the prior state
  // cloned, `current` a new object, `#recordPreviousState` assigning the prior state INTO the
  // `previous` object (`Object.assign(this.previous, priorState)`), `_manageTurnEvents` (not
  // awaited) on each client.
  async update(data, by) {
    await later();
    const prior = structuredClone(this.current);
    this.previous ??= prior;
    Object.assign(this, data);
    this.current = this.state();
    const changed = this.recordPrevious(prior);
    for (const c of this.world.live()) {
      if (changed) this.manageTurnEvents(c);
      // the document's update hook, on every client right after its `_onUpdate`
      c.env.Hooks.callAll("updateCombat", this, data, {}, by.userId);
    }
    return this;
  }

  // `#recordPreviousState`: v13 assigns the prior state into the one `previous` object; v12
  // replaced it with the prior state when the state changed (as systems that copy v11/v12's
  // Combat have it, e.g. a HeroSystem copy: `if (hasChanged) this.previous = priorState`).
  recordPrevious(prior) {
    const { round, turn, combatantId } = this.current;
    const changed = combatantId !== prior.combatantId || round !== prior.round || turn !== prior.turn;
    if (this.world.foundry >= 13) Object.assign(this.previous, prior);
    else if (changed) this.previous = prior;
    return changed;
  }

  // `_manageTurnEvents`: `{current, previous}` taken now; on the active GM's client only,
  // `await this.#triggerTurnEvents()` (its `_onStartTurn`, then
  // `_clearMovementHistoryOnStartTurn`, a token update to the server: a round trip), and
  // only then `combatTurnChange(this, previous, current)` there; other clients call it at
  // once. v13 asks `game.user.isActiveGM`; v12's asks `game.users.activeGM?.isSelf` (as
  // systems copying v12's `_manageTurnEvents` have it), the same GM. When v12 calls the hook
  // against its turn events was not found in a copy of its code: v13's order is used for both.
  async manageTurnEvents(c) {
    if (!this.started) return;
    const { current, previous } = this;
    if (this.world.activeGM()?.id === c.userId) await later(LATENCY_MS * 4);
    c.env.Hooks.callAll("combatTurnChange", this, previous, current);
  }

  // Deleting a combatant: the server's round trip, then `_onDeleteDescendantDocuments` ->
  // `#onModifyCombatants`: the prior state cloned, `setupTurns` (the turn index kept unless
  // it is now past the end: then turn 0 of the next round), `#recordPreviousState`, and
  // `_manageTurnEvents` when the combatant or the place changed.
  async deleteCombatant(id) {
    await later();
    const prior = structuredClone(this.current);
    this.combatants = this.combatants.filter((c) => c.id !== id);
    this.turns = [...this.combatants];
    if (this.turn !== null && this.turn >= this.turns.length) {
      this.turn = 0;
      this.round++;
    }
    this.current = this.state();
    this.previous ??= prior;
    const changed = this.recordPrevious(prior);
    for (const c of this.world.live()) {
      if (changed) this.manageTurnEvents(c);
      // `deleteCombatant`, after the parent's descendant callbacks (the order assumed here:
      // Foundry's database backend runs `_onDeleteDescendantDocuments`, then the hook)
      c.env.Hooks.callAll("deleteCombatant", { id, parent: this }, {}, "gm");
    }
  }
}

// `Actor#update` of one value in another system: preUpdateActor on the updating client,
// updateActor on every client, with the same options.
export async function updateOther(world, by, actor, path, value) {
  const changed = expand({ [path]: value });
  const options = {};
  by.env.Hooks.callAll("preUpdateActor", actor, changed, options, by.userId);
  await later();
  const keys = path.split(".");
  keys.slice(0, -1).reduce((o, key) => o[key], actor)[keys.at(-1)] = value;
  for (const c of world.live()) c.env.Hooks.callAll("updateActor", actor, changed, structuredClone(options), by.userId);
}

// --- dnd5e's prepared hit points, ActiveEffects and the `maximum` damage type (issue 41) -------
//
// dnd5e keeps two copies of an actor's data: the stored one (`_source`, what an update holds
// and writes) and the prepared one (`system`, what the sheet shows and `applyDamage` reads),
// made again from the stored one whenever it or an embedded document changes: Foundry's
// `Document#updateSource` re-initialises the document, and ClientDatabaseBackend's
// `#handleCreateDocuments` / `#handleUpdateDocuments` / `#handleDeleteDocuments` call the
// parent's `reset()` before running each embedded document's `_onCreate`/`_onUpdate`/
// `_onDelete` and its `createActiveEffect`/`updateActiveEffect`/`deleteActiveEffect` hook,
// on every client (Foundry v12/v13 client/data/client-backend.mjs, from a copy of it found
// with the search tool). So an effect's hook already sees the prepared data it changed.

const ADD = 2; // CONST.ACTIVE_EFFECT_MODES.ADD

// Prepared data: the stored data, each enabled ActiveEffect's changes applied (Foundry's
// `Actor#applyActiveEffects`, between base and derived data: ADD adds the number), then dnd5e
// 5.3.3 `AttributesFields.prepareHitPoints` (module/data/actor/templates/attributes.mjs; 3.3.1
// and 4.4.4 the same without the floor at 0): `effectiveMax = max(max + tempmax, 0)`, `value`
// never above it (in the prepared data only: the stored `value` is kept), `damage` what is
// missing. Aid under its effect: stored `tempmax` 0, prepared 5.
export function prepareActor(actor) {
  actor.system = structuredClone(actor._source.system);
  for (const effect of actor.effects.values()) {
    if (effect.disabled) continue;
    for (const change of effect.changes ?? []) {
      if (change.mode !== ADD) continue;
      const keys = change.key.split(".");
      const owner = keys.slice(0, -1).reduce((o, key) => o?.[key], actor);
      if (owner) owner[keys.at(-1)] = (owner[keys.at(-1)] ?? 0) + Number(change.value);
    }
  }
  const hp = actor.system.attributes.hp;
  hp.effectiveMax = Math.max(hp.max + (hp.tempmax ?? 0), 0);
  hp.value = Math.min(hp.value, hp.effectiveMax);
  hp.damage = hp.effectiveMax - hp.value;
}

// `updateSource`: the update's values written into the stored data.
function writeSource(actor, changed) {
  const write = (target, values) => {
    for (const [key, value] of Object.entries(values)) {
      if (value && typeof value === "object" && !Array.isArray(value)) write((target[key] ??= {}), value);
      else target[key] = value;
    }
  };
  write(actor._source, changed);
}

// dnd5e 5.3.3 `AttributesFields.preUpdateHP` (attributes.mjs; 4.4.4 and 3.3.1 `Actor5e#_preUpdate`
// the same), on the updating client: a creature at 0 HP or less whose update takes `hp.value`
// above 0 has its death saves cleared (the sheet's dead is three failures at 0 HP: so a heal
// revives it), and the prepared HP before the update go into `options.dnd5e.hp`.
function preUpdateHP(actor, changed, options) {
  const value = changed.system?.attributes?.hp?.value;
  if (actor.hp.value <= 0 && value > 0) {
    const death = ((changed.system.attributes.death ??= {}));
    death.success = 0;
    death.failure = 0;
  }
  options.dnd5e = { hp: { ...actor.hp } };
}

// dnd5e 5.3.3 `Actor5e#calculateDamage` (module/documents/actor/actor.mjs) for what the
// stand-in deals: a number is `[{ value }]` of no type; `healing` is negated; `temphp` goes to
// `temp`; `maximum` (5.3.0, "Maximum Hit Points damage & healing type") goes to `tempMax`,
// negated when the damage is treated as healing (`options.only === "healing"`, or a healing
// roll's message), and a negative `tempMax` (maximum healing) is added to the healing too.
// Resistances, thresholds and modifications: none in these tests. Before 5.3 there is no
// `maximum` type.
function damageOf(actor, damages, options = {}) {
  const list = typeof damages === "number" ? [{ value: damages }] : damages;
  const treatAs = options.originatingMessage?.flags?.dnd5e?.roll?.type === "healing" || options.only === "healing" ? "healing" : "damage";
  const summary = { amount: 0, temp: 0, tempMax: 0 };
  for (const d of list) {
    let value = d.value;
    if (d.type === "healing" || (d.type === "maximum" && treatAs === "healing")) value = -value;
    if (d.type === "temphp") summary.temp += value;
    else if (d.type === "maximum" && actor.world.dnd5e === "5.3.3") summary.tempMax += value;
    else summary.amount += value;
  }
  if (summary.tempMax < 0) summary.amount += summary.tempMax;
  summary.amount = Math.trunc(summary.amount);
  return summary;
}

// dnd5e's Aid (packs/_source/spells24/2nd-level/aid.yml, release-5.3.3): an ActiveEffect whose
// one change adds 5 to `system.attributes.hp.tempmax` (mode 2, ADD), and a heal activity of 5.
export function aidEffect(id = "aidEffect0000001") {
  return { id, name: "Level 2: +5 Max HP", disabled: false,
    changes: [{ key: "system.attributes.hp.tempmax", mode: ADD, value: "5" }] }; // prettier-ignore
}

// `actor.createEmbeddedDocuments("ActiveEffect", [data])` from client `by`: the server's round
// trip, then on every client the actor's `reset()` (prepared again) and the
// `createActiveEffect(effect, options, userId)` hook (client-backend.mjs
// `#handleCreateDocuments`). No HP hook fires: no actor update was made.
export async function createEffect(actor, data, by) {
  await later();
  const effect = { ...structuredClone(data), parent: actor };
  actor.effects.set(effect.id, effect);
  actor.prepare();
  for (const c of actor.world.live()) c.env.Hooks.callAll("createActiveEffect", effect, {}, by.userId);
  return effect;
}

// `effect.delete()` from client `by`: the same, with `deleteActiveEffect(effect, options,
// userId)` (`#handleDeleteDocuments`). The prepared HP fall with the maximum (Aid ending at
// 25/25: 20/20), the stored `value` stays 25, and still no HP hook.
export async function deleteEffect(actor, id, by) {
  await later();
  const effect = actor.effects.get(id);
  actor.effects.delete(id);
  actor.prepare();
  for (const c of actor.world.live()) c.env.Hooks.callAll("deleteActiveEffect", effect, {}, by.userId);
}

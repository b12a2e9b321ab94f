// woundlog for Owlbear Rodeo: sends the scene's hit points and turns to a woundlog fight.
//
// Owlbear Rodeo keeps neither: two of its extensions write them into each token's metadata,
// Stat Bubbles for D&D (hit points) and Initiative Tracker (turns). Every change to the scene
// hands `OBR.scene.items.onChange` the whole item list (owlbear-rodeo/sdk 3.1.0,
// src/api/scene/SceneItemsApi.ts); this cuts it down to the tokens those extensions mark, and
// sends it, as it is, to woundlog's `owlbear` importer (events/importers/owlbear.py), which
// compares each snapshot with the last one it took in. What a change means (a hit, a heal, a
// turn, a maximum) is worked out there, in Python, never here.
//
// One client sends: a GM's (`OBR.player.getRole`), the GM with the lowest connection id of
// those connected (`OBR.party`), so a room with two GMs sends each snapshot once. When that GM
// leaves, the next takes over with a snapshot of the scene as it is, which the importer
// compares with the last one the first GM sent: a change in between arrives with it.
//
// `start(OBR, env)` is called by background.mjs with the SDK and the browser's globals, and by
// the node tests with the same SDK inside a stand-in of Owlbear Rodeo; nothing here reaches
// for a global.

export const BUBBLES = "com.owlbear-rodeo-bubbles-extension/metadata";
export const BUBBLES_NAME = "com.owlbear-rodeo-bubbles-extension/name";
export const INITIATIVE = "rodeo.owlbear.initiative-tracker/metadata";
const KEYS = [BUBBLES, BUBBLES_NAME, INITIATIVE];

// What the popover and this page share in the browser's localStorage (same origin: the
// service's). The token never goes into a URL.
export const STORED = {
  fight: "woundlog.owlbear.fight",
  token: "woundlog.owlbear.token",
  seq: "woundlog.owlbear.seq",
  outbox: "woundlog.owlbear.outbox",
  status: "woundlog.owlbear.status",
};

// The popover hands the fight and token to this page over Owlbear Rodeo's broadcast, to this
// browser's frames alone (`destination: "LOCAL"`, sdk src/api/BroadcastApi.ts): a browser that
// keeps no storage for a frame of another site (third-party storage blocked) has no other way.
export const CHANNEL = "woundlog.owlbear/settings";

// The browser's localStorage, or, where it refuses the frame one (a SecurityError), one kept
// in memory until the tab closes; `kept` says which.
export function storageOf(global) {
  try {
    const storage = global.localStorage;
    storage.getItem(STORED.fight);
    return { storage, kept: true };
  } catch {
    const values = new Map();
    const storage = {
      getItem: (key) => (values.has(key) ? values.get(key) : null),
      setItem: (key, value) => values.set(key, String(value)),
      removeItem: (key) => values.delete(key),
    };
    return { storage, kept: false };
  }
}

export const RETRY_MS = [500, 1000, 2000, 5000, 10000, 30000]; // then every 30 s
export const HELD_MS = 30000; // a wrong token or fight: retried this slowly, or when changed
const REFUSED = new Set([400, 409, 413, 422]); // for what the snapshot is: sent again, the same
const HELD = new Set([401, 403, 404]); // the token or the fight is wrong: the GM can fix it

export async function start(OBR, env) {
  const bridge = new Bridge(OBR, env);
  await bridge.start();
  return bridge;
}

// The scene's tokens either extension marks, each with only their keys: what the importer
// reads (id, name, type, layer, the token's text, the metadata).
export function marked(items) {
  const kept = [];
  for (const item of items ?? []) {
    const metadata = {};
    for (const key of KEYS) if (item?.metadata?.[key] !== undefined) metadata[key] = item.metadata[key];
    if (!metadata[BUBBLES] && !metadata[INITIATIVE]) continue;
    const text = item.text?.plainText;
    kept.push({
      id: item.id,
      name: item.name ?? "",
      type: item.type ?? "",
      layer: item.layer ?? "",
      ...(typeof text === "string" ? { text: { plainText: text } } : {}),
      metadata,
    });
  }
  return kept;
}

// Whether this client sends: a GM whose connection id is the lowest of the GMs connected.
export function sends(me, players) {
  if (me.role !== "GM") return false;
  return (players ?? []).every(
    (p) => p.role !== "GM" || p.connectionId === me.connectionId || me.connectionId < p.connectionId,
  );
}

export class Bridge {
  constructor(OBR, env) {
    this.OBR = OBR;
    this.env = env;
    this.me = { role: "PLAYER", connectionId: "" };
    this.players = [];
    this.sending = false;
    this.last = null; // the last snapshot queued, as JSON: a change elsewhere sends nothing
    this.outbox = new Outbox(env, (text, variant) => this.tell(text, variant));
    this.told = new Set();
  }

  async start() {
    const { OBR } = this;
    this.me = { role: await OBR.player.getRole(), connectionId: await OBR.player.getConnectionId() };
    this.room = OBR.room.id;
    OBR.player.onChange((player) => {
      this.me = { role: player.role, connectionId: player.connectionId ?? this.me.connectionId };
      this.decide();
    });
    OBR.party.onChange((players) => {
      this.players = players;
      this.decide();
    });
    OBR.scene.items.onChange((items) => this.seen(items));
    OBR.broadcast.onMessage(CHANNEL, ({ data }) => this.settings(data));
    this.players = await OBR.party.getPlayers();
    await this.decide();
    // the popover saved a fight or token (a `storage` event reaches the other pages of the
    // origin): send what waits now
    this.env.addEventListener?.("storage", () => this.outbox.retry());
  }

  // The popover's fight and token, kept where the popover keeps them (or in memory).
  settings(data) {
    if (typeof data?.fight !== "string" || typeof data?.token !== "string") return;
    this.env.localStorage.setItem(STORED.fight, data.fight);
    this.env.localStorage.setItem(STORED.token, data.token);
    this.outbox.retry();
  }

  async decide() {
    const now = sends(this.me, this.players);
    if (now === this.sending) return;
    this.sending = now;
    if (!now) return this.outbox.stop();
    if (this.env.kept === false) {
      await this.tell(
        "this browser keeps no storage for the extension's page (third-party storage blocked): " +
          "the fight and token last until the tab closes, and unsent snapshots are lost with it; " +
          "allow site data for owlbear.rodeo to keep them",
        "WARNING",
      );
    }
    this.outbox.start();
    this.last = null;
    // the scene as it is when this client starts sending (a hand-over, a reload)
    if (await this.OBR.scene.isReady()) this.seen(await this.OBR.scene.items.getItems());
  }

  seen(items) {
    if (!this.sending) return;
    const kept = marked(items);
    const key = JSON.stringify(kept);
    if (key === this.last) return; // a token moved, a drawing: nothing woundlog reads
    this.last = key;
    // Owlbear Rodeo stamps each item it changes (`lastModified`): the newest stamp is a floor
    // for this snapshot's place that every GM's browser reads alike, whatever its own clock
    const stamped = Math.max(0, ...(items ?? []).map((item) => Date.parse(item.lastModified) || 0));
    this.outbox.add({ v: 1, room: this.room, seq: this.nextSeq(stamped), items: kept });
  }

  // Never below the last one this browser sent: the importer skips a snapshot not newer than
  // the last it took in. The clocks (this browser's, Owlbear Rodeo's stamps) keep two GMs'
  // browsers in step across a hand-over.
  nextSeq(stamped = 0) {
    const { localStorage, now } = this.env;
    const seq = Math.max(Number(localStorage.getItem(STORED.seq) ?? 0) + 1, now(), stamped);
    localStorage.setItem(STORED.seq, String(seq));
    return seq;
  }

  // Told once per cause, as Owlbear Rodeo's notification, and kept for the popover to show.
  async tell(text, variant = "ERROR") {
    this.env.localStorage.setItem(STORED.status, text);
    if (this.told.has(text)) return;
    this.told.add(text);
    await this.OBR.notification.show(`woundlog: ${text}`, variant).catch(() => {});
  }

  idle() {
    return this.outbox.idle();
  }
}

export class Outbox {
  constructor(env, tell) {
    this.env = env;
    this.tell = tell;
    this.running = false;
    this.sending = null;
    this.wake = null;
    this.held = null;
  }

  get snapshots() {
    return JSON.parse(this.env.localStorage.getItem(STORED.outbox) ?? "[]");
  }

  set snapshots(list) {
    this.env.localStorage.setItem(STORED.outbox, JSON.stringify(list));
  }

  start() {
    this.running = true;
    this.pump();
  }

  stop() {
    this.running = false;
    this.wake?.();
  }

  add(snapshot) {
    this.snapshots = [...this.snapshots, snapshot]; // kept: a reload sends them
    this.pump();
  }

  idle() {
    return this.snapshots.length === 0 && !this.sending;
  }

  retry() {
    this.wake?.();
  }

  pump() {
    if (!this.running) return this.sending;
    this.sending ??= this.drain().finally(() => {
      this.sending = null;
      if (this.running && this.snapshots.length) this.pump();
    });
    return this.sending;
  }

  // In order, one at a time: the importer compares each with the one before it.
  async drain() {
    const { env } = this;
    let failures = 0;
    while (this.running && this.snapshots.length) {
      const snapshot = this.snapshots[0];
      const fight = env.localStorage.getItem(STORED.fight) ?? "";
      const token = env.localStorage.getItem(STORED.token) ?? "";
      const url = `${env.base}/fights/${encodeURIComponent(fight)}/import/owlbear`;
      let wait;
      if (!fight || !token) {
        await this.tell("no fight or gm token yet: open woundlog's popover and enter them", "WARNING");
        wait = HELD_MS;
      } else {
        try {
          const response = await env.fetch(url, {
            method: "POST",
            headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
            body: JSON.stringify(snapshot),
          });
          const answer = await response.json().catch(() => ({}));
          if (response.ok) {
            if (this.held !== null) await this.tell(`sending again to ${url}`, "SUCCESS");
            this.held = null;
            for (const warning of answer.warnings ?? []) await this.tell(warning, "WARNING");
          } else if (REFUSED.has(response.status)) {
            await this.tell(`refused a snapshot (${response.status}): ${answer.detail ?? answer.message ?? ""}`);
          } else if (HELD.has(response.status)) {
            this.held = response.status;
            await this.tell(
              `${url} answers ${response.status} (${answer.detail ?? answer.message ?? "refused"}): ` +
                "check the fight id and the gm token in woundlog's popover",
            );
            wait = HELD_MS;
          } else {
            wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
          }
        } catch (error) {
          // no answer: sent again with the same seq, which the importer takes once
          this.held = "unreachable";
          await this.tell(`cannot reach woundlog at ${url} (${error?.message ?? error}): is \`woundlog serve\` running?`);
          wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
        }
      }
      if (wait !== undefined) {
        await new Promise((resolve) => {
          this.wake = resolve;
          env.setTimeout(resolve, wait);
        });
        this.wake = null;
        continue;
      }
      failures = 0;
      const left = this.snapshots;
      if (left[0]?.seq === snapshot.seq) this.snapshots = left.slice(1);
    }
  }
}

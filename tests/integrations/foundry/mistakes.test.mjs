// The Foundry module at its edges, each test written against a plausible slip no test noticed
// (issue 39, tests/mutation/handwritten.py): what each answer of the service makes of an
// envelope (dropped and told, held and told once, retried without end and never dropped), the
// backoff starting again after a success, the kept outbox emptied as envelopes go, the stream
// read again without repeating an event, and a status the GM put on left alone. Against a real
// `woundlog serve`, in the stand-in of bridge.test.mjs (standin.mjs); an answer the service
// would give only in a race (409) or after a fight is deleted (404) is given by the test's fetch.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Actor5e, Combat, placeToken, updateOther, World } from "./standin.mjs";
import { settle, until } from "./waiting.mjs";

const MODULE = process.env.WOUNDLOG_MODULE ?? "../../../replays/integrations/foundry/woundlog.mjs";
const { woundlog, DEFAULT_STATUSES } = await import(new URL(MODULE, import.meta.url));
const URL_ = process.env.WOUNDLOG_URL;
const ADMIN = process.env.WOUNDLOG_ADMIN_TOKEN;
const DELAYS = 0.002; // the module's 30 s waits in 60 ms
const RETRY_MS = [500, 1000, 2000, 5000, 10000, 30000]; // the README's backoff, then every 30 s
let fights = 0;

async function newFight() {
  const fight = `mistakes-${process.pid}-${++fights}`;
  const response = await fetch(`${URL_}/fights`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ fight, ruleset: "dnd5e", seed: 1, options: { death_saves: "table" } }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  const { gm_token: gm } = await response.json();
  return { fight, gm };
}

async function hits(fight, gm) {
  const response = await fetch(`${URL_}/fights/${fight}/events`, { headers: { Authorization: `Bearer ${gm}` } });
  const { events } = await response.json();
  return events.filter((e) => e.event.type === "hit").map((e) => e.event.damage);
}

// One GM's browser and a goblin (7 HP) in a combat; `answers`: the status each POST is answered
// with before the real service answers (a number, or null for the service's own answer).
function table(fight, gm, answers = [], { players = 0, streamFails = 0 } = {}) {
  const posts = [];
  const streams = [];
  const fetcher = async (url, init = {}) => {
    if (init.method !== "POST") {
      streams.push(url);
      if (streams.length <= streamFails) return new Response("{}", { status: 503 });
      return fetch(url, init);
    }
    posts.push(JSON.parse(init.body));
    const status = answers.shift();
    if (typeof status === "function") await status(); // held till the test lets it go
    if (typeof status !== "number") return fetch(url, init);
    const problem = { title: `status ${status}`, detail: `the test's ${status}` };
    return new Response(JSON.stringify(problem), { status, headers: { "Content-Type": "application/problem+json" } });
  };
  const w = new World({ foundry: 13, dnd5e: "5.3.3" });
  const goblin = new Actor5e(w, { id: "actGoblin0000001", name: "Goblin", type: "npc", hp: 7, player: false });
  const brakka = new Actor5e(w, { id: "actBrakka0000001", name: "Brakka", type: "character", hp: 20, player: true });
  const tokens = {
    gob: placeToken(w, { tokenId: "tkGoblin00000001", name: "Goblin (1)", actor: goblin }),
    brakka: placeToken(w, { tokenId: "tkBrakka00000001", name: "Brakka", actor: brakka, linked: true }),
  };
  for (const [key, t] of Object.entries(tokens)) t.combatantId = `cb-${key}`;
  w.combat = new Combat(w, "combat0000000001", Object.values(tokens));
  const c = w.connect({ delays: DELAYS, fetch: fetcher, userId: "gm", isGM: true, settings: { url: URL_, fight, token: gm } });
  const waits = [];
  const setTimeout_ = c.env.setTimeout;
  c.env.setTimeout = (fn, ms) => {
    waits.push(ms);
    return setTimeout_(fn, ms);
  };
  const bridge = woundlog(c.env);
  c.env.Hooks.callAll("init");
  c.env.Hooks.callAll("ready");
  const others = [];
  for (let i = 0; i < players; i++) {
    const p = w.connect({ delays: DELAYS, fetch: fetcher, userId: `player${i}`, settings: { token: "" } });
    others.push(woundlog(p.env));
    p.env.Hooks.callAll("init");
    p.env.Hooks.callAll("ready");
  }
  const blow = (damage) =>
    tokens.gob.actor.applyDamage(damage, { originatingMessage: { speaker: { scene: "sceneMain0000001", token: tokens.brakka.id }, rolls: [] } }, c);
  const stop = () => [bridge, ...others].forEach((b) => b.stop());
  return { gm: c, bridge: { stop }, posts, streams, waits, blow, goblin: tokens.gob.actor, brakka, idle: () => bridge.idle() };
}

const told = (t, text) => t.gm.chat.filter((m) => m.content.includes(text)).length;

test("an envelope answered 409 is dropped and the GM told, and the next one goes", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm, [409]);
  try {
    await t.blow(2);
    await t.blow(3);
    await until(t.idle, "both dealt with");
    assert.equal(told(t, "(409), dropped"), 1, t.gm.chat.map((m) => m.content).join("\n"));
    assert.deepEqual(t.posts.map((p) => [p.hook, p.amount]), [["dnd5e.applyDamage", 2], ["dnd5e.applyDamage", 3]]);
    assert.equal(t.posts.length, 2); // the refused one was not sent again
    // the next envelope's HP tells the service what the dropped blow did (a `:drift` hit)
    assert.deepEqual(await hits(fight, gm), [2, 3]);
  } finally {
    t.bridge.stop();
  }
});

test("a fight the service does not know (404) holds the envelopes and tells the GM once", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm, [404, 404, 404, 404]);
  try {
    await t.blow(2);
    await until(t.idle, "sent once the fight answers");
    assert.equal(told(t, "woundlog answers 404"), 1);
    assert.equal(told(t, "takes the envelopes again"), 1);
    assert.deepEqual(await hits(fight, gm), [2]);
    assert.deepEqual(t.waits.slice(0, 4), [30000, 30000, 30000, 30000]); // held: retried slowly
  } finally {
    t.bridge.stop();
  }
});

test("server errors are retried with the backoff, then every 30 s, and the envelope is never dropped", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm, [500, 500, 500, 500, 500, 500, 500, 500]);
  try {
    await t.blow(2);
    await until(t.idle, "sent after eight errors");
    assert.deepEqual(await hits(fight, gm), [2]);
    assert.deepEqual(t.waits.slice(0, 8), [...RETRY_MS, 30000, 30000]);
  } finally {
    t.bridge.stop();
  }
});

test("after a success the backoff starts again from its first wait for the next envelope", async () => {
  const { fight, gm } = await newFight();
  let letGo;
  const held = new Promise((resolve) => (letGo = resolve));
  // the first envelope fails twice, then its third try waits till the second is queued
  const t = table(fight, gm, [500, 500, () => held, 503]);
  try {
    await t.blow(2);
    await t.blow(3);
    letGo();
    await until(t.idle, "both sent");
    assert.deepEqual(t.waits.slice(0, 3), [RETRY_MS[0], RETRY_MS[1], RETRY_MS[0]]);
    assert.deepEqual(await hits(fight, gm), [2, 3]);
  } finally {
    t.bridge.stop();
  }
});

test("the outbox kept in the GM's browser is emptied as the envelopes go", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm, [500]);
  try {
    await t.blow(2);
    await t.blow(1);
    assert.ok(t.gm.values.get("outbox").length >= 1); // kept while it waits
    await until(t.idle, "both sent");
    assert.deepEqual(t.gm.values.get("outbox"), []);
  } finally {
    t.bridge.stop();
  }
});

test("the stream read again after a setting changed repeats no event in the GM's chat", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await t.blow(2);
    await until(t.idle, "sent");
    const seen = () => t.gm.values.get("seen")?.[fight] ?? 0;
    await until(() => seen() >= 2, "the stream read");
    await t.gm.env.game.settings.set("woundlog", "token", gm); // read again from where it was
    await t.blow(1);
    await until(t.idle, "sent");
    await until(() => seen() >= 3, "the stream read again");
    await settle(200);
    const whispered = t.gm.chat.map((m) => m.content).filter((text) => /^#\d+ /.test(text));
    assert.equal(new Set(whispered).size, whispered.length, whispered.join("\n"));
  } finally {
    t.bridge.stop();
  }
});

test("a status the GM put on by hand is not taken off when woundlog's state moves on", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await t.brakka.toggleStatusEffect("unconscious", { active: true }); // the GM's own
    await t.brakka.applyDamage(20, {}, t.gm); // 20 -> 0: downed, which shows unconscious
    await until(t.idle, "sent");
    await settle(200);
    await t.brakka.update({ "system.attributes.hp.value": 5 }, {}, t.gm); // healed on the sheet
    await until(t.idle, "sent");
    const seen = () => t.gm.values.get("seen")?.[fight] ?? 0;
    await until(() => seen() >= 4, "the stream read");
    await settle(200);
    assert.ok(t.brakka.statuses.has("unconscious"), "the GM's status left on");
  } finally {
    t.bridge.stop();
  }
});

test("the default statuses: a stabilised character is unconscious, as dnd5e shows a stable one", () => {
  assert.deepEqual(DEFAULT_STATUSES, {
    knocked_down: ["prone"],
    downed: ["unconscious"],
    stabilised: ["unconscious"],
    dead: ["dead"],
    out_of_action: ["dead"],
  });
});

test("an HP change made on the GM's sheet is sent once however many players are connected", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm, [], { players: 2 });
  try {
    await t.brakka.update({ "system.attributes.hp.value": 15 }, {}, t.gm);
    await settle(200);
    await until(t.idle, "sent");
    assert.deepEqual(t.posts.map((p) => p.hook), ["dnd5e.damageActor"]);
    assert.deepEqual(await hits(fight, gm), [5]);
  } finally {
    t.bridge.stop();
  }
});

test("a stream that cannot be read is tried again with the backoff, then every 30 s", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm, [], { streamFails: 8 });
  try {
    await until(() => t.streams.length > 8, "read again after eight failures");
    assert.deepEqual(t.waits.slice(0, 8), [...RETRY_MS, 30000, 30000]);
  } finally {
    t.bridge.stop();
  }
});

test("in another system a loss of hit points is sent as damage and a gain as a heal", async () => {
  const { fight, gm } = await newFight();
  const hooks = [];
  const fetcher = async (url, init = {}) => {
    if (init.method === "POST") hooks.push(JSON.parse(init.body).hook);
    return fetch(url, init);
  };
  const w = new World();
  const settings = { url: URL_, fight, token: gm, hpPath: "system.health" };
  const c = w.connect({ userId: "gm", isGM: true, settings, system: "worldbuilding", fetch: fetcher, delays: DELAYS });
  const orc = new Actor5e(w, { id: "actOrc0000000001", name: "Orc", type: "npc", hp: 10, player: false });
  placeToken(w, { tokenId: "tkOrc00000000001", name: "Orc", actor: orc });
  const token = w.documents.get("Scene.sceneMain0000001.Token.tkOrc00000000001");
  token.actor.system = { health: { value: 10, max: 10 } };
  const bridge = woundlog(c.env);
  c.env.Hooks.callAll("init");
  c.env.Hooks.callAll("ready");
  try {
    await updateOther(w, c, token.actor, "system.health.value", 4);
    await until(() => bridge.idle(), "the loss sent");
    await updateOther(w, c, token.actor, "system.health.value", 7);
    await until(() => bridge.idle(), "the gain sent");
    assert.deepEqual(hooks, ["dnd5e.damageActor", "dnd5e.healActor"]);
    assert.deepEqual(await hits(fight, gm), [6]);
  } finally {
    bridge.stop();
  }
});

// A stream whose messages the test sends (`send(changes)`), as the service writes them; it goes
// on after an abort, as bytes already received are still read.
function fakeStream() {
  let controller;
  const body = new ReadableStream({ start: (c) => (controller = c) });
  const encoder = new TextEncoder();
  return {
    response: new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } }),
    send: (changes) => controller.enqueue(encoder.encode(`id: ${changes.seq}\nevent: changes\ndata: ${JSON.stringify(changes)}\n\n`)),
  };
}

function streamedTable(fight) {
  const stream = fakeStream();
  const fetcher = async (url) => (String(url).includes("/stream") ? stream.response : new Response("{}", { status: 503 }));
  const w = new World({ foundry: 13, dnd5e: "5.3.3" });
  const brakka = new Actor5e(w, { id: "actBrakka0000001", name: "Brakka", type: "character", hp: 20, player: true });
  placeToken(w, { tokenId: "tkBrakka00000001", name: "Brakka", actor: brakka, linked: true });
  const c = w.connect({ delays: DELAYS, fetch: fetcher, userId: "gm", isGM: true, settings: { url: URL_, fight, token: "t" } });
  const bridge = woundlog(c.env);
  c.env.Hooks.callAll("init");
  c.env.Hooks.callAll("ready");
  return { c, bridge, brakka, send: stream.send };
}

const BRAKKA = "Actor.actBrakka0000001";

test("an event the rules set aside is whispered with why", async () => {
  const t = streamedTable("old-log");
  try {
    t.send({ seq: 1, type: "hit", event: "#1", explanation: "", void: "no character `zed` in this fight", characters: [] });
    await until(() => t.c.chat.length > 0, "whispered");
    assert.equal(t.c.chat[0].content, "#1 hit: void: no character `zed` in this fight");
  } finally {
    t.bridge.stop();
  }
});

test("after the GM names another fight, the old fight's stream writes nothing more", async () => {
  const t = streamedTable("first");
  try {
    t.send({ seq: 1, type: "hit", event: "#1", explanation: "Brakka takes 5", characters: [{ character: BRAKKA, after: "upright" }] });
    await until(() => t.c.values.get("seen")?.first === 1, "the first event read");
    await t.c.env.game.settings.set("woundlog", "fight", "second");
    t.send({ seq: 2, type: "hit", event: "#2", explanation: "Brakka dies", characters: [{ character: BRAKKA, after: "dead" }] });
    await settle(200);
    assert.ok(!t.brakka.statuses.has("dead"), "the old fight's state not written");
    assert.equal(t.c.values.get("seen").first, 1);
  } finally {
    t.bridge.stop();
  }
});

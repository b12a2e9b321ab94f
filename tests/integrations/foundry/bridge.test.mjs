// The woundlog Foundry module against a real `woundlog serve` (started by
// tests/integrations/test_foundry_module.py, which passes WOUNDLOG_URL and
// WOUNDLOG_ADMIN_TOKEN): a recorded fight played as dnd5e 5.3.3's and Foundry's hook calls on
// stand-ins for Foundry, then the fight the server folded, the retries, the order of the
// sends and what the module wrote back onto the tokens and into the chat.
//
//     WOUNDLOG_URL=http://127.0.0.1:8000 WOUNDLOG_ADMIN_TOKEN=... node --test tests/integrations/foundry/

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { woundlog } from "../../../replays/integrations/foundry/woundlog.mjs";
import { client, combat, makeToken, roll, Table, updateActor, world } from "./standin.mjs";

const URL = process.env.WOUNDLOG_URL;
const ADMIN = process.env.WOUNDLOG_ADMIN_TOKEN;
const FIXTURE = new globalThis.URL("../../data/importers/foundry_dnd5e.jsonl", import.meta.url);
let fights = 0;

async function newFight() {
  const fight = `foundry-${process.pid}-${++fights}`;
  const response = await fetch(`${URL}/fights`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ fight, ruleset: "dnd5e", seed: 1, options: { death_saves: "table" } }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  const { gm_token: gm } = await response.json();
  return { fight, gm };
}

async function get(fight, gm, path) {
  const response = await fetch(`${URL}/fights/${fight}${path}`, {
    headers: { Authorization: `Bearer ${gm}` },
  });
  assert.equal(response.status, 200);
  return response.json();
}

async function until(check, what, ms = 10000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`not within ${ms} ms: ${what}`);
}

// A world with Brakka (a player's linked character) and two unlinked goblins of one base
// actor, in a combat; `clients` connected, the first the active GM's.
async function table(fight, gm, { fetch, players = 0, gms = 1 } = {}) {
  const w = world();
  const settings = { url: URL, fight, token: gm };
  for (let i = 0; i < gms; i++) {
    const userId = i === 0 ? "gm" : `gm${i}`;
    w.clients.push(client(w, { userId, isGM: true, isActiveGM: i === 0, settings, fetch }));
  }
  for (let i = 0; i < players; i++) {
    w.clients.push(client(w, { userId: `player${i}`, isGM: false, isActiveGM: false, settings: { token: "" } }));
  }
  const brakka = makeToken(w, { tokenId: "tkBrakka00000001", name: "Brakka", actorId: "actBrakka0000001",
    actorName: "Brakka", type: "character", hp: 12, player: true, linked: true }); // prettier-ignore
  const gob1 = makeToken(w, { tokenId: "tkGoblin00000001", name: "Goblin (1)", actorId: "actGoblin0000001",
    actorName: "Goblin", type: "npc", hp: 7, player: false }); // prettier-ignore
  const gob2 = makeToken(w, { tokenId: "tkGoblin00000002", name: "Goblin (2)", actorId: "actGoblin0000001",
    actorName: "Goblin", type: "npc", hp: 7, player: false }); // prettier-ignore
  brakka.combatantId = "cb-brakka";
  gob1.combatantId = "cb-gob1";
  gob2.combatantId = "cb-gob2";
  w.combat = combat("combat0000000001", [brakka, gob1, gob2]);
  const bridges = [];
  for (const c of w.clients) {
    bridges.push(woundlog(c.env));
    c.env.Hooks.callAll("init");
    c.env.Hooks.callAll("ready");
  }
  return { w, gm: w.clients[0], bridges, brakka, gob1, gob2, play: new Table(w) };
}

function die(faces, ...results) {
  return {
    faces,
    results: results.map((r) => (Array.isArray(r) ? { result: r[0], active: false, [r[1]]: true } : { result: r, active: true })),
  };
}

function from(token) {
  return { originatingMessage: { speaker: { scene: "sceneMain0000001", token: token.id }, rolls: [] } };
}

function dealt(token, rolled) {
  return { originatingMessage: { speaker: { scene: "sceneMain0000001", token: token.id }, rolls: [rolled] } };
}

// The fight of tests/data/importers/foundry_fixtures.py, as hook calls.
function playTheFight({ play, gm, brakka, gob1, gob2 }, roller = gm) {
  play.turn(1, 0);
  play.applyDamage(gm, gob1.actor, 9, dealt(brakka, roll("1d12+3", 9, [die(12, 6)])));
  play.turn(1, 2);
  play.applyDamage(gm, brakka.actor, 5, from(gob2));
  play.turn(1, 1);
  play.turn(1, 2);
  play.applyDamage(gm, brakka.actor, 14, dealt(gob2, roll("2d6+2", 14, [die(6, 6, 6)], true)));
  play.turn(2, 0);
  play.rollDeathSave(roller, brakka.actor, roll("1d20", 14, [die(20, 14)]));
  play.applyDamage(gm, brakka.actor, 3, from(gob2));
  play.turn(3, 0);
  play.rollDeathSave(roller, brakka.actor, roll("2d20kh", 20, [die(20, [4, "discarded"], 20)], true));
  play.updateHP(gm, brakka.actor, 5);
}

// A fetch that keeps every import body it is given.
function recording(log) {
  return async (url, init = {}) => {
    if (init.method === "POST") log.push(JSON.parse(init.body));
    return fetch(url, init);
  };
}

const idle = (bridges) => () => bridges.every((b) => b.outbox.length === 0 && !b.sending);

test("the recorded fight makes the fight Foundry showed, in the fixture's shapes", async () => {
  const { fight, gm } = await newFight();
  const sent = [];
  const t = await table(fight, gm, { fetch: recording(sent) });
  try {
    playTheFight(t);
    await until(idle(t.bridges), "every envelope sent");
    const state = await get(fight, gm, "/state");
    const shown = Object.values(state.characters).map((c) => [c.name, c.state, c.hp]);
    assert.deepEqual(shown, [["Brakka", "upright", 5], ["Goblin (1)", "dead", 0], ["Goblin (2)", "upright", 7]]);
    const fixture = readFileSync(FIXTURE, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    const withoutIds = (records) => records.map(({ id, ...rest }) => rest);
    assert.deepEqual(withoutIds(sent), withoutIds(fixture));
  } finally {
    t.bridges.forEach((b) => b.stop());
  }
});

test("a send whose answer is lost is retried with the same id and counted once", async () => {
  const { fight, gm } = await newFight();
  const sent = [];
  let lost = 0;
  const flaky = async (url, init = {}) => {
    if (init.method !== "POST") return fetch(url, init);
    sent.push(JSON.parse(init.body).id);
    const response = await fetch(url, init); // the server has it...
    if (lost++ === 0) throw new TypeError("fetch failed"); // ...but the answer never arrives
    return response;
  };
  const t = await table(fight, gm, { fetch: flaky });
  try {
    t.play.turn(1, 0);
    t.play.applyDamage(t.gm, t.gob1.actor, 3, from(t.brakka));
    await until(idle(t.bridges), "both envelopes sent");
    assert.equal(sent[0], sent[1]); // the same envelope again
    assert.equal(new Set(sent).size, 2);
    const { events } = await get(fight, gm, "/events");
    const hits = events.filter((e) => e.event.type === "hit");
    assert.equal(hits.length, 1);
    assert.equal(hits[0].event.damage, 3);
  } finally {
    t.bridges.forEach((b) => b.stop());
  }
});

test("sends go one at a time, in the order the hooks fired", async () => {
  const { fight, gm } = await newFight();
  const order = [];
  let inFlight = 0;
  let most = 0;
  const slow = async (url, init = {}) => {
    if (init.method !== "POST") return fetch(url, init);
    most = Math.max(most, ++inFlight);
    order.push(JSON.parse(init.body).hook);
    if (order.length === 1) await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      return await fetch(url, init);
    } finally {
      inFlight--;
    }
  };
  const t = await table(fight, gm, { fetch: slow });
  try {
    t.play.turn(1, 0);
    t.play.applyDamage(t.gm, t.gob1.actor, 2, from(t.brakka));
    t.play.applyDamage(t.gm, t.gob1.actor, 2, from(t.brakka));
    await until(idle(t.bridges), "all sent");
    assert.equal(most, 1);
    assert.deepEqual(order, ["combatTurnChange", "dnd5e.applyDamage", "dnd5e.applyDamage"]);
    const { events } = await get(fight, gm, "/events");
    assert.deepEqual(events.map((e) => e.event.type).slice(-3), ["turn_started", "hit", "hit"]);
  } finally {
    t.bridges.forEach((b) => b.stop());
  }
});

test("only the active GM sends, and a player's death save reaches woundlog through it", async () => {
  const { fight, gm } = await newFight();
  const sent = [];
  const t = await table(fight, gm, { fetch: recording(sent), gms: 2, players: 1 });
  try {
    const player = t.w.clients.at(-1);
    playTheFight(t, player);
    await until(() => sent.length === 13 && idle(t.bridges)(), "13 envelopes, each sent once");
    assert.equal(new Set(sent.map((e) => e.id)).size, 13);
    assert.equal(sent.filter((e) => e.hook === "dnd5e.rollDeathSave").length, 2);
    const state = await get(fight, gm, "/state");
    assert.equal(state.characters["Scene.sceneMain0000001.Token.tkBrakka00000001"].state, "upright");
  } finally {
    t.bridges.forEach((b) => b.stop());
  }
});

test("woundlog's states become token statuses, explained in the GM's chat, and an undo takes them off", async () => {
  const { fight, gm } = await newFight();
  const t = await table(fight, gm);
  try {
    t.play.turn(1, 0);
    t.play.applyDamage(t.gm, t.gob1.actor, 9, from(t.brakka));
    t.play.applyDamage(t.gm, t.brakka.actor, 14, from(t.gob2));
    await until(() => t.gob1.actor.statuses.has("dead") && t.brakka.actor.statuses.has("unconscious"), "statuses on");
    assert.deepEqual(t.gob1.actor.toggled, [["dead", true]]);
    const chat = t.gm.chat.map((m) => m.content);
    assert.ok(chat.some((line) => line.includes("hit") && line.includes("Goblin (1)")), chat.join("\n"));
    assert.ok(t.gm.chat.every((m) => m.whisper.includes("gm")));

    t.brakka.actor.statuses.add("prone"); // the GM's own: the module leaves it alone
    const undo = await fetch(`${URL}/fights/${fight}/undo`, {
      method: "POST",
      headers: { Authorization: `Bearer ${gm}`, "Content-Type": "application/json" },
      body: JSON.stringify({ reason: "the goblin's blow missed" }),
    });
    assert.equal(undo.status, 200);
    await until(() => !t.brakka.actor.statuses.has("unconscious"), "unconscious taken off by the undo");
    assert.deepEqual(t.brakka.actor.toggled, [["unconscious", true], ["unconscious", false]]);
    assert.ok(t.brakka.actor.statuses.has("prone"));
    assert.ok(t.gob1.actor.statuses.has("dead")); // not undone
    await until(() => t.gm.chat.some((m) => m.content.includes("retract")), "the undo explained");
  } finally {
    t.bridges.forEach((b) => b.stop());
  }
});

test("the write token is kept in the GM's browser, never in a world setting", async () => {
  const { fight, gm } = await newFight();
  const t = await table(fight, gm);
  try {
    const scopes = Object.fromEntries([...t.gm.defaults].map(([key, data]) => [key, data.scope]));
    assert.equal(scopes.token, "client");
    assert.deepEqual(Object.keys(scopes).filter((k) => scopes[k] === "world").sort(), ["fight", "hpPath", "purpose", "statuses", "url"]);
  } finally {
    t.bridges.forEach((b) => b.stop());
  }
});

test("in another system the HP path setting says where hit points are", async () => {
  const { fight, gm } = await newFight();
  const w = world();
  const settings = { url: URL, fight, token: gm, hpPath: "system.health" };
  w.clients.push(client(w, { userId: "gm", isGM: true, isActiveGM: true, settings, system: "worldbuilding" }));
  const orc = makeToken(w, { tokenId: "tkOrc00000000001", name: "Orc", actorId: "actOrc0000000001",
    actorName: "Orc", type: "npc", hp: 10, player: false }); // prettier-ignore
  orc.actor.system = { health: { value: 10, max: 10 } };
  const bridges = w.clients.map((c) => woundlog(c.env));
  w.clients.forEach((c) => (c.env.Hooks.callAll("init"), c.env.Hooks.callAll("ready")));
  try {
    updateActor(w, w.clients[0], orc.actor, "system.health.value", 4);
    await until(idle(bridges), "the change sent");
    const state = await get(fight, gm, "/state");
    assert.deepEqual(Object.values(state.characters).map((c) => [c.name, c.hp]), [["Orc", 4]]);
  } finally {
    bridges.forEach((b) => b.stop());
  }
});

// The woundlog Owlbear Rodeo extension, installed from a real `woundlog serve` (started by
// tests/integrations/test_owlbear_extension.py, which passes WOUNDLOG_URL and
// WOUNDLOG_ADMIN_TOKEN), its background page run with the real SDK in each browser's frame
// (client.mjs) inside a stand-in of Owlbear Rodeo (owlbear.mjs), with Stat Bubbles and the
// Initiative Tracker writing their metadata as their source does (extensions.mjs). Every test
// compares woundlog's state with what the table shows: the stand-in's own items.
//
//     WOUNDLOG_URL=http://127.0.0.1:8000 WOUNDLOG_ADMIN_TOKEN=... node --test tests/integrations/owlbear/
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { BUBBLES, changeHealth, next, setStat, token } from "./extensions.mjs";
import { install } from "./install.mjs";
import { ORIGIN, Room } from "./owlbear.mjs";

const BASE = process.env.WOUNDLOG_URL;
const ADMIN = process.env.WOUNDLOG_ADMIN_TOKEN;
const STORED = { fight: "woundlog.owlbear.fight", token: "woundlog.owlbear.token", outbox: "woundlog.owlbear.outbox" };
let installed;
const rooms = [];
let fights = 0;

before(async () => {
  installed = await install(BASE);
});

after(async () => {
  for (const room of rooms) await room.close();
});

async function until(check, what, ms = 15000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`not within ${ms} ms: ${what}`);
}

async function newFight() {
  const fight = `owlbear-${process.pid}-${++fights}`;
  const response = await fetch(`${BASE}/fights`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ fight, ruleset: "dnd5e", seed: 1, options: { death_saves: "table" } }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return { fight, gm: (await response.json()).gm_token };
}

async function get(fight, gm, path) {
  const response = await fetch(`${BASE}/fights/${fight}${path}`, { headers: { Authorization: `Bearer ${gm}` } });
  assert.equal(response.status, 200, path);
  return response.json();
}

// Tordek (a player's token, 12 HP, initiative 15) and two goblins (stats hidden from the
// players: "Dungeon Master Only", 7 HP, initiatives 12 and 9), and a tree no extension marks.
function scene() {
  const room = new Room(`room${++fights}`);
  rooms.push(room);
  token(room, { id: "tordek", name: "Tordek", hp: 12, count: 15 });
  token(room, { id: "gob1", name: "Goblin 1", hp: 7, hide: true, count: 12 });
  token(room, { id: "gob2", name: "Goblin 2", hp: 7, hide: true, count: 9 });
  room.addImage({ id: "tree", name: "Tree", layer: "PROP" });
  return room;
}

function open(room, name, role, storage = {}) {
  return room.connect({ name, role, entry: installed.entry, page: installed.page, storage });
}

const shown = (room) => Object.fromEntries(room.items.filter((i) => i.metadata[BUBBLES]).map((i) => [i.id, i.metadata[BUBBLES].health]));
const imports = (client) => client.requests.filter((r) => r.method === "POST" && r.url.includes("/import/owlbear"));
const sent = (client) => JSON.parse(client.storage[STORED.outbox] ?? "[]").length === 0;

async function caughtUp(room, client, fight, gm) {
  await until(async () => {
    if (!sent(client)) return false;
    const state = await get(fight, gm, "/state");
    const hp = Object.fromEntries(Object.entries(state.characters).map(([id, c]) => [id, c.hp]));
    const table = Object.fromEntries(Object.entries(shown(room)).map(([id, h]) => [id, Math.max(h, 0)]));
    return JSON.stringify(hp) === JSON.stringify(table);
  }, "woundlog's hit points are the table's");
}

test("the extension is served for Owlbear Rodeo from the service's own address", () => {
  const { manifest, fetched } = installed;
  assert.equal(manifest.name, "woundlog");
  assert.equal(manifest.background_url, `${BASE}/integrations/owlbear/background.html`);
  assert.equal(manifest.action.popover, `${BASE}/integrations/owlbear/popover.html`);
  const names = [...fetched.keys()].map((url) => url.split("/").pop()).sort();
  assert.deepEqual(names, [
    "background.html",
    "background.mjs",
    "bridge.mjs",
    "icon.svg",
    "obr-sdk-3.1.0.mjs",
    "popover.css",
    "popover.html",
    "popover.mjs",
  ]);
  for (const [url, headers] of fetched) {
    // framed by Owlbear Rodeo's page, and by no other site
    assert.match(headers["content-security-policy"], /frame-ancestors https:\/\/www\.owlbear\.rodeo/, url);
  }
});

test("a GM's browser follows a three-round fight: hits, a heal, a death, turns", async () => {
  const { fight, gm } = await newFight();
  const room = scene();
  const table = await open(room, "dm", "GM", { [STORED.fight]: fight, [STORED.token]: gm });
  const player = await open(room, "tali", "PLAYER");
  await until(async () => Object.keys((await get(fight, gm, "/state")).characters).length === 3, "the three tokens joined");

  next(room); // round 1: Tordek
  changeHealth(room, "gob1", -9); // Tordek's axe: Goblin 1 at -2, dead
  next(room); // Goblin 1 (dead, its turn all the same: the tracker keeps it)
  next(room); // Goblin 2
  changeHealth(room, "tordek", -7); // 12 -> 5
  next(room); // round 2: Tordek
  changeHealth(room, "tordek", 4); // a potion: 9
  next(room);
  next(room);
  changeHealth(room, "tordek", -9); // 9 -> 0: dying
  next(room); // round 3: Tordek (the table rolls his death save)
  next(room);
  changeHealth(room, "gob2", -5);
  await caughtUp(room, table, fight, gm);

  const state = (await get(fight, gm, "/state")).characters;
  assert.deepEqual(
    Object.fromEntries(Object.entries(state).map(([id, c]) => [id, [c.state, c.hp]])),
    { tordek: ["downed", 0], gob1: ["dead", 0], gob2: ["upright", 2] },
  );
  const events = (await get(fight, gm, "/events?limit=500")).events.map((e) => e.event);
  const starts = events.filter((e) => e.type === "turn_started").map((e) => `${e.round}:${e.character}`);
  assert.deepEqual(starts, ["1:tordek", "1:gob1", "1:gob2", "2:tordek", "2:gob1", "2:gob2", "3:tordek", "3:gob1"]);
  assert.deepEqual(events.filter((e) => e.type === "turn_ended" && !e.character).map((e) => e.round), [1, 2]);
  assert.deepEqual(events.filter((e) => e.type === "heal").map((e) => e.amount), [4]);
  assert.equal(events.filter((e) => e.type === "check").length, 0); // no death save made up
  // the player's browser sent nothing; the GM's token never went into a URL
  assert.equal(imports(player).length, 0);
  assert.ok(imports(table).length > 0);
  for (const request of table.requests) assert.ok(!request.url.includes(gm), request.url);
  assert.deepEqual([...table.errors, ...player.errors], []);
  // the GM hears of Tordek's fall alone, once
  assert.deepEqual(room.notifications.map(([who, message]) => [who, message.replace(/ \(.*/, "")]), [
    ["dm", "woundlog: Tordek"],
  ]);
  assert.match(room.notifications[0][1], /is at 0 HP: Owlbear Rodeo rolls no death saves/);
});

test("of two GMs only the one with the lowest connection id sends, and the other takes over", async () => {
  const { fight, gm } = await newFight();
  const room = scene();
  const storage = { [STORED.fight]: fight, [STORED.token]: gm };
  const second = await room.connect({ name: "co-dm", role: "GM", entry: installed.entry, page: installed.page, storage, connectionId: "connB" });
  const first = await room.connect({ name: "dm", role: "GM", entry: installed.entry, page: installed.page, storage, connectionId: "connA" });
  await until(async () => Object.keys((await get(fight, gm, "/state")).characters).length === 3, "the three tokens joined");
  changeHealth(room, "gob1", -3);
  next(room);
  await caughtUp(room, first, fight, gm);
  const before = imports(second).length; // it sent the scene only while it was the only GM
  changeHealth(room, "gob2", -2);
  await caughtUp(room, first, fight, gm);
  assert.equal(imports(second).length, before, "the second GM sent a snapshot the first sent too");

  await room.leave(first); // the first GM closes the tab
  changeHealth(room, "tordek", -5);
  await caughtUp(room, second, fight, gm);
  const state = (await get(fight, gm, "/state")).characters;
  assert.deepEqual([state.tordek.hp, state.gob1.hp, state.gob2.hp], [7, 4, 5]);
  const hits = (await get(fight, gm, "/events?limit=500")).events.filter((e) => e.event.type === "hit");
  assert.equal(hits.length, 3, "each blow once");
  assert.deepEqual(room.notifications, []); // a hand-over is nothing to tell
});

test("a GM whose computer's clock is behind takes over without a blow skipped as old", async () => {
  const { fight, gm } = await newFight();
  const room = scene();
  const storage = { [STORED.fight]: fight, [STORED.token]: gm };
  const first = await open(room, "dm", "GM", storage);
  const late = await room.connect({ name: "co-dm", role: "GM", entry: installed.entry, page: installed.page, storage, connectionId: "zzz", skewMs: -60000 });
  changeHealth(room, "gob1", -2);
  await caughtUp(room, first, fight, gm);
  await room.leave(first);
  changeHealth(room, "gob2", -4); // the late clock's snapshot, a minute "before" the last one
  await caughtUp(room, late, fight, gm);
  const state = (await get(fight, gm, "/state")).characters;
  assert.deepEqual([state.gob1.hp, state.gob2.hp], [5, 3]);
});

test("a wrong token is told to the GM once, and a token entered in the popover sends what waited", async () => {
  const { fight, gm } = await newFight();
  const room = scene();
  const table = await open(room, "dm", "GM", { [STORED.fight]: fight, [STORED.token]: "wrong-token" });
  changeHealth(room, "gob1", -3);
  changeHealth(room, "gob2", -1);
  await until(() => room.notifications.length > 0, "the GM is told");
  await new Promise((resolve) => setTimeout(resolve, 200));
  const told = room.notifications.filter(([, message]) => message.includes("401"));
  assert.equal(told.length, 1, JSON.stringify(room.notifications));
  assert.match(told[0][1], /check the fight id and the gm token in woundlog's popover/);
  assert.ok(told[0][1].includes(`${BASE}/fights/${fight}/import/owlbear`));
  table.write(STORED.token, gm); // the popover, another page of the GM's browser
  await caughtUp(room, table, fight, gm);
  const state = (await get(fight, gm, "/state")).characters;
  assert.deepEqual([state.gob1.hp, state.gob2.hp], [4, 6]);
});

test("an unreachable service is told to the GM once; what waited is sent when it answers", async () => {
  const { fight, gm } = await newFight();
  const room = scene();
  const table = await open(room, "dm", "GM", { [STORED.fight]: fight, [STORED.token]: gm });
  await until(async () => Object.keys((await get(fight, gm, "/state")).characters).length === 3, "joined");
  table.network(false);
  changeHealth(room, "gob1", -3);
  next(room);
  changeHealth(room, "gob2", -6);
  await until(() => room.notifications.length > 0, "the GM is told");
  await until(() => JSON.parse(table.storage[STORED.outbox] ?? "[]").length === 3, "three snapshots kept");
  const told = room.notifications.filter(([, message]) => message.includes("cannot reach woundlog"));
  assert.equal(told.length, 1, JSON.stringify(room.notifications));
  assert.ok(told[0][1].includes(`${BASE}/fights/${fight}/import/owlbear`), told[0][1]);
  assert.equal(told[0][2], "ERROR");
  table.network(true); // retried after the first waits (0.5 s, 1 s, ...)
  await caughtUp(room, table, fight, gm);
  const state = (await get(fight, gm, "/state")).characters;
  assert.deepEqual([state.gob1.hp, state.gob2.hp], [4, 1]);
  const starts = (await get(fight, gm, "/events")).events.filter((e) => e.event.type === "turn_started");
  assert.equal(starts.length, 1); // Next, once, kept through the outage
});

test("a maximum a GM raises in Stat Bubbles (Aid at full HP) is followed, not refused", async () => {
  const { fight, gm } = await newFight();
  const room = scene();
  const table = await open(room, "dm", "GM", { [STORED.fight]: fight, [STORED.token]: gm });
  await until(async () => Object.keys((await get(fight, gm, "/state")).characters).length === 3, "joined");
  setStat(room, "tordek", "max health", 17);
  setStat(room, "tordek", "health", 17);
  await caughtUp(room, table, fight, gm);
  const tordek = (await get(fight, gm, "/state")).characters.tordek;
  assert.deepEqual([tordek.hp, tordek.max_hp], [17, 17]);
  assert.equal(room.notifications.length, 0, JSON.stringify(room.notifications));
  assert.equal(ORIGIN, "https://www.owlbear.rodeo");
});

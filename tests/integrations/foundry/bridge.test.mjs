// The woundlog Foundry module inside the port of Foundry's and dnd5e's hook order and timing
// (standin.mjs), against a real `woundlog serve` (started by
// tests/integrations/test_foundry_module.py, which passes WOUNDLOG_URL and
// WOUNDLOG_ADMIN_TOKEN). Every test compares woundlog's state, and the statuses the module
// writes back, with what Foundry's sheet and token show: the stand-in's own actors, whose HP
// the ported dnd5e code computes. Never with what the module sent.
//
//     WOUNDLOG_URL=http://127.0.0.1:8000 WOUNDLOG_ADMIN_TOKEN=... node --test tests/integrations/foundry/
//
// WOUNDLOG_MODULE names another build of the module to run the same tests on (an older one,
// to see a test fail).

import assert from "node:assert/strict";
import { test } from "node:test";

import { Actor5e, Combat, placeToken, roll, updateOther, World } from "./standin.mjs";
import { settle, until } from "./waiting.mjs";

const MODULE = process.env.WOUNDLOG_MODULE ?? "../../../replays/integrations/foundry/woundlog.mjs";
const { woundlog } = await import(new URL(MODULE, import.meta.url));
const URL_ = process.env.WOUNDLOG_URL;
const ADMIN = process.env.WOUNDLOG_ADMIN_TOKEN;
const DELAYS = 0.002; // the module's 30 s waits in 60 ms
let fights = 0;

function fightName() {
  return `foundry-${process.pid}-${++fights}`;
}

async function newFight(fight = fightName()) {
  const response = await fetch(`${URL_}/fights`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ fight, ruleset: "dnd5e", seed: 1, options: { death_saves: "table" } }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  const { gm_token: gm, viewer_token: viewer } = await response.json();
  return { fight, gm, viewer };
}

async function get(fight, gm, path) {
  const response = await fetch(`${URL_}/fights/${fight}${path}`, { headers: { Authorization: `Bearer ${gm}` } });
  assert.equal(response.status, 200, path);
  return response.json();
}

function idle(bridges) {
  return () => bridges.every((b) => (b.idle ? b.idle() : b.outbox.length === 0 && !b.sending));
}

// Brakka (a player's linked character, 20 HP) and two unlinked goblins of one base actor
// (7 HP), in a combat; GM clients first (the first the active GM's), then players.
function table(fight, gm, { fetch, foundry = 13, dnd5e = "5.3.3", players = 0, gms = 1, token = gm, hp = 20 } = {}) {
  const w = new World({ foundry, dnd5e });
  const settings = { url: URL_, fight, token };
  const brakka = new Actor5e(w, { id: "actBrakka0000001", name: "Brakka", type: "character", hp, player: true });
  const goblin = new Actor5e(w, { id: "actGoblin0000001", name: "Goblin", type: "npc", hp: 7, player: false });
  const tokens = {
    brakka: placeToken(w, { tokenId: "tkBrakka00000001", name: "Brakka", actor: brakka, linked: true }),
    gob1: placeToken(w, { tokenId: "tkGoblin00000001", name: "Goblin (1)", actor: goblin }),
    gob2: placeToken(w, { tokenId: "tkGoblin00000002", name: "Goblin (2)", actor: goblin }),
  };
  for (const [key, t] of Object.entries(tokens)) t.combatantId = `cb-${key}`;
  w.combat = new Combat(w, "combat0000000001", Object.values(tokens));
  const t = { w, fight, brakka, gob1: tokens.gob1.actor, gob2: tokens.gob2.actor, tokens, bridges: [] };
  t.join = (options) => {
    const c = w.connect({ delays: DELAYS, fetch, ...options });
    const bridge = woundlog(c.env);
    t.bridges.push(bridge);
    c.env.Hooks.callAll("init");
    c.env.Hooks.callAll("ready");
    return c;
  };
  for (let i = 0; i < gms; i++) t.join({ userId: i === 0 ? "gm" : `gm${i + 1}`, isGM: true, settings });
  for (let i = 0; i < players; i++) t.join({ userId: `player${i}`, settings: { token: "" } });
  t.gm = w.clients[0];
  t.stop = () => t.bridges.forEach((b) => b.stop());
  // a browser closed: its user leaves, and nothing of it runs any more
  t.leave = (c) => {
    w.disconnect(c);
    t.bridges[w.clients.indexOf(c)].stop();
  };
  return t;
}

function from(t, token) {
  return { originatingMessage: { speaker: { scene: "sceneMain0000001", token: token.id }, rolls: [] } };
}

// What Foundry shows of a character, as woundlog names its states: a character dead at
// three failed death saves, downed (dnd5e's unconscious) at 0 HP before that; an NPC at 0 HP
// dead (dnd5e's NPCs make no death saves: the sheet has none); else upright. And its HP.
function shown(actor) {
  const { hp, death } = actor.system.attributes;
  const down = actor.type === "npc" || death.failure >= 3 ? "dead" : "downed";
  return { hp: hp.value, state: hp.value === 0 ? down : "upright" };
}

// The statuses a token of each state shows (the module's default table, dnd5e's names).
const STATUSES = { upright: [], downed: ["unconscious"], dead: ["dead"] };
const WRITTEN = new Set(["prone", "unconscious", "dead"]);

// woundlog's state of the character is Foundry's, and, once the active GM's browser has read
// the stream to its end, its token shows the statuses of that state.
async function sameAsFoundry(t, gm, actor, uuid) {
  const state = await get(t.fight, gm, "/state");
  const c = state.characters[uuid];
  assert.ok(c, `${uuid} is in woundlog`);
  const foundry = shown(actor);
  assert.deepEqual({ hp: c.hp, state: c.state }, foundry);
  const reader = () => t.w.clients.find((client, i) => client.connected && t.bridges[i].active);
  const seen = () => reader()?.values.get("seen")?.[t.fight] ?? 0;
  await until(() => seen() >= state.version, `the stream read to #${state.version}`);
  assert.deepEqual([...actor.statuses].filter((s) => WRITTEN.has(s)).sort(), STATUSES[foundry.state]);
  return c;
}

const BRAKKA = "Actor.actBrakka0000001";
const GOBLIN_1 = "Scene.sceneMain0000001.Token.tkGoblin00000001";
const GOBLIN_2 = "Scene.sceneMain0000001.Token.tkGoblin00000002";

for (const dnd5e of ["5.3.3", "4.4.4", "3.3.1"]) {
  test(`dnd5e ${dnd5e}: a blow that leaves a character bloodied is one hit, and so is a second one before the first's HP hook`, async () => {
    const { fight, gm } = await newFight();
    const t = table(fight, gm, { dnd5e });
    try {
      await t.brakka.applyDamage(12, from(t, t.tokens.gob1), t.gm); // 20 -> 8: the Bloodied effect is made
      await t.brakka.applyDamage(3, from(t, t.tokens.gob1), t.gm); // 8 -> 5 before the first's damageActor
      await settle();
      await until(idle(t.bridges), "every envelope sent");
      assert.equal(t.brakka.hp.value, 5);
      if (dnd5e !== "3.3.1") assert.ok(t.brakka.statuses.has("bloodied"));
      await sameAsFoundry(t, gm, t.brakka, BRAKKA);
      await settle(150);
      assert.ok(!t.brakka.statuses.has("unconscious"), "no unconscious status on a character at 5 HP");
    } finally {
      t.stop();
    }
  });

  test(`dnd5e ${dnd5e}: death saves in its hook signature, decided by their total against 10`, async () => {
    const { fight, gm } = await newFight();
    const t = table(fight, gm, { dnd5e, players: 1 });
    const player = t.w.clients.at(-1);
    try {
      await t.brakka.applyDamage(20, from(t, t.tokens.gob1), t.gm); // 20 -> 0: downed
      await t.brakka.rollDeathSave(8, 3, player); // 11: a success, whatever the natural 8
      await t.brakka.rollDeathSave(12, -4, player); // 8: a failure, whatever the natural 12
      await settle();
      await until(idle(t.bridges), "every envelope sent");
      const c = await sameAsFoundry(t, gm, t.brakka, BRAKKA);
      const { death } = t.brakka.system.attributes;
      assert.deepEqual([death.success, death.failure], [1, 1]);
      assert.deepEqual([c.successes, c.failures], [1, 1]);
      await t.brakka.rollDeathSave(20, 0, player, { advantage: 3 }); // a natural 20: back at 1 HP
      await settle();
      await until(idle(t.bridges), "the revival sent");
      assert.equal(t.brakka.hp.value, 1);
      await sameAsFoundry(t, gm, t.brakka, BRAKKA);
    } finally {
      t.stop();
    }
  });
}

test("Foundry v12, whose User has no isActiveGM: the active GM sends", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm, { foundry: 12, players: 1 });
  try {
    assert.equal(t.gm.env.game.user.isActiveGM, undefined);
    await t.gob1.applyDamage(4, from(t, t.tokens.brakka), t.gm);
    await t.w.combat.startCombat(t.gm);
    await settle(100);
    await until(idle(t.bridges), "sent");
    await sameAsFoundry(t, gm, t.gob1, GOBLIN_1);
    const { events } = await get(fight, gm, "/events");
    assert.ok(events.some((e) => e.event.type === "turn_started" && e.event.character === BRAKKA));
  } finally {
    t.stop();
  }
});

test("Aid's tempmax: HP above the maximum is taken in, and the character's blows keep arriving", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    // +5 to the maximum and to HP, typed on the sheet: the stored data (an update writes it;
    // Aid's own effect is in maximum.test.mjs)
    Object.assign(t.brakka._source.system.attributes.hp, { tempmax: 5, value: 25 });
    t.brakka.prepare();
    await t.brakka.applyDamage(3, from(t, t.tokens.gob1), t.gm); // 25 -> 22
    await t.brakka.applyDamage(4, from(t, t.tokens.gob1), t.gm); // 22 -> 18
    await settle();
    await until(idle(t.bridges), "sent");
    await sameAsFoundry(t, gm, t.brakka, BRAKKA);
  } finally {
    t.stop();
  }
});

async function turns(fight, gm) {
  const { events } = await get(fight, gm, "/events");
  return events
    .filter((e) => ["turn_started", "turn_ended"].includes(e.event.type) && e.event.character)
    .map((e) => `${e.event.type === "turn_started" ? "+" : "-"}${e.event.round}:${e.event.character.split(".").at(-1)}`);
}

test("deleting the combatant whose turn it is starts the next one's turn", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await t.w.combat.startCombat(t.gm); // Brakka
    await t.w.combat.nextTurn(t.gm); // Goblin (1)
    await settle(100);
    await t.w.combat.deleteCombatant("cb-gob1"); // Goblin (2) has turn index 1 now
    await settle(100);
    await until(idle(t.bridges), "sent");
    assert.equal(t.w.combat.combatants[t.w.combat.turn].id, "cb-gob2");
    assert.deepEqual(await turns(fight, gm), ["+1:actBrakka0000001", "-1:actBrakka0000001", "+1:tkGoblin00000001",
      "-1:tkGoblin00000001", "+1:tkGoblin00000002"]); // prettier-ignore
  } finally {
    t.stop();
  }
});

test("two quick Next Turn clicks on v13, whose combatTurnChange comes late with its prior overwritten, lose no turn", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await t.w.combat.startCombat(t.gm);
    await settle(100);
    await t.w.combat.nextTurn(t.gm); // the update is done; its hook waits for the turn events
    await t.w.combat.nextTurn(t.gm); // a second click before it
    await settle(150);
    await until(idle(t.bridges), "sent");
    assert.deepEqual(await turns(fight, gm), ["+1:actBrakka0000001", "-1:actBrakka0000001", "+1:tkGoblin00000001",
      "-1:tkGoblin00000001", "+1:tkGoblin00000002"]); // prettier-ignore
  } finally {
    t.stop();
  }
});

for (const why of [
  "a fight not made yet (the service answers 401: no token knows it)",
  "a wrong token (401)",
  "a viewer's token, which may not write (403)",
]) {
  test(`${why}: the envelopes are held, the GM told, and they go once it is put right`, async () => {
    const fight = fightName();
    const made = why.startsWith("a fight") ? null : await newFight(fight);
    const wrong = !made ? "none-yet" : why.includes("viewer") ? made.viewer : "not-the-token";
    const t = table(fight, wrong, { token: wrong });
    try {
      await t.gob1.applyDamage(5, from(t, t.tokens.brakka), t.gm);
      const status = why.match(/40\d/)[0];
      await until(() => t.gm.chat.some((m) => m.content.includes(`woundlog answers ${status}`)), "the GM told");
      await settle(200); // several retries, slowly
      const right = made ?? (await newFight(fight));
      await t.gm.env.game.settings.set("woundlog", "token", right.gm);
      await until(idle(t.bridges), "sent once put right");
      await sameAsFoundry(t, right.gm, t.gob1, GOBLIN_1);
    } finally {
      t.stop();
    }
  });
}

test("what the rules refuse in a 200 answer is whispered to the GM", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await t.gob1.applyDamage(9, from(t, t.tokens.brakka), t.gm); // a monster at 0 dies in woundlog
    await t.gob1.update({ "system.attributes.hp.value": 3 }, {}, t.gm); // the GM heals it on the sheet
    await settle();
    await until(idle(t.bridges), "sent");
    await until(() => t.gm.chat.some((m) => m.content.includes("left out")), "the warning whispered");
    const warning = t.gm.chat.find((m) => m.content.includes("left out"));
    assert.ok(warning.whisper.includes("gm"));
  } finally {
    t.stop();
  }
});

test("when the active GM leaves, the next GM sends and writes the statuses back", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm, { gms: 2 });
  try {
    const second = t.w.clients[1];
    await second.env.game.settings.set("woundlog", "token", gm);
    t.leave(t.gm);
    await t.brakka.applyDamage(20, from(t, t.tokens.gob1), second); // 20 -> 0 from the second GM
    await settle();
    await until(idle(t.bridges.slice(1)), "sent by the second GM");
    await sameAsFoundry(t, gm, t.brakka, BRAKKA);
    await until(() => t.brakka.statuses.has("unconscious"), "written back by the second GM");
  } finally {
    t.stop();
  }
});

test("a GM who takes the active GM's place back is handed the envelopes the other could not send", async () => {
  const { fight, gm } = await newFight();
  const unreachable = async () => {
    throw new TypeError("fetch failed"); // the second GM's browser cannot reach the service
  };
  const t = table(fight, gm, { gms: 1 });
  try {
    t.leave(t.gm);
    const second = t.join({ userId: "gm2", isGM: true, settings: { url: URL_, fight, token: gm }, fetch: unreachable });
    await t.brakka.applyDamage(7, from(t, t.tokens.gob1), second);
    await settle(100);
    assert.equal(t.bridges.at(-1).outbox.envelopes.length, 1); // kept, retried
    const back = t.join({ userId: "gm", isGM: true, settings: { url: URL_, fight, token: gm } }); // "gm" < "gm2"
    await settle(100);
    await until(idle(t.bridges), "handed over and sent");
    assert.equal(t.w.activeGM().id, "gm");
    await sameAsFoundry(t, gm, t.brakka, BRAKKA);
    assert.ok(back.connected);
  } finally {
    t.stop();
  }
});

test("the stream is read from where each fight was left, not where another fight was", async () => {
  const first = await newFight();
  const t = table(first.fight, first.gm);
  try {
    for (let i = 0; i < 6; i++) await t.gob2.applyDamage(0 + 1, from(t, t.tokens.brakka), t.gm);
    await settle();
    await until(idle(t.bridges), "the first fight sent");
    await until(async () => (await get(first.fight, first.gm, "/state")).characters[GOBLIN_2]?.hp === 1, "first fight");
    await settle(100);
    const second = await newFight();
    await t.gm.env.game.settings.set("woundlog", "token", second.gm);
    await t.gm.env.game.settings.set("woundlog", "fight", second.fight);
    t.fight = second.fight;
    await t.gob1.applyDamage(9, from(t, t.tokens.brakka), t.gm); // Goblin (1) dies in the second fight
    await settle();
    await until(idle(t.bridges), "the second fight sent");
    await until(() => t.gob1.statuses.has("dead"), "the second fight's statuses written back");
  } finally {
    t.stop();
  }
});

test("a linked character hit from its sheet with no token in the combat or on the scene is the same character", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await t.w.combat.startCombat(t.gm); // Brakka joins through the turn order, with his token
    await settle(100);
    t.w.combat = null; // the combat ends, his token is taken off the scene
    t.w.documents.delete(t.tokens.brakka.uuid);
    await t.brakka.applyDamage(6, { originatingMessage: null }, t.gm);
    await settle();
    await until(idle(t.bridges), "sent");
    const state = await get(fight, gm, "/state");
    const named = Object.entries(state.characters).filter(([, c]) => c.name === "Brakka");
    assert.deepEqual(named.map(([id]) => id), [BRAKKA]);
    await sameAsFoundry(t, gm, t.brakka, BRAKKA);
  } finally {
    t.stop();
  }
});

test("a fight played through: woundlog ends where Foundry's sheets are", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm, { players: 1, gms: 2 });
  const player = t.w.clients.at(-1);
  const combat = t.w.combat;
  try {
    await combat.startCombat(t.gm);
    const axe = roll("1d12+3", 9, [{ faces: 12, results: [{ result: 6, active: true }] }]);
    await t.gob1.applyDamage(9, { originatingMessage: { speaker: { scene: "sceneMain0000001", token: "tkBrakka00000001" }, rolls: [axe] } }, t.gm);
    await combat.nextTurn(t.gm);
    await combat.nextTurn(t.gm);
    await t.brakka.applyDamage(5, from(t, t.tokens.gob2), t.gm); // 20 -> 15
    await t.brakka.applyDamage(14, from(t, t.tokens.gob2), t.gm); // 15 -> 1: bloodied
    await t.brakka.applyDamage(3, from(t, t.tokens.gob2), t.gm); // 1 -> 0, 2 past 0: downed
    await combat.nextTurn(t.gm); // round 2, Brakka's turn: he rolls
    await t.brakka.rollDeathSave(7, 4, player); // 11: a success
    await t.brakka.update({ "system.attributes.hp.value": 6 }, {}, t.gm); // a potion, on the sheet
    await settle(150);
    await until(idle(t.bridges), "every envelope sent");
    await sameAsFoundry(t, gm, t.brakka, BRAKKA);
    await sameAsFoundry(t, gm, t.gob1, GOBLIN_1);
    await sameAsFoundry(t, gm, t.gob2, GOBLIN_2);
    await until(() => t.gob1.statuses.has("dead"), "the dead goblin's status");
    await settle(150);
    assert.ok(!t.brakka.statuses.has("unconscious"), "Brakka is up again on his token");
  } finally {
    t.stop();
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
  const t = table(fight, gm, { fetch: flaky });
  try {
    await t.gob1.applyDamage(3, from(t, t.tokens.brakka), t.gm);
    await settle();
    await until(idle(t.bridges), "sent");
    assert.equal(sent[0], sent[1]);
    const { events } = await get(fight, gm, "/events");
    assert.equal(events.filter((e) => e.event.type === "hit").length, 1);
    await sameAsFoundry(t, gm, t.gob1, GOBLIN_1);
  } finally {
    t.stop();
  }
});

test("sends go one at a time, in the order the hooks fired", async () => {
  const { fight, gm } = await newFight();
  let inFlight = 0;
  let most = 0;
  const order = [];
  const slow = async (url, init = {}) => {
    if (init.method !== "POST") return fetch(url, init);
    most = Math.max(most, ++inFlight);
    order.push(JSON.parse(init.body).hook);
    if (order.length === 1) await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      return await fetch(url, init);
    } finally {
      inFlight--;
    }
  };
  const t = table(fight, gm, { fetch: slow });
  try {
    await t.w.combat.startCombat(t.gm);
    await settle(100);
    await t.gob1.applyDamage(2, from(t, t.tokens.brakka), t.gm);
    await t.gob1.applyDamage(2, from(t, t.tokens.brakka), t.gm);
    await settle();
    await until(idle(t.bridges), "all sent");
    assert.equal(most, 1);
    assert.deepEqual(order, ["combatTurnChange", "dnd5e.applyDamage", "dnd5e.applyDamage"]);
    await sameAsFoundry(t, gm, t.gob1, GOBLIN_1);
  } finally {
    t.stop();
  }
});

test("woundlog's states become token statuses, explained in the GM's chat, and an undo takes them off", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await t.gob1.applyDamage(9, from(t, t.tokens.brakka), t.gm);
    await t.brakka.applyDamage(20, from(t, t.tokens.gob2), t.gm);
    await until(() => t.gob1.statuses.has("dead") && t.brakka.statuses.has("unconscious"), "statuses on");
    assert.deepEqual(t.gob1.toggled, [["dead", true]]);
    const chat = t.gm.chat.map((m) => m.content);
    assert.ok(chat.some((line) => line.includes("hit") && line.includes("Goblin (1)")), chat.join("\n"));
    assert.ok(t.gm.chat.every((m) => m.whisper.includes("gm")));
    t.brakka.statuses.add("prone"); // the GM's own: the module leaves it alone
    const undo = await fetch(`${URL_}/fights/${fight}/undo`, {
      method: "POST",
      headers: { Authorization: `Bearer ${gm}`, "Content-Type": "application/json" },
      body: JSON.stringify({ reason: "the goblin's blow missed" }),
    });
    assert.equal(undo.status, 200);
    await until(() => !t.brakka.statuses.has("unconscious"), "unconscious taken off by the undo");
    assert.deepEqual(t.brakka.toggled, [["unconscious", true], ["unconscious", false]]);
    assert.ok(t.brakka.statuses.has("prone"));
    assert.ok(t.gob1.statuses.has("dead"));
  } finally {
    t.stop();
  }
});

test("the write token is kept in the GM's browser, never in a world setting", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    const scopes = Object.fromEntries([...t.gm.defaults].map(([key, data]) => [key, data.scope]));
    assert.equal(scopes.token, "client");
    assert.deepEqual(Object.keys(scopes).filter((k) => scopes[k] === "world").sort(), ["fight", "hpPath", "purpose", "statuses", "url"]);
  } finally {
    t.stop();
  }
});

test("in another system the HP path setting says where hit points are", async () => {
  const { fight, gm } = await newFight();
  const w = new World();
  const c = w.connect({ userId: "gm", isGM: true, settings: { url: URL_, fight, token: gm, hpPath: "system.health" }, system: "worldbuilding" });
  const orc = new Actor5e(w, { id: "actOrc0000000001", name: "Orc", type: "npc", hp: 10, player: false });
  placeToken(w, { tokenId: "tkOrc00000000001", name: "Orc", actor: orc });
  const token = w.documents.get("Scene.sceneMain0000001.Token.tkOrc00000000001");
  token.actor.system = { health: { value: 10, max: 10 } };
  const bridge = woundlog(c.env);
  c.env.Hooks.callAll("init");
  c.env.Hooks.callAll("ready");
  try {
    await updateOther(w, c, token.actor, "system.health.value", 4);
    await until(idle([bridge]), "the change sent");
    const state = await get(fight, gm, "/state");
    assert.deepEqual(Object.values(state.characters).map((ch) => [ch.name, ch.hp]), [["Orc", 4]]);
  } finally {
    bridge.stop();
  }
});

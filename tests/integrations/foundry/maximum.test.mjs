// Issue 41, live: a maximum that moves (Aid's ActiveEffect, Life Drain's `maximum` damage, a
// sheet's temp max) and Revivify after three failed death saves, each ending in woundlog as
// Foundry's sheet shows it: HP, maximum, alive or dead, and the token's statuses. The woundlog
// module inside the stand-in (standin.mjs, whose section "dnd5e's prepared hit points" ports
// dnd5e 5.3.3's stored and prepared data, Aid's effect and `applyDamage` with the `maximum`
// type), against a real `woundlog serve` (tests/integrations/test_foundry_module.py).

import assert from "node:assert/strict";
import { test } from "node:test";

import { Actor5e, aidEffect, Combat, createEffect, deleteEffect, placeToken, World } from "./standin.mjs";
import { settle, until } from "./waiting.mjs";

const MODULE = process.env.WOUNDLOG_MODULE ?? "../../../replays/integrations/foundry/woundlog.mjs";
const { woundlog } = await import(new URL(MODULE, import.meta.url));
const URL_ = process.env.WOUNDLOG_URL;
const ADMIN = process.env.WOUNDLOG_ADMIN_TOKEN;
const DELAYS = 0.002; // the module's 30 s waits in 60 ms
const BRAKKA = "Actor.actBrakka0000001";
let fights = 0;

// A fight made as the README's Foundry steps make it: death saves from the table, and dnd5e's
// revivals followed (`--option revival=true`).
async function newFight() {
  const fight = `maximum-${process.pid}-${++fights}`;
  const response = await fetch(`${URL_}/fights`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ fight, ruleset: "dnd5e", seed: 1, options: { death_saves: "table", revival: true } }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  const { gm_token: gm } = await response.json();
  return { fight, gm };
}

// Brakka (a player's linked character, 20 HP) in a combat; the GM's browser and a player's.
function table(fight, gm) {
  const w = new World({ foundry: 13, dnd5e: "5.3.3" });
  const brakka = new Actor5e(w, { id: "actBrakka0000001", name: "Brakka", type: "character", hp: 20, player: true });
  const token = placeToken(w, { tokenId: "tkBrakka00000001", name: "Brakka", actor: brakka, linked: true });
  token.combatantId = "cb-brakka";
  w.combat = new Combat(w, "combat0000000001", [token]);
  const bridges = [];
  const join = (options) => {
    const c = w.connect({ delays: DELAYS, ...options });
    bridges.push(woundlog(c.env));
    c.env.Hooks.callAll("init");
    c.env.Hooks.callAll("ready");
    return c;
  };
  const gmClient = join({ userId: "gm", isGM: true, settings: { url: URL_, fight, token: gm } });
  const player = join({ userId: "player0", settings: { token: "" } });
  return { w, fight, gm: gmClient, player, brakka, bridges, stop: () => bridges.forEach((b) => b.stop()) };
}

async function sent(t) {
  await settle();
  await until(() => t.bridges.every((b) => b.idle()), "every envelope sent");
}

// What the sheet shows: HP, the effective maximum, and dead at three failed saves at 0 HP.
function shown(actor) {
  const { hp, death } = actor.system.attributes;
  const state = hp.value > 0 ? "upright" : death.failure >= 3 ? "dead" : "downed";
  return { hp: hp.value, max_hp: hp.effectiveMax, state };
}

async function sameAsFoundry(t, gm, expected) {
  assert.deepEqual(shown(t.brakka), expected, "the stand-in's sheet");
  const answer = await fetch(`${URL_}/fights/${t.fight}/state`, { headers: { Authorization: `Bearer ${gm}` } });
  const state = await answer.json();
  const c = state.characters[BRAKKA];
  assert.deepEqual({ hp: c.hp, max_hp: c.max_hp, state: c.state }, expected, "woundlog");
  const seen = () => t.gm.values.get("seen")?.[t.fight] ?? 0;
  await until(() => seen() >= state.version, `the stream read to #${state.version}`);
  assert.equal(t.brakka.statuses.has("dead"), expected.state === "dead", "the dead overlay");
}

test("Aid at full HP, then a blow: 22 of 25, as the sheet shows", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await createEffect(t.brakka, aidEffect(), t.gm); // the maximum 20 -> 25, no HP hook
    await t.brakka.applyDamage([{ value: 5, type: "healing" }], {}, t.gm); // Aid's heal: 25/25
    assert.equal(t.brakka._source.system.attributes.hp.tempmax, 0, "the stored tempmax under Aid");
    await t.brakka.applyDamage(3, {}, t.gm);
    await sent(t);
    await sameAsFoundry(t, gm, { hp: 22, max_hp: 25, state: "upright" });
    await deleteEffect(t.brakka, aidEffect().id, t.gm); // Aid ends: 22 of 20 prepared as 20
    await sent(t);
    await sameAsFoundry(t, gm, { hp: 20, max_hp: 20, state: "upright" });
  } finally {
    t.stop();
  }
});

test("Life Drain (7 necrotic, 7 `maximum`) at full HP: 13 of 13", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await t.brakka.applyDamage([{ value: 7, type: "necrotic" }, { value: 7, type: "maximum" }], {}, t.gm);
    await sent(t);
    await sameAsFoundry(t, gm, { hp: 13, max_hp: 13, state: "upright" });
    await t.brakka.applyDamage([{ value: 3, type: "maximum" }], {}, t.gm); // the maximum alone
    await sent(t);
    await sameAsFoundry(t, gm, { hp: 10, max_hp: 10, state: "upright" });
  } finally {
    t.stop();
  }
});

test("a temp max typed on the sheet, then lowered at full HP: 20 of 20", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  const hp = (key, value) => t.brakka.update({ [`system.attributes.hp.${key}`]: value }, {}, t.gm);
  try {
    await hp("tempmax", 5); // raised: the prepared HP stay 20, no HP hook
    await hp("value", 25); // healed on the sheet
    await sent(t);
    await sameAsFoundry(t, gm, { hp: 25, max_hp: 25, state: "upright" });
    await hp("tempmax", 0); // lowered at full HP: the prepared HP fall to 20, a damageActor of -5
    await sent(t);
    await sameAsFoundry(t, gm, { hp: 20, max_hp: 20, state: "upright" });
  } finally {
    t.stop();
  }
});

test("Revivify after three failed death saves: alive at 1 HP, the dead overlay gone", async () => {
  const { fight, gm } = await newFight();
  const t = table(fight, gm);
  try {
    await t.brakka.applyDamage(20, {}, t.gm); // 0 HP: dying
    for (const natural of [5, 6, 7]) await t.brakka.rollDeathSave(natural, 0, t.player);
    await sent(t);
    await sameAsFoundry(t, gm, { hp: 0, max_hp: 20, state: "dead" });
    await t.brakka.applyDamage([{ value: 1, type: "healing" }], {}, t.gm); // Revivify's activity
    assert.equal(t.brakka.system.attributes.death.failure, 0, "dnd5e's preUpdateHP cleared them");
    await sent(t);
    await sameAsFoundry(t, gm, { hp: 1, max_hp: 20, state: "upright" });
  } finally {
    t.stop();
  }
});

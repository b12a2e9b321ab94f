// A table for the node tests of the GM's side of the module (leaving.test.mjs, reach.test.mjs,
// releases.test.mjs): a world of the stand-in (standin.mjs) whose clients run the module, a
// woundlog fight on the real `woundlog serve` (WOUNDLOG_URL, WOUNDLOG_ADMIN_TOKEN), and what
// Foundry shows, to compare woundlog's state with.
import assert from "node:assert/strict";

import { Actor5e, Combat, placeToken, World } from "./standin.mjs";

const MODULE = process.env.WOUNDLOG_MODULE ?? "../../../replays/integrations/foundry/woundlog.mjs";
export const { woundlog } = await import(new URL(MODULE, import.meta.url));
export const URL_ = process.env.WOUNDLOG_URL;
const ADMIN = process.env.WOUNDLOG_ADMIN_TOKEN;
export const DELAYS = 0.002; // the module's 30 s waits in 60 ms
export const BRAKKA = "Actor.actBrakka0000001";
export const GOBLIN = "Scene.sceneMain0000001.Token.tkGoblin00000001";
let fights = 0;

export async function newFight(prefix) {
  const fight = `${prefix}-${process.pid}-${++fights}`;
  const response = await fetch(`${URL_}/fights`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ fight, ruleset: "dnd5e", seed: 1, options: { death_saves: "table" } }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  const { gm_token: gm } = await response.json();
  return { fight, gm };
}

export async function get(fight, gm, path) {
  const response = await fetch(`${URL_}/fights/${fight}${path}`, { headers: { Authorization: `Bearer ${gm}` } });
  assert.equal(response.status, 200, path);
  return response.json();
}

// Brakka (a player's linked character, 20 HP) and a goblin (an unlinked token, 7 HP) in a
// combat, on Foundry `foundry` with dnd5e `dnd5e`; nobody connected yet: `join` connects a
// browser, which runs the module, `leave` closes one.
export function table(fight, { foundry = 13, dnd5e = "5.3.3" } = {}) {
  const w = new World({ foundry, dnd5e });
  const brakka = new Actor5e(w, { id: "actBrakka0000001", name: "Brakka", type: "character", hp: 20, player: true });
  const goblin = new Actor5e(w, { id: "actGoblin0000001", name: "Goblin", type: "npc", hp: 7, player: false });
  const tokens = {
    brakka: placeToken(w, { tokenId: "tkBrakka00000001", name: "Brakka", actor: brakka, linked: true }),
    goblin: placeToken(w, { tokenId: "tkGoblin00000001", name: "Goblin (1)", actor: goblin }),
  };
  for (const [key, t] of Object.entries(tokens)) t.combatantId = `cb-${key}`;
  w.combat = new Combat(w, "combat0000000001", Object.values(tokens));
  const t = { w, fight, brakka, goblin: tokens.goblin.actor, tokens, bridges: new Map() };
  t.join = (options) => {
    const c = w.connect({ delays: DELAYS, ...options });
    const bridge = woundlog(c.env);
    t.bridges.set(c, bridge);
    c.env.Hooks.callAll("init");
    c.env.Hooks.callAll("ready");
    return c;
  };
  // a browser closed: its user leaves, and nothing of it runs any more
  t.leave = (c) => {
    w.disconnect(c);
    t.bridges.get(c).stop();
  };
  t.stop = () => [...t.bridges.values()].forEach((b) => b.stop());
  t.idle = () => [...t.bridges].every(([c, b]) => !c.connected || b.idle());
  t.told = (c, text) => c.chat.filter((m) => m.content.includes(text));
  return t;
}

// A blow from `from`'s token, as dnd5e's damage application makes it on client `by`.
export function blow(t, actor, damage, by, from = t.tokens.goblin) {
  const options = { originatingMessage: { speaker: { scene: "sceneMain0000001", token: from.id }, rolls: [] } };
  return actor.applyDamage(damage, options, by);
}

// What Foundry shows of a character, as woundlog names its states, and its HP.
export function shown(actor) {
  const { hp, death } = actor.system.attributes;
  const down = actor.type === "npc" || death.failure >= 3 ? "dead" : "downed";
  return { hp: hp.value, state: hp.value === 0 ? down : "upright" };
}

export async function sameAsFoundry(t, gm, actor, uuid) {
  const state = await get(t.fight, gm, "/state");
  const c = state.characters[uuid];
  assert.ok(c, `${uuid} is in woundlog`);
  assert.deepEqual({ hp: c.hp, state: c.state }, shown(actor));
  return c;
}

// A fetch that counts each envelope's successful sends, by id, and may be cut off.
export function counting(fetch = globalThis.fetch) {
  const sent = new Map();
  const wrapped = async (url, init = {}) => {
    const response = await fetch(url, init);
    if (init.method === "POST" && response.ok) {
      const id = JSON.parse(init.body).id;
      sent.set(id, (sent.get(id) ?? 0) + 1);
    }
    return response;
  };
  return { fetch: wrapped, sent };
}

// A GM who leaves: the envelopes a GM's browser holds unsent are kept in that user's flag
// (Foundry's database, seen by every client), so when the GM closes the tab the GM who becomes
// the active one sends them, once, and a GM who comes back sends nothing twice. Against a real
// `woundlog serve`, in the stand-in's port of Foundry's users, flags and hand-over
// (standin.mjs); run by tests/integrations/test_foundry_module.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { BRAKKA, blow, counting, GOBLIN, get, newFight, sameAsFoundry, table, URL_ } from "./tables.mjs";
import { settle, until } from "./waiting.mjs";

const unreachable = async () => {
  throw new TypeError("fetch failed"); // this GM's browser cannot reach the service
};

test("a GM who closes the tab with blows unsent: the co-GM's browser sends them, once", async () => {
  const { fight, gm } = await newFight("leaving");
  const t = table(fight);
  const settings = { url: URL_, fight, token: gm };
  const first = t.join({ userId: "gm1", isGM: true, settings, fetch: unreachable });
  const second = counting();
  const coGM = t.join({ userId: "gm2", isGM: true, settings, fetch: second.fetch });
  try {
    assert.equal(t.w.activeGM().id, "gm1");
    await blow(t, t.brakka, 8, first); // 20 -> 12
    await blow(t, t.goblin, 4, first, t.tokens.brakka); // 7 -> 3
    const flagged = () => coGM.env.game.users.get("gm1").getFlag("woundlog", "outbox") ?? [];
    await settle(100); // tried, and retried: gm1's browser cannot reach woundlog
    t.leave(first); // the tab closed: nothing of it runs any more
    await until(t.idle, "sent by the co-GM");
    await sameAsFoundry(t, gm, t.brakka, BRAKKA);
    await sameAsFoundry(t, gm, t.goblin, GOBLIN);
    assert.deepEqual([...second.sent.values()], [1, 1]); // each envelope sent once
    await until(() => flagged().length === 0, "gm1's flag emptied by the co-GM");
    // gm1 comes back (the first GM again, by id): nothing of it is sent again
    const back = counting();
    t.join({ userId: "gm1", isGM: true, settings, fetch: back.fetch });
    await settle(150);
    await until(t.idle, "settled");
    assert.equal(back.sent.size, 0);
    const { events } = await get(fight, gm, "/events");
    assert.equal(events.filter((e) => e.event.type === "hit").length, 2);
  } finally {
    t.stop();
  }
});

test("a player's death save handed to a GM who leaves before sending it is sent by the next GM", async () => {
  const { fight, gm } = await newFight("leaving");
  const t = table(fight);
  const settings = { url: URL_, fight, token: gm };
  const first = t.join({ userId: "gm1", isGM: true, settings });
  const player = t.join({ userId: "player1", settings: { token: "" } });
  try {
    await blow(t, t.brakka, 20, first); // 20 -> 0: downed
    await until(t.idle, "the blow sent");
    t.bridges.get(first).outbox.env.fetch = unreachable; // gm1's browser loses the service
    await t.brakka.rollDeathSave(5, 0, player); // 5: a failure, handed to gm1
    await settle(100); // handed to gm1, which cannot send it
    t.leave(first);
    const next = t.join({ userId: "gm2", isGM: true, settings });
    await until(t.idle, "sent by the next GM");
    const c = await sameAsFoundry(t, gm, t.brakka, BRAKKA);
    assert.equal(c.failures, t.brakka.system.attributes.death.failure);
    assert.equal(c.failures, 1);
    assert.ok(next.connected);
  } finally {
    t.stop();
  }
});

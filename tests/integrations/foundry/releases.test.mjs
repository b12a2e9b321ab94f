// The releases the module claims, played: each Foundry release the stand-in ports (standin.mjs
// FOUNDRY_RELEASES) with the dnd5e release verified on it (its system.json `compatibility` at
// its tag, DND5E_RELEASES), through a fight with a GM hand-over; and the module's manifest
// claiming exactly those releases, no fewer and no more. Against a real `woundlog serve`.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import { DND5E_RELEASES, FOUNDRY_RELEASES } from "./standin.mjs";
import { BRAKKA, blow, GOBLIN, get, newFight, sameAsFoundry, table, URL_ } from "./tables.mjs";
import { settle, until } from "./waiting.mjs";

const MODULE = process.env.WOUNDLOG_MODULE ?? "../../../replays/integrations/foundry/woundlog.mjs";
const manifest = JSON.parse(await readFile(new URL("module.json", new URL(MODULE, import.meta.url)), "utf8"));
const verifiedOn = (foundry) => Object.keys(DND5E_RELEASES).find((r) => DND5E_RELEASES[r].verified === String(foundry));

test("the manifest claims the Foundry releases the stand-in plays, from the first to the last", () => {
  const first = String(Math.min(...FOUNDRY_RELEASES));
  const last = String(Math.max(...FOUNDRY_RELEASES));
  assert.deepEqual(manifest.compatibility, { minimum: first, verified: last, maximum: last });
  for (const foundry of FOUNDRY_RELEASES) assert.ok(verifiedOn(foundry), `a dnd5e release verified on Foundry ${foundry}`);
});

for (const foundry of FOUNDRY_RELEASES) {
  const dnd5e = verifiedOn(foundry);
  test(`Foundry v${foundry} with dnd5e ${dnd5e}: turns, blows, a death save and a GM who leaves mid-send end as the sheets show`, async () => {
    const { fight, gm } = await newFight(`v${foundry}`);
    const t = table(fight, { foundry, dnd5e });
    const settings = { url: URL_, fight, token: gm };
    let closing = false; // gm1's tab closes while its last send is under way: no answer comes
    const cut = (url, init = {}) => (closing && init.method === "POST" ? new Promise(() => {}) : fetch(url, init));
    const first = t.join({ userId: "gm1", isGM: true, settings, fetch: cut });
    const second = t.join({ userId: "gm2", isGM: true, settings });
    const player = t.join({ userId: "player1", settings: { token: "" } });
    try {
      await t.w.combat.startCombat(first); // Brakka's turn
      await blow(t, t.goblin, 4, first, t.tokens.brakka); // 7 -> 3
      await t.w.combat.nextTurn(first); // the goblin's turn
      await settle(100);
      await until(t.idle, "sent by gm1");
      closing = true;
      await blow(t, t.brakka, 20, first); // 20 -> 0: downed, and gm1 closes the tab mid-send
      await settle(50);
      t.leave(first);
      await t.w.combat.nextTurn(second); // round 2: Brakka's turn, from the co-GM
      await t.brakka.rollDeathSave(14, 0, player); // a success
      await settle(100);
      await until(t.idle, "sent by gm2");
      const c = await sameAsFoundry(t, gm, t.brakka, BRAKKA);
      assert.equal(c.successes, t.brakka.system.attributes.death.success);
      await sameAsFoundry(t, gm, t.goblin, GOBLIN);
      const { events } = await get(fight, gm, "/events");
      const started = events.filter((e) => e.event.type === "turn_started").map((e) => [e.event.round, e.event.character]);
      assert.deepEqual(started.at(-1), [2, BRAKKA]);
      // nothing lost, so nothing brought in line afterwards (a `:drift` event would hide a loss)
      assert.deepEqual(events.map((e) => e.event.id).filter((id) => String(id).endsWith(":drift")), []);
      assert.deepEqual(t.w.deprecations ?? [], []); // nothing v14 deprecates (a `-=` key)
    } finally {
      t.stop();
    }
  });
}

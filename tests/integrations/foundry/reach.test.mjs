// Failures a GM must see: a service that refuses Foundry's origin (CORS, refused at the
// preflight), a service out of reach, and an envelope the service refuses, each whispered to
// the GMs once, with the cause and the fix, and a note when it is over. The GM's browser is the
// stand-in's port of a browser's fetch with its CORS checks (standin.mjs `browserFetch`),
// against a real `woundlog serve` started with WOUNDLOG_CORS_ORIGINS set to
// WOUNDLOG_FOUNDRY_ORIGIN (tests/integrations/test_foundry_module.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { browserFetch } from "./standin.mjs";
import { BRAKKA, blow, GOBLIN, newFight, sameAsFoundry, table, URL_ } from "./tables.mjs";
import { settle, until } from "./waiting.mjs";

const ALLOWED = process.env.WOUNDLOG_FOUNDRY_ORIGIN; // what the service allows
const OTHER_NAME = ALLOWED.replace("localhost", "127.0.0.1"); // the same Foundry, opened by another name
const RETRY_MS = [500, 1000, 2000, 5000, 10000, 30000]; // the module's backoff, then every 30 s

test("a browser at the origin the service allows passes its CORS checks: the port's control", async () => {
  const { fight, gm } = await newFight("reach");
  const t = table(fight);
  const c = t.join({ userId: "gm", isGM: true, settings: { url: URL_, fight, token: gm }, origin: ALLOWED, fetch: browserFetch(ALLOWED) });
  try {
    await blow(t, t.goblin, 4, c, t.tokens.brakka);
    await until(t.idle, "sent");
    await sameAsFoundry(t, gm, t.goblin, GOBLIN);
    await until(() => c.values.get("seen")?.[fight] >= 2, "the stream read through CORS");
    assert.deepEqual(t.told(c, "woundlog"), []); // nothing wrong, nothing said of it
  } finally {
    t.stop();
  }
});

test("Foundry opened at an origin the service does not allow: the GM is told once, with the origin to allow", async () => {
  const { fight, gm } = await newFight("reach");
  const t = table(fight);
  const c = t.join({ userId: "gm", isGM: true, settings: { url: URL_, fight, token: gm }, origin: OTHER_NAME, fetch: browserFetch(OTHER_NAME) });
  try {
    await blow(t, t.brakka, 6, c);
    await until(() => t.told(c, "CORS").length > 0, "the GM told");
    await settle(300); // the send and the stream read both retried, several times
    const told = t.told(c, "CORS");
    assert.equal(told.length, 1, told.map((m) => m.content).join("\n"));
    assert.ok(told[0].content.includes(`WOUNDLOG_CORS_ORIGINS=${OTHER_NAME} woundlog serve`), told[0].content);
    assert.ok(told[0].content.includes(`woundlog at ${URL_} answers`), told[0].content);
    assert.deepEqual(told[0].whisper, ["gm"]); // to the GMs only
    assert.equal(t.bridges.get(c).outbox.envelopes.length, 1); // kept, not dropped
  } finally {
    t.stop();
  }
});

test("a service out of reach: the GM is told once with the URL tried, retries back off, and the GM is told when it answers again", async () => {
  const { fight, gm } = await newFight("reach");
  const t = table(fight);
  const nowhere = "http://127.0.0.1:9"; // the discard port: nothing listens there
  const c = t.join({ userId: "gm", isGM: true, settings: { url: nowhere, fight, token: gm }, origin: ALLOWED, fetch: browserFetch(ALLOWED) });
  const waits = [];
  const setTimeout_ = c.env.setTimeout;
  c.env.setTimeout = (fn, ms) => (waits.push(ms), setTimeout_(fn, ms));
  try {
    await blow(t, t.brakka, 6, c);
    await blow(t, t.brakka, 3, c);
    await until(() => t.told(c, "cannot be reached").length > 0, "the GM told");
    await settle(300);
    const told = t.told(c, "cannot be reached");
    assert.equal(told.length, 1, told.map((m) => m.content).join("\n"));
    assert.ok(told[0].content.includes(`at ${nowhere}/fights/${fight}/`), told[0].content);
    assert.ok(told[0].content.includes("kept in Foundry and sent once it answers"), told[0].content);
    // the send and the stream read each back off: 0.5 s, 1 s, 2 s, ... (here in milliseconds)
    assert.ok(waits.includes(RETRY_MS[2]) && waits.every((ms) => RETRY_MS.includes(ms)), String(waits));
    await c.env.game.settings.set("woundlog", "url", URL_); // the GM puts the URL right
    await until(t.idle, "sent once it answers");
    await sameAsFoundry(t, gm, t.brakka, BRAKKA);
    await until(() => t.told(c, "answers again").length > 0, "the GM told it is over");
    await settle(100);
    assert.equal(t.told(c, "answers again").length, 1);
    assert.equal(t.told(c, "cannot be reached").length, 1);
  } finally {
    t.stop();
  }
});

test("an envelope the service refuses is dropped, the GM told which token's change, and the next change brings woundlog in line", async () => {
  const { fight, gm } = await newFight("reach");
  const t = table(fight);
  let refuse = true;
  const refusing = async (url, init = {}) => {
    if (init.method === "POST" && refuse) {
      refuse = false;
      return new Response(JSON.stringify({ detail: "the test's 422" }), { status: 422 });
    }
    return fetch(url, init);
  };
  const c = t.join({ userId: "gm", isGM: true, settings: { url: URL_, fight, token: gm }, fetch: refusing });
  try {
    await blow(t, t.brakka, 5, c); // 20 -> 15, refused
    await until(t.idle, "dealt with");
    const told = t.told(c, "(422), dropped");
    assert.equal(told.length, 1);
    assert.ok(told[0].content.includes("for Brakka"), told[0].content);
    await blow(t, t.brakka, 2, c); // 15 -> 13: woundlog learns of the 5 too
    await until(t.idle, "sent");
    await sameAsFoundry(t, gm, t.brakka, BRAKKA);
  } finally {
    t.stop();
  }
});

test("envelopes refused for one same reason are dropped with one whisper, not one each", async () => {
  const { fight, gm } = await newFight("reach");
  const t = table(fight);
  const refusing = async (url, init = {}) => {
    if (init.method !== "POST") return fetch(url, init);
    const problem = { detail: "the fight's ruleset is mordheim: Foundry's dnd5e envelopes do not fit it" };
    return new Response(JSON.stringify(problem), { status: 422 });
  };
  const c = t.join({ userId: "gm", isGM: true, settings: { url: URL_, fight, token: gm }, fetch: refusing });
  try {
    for (const damage of [1, 2, 3]) await blow(t, t.brakka, damage, c);
    await until(t.idle, "all dealt with");
    assert.equal(t.told(c, "(422), dropped").length, 1);
    assert.equal(t.told(c, "woundlog").length, 1); // and nothing else said of them
  } finally {
    t.stop();
  }
});

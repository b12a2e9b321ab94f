// Waiting in the node tests of the Foundry module: for a condition the bridge reaches in its own
// time (a queue sent, a stream read), and for a moment in which nothing more should happen.
import assert from "node:assert/strict";

/** Resolves once `check()` holds, polled every 20 ms; fails naming `what` after `ms`. */
export async function until(check, what, ms = 10000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`not within ${ms} ms: ${what}`);
}

/** A pause long enough for a bridge to act on what it has been told, had it meant to. */
export const settle = (ms = 60) => new Promise((resolve) => setTimeout(resolve, ms));

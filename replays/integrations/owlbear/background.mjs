// The extension's background page (the manifest's `background_url`): Owlbear Rodeo keeps it
// loaded, hidden, for as long as the room is open, in every player's browser. It starts the
// bridge with the Owlbear Rodeo SDK (vendored: obr-sdk-3.1.0.mjs) and this browser's globals;
// bridge.mjs decides whether this browser is the one that sends.

import OBR from "./obr-sdk-3.1.0.mjs";
import { start, storageOf } from "./bridge.mjs";

const { storage, kept } = storageOf(globalThis);

OBR.onReady(() =>
  start(OBR, {
    base: globalThis.location.origin, // the service that served this page: same origin, no CORS
    fetch: (...args) => globalThis.fetch(...args),
    localStorage: storage,
    kept,
    setTimeout: (...args) => globalThis.setTimeout(...args),
    now: () => Date.now(),
    addEventListener: (...args) => globalThis.addEventListener(...args),
  }),
);

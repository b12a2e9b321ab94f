// One browser's frame of the extension, run in a worker thread of its own (its own globals, as
// an iframe has its own window): what a browser gives the extension's page, no more.
//
// - `window.location.search` holds `obrref`, base64 of "<Owlbear's origin> <room id>", which the
//   SDK reads on import (owlbear-rodeo/sdk 3.1.0 src/common/getDetails.ts);
// - `window.addEventListener("message")` and `window.parent.postMessage(message, origin)` are
//   the SDK's only channel to Owlbear Rodeo (src/messages/MessageBus.ts), carried here over the
//   worker's port to the stand-in of Owlbear Rodeo (owlbear.mjs); a message event carries the
//   sender's `origin`, which the SDK checks against the one `obrref` named;
// - a clock of its own (`Date.now`), set off the true time by `skewMs`;
// - localStorage, kept per browser (a second GM's browser has its own), its writes mirrored to
//   the test; a write by another page of the origin (the popover) reaches this page as a
//   `storage` event, as a browser dispatches it;
// - fetch, the browser's, each request's method and URL reported to the test (a browser's
//   network panel), so a test can see which browser sent what; with the network off (the
//   service stopped, a cable pulled) it rejects with a TypeError, as a browser's does.
import { parentPort, workerData } from "node:worker_threads";

const { entry, page, obrref, origin, storage, skewMs = 0 } = workerData;

// this computer's clock, which may be off Owlbear Rodeo's servers' by `skewMs`
const trueNow = Date.now;
Date.now = () => trueNow() + skewMs;

const kept = new Map(Object.entries(storage ?? {}));
const storageListeners = [];
globalThis.localStorage = {
  getItem: (key) => (kept.has(key) ? kept.get(key) : null),
  setItem: (key, value) => {
    kept.set(key, String(value));
    parentPort.postMessage({ storage: [key, String(value)] });
  },
  removeItem: (key) => {
    kept.delete(key);
    parentPort.postMessage({ storage: [key, null] });
  },
};

const location = new URL(page);
location.search = `?obrref=${encodeURIComponent(obrref)}`;
const messageListeners = new Set();
globalThis.location = location;
globalThis.addEventListener = (type, listener) => {
  if (type === "storage") storageListeners.push(listener);
};
globalThis.window = {
  location,
  addEventListener: (type, listener) => type === "message" && messageListeners.add(listener),
  removeEventListener: (type, listener) => messageListeners.delete(listener),
  parent: { postMessage: (message, targetOrigin) => parentPort.postMessage({ toHost: message, targetOrigin }) },
  setTimeout: (...args) => setTimeout(...args),
};

const browserFetch = globalThis.fetch;
let online = true; // off: the service is unreachable, and fetch rejects as a browser's does
globalThis.fetch = (url, init = {}) => {
  parentPort.postMessage({ request: { method: init.method ?? "GET", url: String(url), headers: init.headers ?? {} } });
  if (!online) return Promise.reject(new TypeError("Failed to fetch"));
  return browserFetch(url, init);
};

parentPort.on("message", (message) => {
  if (message.fromHost) {
    for (const listener of [...messageListeners]) listener({ data: message.fromHost, origin });
  }
  if (message.online !== undefined) online = message.online;
  if (message.storage) {
    const [key, value] = message.storage; // written by another page of this browser
    if (value === null) kept.delete(key);
    else kept.set(key, value);
    for (const listener of storageListeners) listener({ key, newValue: value });
  }
});

process.on("unhandledRejection", (error) => parentPort.postMessage({ error: String(error?.stack ?? error) }));
await import(entry);
parentPort.postMessage({ loaded: true });

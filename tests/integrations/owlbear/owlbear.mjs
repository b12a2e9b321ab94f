// A stand-in of Owlbear Rodeo's side of an extension: a room (its scene's items, the players
// connected) answering the messages the real SDK (the extension's vendored
// obr-sdk-3.1.0.mjs, run unchanged in each browser's frame: client.mjs) sends.
//
// Owlbear Rodeo's own side is not public; what it must do is read off the SDK's source,
// owlbear-rodeo/sdk 3.1.0 (December 2024), file by file:
// - src/messages/MessageBus.ts: a message is `{id, data, ref, nonce}`, posted to the parent at
//   the origin `obrref` named; nothing may be sent before `OBR_READY` (`{userId, ref}`), and
//   every later message must carry that `ref`. A call with a `nonce` is answered by
//   `<id>_RESPONSE<nonce>` (or `<id>_ERROR<nonce>`); `OBR.onReady` runs at `OBR_READY`
//   (src/index.ts). Here OBR_READY is sent once the frame's modules have loaded (a frame's
//   load event).
// - src/api/PlayerApi.ts: `OBR_PLAYER_GET_ROLE` -> `{role}` ("GM" or "PLAYER"),
//   `OBR_PLAYER_GET_CONNECTION_ID` -> `{connectionId}`, `OBR_PLAYER_GET_ID` -> `{id}`;
//   `OBR_PLAYER_SUBSCRIBE` then `OBR_PLAYER_EVENT_CHANGE` `{player}`.
// - src/api/PartyApi.ts: `OBR_PARTY_GET_PLAYERS` -> `{players}`, and `OBR_PARTY_SUBSCRIBE`
//   then `OBR_PARTY_EVENT_CHANGE` `{players}` whenever a player joins, leaves or changes. The
//   players are the *other* players in the room (Owlbear Rodeo's reference, party.md: "Get
//   the other players currently in the room"); a Player is src/types/Player.ts.
// - src/api/scene/SceneItemsApi.ts: `OBR_SCENE_ITEMS_GET_ALL_ITEMS` -> `{items}`;
//   `OBR_SCENE_ITEMS_SUBSCRIBE` then `OBR_SCENE_ITEMS_EVENT_CHANGE` `{items}`: the scene's
//   whole item list after each change, in every connected client, the one that made the
//   change included. `updateItems` sends `OBR_SCENE_ITEMS_UPDATE_ITEMS` `{updates}` (each
//   update the changed keys of one item); an item (src/types/items/Item.ts) carries
//   `lastModified` and `lastModifiedUserId`, set here on each update.
// - src/api/scene/SceneApi.ts: `OBR_SCENE_IS_READY` -> `{ready}`.
// - src/api/NotificationApi.ts: `OBR_NOTIFICATION_SHOW` `{message, variant}` -> `{id}`.
import { Worker } from "node:worker_threads";

export const ORIGIN = "https://www.owlbear.rodeo";

const copy = (value) => JSON.parse(JSON.stringify(value));

export class Room {
  constructor(id = "standinRoom") {
    this.id = id;
    this.items = [];
    this.clients = [];
    this.notifications = []; // [client name, message, variant]
    this.connections = 0;
  }

  // An item as Owlbear Rodeo keeps it: src/types/items/Item.ts and Image.ts's fields.
  addImage({ id, name, layer = "CHARACTER", metadata = {}, createdUserId = "gm-user" }) {
    const item = {
      id,
      type: "IMAGE",
      name,
      visible: true,
      locked: false,
      createdUserId,
      zIndex: this.items.length,
      lastModified: this.stamp(),
      lastModifiedUserId: createdUserId,
      position: { x: 0, y: 0 },
      rotation: 0,
      scale: { x: 1, y: 1 },
      metadata,
      layer,
      image: { width: 300, height: 300, mime: "image/png", url: `https://example.invalid/${id}.png` },
      grid: { dpi: 300, offset: { x: 150, y: 150 } },
      text: { plainText: "", type: "PLAIN", style: {}, richText: [] },
      textItemType: "LABEL",
    };
    this.items.push(item);
    this.changed();
    return item;
  }

  // Owlbear Rodeo's servers' clock, the same for every browser of the room
  stamp() {
    this.last = Math.max(Date.now(), (this.last ?? 0) + 1);
    return new Date(this.last).toISOString();
  }

  // One `OBR_SCENE_ITEMS_UPDATE_ITEMS` of some client (another extension's frame): `change`
  // edits the items named, in the order named, then every client hears the whole list.
  update(ids, change, userId = "gm-user") {
    const items = ids.map((id) => this.items.find((item) => item.id === id));
    change(items);
    for (const item of items) {
      item.lastModified = this.stamp();
      item.lastModifiedUserId = userId;
    }
    this.changed();
  }

  changed() {
    for (const client of this.clients) client.event("OBR_SCENE_ITEMS", "OBR_SCENE_ITEMS_EVENT_CHANGE", { items: copy(this.items) });
  }

  partyChanged() {
    for (const client of this.clients) client.event("OBR_PARTY", "OBR_PARTY_EVENT_CHANGE", { players: this.others(client) });
  }

  others(client) {
    return this.clients.filter((c) => c !== client).map((c) => c.player());
  }

  // A browser opens the room: the extension's background page loads in it.
  async connect({ name, role, entry, page, storage = {}, connectionId, skewMs = 0 }) {
    const client = new Client(this, { name, role, entry, page, storage, skewMs, connectionId: connectionId ?? `conn${++this.connections}` });
    this.clients.push(client);
    await client.loaded;
    this.partyChanged();
    return client;
  }

  async leave(client) {
    this.clients = this.clients.filter((c) => c !== client);
    await client.worker.terminate();
    this.partyChanged();
  }

  async close() {
    for (const client of [...this.clients]) await this.leave(client);
  }
}

class Client {
  constructor(room, { name, role, entry, page, storage, connectionId, skewMs }) {
    this.room = room;
    this.name = name;
    this.role = role;
    this.connectionId = connectionId;
    this.userId = `user-${name}`;
    this.ref = `ref-${connectionId}`;
    this.storage = { ...storage }; // this browser's localStorage, as the page last wrote it
    this.requests = []; // what this browser fetched
    this.errors = [];
    this.subscribed = new Set();
    const obrref = Buffer.from(`${ORIGIN} ${room.id}`).toString("base64");
    this.worker = new Worker(new URL("./client.mjs", import.meta.url), {
      workerData: { entry, page, obrref, origin: ORIGIN, storage, skewMs },
    });
    this.loaded = new Promise((resolve, reject) => {
      this.worker.on("error", (error) => {
        this.errors.push(String(error?.stack ?? error));
        reject(error);
      });
      this.worker.on("message", (message) => {
        if (message.loaded) {
          this.post("OBR_READY", { userId: this.userId, ref: this.ref });
          resolve();
        }
        if (message.toHost) this.handle(message.toHost, message.targetOrigin);
        if (message.request) this.requests.push(message.request);
        if (message.error) this.errors.push(message.error);
        if (message.storage) {
          const [key, value] = message.storage;
          if (value === null) delete this.storage[key];
          else this.storage[key] = value;
        }
      });
    });
  }

  player() {
    return {
      id: this.userId,
      connectionId: this.connectionId,
      role: this.role,
      selection: [],
      name: this.name,
      color: "#ff4d4d",
      syncView: false,
      metadata: {},
    };
  }

  post(id, data) {
    this.worker.postMessage({ fromHost: { id, data } });
  }

  event(topic, id, data) {
    if (this.subscribed.has(topic)) this.post(id, data);
  }

  // The service reachable from this browser, or not.
  network(online) {
    this.worker.postMessage({ online });
  }

  // The popover, another page of this browser, writes localStorage.
  write(key, value) {
    this.storage[key] = value;
    this.worker.postMessage({ storage: [key, value] });
  }

  handle({ id, data, ref, nonce }, targetOrigin) {
    if (targetOrigin !== ORIGIN || ref !== this.ref) return; // not for Owlbear Rodeo's frame
    const answer = (payload) => this.post(`${id}${"_RESPONSE"}${nonce}`, payload);
    const room = this.room;
    switch (id) {
      case "OBR_PLAYER_GET_ROLE":
        return answer({ role: this.role });
      case "OBR_PLAYER_GET_CONNECTION_ID":
        return answer({ connectionId: this.connectionId });
      case "OBR_PLAYER_GET_ID":
        return answer({ id: this.userId });
      case "OBR_PARTY_GET_PLAYERS":
        return answer({ players: room.others(this) });
      case "OBR_SCENE_IS_READY":
        return answer({ ready: true });
      case "OBR_SCENE_ITEMS_GET_ALL_ITEMS":
        return answer({ items: copy(room.items) });
      case "OBR_NOTIFICATION_SHOW":
        room.notifications.push([this.name, data.message, data.variant]);
        return answer({ id: `note${room.notifications.length}` });
      case "OBR_PLAYER_SUBSCRIBE":
      case "OBR_PARTY_SUBSCRIBE":
      case "OBR_SCENE_ITEMS_SUBSCRIBE":
        return this.subscribed.add(id.replace("_SUBSCRIBE", ""));
      case "OBR_PLAYER_UNSUBSCRIBE":
      case "OBR_PARTY_UNSUBSCRIBE":
      case "OBR_SCENE_ITEMS_UNSUBSCRIBE":
        return this.subscribed.delete(id.replace("_UNSUBSCRIBE", ""));
      default:
        if (nonce) this.post(`${id}_ERROR${nonce}`, { message: `the stand-in has no ${id}` });
    }
  }
}

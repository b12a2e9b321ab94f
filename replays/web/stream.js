// The fight's live stream of changes (server-sent events), read with fetch.
//
// A browser EventSource cannot send an Authorization header, and a token in the stream's URL
// would end up in logs; fetch can send the header and read the body as it arrives, so the SSE
// lines are parsed here (only `id`, `event` and `data` are needed). On a dropped connection it
// resumes after the last seq seen, which the service supports with `?from=`.
//
// Each event comes as two messages: `now` (what the event made of the fight, as GET /state
// shows it: application/following.py), then `changes` (what it did, its id the event's seq).
// `now` has no id, so a connection dropped between the two resumes with both again.

import { ApiError } from "./api.js";

const RETRY_MS = 1000;
// Answers a retry cannot change: the token or the fight is gone, or `from` is past its end
const FOR_GOOD = new Set([401, 403, 404, 422]);
// The messages that end a stream for good (stream.py): a client must not reconnect
const ENDED = {
  deleted: new ApiError(404, { message: "this fight was deleted" }),
  revoked: new ApiError(401, { message: "the token this page follows the fight with was revoked" }),
};

/** Call `onChanges(changes, now)` for each event from seq `first` on, until `signal` aborts
 * (then resolves to null) or the stream ends for good: then resolves to why, an ApiError (the
 * fight deleted: 404; the token revoked: 401; or the refusal of a reconnect), never retrying.
 * `now` is the event's `now` message, or null if none came with it. */
export async function follow(fight, token, first, onChanges, signal) {
  let next = first;
  while (!signal.aborted) {
    try {
      const response = await fetch(`/fights/${encodeURIComponent(fight)}/stream?from=${next}`, {
        headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" },
        signal,
      });
      if (FOR_GOOD.has(response.status)) {
        return new ApiError(response.status, await response.json().catch(() => null));
      }
      if (!response.ok) throw new Error(`stream: HTTP ${response.status}`);
      let now = null;
      for await (const message of messages(response.body, signal)) {
        if (Object.hasOwn(ENDED, message.event)) return ENDED[message.event];
        if (message.event === "now") now = JSON.parse(message.data);
        if (message.event !== "changes") continue;
        next = Number(message.id) + 1;
        onChanges(JSON.parse(message.data), now?.seq === next - 1 ? now : null);
        now = null;
      }
    } catch (error) {
      if (signal.aborted) return null;
      console.warn("stream interrupted, resuming", error);
    }
    await new Promise((resume) => setTimeout(resume, RETRY_MS));
  }
  return null;
}

/** The messages of an SSE body: `{id, event, data}` per blank-line-separated block. */
async function* messages(body, signal) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  signal.addEventListener("abort", () => reader.cancel().catch(() => {}));
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replaceAll("\r\n", "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message = { id: null, event: "message", data: "" };
      for (const line of block.split("\n")) {
        const colon = line.indexOf(":");
        if (colon <= 0) continue; // a comment (`: still here`) or a blank line
        const field = line.slice(0, colon);
        const text = line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") message.data += (message.data ? "\n" : "") + text;
        else if (field === "id" || field === "event") message[field] = text;
      }
      if (message.data) yield message;
    }
  }
}

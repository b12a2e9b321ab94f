// Installing the extension as Owlbear Rodeo does, from the service's URL: the manifest, then
// the pages it names, then the scripts each page loads and every module those import (by
// relative URL, as a browser resolves them), each fetched from the service and written to a
// folder the worker frames load from (node loads no module over HTTP).
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { ORIGIN } from "./owlbear.mjs";

export async function install(base) {
  const manifestUrl = `${base}/integrations/owlbear/manifest.json`;
  // Owlbear Rodeo's page fetches it from its own origin: the service must let that origin read it
  const answer = await fetch(manifestUrl, { headers: { Origin: ORIGIN } });
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("access-control-allow-origin"), ORIGIN);
  const manifest = await answer.json();
  const folder = await mkdtemp(join(tmpdir(), "woundlog-owlbear-"));
  const fetched = new Map(); // URL -> the headers it was served with
  async function take(url) {
    if (fetched.has(url)) return;
    const response = await fetch(url);
    assert.equal(response.status, 200, url);
    fetched.set(url, Object.fromEntries(response.headers));
    const text = await response.text();
    const name = new URL(url).pathname.split("/").pop();
    await writeFile(join(folder, name), text);
    const linked = /\.html$/.test(name)
      ? [...text.matchAll(/<(?:script|link)[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1])
      : [...text.matchAll(/(?:from|import)\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1]);
    for (const each of linked) await take(new URL(each, url).href);
  }
  await take(manifest.background_url);
  await take(manifest.action.popover);
  await take(manifest.action.icon);
  return {
    manifest,
    fetched,
    folder,
    entry: pathToFileURL(join(folder, "background.mjs")).href,
    page: manifest.background_url,
  };
}

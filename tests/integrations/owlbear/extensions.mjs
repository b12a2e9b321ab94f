// The two extensions whose metadata woundlog reads, as they write it into a room's items (each
// of their writes is one `OBR.scene.items.updateItems`, so the room's clients each hear one
// change). Ported from their public source; the logic is written here in its own words.
//
// Stat Bubbles for D&D 1.9.13 (SeamusFinlayson/Bubbles-for-Owlbear-Rodeo, July 2025):
// - key `com.owlbear-rodeo-bubbles-extension/metadata` (src/getPluginId.ts), fields `health`,
//   `max health`, `temporary health`, `armor class`, `hide` (src/metadataHelpers/
//   itemMetadataIds.ts); its name, when given, under `.../name` (nameHelpers.ts);
// - damage and healing (src/action/healthCalculations.ts `calculateNewHealth`): health and
//   temporary health below 0 count as 0; healing adds to health up to the maximum; damage
//   comes off temporary health first and what is left off health, which may go below 0;
//   health is kept within -999..9999 and temporary health within -999..999.
//
// Initiative Tracker (owlbear-rodeo/initiative-tracker, December 2023):
// - key `rodeo.owlbear.initiative-tracker/metadata` (src/getPluginId.ts) holding
//   `{count: string, active: boolean}` (src/InitiativeTracker.tsx `isMetadata`); "Add to
//   Initiative" writes `{count: "0", active: false}` (its context menu's onClick), the GM then
//   types each count;
// - Next (`handleNextClick`): the order sorted by `parseFloat(count)`, highest first; the one
//   after the active one (the first when none is, wrapping after the last) becomes active and
//   every other inactive, in one update of all of them.

export const BUBBLES = "com.owlbear-rodeo-bubbles-extension/metadata";
export const INITIATIVE = "rodeo.owlbear.initiative-tracker/metadata";

// A token with Stat Bubbles' stats (and, with `count`, in the initiative order).
export function token(room, { id, name, hp, max = hp, temp = 0, ac = 12, hide = false, count }) {
  const metadata = { [BUBBLES]: { health: hp, "max health": max, "temporary health": temp, "armor class": ac, hide } };
  if (count !== undefined) metadata[INITIATIVE] = { count: String(count), active: false };
  return room.addImage({ id, name, metadata });
}

function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}

// Stat Bubbles' new health and temporary health after `change` (damage below 0).
export function afterChange(stats, change) {
  let health = Math.max(stats.health, 0);
  let temp = Math.max(stats["temporary health"], 0);
  if (change > 0) {
    health = Math.min(health + change, stats["max health"]);
  } else {
    const damage = -change;
    const absorbed = Math.min(temp, damage);
    temp -= absorbed;
    health -= damage - absorbed;
  }
  return [clamp(health, -999, 9999), clamp(temp, -999, 999)];
}

// Stat Bubbles' bulk editor or a token's bubble: damage (a number below 0) or healing.
export function changeHealth(room, id, change) {
  room.update([id], ([item]) => {
    const stats = item.metadata[BUBBLES];
    [stats.health, stats["temporary health"]] = afterChange(stats, change);
  });
}

// A GM typing into a bubble: any stat set as it is typed.
export function setStat(room, id, field, value) {
  room.update([id], ([item]) => {
    item.metadata[BUBBLES][field] = value;
  });
}

export function next(room) {
  const order = room.items
    .filter((item) => item.type === "IMAGE" && item.metadata[INITIATIVE])
    .sort((a, b) => parseFloat(b.metadata[INITIATIVE].count) - parseFloat(a.metadata[INITIATIVE].count));
  const after = (order.findIndex((item) => item.metadata[INITIATIVE].active) + 1) % order.length;
  room.update(
    order.map((item) => item.id),
    (items) => items.forEach((item, index) => (item.metadata[INITIATIVE].active = index === after)),
  );
}

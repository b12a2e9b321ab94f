// Reading Foundry's and dnd5e's objects into the shapes of woundlog's envelopes
// (events/importers/foundry.py says what each field becomes).

export const MODULE = "woundlog";
export const HP_PATH = "system.attributes.hp"; // dnd5e's, the `hpPath` setting's default

export function setting(env, key) {
  return env.game.settings.get(MODULE, key);
}

// Is this client the one that sends? `game.users.activeGM` (the connected GM of the highest
// role, then the lowest id: client `Users#activeGM`) exists in Foundry v12 and v13; v13 adds
// `User#isActiveGM` (`this === game.users.activeGM`, client/documents/user.mjs), which v12's
// User has not (foundry-vtt-types' v12 src/foundry/client/data/documents/user.d.mts lists
// `isTrusted` and `isSelf` only): reading it there is `undefined`, and nothing was ever sent.
export function isActiveGM(game) {
  const gm = game.users?.activeGM;
  return Boolean(gm) && gm.id === game.user.id;
}

// A roll as woundlog takes its dice: `Roll#dice` already lists the dice inside parenthetical
// and pool terms; each result keeps `active` and `discarded` (dropped by `kh`, rerolled). A
// D20Roll's `isCritical`, `isFumble` and target go along: a death save's outcome is its total
// against the target (dnd5e `Actor5e#rollDeathSave`: `roll.options.target` in 4.x and 5.x,
// `roll.options.targetValue` in 3.x, 10 when unset).
export function rollOf(roll) {
  if (!roll) return undefined;
  const target = roll.options?.target ?? roll.options?.targetValue;
  return {
    formula: roll.formula,
    total: roll.total,
    ...(roll.isCritical !== undefined ? { isCritical: Boolean(roll.isCritical) } : {}),
    ...(roll.isFumble !== undefined ? { isFumble: Boolean(roll.isFumble) } : {}),
    ...(typeof target === "number" ? { target } : {}),
    dice: roll.dice.map((die) => ({
      faces: die.faces,
      results: die.results.map((r) => ({
        result: r.result,
        active: r.active !== false,
        ...(r.discarded ? { discarded: true } : {}),
      })),
    })),
  };
}

// Who an actor is to woundlog, the same on every scene and in every combat:
// - an unlinked token's actor is synthetic (`actor.token` is its TokenDocument): the token
//   is the creature, and unlinked tokens of one base actor share its `id`, so its id is the
//   token document's uuid (`Scene.<scene>.Token.<token>`) and its name the token's
//   ("Goblin (2)");
// - a linked actor (a player character) is one creature however many tokens it has, or none
//   on the scene viewed: its id is the world actor's uuid (`Actor.<id>`) and its name the
//   actor's. A token of it in the combat is the same character, never a second one.
export function characterOf(actor) {
  const token = actor.token;
  if (token) return { uuid: token.uuid, name: token.name ?? actor.name };
  return { uuid: actor.uuid, name: actor.name };
}

// HP at the `hpPath` setting ({value, max, temp}, and dnd5e's `tempmax`, by which Aid lets
// `value` exceed `max`: dnd5e's `hp.effectiveMax` is `max + tempmax`).
export function hpOf(env, actor) {
  const hp = env.foundry.utils.getProperty(actor, setting(env, "hpPath")) ?? {};
  return { value: hp.value, max: hp.max, temp: hp.temp ?? 0, tempmax: hp.tempmax ?? 0 };
}

// The maximum after an update whose stored `tempmax` is `stored` (undefined: it changed
// none), as dnd5e prepares it. An update holds STORED values: under Aid's ActiveEffect the
// stored `tempmax` is 0 and the prepared one 5 (the effect adds 5 when the actor is prepared:
// dnd5e 5.3.3 packs aid.yml, `system.attributes.hp.tempmax` ADD 5), and dnd5e 5.3.3's
// `applyDamage` puts the stored one in every update (`hpSource.tempmax - tempMax`). So the
// prepared maximum is the actor's now, with the effects' part of `tempmax` (prepared less
// stored, `actor._source`) added to the update's stored one.
export function maximumAfter(env, actor, stored) {
  const now = hpOf(env, actor);
  const source = env.foundry.utils.getProperty(actor._source ?? {}, setting(env, "hpPath"))?.tempmax;
  if (stored === undefined || source === undefined) return { max: now.max, tempmax: now.tempmax };
  return { max: now.max, tempmax: stored + (now.tempmax - source) };
}

// `token` and `actor` as the envelope carries them; `hp` as after the change.
export function tokenPart(actor, hp) {
  const who = characterOf(actor);
  return {
    token: { uuid: who.uuid, name: who.name, player: Boolean(actor.hasPlayerOwner) },
    actor: { id: actor.id, name: actor.name, type: actor.type, hp },
  };
}

// Dice of a roll, given to woundlog for the purpose the `purpose` setting names (d26's
// `location`, ...); none when it is empty, as in dnd5e, whose rules roll no damage dice.
export function dicePart(env, roll) {
  const purpose = setting(env, "purpose");
  return purpose && roll ? { purpose, roll: rollOf(roll) } : {};
}

// The attacker: whoever spoke the damage roll's chat message, as woundlog knows it.
export function speakerOf(env, message) {
  const speaker = message?.speaker;
  if (!speaker?.token && !speaker?.actor) return undefined;
  if (speaker.scene && speaker.token) {
    const token = env.fromUuidSync?.(`Scene.${speaker.scene}.Token.${speaker.token}`);
    if (token?.actor) return characterOf(token.actor).uuid;
    return `Scene.${speaker.scene}.Token.${speaker.token}`;
  }
  return `Actor.${speaker.actor}`;
}

// The change between two HP readings, as dnd5e's `onUpdateHP` computes it (new minus old).
export function changeOf(before, after) {
  const changes = { hp: (after.value ?? 0) - (before.value ?? 0), temp: (after.temp ?? 0) - (before.temp ?? 0) };
  changes.total = changes.hp + changes.temp;
  return changes;
}

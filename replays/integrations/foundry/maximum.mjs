// A maximum that moves with no HP hook to say so: the `maximum` envelope (events/importers/
// foundry.py says what it becomes: a `stat_changed` where woundlog holds another maximum).
//
// dnd5e's HP hooks (`damageActor`/`healActor`, fired by `onUpdateHP`) report a change of the
// PREPARED `value` and `temp` only (5.3.3 module/data/actor/templates/attributes.mjs: nothing
// when `changes.total` is 0). A maximum moves without one when:
// - an ActiveEffect changing `hp.max` or `hp.tempmax` is applied, changed or ended (Aid: `tempmax`
//   ADD 5): Foundry prepares the actor again before each `createActiveEffect`,
//   `updateActiveEffect` and `deleteActiveEffect` hook, on every client (ClientDatabaseBackend
//   `#handleCreateDocuments` and the others: `parent.reset()` first), and makes no actor
//   update, so no HP hook fires even when the prepared `value` falls with the maximum (Aid
//   ending at 25/25);
// - the sheet's `max` or `tempmax` is edited and the prepared HP stay where they were (a
//   maximum raised, or lowered above the HP): an `updateActor` whose HP hook never comes.
//   When the prepared HP do move (a temp max lowered at full HP), dnd5e's own HP hook follows
//   and carries the new maximum, as every envelope does; and the update of an `applyDamage`
//   (5.3's `maximum` type) is sent as that blow (damage.mjs).
// Each is reported by the client that made it, as the HP hooks are.

import { hpOf, setting, tokenPart } from "./reading.mjs";

const EFFECT_HOOKS = ["createActiveEffect", "updateActiveEffect", "deleteActiveEffect"];

export function followMaximum(env, bridge) {
  const { Hooks, game } = env;
  const { getProperty } = env.foundry.utils;
  const path = () => setting(env, "hpPath");
  const moves = (effect) =>
    (effect?.changes ?? []).some((change) => [`${path()}.max`, `${path()}.tempmax`].includes(change.key));
  const send = (actor, cause, effect) => {
    if (!actor?.uuid || getProperty(actor, path()) === undefined) return;
    const named = effect ? { effect: { name: String(effect.name ?? "").slice(0, 200) } } : {};
    bridge.emit({ hook: "maximum", cause, ...named, ...tokenPart(actor, hpOf(env, actor)) });
  };
  // (effect, options, userId) for create and delete; (effect, changed, options, userId) for update
  for (const name of EFFECT_HOOKS) {
    Hooks.on(name, (effect, ...rest) => {
      if (rest.at(-1) !== game.user.id || !moves(effect)) return;
      send(effect.parent, name, effect);
    });
  }
  Hooks.on("updateActor", (actor, changed, options, userId) => {
    if (env.game.system?.id !== "dnd5e" || userId !== game.user.id) return;
    const diff = getProperty(changed ?? {}, path()) ?? {};
    if (diff.max === undefined && diff.tempmax === undefined) return;
    if (bridge.damage.applying(actor, changed)) return; // said by its applyDamage
    const before = options?.dnd5e?.hp; // dnd5e's `preUpdateHP`: the prepared HP before
    const now = hpOf(env, actor);
    if (before && now.value + now.temp !== before.value + (before.temp ?? 0)) return; // its HP hook follows
    send(actor, "updateActor");
  });
}

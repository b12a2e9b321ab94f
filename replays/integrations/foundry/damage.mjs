// The HP updates a client makes through dnd5e's `applyDamage` (and a death save's revival),
// paired with the `dnd5e.damageActor`/`healActor` each fires, whenever that comes.

import { changeOf, hpOf, maximumAfter, setting } from "./reading.mjs";

const APPLYING_MS = 10000; // an HP update lands well within this; older marks are dropped

// The HP updates this client made through `applyDamage` (and a death save's revival), so the
// `damageActor`/`healActor` each fires is known for one whenever it arrives: dnd5e 3.x fires
// it after awaiting `updateEncumbrance` (3.3.1 `Actor5e#_onUpdate`), 4.x after awaiting
// `updateBloodied` (4.4.4 `Actor5e#_onUpdate`), 5.x after awaiting it in `onUpdateHP`
// (5.3.3 module/data/actor/templates/attributes.mjs); when the effect is created or deleted
// that is a round trip to the server, and `Actor5e#applyDamage`'s own `await this.update()`
// returns, firing `dnd5e.applyDamage`, first. A hook is known by the update it reports (its
// third argument, the update's own diff), not by when it comes, so a second blow on the same
// actor before the first's hook arrives takes nothing of the first.
export class Damage {
  constructor(env) {
    this.env = env;
    this.updates = new Map(); // actor uuid -> [{values, since, applied, hooked}]
    this.byOptions = new WeakMap(); // applyDamage's options -> its mark
  }

  prune(uuid) {
    const now = Date.now();
    const kept = (this.updates.get(uuid) ?? []).filter((mark) => now - mark.since < APPLYING_MS);
    if (kept.length) this.updates.set(uuid, kept);
    else this.updates.delete(uuid);
    return kept;
  }

  // An HP update this client is about to make; `values` is read when it is needed, since a
  // handler after this one may still change the update.
  expect(actor, values, { applied = false, options } = {}) {
    const mark = { before: hpOf(this.env, actor), values, since: Date.now(), applied, hooked: false };
    this.updates.set(actor.uuid, [...this.prune(actor.uuid), mark]);
    if (options) this.byOptions.set(options, mark);
    return mark;
  }

  // The HP the marked update leaves, as dnd5e prepares them: `value` and `temp` from the
  // update (a later update may already be in the actor), the maximum from the actor's
  // PREPARED data (`maximumAfter`).
  after(mark, actor) {
    const path = setting(this.env, "hpPath");
    const read = (key) => mark.values[`${path}.${key}`];
    const { before } = mark;
    return {
      value: read("value") ?? before.value,
      temp: read("temp") ?? before.temp,
      ...(actor ? maximumAfter(this.env, actor, read("tempmax")) : { max: before.max, tempmax: before.tempmax }),
    };
  }

  // `dnd5e.applyDamage`: the mark its `preApplyDamage` made, now applied.
  applied(actor, options) {
    const mark = options ? this.byOptions.get(options) : undefined;
    if (!mark) return undefined;
    mark.applied = true;
    const after = this.after(mark, actor);
    const changes = changeOf(mark.before, after);
    // no HP hook comes for no change (onUpdateHP returns at `changes.total === 0`)
    if (mark.hooked || changes.total === 0) this.forget(actor.uuid, mark);
    return { after, changes };
  }

  // A `damageActor`/`healActor` of one of these updates (true: say nothing of it).
  hooked(actor, update) {
    const path = setting(this.env, "hpPath");
    const diff = this.env.foundry.utils.getProperty(update ?? {}, path) ?? {};
    if (diff.value === undefined && diff.temp === undefined) return false;
    const mark = this.prune(actor.uuid).find((m) => {
      if (m.hooked) return false;
      const after = this.after(m);
      return (diff.value === undefined || diff.value === after.value) && (diff.temp === undefined || diff.temp === after.temp);
    });
    if (!mark) return false;
    mark.hooked = true;
    if (mark.applied) this.forget(actor.uuid, mark);
    return true;
  }

  // Is `changed` (an `updateActor` diff) the update of an `applyDamage` not yet applied? Its
  // `dnd5e.applyDamage` envelope carries the maximum it moved (5.3's `maximum` type).
  applying(actor, changed) {
    const path = setting(this.env, "hpPath");
    const tempmax = this.env.foundry.utils.getProperty(changed ?? {}, `${path}.tempmax`);
    return this.prune(actor.uuid).some((m) => !m.applied && m.values[`${path}.tempmax`] === tempmax);
  }

  forget(uuid, mark) {
    const kept = (this.updates.get(uuid) ?? []).filter((m) => m !== mark);
    if (kept.length) this.updates.set(uuid, kept);
    else this.updates.delete(uuid);
  }
}


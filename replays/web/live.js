// A followed fight kept up to date from its stream alone: each event's `now` message holds
// what the event made of the fight as GET /state shows it (application/following.py), so the
// page replaces what changed with the values the server computed, and reads the whole state
// again only when it cannot: on opening, after a gap (an event it did not get), or when what
// the server shows it changed (the GM set another players' view). No rule is applied here.

/** Whether `now` is the next event after `state` and shown as what the page holds is: then
 * `applied(state, now)` is what GET /state answers now. `view` is the view of the `now`
 * messages applied so far (null: none yet). */
export function follows(state, view, now) {
  return now != null && state != null && now.seq === state.seq + 1 && (view == null || now.view === view);
}

/** The state after the event of `now`, from the state before it: its changed characters
 * replaced (a null one has left the fight), in the join order `now` gives when who is in the
 * fight changed, and its other changed fields set (a null one is left out, as GET /state
 * leaves a default out). */
export function applied(state, now) {
  const order = now.order ?? Object.keys(state.characters);
  const characters = {};
  for (const id of order) {
    const character = Object.hasOwn(now.characters, id) ? now.characters[id] : state.characters[id];
    if (character != null) characters[id] = character;
  }
  const next = { ...state, characters };
  for (const [key, value] of Object.entries(now.fight)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** The newest event as one moment of the timeline (GET /timeline's), from its two messages. */
export function moment(changes, now) {
  return { seq: now.seq, event: now.recorded, changes };
}

/** Whether the event of `now` is an undo (a retract, an amend): it rewrites what earlier
 * events did (their `undone` marks), so a page that lists past events reads them again. */
export function rewrites(now) {
  return now.recorded.type === "retract" || now.recorded.type === "amend";
}

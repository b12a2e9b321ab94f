// Which event Undo and Redo take back, by the CLI's rule (replays/fight.py, Fight.newest_live):
// Undo retracts the newest event that is neither the fight's start nor itself a retract, and
// that no retract still in effect has taken back; Redo retracts the newest undo still in effect
// (retracting a retract restores the event, DESIGN.md section 6), when it is the newest event
// in effect. The page names the event it chose and sends that very event, so what the person
// confirmed is what is undone even if someone else appended meanwhile.

const retractedNow = (moment) => /^retracted by /.test(moment.changes.undone ?? "");

/** The moment Undo takes back, or null when there is nothing to undo. */
export function undoTarget(moments) {
  for (let i = moments.length - 1; i >= 0; i--) {
    const moment = moments[i];
    if (moment.event.type === "fight_started" || moment.event.type === "retract") continue;
    if (!retractedNow(moment)) return moment;
  }
  return null;
}

/** The undo (a retract in effect) Redo takes back, or null: only while the newest event still
 * in effect is an undo, as in an editor, where Redo is offered right after Undo. */
export function redoTarget(moments) {
  for (let i = moments.length - 1; i >= 0; i--) {
    const moment = moments[i];
    if (retractedNow(moment)) continue;
    return moment.event.type === "retract" ? moment : null;
  }
  return null;
}

/** The moment an event reference (`#N` or an id) names, among `moments`. */
export function named(moments, ref) {
  const seq = /^#([1-9][0-9]*)$/.exec(ref);
  if (seq) return moments[Number(seq[1]) - 1] ?? null;
  return moments.find((m) => m.event.id === ref) ?? null;
}

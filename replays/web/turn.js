// The round and whose turn it is, as the engine counts them (the state JSON's `rounds`, from
// core/turns.py: the log's own round when it gives one, else counted from 1).

/** `{round, whose}`: the round (null before any tick) and the name of whose turn is running
 * (a character's or a side's; null when only the whole round is, or nobody's). */
export function turnNow(state) {
  const rounds = state.rounds ?? {};
  if (!rounds.round) return { round: null, whose: null };
  const started = rounds.started ?? {};
  const ended = rounds.ended ?? {};
  const running = (list, over) => [...(list ?? [])].reverse().find((x) => !(over ?? []).includes(x));
  const character = running(started.characters, ended.characters);
  if (character && !rounds.closed) return { round: rounds.round, whose: state.characters[character]?.name || character, character };
  const side = running(started.sides, ended.sides);
  if (side && !rounds.closed) return { round: rounds.round, whose: side, side };
  return { round: rounds.round, whose: null, closed: !!rounds.closed };
}

/** `Round 2 · Mirabel's turn`. */
export function turnLine(state) {
  const { round, whose, closed } = turnNow(state);
  if (round === null) return "Before the first round";
  if (closed) return `Round ${round} is over`;
  return whose ? `Round ${round} · ${whose}'s turn` : `Round ${round}`;
}

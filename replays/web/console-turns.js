// Turns on the console: the characters in the order the fight's turn order gives (the state
// JSON's, worked out by the service from the initiative set; join order before any is set),
// Next turn, and the initiative the GM sets. Each one call of the service.

import { ApiError, fightPath } from "./api.js";

async function post(url, token, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, answer);
  return answer;
}

/** The character ids in turn order: the fight's order, then anyone it does not name (joined
 * since), in join order. */
export function turnOrder(state) {
  const order = (state.turn?.order ?? []).filter((id) => id in state.characters);
  return [...order, ...Object.keys(state.characters).filter((id) => !order.includes(id))];
}

/** End the current turn and start the next living character's, wrapping rounds (one call:
 * the service knows whose turn comes next), with the table's `rolls` for them if any. The
 * service's `Appended`. */
export function nextTurn(fight, token, rolls = {}) {
  return post(`${fightPath(fight)}/next`, token, Object.keys(rolls).length ? { rolls } : {});
}

/** The next die the rules would ask for the next turn, given `rolls` so far: `{die}`. */
export function nextDiceAsked(fight, token, rolls) {
  return post(`${fightPath(fight)}/next/dice-asked`, token, { rolls });
}

/** Set the initiative, `{character: value}`: the service makes the turn order from it. */
export function setInitiative(fight, token, given) {
  return post(`${fightPath(fight)}/turn-order`, token, { initiative: given });
}
